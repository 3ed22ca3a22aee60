"""The audit text's GPU pools at fleet size: one line per pool with its counts, then its exceptions.

A pool's nodes are compared by what the audit judges on each: its taints (and its malformed taints,
each named and pointed to its finding), its allocatable GPU resources and whether it is GPU-starved.
The signature most of the pool's nodes share (ties: the first node's) is the pool's line; every node that differs is listed below it
with what it has, so 500 alike nodes are one line and the two odd ones are named. ``--json`` still
lists every node (``gpuPools[].nodes``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .cluster import Node, Pool
from .findings import see_findings

__all__ = ["pool_lines"]

#: Exceptions listed per pool before the rest are counted ("and N more").
MAX_EXCEPTIONS = 20


def _signature(node: Node) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[tuple[str, int], ...], bool]:
    return (tuple(map(str, node.steady_taints)), tuple((b.where, b.place) for b in node.bad_taints),
            tuple(sorted(node.gpu_allocatable.items())),
            node.starved)


def _describe(signature: tuple, nodes: str) -> str:
    """The signature as a line says it; a malformed taint is named by its place and what it holds, and pointed to
    its finding on ``nodes`` (``each node``, ``Node gpu-1``) by its place, in the words of
    :func:`.findings.see_findings`, as ``STARVED`` stands for the starved node's finding: the finding, not the pool
    line, says why and the fix."""
    taints, bad, allocatable, starved = signature
    text = f"taints [{', '.join(taints)}] allocatable {', '.join(f'{k}={v}' for k, v in allocatable) or 'none'}"
    if bad:
        places = " and ".join(place for _, place in bad)
        text += f" malformed taints [{', '.join(where for where, _ in bad)}] ({see_findings([nodes], places)})"
    return text + (" STARVED" if starved else "")


def pool_lines(pools: Iterable[Pool]) -> list[str]:
    """``  <pool id>: <n> node(s), <k> alike: taints [...] allocatable ...`` per pool, then
    ``    exception <node>: ...`` per node that differs (at most :data:`MAX_EXCEPTIONS`), then
    ``    transient on <node>: ...`` per node with taints a controller put there for a while (``Node.transient_taints``,
    left out of the comparison: :mod:`.transient`)."""
    lines = []
    for pool in pools:
        if not pool.nodes:
            lines.append(f"  {pool.id}: 0 node(s)")
            continue
        signatures = [_signature(n) for n in pool.nodes]
        counts = Counter(signatures)
        top = max(counts.values())
        common = next(s for s in signatures if counts[s] == top)
        alike = "all alike" if top == len(signatures) else f"{top} alike"
        starved = sum(n.starved for n in pool.nodes)
        lines.append(f"  {pool.id}: {len(pool.nodes)} node(s), {alike}: {_describe(common, 'each node' if len(pool.nodes) > 1 else f'Node {pool.nodes[0].name}')}"
                     + (f"; {starved} starved" if starved else ""))
        odd = [(n, s) for n, s in zip(pool.nodes, signatures, strict=True) if s != common]
        lines += [f"    exception {n.name}: {_describe(s, f'Node {n.name}')}" for n, s in odd[:MAX_EXCEPTIONS]]
        passing = [n for n in pool.nodes if n.transient_taints]
        lines += [f"    transient on {n.name}: {', '.join(map(str, n.transient_taints))} (a controller's, see Notes)"
                  for n in passing[:MAX_EXCEPTIONS]]
        if len(passing) > MAX_EXCEPTIONS:
            lines.append(f"    and {len(passing) - MAX_EXCEPTIONS} more node(s) with transient taints (see Notes)")
        if len(odd) > MAX_EXCEPTIONS:
            lines.append(f"    and {len(odd) - MAX_EXCEPTIONS} more exception(s) (--json lists every node)")
    return lines
