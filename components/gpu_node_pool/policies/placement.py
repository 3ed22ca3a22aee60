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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .. import registry
from ..backends._shared.node_labels import kubelet_labels
from ..k8s.discovery import discovered_by, labels_once_discovered
from ..k8s.selection import NodeLabels, excluding_keys, fits_node_name, node_matches, undecided_keys
from ..k8s.taints import Taint, Toleration
from ..text.terminal import shown
from .workloads import NodeSelection, Stay, stay_on

__all__ = ["Placement", "pool_nodes", "place", "place_on", "SELECTION_FIX", "PLAIN_NODES", "lands_on_plain_nodes",
           "PoolPlacements", "ContentIds", "StackPlacements", "placement_content"]

#: How a finding says to widen an agent's node selection (the chart values keys).
SELECTION_FIX = "widen its node selection (the chart values nodeSelector / affinity)"


@dataclass(frozen=True)
class Placement:
    """An agent on a pool's new nodes (or on one live node), the one verdict the plan, the pack, the plan
    page and the audit share.

    Attributes:
        status: ``runs`` (every kind of node), ``doesNotRun`` (a taint not tolerated), ``keptOff`` (its
            selection refuses every kind), ``partial`` (it refuses some kinds), ``notJudged`` (selection
            undecided on some kind and refused on none).
        missing: the taints it does not tolerate for good.
        excluded: per kind of node its selection refuses: ``(kind name, the label keys that refuse it)``.
        undecided: names of the kinds whose labels do not decide its selection.
        kinds: how many kinds of node were judged.
        pending: ``(label key, the agents that set it)`` for each key the selection reads that appears only
            once a discovery agent the caller did not name as installed runs (:mod:`gpu_node_pool.k8s.discovery`).
        unknowable: keys the selection reads that neither the pool declares, nor its platform sets, nor a
            known discovery agent adds: the product cannot know whether the nodes carry them.
        hidden: keys the selection reads that the nodes carry with a value known only at launch (the host name,
            the zone of a pool that does not pin one, a label an installed agent sets from the hardware).
        after: the discovery agents whose labels the verdict counted on (installed, judged elsewhere).
        admitted_when_absent: the undecided kinds the selection admits once the labels it reads that nothing
            known sets are taken as absent (a new node carries only its pool's, its platform's and its agents'
            labels): ``NotIn``/``DoesNotExist`` on such a label admit the node, ``In``/``Exists`` do not.
        refused: why the API server refuses the pod spec's placement fields (``NodeSelection.refused``): nothing
            is judged, every kind is ``undecided``.
        pinned: the pod spec's ``nodeName`` when some kind of node its labels do not keep off has no name yet (a
            pool's new nodes): whether it is that node is not known, so those kinds are ``undecided``.
    """

    status: str
    missing: tuple[Stay, ...] = ()
    excluded: tuple[tuple[str, tuple[str, ...]], ...] = ()
    undecided: tuple[str, ...] = field(default=())
    kinds: int = 1
    pending: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unknowable: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    admitted_when_absent: tuple[str, ...] = ()
    refused: str = ""
    pinned: str = ""
    hidden: tuple[str, ...] = ()

    @property
    def runs(self) -> bool:
        return self.status == "runs"

    def not_judged_text(self) -> str:
        """Why the placement is not judged (one clause): the field the API server refuses, the node name it is
        pinned to, or each label key its selection reads and who would set it."""
        if self.refused:
            return f"not judged: its pod template's {self.refused}"
        if self.pinned:
            return (f"not judged: its nodeName pins it to the node named {shown(self.pinned)}, and the DaemonSet "
                    "controller runs it on no other node; a pool's nodes are named only when they launch, so whether "
                    "that node is one of them is not known before deploy")
        why = []
        if self.pending:
            why += [f"{key}, a label that appears only once {' or '.join(agents)} runs on the node, and the stack "
                    "installs no such agent" for key, agents in self.pending[:4]]
        if self.unknowable:
            keys = ", ".join(self.unknowable[:4])
            why.append(f"{keys}: neither the pool declares it nor its platform or a known discovery agent sets it, "
                       "so the product cannot know whether the nodes carry it")
        if self.hidden:
            keys = ", ".join(self.hidden[:4])
            it = "it with a value" if len(self.hidden) == 1 else "them with values"
            why.append(f"{keys}: the pool's nodes carry {it} known only once they launch")
        if not why and self.undecided:  # no label left undecided: a term with matchFields
            why.append("matchFields in its required node affinity, which select nodes by name, not by the labels judged here")
        return "not judged: its node selection reads " + "; ".join(why) if why else ""

    def describe(self) -> str:
        """Why it does not run everywhere on the pool (one clause), or ``runs`` (with the agents it counts on).
        Made once per placement (it is immutable): a kept placement is described for every agent it stands for."""
        text = self.__dict__.get("_described")
        if text is None:
            text = self.__dict__["_described"] = self._describe()  # not a field: equality and hash ignore it
        return text

    def _describe(self) -> str:
        if self.status == "notJudged" and (self.refused or self.pinned):
            return self.not_judged_text()  # what it tolerates does not matter where it may not run at all
        why = []
        if self.excluded:
            kinds = "; ".join(f"{kind} (by {', '.join(keys) or 'its required node affinity'})" for kind, keys in self.excluded[:6])
            more = f" and {len(self.excluded) - 6} more" if len(self.excluded) > 6 else ""
            why.append(f"its node selection excludes {len(self.excluded)} of the pool's {self.kinds} kind(s) of node: {kinds}{more}")
        if self.missing:
            why.append("; ".join(s.describe() for s in self.missing))
        if not why and self.status == "notJudged":
            why.append(self.not_judged_text())
        if why:
            return ", and ".join(why)
        return "runs" + (f" once {' and '.join(self.after)} has labelled the node" if self.after else "")


