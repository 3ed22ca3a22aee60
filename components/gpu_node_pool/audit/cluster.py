"""The nodes of a cluster as the audit sees them: GPU or not, which pool, which taints.

A node is a GPU node when it has GPU capacity (``nvidia.com/gpu``, ``nvidia.com/gpu.shared``,
``nvidia.com/mig-*``), a GPU label (NVIDIA GPU feature discovery, GKE, EKS, Karpenter, NFD), an
NVIDIA EC2 instance type, or a pool label of a declared GPU pool. Pools are read from the
labels the node's pool owner sets; ours first, because an EKS node of a ``GpuNodePool``
carries both ``gpu-node-pools/pool`` and the node group label.

Sources of the label keys: EKS managed node groups set ``eks.amazonaws.com/nodegroup``
(https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html); GKE sets
``cloud.google.com/gke-nodepool`` and ``cloud.google.com/gke-accelerator``
(https://cloud.google.com/kubernetes-engine/docs/how-to/gpus); Karpenter sets
``karpenter.sh/nodepool`` and ``karpenter.k8s.aws/instance-gpu-*``
(https://karpenter.sh/docs/reference/instance-types/); NVIDIA GPU feature discovery sets
``nvidia.com/gpu.present``/``gpu.count``/``gpu.product``; NFD sets
``feature.node.kubernetes.io/pci-10de.present`` (10de: NVIDIA's PCI vendor id).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..catalog.instances import is_nvidia_instance_type
from ..k8s.controller_taints import is_transient
from ..k8s.effects import node_effect_problem
from ..k8s.integers import INT64_MAX
from ..k8s.quantity import QuantityError, quantity
from ..k8s.taints import PLATFORMS, K8sTaintError, Taint, TaintError
from ..text.terminal import shown
from .shapes import json_text

__all__ = ["POOL_LABELS", "GPU_RESOURCES", "BadTaint", "Node", "Pool", "read_node", "with_declared", "group_pools", "detect_platform"]

#: (label key, what sets it), in the order a node's pool is read.
POOL_LABELS: tuple[tuple[str, str], ...] = (
    ("gpu-node-pools/pool", "GpuNodePool"),
    ("karpenter.sh/nodepool", "Karpenter NodePool"),
    ("eks.amazonaws.com/nodegroup", "EKS node group"),
    ("cloud.google.com/gke-nodepool", "GKE node pool"),
)
#: Extended resources that mean "this node can run GPU work" (``nvidia.com/mig-*`` by prefix).
GPU_RESOURCES = ("nvidia.com/gpu", "nvidia.com/gpu.shared")
_MIG_PREFIX = "nvidia.com/mig-"
#: label key -> value that marks a GPU node (None: any value; "+": a positive integer).
_GPU_LABELS: dict[str, str | None] = {
    "nvidia.com/gpu.present": "true",
    "nvidia.com/gpu.count": "+",
    "nvidia.com/gpu.product": None,
    "cloud.google.com/gke-accelerator": None,
    "k8s.amazonaws.com/accelerator": None,
    "karpenter.k8s.aws/instance-gpu-count": "+",
    "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia",
    "feature.node.kubernetes.io/pci-10de.present": "true",
}
_INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
#: The largest device count Kubernetes holds: the kubelet's device manager counts a resource's devices as an int64
#: (its capacity is ``resource.NewQuantity(int64(n), resource.DecimalSI)``), and apimachinery's ``resource.Quantity``
#: gives a count as an int64 (``Value``, ``AsInt64``; kubernetes/apimachinery pkg/api/resource/quantity.go).
_COUNT_MAX = INT64_MAX
_TOO_MANY = ("more devices than Kubernetes can count (a device count is an int64, at most 9223372036854775807: "
             "apimachinery resource.Quantity Value/AsInt64, kubernetes/apimachinery pkg/api/resource/quantity.go); "
             "a kubelet never reports it: the dump was edited or is not a Node's status as the API serves it")
#: What the API server takes as a GPU count: a device count, whole and not negative.
_NOT_A_COUNT = ("the API server refuses it in a Node's status.capacity and status.allocatable (a quantity there is not "
                "negative, and an extended resource's is a whole number: ValidateResourceQuantityValue, kubernetes/"
                "kubernetes pkg/apis/core/validation/validation.go; extended resources: https://kubernetes.io/docs/"
                "concepts/configuration/manage-resources-containers/#extended-resources); a kubelet never reports it: "
                "the dump was edited or is not a Node's status as the API serves it")
#: How :func:`~gpu_node_pool.k8s.taints.k8s_taint_problems` starts a problem of a taint's effect (a wrong one, none).
_EFFECT_PROBLEM = (".effect ", " has no effect")
#: The fix of a taint of the wrong shape (a bad key or value, no object).
_TAINT_FIX = "fix or remove the taint (kubectl taint nodes NODE KEY:EFFECT-)"


@dataclass(frozen=True)
class BadTaint:
    """A taint a Node carries that Kubernetes would refuse: ``text`` says what the node carries and why (its place,
    ``spec.taints[0] {...}: ...``), ``fix`` what to do. ``str()`` is ``text``.

    ``where`` is the place and what it holds (``spec.taints[0] {"key": ..., "effect": "NO_SCHEDULE"}``), ``place``
    the place alone (``spec.taints[0]``). A taint whose only fault is an effect Kubernetes does not have keeps its
    ``key``, ``value`` and the ``effect`` as spelt, for drift to tell a declared taint that the node carries
    misspelt (:func:`.declared.drift`); ``key`` is None otherwise."""

    text: str
    fix: str = _TAINT_FIX
    where: str = ""
    place: str = ""
    key: str | None = None
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass
class Node:
    """One Node, read.

    Attributes:
        name: ``metadata.name``.
        labels: every label (a complete set: a missing key is missing).
        taints: the taints that could be read; ``bad_taints`` says which could not, why and the fix
            (:class:`BadTaint`: a taint of the wrong shape or an effect Kubernetes does not have).
        gpu_allocatable: GPU resource name -> allocatable count (only the GPU resources).
        bad_resources: GPU capacity or allocatable values that are not Kubernetes quantities
            (``"lots"``), negative (``"-1"``), not whole (``"1.5"``, ``"500m"``) or more than a device count's int64
            holds (``"1e400"``), left out of the counts and named here; a node with one in its allocatable is not
            judged starved, and one with a label of a GPU node stays a GPU node.
        gpu_uncounted: the GPU resources ``status.capacity`` advertises beyond an int64 count (in ``bad_resources``
            too): still evidence of a GPU node.
        gpu_evidence: why the node counts as a GPU node ("" for a CPU node).
        pool: ``(label key, value)`` of its pool, or None.
        os_image: ``status.nodeInfo.osImage`` (Bottlerocket NVIDIA variants ship a device plugin).
    """

    name: str
    labels: dict[str, str]
    taints: list[Taint]
    bad_taints: list[BadTaint] = field(default_factory=list)
    gpu_capacity: dict[str, int] = field(default_factory=dict)
    gpu_allocatable: dict[str, int] = field(default_factory=dict)
    bad_resources: list[str] = field(default_factory=list)
    gpu_uncounted: list[str] = field(default_factory=list)
    gpu_evidence: str = ""
    pool: tuple[str, str] | None = None
    provider_id: str = ""
    os_image: str = ""
    ready: bool | None = None

    @property
    def is_gpu(self) -> bool:
        return bool(self.gpu_evidence)

    @property
    def transient_taints(self) -> list[Taint]:
        """The taints a controller puts on the node for a while (draining, disrupting, deleting it, or a node
        condition: :func:`~gpu_node_pool.k8s.controller_taints.is_transient`), in the node's order."""
        return [t for t in self.taints if is_transient(t.key)]

    @property
    def steady_taints(self) -> list[Taint]:
        """The node's taints without :attr:`transient_taints`: what its pool keeps on every node, the taints the
        DaemonSet verdicts, the pool summary and the fixes are judged on (:mod:`.transient`)."""
        return [t for t in self.taints if not is_transient(t.key)]

    @property
    def starved(self) -> bool:
        """A GPU node none of whose GPU resources is allocatable > 0 (and none unreadable)."""
        unreadable = any(bad.startswith("status.allocatable") for bad in self.bad_resources)
        return self.is_gpu and not unreadable and not any(v > 0 for v in self.gpu_allocatable.values())


