"""MIG accepted only where something on the node partitions, with autoscaler promises that match.

GPU Operator pools: the node label nvidia.com/mig.config=all-<profile> in the node group's and the
Auto Scaling group's inputs, and values the real gpu-operator chart renders into a ClusterPolicy
(skipped with the reason without helm or the chart). Bottlerocket: its MIG settings in the self-managed
TOML, refusals elsewhere. Per-pool MIG strategies through named device-plugin configs. Karpenter: warning on sharing, error on MIG.
"""

from __future__ import annotations

import base64
import os
import subprocess
import tomllib

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.backends._shared.cluster_autoscaler import CA_LABEL_PREFIX, CA_RESOURCE_PREFIX, ca_node_template_tags
from gpu_node_pool.backends.eks_managed.render import node_group_args
from gpu_node_pool.backends.self_managed import render as ec2
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.gpu_agents.capacity import autoscaler_resources
from gpu_node_pool.gpu_agents.gpu_operator.values import operator_values
from gpu_node_pool.gpu_agents.mig_partitioners import OPERATOR_DEFAULT_LAYOUTS
from gpu_node_pool.gpu_agents.pools import agent_pool
from gpu_node_pool.k8s.wellknown import MIG_CONFIG_LABEL, NVIDIA_GPU_RESOURCE
from gpu_node_pool.plan.expand import locate_helm

SHARED = next((p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if p.is_dir()), ROOT.parent / "shared")
CHART = SHARED / "charts" / "gpu-operator"
HELM = locate_helm()
EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
PEM = b"-----BEGIN CERTIFICATE-----\nMIIBdummyCAfortests\n-----END CERTIFICATE-----\n"
SELF = EKS | {"kubernetesVersion": "1.33", "apiServerEndpoint": "https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com",
              "certificateAuthority": base64.b64encode(PEM).decode(), "serviceCidr": "10.100.0.0/16"}
OPERATOR = {"provider": "gpu-operator"}


def eks_pool(name="a100", types=("p4d.24xlarge",), **extra):
    return {"name": name, "backend": "eks-managed", "instanceTypes": list(types),
            "scaling": {"minSize": 0, "maxSize": 2}} | extra


def self_pool(**extra):
    return {"name": "br", "backend": "self-managed", "format": "bottlerocket", "instanceTypes": ["p4d.24xlarge"],
            "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"]} | extra


def karpenter_pool(**extra):
    return {"name": "burst", "backend": "karpenter", "instanceFamilies": ["p4d"], "nodeClass": {},
            "limits": {"nvidia.com/gpu": 32}} | extra


def stack(pools, cluster=EKS, plugin=None):
    raw = {"cluster": cluster, "pools": pools}
    if plugin:
        raw["devicePlugin"] = plugin
    return validate_stack_config(raw)


def errors(pools, cluster=EKS, plugin=None) -> list[str]:
    with pytest.raises(ConfigError) as err:
        stack(pools, cluster, plugin)
    return [str(i) for i in err.value.issues]


def helm_template(values, tmp_path):
    if HELM is None or not CHART.is_dir():
        pytest.skip(f"needs helm (tools/install_helm.py) and the gpu-operator chart at {CHART}")
    f = tmp_path / "values.yaml"
    f.write_text(yaml.safe_dump(values))
    out = subprocess.run([HELM, "template", "gpu-operator", str(CHART), "-n", "gpu-operator", "-f", str(f)], check=True,
                         capture_output=True, text=True, env={**os.environ, "HELM_CACHE_HOME": str(tmp_path)}).stdout
    (cp,) = [d for d in yaml.safe_load_all(out) if d and d["kind"] == "ClusterPolicy"]
    return cp["spec"]


# --- 1. the GPU Operator's MIG manager -------------------------------------------------------------


def test_operator_pool_labels_its_nodes_with_the_layout_and_the_chart_accepts_the_values(tmp_path):
    s = stack([eks_pool(mig={"strategy": "single", "profile": "1g.10gb"})], plugin=OPERATOR)
    pool = s.pools[0]
    args = node_group_args(pool, s.cluster)
    assert args["labels"][MIG_CONFIG_LABEL] == "all-1g.10gb" and "all-1g.10gb" in OPERATOR_DEFAULT_LAYOUTS
    # the Auto Scaling group tags promise the same label and the MIG devices single exposes as nvidia.com/gpu:
    # p4d.24xlarge = 8 x A100 40GB, 1g.10gb = 4 per GPU (NVIDIA MIG User Guide)
    resources = {k: str(v) for k, v in autoscaler_resources(pool).items()}
    tags = ca_node_template_tags(pool.taint_list, pool.node_labels, resources)
    assert tags[CA_LABEL_PREFIX + MIG_CONFIG_LABEL] == "all-1g.10gb"
    assert tags[CA_RESOURCE_PREFIX + NVIDIA_GPU_RESOURCE] == "32"
    spec = helm_template(operator_values([agent_pool(p) for p in s.pools]), tmp_path)
    assert spec["migManager"]["enabled"] is True and "strategy" not in (spec.get("mig") or {})
    # the MIG manager's default stays all-disabled: only the labelled pool is partitioned
    assert spec["migManager"]["config"]["default"] == "all-disabled"


