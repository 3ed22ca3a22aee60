"""Pending pods kept off GPU nodes by GPU taints.

A pod counts when it is ``Pending`` with no ``spec.nodeName`` and either

1. the scheduler said so: its latest ``FailedScheduling`` event (or, without events, its
   ``PodScheduled`` condition) names an untolerated taint with the key of a GPU node's taint
   (message form: ``N node(s) had untolerated taint {key: value}``); or
2. the rules say so: the nodes its required selection accepts (complete label sets) are all
   GPU nodes, and on every one of them its effective tolerations
   (:func:`gpu_node_pool.k8s.taints.effective_tolerations`, kind ``Pod``) miss a ``NoSchedule``/
   ``NoExecute`` taint — the pattern of a helper pod that selects the GPU pool but requests no
   GPU, or tolerates with ``operator: Equal`` and the wrong value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..k8s.taints import Taint, TaintError, Toleration, effective_tolerations, tolerates
from ..policies.workloads import NodeSelection, gpu_resources_requested
from .cluster import Node
from .unread import UnreadPod, unread_pod

__all__ = ["PendingPod", "pending_pods"]

_UNTOLERATED = re.compile(r"untolerated taint\(?s?\)?\s*\{([^}:]+):")


@dataclass
class PendingPod:
    namespace: str
    name: str
    reason: str
    reason_source: str
    pools: list[str] = field(default_factory=list)
    missing: list[tuple[Taint, Toleration, str]] = field(default_factory=list)  # taint, fix, note
    #: it requests a GPU resource: a GPU toleration is the fix; otherwise it belongs off GPU nodes.
    requests_gpu: bool = True

    @property
    def display(self) -> str:
        return f"{self.namespace}/{self.name}"


def _scheduler_message(pod: Mapping[str, Any], failed: Mapping[tuple[Any, Any], tuple[str, str]] | None) -> tuple[str, str]:
    meta = pod.get("metadata") or {}
    if failed is not None:
        latest = failed.get((meta.get("namespace"), meta.get("name")))
        if latest is not None:
            return latest[1], "event FailedScheduling"
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            return str(cond.get("message", "")), "condition PodScheduled"
    return "", "none"


def _why_not(tolerations: list[Toleration], taint: Taint) -> str:
    near = [t for t in tolerations if t.key == taint.key and t.operator == "Equal" and (t.effect in (None, taint.effect))]
    if near:
        return (f"it tolerates {taint.key} with operator Equal and value {near[0].value or ''!r}, "
                f"but the taint's value is {taint.value!r}")
    return "no toleration matches it"


def pending_pods(
    pods: Iterable[Mapping[str, Any]],
    failed_scheduling: Mapping[tuple[Any, Any], tuple[str, str]] | None,
    nodes: list[Node],
    platform: str,
    admission_plugins: Iterable[str] | None = None,
) -> tuple[list[PendingPod], list[UnreadPod]]:
    """``(blocked pods, not judged)``: pods Pending because of GPU taints (rules 1-2 above), and the Pending pods whose
    spec could not be read (a toleration or a placement field the API server refuses), each with why
    (:func:`.unread.unread_pod`), which make the report partial.

    ``failed_scheduling``: (namespace, pod name) -> (timestamp, message) of the pod's latest
    ``FailedScheduling`` event (``failed_scheduling`` of :class:`gpu_node_pool.audit.snapshot.Snapshot`);
    None when no events were read."""
    gpu_keys = {t.key for n in nodes if n.is_gpu for t in n.steady_taints if t.effect.repels}
    out, problems = [], []
    for pod in pods:
        spec = pod.get("spec") or {}
        meta = pod.get("metadata") or {}
        if (pod.get("status") or {}).get("phase") != "Pending" or spec.get("nodeName"):
            continue
        message, source = _scheduler_message(pod, failed_scheduling)
        display = f"{meta.get('namespace', 'default')}/{meta.get('name', '')}"
        try:
            tolerations = effective_tolerations(spec, platform, "Pod", admission_plugins=admission_plugins)
        except TaintError as err:
            problems.append(unread_pod(f"Pod {display}", spec, f"spec.{err}"))
            continue
        selection = NodeSelection.of(spec)
        if selection.refused:  # the API server refuses such a pod: a hand-made dump's, never judged
            problems.append(unread_pod(f"Pod {display}", spec, f"spec.{selection.refused}"))
            continue
        candidates = [n for n in nodes if selection.on(n.labels, complete=True) is True]
        pools: list[str] = []
        blocked_everywhere = bool(candidates) and all(n.is_gpu for n in candidates)
        fewest: list[Taint] | None = None  # the node it is closest to landing on: fewest taints to tolerate
        for node in candidates:
            stopping = [t for t in node.steady_taints if t.effect.repels and not any(tolerates(x, t) for x in tolerations)]
            if not stopping:
                blocked_everywhere = False
            if fewest is None or len(stopping) < len(fewest):
                fewest = stopping
            pool = node.pool[1] if node.pool else node.name
            if pool not in pools:
                pools.append(pool)
        missing = [(t, Toleration.for_taint(t), _why_not(tolerations, t)) for t in fewest or []]
        said = {m.strip() for m in _UNTOLERATED.findall(message)}
        if blocked_everywhere or said & gpu_keys:
            out.append(PendingPod(str(meta.get("namespace", "default")), str(meta.get("name", "")),
                                  message or "(no scheduler message)", source, pools, missing,
                                  bool(gpu_resources_requested(spec))))
    return out, problems