@dataclass
class Pool:
    """Nodes that share a pool label. ``key`` is ``(label key, value)``; ``kind`` names its owner."""

    key: tuple[str, str]
    kind: str
    nodes: list[Node]

    @property
    def name(self) -> str:
        return self.key[1]

    @property
    def id(self) -> str:
        """Unique across owners: ``GpuNodePool inference``, ``EKS node group gpu-a``."""
        return f"{self.kind} {self.key[1]}"

    @property
    def is_gpu(self) -> bool:
        return any(n.is_gpu for n in self.nodes)


def _gpu_counts(resources: Any, where: str, bad: list[str], huge: list[str] | None = None) -> dict[str, int]:
    """GPU resource -> count of ``resources`` (``status.capacity`` or ``.allocatable``, a mapping or None); what is
    not a quantity, negative, not a whole number or more than an int64 count is described in ``bad`` and left out (the
    names of the last also in ``huge``)."""
    out: dict[str, int] = {}
    for name, value in (resources or {}).items():
        if name in GPU_RESOURCES or str(name).startswith(_MIG_PREFIX):
            try:
                qty = quantity(value)
            except QuantityError:
                bad.append(f"{where}.{shown(name, quote=False)} {shown(value)}: not a Kubernetes quantity "
                           "(apimachinery resource.Quantity: digits with an optional suffix, such as '4')")
                continue
            said = f"{where}.{shown(name, quote=False)} {shown(value)}"
            if qty > _COUNT_MAX:
                bad.append(f"{said}: {_TOO_MANY}")
                if huge is not None:
                    huge.append(str(name))
                continue
            if qty < 0 or qty.denominator != 1:
                bad.append(f"{said}: {'a negative' if qty < 0 else 'not a whole'} number of devices, {_NOT_A_COUNT}")
                continue
            out[name] = int(qty)
    return out


