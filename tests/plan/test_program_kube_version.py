"""A team's own program that declares its cluster's Kubernetes version on its ``GpuNodePool`` renders its charts with
that version (``helm template --kube-version``), under ``gpupool plan``, ``gpupool render`` and ``gpupool check``,
when the stack config sets no ``cluster.kubernetesVersion``: a chart whose ``kubeVersion`` excludes the default 1.31
renders, and ``chart.yaml`` gives the version. Pools of different versions render with the oldest, and say so."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from programs import team_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.expand import DEFAULT_KUBE_VERSION, KubeVersion, chart_kube_version, locate_helm
from gpu_node_pool.sdk.record import Resource

HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or beside this Python (make setup installs it)")
POOL_TYPE = "gpu-node-pools:index:GpuNodePool"


def program(*versions: str | None) -> str:
    """A program of one GpuNodePool per version (``gpu0``, ``gpu1``...: cluster ``ml0``, ``ml1``... of that
    ``kubernetesVersion``, none for None), NVIDIA's device plugin for each, and the local chart ``charts/logship``."""
    pools = "".join(f"""
pools.append(GpuNodePool("gpu{i}", GpuNodePoolArgs(cluster={{**cluster, "name": "ml{i}"{
    f', "kubernetesVersion": "{v}"' if v else ""}}}, pool={{
    "name": "gpu{i}", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {{"minSize": 0, "maxSize": 2}},
    "taints": ["nvidia.com/gpu=present:NoSchedule"]}})))""" for i, v in enumerate(versions))
    return f"""\
import pulumi_kubernetes as k8s

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs

cluster = {{"nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}}
pools = []
{pools}
for i, pool in enumerate(pools):  # an agent per cluster
    NvidiaDevicePlugin(f"nvidia-device-plugin-{{i}}", NvidiaDevicePluginArgs(f"ml{{i}}", [pool.spec]))
k8s.helm.v4.Chart("logship", chart="./charts/logship", namespace="logging")
"""


