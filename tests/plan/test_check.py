"""``gpupool check``: the pack on a platform team's own program (tests/data/foreign_project)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import jsonschema
import pytest
from conftest import DATA, ROOT

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema
from gpu_node_pool.plan.expand import locate_helm

FOREIGN = DATA / "foreign_project"
VALIDATOR = jsonschema.Draft202012Validator(report_schema())
# ../shared beside the repo (a git worktree finds it one level further up); never copied into the repo.
CHARTS = next((d / "shared" / "charts" for d in (ROOT.parent, ROOT.parent.parent) if (d / "shared" / "charts").is_dir()),
              ROOT.parent / "shared" / "charts")
needs_helm = pytest.mark.skipif(locate_helm() is None, reason="no helm on PATH or beside this Python (make setup installs it)")
DS = "kubernetes:apps/v1:DaemonSet"


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = cli.main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert not [e.message for e in VALIDATOR.iter_errors(doc)]
    assert doc["exitCode"] == code
    return code, doc


def test_check_finds_hand_written_and_component_pools_in_a_foreign_program(capsys):
    code, doc = run_json(capsys, "check", "--project-dir", str(FOREIGN), "--stack", "ci")
    pools = {p["name"]: p for p in doc["pools"]}
    assert doc["project"] == "platform-gpu"
    assert pools["training-gpu"]["component"] is None
    assert pools["training-gpu"]["resourceType"] == "aws:eks/nodeGroup:NodeGroup"
    assert pools["training-gpu"]["taints"] == ["dedicated=training:NoSchedule"]
    # Our component's node group is reported under the component's name, with the program's cluster.
    assert pools["inference"]["component"] == "inference"
    assert pools["inference"]["resource"] == "inference-node-group"
    assert pools["inference"]["taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert {(c["pool"], c["taint"], c["tolerated"]) for c in doc["coverage"]} == {
        ("training-gpu", "dedicated=training:NoSchedule", False),
        ("inference", "nvidia.com/gpu=present:NoSchedule", True),
    }
    judged = {(v["policy"], v["resource"]) for v in doc["violations"]}
    assert ("daemonsets-tolerate-gpu-taints", "kubernetes:apps/v1:DaemonSet fluent-bit") in judged
    assert ("device-plugin-covers-gpu-pools", "aws:eks/nodeGroup:NodeGroup training-gpu") in judged
    assert code == 1


def test_check_reads_the_programs_own_config_namespace(capsys):
    _, doc = run_json(capsys, "check", "--project-dir", str(FOREIGN), "--stack", "ci")
    node_groups = [r for r in doc["resources"] if r["type"] == "aws:eks/nodeGroup:NodeGroup"]
    assert [r["name"] for r in node_groups] == ["training-gpu", "inference-node-group"]


def test_plan_refuses_the_foreign_program_for_lack_of_our_keys_while_check_runs_it(capsys):
    code = cli.main(["plan", "--project-dir", str(FOREIGN), "--stack", "ci"])
    capsys.readouterr()
    assert code == 2
    assert cli.main(["check", "--project-dir", str(FOREIGN), "--stack", "ci", "--fail-on", "none"]) == 0
    text = capsys.readouterr().out
    assert "2 GPU pool(s) found" in text
    # a pool's line says what its nodes need; the program's own plugins are listed apart, so the two never read as
    # "found" and "none found" about the same thing
    needs = "device plugin   needs nvidia-device-plugin (its nodes run none of their own)"
    assert needs in text and "device plugin   nvidia-device-plugin\n" not in text


def test_check_of_a_program_that_raises_is_invalid_input_with_one_line(capsys, tmp_path):
    shutil.copytree(FOREIGN, tmp_path / "p")
    main = tmp_path / "p" / "__main__.py"
    main.write_text(main.read_text().replace('config.require("clusterName")', 'config.require("clusterNme")'))
    code, doc = run_json(capsys, "check", "--project-dir", str(tmp_path / "p"), "--stack", "ci")
    assert code == 2
    [error] = doc["configErrors"]
    assert "the program raised" in error["message"] and "clusterNme" in error["message"]
    # placed as every other error is: __main__.py:<line>:<column>, the line that called config.require
    line = next(i for i, text in enumerate(main.read_text().splitlines(), 1) if "clusterNme" in text)
    assert error["location"] == {"file": "__main__.py", "line": line, "column": error["location"]["column"]}
    assert error["path"] == "__main__.py" and "(at " not in error["message"]


def test_check_of_a_pool_the_program_declares_wrongly_names_the_programs_line_and_the_component(capsys, tmp_path):
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    main.write_text(main.read_text().replace('"instanceTypes": ["g6.xlarge"],',
                                             '"instanceTypes": ["g6.xlarge"], "kubelet": {"flags": ["v=2"]},'))
    line = next(i for i, text in enumerate(main.read_text().splitlines(), 1) if text.startswith("inference = GpuNodePool("))
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [error] = doc["configErrors"]
    assert code == 2 and "is not one kubelet flag" in error["message"]
    # the mistake is in the program, where the GpuNodePool is constructed, not at line 1 of the stack file
    assert error["location"]["file"] == "__main__.py" and error["location"]["line"] == line
    assert "GpuNodePool 'inference'" in error["path"] and "pool.kubelet.flags" in error["path"]


def test_check_refuses_a_non_python_project(capsys, tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: web\nruntime: nodejs\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    code, doc = run_json(capsys, "check", "--project-dir", str(tmp_path), "--stack", "dev")
    assert code == 2 and "runs Pulumi Python programs only" in doc["configErrors"][0]["message"]


def test_check_of_this_projects_own_stack_finds_the_same_pools_as_plan(capsys):
    _, checked = run_json(capsys, "check", "--project-dir", str(ROOT), "--stack", "dev")
    _, planned = run_json(capsys, "plan", "--project-dir", str(ROOT), "--stack", "dev")
    assert sorted(p["name"] for p in checked["pools"]) == sorted(p["name"] for p in planned["pools"])
    assert checked["violations"] == planned["violations"]


# --- check opens charts and YAML as plan does ---------------------------------------------------


def copy_project(tmp_path: Path, stack_config: dict | None = None) -> Path:
    """The foreign project in ``tmp_path/p`` with its ``ci`` stack config plus ``stack_config`` (keys of its namespace)."""
    project = tmp_path / "p"
    shutil.copytree(FOREIGN, project)
    if stack_config:
        stack = project / "Pulumi.ci.yaml"
        text = stack.read_text()
        stack.write_text(text + "".join(f"  {k}: {json.dumps(v)}\n" for k, v in stack_config.items()))
    return project


def mandatory(doc: dict, policy: str) -> set[str]:
    return {v["resource"] for v in doc["violations"] if v["policy"] == policy and v["enforcement"] == "mandatory"}


@needs_helm
def test_check_judges_a_local_charts_daemonset_and_a_yaml_v2_config_group_daemonset(capsys):
    code, doc = run_json(capsys, "check", "--project-dir", str(FOREIGN), "--stack", "ci")
    names = {r["name"] for r in doc["resources"] if r["type"] == DS}
    # the chart's DaemonSet as helm renders it (release node-agent), and the DaemonSet of the YAML file
    assert {"node-agent:logging/node-agent-node-agent", "node-exporter:monitoring/node-exporter"} <= names
    failing = mandatory(doc, "daemonsets-tolerate-gpu-taints")
    assert f"{DS} node-agent:logging/node-agent-node-agent" in failing
    assert f"{DS} node-exporter:monitoring/node-exporter" in failing
    assert doc["notJudged"] == []
    assert code == 1


@needs_helm
@pytest.mark.skipif(not (CHARTS / "aws-for-fluent-bit").is_dir(), reason=f"{CHARTS}/aws-for-fluent-bit is absent (the shared test charts)")
def test_check_judges_the_real_aws_for_fluent_bit_chart_of_a_team_program(capsys, tmp_path):
    project = copy_project(tmp_path, {"platform-gpu:agentChart": str(CHARTS / "aws-for-fluent-bit")})
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    # aws/eks-charts stable/aws-for-fluent-bit: DaemonSet <release>-aws-for-fluent-bit, tolerations [] by default
    ds = f"{DS} node-agent:logging/node-agent-aws-for-fluent-bit"
    assert ds in mandatory(doc, "daemonsets-tolerate-gpu-taints")
    assert code == 1


def _only_a_repo_chart(tmp_path: Path) -> Path:
    """A program whose one resource is a chart from a repository: offline and without --fetch-charts it is not rendered."""
    project = tmp_path / "repo-chart"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: logs\nruntime: python\n")
    (project / "Pulumi.dev.yaml").write_text("config: {}\n")
    (project / "__main__.py").write_text(
        "import pulumi_kubernetes as k8s\n\n"
        "k8s.helm.v4.Chart('fluent-bit', chart='aws-for-fluent-bit', version='0.1.34', namespace='logging',\n"
        "                  repository_opts={'repo': 'https://aws.github.io/eks-charts'})\n"
    )
    return project


def test_check_strict_makes_an_unrendered_chart_a_failure(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(tmp_path / "empty-cache"))  # the chart is in no cache
    project = _only_a_repo_chart(tmp_path)
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "dev")
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:helm.sh/v4:Chart"
    [finding] = [v for v in doc["violations"] if v["policy"] == "resources-judged"]
    assert finding["enforcement"] == "advisory" and code == 0
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "dev", "--strict")
    assert [v["enforcement"] for v in doc["violations"] if v["policy"] == "resources-judged"] == ["mandatory"]
    assert code == 1
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"resources-judged": {"strict": True}}))
    code, _ = run_json(capsys, "check", "--project-dir", str(project), "--stack", "dev", "--policy-pack-config", str(config))
    assert code == 1


def test_check_fix_texts_name_a_command_that_runs_a_foreign_program(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(tmp_path / "empty-cache"))
    project = _only_a_repo_chart(tmp_path)
    (project / "__main__.py").write_text((project / "__main__.py").read_text()
                                         + "k8s.helm.v3.Release('metrics', chart='charts/absent', namespace='m')\n")
    assert cli.main(["check", "--project-dir", str(project), "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert "not judged: 2 resource(s)" in out
    assert "gpupool plan" not in out  # plan refuses any program but this project's own


def test_check_html_writes_the_daemonset_by_pool_page(capsys, tmp_path):
    page = tmp_path / "check.html"
    code = cli.main(["check", "--project-dir", str(FOREIGN), "--stack", "ci", "--html", str(page)])
    assert code == 1 and f"wrote   {page}" in capsys.readouterr().out
    text = page.read_text()
    assert "fluent-bit" in text and "training-gpu" in text


# --- the program's own interpreter ----------------------------------------------------------------


def make_venv(where: Path, *, shared: bool) -> Path:
    """A venv at ``where`` (no pip: quick); ``shared``: it also sees this test run's packages (a .pth file),
    as a team's venv with gpu-node-pool installed would. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(where)], check=True)
    python = where / "bin" / "python"
    if shared:
        site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
        # addsitedir, not a bare path line: the shared site's own .pth files (an editable install's
        # finder, as `pip install -e .` writes it) must run too, as they do in the test run itself
        Path(site, "gpupool-test-shared.pth").write_text(
            f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    return python


def _proving(project: Path) -> Path:
    """Make the program write the ``sys.prefix`` it ran under; returns that file."""
    main = project / "__main__.py"
    main.write_text(main.read_text() + "\nimport pathlib, sys\npathlib.Path(__file__).with_name('ran-in.txt').write_text(sys.prefix)\n")
    return project / "ran-in.txt"


@pytest.mark.skipif(os.name == "nt", reason="the venv layout here is POSIX's bin/python")
def test_check_runs_the_program_in_the_virtualenv_pulumi_yaml_names(capsys, tmp_path):
    project = copy_project(tmp_path)
    venv = make_venv(project / "venv", shared=True).parent.parent
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text().replace(
        "runtime:\n  name: python\n", "runtime:\n  name: python\n  options:\n    virtualenv: venv\n"))
    ran_in = _proving(project)
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    assert Path(ran_in.read_text()).resolve() == venv.resolve() != Path(sys.prefix).resolve()
    assert doc["interpreter"] == {"python": str(venv / "bin" / "python"), "from": "Pulumi.yaml runtime.options.virtualenv",
                                  "inProcess": False, "note": ""}
    # judged as in-process: the same pools, coverage and findings
    _, here = run_json(capsys, "check", "--project-dir", str(FOREIGN), "--stack", "ci")
    assert doc["pools"] == here["pools"] and doc["coverage"] == here["coverage"]
    assert sorted(map(json.dumps, doc["violations"])) == sorted(map(json.dumps, here["violations"]))
    assert code == 1


