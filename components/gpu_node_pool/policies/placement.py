"""Will a GPU agent's DaemonSet run on a pool's new nodes? Tolerations *and* node selection.

A daemon pod runs on a node when its required node selection admits the node's labels and its
tolerations tolerate every ``NoSchedule``/``NoExecute`` taint (``nodeShouldRunDaemonPod`` in
kubernetes ``pkg/controller/daemon/daemon_controller.go``;
https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/). Taints are matched by
:mod:`gpu_node_pool.k8s.taints` (through :func:`~gpu_node_pool.policies.workloads.stay_on`);
selection by :func:`gpu_node_pool.k8s.selection.node_matches` against the labels the pool's nodes
will carry: the pool's own labels plus those its platform sets, one
:class:`~gpu_node_pool.k8s.selection.NodeLabels` per instance type and zone, from the backend's
``node_labels`` in the registry. A pool whose backend gives none is judged on its declared labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import registry
from ..k8s.selection import NodeLabels, excluding_keys, node_matches
from ..k8s.taints import Toleration
from .workloads import NodeSelection, Stay, stay_on

__all__ = ["Placement", "pool_nodes", "place", "SELECTION_FIX", "PLAIN_NODES", "lands_on_plain_nodes"]

#: How a finding says to widen an agent's node selection (the chart values keys).
SELECTION_FIX = "widen its node selection (the chart values nodeSelector / affinity)"


@dataclass(frozen=True)
class Placement:
    """An agent on a pool's new nodes.

    Attributes:
        status: ``runs`` (every kind of node), ``doesNotRun`` (a taint not tolerated), ``keptOff`` (its
            selection refuses every kind), ``partial`` (it refuses some kinds), ``notJudged`` (selection
            undecided on some kind and refused on none).
        missing: the taints it does not tolerate for good.
        excluded: per kind of node its selection refuses: ``(kind name, the label keys that refuse it)``.
        undecided: names of the kinds whose labels do not decide its selection.
    """

    status: str
    missing: tuple[Stay, ...] = ()
    excluded: tuple[tuple[str, tuple[str, ...]], ...] = ()
    undecided: tuple[str, ...] = field(default=())
    kinds: int = 1

    @property
    def runs(self) -> bool:
        return self.status == "runs"

    def describe(self) -> str:
        """Why it does not run everywhere on the pool (one clause), or ``runs``."""
        why = []
        if self.excluded:
            shown = "; ".join(f"{kind} (by {', '.join(keys) or 'its required node affinity'})" for kind, keys in self.excluded[:6])
            more = f" and {len(self.excluded) - 6} more" if len(self.excluded) > 6 else ""
            why.append(f"its node selection excludes {len(self.excluded)} of the pool's {self.kinds} kind(s) of node: {shown}{more}")
        if self.missing:
            why.append("; ".join(s.describe() for s in self.missing))
        if not why and self.undecided:
            why.append(f"its node selection is not decided by the labels of {', '.join(self.undecided[:3])}")
        return ", and ".join(why) or "runs"


#: Nodes of no GPU pool: only the labels every Linux node gets (https://kubernetes.io/docs/reference/labels-annotations-taints/),
#: no pool label, no GPU or feature-discovery label; x86 and Arm.
PLAIN_NODES = tuple(
    NodeLabels({"kubernetes.io/os": "linux", "kubernetes.io/arch": arch}, name=f"a {arch} node of no GPU pool", complete=True)
    for arch in ("amd64", "arm64")
)


def lands_on_plain_nodes(selection: NodeSelection) -> bool:
    """True when ``selection`` admits a node that carries no GPU or pool label (:data:`PLAIN_NODES`):
    a node agent placed so runs on every CPU node too."""
    return any(node_matches(selection.node_selector, selection.terms, node) is True for node in PLAIN_NODES)


def pool_nodes(pool: Any) -> list[NodeLabels]:
    """The kinds of node ``pool`` (a ``GpuPool``) will get, from its backend's ``node_labels``;
    its declared labels alone when the backend gives none or is not registered."""
    backend = registry.find(pool.backend)
    fn = backend.fn("node_labels") if backend is not None else None
    if fn is not None:
        kinds = list(fn(pool))
        if kinds:
            return kinds
    return [NodeLabels(dict(pool.labels or {}), name="a node of the pool")]


def place(tolerations: Sequence[Toleration], selection: NodeSelection, pool: Any,
          nodes: Sequence[NodeLabels] | None = None) -> Placement:
    """Whether pods with ``tolerations`` and ``selection`` run on every new node of ``pool``."""
    missing = tuple(s for s in (stay_on(tolerations, t) for t in pool.taints if t.effect.repels) if not s.ok)
    nodes = list(nodes) if nodes is not None else pool_nodes(pool)
    excluded, undecided = [], []
    for node in nodes:
        verdict = node_matches(selection.node_selector, selection.terms, node)
        if verdict is False:
            excluded.append((node.name, tuple(excluding_keys(selection.node_selector, selection.terms, node))))
        elif verdict is None:
            undecided.append(node.name)
    if missing:
        status = "doesNotRun"
    elif excluded:
        status = "keptOff" if len(excluded) == len(nodes) else "partial"
    elif undecided:
        status = "notJudged"
    else:
        status = "runs"
    return Placement(status, missing, tuple(excluded), tuple(undecided), len(nodes))