def _plain_node(arch: str) -> NodeLabels:
    labels, unknown = kubelet_labels(arch)
    return NodeLabels(labels, frozenset(unknown), name=f"a {arch} node of no GPU pool", complete=True)


#: Nodes of no GPU pool: only the labels the kubelet sets on every Linux node
#: (:func:`~gpu_node_pool.backends._shared.node_labels.kubelet_labels`, its host name not known), no pool label,
#: no GPU or feature-discovery label; x86 and Arm.
PLAIN_NODES = tuple(_plain_node(arch) for arch in ("amd64", "arm64"))


def lands_on_plain_nodes(selection: NodeSelection) -> bool:
    """True when ``selection`` admits a node that carries no GPU or pool label (:data:`PLAIN_NODES`):
    a node agent placed so runs on every CPU node too. False for a selection the API server refuses and for one
    pinned to a node name (it runs on one node at most)."""
    if selection.refused or selection.node_name:
        return False
    return any(node_matches(selection.node_selector, selection.terms, node) is True for node in PLAIN_NODES)


def pool_nodes(pool: Any) -> list[NodeLabels]:
    """The kinds of node ``pool`` (a ``GpuPool``) will get, from its backend's ``node_labels``;
    its declared labels alone when the backend gives none or is not registered. Callers that place
    many DaemonSets on one pool work them out once (:class:`PoolPlacements`)."""
    backend = registry.find(pool.backend)
    fn = backend.fn("node_labels") if backend is not None else None
    if fn is not None:
        kinds = list(fn(pool))
        if kinds:
            return kinds
    return [NodeLabels(dict(pool.labels or {}), name="a node of the pool")]


def place(tolerations: Sequence[Toleration], selection: NodeSelection, pool: Any,
          nodes: Sequence[NodeLabels] | None = None, *, discovered: Iterable[str] = ()) -> Placement:
    """Whether pods with ``tolerations`` and ``selection`` run on every new node of ``pool`` (a ``GpuPool``:
    its ``taints``, and its kinds of node from :func:`pool_nodes` unless ``nodes`` are given).
    ``discovered``: the discovery agents the stack installs (:mod:`gpu_node_pool.k8s.discovery`), whose
    labels count as present on the pool's NVIDIA GPU nodes."""
    return place_on(tolerations, selection, pool.taints, list(nodes) if nodes is not None else pool_nodes(pool),
                    discovered=discovered)


