"""A local chart Helm refuses to render whatever runs it fails a real preview, so ``gpupool check`` and ``gpupool
plan`` exit 2 with an error at the chart's line (a ``required`` value the program does not give, a ``kubeVersion`` the
declared cluster version fails, a ``kubeVersion`` that is no constraint), while a ``kubeVersion`` that fails only the
default version stays not judged, saying to declare the version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from programs import team_program, team_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.expand import DEFAULT_KUBE_VERSION, locate_helm

pytestmark = pytest.mark.skipif(locate_helm() is None, reason="no helm on PATH or beside this Python (make setup)")
TEMPLATE = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: logship}
spec:
  selector: {matchLabels: {app: logship}}
  template:
    metadata: {labels: {app: logship}}
    spec:
      tolerations: {{ required "set tolerations: the GPU taints this DaemonSet must tolerate" .Values.tol | toJson }}
      containers: [{name: fb, image: fluent/fluent-bit:3.1}]
"""
CHART_LINE = 'k8s.helm.v4.Chart("logship", chart="./charts/logship", namespace="logging"{values})'
STACK_133 = """\
config:
  gpu-node-pools:cluster:
    name: ml
    kubernetesVersion: "1.33"
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-nodes
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
  - {name: gpu, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 0, maxSize: 2},
     taints: ["nvidia.com/gpu=present:NoSchedule"]}
"""


def project(tmp_path: Path, *, kube: str = "", values: str = "", declared: str | None = None,
            stack_text: str = "config: {}\n") -> Path:
    program = team_program(CHART_LINE.format(values=values))
    if declared:  # the program's GpuNodePool declares its cluster's version
        program = program.replace('cluster = {"name": "ml",', f'cluster = {{"name": "ml", "kubernetesVersion": "{declared}",')
    root = team_project(tmp_path / "team", program, stack_text=stack_text)
    chart = root / "charts" / "logship"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: logship\nversion: 0.1.0\n"
                                      + (f"kubeVersion: {kube!r}\n" if kube else ""))
    (chart / "templates" / "ds.yaml").write_text(TEMPLATE)
    return root


def run(capsys, root: Path, command: str = "check") -> tuple[int, dict]:
    code = main([command, "--stack", "ci", "--project-dir", str(root), "--json"])
    return code, json.loads(capsys.readouterr().out)


def chart_line(root: Path) -> int:
    return next(i for i, line in enumerate((root / "__main__.py").read_text().splitlines(), 1)
                if line.startswith('k8s.helm.v4.Chart("logship"'))


def test_a_required_value_the_program_does_not_give_is_an_error_at_the_charts_line(capsys, tmp_path):
    root = project(tmp_path)
    code, doc = run(capsys, root)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:helm.sh/v4:Chart 'logship' values"
    assert error["location"]["file"] == "__main__.py" and error["location"]["line"] == chart_line(root)
    message = error["message"]
    assert "its template logship/templates/ds.yaml (line 9, column 22" in message, message
    assert "the chart's own message 'set tolerations: the GPU taints this DaemonSet must tolerate'" in message
    assert "a real `pulumi preview` fails the same way" in message
    assert "Fix: give the value that message asks for in values" in message
    assert doc["notJudged"] == []
    # the text report says it as an error of the program, not "not judged"
    assert main(["check", "--stack", "ci", "--project-dir", str(root)]) == 2
    said = capsys.readouterr()
    text = said.out + said.err
    assert "a real `pulumi preview` would fail" in text and "__main__.py:" in text and "not judged" not in text


def test_the_same_chart_given_the_value_is_judged(capsys, tmp_path):
    root = project(tmp_path, values=', values={"tol": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}')
    code, doc = run(capsys, root)
    assert code == 0, doc["configErrors"] or doc["notJudged"]
    assert doc["configErrors"] == [] and doc["notJudged"] == []


@pytest.mark.parametrize(("command", "declared", "stack_text", "who"), [
    ("check", "1.33", "config: {}\n", "GpuNodePool 'gpu'"),
    ("plan", None, STACK_133, "the stack config's cluster.kubernetesVersion"),
])
def test_a_kube_version_constraint_the_declared_version_fails_is_an_error(capsys, tmp_path, command, declared,
                                                                           stack_text, who):
    root = project(tmp_path, kube=">=1.34.0-0", values=', values={"tol": []}', declared=declared,
                   stack_text=stack_text)
    code, doc = run(capsys, root, command)
    assert code == 2, doc["notJudged"]
    [error] = [e for e in doc["configErrors"] if "logship" in e["path"]]
    assert error["path"] == "kubernetes:helm.sh/v4:Chart 'logship' chart"
    assert error["location"]["line"] == chart_line(root)
    assert f"kubeVersion '>=1.34.0-0' excludes Kubernetes v1.33, the cluster's version as {who} declares it" in (
        error["message"]), error["message"]


def test_the_same_constraint_with_no_version_declared_stays_not_judged_saying_to_declare_it(capsys, tmp_path):
    root = project(tmp_path, kube=">=1.34.0-0", values=', values={"tol": []}')
    code, doc = run(capsys, root)
    assert code == 0 and doc["configErrors"] == []
    [item] = doc["notJudged"]
    assert f"incompatible with Kubernetes v{DEFAULT_KUBE_VERSION} (--kube-version {DEFAULT_KUBE_VERSION}: the default" in (
        item["reason"])
    assert item["fix"].startswith("declare the cluster's Kubernetes version"), item["fix"]


@pytest.mark.parametrize("declared", [None, "1.33"])
def test_a_kube_version_that_is_no_constraint_is_an_error_naming_the_charts_file(capsys, tmp_path, declared):
    root = project(tmp_path, kube="not a constraint!!", values=', values={"tol": []}', declared=declared)
    code, doc = run(capsys, root)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:helm.sh/v4:Chart 'logship' chart"
    chart_yaml = root / "charts" / "logship" / "Chart.yaml"
    assert f"kubeVersion 'not a constraint!!' in {chart_yaml} is no version constraint" in error["message"]
    assert f"Fix: write kubeVersion in {chart_yaml} as a version constraint" in error["message"]
    assert "cluster.kubernetesVersion" not in error["message"]


def test_a_fail_that_names_kube_version_gets_no_note_of_the_version_rendered_for(capsys, tmp_path):
    # the chart's own fail reads .Capabilities.KubeVersion, so it stays not judged, as the values row says, and only
    # a kubeVersion Helm refused is followed by why the plan rendered for the default version
    root = project(tmp_path, values=', values={"tol": []}')
    (root / "charts" / "logship" / "templates" / "ds.yaml").write_text(
        '{{ if semverCompare "<1.99-0" .Capabilities.KubeVersion.Version }}'
        '{{ fail "this chart needs a kubeVersion of 1.99" }}{{ end }}\n')
    code, doc = run(capsys, root)
    assert code == 0 and doc["configErrors"] == []
    [item] = doc["notJudged"]
    assert "needs a kubeVersion of 1.99" in item["reason"], item["reason"]
    assert (f"the chart's templates call .Capabilities.KubeVersion, rendered for {DEFAULT_KUBE_VERSION}, which nothing "
            "declares as the cluster's version, so the failure may be the offline render's") in item["reason"], (
        item["reason"])
    assert "(--kube-version" not in item["reason"], item["reason"]
