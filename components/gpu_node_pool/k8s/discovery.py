"""Node labels that appear only once a discovery agent runs on the node, and which agent sets each.

A new node carries the labels its kubelet, its cloud provider and its pool set. Feature discovery
agents add more once they run there: a node selection that reads one of these keys is decided only
after the agent has labelled the node, which it does only where it runs (its own tolerations and
selection) and only when it is installed at all. The placement verdict therefore judges such a
selection only when the caller says the agent is installed (and judges the agent's own coverage
elsewhere); otherwise it is *not judged*, naming the key and the agent.

Sources (each row):

* Node Feature Discovery: ``feature.node.kubernetes.io/*``, e.g. ``pci-10de.present=true`` on a node
  with an NVIDIA PCI device (vendor id ``10de``) (kubernetes-sigs/node-feature-discovery
  ``docs/usage/features.md``, "PCI"; https://kubernetes-sigs.github.io/node-feature-discovery/stable/usage/features.html).
* NVIDIA GPU Feature Discovery: ``nvidia.com/gpu.present``, ``nvidia.com/gpu.product``,
  ``nvidia.com/gpu.count``, ``nvidia.com/gpu.memory``, ``nvidia.com/gpu.family``, ``nvidia.com/cuda.*``,
  ``nvidia.com/mig.capable``, ``nvidia.com/mps.capable`` ... (NVIDIA/k8s-device-plugin@v0.20.0
  ``docs/gpu-feature-discovery/README.md``, "Generated Labels").
* NVIDIA GPU Operator: ``nvidia.com/gpu.present=true`` and one ``nvidia.com/gpu.deploy.<operand>=true``
  per operand on every node whose NFD labels show an NVIDIA PCI device, *unless the node already has
  the key with a non-empty value* (a pool that sets ``nvidia.com/gpu.deploy.device-plugin=false`` keeps
  that operand off); ``nvidia.com/gpu.deploy.operands=false`` removes them all
  (NVIDIA/gpu-operator@v26.7.0 ``controllers/state_manager.go``: ``gpuStateLabels``, ``gpuNodeLabels``,
  ``addGPUStateLabels``, ``hasOperandsDisabled``). Each operand DaemonSet selects its own label
  (``assets/state-*/0500_daemonset.yaml`` ``nodeSelector``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "NFD", "GFD", "GPU_OPERATOR", "DiscoveredLabel", "DISCOVERED_LABELS", "discovered_by", "labels_once_discovered",
    "OPERATOR_DEPLOY_PREFIX", "OPERATOR_OPERANDS_LABEL",
]

NFD = "Node Feature Discovery"
GFD = "NVIDIA GPU Feature Discovery"
GPU_OPERATOR = "the NVIDIA GPU Operator"

#: The GPU Operator's per-operand placement labels: ``nvidia.com/gpu.deploy.<operand>``.
OPERATOR_DEPLOY_PREFIX = "nvidia.com/gpu.deploy."
#: ``false`` on a node turns every operand of the GPU Operator off there.
OPERATOR_OPERANDS_LABEL = OPERATOR_DEPLOY_PREFIX + "operands"


@dataclass(frozen=True)
class DiscoveredLabel:
    """A label key (or a prefix ending in ``/``, ``.`` or ``-``) some agent sets once it runs on a node.

    Attributes:
        key: the key, or the prefix.
        agents: who sets it (any of them suffices).
        on_nvidia_gpu_node: the value it gets on a node with an NVIDIA GPU; None when the value depends
            on the hardware (``nvidia.com/gpu.product``) and so is not known ahead.
        source: where that is written.
    """

    key: str
    agents: tuple[str, ...]
    on_nvidia_gpu_node: str | None
    source: str

    def covers(self, key: str) -> bool:
        return key == self.key or (self.key[-1:] in "/.-" and key.startswith(self.key))


_NFD_SRC = "https://kubernetes-sigs.github.io/node-feature-discovery/stable/usage/features.html"
_GFD_SRC = "NVIDIA/k8s-device-plugin@v0.20.0 docs/gpu-feature-discovery/README.md"
_OP_SRC = "NVIDIA/gpu-operator@v26.7.0 controllers/state_manager.go"

#: First match wins: exact keys before the prefixes that contain them.
DISCOVERED_LABELS: tuple[DiscoveredLabel, ...] = (
    DiscoveredLabel("feature.node.kubernetes.io/pci-10de.present", (NFD,), "true", _NFD_SRC),
    DiscoveredLabel("feature.node.kubernetes.io/pci-0302_10de.present", (NFD,), None, _NFD_SRC),
    DiscoveredLabel("feature.node.kubernetes.io/pci-0300_10de.present", (NFD,), None, _NFD_SRC),
    DiscoveredLabel("feature.node.kubernetes.io/", (NFD,), None, _NFD_SRC),
    DiscoveredLabel("nvidia.com/gpu.present", (GFD, GPU_OPERATOR), "true", f"{_GFD_SRC}; {_OP_SRC}"),
    DiscoveredLabel(OPERATOR_OPERANDS_LABEL, (GPU_OPERATOR,), None, _OP_SRC),
    DiscoveredLabel(OPERATOR_DEPLOY_PREFIX, (GPU_OPERATOR,), "true", _OP_SRC),
    DiscoveredLabel("nvidia.com/gpu.", (GFD,), None, _GFD_SRC),
    DiscoveredLabel("nvidia.com/cuda.", (GFD,), None, _GFD_SRC),
    DiscoveredLabel("nvidia.com/mig.capable", (GFD,), None, _GFD_SRC),
    DiscoveredLabel("nvidia.com/mps.capable", (GFD,), None, _GFD_SRC),
    DiscoveredLabel("nvidia.com/vgpu.present", (GFD,), None, _GFD_SRC),
)


def discovered_by(key: object) -> DiscoveredLabel | None:
    """The row of :data:`DISCOVERED_LABELS` for ``key``, or None when no discovery agent sets it."""
    if not isinstance(key, str):
        return None
    return next((row for row in DISCOVERED_LABELS if row.covers(key)), None)


def labels_once_discovered(keys: Iterable[object], present: Mapping[str, str], installed: Iterable[str]) -> tuple[dict[str, str], set[str]]:
    """What a node of an NVIDIA GPU pool carries once the ``installed`` agents have run, for ``keys``.

    Args:
        keys: the label keys a selection reads.
        present: the labels the node has at launch (an agent never overrides one of them: the GPU
            Operator honours a deploy label already set, and a pool does not set NFD or GFD keys).
        installed: the agents the stack installs (:data:`NFD`, :data:`GFD`, :data:`GPU_OPERATOR`).

    Returns:
        ``(labels with a known value, keys carried with a value not known ahead)``.
    """
    agents = set(installed)
    if present.get(OPERATOR_OPERANDS_LABEL) == "false":
        agents.discard(GPU_OPERATOR)  # the operator removes its deploy labels from such a node
    known: dict[str, str] = {}
    hidden: set[str] = set()
    for key in keys:
        row = discovered_by(key)
        if row is None or not isinstance(key, str) or key in present or not agents & set(row.agents):
            continue
        if key == OPERATOR_OPERANDS_LABEL:
            continue  # the operator reads it, never sets it
        if row.on_nvidia_gpu_node is None:
            hidden.add(key)
        else:
            known[key] = row.on_nvidia_gpu_node
    return known, hidden