def _gpu_evidence(labels: Mapping[str, str], capacity: Mapping[str, int], pool_names: set[str],
                  uncounted: Iterable[str] = ()) -> str:
    for name, count in sorted(capacity.items()):
        if count > 0:
            return f"capacity {name}={count}"
    for name in sorted(uncounted):
        return f"capacity {name} (more than an int64 count)"
    for key, want in _GPU_LABELS.items():
        have = labels.get(key)
        if have is None:
            continue
        if want is None or have == want or (want == "+" and have.isdigit() and int(have) > 0):
            return f"label {key}={have}"
    for key in _INSTANCE_TYPE_LABELS:
        if is_nvidia_instance_type(labels.get(key, "")):
            return f"instance type {labels[key]} (NVIDIA GPU family)"
    pool = labels.get("gpu-node-pools/pool")
    if pool is not None and pool in pool_names:
        return f"label gpu-node-pools/pool={pool} (a declared GPU pool)"
    return ""


def read_node(obj: Mapping[str, Any], declared_pools: Iterable[str] = ()) -> Node:
    """Read a Node object (a plain mapping, camelCase as the API serves it).

    Its fields have the shapes of :data:`.shapes.FIELDS` (``Node``; the audit skips a Node of other shapes before it
    reads it). A taint Kubernetes would reject (a wrong effect, a bad key) is kept out of ``taints`` and
    described in ``bad_taints`` (the audit turns it into a finding for that node); an effect is described as the
    live object carries it (:func:`~gpu_node_pool.k8s.effects.node_effect_problem`), not as a stack file's.
    """
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
    taints: list[Taint] = []
    bad: list[BadTaint] = []
    for i, raw in enumerate(spec.get("taints") or []):
        try:
            taints.append(Taint.from_k8s(raw))
        except TaintError as err:
            bad.append(_bad_taint(f"spec.taints[{i}]", raw, err))
    bad_resources: list[str] = []
    uncounted: list[str] = []
    capacity = _gpu_counts(status.get("capacity"), "status.capacity", bad_resources, uncounted)
    allocatable = _gpu_counts(status.get("allocatable"), "status.allocatable", bad_resources)
    ready = None
    for cond in status.get("conditions") or []:
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            ready = cond.get("status") == "True"
    pool = next(((key, labels[key]) for key, _ in POOL_LABELS if key in labels), None)
    return Node(
        name=str(meta.get("name", "")),
        labels=labels,
        taints=taints,
        bad_taints=bad,
        gpu_capacity=capacity,
        gpu_allocatable=allocatable,
        bad_resources=bad_resources,
        gpu_uncounted=uncounted,
        gpu_evidence=_gpu_evidence(labels, capacity, set(declared_pools), uncounted),
        pool=pool,
        provider_id=str(spec.get("providerID", "")),
        os_image=str((status.get("nodeInfo") or {}).get("osImage", "")),
        ready=ready,
    )


