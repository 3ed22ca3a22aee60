"""Cluster Autoscaler node-template tags on Auto Scaling groups: render and read back.

Shared by ``eks_managed`` (tags on the Auto Scaling group EKS creates, for scale from zero)
and ``self_managed`` (tags on the group the component creates). Source: kubernetes/autoscaler
``cloudprovider/aws/README.md`` (node-template tags, Kubernetes effect spelling, value regex
``(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..taints import Taint

#: Auto-discovery: Cluster Autoscaler finds groups tagged ``k8s.io/cluster-autoscaler/enabled`` and
#: ``k8s.io/cluster-autoscaler/<cluster name>``.
CA_ENABLED_TAG = "k8s.io/cluster-autoscaler/enabled"
CA_CLUSTER_TAG_PREFIX = "k8s.io/cluster-autoscaler/"
#: EC2 tag that marks an instance as a member of a cluster (``kubernetes.io/cluster/<name>=owned``).
CLUSTER_OWNED_TAG_PREFIX = "kubernetes.io/cluster/"
CA_PREFIX = "k8s.io/cluster-autoscaler/node-template/"
CA_LABEL_PREFIX = CA_PREFIX + "label/"
CA_TAINT_PREFIX = CA_PREFIX + "taint/"
CA_RESOURCE_PREFIX = CA_PREFIX + "resources/"


def keys_with_several_effects(taints: list[Taint]) -> list[str]:
    """Taint keys that carry more than one effect: a ``node-template/taint/<key>`` tag holds one
    ``value:Effect``, so such a pool cannot be described to Cluster Autoscaler (the one rule that
    eks-managed and self-managed pool configs and :func:`ca_node_template_tags` all apply)."""
    keys = [t.key for t in taints]
    return sorted({k for k in keys if keys.count(k) > 1})


def several_effects_problem(taints: list[Taint], fix: str) -> str | None:
    """The config message for :func:`keys_with_several_effects`, or None; ``fix`` ends it."""
    multi = keys_with_several_effects(taints)
    if not multi:
        return None
    return (
        f"taint key(s) {multi} carry several effects, but a Cluster Autoscaler node-template taint tag holds one "
        f"value:Effect per key (node-template/taint/<key>); {fix}"
    )


def ca_node_template_tags(
    taints: list[Taint], labels: Mapping[str, str], resources: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Cluster Autoscaler scale-from-zero tags for an ASG whose nodes carry ``taints`` and ``labels``.

    ``node-template/label/<key>`` = ``<value>`` and ``node-template/taint/<key>`` =
    ``<value>:<Effect>`` (Kubernetes spelling; an empty value gives ``:<Effect>``), plus
    ``node-template/resources/<name>`` = ``<quantity>`` for each of ``resources`` (e.g.
    ``{"nvidia.com/gpu": "4"}``; self-managed groups). Sorted by key.

    Raises:
        ValueError: two taints share a key (one tag per key cannot hold both); config
            validation refuses such pools before they get here.
    """
    tags: dict[str, str] = {}
    multi = keys_with_several_effects(list(taints))
    if multi:
        raise ValueError(f"taint key {multi[0]!r} has several effects; one CA tag cannot hold them")
    for name, quantity in (resources or {}).items():
        tags[CA_RESOURCE_PREFIX + name] = str(quantity)
    for key, value in labels.items():
        tags[CA_LABEL_PREFIX + key] = value
    for taint in taints:
        tags[CA_TAINT_PREFIX + taint.key] = f"{taint.value}:{taint.effect.value}"
    return dict(sorted(tags.items()))


def read_ca_node_template_tags(tags: Mapping[str, str]) -> tuple[list[Taint], dict[str, str]]:
    """Inverse of :func:`ca_node_template_tags`: ``(taints, labels)`` from an ASG's tags.

    Taints come back sorted by key (tags have no order). Other tags are ignored.

    Raises:
        TaintError: a taint tag's value is not ``<value>:<Effect>``.
    """
    taints, labels = [], {}
    for key, value in sorted(tags.items()):
        if key.startswith(CA_LABEL_PREFIX):
            labels[key[len(CA_LABEL_PREFIX):]] = value
        elif key.startswith(CA_TAINT_PREFIX):
            # the tag holds "<value>:<Effect>": the kubelet form once the key is put in front
            taints.append(Taint.parse(f"{key[len(CA_TAINT_PREFIX):]}={value}"))
    return taints, labels


def report_lines(entry: Mapping[str, Any]) -> list[str]:
    """The scale-from-zero block of a pool in the text plan (empty without tags)."""
    lines: list[str] = []
    tags = entry.get("scaleFromZeroTags") or {}
    if tags:
        lines.append("  scale-from-zero ASG tags (Cluster Autoscaler):")
        lines += [f"    {k} = {v}" for k, v in tags.items()]
        ok = entry.get("scaleFromZeroMatches")
        subject = entry.get("scaleFromZeroSubject", "the node group's")
        lines.append(f"    {'match' if ok else 'DO NOT match'} {subject} taints and labels")
    return lines