@pytest.mark.skipif(os.name == "nt", reason="the venv layout here is POSIX's bin/python")
def test_check_python_flag_and_a_venv_without_gpu_node_pool(capsys, tmp_path, monkeypatch):
    project = copy_project(tmp_path)
    bare = make_venv(tmp_path / "bare", shared=False)
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the bare venv then sees no gpu_node_pool at all
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci", "--python", str(bare))
    [error] = doc["configErrors"]
    assert code == 2 and error["path"] == "--python"
    assert "cannot import gpu-node-pool" in error["message"] and f"{bare} -m pip install" in error["message"]
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci", "--python", str(tmp_path / "nope"))
    assert code == 2 and "is not an executable file" in doc["configErrors"][0]["message"]


def test_check_says_when_the_named_virtualenv_does_not_exist(capsys, tmp_path):
    project = copy_project(tmp_path)
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text().replace(
        "runtime:\n  name: python\n", "runtime:\n  name: python\n  options:\n    virtualenv: .venv\n"))
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    assert not doc["interpreter"]["inProcess"] and "which has no" in doc["interpreter"]["note"]
    assert code == 1
    assert cli.main(["check", "--project-dir", str(project), "--stack", "ci"]) == 1
    assert "note: Pulumi.yaml names virtualenv '.venv'" in capsys.readouterr().out


