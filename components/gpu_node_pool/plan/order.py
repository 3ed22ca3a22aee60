"""A stable, causal order for the plan's resources.

Pulumi registers resources concurrently, so the order a program's resources arrive in changes from
run to run. :func:`causal_order` gives one order that depends only on the resources: every resource
comes after its parent (a component before what it creates) and after the resources it depends on
(``dependencies`` and ``property_dependencies``), and among the resources ready at a step the first
by type token, then name, then URN, then inputs comes first, so two runs of one stack list the same
resources in the same order.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Sequence
from typing import Any

__all__ = ["causal_order"]


def _key(resource: Any) -> tuple[str, str, str, str]:
    return (resource.type, resource.name, resource.urn, json.dumps(resource.inputs, sort_keys=True, default=str))


def _before(resource: Any, present: set[str]) -> set[str]:
    """The URNs among ``present`` that must come before ``resource``: its parent and its dependencies."""
    urns = {resource.parent, *resource.dependencies}
    for deps in (resource.property_dependencies or {}).values():
        urns.update(deps)
    return {u for u in urns if u and u in present and u != resource.urn}


def causal_order(resources: Sequence[Any]) -> list[Any]:
    """``resources`` (records with ``type``, ``name``, ``urn``, ``parent``, ``dependencies``,
    ``property_dependencies``, ``inputs``) in a topological order of parent and dependency edges, ready
    resources taken smallest :func:`_key` first. Edges to URNs that are not among the resources (the
    stack, an unrecorded URN) are left out. Returns a new list holding every resource once."""
    by_urn: dict[str, list[int]] = {}
    for i, r in enumerate(resources):
        if r.urn:
            by_urn.setdefault(r.urn, []).append(i)
    present = set(by_urn)
    waiting = [0] * len(resources)
    after: dict[str, list[int]] = {}
    for i, r in enumerate(resources):
        for urn in _before(r, present):
            waiting[i] += 1
            after.setdefault(urn, []).append(i)
    keys = [_key(r) for r in resources]
    ready = [(keys[i], i) for i in range(len(resources)) if waiting[i] == 0]
    heapq.heapify(ready)
    out: list[Any] = []
    done = [False] * len(resources)
    while ready:
        _, i = heapq.heappop(ready)
        done[i] = True
        out.append(resources[i])
        urn = resources[i].urn
        if urn and all(done[j] for j in by_urn[urn]):  # the URN is out once every record of it is
            for j in after.pop(urn, []):
                waiting[j] -= 1
                if waiting[j] == 0:
                    heapq.heappush(ready, (keys[j], j))
    # a cycle (which the engine would refuse) leaves resources unreached: keep them, sorted
    out += [resources[i] for i in sorted((i for i in range(len(resources)) if not done[i]), key=keys.__getitem__)]
    return out
