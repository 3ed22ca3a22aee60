"""Policy ``karpenter-startup-taints``: a Karpenter GPU pool declares the boot taints of the agents the
stack installs (issue 16 §4).

The agents and their taints come from :mod:`gpu_node_pool.k8s.startup_taints` (sourced table, facts
Part A). An agent counts as installed when the stack has a Helm chart of its name
(``helm.sh/v4:Chart``, ``helm.sh/v3:Release``, their ``chart`` input), an ``aws.eks.Addon`` of its
add-on name, or a workload running its image. A pool is fine when its ``startupTaints`` or
``taints`` carry the agent's key (the agents remove by key; the Cilium operator skips re-adding a
key it finds).
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, StackValidationArgs, StackValidationPolicy

from ...k8s.startup_taints import recognise
from ...k8s.wellknown import CHART_TYPES
from ...registry import find
from ...sdk.props import Undecided, UnknownValueError, dig, text
from ..stack import stack_index
from ..workloads import WORKLOAD_POD_SPEC_PATHS, containers, kind_of, workload_of
from ._shared import _resource, _stack_pools

ADDON = "aws:eks/addon:Addon"


def _chart_name(value: Any) -> str:
    name = (text(value) or "").rstrip("/").rsplit("/", 1)[-1]
    return name[:-4].rsplit("-", 1)[0] if name.endswith(".tgz") else name


def _agent_type(resource_type: str) -> bool:
    """The types :func:`installed_agents` reads: charts, EKS add-ons, pod templates."""
    return resource_type in CHART_TYPES or resource_type == ADDON or kind_of(resource_type) in WORKLOAD_POD_SPEC_PATHS


def installed_agents(resources: Any, undecided: Undecided) -> list[Any]:
    """The boot-taint agents the stack installs (charts, EKS add-ons, workload images)."""
    charts, addons, images = set(), set(), []
    for res in resources:
        try:
            if res.resource_type in CHART_TYPES:
                charts.add(_chart_name(dig(res.props, "chart")))
            elif res.resource_type == ADDON:
                addons.add(text(dig(res.props, "addonName")) or "")
            else:
                workload = workload_of(res.resource_type, res.props, res.name)
                if workload is not None:
                    images += [text(dig(c, "image")) or "" for _, c in containers(workload.pod_spec)]
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
    return recognise(charts, addons, images)


def validate_karpenter_startup_taints(args: StackValidationArgs, report: ReportViolation) -> None:
    """Every Karpenter GPU NodePool declares the boot taint of every agent the stack installs."""
    undecided = Undecided()
    agents = installed_agents(stack_index(args).select("boot-taint agents", _agent_type), undecided)
    if agents:
        for pool in _stack_pools(args, undecided):
            record = find(pool.backend)
            if record is None or not record.startup_taints:  # only NodePool-style pools declare startupTaints
                continue
            declared = {t.key for t in pool.extra.get("startup_taints", [])} | {t.key for t in pool.taints}
            for agent in agents:
                if agent.entry.key in declared:
                    continue
                entry = agent.entry.to_k8s()
                report(
                    f"{pool.display}: the stack installs {agent.name}, whose taint {agent.entry.key} is added at boot by "
                    f"{'the agent itself' if agent.adds == 'agent' else 'node provisioning'} and removed by "
                    f"{agent.removes}, but the NodePool's startupTaints do not declare it: {agent.failure}. Add "
                    f"startupTaints: [{', '.join(f'{k}: {v!r}' for k, v in entry.items())}] (GpuNodePool "
                    f"startupTaintsFor: [{agent.name}]). Source: {agent.source}.",
                    pool.urn or None,
                )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="karpenter-startup-taints",
    description="Karpenter GPU NodePools declare in startupTaints the boot taints of the agents the stack installs "
    "(Cilium, EBS/EFS CSI, Istio CNI).",
    validate=validate_karpenter_startup_taints,
    enforcement_level=EnforcementLevel.ADVISORY,
    remediation_steps="Add the agent's entry to the NodePool's startupTaints (GpuNodePool startupTaintsFor).",
)
