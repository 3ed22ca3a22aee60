"""Where a GPU agent runs: the tolerations derived from the pools' taints and a node affinity to exactly the pools' nodes.

Every agent chart the package installs (the device plugin, the GPU Operator's operands, the DCGM
exporter, the EFA device plugin) renders ``tolerations`` and ``affinity`` from its values verbatim;
a custom ``tolerations`` list *replaces* a chart's defaults (Helm does not merge lists), so
``CriticalAddonsOnly`` is added back. Sources: NVIDIA/k8s-device-plugin v0.20.0
``deployments/helm/nvidia-device-plugin/values.yaml`` and ``templates/daemonset-device-plugin.yml``;
Helm's values merging: https://helm.sh/docs/chart_template_guide/values_files/ (lists are replaced).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..k8s.taints import Taint, Toleration
from ..k8s.wellknown import POOL_LABEL_KEY

__all__ = ["CRITICAL_ADDONS_ONLY", "ServedPool", "derived_tolerations", "node_affinity"]

CRITICAL_ADDONS_ONLY = Toleration(key="CriticalAddonsOnly", operator="Exists")


class ServedPool(Protocol):
    """What the device plugin needs of a pool (every pool config model provides it)."""

    name: str

    @property
    def taint_list(self) -> list[Taint]: ...

    @property
    def node_labels(self) -> dict[str, str]: ...

    @property
    def uses_nvidia_device_plugin(self) -> bool: ...


def derived_tolerations(pools: Iterable[ServedPool], extra: Sequence[Toleration] = ()) -> list[Toleration]:
    """``CriticalAddonsOnly`` plus one ``Exists`` toleration per distinct ``(key, effect)`` of the pools' taints.

    ``Exists`` (not ``Equal``) so that a changed taint value never strands the plugin; startup
    taints are not pool taints and are never included. Order: CriticalAddonsOnly, then the
    taints sorted by key and effect, then ``extra``.
    """
    identities = sorted({t.identity for pool in pools for t in pool.taint_list}, key=lambda i: (i[0], i[1].value))
    out = [CRITICAL_ADDONS_ONLY]
    out += [Toleration(key=key, operator="Exists", effect=effect) for key, effect in identities]
    out += [t for t in extra if t not in out]
    return out


def node_affinity(pools: Iterable[ServedPool]) -> dict[str, Any]:
    """A required node affinity that matches exactly the served pools' nodes.

    One ``nodeSelectorTerm`` per distinct GPU label: ``<gpu label> In [<value>]`` and
    ``gpu-node-pools/pool In [<pool names>]`` (terms are ORed, expressions ANDed).
    """
    by_label: dict[tuple[str, str], list[str]] = {}
    for pool in pools:
        label = (pool.gpu_label.key, pool.gpu_label.value)
        by_label.setdefault(label, []).append(pool.name)
    terms = [
        {
            "matchExpressions": [
                {"key": key, "operator": "In", "values": [value]},
                {"key": POOL_LABEL_KEY, "operator": "In", "values": sorted(names)},
            ]
        }
        for (key, value), names in sorted(by_label.items())
    ]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
