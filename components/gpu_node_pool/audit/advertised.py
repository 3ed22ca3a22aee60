"""A node's advertised GPU resources (``status.capacity``) against what its declared pool promises.

The promise is the plan's ``pools[].gpus.advertised`` (``gpu_agents/promise.py``: the figures the
Cluster Autoscaler node-template tags are rendered from). A node that advertises something else makes
the autoscaler size from a wrong template and leaves pods Pending: for a MIG pool partitioned by the GPU
Operator, a node without the ``nvidia.com/mig.config`` label is labelled ``all-disabled`` by the operator
(NVIDIA/gpu-operator@v26.7.0 ``controllers/nodelabeling_controller.go``) and shows whole GPUs; without its
``nvidia.com/device-plugin.config`` label the plugin runs the default config (``migStrategy: none``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL
from .cluster import Node
from .findings import Finding

__all__ = ["CODE", "advertised_findings"]

CODE = "advertised-resources-differ"
#: Labels that select what a node advertises, in the order a missing one explains it.
_SELECTING = (MIG_CONFIG_LABEL, DEVICE_PLUGIN_CONFIG_LABEL)


def advertised_findings(
    node: Node, pool_name: str, where: str, mechanism: str, promised: Mapping[str, int], labels: Mapping[str, str]
) -> tuple[list[Finding], list[str]]:
    """``(findings, notes)`` for one node of a declared pool.

    Args:
        node: the node as read (``gpu_capacity``: GPU resource -> capacity).
        pool_name, where: the pool's name and its place (``pools[0] 'a100'``).
        mechanism: the plan's ``gpus.mechanism`` (``whole-gpus``, ``time-slicing``, ``mps``, ``mig-single``, ``mig-mixed``).
        promised: the plan's ``gpus.advertised`` (``{}``: the count is not known, not judged).
        labels: the pool's declared node labels.

    A node with no GPU capacity is left to the GPU-starved verdict, which reports it. A node whose capacity of a
    promised resource differs, or that advertises GPU resources the pool does not promise, is a mandatory finding naming the selecting label that is missing or different, if any.
    """
    subject = f"Node {node.name}"
    if not promised:
        return [], [f"{subject}: what {where} advertises is not known from the stack (GPU count or MIG table); "
                    "its capacity is not judged"]
    have = {k: v for k, v in node.gpu_capacity.items() if v > 0}
    if not have:  # the device plugin has not registered (yet): the GPU-starved verdict reports that node
        return [], []
    if have == dict(promised):
        return [], []
    wrong = [(k, labels[k], node.labels.get(k)) for k in _SELECTING if k in labels and node.labels.get(k) != labels[k]]
    shown = ", ".join(f"{k}: {v}" for k, v in sorted(have.items())) or "no GPU resource"
    want = ", ".join(f"{k}: {v}" for k, v in sorted(promised.items()))
    if wrong:
        key, value, got = wrong[0]
        why = f"its label {key}={value} is {'missing' if got is None else repr(got)}"
        fix = f"kubectl label node {node.name} {key}={value} --overwrite, then find why the pool's label did not land"
    else:
        why = "its selecting labels are as declared"
        fix = ("check the partitioner or device plugin on the node (the MIG manager's nvidia.com/mig.config.state "
               "label and logs, the device plugin's config-manager logs)")
    message = (f"advertises {shown}, but {where} ({mechanism}) promises {want} per node, as its autoscaler "
               f"tags say; {why}")
    return [Finding("mandatory", CODE, subject, message, fix, pool_name)], []
