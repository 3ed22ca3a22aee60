"""The EKS node group name Pulumi derives from a ``GpuNodePool``'s name (:mod:`.._shared.cloud_names`)."""

from __future__ import annotations

from .._shared.cloud_names import autoname_problem

__all__ = ["resource_name_problem"]

#: The EKS node group name rule, as the pulumi-aws docs of ``aws.eks.NodeGroup`` ``nodeGroupName`` give it.
_NODE_GROUP_RULE = ("an EKS node group name must fit (at most 63 characters, starting with a letter or digit, then "
                    "letters, digits, hyphens and underscores: pulumi-aws aws.eks.NodeGroup nodeGroupName)")


def resource_name_problem(name: str) -> str | None:
    """Why EKS refuses the node group name Pulumi gives the pool ``name``'s node group, or None."""
    from . import BACKEND

    return autoname_problem(name, BACKEND.child_name("node_group", name), 63, r"[A-Za-z0-9][A-Za-z0-9_-]*",
                            _NODE_GROUP_RULE)