# The stack config of `gpupool plan`: its cluster sets no kubernetesVersion.
STACK = """\
config:
  gpu-node-pools:cluster:
    name: ml0
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-nodes
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
  - {name: gpu0, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 0, maxSize: 2},
     taints: ["nvidia.com/gpu=present:NoSchedule"]}
"""
TEMPLATE = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: '{{ .Release.Name }}', namespace: '{{ .Release.Namespace }}'}
spec:
  selector: {matchLabels: {app: logship}}
  template:
    metadata: {labels: {app: logship}, annotations: {kube: '{{ .Capabilities.KubeVersion.Version }}'}}
    spec:
      containers: [{name: fb, image: fluent/fluent-bit:3.1}]
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
"""


def project(tmp_path: Path, *versions: str | None) -> Path:
    root = team_project(tmp_path / "team", program(*versions), stack_text=STACK)
    chart = root / "charts" / "logship"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text('apiVersion: v2\nname: logship\nversion: 0.1.0\nkubeVersion: ">=1.32.0-0"\n')
    (chart / "templates" / "ds.yaml").write_text(TEMPLATE)
    return root


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def logship(doc: dict) -> list[dict]:
    return [r for r in doc["resources"] if r["type"] == "kubernetes:apps/v1:DaemonSet" and r["name"].startswith("logship:")]


@needs_helm
@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_chart_that_needs_1_32_renders_with_the_programs_1_33(capsys, tmp_path, command):
    root = project(tmp_path, "1.33")
    code, doc = run_json(capsys, command, "--stack", "ci", "--project-dir", str(root), "--strict")
    assert code == 0, doc["notJudged"]
    [ds] = logship(doc)
    assert ds["synthesized"] == "helm template (offline render, --kube-version 1.33)"
    if command == "plan":  # check's report names the resources without their inputs
        assert ds["inputs"]["spec"]["template"]["metadata"]["annotations"]["kube"] == "v1.33"
    assert doc["notJudged"] == []


@needs_helm
@pytest.mark.parametrize("command", ["plan", "check"])
def test_without_a_version_the_chart_is_refused_under_the_default_and_the_report_says_why(capsys, tmp_path, command):
    root = project(tmp_path, None)
    code, doc = run_json(capsys, command, "--stack", "ci", "--project-dir", str(root), "--strict")
    assert code == 1 and logship(doc) == []
    [item] = doc["notJudged"]
    assert "chart requires kubeVersion: >=1.32.0-0" in item["reason"]
    assert item["reason"].endswith(
        f"incompatible with Kubernetes v{DEFAULT_KUBE_VERSION} (--kube-version {DEFAULT_KUBE_VERSION}: the default; "
        "neither the stack config's cluster.kubernetesVersion nor the cluster of a GpuNodePool of the program sets it)")
    [finding] = [v for v in doc["violations"] if v["policy"] == "resources-judged"]
    assert finding["enforcement"] == "mandatory" and "chart requires kubeVersion" in finding["message"]


@needs_helm
def test_render_writes_the_programs_version_in_the_command_and_helm_runs_it(capsys, tmp_path):
    root = project(tmp_path, "1.33")
    out = tmp_path / "out"
    assert main(["render", "--stack", "ci", "--project-dir", str(root), "--out", str(out)]) == 0, capsys.readouterr()
    capsys.readouterr()
    chart_dir = out / "charts" / "logship"
    [line] = [x for x in (chart_dir / "chart.yaml").read_text().splitlines() if x.startswith("# Same objects")]
    argv = shlex.split(line.split(": ", 1)[1])
    assert argv[argv.index("--kube-version") + 1] == "1.33"
    run = subprocess.run([str(HELM), *argv[1:]], cwd=chart_dir, capture_output=True, text=True, timeout=60,
                         check=False)
    assert run.returncode == 0, run.stderr  # under 1.31: "chart requires kubeVersion: >=1.32.0-0 ..."
    [ds] = [d for d in yaml.safe_load_all(run.stdout) if d]
    assert ds["spec"]["template"]["metadata"]["annotations"]["kube"] == "v1.33"


@needs_helm
def test_pools_of_different_versions_render_with_the_oldest_and_the_label_says_so(capsys, tmp_path):
    root = project(tmp_path, "1.33", "1.32", "1.33")
    code, doc = run_json(capsys, "plan", "--stack", "ci", "--project-dir", str(root), "--strict")
    assert code == 0, doc["notJudged"]
    [ds] = logship(doc)
    assert ds["inputs"]["spec"]["template"]["metadata"]["annotations"]["kube"] == "v1.32"
    assert ds["synthesized"] == (
        "helm template (offline render, --kube-version 1.32: the oldest of the versions declared (1.32: GpuNodePool "
        "'gpu1'; 1.33: GpuNodePool 'gpu0', GpuNodePool 'gpu2'); which cluster a chart installs to is not read, and a "
        "chart's kubeVersion constraint must hold on each)")


@needs_helm
def test_a_chart_refused_under_the_oldest_of_the_pools_versions_says_which_pool_declares_it(capsys, tmp_path):
    root = project(tmp_path, "1.33", "1.31")
    code, doc = run_json(capsys, "plan", "--stack", "ci", "--project-dir", str(root), "--strict")
    assert code == 1 and logship(doc) == []
    [item] = doc["notJudged"]
    assert item["reason"].endswith(
        "incompatible with Kubernetes v1.31 (--kube-version 1.31: the oldest of the versions declared (1.31: "
        "GpuNodePool 'gpu1'; 1.33: GpuNodePool 'gpu0'); which cluster a chart installs to is not read, and a chart's "
        "kubeVersion constraint must hold on each)")


class _Plan:
    def __init__(self, stack_version: str | None, *pools: str | None) -> None:
        self.config = type("C", (), {"cluster": type("K", (), {"kubernetes_version": stack_version})()})()
        self.resources = [Resource(POOL_TYPE, f"p{i}", {"kubernetesVersion": v} if v else {}, False)
                          for i, v in enumerate(pools)]


def test_the_stack_and_the_pools_agreeing_give_one_version_without_a_note():
    kube = chart_kube_version(_Plan("1.33", "1.33", None))
    assert kube == KubeVersion("1.33", (("1.33", ("the stack config's cluster.kubernetesVersion", "GpuNodePool 'p0'")),))
    assert kube.label == "helm template (offline render, --kube-version 1.33)"


def test_a_stack_older_than_its_pools_gives_its_own_version_and_names_both():
    kube = chart_kube_version(_Plan("1.32", "1.33"))
    assert kube.version == "1.32"
    assert "(1.32: the stack config's cluster.kubernetesVersion; 1.33: GpuNodePool 'p0')" in kube.label


def test_no_version_anywhere_is_the_default_and_says_so():
    kube = chart_kube_version(_Plan(None, None))
    assert kube.version == DEFAULT_KUBE_VERSION and kube.declared == ()
    assert kube.label == (
        f"helm template (offline render, --kube-version {DEFAULT_KUBE_VERSION}: the default; neither the stack "
        "config's cluster.kubernetesVersion nor the cluster of a GpuNodePool of the program sets it)")
