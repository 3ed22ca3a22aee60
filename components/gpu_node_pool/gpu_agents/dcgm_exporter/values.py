"""The standalone DCGM exporter chart's values, derived from the pools. Pure, no Pulumi.

Chart ``dcgm-exporter`` 4.8.2 (https://nvidia.github.io/dcgm-exporter/helm-charts; NVIDIA/dcgm-exporter ``deployment/``):
``templates/daemonset.yaml`` renders ``.Values.tolerations``,
``.Values.affinity`` and ``.Values.priorityClassName`` verbatim into its DaemonSet. Its default
tolerations tolerate only the control plane, so no tainted GPU node ever gets the exporter
(NVIDIA/dcgm-exporter#731; ``deployment/values.yaml`` ``tolerations``). Same contract as the device
plugin: ``CriticalAddonsOnly`` plus one ``Exists`` toleration per pool taint key/effect, and a required
node affinity matching exactly the pools' nodes (GPU label and ``gpu-node-pools/pool``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...k8s.taints import Toleration
from ..placement import derived_tolerations, node_affinity
from ..pools import AgentPool

__all__ = ["CHART", "CHART_REPO", "CHART_VERSION", "dcgm_values"]

CHART = "dcgm-exporter"
CHART_VERSION = "4.8.2"
CHART_REPO = "https://nvidia.github.io/dcgm-exporter/helm-charts"


def dcgm_values(pools: Sequence[AgentPool], extra_tolerations: Sequence[Toleration] = ()) -> dict[str, Any]:
    """``{tolerations, affinity, priorityClassName}`` for the exporter on every pool in ``pools``.

    Every GPU pool gets it, whoever runs its device plugin (GKE, Bottlerocket, ours): metrics are
    wanted on all GPUs.

    Raises:
        ValueError: ``pools`` is empty (a node affinity with no ``nodeSelectorTerms`` is rejected by the
            API server: Kubernetes API reference, NodeSelector).
    """
    if not pools:
        raise ValueError("dcgm_values: no GPU pool to place the DCGM exporter on")
    return {
        "tolerations": [t.to_k8s() for t in derived_tolerations(pools, extra_tolerations)],
        "affinity": node_affinity(pools),
        "priorityClassName": "system-node-critical",
    }
