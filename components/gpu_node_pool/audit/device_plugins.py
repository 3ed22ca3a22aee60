"""Two NVIDIA device plugins on one GPU node: the one detector, for the live cluster and the what-if.

A DaemonSet is an NVIDIA device plugin by :func:`.starved.is_device_plugin` (NVIDIA's chart, static manifest, GPU
Operator, or GKE's, by image or name), and it runs on a node when its verdict there is ``runs``
(:func:`~gpu_node_pool.policies.daemonset_nodes.judge`: its tolerations and node selection against the node's taints
and labels, which is where the DaemonSet controller creates its pod). Two of them on one node, or one on a node whose
image runs its own (the what-if's pools with ``device_plugin_source`` ``image``: Bottlerocket NVIDIA, EKS Auto Mode),
each register ``nvidia.com/gpu`` with the node's kubelet, whose device manager keeps one endpoint per resource name and
replaces it on each registration (kubernetes/kubernetes ``pkg/kubelet/cm/devicemanager/manager.go``,
``registerEndpoint``; https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/), so
allocations flap between them. The pack says so of two plugins landing on one pool (``device-plugin-covers-gpu-pools``).

* :func:`plugins_together` is the detector; :mod:`.whatif` applies it to the nodes a declared pool would get
  (``whatif-two-device-plugins``).
* :func:`live_two_plugins` applies it to the cluster's GPU pools as they are (``two-device-plugins``, mandatory), with
  or without ``--stack``. A node where one plugin runs and another's verdict is not judged is listed as not judged for
  this verdict, with why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..k8s.wellknown import NVIDIA_GPU_RESOURCE
from ..policies.daemonset_nodes import DaemonSet, NodeVerdict
from .cluster import Pool
from .findings import Finding, NotJudged, shown_names
from .starved import is_device_plugin

__all__ = ["CODE", "REGISTERS", "plugins_together", "live_two_plugins"]

#: The live finding's code (the what-if's is ``whatif-two-device-plugins``).
CODE = "two-device-plugins"
#: Why two plugins on one node is wrong, as the findings say it after "each".
REGISTERS = (f"registers {NVIDIA_GPU_RESOURCE} with the node's kubelet, which keeps one registration per resource "
             "name (the last: kubernetes/kubernetes pkg/kubelet/cm/devicemanager/manager.go registerEndpoint), so "
             "allocations flap between them")


def plugins_together(judged: Sequence[tuple[DaemonSet, Sequence[NodeVerdict]]], places: int,
                     own: bool = False) -> tuple[list[int], list[int]]:
    """``(where, which)``: the places (``0 .. places-1``, an index into each DaemonSet's verdicts) where two NVIDIA
    device plugins among ``judged`` run, or one runs and the node image runs its own (``own``); and the indexes in
    ``judged`` of the plugins that run there, in the order of ``judged``. ``([], [])`` when there is no such place."""
    where: list[int] = []
    landing: set[int] = set()
    for i in range(places):
        here = [k for k, (ds, verdicts) in enumerate(judged) if is_device_plugin(ds) and verdicts[i].status == "runs"]
        if len(here) + own >= 2:
            where.append(i)
            landing.update(here)
    return where, sorted(landing)


def live_two_plugins(pools: Sequence[Pool], daemonsets: Sequence[DaemonSet],
                     verdicts_by_node: Mapping[str, Mapping[str, NodeVerdict]]) -> tuple[list[Finding], list[NotJudged]]:
    """``two-device-plugins`` per GPU pool of the cluster (module docstring): the NVIDIA device plugins among
    ``daemonsets`` that run together on a node of the pool, the nodes, and the fix per plugin (remove it, or keep it
    off these nodes by its node selection). ``verdicts_by_node``: node name -> DaemonSet display -> its verdict there.
    Also, per pool, the nodes where one plugin runs and another's verdict is not judged: not judged, with why."""
    plugins = [ds for ds in daemonsets if is_device_plugin(ds)]
    findings: list[Finding] = []
    not_judged: list[NotJudged] = []
    if not plugins:
        return findings, not_judged
    for pool in pools:
        judged = [(ds, [verdicts_by_node[n.name][ds.display] for n in pool.nodes]) for ds in plugins]
        where, which = plugins_together(judged, len(pool.nodes))
        if where:
            found = [judged[k][0] for k in which]
            nodes = shown_names([pool.nodes[i].name for i in where])
            names = ", ".join(ds.display for ds in found)
            fix = "keep one device plugin per node: " + ", or ".join(
                f"remove {ds.display} (kubectl -n {ds.namespace} delete daemonset {ds.name})" for ds in found)
            fix += f", or keep all but one off {pool.id}'s nodes by their node selection (nodeSelector/required node affinity)"
            findings.append(Finding(
                "mandatory", CODE, "DaemonSets " + " and ".join(ds.display for ds in found),
                f"{len(found)} NVIDIA device plugins run on {nodes} of {pool.id} (their tolerations and node selection "
                f"place them there, where the DaemonSet controller creates their pods): {names}; each {REGISTERS}",
                fix, pool.id))
        unknown = []
        for i, node in enumerate(pool.nodes):
            running = [ds for ds, verdicts in judged if verdicts[i].status == "runs"]
            undecided = [(ds, verdicts[i]) for ds, verdicts in judged if verdicts[i].status == "notJudged"]
            if running and undecided and i not in where:
                unknown.append((node.name, undecided))
        if unknown:
            nodes = shown_names([name for name, _ in unknown])
            first = unknown[0][1][0]
            not_judged.append(NotJudged(
                f"two device plugins on {pool.id}",
                f"a device plugin runs on {nodes}, and whether {first[0].display} runs there too is not judged "
                f"({first[1].reason or 'its verdict there is not judged'}), so whether two NVIDIA device plugins "
                f"register {NVIDIA_GPU_RESOURCE} there is not judged"))
    return findings, not_judged
