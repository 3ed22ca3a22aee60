"""Every backend x device-plugin provider x {time-slicing, MPS, MIG single, MIG mixed}: either the config
is refused (or warned) naming its source, or the rendered node configuration produces the resources the
plan promises (the device-plugin config label and its document, the operator's layout label, the
Bottlerocket TOML settings, the GKE field) and the autoscaler is told exactly those resources (Cluster
Autoscaler tags from the same figures) or a warning says it cannot be (Karpenter). Never accepted with a
promise that nothing fulfils."""

from __future__ import annotations

import base64
import re
import tomllib

import pytest
import yaml

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.gpu_agents.capacity import autoscaler_resources, gke_accelerator_args
from gpu_node_pool.gpu_agents.gpu_operator.values import operator_values
from gpu_node_pool.gpu_agents.mig import bottlerocket_settings
from gpu_node_pool.gpu_agents.pools import agent_pool
from gpu_node_pool.gpu_agents.promise import pool_promise
from gpu_node_pool.gpu_agents.sharing_config import config_values
from gpu_node_pool.k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, NVIDIA_GPU_RESOURCE

PEM = b"-----BEGIN CERTIFICATE-----\nMIIBdummyCAfortests\n-----END CERTIFICATE-----\n"
EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
SELF = EKS | {"kubernetesVersion": "1.33", "apiServerEndpoint": "https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com",
              "certificateAuthority": base64.b64encode(PEM).decode(), "serviceCidr": "10.100.0.0/16"}
GKE = {"name": "c", "project": "my-project-1", "location": "us-central1"}
SCALE = {"minSize": 0, "maxSize": 2}