def test_check_in_a_child_reports_the_programs_failure_as_in_process(capsys, tmp_path):
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    main.write_text(main.read_text().replace('config.require("clusterName")', 'config.require("clusterNme")'))
    python = make_venv(tmp_path / "venv", shared=True)
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci", "--python", str(python))
    [error] = doc["configErrors"]
    assert code == 2 and "clusterNme" in error["message"] and error["location"]["file"] == "__main__.py"


def test_check_of_a_program_with_a_duplicate_urn_is_refused_as_a_preview_would(capsys, tmp_path):
    # the engine refuses two resources of one type, name and parent (pulumi/pulumi pkg/diag/errors.go, 2001)
    shutil.copytree(FOREIGN, tmp_path / "p")
    main = tmp_path / "p" / "__main__.py"
    main.write_text(main.read_text() + "\naws.iam.Role('twice', assume_role_policy='{}')\naws.iam.Role('twice', assume_role_policy='{}')\n")
    code, doc = run_json(capsys, "check", "--project-dir", str(tmp_path / "p"), "--stack", "ci")
    assert code == 2
    [error] = doc["configErrors"]
    assert "Duplicate resource URN" in error["message"] and "aws:iam/role:Role::twice" in error["message"]
    assert "unique name" in error["message"]
    lines = main.read_text().splitlines()
    second, first = len(lines), len(lines) - 1  # the two appended lines
    assert error["location"] == {"file": "__main__.py", "line": second, "column": 1}
    assert f"(first at __main__.py:{first})" in error["message"] and "(at " not in error["message"]


