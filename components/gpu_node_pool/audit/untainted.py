"""GPU pools of the cluster whose GPU nodes carry no taint that keeps other pods off: the live side of the pack's
``gpu-pool-declares-taint``.

A GPU node (:attr:`.cluster.Node.is_gpu`: GPU capacity, a GPU label, an NVIDIA instance type, a declared pool's
label) is *untainted* when none of its taints has a repelling effect (``NoSchedule``, ``NoExecute``:
:attr:`~gpu_node_pool.k8s.taints.TaintEffect.repels`, the one definition the pack's rule uses too). Any such taint
on the node counts, whoever put it there: a pool's declared taint, a startup taint not removed yet, GKE's automatic
``nvidia.com/gpu=present:NoSchedule``. A node with a taint Kubernetes would refuse is left to its
``malformed-taint`` finding, whose fix comes first.

Per GPU pool (:func:`.cluster.group_pools`), one ``gpu-pool-untainted`` finding at the pack rule's level
(:data:`LEVEL`, ``mandatory``) names the pool's untainted GPU nodes and, as evidence, the pods already bound there that
request no GPU and that no DaemonSet or the node owns (:attr:`.snapshot.Snapshot.workloads`). Rule: every pod that
does not tolerate a node's ``NoSchedule``/``NoExecute`` taints is kept off it, and nothing else keeps it off
(Kubernetes, taints and tolerations: :data:`SOURCE`). The fix declares the taint where it survives node replacement,
in the config of whoever owns the pool (:data:`DECLARE_IN`, by the pool label :data:`.cluster.POOL_LABELS` reads);
``kubectl taint`` is lost when the node is replaced. With ``--stack``, nodes whose declared pool's taint is missing
are pointed to their ``declared-taint-missing`` findings (:mod:`.declared`), whose fix is the fix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..config.defaults import DEFAULT_TAINT
from ..k8s.taints import TaintEffect
from .cluster import Node, Pool
from .findings import SHOWN_SUBJECTS, Finding, see_findings, shown_names

__all__ = ["CODE", "RULE", "LEVEL", "SOURCE", "DECLARE_IN", "untainted_findings"]

CODE = "gpu-pool-untainted"
#: The pack's rule for the same fact, and its enforcement level (``policies/rules/gpu_pool_declares_taint.py``).
RULE = "gpu-pool-declares-taint"
LEVEL = "mandatory"
SOURCE = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
#: Pool label key (:data:`.cluster.POOL_LABELS`) -> where that pool's owner declares the taints its nodes get.
DECLARE_IN: dict[str, str] = {
    "gpu-node-pools/pool": "the stack's pool (GpuNodePool `taints`), then pulumi up",
    "karpenter.sh/nodepool": "the NodePool's spec.template.spec.taints (GpuNodePool `taints` on a karpenter or "
                             "eks-auto pool); Karpenter replaces drifted nodes",
    "eks.amazonaws.com/nodegroup": "the node group's taints (GpuNodePool `taints` on an eks-managed pool, or aws eks "
                                   "update-nodegroup-config --taints with effect "
                                   f"{TaintEffect.NO_SCHEDULE.provider_spelling})",
    "cloud.google.com/gke-nodepool": "the node pool's node_config.taints (GpuNodePool `taints` on a gke pool, or gcloud "
                                     "container node-pools update --node-taints)",
}
#: Where a node of no pool label declares its taints: its kubelet's registration.
DECLARE_ON_NODE = ("the node's kubelet registration (registerWithTaints, --register-with-taints; GpuNodePool `taints` "
                   "on a self-managed pool)")
_NS, _NE = TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value


def _untainted(node: Node) -> bool:
    return node.is_gpu and not node.bad_taints and not any(t.effect.repels for t in node.steady_taints)


def untainted_findings(pools: Sequence[Pool], workloads: Mapping[str, Sequence[str]] | None,
                       drift: Sequence[Finding] = ()) -> list[Finding]:
    """One ``gpu-pool-untainted`` finding per pool with untainted GPU nodes (module docstring).

    Args:
        pools: the cluster's pools (:func:`.cluster.group_pools`); pools without a GPU node give none.
        workloads: node name -> ``namespace/name`` of the non-GPU pods bound there, up to
            :data:`.snapshot.WORKLOADS_KEPT` (:attr:`.snapshot.Snapshot.workloads`); None when no pods were read.
        drift: the drift findings of ``--stack`` (:func:`.declared.drift`); a node with a ``declared-taint-missing``
            one of a repelling taint is pointed to it.
    """
    missing = {f.subject: f for f in drift if f.code == "declared-taint-missing"
               and "declared" in f.data and f.data["declared"].effect.repels}
    findings = []
    for pool in pools:
        nodes = [n for n in pool.nodes if _untainted(n)]
        if not nodes:
            continue
        gpu = sum(n.is_gpu for n in pool.nodes)
        names = shown_names([n.name for n in nodes])
        which = (f"its {len(nodes)} GPU node(s) ({names})" if len(nodes) == gpu
                 else f"{len(nodes)} of its {gpu} GPU nodes ({names})")
        soft = sorted({str(t) for n in nodes for t in n.taints})
        has = f"only {', '.join(soft)}, a scheduling preference, not a rule" if soft else "no taint"
        message = (f"{which} carry {has}: ordinary pods will be scheduled on its GPU nodes; "
                   f"{_evidence(nodes, workloads)}. The pack's {RULE} ({LEVEL}) asks every GPU pool to declare a "
                   f"{_NS} or {_NE} taint: a pod is kept off a node only by a {_NS}/{_NE} taint it does not "
                   f"tolerate (Kubernetes, taints and tolerations: {SOURCE})")
        findings.append(Finding(LEVEL, CODE, pool.id, message, _fix(pool, nodes, missing), pool.id))
    return findings


def _evidence(nodes: Sequence[Node], workloads: Mapping[str, Sequence[str]] | None) -> str:
    """Which non-GPU pods run on ``nodes``: ``non-GPU pods already run there: shop/web-1 on n0, ...``."""
    if workloads is None:
        return "which pods run there is not known (no pods were read)"
    found = [f"{pod} on {n.name}" for n in nodes for pod in workloads.get(n.name, ())]
    more = len(found) > SHOWN_SUBJECTS or any(len(workloads.get(n.name, ())) > SHOWN_SUBJECTS for n in nodes)
    if not found:
        return "no pod that requests no GPU runs there yet (DaemonSet pods aside)"
    return ("pods that request no GPU already run there: " + ", ".join(found[:SHOWN_SUBJECTS])
            + (" and more" if more else ""))


def _fix(pool: Pool, nodes: Sequence[Node], missing: Mapping[str, Finding]) -> str:
    """Declare the taint where it survives node replacement, or, when the stack declares one the nodes lack, what
    its ``declared-taint-missing`` findings say."""
    pointed = [f"Node {n.name}" for n in nodes if f"Node {n.name}" in missing]
    if pointed and len(pointed) == len(nodes):
        return (f"the stack declares the taint but the nodes lack it: {see_findings(pointed, 'the declared taint')} "
                f"({missing[pointed[0]].fix})")
    where = DECLARE_IN.get(pool.key[0], DECLARE_ON_NODE)
    return (f"declare a {_NS} taint such as {DEFAULT_TAINT} where it survives node replacement: {where} "
            "(kubectl taint is lost when a node is replaced); the pods already there stay until the nodes are drained "
            "or replaced, and the GPU pods and GPU agents (the device plugin) need a toleration of it: gpupool audit "
            "--stack STACK judges the DaemonSets on the pool as declared")
