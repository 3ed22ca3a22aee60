"""Config warnings: what is valid but risky, reported beside the plan and never a refusal.

A pool model contributes through :meth:`~gpu_node_pool.config.common.PoolBase.config_warnings`
(``[(sub-path, message)]``); :func:`stack_warnings` turns them into :class:`ConfigIssue` objects
with the pool's path. The plan prints them (``warnings:`` in the text, ``warnings`` in ``--json``,
``cli/report.schema.json``); they never change the exit code.

What becomes a warning rather than an error: facts no public source confirms (marked
UNCONFIRMED), known risks of an instance type (``catalog`` ``InstanceType.warnings``), what the
catalog cannot judge, and an instance type unknown to the catalog under
``allowUnknownInstanceTypes: true``, and values an AWS account can get past (:mod:`.limits`): an EKS
Kubernetes version outside standard and extended support, a managed node group above the EKS quota of
nodes, more managed node groups than the per-cluster quota; each names its override in ``limits``.
"""

from __future__ import annotations

from typing import Any

from .errors import ConfigIssue
from .limits import EKS_QUOTAS_SOURCE, eks_version_warning

__all__ = ["stack_warnings", "limit_warnings"]


def stack_warnings(stack: Any) -> list[ConfigIssue]:
    """Every pool's warnings, in pool order, each once: ``ConfigIssue("pools[1].instanceTypes", "...")``,
    then the account-limit warnings (:func:`limit_warnings`)."""
    out: list[ConfigIssue] = []
    for i, pool in enumerate(stack.pools):
        for sub, message in pool.config_warnings():
            issue = ConfigIssue(f"pools[{i}]" + (f".{sub}" if sub else ""), message)
            if issue not in out:
                out.append(issue)
    return out + [w for w in limit_warnings(stack) if w not in out]


#: Backends whose nodes join an EKS cluster (the EKS version calendar applies).
_EKS_BACKENDS = ("eks-managed", "eks-auto", "karpenter")


def _on_eks(pool: Any) -> bool:
    if pool.backend in _EKS_BACKENDS:
        return True
    return pool.backend == "self-managed" and getattr(pool, "provider", None) == "aws"


def limit_warnings(stack: Any, today: Any = None) -> list[ConfigIssue]:
    """What EKS refuses today but an account can get past, with the override in ``gpu-node-pools:limits``:
    ``cluster.kubernetesVersion`` outside standard+extended support (stacks with EKS pools), ``maxSize``
    above the "Nodes per managed node group" quota, more eks-managed pools than "Managed node groups per
    cluster" (this stack's pools only: the cluster may hold others). ``today`` defaults to the current date."""
    limits = stack.limits
    out = []
    version = stack.cluster.kubernetes_version
    if version and not limits.allow_unsupported_kubernetes_version and any(_on_eks(p) for p in stack.pools):
        message = eks_version_warning(version, today)
        if message:
            out.append(ConfigIssue("cluster.kubernetesVersion", message))
    managed = [i for i, p in enumerate(stack.pools) if p.backend == "eks-managed"]
    for i in managed:
        size = stack.pools[i].scaling.max_size
        if size > limits.eks_nodes_per_node_group:
            out.append(ConfigIssue(
                f"pools[{i}].scaling.maxSize",
                f"{size} is above the EKS quota 'Nodes per managed node group' ({limits.eks_nodes_per_node_group}; "
                f"{EKS_QUOTAS_SOURCE}); EKS refuses it unless your account's quota was raised: request an increase "
                "in Service Quotas and set limits.eksNodesPerNodeGroup to it, or lower maxSize",
            ))
    if len(managed) > limits.eks_node_groups_per_cluster:
        out.append(ConfigIssue(
            "pools",
            f"{len(managed)} eks-managed pools are more than the EKS quota 'Managed node groups per cluster' "
            f"({limits.eks_node_groups_per_cluster}; {EKS_QUOTAS_SOURCE}); EKS refuses the extra node groups unless "
            "your account's quota was raised: request an increase and set limits.eksNodeGroupsPerCluster to it",
        ))
    return out
