"""The coverage policies end to end: the GPU Operator as the device-plugin provider (covering and
missing the pool taint), a GKE INSTALLATION_DISABLED pool without a driver installer, the NFD worker trap."""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, GPU_LABELS, daemonset, node_group, run

from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

TRUE_TAINT = "nvidia.com/gpu=true:NoSchedule"
DEDICATED = "dedicated=gpu:NoSchedule"


def operator(tolerations=None, kind="kubernetes:helm.sh/v3:Release", **values):
    vals = {"driver": {"enabled": False}, **values}
    if tolerations is not None:
        vals["daemonsets"] = {"tolerations": tolerations}
    return StackResource(kind, "gpu-operator", {"chart": "gpu-operator", "namespace": "gpu-operator", "values": vals})


@pytest.mark.parametrize("kind", ["kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart"])
def test_gpu_operator_tolerating_the_pool_taint_gives_no_finding(kind):
    stack = [node_group(), operator([EXISTS_GPU], kind=kind)]
    assert run(d.device_plugin_covers_gpu_pools.POLICY, stack) == []
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, stack) == []


def test_gpu_operator_missing_the_pool_taint_names_the_operator_and_the_taint():
    stack = [node_group(taints=(DEDICATED,)), operator([EXISTS_GPU])]
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert found["enforcement"] == "mandatory"
    assert "GPU Operator chart gpu-operator 'gpu-operator'" in found["message"]
    assert "dedicated=gpu:NoSchedule" in found["message"]
    assert "No NVIDIA device plugin in this stack" not in found["message"]


def test_gpu_operator_defaults_and_rendered_cluster_policy():
    # chart default daemonsets.tolerations: nvidia.com/gpu Exists NoSchedule
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(taints=(TRUE_TAINT,)), operator()]) == []
    policy = StackResource("kubernetes:nvidia.com/v1:ClusterPolicy", "cluster-policy", {
        "spec": {"daemonsets": {"tolerations": [EXISTS_GPU]}, "devicePlugin": {"enabled": True}}})
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(taints=(DEDICATED,)), policy])
    assert "ClusterPolicy 'cluster-policy'" in found["message"] and "dedicated=gpu" in found["message"]
    off = operator([EXISTS_GPU], devicePlugin={"enabled": False})
    (none,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), off])
    assert "No NVIDIA device plugin in this stack" in none["message"]


def test_an_empty_daemonsets_tolerations_leaves_the_operands_their_own_gpu_toleration():
    """The chart writes ``daemonsets.tolerations`` into the ClusterPolicy only when non-empty, and the operator
    replaces an operand's tolerations only with a non-empty list (NVIDIA/gpu-operator@v26.7.0
    ``templates/clusterpolicy.yaml``, ``controllers/object_controls.go``): ``[]`` keeps the assets' own
    ``nvidia.com/gpu`` ``Exists`` ``NoSchedule``, as an absent key does."""
    stack = [node_group(taints=(TRUE_TAINT,)), operator([])]
    assert run(d.device_plugin_covers_gpu_pools.POLICY, stack) == []
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, stack) == []
    # an operand the empty list leaves to its default still misses a taint the default does not cover
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(taints=(DEDICATED,)), operator([])])
    assert "dedicated=gpu:NoSchedule" in found["message"]


def gke_pool(driver="INSTALLATION_DISABLED", labels=None):
    labels = {**GPU_LABELS, "gke-no-default-nvidia-gpu-device-plugin": "true"} if labels is None else labels
    return StackResource("gcp:container/nodePool:NodePool", "gke-gpu", {
        "nodeConfig": {"machineType": "g2-standard-8", "labels": labels,
                       "guestAccelerators": [{"type": "nvidia-l4", "count": 1,
                                              "gpuDriverInstallationConfig": {"gpuDriverVersion": driver}}],
                       "taints": [Taint.parse("nvidia.com/gpu=present:NoSchedule").to_provider()]}},
        urn="urn:pulumi:s::p::gcp:container/nodePool:NodePool::gke-gpu")


GKE_INSTALLER = daemonset("nvidia-driver-installer", "kube-system", tolerations=[{"operator": "Exists"}],
                          image="cos-nvidia-installer:fixed", affinity={"nodeAffinity": {
                              "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                                  {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"},
                                  {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "DoesNotExist"}]}]}}})


def test_gke_installation_disabled_without_installer_names_the_driver_installer():
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [gke_pool()])
    assert found["enforcement"] == "mandatory"
    assert found["message"].startswith("No NVIDIA driver installer covers GPU pool 'gke-gpu'")
    assert "nvidia-driver-installer" in found["message"]


def test_gke_installer_or_operator_driver_covers_the_pool():
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [gke_pool(), GKE_INSTALLER]) == []
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [gke_pool(), operator([EXISTS_GPU], driver={"enabled": True})]) == []
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [gke_pool(driver="LATEST", labels=dict(GPU_LABELS))]) == []