#: (row id, cluster, pool) - MIG-capable A100 hardware everywhere, so MIG is judged on what partitions it.
BACKENDS = {
    "eks-managed-al2023": (EKS, {"backend": "eks-managed", "instanceTypes": ["p4d.24xlarge"], "scaling": SCALE}),
    "eks-managed-bottlerocket": (EKS, {"backend": "eks-managed", "instanceTypes": ["p4d.24xlarge"], "scaling": SCALE,
                                       "amiType": "BOTTLEROCKET_x86_64_NVIDIA"}),
    "self-managed-al2023": (SELF, {"backend": "self-managed", "format": "al2023", "instanceTypes": ["p4d.24xlarge"],
                                   "scaling": SCALE, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"]}),
    "self-managed-bottlerocket": (SELF, {"backend": "self-managed", "format": "bottlerocket",
                                         "instanceTypes": ["p4d.24xlarge"], "scaling": SCALE,
                                         "securityGroupIds": ["sg-0a1b2c3d4e5f60718"]}),
    "karpenter": (EKS, {"backend": "karpenter", "instanceFamilies": ["p4d"], "nodeClass": {},
                        "limits": {"nvidia.com/gpu": 32}}),
    "eks-auto": (EKS, {"backend": "eks-auto", "instanceTypes": ["p4d.24xlarge"], "limits": {"nvidia.com/gpu": 16}}),
    "gke": (GKE, {"backend": "gke", "machineType": "a2-highgpu-1g", "accelerator": {"type": "nvidia-tesla-a100", "count": 1},
                  "autoscaling": SCALE}),
}
MODES = {
    "time-slicing": {"gpuSharing": {"strategy": "timeSlicing", "replicas": 4}},
    "mps": {"gpuSharing": {"strategy": "mps", "replicas": 2}},
    "mig-single": {"mig": {"strategy": "single", "profile": "1g.5gb"}},
    "mig-mixed": {"mig": {"strategy": "mixed", "profile": "1g.5gb"}},
}
PROVIDERS = ("nvidia-device-plugin", "gpu-operator")
#: A cited source: a URL, an owner/repo#issue, or a repository path or a named upstream document.
SOURCE = re.compile(r"https?://|[\w.-]+/[\w.-]+#\d+|\.(go|rs|yaml|md)\b|README|User Guide|values\.yaml|docs")


def _validate(backend: str, mode: str, provider: str):
    cluster, pool = BACKENDS[backend]
    raw = {"cluster": cluster, "pools": [{"name": "p"} | pool | MODES[mode]], "devicePlugin": {"provider": provider}}
    try:
        return validate_stack_config(raw), []
    except ConfigError as err:
        return None, [str(i) for i in err.issues]


def _bottlerocket_toml(stack) -> str:
    """The Bottlerocket TOML of the pool's nodes as the backend renders it (eks-managed: the launch template's
    user data, which EKS merges with its own; self-managed: the bootstrap's user-data.toml)."""
    pool = stack.pools[0]
    if pool.backend == "eks-managed":
        from gpu_node_pool.backends.eks_managed.launch_template import launch_template_args

        return base64.b64decode(launch_template_args(pool)["user_data"]).decode()
    from gpu_node_pool.backends.self_managed.render import bootstrap_files

    return bootstrap_files(pool, stack.cluster)["user-data.toml"]


def _fulfilled(stack, mode: str, provider: str) -> list[str]:
    """What is wrong with an accepted pool's promise (empty: the node config produces it and the autoscaler agrees)."""
    pool = stack.pools[0]
    promise = pool_promise(pool, provider)
    wrong: list[str] = []
    if promise["mechanism"] != mode:
        wrong.append(f"mechanism {promise['mechanism']} for {mode}")
    advertised = promise["advertised"]
    gke = gke_accelerator_args(pool)
    labels = pool.node_labels
    if mode.startswith("mig"):
        strategy, profile = pool.mig.strategy, pool.mig.profile
        want = {NVIDIA_GPU_RESOURCE if strategy == "single" else "nvidia.com/mig-1g.5gb": 7 * (agent_pool(pool).gpus_per_node or 0)}
        if advertised != want:
            wrong.append(f"advertised {advertised}, want {want}")
        if "gpu_partition_size" in gke:  # GKE partitions itself
            wrong += [] if gke["gpu_partition_size"] == profile else [f"gpu_partition_size {gke}"]
        elif bottlerocket_settings(pool):  # Bottlerocket's own MIG manager, from the TOML the nodes get
            nvidia = tomllib.loads(_bottlerocket_toml(stack))["settings"]["kubelet-device-plugins"]["nvidia"]
            if nvidia["device-partitioning-strategy"] != "mig" or strategy != "single" or nvidia["mig"]["profile"] != {
                    "a100.40gb": profile}:
                wrong.append(f"bottlerocket settings {nvidia}")
        else:  # the GPU Operator's MIG manager and the pool's own plugin config
            values = operator_values([agent_pool(p) for p in stack.pools])
            doc = yaml.safe_load(values["devicePlugin"]["config"]["data"].get(labels.get(DEVICE_PLUGIN_CONFIG_LABEL, ""), "{}"))
            if provider != "gpu-operator" or labels.get(MIG_CONFIG_LABEL) != "all-" + profile or doc.get("flags") != {
                    "migStrategy": strategy} or values["mig"] != {"strategy": ""}:
                wrong.append(f"operator path: labels {labels}, config {doc}")
    else:
        replicas = pool.gpu_sharing.replicas
        gpus = agent_pool(pool).gpus_per_node
        if gpus is None:  # the count is not known from the config (Karpenter families): only a warning may accept it
            if not any("kubernetes-sigs/karpenter#729" in str(w) for w in stack_warnings(stack)):
                wrong.append("count not known and no warning")
        elif advertised != {NVIDIA_GPU_RESOURCE: replicas * gpus}:
            wrong.append(f"advertised {advertised}")
        if "gpu_sharing_config" in gke:  # GKE's own plugin shares
            if gke["gpu_sharing_config"]["max_shared_clients_per_gpu"] != replicas:
                wrong.append(f"gke {gke}")
        elif bottlerocket_settings(pool):  # Bottlerocket's own plugin, from the TOML the nodes get
            nvidia = tomllib.loads(_bottlerocket_toml(stack))["settings"]["kubelet-device-plugins"]["nvidia"]
            name = {"timeSlicing": "time-slicing", "mps": "mps"}[pool.gpu_sharing.strategy]
            table = nvidia.get(name) or {}
            # renamed, the node would advertise nvidia.com/gpu.shared (k8s-device-plugin README, renameByDefault)
            if nvidia.get("device-sharing-strategy") != name or table.get("replicas") != replicas or table.get(
                    "rename-by-default") is not False:
                wrong.append(f"bottlerocket settings {nvidia}")
        else:  # NVIDIA's plugin: the node label selects a config of the chart that shares replicas times
            name = labels.get(DEVICE_PLUGIN_CONFIG_LABEL)
            docs = (operator_values([agent_pool(pool)])["devicePlugin"].get("config") or {}).get("data") if provider == "gpu-operator" \
                else config_values([(pool.gpu_sharing.strategy, replicas)])["map"]
            doc = yaml.safe_load((docs or {}).get(name or "", "{}"))
            shared = (doc.get("sharing") or {}).get(pool.gpu_sharing.strategy, {}).get("resources", [{}])[0]
            if shared.get("replicas") != replicas:
                wrong.append(f"device-plugin config {name!r}: {doc}")
    scaler = promise["autoscaler"]
    if scaler["name"] == "cluster-autoscaler":
        if autoscaler_resources(pool) != advertised or scaler["agrees"] is not True:
            wrong.append(f"autoscaler {scaler}")
    elif scaler["name"] == "karpenter":
        warned = [str(w) for w in stack_warnings(stack)]
        if scaler["agrees"] is not True and not any("kubernetes-sigs/karpenter#729" in w for w in warned):
            wrong.append(f"karpenter promise {scaler} without a warning")
    return wrong


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_each_combination_is_fulfilled_or_refused_naming_the_source(backend, mode, provider):
    stack, issues = _validate(backend, mode, provider)
    if stack is None:
        assert issues
        assert all(SOURCE.search(i) for i in issues), issues
        return
    assert _fulfilled(stack, mode, provider) == []


def test_the_matrix_accepts_what_the_partitioners_and_plugins_can_do():
    accepted = {(b, m, p) for b in BACKENDS for m in MODES for p in PROVIDERS if _validate(b, m, p)[0] is not None}
    # MIG: the operator on AL2023 (both strategies, per pool), Bottlerocket eks-managed and self-managed (single:
    # the component writes their TOML), GKE (single)
    assert ("eks-managed-al2023", "mig-mixed", "gpu-operator") in accepted
    assert ("eks-managed-al2023", "mig-single", "nvidia-device-plugin") not in accepted
    assert ("self-managed-bottlerocket", "mig-single", "nvidia-device-plugin") in accepted
    assert ("self-managed-bottlerocket", "mig-mixed", "gpu-operator") not in accepted
    for provider in PROVIDERS:
        assert ("eks-managed-bottlerocket", "mig-single", provider) in accepted
        assert ("eks-managed-bottlerocket", "mig-mixed", provider) not in accepted
    assert ("gke", "mig-single", "nvidia-device-plugin") in accepted and ("gke", "mig-mixed", "nvidia-device-plugin") not in accepted
    assert not any(b in ("karpenter", "eks-auto") and m.startswith("mig") for b, m, _ in accepted)
    assert ("eks-managed-al2023", "time-slicing", "nvidia-device-plugin") in accepted
    # sharing on Bottlerocket NVIDIA: the component writes the image's own settings (eks-managed and self-managed)
    for backend in ("eks-managed-bottlerocket", "self-managed-bottlerocket"):
        for mode in ("time-slicing", "mps"):
            assert all((backend, mode, p) in accepted for p in PROVIDERS)


def test_the_plan_text_says_the_gpu_tag_is_required_when_the_node_advertises_more_than_its_gpus(temp_project, capsys):
    # MIG single on p4d.24xlarge: 8 A100s advertise 56 nvidia.com/gpu; the tag must override CA's table (8)
    from gpu_node_pool.cli.commands import main

    text = (
        "config:\n  aws:region: us-west-2\n  gpu-node-pools:cluster:\n    name: ml-dev\n    kubernetesVersion: \"1.33\"\n"
        "    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node\n    subnetIds: [subnet-0a1b2c3d4e5f60718]\n"
        "  gpu-node-pools:pools:\n    - name: mig-one\n      backend: eks-managed\n      instanceTypes: [p4d.24xlarge]\n"
        "      scaling: {minSize: 0, maxSize: 2}\n      mig: {strategy: single, profile: 1g.5gb}\n"
        "  gpu-node-pools:devicePlugin:\n    provider: gpu-operator\n    namespace: gpu-operator\n"
    )
    project = temp_project("tmig", text)
    main(["plan", "--stack", "tmig", "--project-dir", str(project), "--fail-on", "none"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "nvidia.com/gpu tag" in ln)
    assert "required: the node advertises 56 nvidia.com/gpu" in line and "not needed" not in line