def test_a_name_a_helper_repeats_is_placed_at_the_two_calls(capsys, tmp_path):
    shutil.copytree(FOREIGN, tmp_path / "p")
    main = tmp_path / "p" / "__main__.py"
    base = len(main.read_text().splitlines())
    main.write_text(main.read_text() + "\n\ndef role(name):\n    return aws.iam.Role(name, assume_role_policy='{}')\n\n\n"
                    "role('once')\nrole('twice')\nrole('twice')\n")
    _, doc = run_json(capsys, "check", "--project-dir", str(tmp_path / "p"), "--stack", "ci")
    [error] = doc["configErrors"]
    assert error["location"]["line"] == base + 9 and f"(first at __main__.py:{base + 8})" in error["message"]


def test_the_plan_recorder_refuses_duplicate_urns_that_the_mocks_let_through():
    import pulumi_aws as aws

    from gpu_node_pool.plan.run import DuplicateUrnError, record

    def program():
        aws.iam.Role("twice", assume_role_policy="{}")
        aws.iam.Role("twice", assume_role_policy="{}")
        aws.iam.Role("once", assume_role_policy="{}")

    with pytest.raises(DuplicateUrnError) as info:
        record(program)
    assert [u.rsplit("::", 1)[-1] for u in info.value.urns] == ["twice"]


