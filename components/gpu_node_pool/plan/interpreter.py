"""Which Python runs the program ``gpupool check`` judges, and running it there.

As ``pulumi`` does, the program runs in the project's own environment: ``Pulumi.yaml``'s
``runtime.options.virtualenv`` names a virtual environment, a path relative to the directory of
``Pulumi.yaml`` or absolute (https://www.pulumi.com/docs/iac/languages-sdks/python/, "virtualenv"
option; https://www.pulumi.com/docs/iac/concepts/projects/project-file/, runtime options).
``--python PATH`` names the interpreter instead. Neither: gpupool's own interpreter. Whichever it
is, the program always runs in a child process (:mod:`gpu_node_pool.plan.check_child`), never in
gpupool's: a program that calls ``os._exit(0)`` or ``sys.exit`` ends the child, not the check (and
is reported, never a silent pass); one that hangs is stopped after the program timeout; what it
prints goes to gpupool's stderr, so ``--json`` stays one document.

Never a silent substitution: a virtualenv that does not exist (``pulumi install`` would create
it) runs in gpupool's interpreter with a note saying so; a ``toolchain`` of ``poetry`` or ``uv``
without ``virtualenv`` does the same (gpupool does not ask Poetry or uv where their environment
is; pass ``--python``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import ConfigError, ConfigIssue
from ..config.errors import Location
from ..text.terminal import shown
from .check_child import BOOT, NOT_IMPORTABLE, PROTOCOL

__all__ = ["DEFAULT_PROGRAM_TIMEOUT", "Interpreter", "choose_interpreter", "record_in_child"]


@dataclass(frozen=True)
class Interpreter:
    """The Python a program runs in.

    Attributes:
        python: the interpreter's path (``sys.executable`` when in-process).
        origin: ``"--python"``, ``"Pulumi.yaml runtime.options.virtualenv"`` or ``"gpupool"``.
        in_process: always False: the program runs in a child process (kept in the report's
            ``interpreter.inProcess`` for readers of the JSON).
        note: why a named environment was not used, or ``""``.
    """

    python: str
    origin: str
    in_process: bool = False
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"python", "from", "inProcess", "note"}`` for the ``check`` report."""
        return {"python": self.python, "from": self.origin, "inProcess": self.in_process, "note": self.note}


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def choose_interpreter(project_dir: Path, doc: dict[str, Any], python: str | None = None) -> Interpreter:
    """The interpreter for the program of ``project_dir`` (``doc``: its parsed ``Pulumi.yaml``).

    Raises:
        ConfigError: ``--python`` names no executable file, or ``runtime.options.virtualenv`` is not a string.
    """
    own = sys.executable
    if python:
        path = Path(python).expanduser().absolute()  # not resolved: a venv's python is a symlink
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ConfigError([ConfigIssue("--python", f"{python!r} is not an executable file; give the path of the "
                                           "Python that runs the program, e.g. --python venv/bin/python")], "--python")
        return Interpreter(str(path), "--python")
    runtime = doc.get("runtime")
    options = runtime.get("options") if isinstance(runtime, dict) else None
    options = options if isinstance(options, dict) else {}
    source = str(project_dir / "Pulumi.yaml")
    venv = options.get("virtualenv")
    if venv is None:
        toolchain = options.get("toolchain")
        if toolchain in ("poetry", "uv"):
            return Interpreter(own, "gpupool", note=f"Pulumi.yaml names toolchain {toolchain!r} without virtualenv; "
                               f"gpupool does not ask {toolchain} where its environment is, so the program ran in "
                               "gpupool's own Python: pass --python <that environment's python> to use it")
        return Interpreter(own, "gpupool")
    if not isinstance(venv, str) or not venv.strip():
        raise ConfigError([ConfigIssue(f"{source}: runtime.options.virtualenv",
                                       f"is {venv!r}; it must be the path of a virtual environment (e.g. venv)")], source)
    path = _venv_python(project_dir / venv)
    if not path.is_file():
        return Interpreter(own, "gpupool", note=f"Pulumi.yaml names virtualenv {venv!r}, which has no {path}; the "
                           f"program ran in gpupool's own Python instead. Create it as pulumi install does (python -m "
                           f"venv {venv} && {_venv_python(Path(venv))} -m pip install -r requirements.txt) or pass --python")
    return Interpreter(os.path.normpath(path), "Pulumi.yaml runtime.options.virtualenv")  # no "a/../../b" shown


#: Default seconds the program may run in its child before it is stopped (``--program-timeout``).
DEFAULT_PROGRAM_TIMEOUT = 300.0
#: Most bytes of the program's own output (stdout and stderr each) copied to gpupool's stderr.
MAX_PROGRAM_OUTPUT = 4 << 20


def _child_env(interpreter: Interpreter) -> dict[str, str]:
    """The child's environment: gpupool's; for gpupool's own interpreter the directory this package
    was imported from leads ``PYTHONPATH``, so the child imports the same gpu-node-pool."""
    env = dict(os.environ)
    if interpreter.origin == "gpupool":
        here = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    return env


