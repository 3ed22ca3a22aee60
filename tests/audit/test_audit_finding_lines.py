"""The audit's findings alike about many nodes share one line (a cluster of thousands of starved nodes)."""

from __future__ import annotations

from gpu_node_pool.audit.findings import SHOWN_SUBJECTS, Finding, finding_lines

STARVED = ("no GPU resource is allocatable: no NVIDIA device plugin DaemonSet is in the cluster",
           "install the device plugin (NvidiaDevicePlugin, or GKE's managed one)")


def starved(name: str) -> Finding:
    return Finding("mandatory", "gpu-node-starved", f"Node {name}", *STARVED)


def test_findings_alike_about_nodes_share_a_line_naming_them_and_counting_the_rest():
    nodes = [f"gpu-{i}" for i in range(SHOWN_SUBJECTS + 3)]
    other = Finding("mandatory", "daemonset-does-not-run", "DaemonSet logging/fluent-bit", "does not run", "tolerate it")
    lines = finding_lines([starved(nodes[0]), other, *map(starved, nodes[1:])])
    assert lines == [
        f"[mandatory] {len(nodes)} Nodes ({', '.join(nodes[:SHOWN_SUBJECTS])}, and 3 more): {STARVED[0]} -> {STARVED[1]}",
        "[mandatory] DaemonSet logging/fluent-bit: does not run -> tolerate it",
    ]


def test_findings_that_differ_in_message_level_or_kind_keep_their_own_lines():
    lines = finding_lines([
        starved("a"),
        Finding("mandatory", "gpu-node-starved", "Node b", "another reason", STARVED[1]),
        Finding("advisory", "gpu-node-starved", "Node c", *STARVED),
        Finding("mandatory", "gpu-node-starved", "Pool c", *STARVED),
        Finding("info", "note", "stack", "a stack-wide note"),
    ], " Fix: ")
    assert lines == [
        f"[mandatory] Node a: {STARVED[0]} Fix: {STARVED[1]}",
        f"[mandatory] Node b: another reason Fix: {STARVED[1]}",
        f"[advisory] Node c: {STARVED[0]} Fix: {STARVED[1]}",
        f"[mandatory] Pool c: {STARVED[0]} Fix: {STARVED[1]}",
        "[info] stack: a stack-wide note",
    ]
