"""gpupool render writes a chart's values as Helm renders them (its valueYamlFiles in order, then the inline values
over them), and a ``helm template`` command in chart.yaml that Helm runs as written and that gives the objects the
plan judged."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from programs import team_program, team_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.expand import locate_helm
from gpu_node_pool.plan.render import helm_template_command

HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or beside this Python (make setup installs it)")

PROGRAM = team_program("""\
k8s.helm.v4.Chart("logship", chart="./charts/log ship", namespace="logging",
                  value_yaml_files=[pulumi.FileAsset("base.yaml"), pulumi.FileAsset("prod.yaml")],
                  values={"image": {"pullPolicy": "Always"}, "mode": "daemonset"})""")
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
    team_project(root, PROGRAM, stack_text=STACK, main="app")
    (app / "charts" / "log ship" / "templates").mkdir(parents=True)
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


def test_the_command_names_only_the_flags_given_and_quotes_every_word():
    argv = helm_template_command("my app", "./charts/log ship", {"namespace": "logging"}, "values.yaml")
    assert argv == ("helm", "template", "my app", "./charts/log ship", "--namespace", "logging", "--include-crds",
                    "--no-hooks", "-f", "values.yaml")
    assert "None" not in shlex.join(argv)
    remote = {"version": "0.20.0", "repositoryOpts": {"repo": "https://nvidia.github.io/k8s-device-plugin"},
              "skipCrds": True, "includeHooks": True, "devel": True}
    # the judging's flags: hooks left out also with includeHooks, --devel only without a version
    assert helm_template_command("dp", "nvidia-device-plugin", remote, "values.yaml", "1.33") == (
        "helm", "template", "dp", "nvidia-device-plugin", "--repo", "https://nvidia.github.io/k8s-device-plugin",
        "--version", "0.20.0", "--namespace", "default", "--skip-crds", "--no-hooks", "--kube-version", "1.33",
        "-f", "values.yaml")
    assert "--devel" in helm_template_command("dp", "nvidia-device-plugin", {"devel": True}, "values.yaml")


def _helm(argv: list[str], cwd: Path) -> list[dict]:
    run = subprocess.run([str(HELM), *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    return [doc for doc in yaml.safe_load_all(run.stdout) if doc]


@needs_helm
def test_the_printed_command_runs_as_written_and_gives_the_objects_helm_renders_from_the_values_files(capsys, tmp_path):
    root = project(tmp_path)
    chart_dir = render(capsys, root, tmp_path / "rendered out")
    [line] = [x for x in (chart_dir / "chart.yaml").read_text().splitlines() if x.startswith("# Same objects")]
    command = line.split(": ", 1)[1]
    assert "None" not in command and "--repo" not in command and "--version" not in command
    argv = shlex.split(command)
    assert argv[:4] == ["helm", "template", "logship", "../../../my team/app/charts/log ship"]
    got = _helm(argv, chart_dir)
    # what the plan gave Helm: the values files in order, then the inline values (as JSON)
    (tmp_path / "inline.json").write_text('{"image": {"pullPolicy": "Always"}, "mode": "daemonset"}')
    judged = _helm(["helm", "template", "logship", "./charts/log ship", "--namespace", "logging", "--include-crds",
                    "--no-hooks", "-f", "base.yaml", "-f", "prod.yaml", "-f", str(tmp_path / "inline.json")],
                   root / "app")
    assert got == judged
    [ds] = got
    spec = ds["spec"]["template"]["spec"]
    assert spec["tolerations"] == MERGED["tolerations"] and spec["nodeSelector"] == {"kubernetes.io/os": "linux"}
    assert spec["containers"][0]["image"] == "fluent/fluent-bit:3.1" and ds["metadata"]["namespace"] == "logging"


@needs_helm
def test_a_hook_daemonset_is_not_judged_even_with_include_hooks_as_a_deploying_chart_never_registers_it(capsys, tmp_path):
    """Chart v4 registers no ``helm.sh/hook`` object when it deploys (pulumi/pulumi-kubernetes#4426: hooks only
    under renderYamlToDirectory), so a hook DaemonSet that tolerates nothing raises no finding, while the same
    DaemonSet without the hook annotation does."""
    import json

    root = tmp_path / "proj"
    program = team_program('k8s.helm.v4.Chart("agents", chart="./agents", namespace="monitoring", include_hooks=True)')
    team_project(root, program, stack_text=STACK)
    chart = root / "agents"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: agents\nversion: 0.1.0\n")
    for name, notes in (("hooked", "{helm.sh/hook: post-install}"), ("plain", "{}")):
        (chart / "templates" / f"{name}.yaml").write_text(
            f"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: {name}, annotations: {notes}}}\n"
            f"spec:\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            f"    spec: {{containers: [{{name: c, image: example.com/{name}:1}}]}}\n")
    code = main(["plan", "--stack", "ci", "--project-dir", str(root), "--json"])
    out = json.loads(capsys.readouterr().out)
    messages = " ".join(v["message"] for v in out["violations"])
    assert code == 1
    assert "monitoring/plain" in messages
    assert "hooked" not in messages and "hooked" not in json.dumps(out["resources"])
