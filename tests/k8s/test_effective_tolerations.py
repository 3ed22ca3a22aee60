"""effective_tolerations (taints.py) and the node-selection matching moved to selection.py."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.selection import selection_matches
from gpu_node_pool.k8s.taints import (
    DAEMONSET_CONTROLLER_TOLERATIONS,
    Taint,
    TaintEffect,
    TaintError,
    Toleration,
    effective_tolerations,
    is_extended_resource_name,
    tolerations_tolerate_taint,
)

GPU = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)


def vllm(tolerations=None, host_network=False):
    spec = {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.9.1",
                            "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": "4"}}}],
            "tolerations": tolerations or []}
    if host_network:
        spec["hostNetwork"] = True
    return spec


def test_a_gpu_request_tolerates_the_gpu_taint_on_eks_and_gke_whatever_its_own_tolerations_say():
    wrong = [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    for platform in ("eks", "gke"):
        assert tolerations_tolerate_taint(effective_tolerations(vllm(wrong), platform, "Deployment"), GPU)


def test_self_managed_adds_the_admission_toleration_only_when_the_plugin_is_enabled():
    assert not tolerations_tolerate_taint(effective_tolerations(vllm(), "self-managed", "Pod"), GPU)
    assert not tolerations_tolerate_taint(effective_tolerations(vllm(), "kubeadm", "Pod"), GPU)
    on = effective_tolerations(vllm(), "self-managed", "Pod", admission_plugins=["NodeRestriction", "ExtendedResourceToleration"])
    assert tolerations_tolerate_taint(on, GPU)


def test_a_pod_that_requests_no_gpu_gets_nothing_from_admission():
    spec = {"containers": [{"name": "helper", "resources": {"requests": {"cpu": "100m"}}}]}
    assert effective_tolerations(spec, "gke", "Pod") == []


def test_init_containers_count_and_native_resources_do_not():
    spec = {"initContainers": [{"name": "i", "resources": {"requests": {"example.com/fpga": "1"}}}],
            "containers": [{"name": "c", "resources": {"limits": {"hugepages-2Mi": "1Gi", "kubernetes.io/foo": "1"}}}]}
    assert [t.key for t in effective_tolerations(spec, "eks", "Pod")] == ["example.com/fpga"]
    assert not is_extended_resource_name("cpu") and not is_extended_resource_name("requests.nvidia.com/gpu")


def test_daemonset_pods_get_the_controller_tolerations_and_network_unavailable_only_with_host_network():
    plain = effective_tolerations({"containers": []}, "eks", "DaemonSet")
    assert plain == list(DAEMONSET_CONTROLLER_TOLERATIONS)
    keys = {t.key for t in effective_tolerations({"hostNetwork": True}, "eks", "DaemonSet")}
    assert "node.kubernetes.io/network-unavailable" in keys
    assert "node.kubernetes.io/network-unavailable" not in {t.key for t in plain}
    assert effective_tolerations({}, "eks", "Deployment") == []


def test_the_controller_toleration_replaces_a_timed_one_as_add_or_update_does():
    own = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
    out = effective_tolerations({"tolerations": own}, "eks", "DaemonSet")
    not_ready = [t for t in out if t.key == "node.kubernetes.io/not-ready"]
    assert len(not_ready) == 1 and not_ready[0].toleration_seconds is None


def test_bad_input_is_a_taint_error_naming_the_toleration_or_the_platform():
    with pytest.raises(TaintError, match=r"tolerations\[1\]"):
        effective_tolerations({"tolerations": [{"operator": "Exists"}, {"key": "a", "operator": "Bogus"}]}, "eks", "Pod")
    with pytest.raises(TaintError, match="platform 'aks'"):
        effective_tolerations({}, "aks", "Pod")
    assert effective_tolerations({}, "eks", "Pod", tolerations=[Toleration(operator="Exists")]) == [Toleration(operator="Exists")]


@pytest.mark.parametrize(
    ("selector", "terms", "labels", "partial", "complete"),
    [
        ({"a": "1"}, [], {}, None, False),
        ({}, [([("gpu", "In", ["true"])], False)], {}, None, False),
        ({}, [([("gpu", "NotIn", ["true"])], False)], {}, None, True),
        ({}, [([("gpu", "DoesNotExist", [])], False)], {}, None, True),
        ({}, [([("count", "Gt", ["2"])], False)], {"count": "4"}, True, True),
        ({}, [([("count", "Lt", ["2"])], False)], {}, None, False),
        ({}, [([("x", "In", ["1"])], False), ([("y", "Exists", [])], False)], {"y": "z"}, True, True),  # terms ORed
        ({}, [([], False)], {"y": "z"}, False, False),  # an empty term matches nothing
        ({}, [([], True)], {}, None, None),  # matchFields: never judged here
    ],
)
def test_selection_on_declared_and_on_complete_label_sets(selector, terms, labels, partial, complete):
    pairs = tuple(selector.items())
    assert selection_matches(pairs, terms, labels) is partial
    assert selection_matches(pairs, terms, labels, complete=True) is complete