def test_an_installer_that_does_not_tolerate_the_taint_is_named():
    own = daemonset("my-driver", "kube-system", tolerations=[], image="nvcr.io/nvidia/driver:550")
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [gke_pool(), own])
    assert "driver installer DaemonSet kube-system/my-driver" in found["message"]
    assert "nvidia.com/gpu=present:NoSchedule" in found["message"]


def test_standalone_gfd_nfd_worker_equal_present_trap():
    release = StackResource("kubernetes:helm.sh/v3:Release", "nvdp", {
        "chart": "nvidia-device-plugin", "namespace": "nvidia-device-plugin", "values": {"gfd": {"enabled": True}}})
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(taints=(TRUE_TAINT,)), release])
    assert "NFD worker of chart nvidia-device-plugin" in found["message"] and TRUE_TAINT in found["message"]
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(), release]) == []  # value present: tolerated
    release.inputs["values"]["nfd"] = {"worker": {"tolerations": [EXISTS_GPU]}}
    assert run(d.gpu_agents_cover_gpu_pools.POLICY, [node_group(taints=(TRUE_TAINT,)), release]) == []


def test_a_device_plugin_chart_whose_image_is_not_a_map_is_reported_not_a_crash():
    """values.image as "repo:tag" (an easy mistake): the chart's template reads image.repository, so
    helm template fails and no plugin runs; the finding says why instead of an internal error."""
    from gpu_node_pool.gpu_agents.device_plugin.chart import chart_daemonset
    from gpu_node_pool.policies import StackResource, evaluate

    with pytest.raises(ValueError, match=r"values.image is 'nvcr.io/nvidia/k8s-device-plugin:v0.17.0', not a map"):
        chart_daemonset({"image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}, "nvidia-device-plugin")
    group = StackResource("aws:eks/nodeGroup:NodeGroup", "gpu", {
        "instanceTypes": ["g6.xlarge"], "amiType": "AL2023_x86_64_NVIDIA", "scalingConfig": {"minSize": 1, "maxSize": 2},
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]})
    for image in ("nvcr.io/nvidia/k8s-device-plugin:v0.17.0", 3, ["a"]):
        chart = StackResource("kubernetes:helm.sh/v4:Chart", "nvidia-device-plugin", {
            "chart": "nvidia-device-plugin", "namespace": "nvidia-device-plugin", "values": {"image": image}})
        (found,) = [f for f in evaluate([group, chart]) if f["policy"] == "device-plugin-covers-gpu-pools"]
        assert "values.image" in found["message"] and "not a map" in found["message"]


MIG_LABELS = {**GPU_LABELS, "nvidia.com/mig.config": "all-1g.10gb", "nvidia.com/device-plugin.config": "mig-single"}


def mig_pool(taints=(DEDICATED,)):
    return node_group(taints=taints, labels=MIG_LABELS, types=("p5.48xlarge",))


def test_a_mig_pool_with_no_mig_manager_names_the_layout_and_the_fix():
    plugin = daemonset("nvidia-device-plugin", tolerations=[{"operator": "Exists"}], image="nvcr.io/nvidia/k8s-device-plugin:v0.20.0")
    (found,) = run(d.gpu_agents_cover_gpu_pools.POLICY, [mig_pool(), plugin])
    assert found["enforcement"] == "mandatory"
    assert found["message"].startswith("No MIG manager covers GPU pool 'gpu'")
    assert "'all-1g.10gb' (nvidia.com/mig.config)" in found["message"]
    assert "gpu-operator-mig.html" in found["message"] and "migManager.enabled" in found["message"]


def mig_findings(stack):
    return [f for f in run(d.gpu_agents_cover_gpu_pools.POLICY, stack) if "MIG manager" in f["message"]]


def test_the_operator_mig_manager_covers_a_mig_pool_unless_disabled_or_short_of_a_taint():
    covering = operator([EXISTS_GPU, {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}])
    assert mig_findings([mig_pool(), covering]) == []
    off = operator([EXISTS_GPU, {"key": "dedicated", "operator": "Exists"}], migManager={"enabled": False})
    (found,) = mig_findings([mig_pool(), off])
    assert found["message"].startswith("No MIG manager covers")
    (short,) = mig_findings([mig_pool(), operator([EXISTS_GPU])])
    assert "The MIG managers found do not reach it: the MIG manager of the GPU Operator" in short["message"]
    assert "dedicated=gpu:NoSchedule" in short["message"]


def test_a_mig_manager_daemonset_by_image_covers_the_pool_and_pools_without_the_label_need_none():
    manager = daemonset("nvidia-mig-manager", "gpu-operator", tolerations=[{"operator": "Exists"}],
                        image="nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.12.1-ubuntu20.04")
    assert mig_findings([mig_pool(), manager]) == []
    assert mig_findings([node_group(taints=(DEDICATED,))]) == []
