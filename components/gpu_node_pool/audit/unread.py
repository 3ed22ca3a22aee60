"""DaemonSets the audit judges on no node and Pending pods it does not judge, and how the report says so: once per
object, each refused field with its reason and fix, and the verdict partial.

A DaemonSet whose pod spec the API server refuses (:func:`~gpu_node_pool.policies.workloads.pod_spec_refusals`: a
toleration with ``operator: Exists`` and a ``value``, an effect such as ``NO_SCHEDULE``, a ``nodeSelector`` value no
string...; ``ValidateTolerations``/``ValidatePodSpec`` in kubernetes ``pkg/apis/core/validation/validation.go``) never
gets a pod, so no verdict of where it runs is true of it (:mod:`gpu_node_pool.policies.daemonset_nodes`). A part of it
that is no object (``spec.template`` a string, a Pulumi secret, a value unknown before apply) is not judged alike.

:func:`unread_daemonset` gives, for such a DaemonSet:

* one :class:`~.findings.NotJudged` item per refused field (``spec.template.spec.tolerations[1].effect
  'NO_SCHEDULE': must be ...; fix: write NoSchedule``), the whole reason said once per DaemonSet, not per pool;
* the DaemonSet with a short ``problem`` naming the refused fields, which every cell of its row (live pools and
  what-if) shows after "not judged: ";
* the line that makes the report partial (``objectsSkipped``, a ``PARTIAL`` line): what the audit judged on no node
  is never clean (README, "Auditing a running cluster").

:func:`unread_pod` gives the same for a Pending pod whose spec the pending-pod verdict cannot read
(:mod:`.pending`): its not-judged items, one per refused field (``spec.tolerations[0].value ...``), and its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..policies.daemonset_nodes import DaemonSet
from ..policies.workloads import REFUSALS_NAMED, pod_spec_refusals
from ..sdk import props
from .findings import NotJudged

__all__ = ["Unread", "UnreadPod", "unread_daemonset", "unread_pod"]

#: Where a refused field of a DaemonSet lives, relative to the object.
_POD_SPEC = "spec.template.spec."
#: Where a refused field of a Pending pod lives, relative to the object.
_POD = "spec."
#: Where the short ``problem`` of a DaemonSet sends the reader for each field's reason and fix.
_SEE = "why and fix under Not judged"


@dataclass(frozen=True)
class Unread:
    """A DaemonSet judged on no node: ``ds`` (its ``problem`` short, for the cells), ``items`` (the not-judged items,
    one per refused field) and ``line`` (the ``objectsSkipped`` line that makes the report partial)."""

    ds: DaemonSet
    items: list[NotJudged]
    line: str


@dataclass(frozen=True)
class UnreadPod:
    """A Pending pod not judged: ``items`` (the not-judged items, one per refused field) and ``line`` (the
    ``objectsSkipped`` line that makes the report partial)."""

    items: list[NotJudged]
    line: str


def _refusals(pod_spec: object) -> list[tuple[str, str]]:
    """:func:`~gpu_node_pool.policies.workloads.pod_spec_refusals` of ``pod_spec``; ``[]`` when it is no mapping or
    holds a value unknown before apply (a stack's: the problem is then said as it was read)."""
    try:
        return pod_spec_refusals(pod_spec) if isinstance(pod_spec, Mapping) and pod_spec else []
    # a value unknown before apply: caught as Exception and told apart by name so that the audit never imports
    # pulumi_policy, whose UnknownValueError it is (sdk.props gives it lazily)
    except Exception as err:
        if not isinstance(err, props.UnknownValueError):
            raise
        return []


def _short(fields: list[str]) -> str:
    """The refused ``fields`` in one clause, up to :data:`REFUSALS_NAMED` named, sending the reader to each reason."""
    named = ", ".join(fields[:REFUSALS_NAMED]) + (f" and {len(fields) - REFUSALS_NAMED} more"
                                                  if len(fields) > REFUSALS_NAMED else "")
    return f"the API server refuses this pod spec ({named}; {_SEE})"


def unread_pod(subject: str, pod_spec: object, problem: str) -> UnreadPod:
    """What the report says of a Pending pod (``subject``: ``Pod ns/name``) whose ``pod_spec`` the pending-pod verdict
    could not read, ``problem`` saying why (:func:`.pending.pending_pods`): one not-judged item per field the API
    server refuses (``spec.<field> <why>``), or ``problem`` itself when it refuses none, and the line that makes the
    report partial."""
    refused = _refusals(pod_spec)
    lead = "Pending, not judged: "
    if not refused:
        return UnreadPod([NotJudged(subject, lead + problem)], f"{subject}: Pending pod not judged: {problem}")
    items = [NotJudged(subject, f"{lead}{_POD}{why}") for _, why in refused]
    return UnreadPod(items, f"{subject}: Pending pod not judged: {_short([_POD + name for name, _ in refused])}")


def unread_daemonset(ds: DaemonSet, *, stack_pools: list[str] | None = None) -> Unread:
    """What the report says of ``ds``, whose ``problem`` is set
    (:func:`~gpu_node_pool.policies.daemonset_nodes.read_daemonset`). ``stack_pools``: for a DaemonSet the stack deploys (``ds.origin == "stack"``), the declared
    pools' names, which the what-if judges it on none of until the stack is fixed; None for the cluster's."""
    refused = _refusals(ds.pod_spec)  # [] for a value unknown before apply: the problem as read_daemonset gave it
    stack = stack_pools is not None
    subject = f"DaemonSet {ds.display}" + (" (stack)" if stack else "")
    lead = "as the stack would deploy it, " if stack else ""
    pools = f" ({', '.join(stack_pools)})" if stack_pools else ""
    tail = f"; the what-if judges it on no declared pool{pools} until that is fixed in the stack" if stack else ""
    where = "the what-if judges it on no declared pool" if stack else "judged on no node"
    if not refused:  # a part that is no object, or a selection that cannot be read: one reason, as it was given
        return Unread(ds, [NotJudged(subject, f"{lead}{ds.problem}{tail}")], f"{subject}: {where}: {ds.problem}")
    short = _short([_POD_SPEC + name for name, _ in refused])
    items = [NotJudged(subject, f"{lead}{_POD_SPEC}{why}{tail}") for _, why in refused]
    return Unread(replace(ds, problem=short), items, f"{subject}: {where}: {short}")