def test_plus_profiles_use_the_dotted_layout_name():
    s = stack([eks_pool(types=["p4de.24xlarge"], mig={"strategy": "mixed", "profile": "1g.10gb+me"})], plugin=OPERATOR)
    assert s.pools[0].node_labels[MIG_CONFIG_LABEL] == "all-1g.10gb.me"
    assert autoscaler_resources(s.pools[0]) == {"nvidia.com/mig-1g.10gb.me": 8}


def test_profile_without_a_default_layout_is_refused_naming_the_layouts():
    # H100 (p5): no layout all-1g.11gb; the message offers the layouts of the pool's own GPU, not every GPU's
    issues = errors([eks_pool(types=["p5.48xlarge"], mig={"strategy": "single", "profile": "1g.11gb"})], plugin=OPERATOR)
    (issue,) = [i for i in issues if "has no layout" in i]
    assert issue.startswith("pools[0].mig.profile:") and "'all-1g.11gb'" in issue and "default-mig-parted-config" in issue
    offered = issue.split("on this GPU (H100-80GB): ")[1].split(", ")
    assert offered == ["all-1g.10gb", "all-1g.10gb.me", "all-1g.20gb", "all-2g.20gb", "all-3g.40gb", "all-4g.40gb",
                       "all-7g.80gb"]


def test_user_set_mig_config_label_is_refused():
    issues = errors([eks_pool(labels={MIG_CONFIG_LABEL: "all-balanced"}, mig={"strategy": "single", "profile": "1g.10gb"})],
                    plugin=OPERATOR)
    assert any(MIG_CONFIG_LABEL in i and "remove it" in i for i in issues)


def test_pool_without_mig_gets_no_layout_label():
    assert MIG_CONFIG_LABEL not in stack([eks_pool()], plugin=OPERATOR).pools[0].node_labels


# --- 2. standalone plugin and Bottlerocket ---------------------------------------------------------


def test_standalone_plugin_with_mig_on_al2023_is_refused_with_the_fix():
    (issue,) = errors([eks_pool(mig={"strategy": "single", "profile": "1g.10gb"})])
    assert issue.startswith("pools[0].mig:") and "nothing partitions" in issue and "devicePlugin.provider: gpu-operator" in issue


def test_bottlerocket_mixed_is_refused_with_the_source():
    issues = errors([self_pool(mig={"strategy": "mixed", "profile": "1g.10gb"})], cluster=SELF)
    assert any("bottlerocket-os/bottlerocket#4483" in i and "use strategy: single" in i for i in issues)


def test_eks_managed_bottlerocket_single_writes_the_mig_settings_into_its_launch_template_toml():
    import base64

    from gpu_node_pool.backends.eks_managed.launch_template import launch_template_args

    pool = stack([eks_pool(amiType="BOTTLEROCKET_x86_64_NVIDIA", mig={"strategy": "single", "profile": "1g.10gb"})],
                 plugin=OPERATOR).pools[0]
    assert pool.writes_bottlerocket_settings
    settings = tomllib.loads(base64.b64decode(launch_template_args(pool)["user_data"]).decode())["settings"]
    assert settings == {"kubelet-device-plugins": {"nvidia": {
        "device-partitioning-strategy": "mig", "mig": {"profile": {"a100.40gb": "1g.10gb"}}}}}


def test_a_backend_that_writes_no_bottlerocket_settings_is_refused_naming_those_that_do():
    from gpu_node_pool.gpu_agents.mig_partitioners import bottlerocket_problem

    why = bottlerocket_problem("single", "1g.10gb", "A100-80GB", writes_settings=False)
    assert "writes no Bottlerocket settings" in why and "format: bottlerocket" in why and "BOTTLEROCKET_* amiType" in why


def test_self_managed_bottlerocket_single_writes_the_mig_settings_into_the_node_toml():
    s = stack([self_pool(mig={"strategy": "single", "profile": "1g.10gb"})], cluster=SELF)
    pool = s.pools[0]
    (text,) = ec2.bootstrap_files(pool, s.cluster).values()
    settings = tomllib.loads(text)["settings"]
    nvidia = settings["kubelet-device-plugins"]["nvidia"]
    assert nvidia == {"device-partitioning-strategy": "mig", "mig": {"profile": {"a100.40gb": "1g.10gb"}}}
    assert settings["kubernetes"]["cluster-name"] == "ml"  # the registration is still there
    assert MIG_CONFIG_LABEL not in pool.node_labels  # Bottlerocket's own MIG manager, not the operator's
    tags = ec2.ca_tags(pool, s.cluster)
    assert tags[CA_RESOURCE_PREFIX + NVIDIA_GPU_RESOURCE] == "32"  # single: 8 GPUs x 4 x 1g.10gb


def test_bottlerocket_profile_outside_its_table_is_refused():
    # 4g.20gb is an A100 40GB profile, but Bottlerocket's MIG manager would silently leave the GPU whole
    issues = errors([self_pool(mig={"strategy": "single", "profile": "4g.20gb"})], cluster=SELF)
    assert any("'4g.20gb' is not a profile Bottlerocket" in i and "mig_profile.rs" in i for i in issues)


