"""Config warnings: what is valid but risky, reported beside the plan and never a refusal.

A pool model contributes through :meth:`~gpu_node_pool.config.common.PoolBase.config_warnings`
(``[(sub-path, message)]``); :func:`stack_warnings` turns them into :class:`ConfigIssue` objects
with the pool's path. The plan prints them (``warnings:`` in the text, ``warnings`` in ``--json``,
``cli/report.schema.json``); they never change the exit code.

What becomes a warning rather than an error: facts no public source confirms (marked
UNCONFIRMED), known risks of an instance type (``catalog`` ``InstanceType.warnings``), what the
catalog cannot judge, and an instance type unknown to the catalog under
``allowUnknownInstanceTypes: true``, and values an AWS account can get past (:mod:`.limits`): an EKS
Kubernetes version outside standard and extended support, and a backend's own (``stack_warnings`` in
the registry: eks-managed's node group quotas); each names its override in ``limits``.
"""

from __future__ import annotations

from typing import Any

from .errors import ConfigIssue
from .limits import eks_version_warning, gke_version_warning
from .tolerations import numeric_toleration_warnings

__all__ = ["limit_warnings", "pool_warnings", "stack_warnings"]


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """Every pool's warnings, in pool order, each once: ``ConfigIssue("pools[1].instanceTypes", "...")``,
    then the GPU agents' (``gpuSharing``, ``mig``: ``registry.STACK_WARNINGS``), then the account-limit
    warnings (:func:`limit_warnings`)."""
    from ..registry import stack_warning_rules

    out: list[ConfigIssue] = []
    for i, pool in enumerate(stack.pools):
        for sub, message in pool.config_warnings():
            issue = ConfigIssue(f"pools[{i}]" + (f".{sub}" if sub else ""), message)
            if issue not in out:
                out.append(issue)
    for rule in stack_warning_rules():
        out += [w for w in rule(stack) if w not in out]
    out += [w for w in numeric_toleration_warnings(stack) if w not in out]
    return out + [w for w in limit_warnings(stack) if w not in out]


def pool_warnings(pool: Any, cluster: Any, limits: Any = None) -> list[ConfigIssue]:
    """The warnings of one pool on ``cluster`` as a ``GpuNodePool`` of a program declares it: the pool's own
    (``pools[0].<sub-path>``), the GPU-agent rules' that need no agent (``gpuSharing`` on a NodePool backend,
    a MIG profile not in the tables), and :func:`limit_warnings` of a stack of that pool alone (its cluster's
    Kubernetes version, its backend's quotas and versions) under ``limits`` (a ``LimitsConfig``; None: the
    defaults)."""
    from ..registry import stack_warning_rules
    from .stack import StackConfig

    fields: dict[str, Any] = {"cluster": cluster, "pools": [pool]}
    if limits is not None:
        fields["limits"] = limits
    stack = StackConfig.model_construct(**fields)  # validated parts; the rest defaults
    out: list[ConfigIssue] = []
    for sub, message in pool.config_warnings():
        issue = ConfigIssue("pools[0]" + (f".{sub}" if sub else ""), message)
        if issue not in out:
            out.append(issue)
    for rule in stack_warning_rules():  # the GPU agents' rules, reached through the registry
        out += [w for w in rule(stack) if w not in out]
    return out + [w for w in limit_warnings(stack) if w not in out]


def limit_warnings(stack: Any, today: Any = None) -> list[ConfigIssue]:
    """What a cloud refuses today but an account can get past, with the override in ``gpu-node-pools:limits``:
    ``cluster.kubernetesVersion`` outside EKS standard+extended support (stacks with a pool that joins EKS:
    ``PoolBase.cluster_platform``) or newer than the EKS/GKE calendar (:mod:`.version_calendars`), then each backend's ``stack_warnings`` (the registry), e.g. eks-managed's
    node group quotas. ``today`` defaults to the current date."""
    from ..registry import all_backends

    limits = stack.limits
    out = []
    version = stack.cluster.kubernetes_version
    if version and not limits.allow_unsupported_kubernetes_version:
        platforms = {getattr(p, "cluster_platform", None) for p in stack.pools}
        for platform, judge in (("eks", eks_version_warning), ("gke", gke_version_warning)):
            message = judge(version, today) if platform in platforms else None
            if message:
                out.append(ConfigIssue("cluster.kubernetesVersion", message))
    used = {getattr(p, "backend", None) for p in stack.pools}
    for backend in all_backends():
        warn = backend.fn("stack_warnings") if backend.name in used else None  # a backend warns of its own pools
        if warn is not None:
            out += warn(stack)
    return out
