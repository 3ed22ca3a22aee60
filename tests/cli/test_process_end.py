"""The console script ends without the interpreter's teardown: what it wrote must all be there, the
exit code be main()'s, and no temporary file or directory be left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GPUPOOL = [sys.executable, "-c", "from gpu_node_pool.cli import main_exit; main_exit()"]


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=str(ROOT / "components"))
    return subprocess.run([*GPUPOOL, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)


def test_a_plan_written_to_a_pipe_arrives_whole_and_leaves_no_temporary_files(tmp_path):
    done = _run(["plan", "--stack", "dev", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)  # the whole document, not a truncated buffer
    assert plan["pools"] and len(done.stdout) > 8192  # more than one pipe buffer's worth
    assert list(tmp_path.iterdir()) == []


def test_an_invalid_stack_ends_with_exit_2_and_its_message(tmp_path):
    done = _run(["validate", "--file", str(tmp_path / "missing.yaml")], tmp_path)
    assert done.returncode == 2
    assert "missing.yaml" in done.stderr


def test_a_closed_stderr_or_stdout_at_start_is_not_a_failure(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT / "components"))
    for closed in ("2>&-", ">&-"):
        done = subprocess.run(f"{sys.executable} -c 'from gpu_node_pool.cli import main_exit; main_exit()' "
                              f"validate --stack dev {closed}", shell=True, cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (closed, done.stderr)


def test_a_full_disk_under_the_report_is_exit_2_with_the_reason(tmp_path):
    if not Path("/dev/full").exists():
        import pytest

        pytest.skip("no /dev/full here")
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT / "components"))
    for args in (["plan", "--stack", "dev"], ["validate", "--stack", "nope", "--json"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([*GPUPOOL, *args], cwd=ROOT, env=env, stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=300)
        assert done.returncode == 2, (args, done.stderr)
        assert "cannot write the report (stdout): No space left on device" in done.stderr
        assert "Traceback" not in done.stderr
    done = _run(["plan", "--stack", "dev", "--html", "/dev/full"], tmp_path)
    assert done.returncode == 2 and "cannot write /dev/full: No space left on device" in done.stderr


def test_ctrl_c_ends_with_130_and_one_line(tmp_path):
    import signal

    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT / "components"))
    slow = [sys.executable, "-c", "import time\nfrom gpu_node_pool.cli import commands as c\n"
            "c.main = lambda: print('running', flush=True) or time.sleep(60) or 0\nfrom gpu_node_pool.cli import main_exit\nmain_exit()"]
    proc = subprocess.Popen(slow, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "running"  # the command is under way
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip() == "gpupool: interrupted"


def test_sigterm_during_check_kills_the_programs_child_and_leaves_no_request_file(tmp_path):
    # `timeout 60 gpupool check ...` or a cancelled CI job: the hung program's child goes, and the request
    # and answer files with it, before gpupool exits 143
    import shutil
    import signal
    import time

    project = tmp_path / "p"
    shutil.copytree(ROOT / "tests" / "data" / "foreign_project", project)
    pid_file = tmp_path / "child.pid"
    main = project / "__main__.py"
    main.write_text(f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)\n"
                    + main.read_text())
    work = tmp_path / "tmp"
    work.mkdir()
    env = dict(os.environ, TMPDIR=str(work), PYTHONPATH=str(ROOT / "components"))
    proc = subprocess.Popen([*GPUPOOL, "check", "--project-dir", str(project), "--stack", "ci"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pid_file.read_text())
    assert list(work.iterdir())  # the request file's directory, while the program runs
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.strip() == "gpupool: terminated"
    assert list(work.iterdir()) == []
    try:
        os.kill(child, 0)
    except ProcessLookupError:
        pass
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the program's child outlived gpupool")


def _plan_of_program(tmp_path: Path, program: str) -> subprocess.Popen[str]:
    """``gpupool plan`` started on a project of ``program`` with the shipped dev stack (valid)."""
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    (tmp_path / "__main__.py").write_text(program)
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT / "components"))
    return subprocess.Popen([*GPUPOOL, "plan", "--project-dir", str(tmp_path), "--stack", "dev"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigterm_while_the_plans_program_runs_its_callbacks_is_one_line_and_143(tmp_path):
    # the Pulumi mocks run the program in an asyncio event loop, which logs and swallows any BaseException
    # from a callback other than KeyboardInterrupt and SystemExit
    import signal
    import time

    marker = tmp_path / "started"
    proc = _plan_of_program(tmp_path, (
        "import time\nimport pulumi\n"
        f"open({str(marker)!r}, 'w').close()\n"
        "for i in range(3000):\n"
        "    pulumi.CustomResource('test:index:Thing', f't{i}',\n"
        "                          {'x': pulumi.Output.from_input(i).apply(lambda v: (time.sleep(0.002), v)[1])})\n"))
    deadline = time.monotonic() + 120
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # into the registrations and their callbacks
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.strip()) == (143, "gpupool: terminated")


def test_sigterm_while_the_plans_program_body_runs_is_143_not_a_hang(tmp_path):
    # the program's top level (or a component's constructor, or a callback the SDK runs while it waits on an invoke)
    # runs inside the SDK's run_pulumi_func, which keeps the exception and first waits for every output already
    # made: one whose value never comes (its callback was the one interrupted) would keep it waiting for ever
    proc = _plan_of_program(tmp_path, (
        "import asyncio, os, signal\nimport pulumi\n"
        "never = asyncio.get_event_loop().create_future()  # a value whose producer the signal cut short\n"
        "pulumi.export('x', pulumi.Output.from_input(never).apply(lambda v: v))\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"))
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("gpupool plan did not end after SIGTERM") from None
    assert (proc.returncode, err.strip()) == (143, "gpupool: terminated")


def test_an_interrupt_a_library_wrapped_in_its_own_error_is_an_interrupt_not_a_bug(monkeypatch):
    # pydantic building a model when Ctrl-C or SIGTERM lands raises RuntimeError("Error calling __set_name__ ...")
    import pytest

    from gpu_node_pool.cli import commands
    from gpu_node_pool.cli.entry import Terminated

    def wrapped(args):
        try:
            raise Terminated
        except Terminated as err:
            raise RuntimeError("Error calling __set_name__ on 'PydanticDescriptorProxy'") from err

    monkeypatch.setitem(commands._COMMANDS, "validate", wrapped)
    with pytest.raises(Terminated):
        commands.main(["validate", "--stack", "dev"])


def test_a_second_sigterm_ends_a_stuck_unwinding_at_once(tmp_path):
    import signal
    import time

    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT / "components"))
    stuck = [sys.executable, "-c", "import time\nfrom gpu_node_pool.cli import commands as c\n"
             "def run():\n    print('running', flush=True)\n    try:\n        time.sleep(60)\n"
             "    finally:\n        time.sleep(60)  # an unwinding that does not end\n"
             "c.main = run\nfrom gpu_node_pool.cli import main_exit\nmain_exit()"]
    proc = subprocess.Popen(stuck, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "running"
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert (proc.returncode, err.strip()) == (143, "gpupool: terminated")


def test_ctrl_c_or_sigterm_while_the_cli_is_still_importing_is_one_line(tmp_path):
    # the command line takes a few hundred ms to import; until its own handlers are set, the entry point's
    # early ones end the process at once (a stand-in for the slow import below: an entry module that waits)
    import signal

    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT / "components"))
    slow = [sys.executable, "-c", "import sys, time, types\nimport gpu_node_pool.cli as c\n"
            "entry = types.ModuleType('gpu_node_pool.cli.entry')\n"
            "entry.main_exit = lambda: (print('importing', flush=True), time.sleep(60))\n"
            "sys.modules['gpu_node_pool.cli.entry'] = entry\nc.main_exit()"]
    for sig, code, line in ((signal.SIGINT, 130, "gpupool: interrupted"), (signal.SIGTERM, 143, "gpupool: terminated")):
        proc = subprocess.Popen(slow, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "importing"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert (proc.returncode, err.strip()) == (code, line)
