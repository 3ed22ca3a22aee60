"""Taints that controllers put on nodes and take off them on their own, and what declaring one on a pool does.

A node pool's taint is meant to stay on every node for the node's life, so that only pods that tolerate it land
there. The taints below are not: a controller adds each when a condition holds and removes it when the condition
ends (or, for the autoscalers' and Karpenter's, when the node is about to go), and the DaemonSet controller makes
every DaemonSet pod tolerate the node lifecycle ones. A pool that declares one of them as its GPU taint is not kept
for GPU work: the taint is removed as soon as the node is Ready and schedulable, or it tells an autoscaler the node is
being deleted.

Sources, per row of :data:`CONTROLLER_TAINTS`:

* ``node.kubernetes.io/*``: the node lifecycle controller and the kubelet ("Taint Nodes by Condition",
  https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-nodes-by-condition, and
  https://kubernetes.io/docs/reference/labels-annotations-taints/); ``out-of-service`` is what an operator adds to a
  node that is shut down, so that its pods are deleted (same page).
* ``node.cloudprovider.kubernetes.io/*``: the cloud controller manager, which removes ``uninitialized`` once it has
  initialized the node and adds ``shutdown`` to a node whose instance is stopped (same page).
* ``karpenter.sh/disrupted`` and ``karpenter.sh/unregistered``: Karpenter, while it disrupts a node and until the node
  registers (https://karpenter.sh/docs/concepts/disruption/, kubernetes-sigs/karpenter ``pkg/apis/v1/taints.go``).
* ``ToBeDeletedByClusterAutoscaler`` and ``DeletionCandidateOfClusterAutoscaler``: Cluster Autoscaler, on a node it is
  deleting or considers deleting (kubernetes/autoscaler ``cluster-autoscaler/utils/taints/taints.go``).

Pure: no pydantic, no Pulumi.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .effective import DAEMONSET_CONTROLLER_TOLERATIONS, HOST_NETWORK_DAEMON_TOLERATIONS
from .effects import TaintEffect
from .taints import Taint
from .wellknown import NVIDIA_GPU_RESOURCE

__all__ = ["ControllerTaint", "CONTROLLER_TAINTS", "controller_taint", "controller_taint_problem",
           "controller_taint_problems", "is_transient", "removed_on_its_own"]


@dataclass(frozen=True)
class ControllerTaint:
    """Taint keys one controller owns: ``keys`` exact keys, ``who`` the controller, ``does`` what it does with them
    (a clause: ``adds and removes them by the node's conditions``), ``source`` where that is written, and
    ``self_removed``: whether the owner takes them off a node that is fine (Ready, reachable, schedulable,
    initialized, registered), so a boot taint with one of them goes away without an agent; the others mark a node
    that is going away."""

    keys: tuple[str, ...]
    who: str
    does: str
    source: str
    self_removed: bool = False


_LIFECYCLE = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-nodes-by-condition"
_WELL_KNOWN = "https://kubernetes.io/docs/reference/labels-annotations-taints/"
_CCM = "the cloud controller manager"
_KARPENTER = ("Karpenter", "https://karpenter.sh/docs/concepts/disruption/; kubernetes-sigs/karpenter pkg/apis/v1/taints.go")

#: Every controller-owned taint key, by its owner (module docstring). The node lifecycle controller's keys are the
#: ones the DaemonSet controller tolerates for daemon pods (:mod:`.effective`), so they are read from there.
CONTROLLER_TAINTS: tuple[ControllerTaint, ...] = (
    ControllerTaint(
        tuple(t.key for t in (*DAEMONSET_CONTROLLER_TOLERATIONS, *HOST_NETWORK_DAEMON_TOLERATIONS) if t.key),
        "Kubernetes' node lifecycle controller",
        "adds it while the node's condition (or spec.unschedulable) holds and removes it when it ends, and the "
        "DaemonSet controller makes daemon pods tolerate it (network-unavailable: host-network ones)",
        f"{_LIFECYCLE}; {_WELL_KNOWN}",
        self_removed=True,
    ),
    ControllerTaint(
        ("node.kubernetes.io/out-of-service",),
        "an operator marking a shut-down node",
        "makes Kubernetes delete the node's pods and detach their volumes",
        _WELL_KNOWN,
    ),
    ControllerTaint(("node.cloudprovider.kubernetes.io/uninitialized",), _CCM,
                    "removes it once it has initialized the node", _WELL_KNOWN, self_removed=True),
    ControllerTaint(("node.cloudprovider.kubernetes.io/shutdown",), _CCM,
                    "adds it to a node whose instance stopped", _WELL_KNOWN),
    ControllerTaint(("karpenter.sh/unregistered",), _KARPENTER[0],
                    "adds it to a node that has not registered yet and removes it at registration", _KARPENTER[1],
                    self_removed=True),
    ControllerTaint(("karpenter.sh/disrupted",), _KARPENTER[0], "adds it to a node it is disrupting", _KARPENTER[1]),
    ControllerTaint(
        ("ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler"),
        "Cluster Autoscaler",
        "reads it as a node it is deleting or may delete",
        "kubernetes/autoscaler cluster-autoscaler/utils/taints/taints.go",
    ),
)
_BY_KEY = {key: owner for owner in CONTROLLER_TAINTS for key in owner.keys}
#: Domains whose taints a live node may carry for a while without anyone having declared them (the audit's drift
#: leaves them out): the two Kubernetes domains of :data:`CONTROLLER_TAINTS`, any key under them.
_TRANSIENT_PREFIXES = ("node.kubernetes.io/", "node.cloudprovider.kubernetes.io/")


def removed_on_its_own(key: str) -> bool:
    """Whether a controller takes a taint with ``key`` off a healthy node by itself (the node lifecycle controller's
    condition taints, the cloud controller manager's ``uninitialized``, Karpenter's ``unregistered``)."""
    owner = _BY_KEY.get(key)
    return owner is not None and owner.self_removed


def controller_taint(key: str) -> ControllerTaint | None:
    """The :class:`ControllerTaint` that owns ``key`` (exact key), or None."""
    return _BY_KEY.get(key)


def is_transient(key: str) -> bool:
    """Whether a live node's taint ``key`` may come and go without a declaration: a controller-owned key, or any key
    under ``node.kubernetes.io/`` or ``node.cloudprovider.kubernetes.io/``."""
    return key in _BY_KEY or key.startswith(_TRANSIENT_PREFIXES)


def controller_taint_problem(key: str, own: Taint | None = None) -> str | None:
    """Why a pool may not declare a taint with ``key`` (one sentence, with the owner, its source and the fix), or
    None when no controller owns the key. ``own`` is a repelling taint of the pool's own, when it has one: the fix is
    then to remove the controller's taint, else to use a key of one's own."""
    owner = controller_taint(key)
    if owner is None:
        return None
    fix = (f"remove it: the pool's own taint {own} already keeps other pods off" if own is not None else
           f"use a key of your own, e.g. {NVIDIA_GPU_RESOURCE}=present:{TaintEffect.NO_SCHEDULE.value}")
    return (f"taint key {key!r} belongs to {owner.who}, which {owner.does} ({owner.source}): declared on a pool it "
            f"does not keep other pods off the GPU nodes; {fix}")


def controller_taint_problems(taints: Sequence[Taint]) -> list[tuple[int, str]]:
    """Each controller-owned taint of a pool's ``taints``, as ``(index, why)`` (:func:`controller_taint_problem`);
    the fix names the pool's first repelling taint that no controller owns, if it has one. The one rule both the
    stack config and ``gpu-pool-declares-taint`` apply."""
    own = next((t for t in taints if t.effect.repels and controller_taint(t.key) is None), None)
    return [(i, why) for i, t in enumerate(taints) if (why := controller_taint_problem(t.key, own)) is not None]
