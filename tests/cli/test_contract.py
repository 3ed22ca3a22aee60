"""The command-line contract: exit codes, --fail-on, --json reports checked against the shipped schema."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT

from gpu_node_pool import __version__
from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import SCHEMA_VERSION, ExitCode, report_schema
from gpu_node_pool.sdk.outcome import exit_code

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None

EXAMPLE = ROOT / "examples" / "violating"
VALIDATOR = jsonschema.Draft202012Validator(report_schema(), format_checker=jsonschema.FormatChecker())
AUDIT_VALIDATOR = jsonschema.Draft202012Validator(
    json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text()))
BAD_STACK = """config:
  gpu-node-pools:cluster:
    name: ml-dev
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 3, maxSize: 2}
"""


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = cli.main([*argv, "--json"])
    out = capsys.readouterr().out
    doc = json.loads(out)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(doc)]
    assert not errors, errors
    if doc["command"] == "audit":  # the audit's keys have their own schema; the envelope is checked by both
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in AUDIT_VALIDATOR.iter_errors(doc)]
        assert not errors, errors
    assert doc["schemaVersion"] == SCHEMA_VERSION and doc["exitCode"] == code
    return code, doc


def test_the_report_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(report_schema())


# --- real output of every command, validated against the schema ------------------------------


@pytest.mark.parametrize("stack", sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml")))
def test_plan_json_of_every_shipped_stack_matches_the_schema(capsys, stack):
    code, doc = run_json(capsys, "plan", "--stack", stack, "--project-dir", str(ROOT))
    assert code == 0 and doc["command"] == "plan" and doc["failOn"] == "mandatory" and doc["pools"]


def test_plan_json_with_findings_exits_1_and_matches_the_schema(capsys):
    code, doc = run_json(capsys, "plan", "--stack", "demo", "--project-dir", str(EXAMPLE))
    assert code == 1
    assert any(v["enforcement"] == "mandatory" for v in doc["violations"])


def test_plan_json_of_a_broken_stack_exits_2_with_config_errors(capsys, temp_project):
    code, doc = run_json(capsys, "plan", "--stack", "bad", "--project-dir", str(temp_project("bad", BAD_STACK)))
    assert code == 2
    assert doc["configErrors"][0]["path"] == "pools[0].scaling"


def test_render_json_lists_the_files_it_wrote(capsys, tmp_path):
    code, doc = run_json(capsys, "render", "--stack", "prod", "--out", str(tmp_path / "out"), "--project-dir", str(ROOT))
    assert code == 0 and doc["written"]
    assert all(Path(p).is_file() for p in doc["written"])


def test_render_json_with_findings_writes_nothing(capsys, tmp_path):
    out = tmp_path / "out"
    code, doc = run_json(capsys, "render", "--stack", "demo", "--out", str(out), "--project-dir", str(EXAMPLE))
    assert code == 1 and doc["written"] == [] and doc["violations"]
    assert not out.exists()


def test_render_json_of_a_broken_stack_exits_2(capsys, temp_project, tmp_path):
    project = temp_project("bad", BAD_STACK)
    code, doc = run_json(capsys, "render", "--stack", "bad", "--out", str(tmp_path / "o"), "--project-dir", str(project))
    assert code == 2 and doc["configErrors"]


def test_validate_json_names_the_pools(capsys):
    code, doc = run_json(capsys, "validate", "--stack", "prod", "--project-dir", str(ROOT))
    assert code == 0 and {"name": "training", "backend": "eks-managed"} in doc["pools"]


def test_validate_json_of_a_yaml_syntax_error_points_at_line_and_column(capsys, temp_project):
    project = temp_project("bad", "config:\n  gpu-node-pools:pools: [unclosed\n")
    code, doc = run_json(capsys, "validate", "--stack", "bad", "--project-dir", str(project))
    assert code == 2
    assert doc["configErrors"][0]["path"] == "Pulumi.bad.yaml:3:1"


def test_validate_json_of_a_missing_stack_exits_2(capsys):
    code, doc = run_json(capsys, "validate", "--stack", "nope", "--project-dir", str(ROOT))
    assert code == 2 and "no stack file" in doc["configErrors"][0]["message"]


def test_policy_pack_json_lists_the_pack_files(capsys, tmp_path):
    code, doc = run_json(capsys, "policy-pack", "--out", str(tmp_path / "pack"))
    assert code == 0 and doc["requirement"] == f"gpu-node-pool=={__version__}"
    assert sorted(Path(f).name for f in doc["files"]) == [
        "PulumiPolicy.yaml", "__main__.py", "config.example.json", "requirements.txt"
    ]


def test_policy_pack_json_refuses_an_editable_requirement(capsys, tmp_path):
    code, doc = run_json(capsys, "policy-pack", "--out", str(tmp_path / "pack"), "--requirement", "-e ..")
    assert code == 2 and doc["configErrors"][0]["path"] == "--requirement"
    assert not (tmp_path / "pack").exists()


def test_an_internal_error_is_one_line_exit_70_and_matches_the_schema(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("pools")

    monkeypatch.setattr(cli.plan_mod, "plan_stack", broken)
    code, doc = run_json(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT))
    assert code == ExitCode.INTERNAL == 70
    assert doc["internalError"] == "KeyError: 'pools'"


def test_the_schema_rejects_a_report_that_breaks_it():
    ok = {"schemaVersion": 1, "command": "validate", "exitCode": 0, "cloudApiCalled": False, "stack": "s",
          "configErrors": [], "pools": []}
    assert VALIDATOR.is_valid(ok)
    for broken in (
        {**ok, "schemaVersion": 2},
        {**ok, "exitCode": 64},  # usage errors print no report
        {**ok, "provider_taints": []},  # unknown top-level key
        {k: v for k, v in ok.items() if k != "pools"},
        {**ok, "exitCode": 2},  # exit 2 without a config error
        {**ok, "command": "plan"},  # a plan report without pools, violations, ...
    ):
        assert not VALIDATOR.is_valid(broken), broken


# --- exit codes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["plan"],  # --stack missing
        ["plan", "--stack", "dev", "--bogus"],
        ["plan", "--stack", "dev", "--fail-on", "warning"],
        ["deploy", "--stack", "dev"],
        [],
    ],
)
def test_a_command_line_mistake_exits_64_not_2(capsys, argv):
    assert cli.main(argv) == ExitCode.USAGE == 64
    err = capsys.readouterr().err
    assert err.startswith("usage: gpupool") and "error:" in err


#: Every sub-command with the arguments it requires, so that only the unknown option is wrong.
SUBCOMMANDS = {
    "plan": ["--stack", "dev"],
    "render": ["--stack", "dev", "--out", "out"],
    "validate": ["--stack", "dev"],
    "check": ["--stack", "dev"],
    "schema": [],
    "policy-pack": ["--out", "pack"],
    "audit": [],
    "completion": ["bash"],
}


def test_the_unknown_option_cases_cover_every_sub_command():
    (sub,) = [a for a in cli._parser()._actions if a.choices and a.dest == "command"]
    assert sorted(sub.choices) == sorted(SUBCOMMANDS)


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_an_unknown_option_prints_the_sub_commands_usage_and_exits_64(capsys, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    assert cli.main([command, *SUBCOMMANDS[command], "--bogus"]) == 64
    out, err = capsys.readouterr()
    assert out == "" and not list(tmp_path.iterdir())  # nothing run, nothing written
    lines = err.splitlines()
    assert lines[0].startswith(f"usage: gpupool {command} ")
    assert lines[-1] == f"gpupool {command}: error: unrecognized arguments: --bogus"


def test_an_unknown_option_before_the_sub_command_is_the_top_level_usage(capsys):
    assert cli.main(["--bogus", "schema"]) == 64
    err = capsys.readouterr().err
    assert err.startswith("usage: gpupool [-h]") and err.splitlines()[-1] == "gpupool: error: unrecognized arguments: --bogus"


def test_help_exits_0(capsys):
    assert cli.main(["plan", "--help"]) == 0
    assert "--fail-on" in capsys.readouterr().out


def test_version_prints_the_package_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"gpupool {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_an_internal_error_prints_one_line_asking_for_a_report_and_no_traceback(capsys, monkeypatch):
    monkeypatch.setattr(cli.plan_mod, "plan_stack", lambda *a, **k: {}["pools"])
    assert cli.main(["plan", "--stack", "dev", "--project-dir", str(ROOT)]) == 70
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "internal error in plan: KeyError: 'pools'" in err and "please report" in err
    assert "Traceback" not in err


def test_debug_adds_the_traceback_of_an_internal_error(capsys, monkeypatch):
    monkeypatch.setattr(cli.plan_mod, "plan_stack", lambda *a, **k: {}["pools"])
    assert cli.main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--debug"]) == 70
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_fail_on_sets_the_level_that_fails_the_run(tmp_path, capsys):
    advisory_only = tmp_path / "policy.json"
    advisory_only.write_text(json.dumps({"all": "advisory"}))
    base = ["plan", "--stack", "demo", "--project-dir", str(EXAMPLE)]
    assert cli.main([*base, "--policy-pack-config", str(advisory_only)]) == 0
    capsys.readouterr()
    assert cli.main([*base, "--policy-pack-config", str(advisory_only), "--fail-on", "advisory"]) == 1
    assert "exit 1 under --fail-on advisory" in capsys.readouterr().out
    assert cli.main([*base, "--fail-on", "none"]) == 0  # mandatory findings, reported but not failing
    assert cli.main([*base]) == 1


def test_an_invalid_policy_pack_config_is_invalid_input(tmp_path, capsys):
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"gpu-toleration-allowlist": {"allowedNamespaces": "web"}}))
    code, doc = run_json(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT), "--policy-pack-config", str(config))
    assert code == 2 and doc["configErrors"][0]["path"] == "--policy-pack-config"


def test_the_readme_states_the_exit_codes_of_the_contract():
    readme = (ROOT / "README.md").read_text()
    for code in ExitCode:
        assert re.search(rf"^\| `{int(code)}` \|", readme, re.M), f"README contract table lacks exit {int(code)}"


def test_every_key_of_a_pool_entry_is_camel_case_and_a_snake_case_key_is_rejected(capsys):
    for stack in ("dev", "prod", "gke-dev", "onprem"):
        _, doc = run_json(capsys, "plan", "--stack", stack, "--project-dir", str(ROOT))
        for pool in doc["pools"]:
            assert all(re.fullmatch(r"[a-z][a-zA-Z0-9]*", k) for k in pool), pool.keys()
    _, doc = run_json(capsys, "plan", "--stack", "dev", "--project-dir", str(ROOT))
    doc["pools"][0]["provider_taints"] = doc["pools"][0].pop("providerTaints")
    assert not VALIDATOR.is_valid(doc)


# --- one exit-code rule for every command -------------------------------------------------------


@pytest.mark.parametrize(
    ("levels", "fail_on", "invalid", "expected"),
    [
        ([], "mandatory", False, 0),
        (["advisory"], "mandatory", False, 0),
        (["advisory"], "advisory", False, 1),
        (["mandatory"], "mandatory", False, 1),
        (["remediate"], "mandatory", False, 1),  # CrossGuard's remediate blocks like mandatory
        (["mandatory"], "none", False, 0),
        (["info"], "advisory", False, 0),
        (["info"], "info", False, 1),  # the audit's lowest level
        (["mandatory"], "none", True, 2),  # invalid input wins over findings and --fail-on
        ([], "mandatory", True, 2),
    ],
)
def test_one_function_gives_the_exit_code_of_findings_fail_on_and_invalid_input(levels, fail_on, invalid, expected):
    assert exit_code(levels, fail_on, invalid_input=invalid) == expected


def test_an_unknown_level_or_fail_on_is_refused_not_read_as_clean():
    with pytest.raises(ValueError, match="'warning' is not one of"):
        exit_code(["mandatory"], "warning")
    with pytest.raises(ValueError, match="'disabled' is not one of"):
        exit_code(["disabled"], "mandatory")


def test_plan_and_audit_judge_advisory_findings_alike_under_fail_on(tmp_path, capsys):
    advisory_only = tmp_path / "policy.json"
    advisory_only.write_text(json.dumps({"all": "advisory"}))
    plan = ["plan", "--stack", "demo", "--project-dir", str(EXAMPLE), "--policy-pack-config", str(advisory_only)]
    audit = ["audit", "--cluster-dump", str(write_dump(tmp_path, pending_pod=True))]  # one advisory finding
    for argv in (plan, audit):
        codes = [cli.main([*argv, "--fail-on", level]) for level in ("mandatory", "advisory", "none")]
        assert codes == [0, 1, 0], argv[0]
    assert cli.main([*audit, "--fail-on", "info"]) == 1
    capsys.readouterr()


# --- gpupool audit on the same contract ---------------------------------------------------------

GPU_NODE = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "gpu-1", "labels": {"eks.amazonaws.com/nodegroup": "inference",
                                             "node.kubernetes.io/instance-type": "g6.xlarge"}},
    "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
    "status": {"capacity": {"nvidia.com/gpu": "1"}, "allocatable": {"nvidia.com/gpu": "1"}},
}
PENDING_POD = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml"},
    "spec": {"containers": [{"name": "t", "image": "trainer", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
    "status": {"phase": "Pending", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/1 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}."}]},
}


#: The device plugin and a finished pod: a dump holds the cluster's DaemonSets and pods (without them the audit's
#: verdict is partial, never clean).
PLUGIN = {
    "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "nvidia-device-plugin", "namespace": "kube-system"},
    "spec": {"selector": {"matchLabels": {"app": "ndp"}},
             "template": {"metadata": {"labels": {"app": "ndp"}},
                          "spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                                   "containers": [{"name": "ndp", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}}},
}
DONE_POD = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "backup-1", "namespace": "ops"},
    "spec": {"nodeName": "gpu-1", "containers": [{"name": "b", "image": "backup"}]}, "status": {"phase": "Succeeded"},
}


def write_dump(tmp_path: Path, pending_pod: bool = False) -> Path:
    path = tmp_path / "dump.json"
    items = [GPU_NODE, PLUGIN, DONE_POD, *([PENDING_POD] if pending_pod else [])]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def test_audit_json_carries_the_envelope_of_every_command(capsys, tmp_path):
    code, doc = run_json(capsys, "audit", "--cluster-dump", str(write_dump(tmp_path)))
    assert code == 0 and doc["command"] == "audit"
    assert doc["cloudApiCalled"] is False  # a dump: no API was read
    assert doc["failOn"] == "mandatory" and doc["readOnly"] is True


def test_audit_of_an_unreadable_dump_is_invalid_input_with_config_errors(capsys, tmp_path):
    missing = tmp_path / "nope.json"
    code, doc = run_json(capsys, "audit", "--cluster-dump", str(missing))
    assert code == ExitCode.INVALID_INPUT == 2
    [error] = doc["configErrors"]
    assert error["path"] == "--cluster-dump" and str(missing) in error["message"]
    assert "error" not in doc  # the key of every command, not one of the audit's own


def test_a_live_audit_says_it_called_the_api(capsys, tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    code, doc = run_json(capsys, "audit", "--kubeconfig", str(kubeconfig))
    assert code == 2 and doc["cloudApiCalled"] is True and doc["configErrors"][0]["path"] == "--kubeconfig"


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "--fail-on", "sometimes"],
        ["audit", "--cluster-dump", "x.json", "--context", "prod"],
        ["audit", "--project-dir", ".", "--cluster-dump", "x.json"],
    ],
)
def test_an_audit_usage_mistake_exits_64_with_the_audit_usage(capsys, argv):
    assert cli.main(argv) == ExitCode.USAGE == 64
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: gpupool audit") and "gpupool audit: error: " in captured.err


def test_an_audit_internal_error_is_one_line_exit_70(capsys, monkeypatch, tmp_path):
    from gpu_node_pool.audit import report as audit_report

    monkeypatch.setattr(audit_report, "run_audit", lambda *a, **k: {}["nodes"])
    dump = str(write_dump(tmp_path))
    assert cli.main(["audit", "--cluster-dump", dump]) == ExitCode.INTERNAL == 70
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "internal error in audit: KeyError: 'nodes'" in err and "please report" in err
    assert cli.main(["audit", "--cluster-dump", dump, "--debug"]) == 70
    assert "Traceback (most recent call last)" in capsys.readouterr().err
    code, doc = run_json(capsys, "audit", "--cluster-dump", dump)
    assert code == 70 and doc["internalError"] == "KeyError: 'nodes'" and doc["cloudApiCalled"] is False


# --- a closed stdout ends quietly ---------------------------------------------------------------

GPUPOOL = [sys.executable, "-c", "from gpu_node_pool.cli import main_exit; main_exit()"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "components")}


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="shrinking a pipe is Linux-only")
def test_a_reader_that_stops_after_one_line_ends_the_command_quietly():
    # `gpupool plan --stack prod --json | head -1`, with a pipe shrunk to one page so the report
    # (tens of kB, written in pieces) cannot fit in it: writes after the reader has gone must fail
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([*GPUPOOL, "plan", "--stack", "prod", "--project-dir", str(ROOT), "--json"], stdout=write,
                            stderr=subprocess.PIPE, env=ENV)
    os.close(write)
    with os.fdopen(read, "rb", buffering=0) as reader:
        assert reader.readline() == b"{\n"
    _, err = proc.communicate(timeout=600)
    assert err == b"", err.decode()
    assert proc.returncode == ExitCode.CLOSED_STDOUT == 141  # 128 + SIGPIPE, as a shell reports git or kubectl


@pytest.mark.parametrize("as_json", [False, True])
def test_a_plan_whose_reader_has_gone_is_not_an_internal_error(as_json):
    # `gpupool plan --stack dev | true`: the reader is gone before the plan prints
    read, write = os.pipe()
    argv = [*GPUPOOL, "plan", "--stack", "dev", "--project-dir", str(ROOT)] + (["--json"] if as_json else [])
    proc = subprocess.Popen(argv, stdout=write, stderr=subprocess.PIPE, env=ENV)
    os.close(write)
    os.close(read)
    _, err = proc.communicate(timeout=600)
    assert err == b"", err.decode()
    assert proc.returncode == 141


def test_an_invalid_input_report_whose_reader_has_gone_ends_quietly():
    # `gpupool validate --stack nosuch --json | true`: the exit-2 report meets a closed stdout
    read, write = os.pipe()
    proc = subprocess.Popen([*GPUPOOL, "validate", "--stack", "nosuch", "--project-dir", str(ROOT), "--json"],
                            stdout=write, stderr=subprocess.PIPE, env=ENV)
    os.close(write)
    os.close(read)
    _, err = proc.communicate(timeout=600)
    assert b"Traceback" not in err, err.decode()
    assert proc.returncode == 141


@pytest.mark.parametrize("where", ["missing-dir/schema.json", "."])
def test_schema_out_that_cannot_be_written_is_invalid_input(capsys, tmp_path, where):
    assert cli.main(["schema", "--out", str(tmp_path / where)]) == ExitCode.INVALID_INPUT == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


def test_a_broken_pipe_that_is_not_stdout_stays_an_internal_error(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")  # e.g. a child process or a socket, with stdout fine

    monkeypatch.setattr(cli.plan_mod, "plan_stack", broken)
    assert cli.main(["plan", "--stack", "dev", "--project-dir", str(ROOT)]) == 70
    assert "internal error in plan: BrokenPipeError" in capsys.readouterr().err


# --- one stream rule: the report on stdout, a human-readable error on stderr ---------------------


@pytest.mark.parametrize("command", ["plan", "render", "validate"])
def test_a_config_error_goes_to_stderr_or_as_json_to_stdout_under_every_command(capsys, temp_project, tmp_path, command):
    project = str(temp_project("bad", BAD_STACK))
    argv = [command, "--stack", "bad", "--project-dir", project] + (["--out", str(tmp_path / "o")] if command == "render" else [])
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "pools[0].scaling: minSize 3 is above maxSize 2" in captured.err
    code, doc = run_json(capsys, *argv)
    assert code == 2 and doc["configErrors"][0]["path"] == "pools[0].scaling"


def test_a_check_whose_program_fails_reports_on_stderr(capsys, tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: web\nruntime: nodejs\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    assert cli.main(["check", "--project-dir", str(tmp_path), "--stack", "dev"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "runs Pulumi Python programs only" in captured.err


def test_validate_reports_the_warnings_plan_reports(temp_project, capsys):
    stack = BAD_STACK.replace("    subnetIds: [subnet-0a1b2c3d4e5f60718]\n",
                              "    subnetIds: [subnet-0a1b2c3d4e5f60718]\n    kubernetesVersion: \"1.29\"\n")
    stack = stack.replace("scaling: {minSize: 3, maxSize: 2}", "scaling: {minSize: 0, maxSize: 2}")
    project = temp_project("old", stack)
    code, doc = run_json(capsys, "validate", "--stack", "old", "--project-dir", str(project))
    assert code == 0 and [w["path"] for w in doc["warnings"]] == ["cluster.kubernetesVersion"]
    assert doc["warnings"][0]["location"]["line"] == 6
    _, planned = run_json(capsys, "plan", "--stack", "old", "--project-dir", str(project))
    assert [w["message"] for w in planned["warnings"]] == [w["message"] for w in doc["warnings"]]
    assert cli.main(["validate", "--stack", "old", "--project-dir", str(project)]) == 0
    captured = capsys.readouterr()  # the verdict on stdout, the warning itself on stderr
    assert captured.out == "stack 'old': config is valid (1 pool(s)); 1 warning(s), on stderr, nothing refused\n"
    assert "warning: stacks/Pulumi.old.yaml:6:5: cluster.kubernetesVersion" in captured.err