class PoolPlacements:
    """:func:`place` on one pool's kinds of node, kept per content of ``(tolerations, selection)``: the
    DaemonSets of a stack often share them (copies of one chart), and each is judged on every kind of
    node of every pool. A selection or toleration that cannot be hashed is judged every time.

    Args:
        pool: a ``GpuPool``; ``nodes``: its kinds of node (:func:`pool_nodes`); ``discovered``: as for :func:`place`.
    """

    def __init__(self, pool: Any, nodes: Sequence[NodeLabels], *, discovered: Iterable[str] = ()) -> None:
        self.pool, self.nodes, self.discovered = pool, list(nodes), tuple(discovered)
        self._kept: dict[Any, Placement] = {}

    def __call__(self, tolerations: Sequence[Toleration], selection: NodeSelection, *,
                 content: ContentIds | None = None) -> Placement:
        """The placement of pods with ``tolerations`` and ``selection``. ``content``: the
        :class:`ContentIds` the caller numbered this pair with (every agent numbered once for all pools), so
        that the verdict is found by a number instead of by hashing the tolerations per pool."""
        try:
            key = content.id_of(tolerations, selection) if content is not None else placement_content(tolerations, selection)
            hit = self._kept.get(key)
        except TypeError:
            return place(tolerations, selection, self.pool, self.nodes, discovered=self.discovered)
        if hit is None:
            hit = self._kept[key] = place(tolerations, selection, self.pool, self.nodes, discovered=self.discovered)
        return hit


def placement_content(tolerations: Sequence[Toleration], selection: NodeSelection) -> tuple[Any, ...]:
    """What a placement depends on besides the pool, as a hashable value (``TypeError`` when it cannot be hashed)."""
    key = (tuple(tolerations), selection.node_selector, tuple((tuple(e), f) for e, f in selection.terms),
           selection.node_name, selection.refused)
    hash(key)
    return key


class ContentIds:
    """A number per distinct :func:`placement_content`, for :class:`PoolPlacements`: ``id_of`` hashes a pair's
    content once per pair of objects asked about (kept with them: no other object takes their ids meanwhile);
    equal contents get the same number, different ones different numbers."""

    def __init__(self) -> None:
        self._numbers: dict[tuple[Any, ...], int] = {}
        self._asked: dict[tuple[int, int], tuple[Any, Any, int]] = {}

    def id_of(self, tolerations: Sequence[Toleration], selection: NodeSelection) -> int:
        """The number of the pair's content. Raises ``TypeError`` when it cannot be hashed. The pair must not
        change once asked about (the readers' tolerations and selections never do)."""
        asked = self._asked.get((id(tolerations), id(selection)))
        if asked is not None:
            return asked[2]
        content = placement_content(tolerations, selection)
        number = self._numbers.setdefault(content, len(self._numbers))
        self._asked[(id(tolerations), id(selection))] = (tolerations, selection, number)
        return number


class StackPlacements:
    """Placements of agents on a stack's pools, kept for every rule of one evaluation
    (:func:`gpu_node_pool.policies.rules._shared._stack_placements`): each pool's kinds of node are worked out
    once, and each agent's content (numbered once, :class:`ContentIds`) is placed once per pool and set of
    installed discovery agents. A placement none of whose kinds of node needed a discovery agent's labels
    (nothing ``undecided``, nothing counted on ``after``) is the same whatever agents are installed, so it
    serves every set of them. The pools must not change while it is in use (the rules only read them).
    """

    def __init__(self) -> None:
        self.content = ContentIds()
        self._pools: dict[int, tuple[Any, list[NodeLabels]]] = {}  # id(pool) -> (pool, its kinds of node)
        self._kept: dict[tuple[int, int, tuple[str, ...]], Placement] = {}  # (id(pool), content, agents)
        self._any_agents: dict[tuple[int, int], Placement] = {}  # (id(pool), content): no agent's labels read

    def nodes(self, pool: Any) -> list[NodeLabels]:
        """``pool``'s kinds of node (:func:`pool_nodes`), once."""
        kept = self._pools.get(id(pool))
        if kept is None or kept[0] is not pool:
            kept = self._pools[id(pool)] = (pool, pool_nodes(pool))
        return kept[1]

    def __call__(self, pool: Any, tolerations: Sequence[Toleration], selection: NodeSelection, *,
                 discovered: Iterable[str] = ()) -> Placement:
        """:func:`place` of pods with ``tolerations`` and ``selection`` on ``pool`` with the discovery agents
        ``discovered``, kept. A selection or toleration that cannot be hashed is judged every time."""
        nodes, installed = self.nodes(pool), tuple(discovered)
        try:
            number = self.content.id_of(tolerations, selection)
        except TypeError:
            return place(tolerations, selection, pool, nodes, discovered=installed)
        key = (id(pool), number)
        hit = self._any_agents.get(key) or self._kept.get((*key, installed))
        if hit is None:
            hit = place(tolerations, selection, pool, nodes, discovered=installed)
            if hit.undecided or hit.after:  # some kind of node was judged on what the agents add
                self._kept[(*key, installed)] = hit
            else:
                self._any_agents[key] = hit
        return hit


