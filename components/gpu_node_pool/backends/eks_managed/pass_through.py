"""Taints and labels an eks-managed pool sets through a pass-through field, merged with its own.

The fields: ``kubelet.flags`` ``--register-with-taints=...`` and ``--node-labels=...`` (kubelet flag
reference https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/),
``kubelet.config.registerWithTaints`` (k8s.io/kubelet ``config/v1beta1`` ``registerWithTaints``) and
``bottlerocket.settings.kubernetes.node-taints``/``node-labels``
(https://bottlerocket.dev/en/os/latest/#/api/settings/kubernetes/). They are read with the parsers the
user-data readers use (:func:`~gpu_node_pool.backends._shared.registration.parse_taints_flag`,
:func:`~gpu_node_pool.backends._shared.registration.parse_labels_flag`,
:func:`~gpu_node_pool.backends._shared.user_data.bottlerocket_node_taints`, :class:`~gpu_node_pool.k8s.taints.Taint`).

The merged set is what the node group declares (``NodeGroup.taints``/``labels``: EKS registers the
nodes with them, https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html), and so
what the Cluster Autoscaler tags, the agents' tolerations and the plan use; the pass-through copies
are not written into the user data a second time. A pass-through taint with the key and effect of
another taint but another value, or a label with another value, is refused (a node carries one taint
per key and effect and one value per label key). Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...k8s.taints import Taint

__all__ = ["PassedLabel", "PassedTaint", "extra_labels", "extra_taints", "merge_problems", "passed_labels", "passed_taints",
           "second_effect_origin"]

_TAINT_RULE = "a node carries one taint per key and effect (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/)"
_LABEL_RULE = "a node carries one value per label key (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/)"


@dataclass(frozen=True)
class PassedTaint:
    """A taint set through a pass-through field: the taint, the field's path under the pool as text
    (``kubelet.flags[0]``) and as keys and indexes (``("kubelet", "flags", 0)``, where an error is placed)."""

    taint: Taint
    path: str
    at: tuple[str | int, ...] = ()


@dataclass(frozen=True)
class PassedLabel:
    """A label set through a pass-through field: key, value and the field's path under the pool."""

    key: str
    value: str
    path: str


def passed_taints(pool: Any) -> list[PassedTaint]:
    """The taints of the pool's pass-through fields, in field order (flags, config, Bottlerocket).

    Raises:
        TaintError: a taint that does not parse (the fields' own validators refuse it first).
    """
    from .._shared.registration import REGISTER_WITH_TAINTS_FLAG, parse_taints_flag
    from .._shared.user_data import bottlerocket_node_taints

    out: list[PassedTaint] = []
    kubelet = getattr(pool, "kubelet", None)
    if kubelet is not None:
        for i, flag in enumerate(kubelet.flags or []):
            name, _, value = flag.partition("=")
            if name == REGISTER_WITH_TAINTS_FLAG:
                out += [PassedTaint(t, f"kubelet.flags[{i}]", ("kubelet", "flags", i)) for t in parse_taints_flag(value)]
        for i, item in enumerate((kubelet.config or {}).get("registerWithTaints") or []):
            out.append(PassedTaint(Taint.from_k8s(item), f"kubelet.config.registerWithTaints[{i}]",
                                   ("kubelet", "config", "registerWithTaints", i)))
    k8s = _bottlerocket_kubernetes(pool)
    for key, entries in (k8s.get("node-taints") or {}).items():
        out += [PassedTaint(t, f"bottlerocket.settings.kubernetes.node-taints.{key}",
                            ("bottlerocket", "settings", "kubernetes", "node-taints", key))
                for t in bottlerocket_node_taints({key: entries})]
    return out


def passed_labels(pool: Any) -> list[PassedLabel]:
    """The labels of the pool's pass-through fields, in field order (flags, Bottlerocket).

    Raises:
        ValueError: a ``--node-labels`` entry without ``=`` (the field's validator refuses it first).
    """
    from .._shared.registration import NODE_LABELS_FLAG, parse_labels_flag

    out: list[PassedLabel] = []
    kubelet = getattr(pool, "kubelet", None)
    if kubelet is not None:
        for i, flag in enumerate(kubelet.flags or []):
            name, _, value = flag.partition("=")
            if name == NODE_LABELS_FLAG:
                out += [PassedLabel(k, v, f"kubelet.flags[{i}]") for k, v in parse_labels_flag(value).items()]
    for key, value in (_bottlerocket_kubernetes(pool).get("node-labels") or {}).items():
        out.append(PassedLabel(key, str(value), f"bottlerocket.settings.kubernetes.node-labels.{key}"))
    return out


def _bottlerocket_kubernetes(pool: Any) -> dict[str, Any]:
    settings = getattr(getattr(pool, "bottlerocket", None), "settings", None) or {}
    k8s = settings.get("kubernetes")
    return k8s if isinstance(k8s, dict) else {}


