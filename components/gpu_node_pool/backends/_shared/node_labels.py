"""The labels a GPU pool's new nodes will carry, one :class:`~gpu_node_pool.k8s.selection.NodeLabels`
per kind of node (instance type x zone), built from a backend's sourced table of the labels its
platform sets. Each backend's ``labels.py`` has the table and calls :func:`node_kinds`; the
registry's ``node_labels`` names it, so the policies ask without naming a backend.

Every node gets the Kubernetes well-known labels from the kubelet and the cloud provider
(https://kubernetes.io/docs/reference/labels-annotations-taints/): the kubelet's own
(:func:`kubelet_labels`: ``kubernetes.io/os``/``arch``, their deprecated ``beta.kubernetes.io/`` copies,
``kubernetes.io/hostname``), ``node.kubernetes.io/instance-type``, ``topology.kubernetes.io/zone`` and
``/region``. A zone the pool does not pin, like the host name, is a label the node carries with an
unknown value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...k8s.selection import NodeLabels
from ...k8s.wellknown import (
    ARCH_LABEL,
    HOSTNAME_LABEL,
    INSTANCE_TYPE_LABEL,
    LEGACY_ARCH_LABEL,
    LEGACY_OS_LABEL,
    OS_LABEL,
    POOL_LABEL_KEY,
    REGION_LABEL,
    ZONE_LABEL,
)

__all__ = ["PLATFORM_DECIDED", "node_kinds", "kubelet_labels", "aws_region"]

#: Keys (or prefixes ending in ``/`` or ``-``) some platform decides: on a node of another
#: platform they are missing. Each backend's table says which of them its nodes carry.
PLATFORM_DECIDED = frozenset({
    ARCH_LABEL, OS_LABEL, LEGACY_ARCH_LABEL, LEGACY_OS_LABEL, HOSTNAME_LABEL, INSTANCE_TYPE_LABEL, ZONE_LABEL, REGION_LABEL,
    "eks.amazonaws.com/nodegroup", "eks.amazonaws.com/capacityType", "eks.amazonaws.com/compute-type",
    "eks.amazonaws.com/instance-", "karpenter.sh/nodepool", "karpenter.sh/capacity-type", "karpenter.k8s.aws/instance-",
    "cloud.google.com/gke-nodepool", "cloud.google.com/gke-accelerator",
    POOL_LABEL_KEY,  # this product's pool label: on a node exactly when its pool declares it (GpuNodePool does)
})  # fmt: skip


def kubelet_labels(arch: str | None) -> tuple[dict[str, str], set[str]]:
    """What the kubelet of a Linux node labels its Node with when it registers: ``(labels with a known value,
    keys it sets with a value known only once the machine runs)``. ``arch``: the node's architecture
    (``amd64``), None when not known before launch.

    The kubelet builds the Node in ``initialNode`` (kubernetes/kubernetes ``pkg/kubelet/kubelet_node_status.go``)
    with ``v1.LabelHostname: kl.hostname``, ``v1.LabelOSStable``/``v1.LabelArchStable`` and
    ``kubeletapis.LabelOS``/``kubeletapis.LabelArch`` (``beta.kubernetes.io/os``/``arch``, deprecated and still
    set) from ``goruntime.GOOS``/``GOARCH``; ``--node-labels`` may override them (the pool's own labels, which
    :func:`node_kinds` lays over these). Read in the Kubernetes 1.28 tree at commit
    ``16dbec2959de62b42980edfec45745b49f5c2cc3`` (kevinhehc/k8s-1.28) and in openshift/kubernetes at commit
    ``190976a6acf6578d78e02b4dbd12b30013c403db``, a downstream tree of current upstream; ``updateDefaultLabels``
    there keeps the same keys on a node that registers again. The host name is the machine's (or
    ``--hostname-override``), given at launch.
    """
    labels = {OS_LABEL: "linux", LEGACY_OS_LABEL: "linux"}
    unknown = {HOSTNAME_LABEL}
    if arch:
        labels[ARCH_LABEL] = labels[LEGACY_ARCH_LABEL] = arch
    else:
        unknown |= {ARCH_LABEL, LEGACY_ARCH_LABEL}
    return labels, unknown


def aws_region(zone: str) -> str:
    """``us-east-1a`` -> ``us-east-1`` (an AWS zone name is its region and a letter)."""
    return zone[:-1] if zone[-1:].isalpha() else zone


def node_kinds(
    pool_labels: Mapping[str, str] | None,
    instance_types: Iterable[str] | None,
    zones: Iterable[str] | None,
    per_type: Callable[[str], tuple[Mapping[str, str], Iterable[str]]],
    platform: Mapping[str, str],
    platform_unknown: Iterable[str] = (),
    region_of: Callable[[str], str] | None = aws_region,
) -> list[NodeLabels]:
    """One :class:`NodeLabels` per instance type and zone of a pool.

    Args:
        pool_labels: the labels the pool declares (None: unknown at preview, then nothing is decided).
        instance_types: the types its nodes can be (None or empty: not known, one kind with the type unknown).
        zones: the zones it pins (None or empty: the zone and region are carried with unknown values).
        per_type: type -> (labels the platform sets for that type, keys it sets whose value is not known).
        platform: labels the platform sets on every node of the pool (``eks.amazonaws.com/nodegroup``...).
        platform_unknown: keys the platform sets on every node with a value not known at plan time.
        region_of: zone -> region (None: the region stays unknown).
    """
    if pool_labels is None:
        return [NodeLabels({}, name="a node of the pool (its labels are unknown at preview)")]
    types = list(dict.fromkeys(instance_types or ())) or [None]
    zone_list = list(dict.fromkeys(zones or ())) or [None]
    kinds = []
    for itype in types:
        for zone in zone_list:
            unknown = set(platform_unknown)
            if itype is None:
                known: Mapping[str, str] = {}
                unknown.add(INSTANCE_TYPE_LABEL)
            else:
                known, hidden = per_type(itype)
                unknown |= set(hidden)
            kubelet, kubelet_unknown = kubelet_labels(known.get(ARCH_LABEL))
            labels: dict[str, str] = {**kubelet, **platform, **known}
            if itype is not None:
                labels[INSTANCE_TYPE_LABEL] = itype
            unknown |= kubelet_unknown
            if zone is None:
                unknown |= {ZONE_LABEL, REGION_LABEL}
            else:
                labels[ZONE_LABEL] = zone
                region = region_of(zone) if region_of else None
                if region:
                    labels[REGION_LABEL] = region
                else:
                    unknown.add(REGION_LABEL)
            labels.update(pool_labels)  # the pool's own labels (they may not override well-known keys)
            unknown -= set(labels)
            where = (f"instance type {itype}" if itype else "a node of any instance type") + (f" in {zone}" if zone else "")
            kinds.append(NodeLabels(labels, frozenset(unknown), PLATFORM_DECIDED, where))
    return kinds


#: ``catalog_labels``' answers: prefix -> instance type -> (labels, keys with unknown values).
_CATALOG_LABELS: dict[str, dict[str, tuple[dict[str, str], list[str]]]] = {}


def catalog_labels(prefix: str) -> Callable[[str], tuple[dict[str, str], list[str]]]:
    """``per_type`` for EC2 types: ``kubernetes.io/arch`` from the catalog and, with ``prefix``
    (``karpenter.k8s.aws/`` or ``eks.amazonaws.com/``), the instance labels Karpenter sets from it
    (aws/karpenter-provider-aws ``pkg/providers/instancetype/types.go``), each known, absent or unknown.
    The answer for a type is worked out once per process and shared: callers read it, never change it."""
    from ...catalog import find
    from ...catalog.model import LabelValue
    from ...catalog.requirements import INSTANCE_LABELS

    known = _CATALOG_LABELS.setdefault(prefix, {})

    def per_type(itype: str) -> tuple[dict[str, str], list[str]]:
        if itype in known:
            return known[itype]
        found = known[itype] = labels_of(itype)
        return found

    def labels_of(itype: str) -> tuple[dict[str, str], list[str]]:
        found = find(itype)
        if found is None:
            return {}, [ARCH_LABEL] + ([prefix + s for s in INSTANCE_LABELS] if prefix else [])
        labels, hidden = {ARCH_LABEL: found.architecture}, []
        for suffix in INSTANCE_LABELS if prefix else ():
            value: Any = found.label(suffix)
            if value is LabelValue.UNKNOWN:
                hidden.append(prefix + suffix)
            elif value is not LabelValue.ABSENT:
                labels[prefix + suffix] = str(value)
        return labels, hidden

    return per_type
