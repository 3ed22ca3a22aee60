"""The labels the kubelet sets on every node it registers (``kubernetes.io/hostname``, ``beta.kubernetes.io/os`` and
``/arch`` besides ``kubernetes.io/os``/``arch``) are part of every kind of node the plan knows for a pool, built in
one place (``backends/_shared/node_labels.py``), so that a selection on them is judged like a live node would be;
a label whose value is known only at launch is not judged, and the reason names it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from builders import cannot_run, daemonset, node_group, run
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN
from pulumi_policy.proxy import unknown_checking_proxy

from gpu_node_pool.backends._shared.node_labels import catalog_labels, kubelet_labels, node_kinds
from gpu_node_pool.k8s.wellknown import HOSTNAME_LABEL, LEGACY_ARCH_LABEL, LEGACY_OS_LABEL
from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.placement import PLAIN_NODES, lands_on_plain_nodes, place_on
from gpu_node_pool.policies.workloads import NodeSelection

POLICY = d.daemonsets_tolerate_gpu_taints.POLICY


def _kinds(types=("g6.xlarge",), zones=("us-east-1a",)):
    return node_kinds({"gpu-node-pools/pool": "gpu"}, types, zones, catalog_labels(""), {})


def _expr(key, operator, *values):
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": operator, "values": list(values)}]}]}}}}


def _placed(pod_spec, kinds):
    return place_on([], NodeSelection.of(pod_spec), [], kinds)


def test_every_kind_of_node_carries_the_kubelet_labels():
    (kind,) = _kinds()
    assert kind.labels[LEGACY_OS_LABEL] == "linux" and kind.labels[LEGACY_ARCH_LABEL] == "amd64"
    assert HOSTNAME_LABEL in kind.unknown and HOSTNAME_LABEL not in kind.labels
    (arm,) = _kinds(types=("g5g.xlarge",))
    assert arm.labels[LEGACY_ARCH_LABEL] == arm.labels["kubernetes.io/arch"] == "arm64"
    (any_type,) = _kinds(types=None)  # no type known: neither architecture label has a value before launch
    assert {"kubernetes.io/arch", LEGACY_ARCH_LABEL, HOSTNAME_LABEL} <= any_type.unknown
    assert kubelet_labels(None) == ({"kubernetes.io/os": "linux", LEGACY_OS_LABEL: "linux"},
                                    {HOSTNAME_LABEL, "kubernetes.io/arch", LEGACY_ARCH_LABEL})


def test_a_pool_label_overrides_the_kubelet_default_as_node_labels_do():
    (kind,) = node_kinds({LEGACY_OS_LABEL: "custom", HOSTNAME_LABEL: "fixed"}, ("g6.xlarge",), None, catalog_labels(""), {})
    assert kind.labels[LEGACY_OS_LABEL] == "custom" and kind.labels[HOSTNAME_LABEL] == "fixed"
    assert HOSTNAME_LABEL not in kind.unknown


@pytest.mark.parametrize(("pod_spec", "status"), [
    ({"nodeSelector": {LEGACY_OS_LABEL: "linux"}}, "runs"),
    (_expr(LEGACY_OS_LABEL, "In", "linux"), "runs"),
    ({"nodeSelector": {LEGACY_OS_LABEL: "windows"}}, "keptOff"),
    ({"nodeSelector": {LEGACY_ARCH_LABEL: "amd64"}}, "runs"),
    (_expr(LEGACY_ARCH_LABEL, "In", "arm64"), "keptOff"),
    (_expr(HOSTNAME_LABEL, "DoesNotExist"), "keptOff"),  # every node carries it, whatever its value
    (_expr(HOSTNAME_LABEL, "Exists"), "runs"),
])
def test_a_selection_on_a_kubelet_label_is_judged_on_a_linux_amd64_pool(pod_spec, status):
    assert _placed(pod_spec, _kinds()).status == status


@pytest.mark.parametrize(("pod_spec", "key"), [
    ({"nodeSelector": {HOSTNAME_LABEL: "ip-10-0-0-1.ec2.internal"}}, HOSTNAME_LABEL),
    (_expr(HOSTNAME_LABEL, "In", "ip-10-0-0-1.ec2.internal"), HOSTNAME_LABEL),
    (_expr("topology.kubernetes.io/zone", "In", "us-east-1a"), "topology.kubernetes.io/zone"),
])
def test_a_label_whose_value_is_known_only_at_launch_is_not_judged_and_named(pod_spec, key):
    placement = _placed(pod_spec, _kinds(zones=None))
    assert placement.status == "notJudged" and placement.hidden == (key,)
    assert placement.not_judged_text() == (f"not judged: its node selection reads {key}: the pool's nodes carry it "
                                           "with a value known only once they launch")


def test_a_term_with_match_fields_alone_says_it_selects_by_name():
    fields = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}}}
    placement = _placed(fields, _kinds())
    assert placement.status == "notJudged" and placement.hidden == () and placement.unknowable == ()
    assert "matchFields in its required node affinity, which select nodes by name" in placement.not_judged_text()


def test_the_pack_judges_a_daemonset_on_the_beta_os_label_and_names_the_host_name_it_cannot():
    # g6.xlarge, linux, tainted nvidia.com/gpu: a DaemonSet on beta.kubernetes.io/os=linux lands there untolerated
    (found,) = run(POLICY, [node_group(), daemonset("agent", "logging", node_selector={LEGACY_OS_LABEL: "linux"})])
    assert "logging/agent" in found["message"] and "not tolerated" in found["message"]
    windows = [node_group(), daemonset("agent", "logging", node_selector={LEGACY_OS_LABEL: "windows"})]
    assert run(POLICY, windows) == [] and cannot_run(POLICY, windows) == []
    by_host = [node_group(), daemonset("agent", "logging", node_selector={HOSTNAME_LABEL: "ip-10-0-0-1"})]
    assert run(POLICY, by_host) == []
    (note,) = cannot_run(POLICY, by_host)
    assert f"not judged: its node selection reads {HOSTNAME_LABEL}: the pool's nodes carry it" in note["message"]


def test_plain_nodes_carry_the_kubelet_labels_too():
    assert all(node.labels[LEGACY_OS_LABEL] == "linux" and HOSTNAME_LABEL in node.unknown for node in PLAIN_NODES)
    assert lands_on_plain_nodes(NodeSelection.of({"nodeSelector": {LEGACY_OS_LABEL: "linux"}}))
    assert not lands_on_plain_nodes(NodeSelection.of({"nodeSelector": {HOSTNAME_LABEL: "cpu-1"}}))


# --- a tolerations value unknown at preview: the SDK's one UnknownValueError --------------------------------


class _Raising(Mapping):
    """A pod spec whose ``tolerations`` raise ``error`` when read."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __getitem__(self, key):
        if key == "tolerations":
            raise self.error
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def test_unknown_tolerations_leave_the_selection_read_and_another_error_propagates():
    proxy = unknown_checking_proxy({"containers": [], "tolerations": UNKNOWN, "nodeSelector": {"a": "b"}})
    selection = NodeSelection.of(proxy)
    assert selection.refused == "" and selection.node_selector == (("a", "b"),)
    with pytest.raises(RuntimeError, match="broken"):
        NodeSelection.of(_Raising(RuntimeError("broken")))
