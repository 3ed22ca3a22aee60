"""gpupool render: the Kubernetes objects a stack declares, written as YAML from the recorded plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from karpenter_crd import crd_errors

from gpu_node_pool.backends._shared.nodepool_detect import nodepool_taint_lists
from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan import UNKNOWN, Recorded, plan_stack
from gpu_node_pool.plan.render import HEADER_PREFIX, kubernetes_files, write_files

STACKS = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def render(capsys, out: Path, stack: str = "prod", project: Path = ROOT) -> tuple[int, str, str]:
    code = main(["render", "--stack", stack, "--out", str(out), "--project-dir", str(project)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def load(path: Path) -> object:
    return yaml.safe_load(path.read_text())


@pytest.fixture(scope="module")
def prod_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("render") / "prod"
    assert main(["render", "--stack", "prod", "--out", str(out), "--project-dir", str(ROOT)]) == 0
    return out


def test_prod_renders_the_nodepool_the_ec2nodeclass_and_the_device_plugin_chart(prod_out):
    files = sorted(str(p.relative_to(prod_out)) for p in prod_out.rglob("*.yaml"))
    assert "nodepool-inference-burst.yaml" in files
    assert "ec2nodeclass-inference-burst.yaml" in files
    assert "namespace-nvidia-device-plugin.yaml" in files
    assert "charts/nvidia-device-plugin-chart/chart.yaml" in files
    assert "charts/nvidia-device-plugin-chart/values.yaml" in files
    for path in prod_out.rglob("*.yaml"):
        if "bootstrap" in path.relative_to(prod_out).parts:
            continue  # node bootstrap files are written verbatim, as the node reads them
        assert path.read_text().startswith(HEADER_PREFIX + " --stack prod"), path


def test_every_rendered_nodepool_and_ec2nodeclass_passes_the_crd(prod_out):
    checked = 0
    for path in prod_out.glob("*.yaml"):
        obj = load(path)
        if obj.get("kind") in ("NodePool", "EC2NodeClass"):
            assert crd_errors(obj) == [], (path.name, crd_errors(obj))
            checked += 1
    assert checked == 2


def test_the_files_are_the_recorded_inputs_not_a_second_rendering(prod_out):
    result = plan_stack("prod", ROOT)
    by_name = {r.name: r for r in result.resources}
    nodepool = load(prod_out / "nodepool-inference-burst.yaml")
    assert nodepool == by_name["inference-burst-nodepool"].inputs
    assert load(prod_out / "ec2nodeclass-inference-burst.yaml") == by_name["inference-burst-ec2nodeclass"].inputs
    chart = by_name["nvidia-device-plugin-chart"].inputs
    assert load(prod_out / "charts/nvidia-device-plugin-chart/values.yaml") == chart["values"]
    reference = load(prod_out / "charts/nvidia-device-plugin-chart/chart.yaml")
    assert reference["chart"] == "nvidia-device-plugin"
    assert reference["version"] == "0.20.0"
    assert reference["repository"] == "https://nvidia.github.io/k8s-device-plugin"
    assert reference["namespace"] == "nvidia-device-plugin"
    pool = next(p for p in result.config.pools if p.name == "inference-burst")
    lists = nodepool_taint_lists(nodepool)
    assert lists.taints == pool.taint_list
    assert lists.startup_taints == pool.startup_taint_list


def test_the_device_plugin_values_tolerate_every_taint_of_the_nodepool(prod_out):
    from gpu_node_pool.gpu_agents.device_plugin.values import chart_tolerations
    from gpu_node_pool.k8s.taints import tolerations_tolerate_taint

    tolerations = chart_tolerations(load(prod_out / "charts/nvidia-device-plugin-chart/values.yaml"))
    for taint in nodepool_taint_lists(load(prod_out / "nodepool-inference-burst.yaml")).taints:
        assert tolerations_tolerate_taint(tolerations, taint), taint


def test_rendering_again_gives_the_same_bytes(capsys, prod_out, tmp_path):
    code, _, _ = render(capsys, tmp_path)
    assert code == 0
    for path in prod_out.rglob("*.yaml"):
        assert (tmp_path / path.relative_to(prod_out)).read_bytes() == path.read_bytes(), path


def test_stale_generated_files_are_removed_and_other_files_kept(capsys, tmp_path):
    # A render of the same stack listed these in its manifest (.gpupool-render.json); only such files go.
    assert render(capsys, tmp_path)[0] == 0
    (tmp_path / "nodepool-retired.yaml").write_text(f"{HEADER_PREFIX} --stack prod; do not edit.\nkind: NodePool\n")
    (tmp_path / "charts" / "old").mkdir(parents=True)
    (tmp_path / "charts" / "old" / "values.yaml").write_text(f"{HEADER_PREFIX} --stack prod; x\n{{}}\n")
    (tmp_path / "kustomization.yaml").write_text("resources: []\n")
    manifest = json.loads((tmp_path / ".gpupool-render.json").read_text())
    manifest["stacks"]["prod"]["files"].update({"nodepool-retired.yaml": "", "charts/old/values.yaml": ""})
    (tmp_path / ".gpupool-render.json").write_text(json.dumps(manifest))
    code, out, _ = render(capsys, tmp_path)
    assert code == 0
    assert not (tmp_path / "nodepool-retired.yaml").exists()
    assert not (tmp_path / "charts" / "old").exists()
    assert (tmp_path / "kustomization.yaml").read_text() == "resources: []\n"
    assert "removed" in out and "nodepool-retired.yaml" in out


def test_a_config_error_exits_2_and_writes_nothing(capsys, temp_project, tmp_path):
    project = temp_project(
        "bad",
        """config:
  gpu-node-pools:cluster: {name: ml-prod, nodeRoleArn: "arn:aws:iam::444455556666:role/ml-prod-gpu-node"}
  gpu-node-pools:pools:
    - name: burst
      backend: karpenter
      instanceFamilies: [g6e]
      labels: {karpenter.sh/team: x}
      nodeClass: {}
      limits: {nvidia.com/gpu: 8}
