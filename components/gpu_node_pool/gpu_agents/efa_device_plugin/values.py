"""Values for the ``aws-efa-k8s-device-plugin`` chart, derived from the EFA pools.

The chart (aws/eks-charts ``stable/aws-efa-k8s-device-plugin``, chart v0.5.30, app v0.5.20) hard-codes one
toleration, ``CriticalAddonsOnly: Exists``, and renders ``values.tolerations`` (default ``[]``) after it,
so on GPU nodes tainted e.g. ``nvidia.com/gpu:NoSchedule`` the plugin does not schedule unless a
toleration is added (the chart's ``templates/daemonset.yaml`` L34-39, ``values.yaml`` ``tolerations``). Its
required node affinity admits only ``node.kubernetes.io/instance-type In supportedInstanceLabels.values``
(``templates/daemonset.yaml`` L49-63); the GPU types of that list are :data:`SUPPORTED_GPU_TYPES`.
Pure: plain values, no Pulumi; the component (:mod:`.component`) installs the chart.

The chart has no ``affinity`` value: its own instance-type affinity keeps it on EFA-capable nodes, so
no pool-derived node affinity is added (the tolerations are what the pools need).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ...k8s.taints import Toleration
from ..placement import ServedPool, derived_tolerations

__all__ = ["CHART", "CHART_REPO", "CHART_VERSION", "SUPPORTED_GPU_TYPES", "efa_plugin_values", "efa_pools", "unsupported_types"]

CHART = "aws-efa-k8s-device-plugin"
CHART_VERSION = "0.5.30"
CHART_REPO = "https://aws.github.io/eks-charts"
#: GPU instance types in the chart's ``supportedInstanceLabels.values`` (aws/eks-charts
#: ``stable/aws-efa-k8s-device-plugin/values.yaml``, chart v0.5.30).
SUPPORTED_GPU_TYPES = frozenset(
    [f"g4dn.{s}" for s in ("8xlarge", "12xlarge", "16xlarge", "metal")]
    + [f"{f}.{s}" for f in ("g5", "g6") for s in ("8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")]
    + [f"g6e.{s}" for s in ("8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")]
    + [f"{f}.{s}" for f in ("g7", "g7e") for s in ("8xlarge", "12xlarge", "24xlarge", "48xlarge")]
    + ["p3dn.24xlarge", "p4d.24xlarge", "p4de.24xlarge", "p5.4xlarge", "p5.48xlarge", "p5e.48xlarge",
       "p5en.48xlarge", "p6-b200.48xlarge", "p6-b300.48xlarge", "p6e-gb200.36xlarge", "p6e-gb300.36xlarge"]
)


def efa_pools(pools: Iterable[Any]) -> list[Any]:
    """The pools with ``efa.enabled`` (any backend that has the key)."""
    return [p for p in pools if getattr(p, "efa", None) is not None and p.efa.enabled]


def efa_plugin_values(pools: Sequence[ServedPool], extra: Sequence[Toleration] = ()) -> dict[str, Any]:
    """``{tolerations: [...]}`` for the chart: one ``Exists`` toleration per ``(key, effect)`` of the EFA
    pools' taints (the same derivation as the NVIDIA plugin's, :func:`.values.derived_tolerations`),
    plus ``extra``. ``CriticalAddonsOnly`` is left out: the chart's template already has it."""
    tolerations = [t for t in derived_tolerations(efa_pools(pools), extra) if t != _critical()]
    return {"tolerations": [t.to_k8s() for t in tolerations]}


def unsupported_types(pools: Iterable[Any]) -> dict[str, list[str]]:
    """``{pool name: [types]}`` of EFA pools whose instance types are outside the chart's GPU list
    (:data:`SUPPORTED_GPU_TYPES`): the plugin's required node affinity keeps it off those nodes."""
    out = {}
    for pool in efa_pools(pools):
        odd = sorted(t for t in (getattr(pool, "instance_types", None) or []) if t not in SUPPORTED_GPU_TYPES)
        if odd:
            out[pool.name] = odd
    return out


def _critical() -> Toleration:
    from ..placement import CRITICAL_ADDONS_ONLY

    return CRITICAL_ADDONS_ONLY
