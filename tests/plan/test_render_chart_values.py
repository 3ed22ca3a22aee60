"""gpupool render writes a chart's values as Helm renders them: its valueYamlFiles in order, then the inline values
over them."""

from __future__ import annotations

from pathlib import Path

import yaml

from gpu_node_pool.cli.commands import main

PROGRAM = """\
import pulumi
import pulumi_kubernetes as k8s

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs

cluster = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
gpu = GpuNodePool("gpu", GpuNodePoolArgs(cluster=cluster, pool={
    "name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
    "taints": ["nvidia.com/gpu=present:NoSchedule"]}))
NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs("ml", [gpu.spec]))
k8s.helm.v4.Chart("logship", chart="./charts/log ship", namespace="logging",
                  value_yaml_files=[pulumi.FileAsset("base.yaml"), pulumi.FileAsset("prod.yaml")],
                  values={"image": {"pullPolicy": "Always"}, "mode": "daemonset"})
"""
TEMPLATE = """\
{{- if eq (toString .Values.mode) "daemonset" }}
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: '{{ .Release.Name }}', namespace: '{{ .Release.Namespace }}'}
spec:
  selector: {matchLabels: {app: logship}}
  template:
    metadata: {labels: {app: logship}}
    spec:
      containers:
      - name: fb
        image: '{{ .Values.image.repository }}:{{ .Values.image.tag }}'
        imagePullPolicy: '{{ .Values.image.pullPolicy }}'
      tolerations: {{- toYaml .Values.tolerations | nindent 8 }}
      nodeSelector: {{- toYaml .Values.nodeSelector | nindent 8 }}
{{- end }}
"""
BASE = """\
image: {repository: fluent/fluent-bit, tag: "3.0", pullPolicy: IfNotPresent}
tolerations:
- {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
nodeSelector: {kubernetes.io/os: linux, example.com/tier: gpu}
mode: "off"
"""
PROD = """\
image: {tag: "3.1"}
nodeSelector: {example.com/tier: null}
"""
STACK = """\
config:
  gpu-node-pools:cluster:
    name: ml
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-nodes
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
  - {name: gpu, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 0, maxSize: 2},
     taints: ["nvidia.com/gpu=present:NoSchedule"]}
"""
#: Helm's merge of BASE, PROD and the inline values, in that order (maps merged key by key, the rest replaced).
MERGED = {
    "image": {"repository": "fluent/fluent-bit", "tag": "3.1", "pullPolicy": "Always"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "nodeSelector": {"kubernetes.io/os": "linux", "example.com/tier": None},
    "mode": "daemonset",
}


def project(tmp_path: Path) -> Path:
    """A project whose program is in ``app/`` (Pulumi.yaml ``main``), where its relative paths are read from; the
    directory names hold spaces, which the printed command must quote."""
    root = tmp_path / "my team"
    app = root / "app"
    (app / "charts" / "log ship" / "templates").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: team-gpu\nruntime:\n  name: python\nmain: app\n")
    (root / "Pulumi.ci.yaml").write_text(STACK)
    (app / "__main__.py").write_text(PROGRAM)
    (app / "base.yaml").write_text(BASE)
    (app / "prod.yaml").write_text(PROD)
    chart = app / "charts" / "log ship"
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: logship\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("mode: 'off'\nnodeSelector: {example.com/tier: cpu}\ntolerations: []\n")
    (chart / "templates" / "ds.yaml").write_text(TEMPLATE)
    return root


def render(capsys, root: Path, out: Path) -> Path:
    code = main(["render", "--stack", "ci", "--project-dir", str(root), "--out", str(out), "--fail-on", "none"])
    assert code == 0, capsys.readouterr()
    capsys.readouterr()
    return out / "charts" / "logship"


def test_render_writes_the_values_files_merged_under_the_inline_values(capsys, tmp_path):
    chart_dir = render(capsys, project(tmp_path), tmp_path / "out")
    values = yaml.safe_load((chart_dir / "values.yaml").read_text())
    assert values == MERGED
