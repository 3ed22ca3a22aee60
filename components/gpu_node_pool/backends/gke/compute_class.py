"""A custom ComputeClass's taint on a GKE node pool: whether GKE may still let a pod onto the pool.

GKE documents, for node pools created by hand that a custom ComputeClass uses, the node label
``cloud.google.com/compute-class: <class>`` and the taint ``cloud.google.com/compute-class=<class>:NoSchedule``
(https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes#manual-node-pools), but
not whether GKE adds the matching toleration to the pods whose ``nodeSelector`` selects the class. So
:func:`gpu_node_pool.k8s.taints.effective_tolerations` does not add it, and a pod that selects the class and
misses no other taint of the pool is neither passed nor reported: it is not judged, with this reason.
Policy ``gpu-workloads-tolerate-their-pool`` asks through the registry (``untolerated_not_judged`` of the
``gke`` backend).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...k8s.labels import GKE_COMPUTE_CLASS_LABEL, GKE_COMPUTE_CLASS_SOURCE
from ...k8s.taints import Taint, TaintEffect, Toleration

#: What settles a pod left not judged by :func:`untolerated_not_judged`.
FIX = "add the toleration the reason names, or check on the cluster whether GKE added it (kubectl get pod <pod> -o yaml)"


def untolerated_not_judged(pool: Any, missing: Sequence[Taint],
                           node_selector: Sequence[tuple[Any, Any]]) -> tuple[str, str] | None:
    """Why GKE may still take a pod onto ``pool`` although its effective tolerations leave ``missing`` untolerated,
    and what settles it: ``(reason beginning "not judged:", fix)``; None when the verdict stands.

    Args:
        pool: the GPU pool (a :class:`~gpu_node_pool.backends._shared.gpu_pool.GpuPool`; its ``display`` is read).
        missing: the pool's ``NoSchedule``/``NoExecute`` taints the pod does not tolerate (at least one).
        node_selector: the pod's ``nodeSelector`` as ``(key, value)`` pairs.

    A reason only when every taint of ``missing`` is ``cloud.google.com/compute-class=<class>:NoSchedule`` of a
    class the ``nodeSelector`` selects (:data:`GKE_COMPUTE_CLASS_SOURCE`).
    """
    selected = {value for key, value in node_selector if key == GKE_COMPUTE_CLASS_LABEL}
    classes = [t for t in missing if t.key == GKE_COMPUTE_CLASS_LABEL and t.effect is TaintEffect.NO_SCHEDULE
               and t.value in selected]
    if not classes or len(classes) != len(missing):
        return None
    taint = classes[0]
    toleration = ", ".join(f"{k}: {v}" for k, v in Toleration.for_taint(taint).to_k8s().items())
    reason = (f"not judged: on {pool.display} its only untolerated taint is {taint}, the taint of the custom "
            f"ComputeClass {taint.value} it selects (nodeSelector {GKE_COMPUTE_CLASS_LABEL}: {taint.value}); GKE "
            f"documents that taint for node pools created by hand ({GKE_COMPUTE_CLASS_SOURCE}), but GKE's "
            "documentation does not say whether GKE adds the matching toleration to the pods that select the class; "
            f"add the toleration {{{toleration}}} to be certain")
    return reason, FIX