def extra_taints(pool: Any, declared: list[Taint]) -> list[Taint]:
    """The pass-through taints ``declared`` lacks (by key and effect), first occurrence kept, in field order."""
    seen = {t.identity for t in declared}
    out = []
    for passed in passed_taints(pool):
        if passed.taint.identity not in seen:
            seen.add(passed.taint.identity)
            out.append(passed.taint)
    return out


def extra_labels(pool: Any, declared: dict[str, str]) -> dict[str, str]:
    """The pass-through labels whose keys ``declared`` lacks, first occurrence kept."""
    out: dict[str, str] = {}
    for passed in passed_labels(pool):
        if passed.key not in declared and passed.key not in out:
            out[passed.key] = passed.value
    return out


def second_effect_origin(pool: Any, declared: list[Taint]) -> tuple[PassedTaint, str] | None:
    """Where a pass-through taint gives a taint key another effect than the pool's ``taints`` (``declared``) or
    an earlier pass-through taint give it: ``(that taint with its place, a clause naming both sources:
    "kubelet.flags[0] registers taint '...' and taints[0] has '...'")``, the first such
    taint in field order; None when every key with several effects has them from ``taints`` alone, or no key
    has several. (Whether several effects per key are refused is the caller's rule: Cluster Autoscaler's
    one tag per key, :mod:`gpu_node_pool.backends._shared.cluster_autoscaler`.)"""
    sources = [(f"taints[{i}]", t) for i, t in enumerate(declared)]
    for passed in passed_taints(pool):
        if any(t.identity == passed.taint.identity for _, t in sources):
            continue
        others = [f"{path} has {str(t)!r}" for path, t in sources if t.key == passed.taint.key]
        if others:
            return passed, f"{passed.path} registers taint {str(passed.taint)!r} and {' and '.join(others)}"
        sources.append((passed.path, passed.taint))
    return None


def merge_problems(pool: Any, declared_taints: list[Taint], declared_labels: dict[str, str]) -> list[str]:
    """Refusals for merging the pool's pass-through taints and labels with its own, one sentence each.

    Args:
        pool: the eks-managed pool model.
        declared_taints: the pool's own taints (``taints``, config order).
        declared_labels: the labels the component puts on the node group without pass-throughs
            (``labels``, ``gpuLabel``, the pool label and the labels derived from ``mig``/``gpuSharing``).

    Rules: a taint with the key and effect of a declared or earlier pass-through taint but another
    value; a label with another value than a declared or earlier one; a label the component writes itself
    (:func:`~gpu_node_pool.config.reserved_labels.reserved_label_problem`), or one EKS or Kubernetes refuses
    (:func:`~gpu_node_pool.k8s.labels.eks_label_problem`, label syntax). Each message names both paths and
    both values.
    """
    from ...config.common import labels_problems
    from ...config.reserved_labels import reserved_label_problem
    from ...k8s.labels import eks_label_problem

    problems: list[str] = []
    first: dict[Any, tuple[Taint, str]] = {}
    for i, taint in enumerate(declared_taints):
        first.setdefault(taint.identity, (taint, f"taints[{i}]"))
    for passed in passed_taints(pool):
        seen = first.setdefault(passed.taint.identity, (passed.taint, passed.path))
        if seen[0].value != passed.taint.value:
            problems.append(
                f"{passed.path} registers taint {str(passed.taint)!r} but {seen[1]} has {str(seen[0])!r}: same key and "
                f"effect, another value, and {_TAINT_RULE}; make the values agree, or remove the taint from {passed.path}"
            )
    label_from = {k: (v, _label_path(pool, k)) for k, v in declared_labels.items()}
    for passed in passed_labels(pool):
        seen_label = label_from.setdefault(passed.key, (passed.value, passed.path))
        if seen_label[0] != passed.value:
            problems.append(
                f"{passed.path} sets label {passed.key}={passed.value!r} but {seen_label[1]} gives it {seen_label[0]!r}, and "
                f"{_LABEL_RULE}; make the values agree, or remove the label from {passed.path}"
            )
        elif seen_label[1] == passed.path:  # first time this key is seen: the node group must take it
            why = (reserved_label_problem(passed.key, passed.value, **pool.reserved_label_context)
                   or eks_label_problem(passed.key, passed.value) or "; ".join(labels_problems({passed.key: passed.value})))
            if why:
                problems.append(f"{passed.path}: {why}")
    return problems


def _label_path(pool: Any, key: str) -> str:
    if key in (getattr(pool, "labels", None) or {}):
        return f"labels.{key}"
    if getattr(getattr(pool, "gpu_label", None), "key", None) == key:
        return "gpuLabel"
    return "the component's own label"