def test_a_v1_config_file_childs_finding_points_at_the_programs_config_file_line(capsys, tmp_path):
    # pulumi_kubernetes' v1 yaml registers the children from code it exec's ("<string>"): not a program file
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    main.write_text(main.read_text() + 'k8s.yaml.ConfigFile("v1agents", file="manifests/node-exporter.yaml")\n')
    line = len(main.read_text().splitlines())
    _, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [finding] = [v for v in doc["violations"] if "kubernetes:yaml:ConfigFile$" in v["urn"]]
    assert finding["location"] == {"file": "__main__.py", "line": line, "column": 1}


def test_a_programs_grandchild_in_a_session_of_its_own_is_killed_with_it_at_the_timeout(capsys, tmp_path):
    import signal
    import time

    project = copy_project(tmp_path)
    pid_file = tmp_path / "grandchild.pid"
    main = project / "__main__.py"
    main.write_text("import subprocess, time\n"
                    "p = subprocess.Popen(['sleep', '97'], start_new_session=True)\n"
                    f"open({str(pid_file)!r}, 'w').write(str(p.pid))\ntime.sleep(120)\n" + main.read_text())
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--program-timeout", "5"])
    assert code == 2 and "did not finish within 5 s" in capsys.readouterr().err
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{grandchild}/stat") as stat:  # a zombie is gone, only not yet reaped by init
            if stat.read().split(")")[-1].split()[0] == "Z":
                return
        time.sleep(0.1)
    os.kill(grandchild, signal.SIGKILL)
    raise AssertionError("the program's grandchild outlived --program-timeout")


def test_check_reports_a_pools_config_warnings_at_the_programs_line(capsys, tmp_path):
    # as plan prints a stack's config warnings, check prints those of a program's GpuNodePool
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    main.write_text(main.read_text().replace('"subnetIds": subnet_ids}', '"subnetIds": subnet_ids, "kubernetesVersion": "1.29"}'))
    line = next(i for i, text in enumerate(main.read_text().splitlines(), 1) if text.startswith("inference = GpuNodePool("))
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [warning] = doc["warnings"]
    assert warning["path"] == "GpuNodePool 'inference' cluster.kubernetesVersion"
    assert warning["message"].startswith("'1.29': EKS extended support ended") and "creates no new cluster" in warning["message"]
    assert warning["location"] == {"file": "__main__.py", "line": line, "column": 13}  # at GpuNodePool(
    assert code == cli.main(["check", "--project-dir", str(project), "--stack", "ci"])  # a warning changes no code
    err = capsys.readouterr().err
    assert f"warning: __main__.py:{line}:13: GpuNodePool 'inference' cluster.kubernetesVersion: '1.29': EKS extended" in err


def test_check_places_a_device_plugins_argument_mistake_at_the_programs_line_not_in_the_stack_file(capsys, tmp_path):
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    text = main.read_text()
    main.write_text(text + 'NvidiaDevicePlugin("plugin-b", NvidiaDevicePluginArgs(cluster_name, [inference.spec]))\n')
    line = len(main.read_text().splitlines())
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [error] = doc["configErrors"]
    assert code == 2 and "already declared" in error["message"]
    assert error["location"] == {"file": "__main__.py", "line": line, "column": 1}