""",
    )
    out_dir = tmp_path / "out"
    code, _, err = render(capsys, out_dir, "bad", project)
    assert code == 2
    assert "pools[0].labels['karpenter.sh/team']: 'karpenter.sh/team' is in the karpenter.sh domain" in err
    assert "nothing was written" in err
    assert not out_dir.exists() or not any(out_dir.iterdir())


@pytest.mark.parametrize("stack", STACKS)
def test_every_shipped_stack_renders_and_its_karpenter_objects_pass_the_crd(capsys, tmp_path, stack):
    code, out, err = render(capsys, tmp_path, stack)
    assert code == 0, out + err
    for path in tmp_path.glob("*.yaml"):
        obj = load(path)
        if isinstance(obj, dict) and obj.get("kind") in ("NodePool", "EC2NodeClass"):
            assert crd_errors(obj) == [], (stack, path.name, crd_errors(obj))


def test_any_kubernetes_resource_is_written_generically(tmp_path):
    resources = [
        Recorded("pulumi:providers:kubernetes", "k8s", {"kubeconfig": "[secret]"}),
        Recorded("kubernetes:apps/v1:DaemonSet", "agent", {"metadata": {"name": "agent", "namespace": "kube-system"},
                                                            "spec": {"template": {}}}),
        Recorded("kubernetes:core/v1:ConfigMap", "cm", {"metadata": {"name": UNKNOWN}, "data": {"a": "b"}}),
        Recorded("kubernetes:yaml/v2:ConfigGroup", "extra", {"files": ["x.yaml"]}, custom=False),
        Recorded("aws:eks/nodeGroup:NodeGroup", "ng", {"taints": []}),
    ]
    files = {f.path: f for f in kubernetes_files(resources)}
    assert set(files) == {
        "daemonset-kube-system-agent.yaml",
        "configmap-cm.yaml",
        "components/yaml-v2-configgroup-extra.yaml",
    }
    assert files["daemonset-kube-system-agent.yaml"].document["apiVersion"] == "apps/v1"
    assert files["configmap-cm.yaml"].document["apiVersion"] == "v1"
    report = write_files(list(files.values()), tmp_path, "test")
    assert report.placeholders == [f"configmap-cm.yaml.metadata.name: {UNKNOWN}"]
    assert load(tmp_path / "daemonset-kube-system-agent.yaml")["kind"] == "DaemonSet"


def test_bare_metal_bootstrap_is_written_verbatim(tmp_path, capsys):
    from gpu_node_pool.cli.commands import main

    out = tmp_path / "onprem"
    assert main(["render", "--stack", "onprem", "--out", str(out), "--project-dir", str(ROOT)]) == 0
    flags = (out / "bootstrap" / "workstations" / "kubelet-flags.txt").read_text()
    assert flags.startswith("--register-with-taints=nvidia.com/gpu=present:NoSchedule ")
    join = (out / "bootstrap" / "dgx" / "join-configuration.yaml").read_text()
    assert join.startswith("apiVersion: kubeadm.k8s.io/v1beta4\n")
    # the synthesized stand-in for the chart's DaemonSet is never written: the chart renders it
    assert not list(out.glob("daemonset-*.yaml"))
