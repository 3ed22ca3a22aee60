"""The ``helm template`` command ``gpupool render`` prints in a chart's chart.yaml renders with the Kubernetes version
the plan judged the chart with (``--kube-version``): a chart's ``kubeVersion`` constraint and its templates'
``.Capabilities.KubeVersion`` read it, and without the flag Helm takes its own built-in version."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.expand import locate_helm
from gpu_node_pool.plan.render import kubernetes_files
from gpu_node_pool.sdk.record import Resource

HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or beside this Python (make setup installs it)")
CHART_TYPE = "kubernetes:helm.sh/v4:Chart"

PROGRAM = """\
import pulumi_kubernetes as k8s

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs

cluster = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
GpuNodePool("gpu", GpuNodePoolArgs(cluster=cluster, pool={
    "name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
    "taints": ["nvidia.com/gpu=present:NoSchedule"]}))
k8s.helm.v4.Chart("logship", chart="./charts/logship", namespace="logging")
"""
STACK = """\
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
# The image follows the cluster's version, as charts that branch on .Capabilities.KubeVersion do.
TEMPLATE = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: '{{ .Release.Name }}', namespace: '{{ .Release.Namespace }}'}
spec:
  selector: {matchLabels: {app: logship}}
  template:
    metadata: {labels: {app: logship}, annotations: {kube: '{{ .Capabilities.KubeVersion.Version }}'}}
    spec:
      containers: [{name: fb, image: 'fluent/fluent-bit:{{ .Capabilities.KubeVersion.Minor }}'}]
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
"""


def project(tmp_path: Path) -> Path:
    root = tmp_path / "team"
    chart = root / "charts" / "logship"
    (chart / "templates").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: team-gpu\nruntime:\n  name: python\n")
    (root / "Pulumi.ci.yaml").write_text(STACK)
    (root / "__main__.py").write_text(PROGRAM)
    (chart / "Chart.yaml").write_text('apiVersion: v2\nname: logship\nversion: 0.1.0\nkubeVersion: "<1.34.0-0"\n')
    (chart / "templates" / "ds.yaml").write_text(TEMPLATE)
    return root


@needs_helm
def test_the_printed_command_renders_with_the_plans_kube_version_and_gives_the_judged_objects(capsys, tmp_path):
    root = project(tmp_path)
    assert main(["plan", "--stack", "ci", "--project-dir", str(root), "--fail-on", "none", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    judged = [r["inputs"] for r in plan["resources"]
              if r["type"] == "kubernetes:apps/v1:DaemonSet" and r["name"].startswith("logship:")]
    assert [ds["spec"]["template"]["metadata"]["annotations"]["kube"] for ds in judged] == ["v1.33"]

    out = tmp_path / "out"
    assert main(["render", "--stack", "ci", "--project-dir", str(root), "--out", str(out), "--fail-on", "none"]) == 0
    capsys.readouterr()
    chart_dir = out / "charts" / "logship"
    [line] = [x for x in (chart_dir / "chart.yaml").read_text().splitlines() if x.startswith("# Same objects")]
    argv = shlex.split(line.split(": ", 1)[1])
    assert argv[argv.index("--kube-version") + 1] == "1.33"
    run = subprocess.run([str(HELM), *argv[1:]], cwd=chart_dir, capture_output=True, text=True, timeout=60,
                         check=False)
    assert run.returncode == 0, run.stderr  # without the flag: "chart requires kubeVersion: <1.34.0-0 ..."
    got = [doc for doc in yaml.safe_load_all(run.stdout) if doc]
    assert got == judged


def _chart(name: str, urn: str) -> Resource:
    return Resource(CHART_TYPE, name, {"chart": "oci://example.com/c", "version": "1.0.0"}, True, urn)


def _kube_version(files, chart: str) -> str | None:
    [f] = [f for f in files if f.path == f"charts/{chart}/chart.yaml"]
    return f.command[f.command.index("--kube-version") + 1] if "--kube-version" in f.command else None


def _command(out: Path, chart: str) -> list[str]:
    [line] = [x for x in (out / "charts" / chart / "chart.yaml").read_text().splitlines()
              if x.startswith("# Same objects")]
    return shlex.split(line.split(": ", 1)[1])


def test_every_chart_gets_the_version_the_plan_rendered_the_stacks_charts_with():
    files = kubernetes_files([_chart("a", "urn:a"), _chart("b", "urn:b")], base_dir=".", kube_version="1.32")
    assert _kube_version(files, "a") == "1.32" and _kube_version(files, "b") == "1.32"  # one version per plan


def test_a_stack_whose_charts_were_not_rendered_says_the_version_is_not_recorded():
    [chart_file, _] = kubernetes_files([_chart("a", "urn:a")], base_dir=".")
    assert "--kube-version" not in chart_file.command
    assert any("recorded no Kubernetes version" in c for c in chart_file.comments)


@needs_helm
def test_a_chart_that_rendered_no_object_still_gets_the_version_it_was_rendered_with(capsys, tmp_path):
    root = project(tmp_path)
    ds = root / "charts" / "logship" / "templates" / "ds.yaml"
    ds.write_text("{{- if .Values.enabled }}\n" + TEMPLATE + "{{- end }}\n")  # off: the chart renders nothing
    assert plan_stack("ci", root).chart_kube_version == "1.33"
    out = tmp_path / "out"
    assert main(["render", "--stack", "ci", "--project-dir", str(root), "--out", str(out), "--fail-on", "none"]) == 0
    capsys.readouterr()
    argv = _command(out, "logship")
    assert argv[argv.index("--kube-version") + 1] == "1.33"


def test_a_render_where_helm_rendered_no_chart_writes_the_command_without_a_version_and_says_why(capsys, tmp_path):
    root = project(tmp_path)
    failing = tmp_path / "helm"
    failing.write_text("#!/bin/sh\necho 'Error: cannot render here' >&2\nexit 1\n")
    failing.chmod(0o755)
    out = tmp_path / "out"
    assert main(["render", "--stack", "ci", "--project-dir", str(root), "--out", str(out), "--fail-on", "none",
                 "--helm", str(failing)]) == 0
    capsys.readouterr()
    assert "--kube-version" not in _command(out, "logship")
    text = (out / "charts" / "logship" / "chart.yaml").read_text()
    assert "the plan rendered no chart of this stack (no helm, or no chart reachable offline), so it recorded no " \
           "Kubernetes version for the command below" in text