@needs_helm
def test_a_chart_whose_values_turn_everything_off_is_judged_empty_not_unopened(capsys, tmp_path):
    # helm renders no object: the chart was opened and holds nothing to judge, so no "no child resources"
    # finding (a mandatory failure under --strict)
    chart = tmp_path / "off-chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: off-chart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("enabled: false\n")
    (chart / "templates" / "ds.yaml").write_text(
        "{{- if .Values.enabled }}\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\n"
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec: {containers: [{name: a, image: busybox}]}\n{{- end }}\n")
    project = copy_project(tmp_path, {"platform-gpu:agentChart": str(chart)})
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci", "--strict")
    assert not [v for v in doc["violations"] if v["policy"] == "resources-judged"], doc["violations"]
    assert doc["notJudged"] == []


def _off_chart(tmp_path: Path, gate: str = "{{- if .Values.enabled }}") -> Path:
    chart = tmp_path / "off-chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: off-chart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("enabled: false\n")
    (chart / "templates" / "ds.yaml").write_text(
        f"{gate}\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent}}\n"
        "spec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n"
        "    spec: {containers: [{name: a, image: busybox}]}\n{{- end }}\n")
    return chart


def test_a_helm_that_prints_nothing_is_not_an_empty_chart(capsys, tmp_path):
    # a binary that exits 0 without a word gives no object too: it is checked to be Helm before the chart counts empty
    project = copy_project(tmp_path, {"platform-gpu:agentChart": str(_off_chart(tmp_path))})
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci", "--strict",
                         "--helm", shutil.which("true"))
    [item] = [n for n in doc["notJudged"] if "off-chart" in n["reason"] or "no manifest" in n["reason"]]
    assert "does not answer `version --short` as Helm does" in item["reason"]
    assert code == 1  # --strict: not judged is a failure


@needs_helm
def test_a_chart_that_reads_the_cluster_and_renders_nothing_offline_is_not_judged(capsys, tmp_path):
    chart = _off_chart(tmp_path, '{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" }}')
    project = copy_project(tmp_path, {"platform-gpu:agentChart": str(chart)})
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [item] = [n for n in doc["notJudged"] if ".Capabilities.APIVersions" in n["reason"]]
    assert "in the cluster it may render objects" in item["reason"] and "gpupool audit" in item["fix"]


def test_a_model_the_program_builds_wrongly_names_its_field_and_rule(capsys, tmp_path):
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    main.write_text(main.read_text() + "from gpu_node_pool.config import DevicePluginConfig\n"
                                       "DevicePluginConfig(namespace='default')\n")
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    [error] = doc["configErrors"]
    assert code == 2 and "the program built DevicePluginConfig wrongly: " in error["message"]
    assert error["location"]["file"] == "__main__.py" and error["location"]["line"] > 1
    assert "namespace: 'default': the chart refuses to install into the default namespace" in error["message"]


def test_check_of_this_projects_program_reports_the_stacks_warnings_in_the_stack_file(capsys, tmp_path):
    # the shipped program gives the stack's warnings once (its pools, written in the stack config, give none)
    project = tmp_path / "own"
    project.mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace('kubernetesVersion: "1.33"', 'kubernetesVersion: "1.29"')
    (project / "stacks" / "Pulumi.dev.yaml").write_text(text)
    _, planned = run_json(capsys, "plan", "--project-dir", str(project), "--stack", "dev")
    _, checked = run_json(capsys, "check", "--project-dir", str(project), "--stack", "dev")
    assert [w["path"] for w in checked["warnings"]] == [w["path"] for w in planned["warnings"]] == ["cluster.kubernetesVersion"]
    assert checked["warnings"][0]["location"]["file"] == "stacks/Pulumi.dev.yaml"


def test_the_text_report_calls_a_tolerated_taint_tolerated_not_ok(capsys):
    # a tolerated taint says nothing of the plugin's node selection, which device-plugin-covers-gpu-pools judges
    code = cli.main(["check", "--project-dir", str(FOREIGN), "--stack", "ci"])
    out = capsys.readouterr().out
    assert code == 1
    assert "    tolerated inference: nvidia.com/gpu=present:NoSchedule" in out
    assert "    MISS      training-gpu: dedicated=training:NoSchedule" in out
    assert "    ok   " not in out and "device-plugin-covers-gpu-pools below" in out


def test_checks_last_line_says_why_it_fails_as_the_plans_does_and_the_python_path_is_normalised(capsys):
    code = cli.main(["check", "--project-dir", str(ROOT / "examples" / "violating"), "--stack", "demo"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.rstrip().splitlines()[-1] == "exit 1: FAILED (mandatory policy violation or uncovered taint)"
    assert "/../" not in out.splitlines()[1]  # "program ran in .../venv/bin/python", not ".../violating/../../venv"
