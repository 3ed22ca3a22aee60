"""Taints a controller puts on a live node for a while, and what the audit makes of them.

A node being drained, disrupted or deleted carries a taint its controller added and that goes with the node
(Karpenter's ``karpenter.sh/disrupted``, Cluster Autoscaler's ``ToBeDeletedByClusterAutoscaler``, the node lifecycle
controller's ``node.kubernetes.io/*``: the one list is :mod:`gpu_node_pool.k8s.controller_taints`). It is no part of
the pool: the audit says it once per node as a note (:func:`transient_note`), judges DaemonSets on the node without it
(``Node.steady_taints`` of :mod:`.cluster`), never advises tolerating it, and does not count the node unlike its pool.

What such a taint does to a DaemonSet, by the DaemonSet controller (``NodeShouldRunDaemonPod`` and ``predicates``,
kubernetes/kubernetes pkg/controller/daemon/daemon_controller.go; its own tolerations:
https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#taints-and-tolerations):

* a ``NoSchedule`` or ``NoExecute`` taint the daemon pod does not tolerate (after the tolerations the controller adds,
  such as ``node.kubernetes.io/unschedulable:NoSchedule``) means no new daemon pod is created on the node, and the node
  is not counted in ``status.desiredNumberScheduled``;
* a daemon pod already running there stays under an untolerated ``NoSchedule`` taint; only an untolerated
  ``NoExecute`` one removes it.

So ``desiredNumberScheduled`` lies between the count with these taints and the count without them while the status
catches up: :func:`count_explained` tells that apart from a rule the audit does not model.

Pure: no I/O.
"""

from __future__ import annotations

from ..k8s.controller_taints import controller_taint
from ..k8s.effects import TaintEffect
from ..k8s.taints import Taint

__all__ = ["DAEMONSET_RULE", "count_explained", "transient_note"]

#: What a transient taint does to a DaemonSet's pods, with its source (module docstring).
DAEMONSET_RULE = (
    "the DaemonSet controller creates no new daemon pod on the node while it carries a taint the pod does not tolerate "
    f"and leaves one already running there under a {TaintEffect.NO_SCHEDULE.value} taint (only "
    f"{TaintEffect.NO_EXECUTE.value} removes it: NodeShouldRunDaemonPod, kubernetes/kubernetes "
    "pkg/controller/daemon/daemon_controller.go); the node is judged without it and no fix tolerates it")


def transient_note(subject: str, taint: Taint) -> str:
    """``<subject>: transient taint <taint> (set and removed by a controller), not drift`` and, for a key of
    :data:`~gpu_node_pool.k8s.controller_taints.CONTROLLER_TAINTS`, who owns it, what it does and the source, then
    :data:`DAEMONSET_RULE`. ``subject`` names the node (``Node gpu-1``)."""
    owner = controller_taint(taint.key)
    why = f": {owner.who} {owner.does} ({owner.source})" if owner is not None else ""
    return f"{subject}: transient taint {taint} (set and removed by a controller), not drift{why}; {DAEMONSET_RULE}"


def count_explained(desired: int, steady: int, now: int) -> bool:
    """Whether a DaemonSet's ``status.desiredNumberScheduled`` (``desired``) is explained by nodes carrying transient
    taints: it lies between ``now``, the nodes the rules place it on with those taints, and ``steady``, without them
    (the status is counted before or after the controller tainted them, module docstring)."""
    return steady != now and min(steady, now) <= desired <= max(steady, now)
