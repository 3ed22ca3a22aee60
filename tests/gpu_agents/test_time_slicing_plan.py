"""Time-slicing end to end: a g6.xlarge pool with replicas 4 plans clean, its device-plugin
chart values carry the named timeSlicing config, its node label selects that config, and the self-managed Auto
Scaling group's Cluster Autoscaler template says nvidia.com/gpu = 4. The chart values are rendered with the real
chart (`helm template`) to show the ConfigMap holds the config the label names."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.backends.gke.render import node_pool_args
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.capacity import advertised_gpus, autoscaler_resources, gke_accelerator_args
from gpu_node_pool.k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, HELM_CHART_V4
from gpu_node_pool.plan import plan_stack
from gpu_node_pool.plan.expand import locate_helm

SHARED = Path(os.environ.get("GPU_NODE_POOLS_SHARED") or next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared"))
HELM = locate_helm()
CA = "k8s.io/cluster-autoscaler/node-template/"

STACK = """
config:
  aws:region: us-west-2
  gpu-node-pools:cluster:
    name: ml-dev
    kubernetesVersion: "1.33"
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
    apiServerEndpoint: https://ABCDEF.gr7.us-west-2.eks.amazonaws.com
    certificateAuthority: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=
    serviceCidr: 10.100.0.0/16
  gpu-node-pools:pools:
    - name: shared
      backend: self-managed
      format: al2023
      provider: aws
      instanceTypes: [g6.xlarge]
      securityGroupIds: [sg-0123456789abcdef0]
      scaling: {minSize: 0, maxSize: 4}
      taints: ["nvidia.com/gpu=true:NoSchedule"]
      gpuSharing: {strategy: timeSlicing, replicas: 4}
    - name: whole
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 2}
"""


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    project = tmp_path_factory.mktemp("proj")
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks").mkdir()
    (project / "stacks" / "Pulumi.ts.yaml").write_text(STACK)
    return plan_stack("ts", project)


def test_time_sliced_pool_plans_clean(planned):
    assert not planned.config_issues, planned.config_issues
    assert planned.violations == []
    assert planned.exit_code == 0


def test_chart_values_carry_the_named_time_slicing_config(planned):
    chart = next(r for r in planned.resources if r.type == HELM_CHART_V4 and r.inputs.get("chart") == "nvidia-device-plugin")
    config = chart.inputs["values"]["config"]
    assert config["default"] == "default"
    assert sorted(config["map"]) == ["default", "timeslicing-4"]
    assert yaml.safe_load(config["map"]["timeslicing-4"]) == {
        "version": "v1",
        "sharing": {"timeSlicing": {"renameByDefault": False, "resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}},
    }
    assert yaml.safe_load(config["map"]["default"]) == {"version": "v1"}


def test_node_label_selects_the_config_and_asg_template_says_4(planned):
    asg = next(r for r in planned.resources if r.type == "aws:autoscaling/group:Group")
    tags = {t["key"]: t["value"] for t in asg.inputs["tags"]}
    assert tags[CA + "resources/nvidia.com/gpu"] == "4"
    assert tags[CA + f"label/{DEVICE_PLUGIN_CONFIG_LABEL}"] == "timeslicing-4"
    template = next(r for r in planned.resources if r.type == "aws:ec2/launchTemplate:LaunchTemplate")
    user_data = base64.b64decode(template.inputs["userData"]).decode()
    assert f"{DEVICE_PLUGIN_CONFIG_LABEL}=timeslicing-4" in user_data.replace(": ", "=")
    # the pool without sharing keeps its plain labels (and so the chart's default config)
    ng = next(r for r in planned.resources if r.type == "aws:eks/nodeGroup:NodeGroup")
    assert DEVICE_PLUGIN_CONFIG_LABEL not in ng.inputs["labels"]


def test_capacity_functions():
    raw = {k.removeprefix("gpu-node-pools:"): v for k, v in yaml.safe_load(STACK)["config"].items() if k != "aws:region"}
    stack = validate_stack_config(raw)
    shared, whole = stack.pools
    assert advertised_gpus(shared) == 4 and advertised_gpus(whole) == 1
    assert autoscaler_resources(shared) == {"nvidia.com/gpu": 4}


def test_mixed_mig_autoscaler_resource_on_a100_80gb():
    stack = validate_stack_config({
        "cluster": {"name": "c", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
        "devicePlugin": {"provider": "gpu-operator"},
        "pools": [{"name": "m", "backend": "eks-managed", "instanceTypes": ["p4de.24xlarge"],
                   "scaling": {"minSize": 0, "maxSize": 2}, "mig": {"strategy": "mixed", "profile": "1g.10gb"}}],
    })
    # 7 instances of 1g.10gb per A100 80GB (NVIDIA MIG guide) x 8 GPUs
    assert autoscaler_resources(stack.pools[0]) == {"nvidia.com/mig-1g.10gb": 56}


def test_gke_pool_sharing_maps_to_gpu_sharing_config():
    stack = validate_stack_config({
        "cluster": {"name": "c", "project": "my-project-1", "location": "us-central1"},
        "pools": [{"name": "g", "backend": "gke", "machineType": "g2-standard-8", "accelerator": {"type": "nvidia-l4", "count": 1},
                   "autoscaling": {"minSize": 0, "maxSize": 2}, "gpuSharing": {"strategy": "mps", "replicas": 4}}],
    })
    (accel,) = node_pool_args(stack.pools[0], stack.cluster)["node_config"]["guest_accelerators"]
    assert accel["gpu_sharing_config"] == {"gpu_sharing_strategy": "MPS", "max_shared_clients_per_gpu": 4}
    assert gke_accelerator_args(stack.pools[0]) == {"gpu_sharing_config": accel["gpu_sharing_config"]}


def test_real_chart_renders_the_config_map_the_label_names(planned, tmp_path):
    chart_dir = SHARED / "charts" / "nvidia-device-plugin"
    if not chart_dir.is_dir() or HELM is None:
        pytest.skip(f"needs {chart_dir} and helm (tools/install_helm.py)")
    chart = next(r for r in planned.resources if r.type == HELM_CHART_V4 and r.inputs.get("chart") == "nvidia-device-plugin")
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump(chart.inputs["values"]))
    out = subprocess.run([HELM, "template", "nvdp", str(chart_dir), "-n", "nvidia-device-plugin", "-f", str(values)],
                         check=True, capture_output=True, text=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    (cm,) = [d for d in docs if d["kind"] == "ConfigMap" and "timeslicing-4" in (d.get("data") or {})]
    assert yaml.safe_load(cm["data"]["timeslicing-4"])["sharing"]["timeSlicing"]["resources"][0]["replicas"] == 4
    plugin = next(d for d in docs if d["kind"] == "DaemonSet" and d["metadata"]["name"].endswith("nvidia-device-plugin"))
    envs = {e["name"]: e.get("value") for c in plugin["spec"]["template"]["spec"]["containers"] for e in c.get("env", [])}
    assert envs.get("NODE_LABEL") == DEVICE_PLUGIN_CONFIG_LABEL and envs.get("DEFAULT_CONFIG") == "default"


def test_provider_gpu_operator_installs_the_operator_not_the_standalone_plugin(tmp_path):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "stacks").mkdir()
    text = STACK + "  gpu-node-pools:devicePlugin:\n    provider: gpu-operator\n"
    (tmp_path / "stacks" / "Pulumi.op.yaml").write_text(text)
    result = plan_stack("op", tmp_path)
    assert not result.config_issues
    charts = [r for r in result.resources if r.type == HELM_CHART_V4]
    assert [c.inputs["chart"] for c in charts] == ["gpu-operator"]
    assert charts[0].inputs["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    # the policies recognise the operator's plugin from the chart values: no "No NVIDIA device plugin" finding
    assert not [v for v in result.violations if v["enforcement"] == "mandatory"], result.violations
