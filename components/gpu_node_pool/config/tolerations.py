"""Stack rules for the numeric toleration operators ``Gt`` and ``Lt`` in the stack's own tolerations.

``Gt``/``Lt`` (:data:`gpu_node_pool.k8s.taints.NUMERIC_TOLERATION_OPERATORS`) are alpha in
Kubernetes 1.35 behind the feature gate ``TaintTolerationComparisonOperators``, off by default
(KEP-5471, https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/5471-enable-sla-based-scheduling).
A cluster below 1.35 has no such operators, and one with the gate off refuses the pod at create, so:

* below 1.35, or with no ``cluster.kubernetesVersion`` to judge by, a toleration using them is an
  error naming the version (:func:`numeric_toleration_issues`);
* on an EKS cluster (a pool joins EKS) it is an error at any version: EKS supports no alpha feature;
* elsewhere from 1.35 it is evaluated as upstream does, with a warning that the gate must be on
  (:func:`numeric_toleration_warnings`): GKE changes feature gates only on alpha clusters
  (https://cloud.google.com/kubernetes-engine/docs/concepts/feature-gates), and on EKS "Alpha
  features aren't supported" (EKS user guide, version FAQs,
  https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..k8s.taints import NUMERIC_OPERATORS_GATE, NUMERIC_OPERATORS_MIN_VERSION, NUMERIC_TOLERATION_OPERATORS
from .errors import ConfigIssue

__all__ = ["numeric_toleration_issues", "numeric_toleration_warnings"]

_MIN = ".".join(str(p) for p in NUMERIC_OPERATORS_MIN_VERSION)
_SOURCE = (
    "KEP-5471, https://github.com/kubernetes/enhancements/tree/master/keps/sig-scheduling/5471-enable-sla-based-scheduling"
)


def _numeric(stack: Any) -> Iterator[tuple[str, str]]:
    """``(path, operator)`` of every stack toleration using Gt or Lt."""
    plugin = getattr(stack, "device_plugin", None)
    for i, toleration in enumerate(getattr(plugin, "extra_tolerations", None) or []):
        operator = getattr(toleration, "operator", None)
        if operator in NUMERIC_TOLERATION_OPERATORS:
            yield f"devicePlugin.extraTolerations[{i}].operator", operator


_EKS_ALPHA = "EKS user guide, version FAQs: \"Alpha features aren't supported\", https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html"


def _on_eks(stack: Any) -> bool:
    """A pool of the stack joins EKS, so the cluster is an EKS cluster."""
    return any(getattr(p, "cluster_platform", None) == "eks" for p in getattr(stack, "pools", None) or [])


def _minor(version: Any) -> tuple[int, int] | None:
    try:
        major, minor = (int(p) for p in str(version).split(".")[:2])
    except ValueError:
        return None
    return major, minor


def numeric_toleration_issues(stack: Any) -> list[ConfigIssue]:
    """Errors for Gt/Lt tolerations where ``cluster.kubernetesVersion`` is unset or below 1.35:
    ``ConfigIssue("devicePlugin.extraTolerations[0].operator", "'Gt' needs Kubernetes >= 1.35 ...")``."""
    version = getattr(getattr(stack, "cluster", None), "kubernetes_version", None)
    parsed = _minor(version) if version else None
    if parsed is not None and parsed >= NUMERIC_OPERATORS_MIN_VERSION:
        if not _on_eks(stack):
            return []
        return [
            ConfigIssue(path, (
                f"{operator!r} needs the alpha feature gate {NUMERIC_OPERATORS_GATE}, and EKS does not support alpha "
                f"features ({_EKS_ALPHA}), so the API server refuses the pod: use Equal or Exists ({_SOURCE})"
            ))
            for path, operator in _numeric(stack)
        ]
    found = (f"cluster.kubernetesVersion is {version!r}" if version
             else "cluster.kubernetesVersion is not set, so the cluster cannot be judged")
    return [
        ConfigIssue(path, (
            f"{operator!r} needs Kubernetes >= {_MIN} (alpha, feature gate {NUMERIC_OPERATORS_GATE}), but {found}; "
            f"below {_MIN} the API server knows only Equal and Exists ({_SOURCE}): use Equal or Exists, "
            f"or set cluster.kubernetesVersion to '{_MIN}' or later on a cluster with the gate on"
        ))
        for path, operator in _numeric(stack)
    ]


def numeric_toleration_warnings(stack: Any) -> list[ConfigIssue]:
    """One warning per Gt/Lt toleration on Kubernetes >= 1.35: evaluated as upstream, valid only
    where the alpha gate is on."""
    version = getattr(getattr(stack, "cluster", None), "kubernetes_version", None)
    parsed = _minor(version) if version else None
    if parsed is None or parsed < NUMERIC_OPERATORS_MIN_VERSION or _on_eks(stack):
        return []
    return [
        ConfigIssue(path, (
            f"{operator!r} is alpha in Kubernetes {_MIN} and the API server refuses it unless the feature gate "
            f"{NUMERIC_OPERATORS_GATE} is on (off by default; {_SOURCE}). GKE changes feature gates only on alpha "
            "clusters (https://cloud.google.com/kubernetes-engine/docs/concepts/feature-gates). The plan evaluates "
            "it as a cluster with the gate on; use Equal or Exists where the gate is off"
        ))
        for path, operator in _numeric(stack)
    ]