# --- 3. per-pool MIG strategies --------------------------------------------------------------------


def helm_objects(values, tmp_path):
    if HELM is None or not CHART.is_dir():
        pytest.skip(f"needs helm (tools/install_helm.py) and the gpu-operator chart at {CHART}")
    f = tmp_path / "values.yaml"
    f.write_text(yaml.safe_dump(values))
    out = subprocess.run([HELM, "template", "gpu-operator", str(CHART), "-n", "gpu-operator", "-f", str(f)], check=True,
                         capture_output=True, text=True, env={**os.environ, "HELM_CACHE_HOME": str(tmp_path)}).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def advertised_by_plugin(config_doc: dict, profile: str) -> str:
    """What NVIDIA's device plugin names a node's MIG devices under a config file (k8s-device-plugin
    internal/rm/rm.go: single -> nvidia.com/gpu, mixed -> nvidia.com/mig-<profile>, none -> whole GPUs)."""
    strategy = (config_doc.get("flags") or {}).get("migStrategy", "none")
    return {"single": NVIDIA_GPU_RESOURCE, "mixed": "nvidia.com/mig-" + profile.replace("+", ".")}.get(strategy, "whole GPUs")


def test_a_single_and_a_mixed_pool_in_one_stack_each_advertise_what_their_tag_promises(tmp_path):
    s = stack([eks_pool(mig={"strategy": "single", "profile": "1g.10gb"}),
               eks_pool("b", types=["p4de.24xlarge"], mig={"strategy": "mixed", "profile": "3g.40gb"})], plugin=OPERATOR)
    objects = helm_objects(operator_values([agent_pool(p) for p in s.pools]), tmp_path)
    (spec,) = [o["spec"] for o in objects if o["kind"] == "ClusterPolicy"]
    # no cluster-wide strategy: the operator then sets no MIG_STRATEGY and the node's config file decides
    assert "strategy" not in (spec.get("mig") or {})
    assert spec["devicePlugin"]["config"]["name"] == "device-plugin-config"
    (cm,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "device-plugin-config"]
    expected = [{NVIDIA_GPU_RESOURCE: 32}, {"nvidia.com/mig-3g.40gb": 16}]
    for pool, want in zip(s.pools, expected, strict=True):
        selected = yaml.safe_load(cm["data"][pool.node_labels["nvidia.com/device-plugin.config"]])
        assert advertised_by_plugin(selected, pool.mig.profile) == next(iter(want))
        resources = autoscaler_resources(pool)
        assert resources == want
        tags = ca_node_template_tags(pool.taint_list, pool.node_labels, {k: str(v) for k, v in resources.items()})
        assert {k[len(CA_RESOURCE_PREFIX):]: v for k, v in tags.items() if k.startswith(CA_RESOURCE_PREFIX)} == {
            k: str(v) for k, v in want.items()}
        # the node group's own labels select the same config and layout the tags announce
        labels = node_group_args(pool, s.cluster)["labels"]
        assert labels["nvidia.com/device-plugin.config"] == tags[CA_LABEL_PREFIX + "nvidia.com/device-plugin.config"]
        assert labels[MIG_CONFIG_LABEL] == "all-" + pool.mig.profile
    # nodes of other pools get the default config: whole GPUs, never a MIG strategy they did not ask for
    assert yaml.safe_load(cm["data"]["default"])["flags"] == {"migStrategy": "none"}


def test_device_plugin_config_label_is_reserved_on_a_mig_pool():
    issues = errors([eks_pool(labels={"nvidia.com/device-plugin.config": "x"}, mig={"strategy": "single", "profile": "1g.10gb"})],
                    plugin=OPERATOR)
    assert any("nvidia.com/device-plugin.config" in i and "mig-single" in i for i in issues)


# --- 4. Karpenter and EKS Auto Mode ----------------------------------------------------------------


def test_karpenter_with_mig_is_refused_citing_the_issues():
    issues = errors([karpenter_pool(mig={"strategy": "single", "profile": "1g.10gb"})], plugin=OPERATOR)
    (issue,) = [i for i in issues if i.startswith("pools[0].mig:")]
    assert "kubernetes-sigs/karpenter#729" in issue and "aws/karpenter-provider-aws#3376" in issue
    assert "NodeOverlay" in issue


def test_karpenter_with_time_slicing_is_accepted_with_a_warning_in_the_config_warnings():
    s = stack([karpenter_pool(instanceFamilies=["g6"], gpuSharing={"strategy": "timeSlicing", "replicas": 4})])
    (warning,) = [w for w in stack_warnings(s) if w.path == "pools[0].gpuSharing"]
    assert "kubernetes-sigs/karpenter#729" in str(warning) and "never triggers a node" in str(warning)


def test_eks_auto_refuses_mig_in_its_pool_model():
    pool = {"name": "auto", "backend": "eks-auto", "mig": {"strategy": "single", "profile": "1g.10gb"}}
    issues = errors([pool], cluster={"name": "ml"})
    assert any("EKS Auto Mode" in i and "mig" in i for i in issues)
