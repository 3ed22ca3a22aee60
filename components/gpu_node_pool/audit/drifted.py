"""Taints that drift reports on live nodes, and the fix every other finding gives for a taint among them.

With ``--stack``, :func:`.declared.drift` reports a taint on a node of a declared pool that the pool does not declare
(``imperative-taint``: remove it, or declare it) and one whose value differs from the declared one
(``taint-value-drift``: set the declared value back). A DaemonSet that such a taint stops (``daemonset-does-not-run``
in :mod:`.report`; a device plugin that a GPU-starved node lacks, :mod:`.starved`) is not told to tolerate it: that
would contradict the drift finding. Its fix names the drift finding instead:

* an undeclared taint: remove it from the node, or, if the pool is to declare it, tolerate it (the drift finding's
  two ways: remove it or declare it);
* a taint whose value drifted: set the declared value back, and, when the DaemonSet does not tolerate the declared
  taint either, tolerate that one.

A fix of several taints gives those no drift finding names first (with the other way out the finding offers), then
each drifted one, so that no clause reads as an alternative to a drift fix.

A taint no drift finding names gets the usual fix (:func:`~gpu_node_pool.policies.daemonset_nodes.stay_fix`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..k8s.taints import Taint, Toleration, tolerations_tolerate_taint
from ..policies.daemonset_nodes import DaemonSet, stay_fix, toleration_text
from ..policies.workloads import Stay
from .findings import Finding, see_findings

__all__ = ["UNDECLARED", "VALUE_DRIFT", "DriftedTaints", "taint_fix"]

#: The drift findings that name a taint on a node (:func:`.declared.drift`), each with ``data["taint"]``, the taint
#: the node carries (and for a value that drifted, ``data["declared"]``, the taint the pool declares).
UNDECLARED = "imperative-taint"
VALUE_DRIFT = "taint-value-drift"


def _taint_id(taint: Taint) -> tuple[Any, ...]:
    return (*taint.identity, taint.value)


@dataclass(frozen=True)
class DriftedTaints:
    """The drift findings of a report by the node and the taint they name. Empty without ``--stack``."""

    by_node: dict[tuple[str, tuple[Any, ...]], Finding] = field(default_factory=dict)

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> DriftedTaints:
        """The :data:`UNDECLARED` and :data:`VALUE_DRIFT` findings among ``findings`` (their subject ``Node <name>``)."""
        return cls({(f.subject.partition(" ")[2], _taint_id(f.data["taint"])): f for f in findings
                    if f.code in (UNDECLARED, VALUE_DRIFT) and "taint" in f.data})

    def on(self, taint: Taint, nodes: Iterable[str]) -> list[Finding]:
        """The drift findings naming ``taint`` on any of ``nodes``, in the order of ``nodes``."""
        found = (self.by_node.get((node, _taint_id(taint))) for node in nodes)
        return [f for f in found if f is not None]


def _see(findings: Sequence[Finding], taint: Taint) -> str:
    """Where the reader finds the drift findings naming ``taint`` (:func:`.findings.see_findings`: their subject and
    the taint their message names first)."""
    return see_findings([f.subject for f in findings], str(taint))


def taint_fix(ds: DaemonSet, taint: Taint, tol: Toleration, stay: Stay | None, nodes: Iterable[str],
              drifted: DriftedTaints) -> tuple[str, bool]:
    """``(fix, drift)``: the fix for one taint that stops ``ds`` on ``nodes`` (module docstring), and whether a drift
    finding names it there (then the fix names that finding and adds no toleration of the drifted taint alone)."""
    found = drifted.on(taint, nodes)
    if not found:
        return stay_fix(ds, taint, tol, stay), False
    first = found[0]
    if first.code == UNDECLARED:
        return (f"for {taint}, which drift reports (pool {first.pool} does not declare it: {_see(found, taint)}): remove it "
                f"from the node, or, if the pool is to declare it, tolerate it with {toleration_text(tol)}"), True
    declared: Taint = first.data["declared"]
    fix = (f"for {taint}, which drift reports (pool {first.pool} declares {declared}: {_see(found, taint)}): set the declared "
           "value back on the node")
    if not tolerations_tolerate_taint(ds.tolerations or (), declared):
        fix += f", and tolerate that taint with {toleration_text(Toleration.for_taint(declared, exists=True))}"
    return fix, True