def record_in_child(interpreter: Interpreter, request: dict[str, Any], cwd: Path,
                    timeout: float = DEFAULT_PROGRAM_TIMEOUT) -> dict[str, Any]:
    """Run the program of ``request`` (shape: :mod:`~gpu_node_pool.plan.check_child`) in ``interpreter``.

    The child's stdout and stderr (what the program prints; at most :data:`MAX_PROGRAM_OUTPUT`
    bytes of each) are copied to gpupool's stderr, so a ``--json`` report stays one document.
    ``timeout``: seconds before the child and every process it started are killed. Returns the
    child's answer.

    Raises:
        ConfigError: gpu-node-pool (or a module it needs) is not importable there (how to install
            it); the program did not finish within ``timeout``; or it ended the child before the
            answer was written (``os._exit``, ``sys.exit`` in a thread, a signal): nothing recorded.
        RuntimeError: the child failed otherwise (a bug: its last stderr line), or spoke another protocol.
    """
    from .._version import __version__
    from ..expand.run_bounded import run_bounded

    program = str(request.get("program", "the program"))
    with tempfile.TemporaryDirectory(prefix="gpupool-check-") as tmp:
        req, ans = Path(tmp) / "request.json", Path(tmp) / "answer.json"
        req.write_text(json.dumps({"protocol": PROTOCOL, **request}), encoding="utf-8")
        cmd = [interpreter.python, "-c", BOOT, str(req), str(ans)]
        done = run_bounded(cmd, _child_env(interpreter), timeout, max_stdout=MAX_PROGRAM_OUTPUT,
                           max_stderr=MAX_PROGRAM_OUTPUT, cwd=cwd)
        stdout = done.stdout.decode("utf-8", "replace")
        stderr = done.stderr.decode("utf-8", "replace")
        if done.code != NOT_IMPORTABLE:
            for stream in (stdout, stderr):
                if stream:
                    sys.stderr.write(stream if stream.endswith("\n") else stream + "\n")
        if done.timed_out:
            raise ConfigError([ConfigIssue(program, (
                f"the program did not finish within {timeout:g} s and was stopped (with every process it started); "
                "find where it waits (a network call, input(), a loop), or raise --program-timeout"))], program)
        if done.too_large:
            raise ConfigError([ConfigIssue(program, (
                f"the program printed more than {MAX_PROGRAM_OUTPUT >> 20} MiB and was stopped (what it prints, on stdout or "
                "stderr, goes to gpupool's stderr, so that a --json report stays one document); print less"))], program)
        if done.code == NOT_IMPORTABLE:
            missing = stderr.strip().splitlines()[-1] if stderr.strip() else "not importable"
            where = "--python" if interpreter.origin == "--python" else f"{cwd / 'Pulumi.yaml'}: runtime.options.virtualenv"
            raise ConfigError([ConfigIssue(where, (
                f"the program's Python {interpreter.python} cannot import gpu-node-pool ({missing}); install it there: "
                f"{interpreter.python} -m pip install 'gpu-node-pool=={__version__}' (or the git requirement the "
                "policy pack's requirements.txt uses), or pass --python with an interpreter that has it"))], where)
        if not ans.is_file() and done.code == 2 and "request protocol" in stderr:  # another version's child
            raise _other_version(interpreter, program, None)
        if not ans.is_file():
            how = f"exit {done.code}" if done.code is not None and done.code >= 0 else f"signal {-(done.code or 0)}"
            raised = _uncaught(stderr)
            if raised:  # the SDK's event loop died of an exception (a resource input of the wrong type...)
                raise ConfigError([ConfigIssue(program, (
                    f"the program failed ({how}) with {shown(raised, quote=False, limit=300)}: nothing was recorded, "
                    "nothing judged; the traceback above names the program line to fix"),
                    _program_line(stderr, Path(program), cwd))], program)
            raise ConfigError([ConfigIssue(program, (
                f"the program ended its Python ({how}) before it finished running: nothing was recorded, nothing "
                "judged; remove the os._exit/sys.exit (or what killed it) from the program"))], program)
        if done.code != 0:
            last = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {done.code}"
            raise RuntimeError(f"the check child in {interpreter.python} failed: {last}")
        answer = json.loads(ans.read_text(encoding="utf-8"))
    if answer.get("protocol") != PROTOCOL:
        raise _other_version(interpreter, program, answer.get("version"))
    return answer


def _other_version(interpreter: Interpreter, program: str, version: Any) -> ConfigError:
    """The error for a program interpreter whose gpu-node-pool speaks another request/answer protocol."""
    from .._version import __version__

    theirs = f"gpu-node-pool {version}" if version else "another gpu-node-pool version"
    return ConfigError([ConfigIssue(str(interpreter.python), (
        f"has {theirs}, which records programs differently from this gpupool ({__version__}): nothing was "
        f"judged; install the same version there (`{interpreter.python} -m pip install gpu-node-pool=={__version__}`) "
        "or pass --python with an interpreter that has it"))], program)


def _uncaught(stderr: str) -> str | None:
    """The last ``Type: message`` line of the last Python traceback on ``stderr``, or None when it has none."""
    if "Traceback (most recent call last):" not in stderr:
        return None
    tail = stderr[stderr.rindex("Traceback (most recent call last):"):].splitlines()
    for line in reversed(tail):
        head = line.split(":", 1)[0]
        if line and not line.startswith(" ") and head.replace(".", "").replace("_", "").isalnum():
            return line.strip()
    return None


def _program_line(stderr: str, program: Path, project: Path) -> Location | None:
    """Where the last traceback on ``stderr`` last passed through ``program``: its ``Location`` (the file
    relative to ``project``, POSIX, column 1), or None when no frame is in the program."""
    line = None
    for match in re.finditer(r'^  File "(.+)", line (\d+)', stderr, flags=re.M):
        if Path(match.group(1)).resolve() == program.resolve():
            line = int(match.group(2))
    if line is None:
        return None
    try:
        file = program.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        file = program.resolve().as_posix()
    return Location(file, line, 1)