def _bad_taint(place: str, raw: Any, err: TaintError) -> BadTaint:
    """The :class:`BadTaint` of the taint ``raw`` at ``place`` (``spec.taints[0]``) that :meth:`Taint.from_k8s` refused
    with ``err``: an effect Kubernetes does not have is said of the live object
    (:func:`~gpu_node_pool.k8s.effects.node_effect_problem`), followed by the reader's other problems of the same taint
    (its key, its value: the ``problems`` of :class:`~gpu_node_pool.k8s.taints.K8sTaintError`, judged once, by the reader), each
    whole with its rule and fix; anything else as ``err`` says it."""
    where = f"{place} {json_text(raw)}"
    problem = node_effect_problem(raw.get("effect", "")) if isinstance(raw, Mapping) else None
    if problem is None:
        return BadTaint(f"{where}: {shown(err, quote=False, limit=200)}", where=where, place=place)
    why, fix = problem
    problems = err.problems if isinstance(err, K8sTaintError) else ()
    others = [f"taint {p[1:]}" for p in problems if not p.startswith(_EFFECT_PROBLEM)]
    if others:
        return BadTaint(f"{where}: {why}; and its {'; '.join(others)}", fix, where, place)  # each bounded by the reader
    value = raw.get("value")
    return BadTaint(f"{where}: {why}", fix, where, place, raw["key"], "" if value is None else value,
                    str(raw.get("effect")))


def with_declared(node: Node, declared_pools: Iterable[str]) -> Node:
    """``node`` with its GPU evidence as :func:`read_node` gives it when ``declared_pools`` (names of
    the stack's GPU pools) are known: a node labelled with one of them is a GPU node."""
    return replace(node, gpu_evidence=_gpu_evidence(node.labels, node.gpu_capacity, set(declared_pools),
                                                    node.gpu_uncounted))


def group_pools(nodes: Iterable[Node]) -> list[Pool]:
    """Nodes grouped by pool label, GPU pools first, then by pool id; nodes without a pool
    label form one pool each (kind ``node``), so nothing is left out."""
    kinds = dict(POOL_LABELS)
    pools: dict[tuple[str, str], Pool] = {}
    for node in nodes:
        key = node.pool or ("kubernetes.io/hostname", node.name)
        kind = kinds.get(key[0], "node")
        pools.setdefault(key, Pool(key, kind, [])).nodes.append(node)
    return sorted(pools.values(), key=lambda p: (not p.is_gpu, p.id))


def detect_platform(nodes: Iterable[Node]) -> tuple[str, str]:
    """``(platform, evidence)``: ``eks`` or ``gke`` from node labels or provider ids, else
    ``self-managed``. (A kubeadm cluster on EC2 also has ``aws://`` provider ids: EKS is
    recognised by its own labels only; pass ``--platform`` to override.)"""
    for node in nodes:
        for key in node.labels:
            if key.startswith("eks.amazonaws.com/") or key.startswith("karpenter.k8s.aws/"):
                return "eks", f"node {node.name} label {key}"
            if key.startswith("cloud.google.com/gke-"):
                return "gke", f"node {node.name} label {key}"
        if node.provider_id.startswith("gce://"):
            return "gke", f"node {node.name} providerID {node.provider_id}"
    assert "self-managed" in PLATFORMS
    return "self-managed", "no EKS or GKE node label found"
