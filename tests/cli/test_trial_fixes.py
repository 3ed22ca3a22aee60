"""What a new user's trial of gpupool found (exit codes, messages, what render may delete)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- a stack file nested thousands of levels deep ---------------------------------------------


@pytest.mark.parametrize("depth", [150, 990, 5000])
def test_a_deeply_nested_stack_file_is_a_config_error_not_a_crash(capsys, temp_project, depth):
    project = temp_project("deep", "config:\n  gpu-node-pools:pools: " + "[" * depth + "]" * depth + "\n")
    code, out, err = run(capsys, "plan", "--stack", "deep", "--project-dir", str(project))
    assert code == 2, out + err
    assert "internal error" not in err
    assert "Pulumi.deep.yaml" in err
    assert "nest" in err  # "nests ... more than 100 levels" or libyaml's "exceeded maximum nesting depth"


# --- the last line states the real exit code ----------------------------------------------------

EXAMPLE = ROOT / "examples" / "violating"


def test_fail_on_none_ends_with_one_line_giving_the_real_exit_code(capsys):
    code, out, _ = run(capsys, "plan", "--stack", "demo", "--project-dir", str(EXAMPLE), "--fail-on", "none")
    assert code == 0
    lines = out.rstrip().splitlines()
    assert lines[-1].startswith("exit 0 under --fail-on none: ")
    assert not any(line.startswith("exit 1") for line in lines), "a line claims exit 1 while the run exits 0"


def test_fail_on_advisory_ends_with_exit_1(capsys, tmp_path):
    config = tmp_path / "policy.json"
    config.write_text('{"all": "advisory"}')
    code, out, _ = run(capsys, "plan", "--stack", "demo", "--project-dir", str(EXAMPLE),
                       "--policy-pack-config", str(config), "--fail-on", "advisory")
    assert code == 1
    lines = out.rstrip().splitlines()
    assert lines[-1].startswith("exit 1 under --fail-on advisory: FAILED")
    assert not any(line.startswith("exit 0") for line in lines), "a line claims exit 0 while the run exits 1"


def test_the_default_level_keeps_its_last_line(capsys):
    code, out, _ = run(capsys, "plan", "--stack", "demo", "--project-dir", str(EXAMPLE))
    assert code == 1
    assert out.rstrip().splitlines()[-1] == "exit 1: FAILED (mandatory policy violation or uncovered taint)"


# --- --stack and --project-dir --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["plan", "validate", "check"])
def test_an_empty_stack_name_is_a_usage_error(capsys, command):
    code, _, err = run(capsys, command, "--stack", "", "--project-dir", str(ROOT))
    assert code == 64
    assert "--stack" in err and "is empty" in err


def test_a_project_dir_without_pulumi_yaml_says_which_one_is_used(capsys):
    code, out, _ = run(capsys, "validate", "--stack", "dev", "--project-dir", str(ROOT / "stacks"))
    assert code == 0
    assert f"project: {ROOT / 'Pulumi.yaml'} (there is no Pulumi.yaml in {ROOT / 'stacks'}" in out


def test_a_project_dir_with_pulumi_yaml_adds_no_line(capsys):
    code, out, _ = run(capsys, "validate", "--stack", "dev", "--project-dir", str(ROOT))
    assert code == 0
    assert "project:" not in out


# --- errors in the user's own program ------------------------------------------------------------


def _program(temp_project, source: str) -> Path:
    project = temp_project("dev", (ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    (project / "__main__.py").write_text(source)
    return project


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('import os\n\nraise ValueError("boom")\n', "__main__.py:3:1: the program raised ValueError: boom;"),
        ("x = (\n", "__main__.py:1:5: the program raised SyntaxError: '(' was never closed"),
        ("import os\nimport no_such_module_here\n",
         "__main__.py:2:1: the program raised ModuleNotFoundError: No module named 'no_such_module_here';"),
        ("import sys\n\nsys.exit(3)\n", "__main__.py:3:1: the program exited with 3,"),
        ("import sys\nsys.exit(0)\n", "__main__.py:2:1: the program exited with 0,"),
    ],
)
@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_failing_program_is_invalid_input_naming_the_file_and_line(capsys, temp_project, source, expected, command):
    project = _program(temp_project, source)
    code, out, err = run(capsys, command, "--stack", "dev", "--project-dir", str(project))
    assert code == 2, out + err
    assert "internal error" not in out + err and "please report" not in out + err
    assert expected in out + err
    if command == "plan":
        assert len(err.strip().splitlines()) == 1, err


def test_a_failing_program_in_json_is_one_config_error(capsys, temp_project):
    import json

    project = _program(temp_project, "import sys\nsys.exit(5)\n")
    code, out, _ = run(capsys, "plan", "--stack", "dev", "--project-dir", str(project), "--json")
    assert code == 2
    [error] = json.loads(out)["configErrors"]
    assert error["path"] == "__main__.py" and error["location"] == {"file": "__main__.py", "line": 2, "column": 1}
    assert error["message"].startswith("the program exited with 5")


def test_a_bug_in_gpupool_itself_is_still_an_internal_error(capsys, monkeypatch):
    from gpu_node_pool.backends.eks_managed import summary

    monkeypatch.setattr(summary, "summarise", lambda *a, **k: {}["oops"], raising=True)
    code, _, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT))
    assert code == 70 and "internal error" in err


# --- render: what it may write to and what it removes ---------------------------------------------


def _render(capsys, out: str, stack: str = "dev", project: Path = ROOT) -> tuple[int, str, str]:
    return run(capsys, "render", "--stack", stack, "--out", out, "--project-dir", str(project))


def test_render_never_removes_generated_files_it_did_not_write(capsys, tmp_path):
    # a file another stack's render (or another tool) wrote, deep below --out, with the header
    foreign = tmp_path / "out" / "elsewhere" / "deep" / "nodepool-other.yaml"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("# Generated by gpupool render --stack prod; do not edit.\nkind: NodePool\n")
    (tmp_path / "out" / "nodepool-old.yaml").write_text("# Generated by gpupool render --stack dev; x\nkind: NodePool\n")
    code, out, err = _render(capsys, str(tmp_path / "out"))
    assert code == 0, out + err
    assert foreign.exists() and (tmp_path / "out" / "nodepool-old.yaml").exists()
    assert "removed" not in out


@pytest.fixture
def no_writes(monkeypatch):
    """Make writing impossible: these tests name real directories (/, home), and a regression must not
    delete anything there (before the fix, `render --out /` removed generated files machine-wide)."""
    from gpu_node_pool.plan import render as export

    def refuse(*args, **kwargs):
        raise AssertionError("render tried to write; it must refuse this --out first")

    monkeypatch.setattr(export, "write_files", refuse)


@pytest.mark.parametrize("bad", ["/", "~", "~/"])
def test_render_refuses_root_and_home(capsys, no_writes, bad):
    code, out, err = _render(capsys, bad)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: --out ")
    assert out == ""


def test_render_refuses_an_empty_out_as_a_usage_error(capsys, no_writes):
    code, out, err = _render(capsys, "")
    assert code == 64 and out == ""
    assert "gpupool render: error: argument --out: an empty path" in err


def test_render_refuses_the_home_directory_spelled_out(capsys, no_writes, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "notes.txt").write_text("mine\n")
    code, _, err = _render(capsys, str(tmp_path))
    assert code == 2 and "home directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_render_refuses_a_non_empty_directory_that_is_not_a_render(capsys, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / "README.md").write_text("mine\n")
    code, out, err = _render(capsys, str(tmp_path))
    assert code == 2
    assert "is not empty and is not an earlier render" in err and "choose a new or empty directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "src"]


def test_render_accepts_a_directory_holding_only_files_it_writes(capsys, tmp_path):
    out = tmp_path / "out"
    assert _render(capsys, str(out))[0] == 0
    (out / ".gpupool-render.json").unlink()
    assert _render(capsys, str(out))[0] == 0
    assert (out / ".gpupool-render.json").is_file()


def test_render_writes_a_manifest_and_removes_only_what_it_listed(capsys, temp_project, tmp_path):
    import json

    import yaml

    stack = yaml.safe_load((ROOT / "stacks" / "Pulumi.prod.yaml").read_text())
    project = temp_project("prod", yaml.safe_dump(stack))
    out = tmp_path / "out"
    code, text, err = _render(capsys, str(out), "prod", project)
    assert code == 0, text + err
    manifest = json.loads((out / ".gpupool-render.json").read_text())
    files = manifest["stacks"]["prod"]["files"]
    assert "nodepool-inference-burst.yaml" in files and len(files) == text.count("wrote   ")
    (out / "kustomization.yaml").write_text("resources: []\n")  # the user's own file
    edited = out / "ec2nodeclass-inference-burst.yaml"
    edited.write_text("# my own now\n" + edited.read_text())  # no longer carries the header
    pools = stack["config"]["gpu-node-pools:pools"]
    stack["config"]["gpu-node-pools:pools"] = [p for p in pools if p["name"] != "inference-burst"]
    temp_project("prod", yaml.safe_dump(stack))
    code, text, err = _render(capsys, str(out), "prod", project)
    assert code == 0, text + err
    assert not (out / "nodepool-inference-burst.yaml").exists()
    assert f"removed {out / 'nodepool-inference-burst.yaml'}" in text
    assert edited.exists(), "an edited file lost its header: not removed"
    assert (out / "kustomization.yaml").read_text() == "resources: []\n"
    files = json.loads((out / ".gpupool-render.json").read_text())["stacks"]["prod"]["files"]
    assert "nodepool-inference-burst.yaml" not in files


def test_another_stacks_render_in_the_same_directory_is_left_alone(capsys, tmp_path):
    import json

    out = tmp_path / "out"
    assert _render(capsys, str(out), "gke-dev")[0] == 0
    gke = set(json.loads((out / ".gpupool-render.json").read_text())["stacks"]["gke-dev"]["files"])
    assert _render(capsys, str(out), "dev")[0] == 0
    code, text, _ = _render(capsys, str(out), "dev")
    assert code == 0 and "removed" not in text
    manifest = json.loads((out / ".gpupool-render.json").read_text())["stacks"]
    assert set(manifest) == {"dev", "gke-dev"}
    assert all((out / p).exists() for p in gke - set(manifest["dev"]["files"]))


def test_a_manifest_listing_paths_outside_the_directory_removes_nothing_there(capsys, tmp_path):
    import json

    victim = tmp_path / "victim.yaml"
    victim.write_text("# Generated by gpupool render --stack dev; do not edit\nkind: x\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / ".gpupool-render.json").write_text(json.dumps(
        {"generator": "gpupool render", "stacks": {"dev": {"files": {"../victim.yaml": "0" * 64}}}}
    ))
    assert _render(capsys, str(out))[0] == 0
    assert victim.exists()


# --- --html and schema --out never replace a file of another kind -------------------------------


def test_html_and_schema_out_refuse_to_overwrite_the_stack_file_being_read(capsys, tmp_path):
    import shutil

    for name in ("stacks", "Pulumi.yaml", "__main__.py"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, tmp_path / name)
    stack_file = tmp_path / "stacks" / "Pulumi.dev.yaml"
    before = stack_file.read_text()
    code, out, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path), "--html", str(stack_file))
    assert code == 2 and "is not an HTML page" in err and str(stack_file) in err
    code, out, err = run(capsys, "schema", "--out", str(stack_file))
    assert code == 2 and "is not a JSON Schema" in err
    assert stack_file.read_text() == before
    # a page or schema this command wrote is replaced, as before
    page, schema = tmp_path / "page.html", tmp_path / "stack.schema.json"
    for _ in range(2):
        assert run(capsys, "plan", "--stack", "dev", "--project-dir", str(tmp_path), "--html", str(page))[0] == 0
        assert run(capsys, "schema", "--out", str(schema))[0] == 0
    assert page.read_text().startswith("<!DOCTYPE html>") and schema.read_text().startswith("{")


@pytest.mark.parametrize(
    ("argv", "code", "needle"),
    [
        (["plan", "--stack", "dev", "--html", ""], 64, "argument --html: an empty path; give the path of the file to write"),
        (["schema", "--out", ""], 64, "argument --out: an empty path; give the path of the file to write"),
        (["plan", "--stack", "dev", "--project-dir", str(ROOT / "README.md")], 2, "is a file, not the project directory"),
        (["validate", "--file", "/nonexistent/Pulumi.x.yaml"], 2, "no such stack file"),
    ],
)
def test_empty_output_paths_and_wrong_project_or_stack_paths_are_refused(capsys, argv, code, needle):
    assert main(argv) == code
    assert needle in capsys.readouterr().err


def test_a_policy_pack_config_with_two_mistakes_reports_them_one_per_line(capsys, tmp_path):
    import json

    config = tmp_path / "ppc.json"
    config.write_text(json.dumps({"no-such-policy": "advisory", "gpu-toleration-allowlist": {"allowedNamespaces": 3}}))
    code, out, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT), "--policy-pack-config", str(config))
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0] == f"error: invalid policy pack config {config}:"
    assert any(ln.startswith("  no-such-policy: no such policy") for ln in lines)
    assert any(ln.startswith("  gpu-toleration-allowlist.allowedNamespaces: 3") for ln in lines)
    assert "\\n" not in err


def test_os_errors_on_output_paths_name_the_option_and_the_fix(capsys, tmp_path):
    (tmp_path / "existfile").write_text("x")
    code, _, err = run(capsys, "render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(tmp_path / "existfile"))
    assert code == 2 and err == f"error: {tmp_path / 'existfile'} is a file, not a directory; pass a directory for --out\n"
    code, _, err = run(capsys, "schema", "--out", str(tmp_path))
    assert code == 2 and "--out" in err and "give a file path, not a directory" in err


def test_an_html_path_that_is_a_directory_or_has_no_directory_gets_one_fix(capsys, tmp_path):
    code, _, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT), "--html", str(tmp_path))
    assert code == 2
    assert err.strip() == f"error: --html {tmp_path}: Is a directory (give a file path, not a directory)"
    missing = tmp_path / "no-such-dir" / "page.html"
    code, _, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT), "--html", str(missing))
    assert code == 2 and "its directory does not exist: create it" in err
    assert not missing.parent.exists()


def test_a_missing_policy_pack_config_says_so_without_an_errno(capsys, tmp_path):
    missing = tmp_path / "ppc.json"
    code, _, err = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT), "--policy-pack-config", str(missing))
    assert code == 2
    assert err.strip() == (f"error: policy pack config {missing}: No such file or directory; give the path of a readable "
                           "JSON file (as for pulumi preview --policy-pack-config)")


@pytest.mark.parametrize("text", ["", "# nothing yet\n", "config:\n"])
def test_an_empty_stack_file_names_its_first_line(capsys, temp_project, text):
    project = temp_project("empty", text)
    code, _, err = run(capsys, "plan", "--stack", "empty", "--project-dir", str(project))
    assert code == 2
    assert "stacks/Pulumi.empty.yaml:1:1: gpu-node-pools:cluster: required key is missing" in err


@pytest.mark.parametrize("argv", [["plan", "--stack", "dev", "--project-dir", str(ROOT), "--html"], ["schema", "--out"]])
def test_an_output_fifo_nothing_reads_is_refused_at_once_not_a_hang(capsys, tmp_path, argv):
    import os

    fifo = tmp_path / "page"
    os.mkfifo(fifo)
    code, _, err = run(capsys, *argv, str(fifo))
    assert code == 2
    assert f"{fifo}: is a FIFO (named pipe) that nothing reads; nothing was written" in err


def test_an_output_fifo_with_a_reader_gets_the_page(capsys, tmp_path):
    import os
    import threading
    import time

    fifo = tmp_path / "page"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    time.sleep(0.3)  # the reader waits in open(); a waiting reader counts, so the plan may write
    code, _, _ = run(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT), "--html", str(fifo))
    reader.join(30)
    assert code == 0 and got and got[0].startswith(b"<!DOCTYPE html>")


@pytest.mark.parametrize("option", ["--cluster-dump", "--kubeconfig"])
def test_an_empty_audit_input_path_is_a_usage_error_not_a_live_audit(capsys, option):
    assert main(["audit", option, ""]) == 64
    assert f"argument {option}: an empty path; give the path of the file to read" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("stackConfigDir: 42", "Pulumi.yaml: stackConfigDir: 42 must be a directory path"),
        ("name: [a]", "Pulumi.yaml: name: ['a'] must be the project's name, a non-empty string"),
        ("name: x: y", "Pulumi.yaml:8:8: is not valid YAML"),
    ],
)
@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_pulumi_yaml_of_the_wrong_shape_is_exit_2_with_the_key(capsys, tmp_path, line, expected, command):
    import shutil

    shutil.copytree(ROOT / "examples" / "violating", tmp_path / "p")
    project = tmp_path / "p"
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text() + line + "\n")
    code, _, err = run(capsys, command, "--stack", "demo", "--project-dir", str(project))
    assert code == 2 and expected in err and "internal error" not in err


# --- validate --file of a file no pulumi command reads ------------------------------------------


@pytest.mark.parametrize(("where", "expected"), [
    ("stacks/dev.yaml", "its name is not Pulumi.<stack>.yaml"),
    ("stacks/Pulumi.dev.yml", "its name is not Pulumi.<stack>.yaml"),
    ("Pulumi.dev.yaml", "it is not in the project's stack directory (stacks"),
])
def test_validate_file_warns_of_a_file_pulumi_never_reads(capsys, tmp_path, where, expected):
    import json
    import shutil

    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / where)
    code, out, err = run(capsys, "validate", "--file", str(tmp_path / where))
    assert code == 0, out + err
    assert f"warning: {where}:1:1: pulumi never reads this file as a stack's config: {expected}" in err
    assert "move it to stacks/Pulumi.dev.yaml" in err
    code, out, _ = run(capsys, "validate", "--file", str(tmp_path / where), "--json")
    assert any("pulumi never reads" in w["message"] for w in json.loads(out)["warnings"])


def test_validate_file_of_a_stack_file_pulumi_reads_says_nothing_more(capsys):
    code, out, err = run(capsys, "validate", "--file", str(ROOT / "stacks" / "Pulumi.dev.yaml"))
    assert code == 0 and "pulumi never reads" not in out + err


@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_pulumi_yaml_that_is_a_directory_is_named_as_such(capsys, tmp_path, command):
    (tmp_path / "Pulumi.yaml").mkdir()
    code, out, err = run(capsys, command, "--stack", "dev", "--project-dir", str(tmp_path))
    assert code == 2, out + err
    assert f"{tmp_path / 'Pulumi.yaml'} is a directory, not the project file" in err
    assert "no Pulumi.yaml in" not in err


DUPLICATE_PLUGIN = """\
import pulumi
from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs
cluster = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
gpu = GpuNodePool("gpu", GpuNodePoolArgs(cluster=cluster, pool={
    "name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
    "taints": ["nvidia.com/gpu=present:NoSchedule"]}))
NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs("ml", [gpu.spec]))
NvidiaDevicePlugin("nvidia-device-plugin2", NvidiaDevicePluginArgs("ml", [gpu.spec]))
"""


@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_component_refused_after_others_registered_is_placed_in_the_program_and_says_a_preview_would_fail(
        capsys, tmp_path, command):
    (tmp_path / "Pulumi.yaml").write_text("name: team-gpu\nruntime:\n  name: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    (tmp_path / "__main__.py").write_text(DUPLICATE_PLUGIN)
    code, out, err = run(capsys, command, "--stack", "ci", "--project-dir", str(tmp_path))
    text = out + err
    assert code == 2, text
    assert "a real `pulumi preview` would fail:" in text and "no resource was registered" not in text
    assert "__main__.py:8:1: NvidiaDevicePluginArgs devicePlugin: the NVIDIA device plugin is already declared" in text
    assert "fix the stack config" not in text