def place_on(tolerations: Sequence[Toleration], selection: NodeSelection, taints: Iterable[Taint],
             nodes: Sequence[NodeLabels], *, discovered: Iterable[str] = ()) -> Placement:
    """The verdict of :class:`Placement` for nodes with ``taints`` and the labels of each of ``nodes``.

    A live node is one :class:`NodeLabels` with ``complete=True`` and its ``node_name`` (``gpupool audit``); a
    pool's future nodes are one per instance type and zone, with no name yet. A selection the API server refuses
    is not judged. Then, as the DaemonSet controller (``NodeShouldRunDaemonPod``): a ``nodeName`` other than the
    node's keeps it off (:func:`~gpu_node_pool.k8s.selection.fits_node_name`; a node with no name yet leaves it
    undecided), a node the selection refuses is kept off whatever it tolerates, and every ``NoSchedule``/
    ``NoExecute`` taint must be tolerated for good."""
    if selection.refused:
        return Placement("notJudged", undecided=tuple(n.name for n in nodes), kinds=len(nodes), refused=selection.refused)
    installed = tuple(discovered)
    missing = tuple(s for s in (stay_on(tolerations, t) for t in taints if t.effect.repels) if not s.ok)
    excluded, undecided = [], []
    unnamed: list[str] = []  # kinds not kept off whose name decides (nodeName set, no name yet)
    pending: dict[str, tuple[str, ...]] = {}
    unknowable: list[str] = []
    hidden: list[str] = []
    after: list[str] = []
    when_absent: list[str] = []
    for node in nodes:
        verdict = node_matches(selection.node_selector, selection.terms, node)
        seen = node  # the labels the keys left undecided are read on: with the installed agents' labels, if any
        if verdict is None and not node.complete:
            known, carried = labels_once_discovered(selection.keys, node.labels, installed)
            if known or carried:
                later = seen = node.adding(known, carried)
                verdict = node_matches(selection.node_selector, selection.terms, later)
                if verdict is not None:
                    after += [a for k in (*known, *carried) for a in (discovered_by(k).agents if discovered_by(k) else ())
                              if a in installed]
                    node = later
        fits = fits_node_name(selection.node_name, node)
        if fits is False:
            excluded.append((node.name, ("nodeName",)))
        elif verdict is False:
            excluded.append((node.name, tuple(excluding_keys(selection.node_selector, selection.terms, node))))
        elif fits is None:
            undecided.append(node.name)
            unnamed.append(node.name)
        elif verdict is None:
            undecided.append(node.name)
            if node_matches(selection.node_selector, selection.terms, replace(node, complete=True)) is True:
                when_absent.append(node.name)
            for key in undecided_keys(selection.node_selector, selection.terms, seen):
                row = discovered_by(key)
                if row is not None and not set(row.agents) & set(installed):
                    pending.setdefault(key, row.agents)
                elif key in seen.unknown:
                    hidden.append(key)
                else:  # no agent the stack installs sets it here, nor the pool or its platform
                    unknowable.append(key)
    if excluded and len(excluded) == len(nodes):
        status = "keptOff"
    elif unnamed:  # whether it should run there at all is not known: what it tolerates decides nothing
        status = "notJudged"
    elif missing:
        status = "doesNotRun"
    elif excluded:
        status = "partial"
    elif undecided:
        status = "notJudged"
    else:
        status = "runs"
    return Placement(status, missing, tuple(excluded), tuple(undecided), len(nodes), tuple(pending.items()),
                     tuple(dict.fromkeys(unknowable)), tuple(dict.fromkeys(after)), tuple(when_absent),
                     pinned=(selection.node_name or "") if unnamed else "", hidden=tuple(dict.fromkeys(hidden)))
