"""The names Pulumi derives from a ``GpuNodePool``'s name for an eks-managed pool's cloud resources
(:mod:`.._shared.cloud_names`): the node group and, when the pool needs them, the launch template and the
EFA placement group."""

from __future__ import annotations

from typing import Any

from .._shared.cloud_names import LAUNCH_TEMPLATE_NAME, PLACEMENT_GROUP_NAME, NameRule, first_autoname_problem

__all__ = ["resource_name_problem"]

#: The EKS node group name rule, as the pulumi-aws docs of ``aws.eks.NodeGroup`` ``nodeGroupName`` give it.
NODE_GROUP_NAME = NameRule("node_group", 63, r"[A-Za-z0-9][A-Za-z0-9_-]*", (
    "an EKS node group name must fit (at most 63 characters, starting with a letter or digit, then "
    "letters, digits, hyphens and underscores: pulumi-aws aws.eks.NodeGroup nodeGroupName)"))


def _rules(pool: Any) -> list[NameRule]:
    """The children ``pool`` autonames (every one the backend can, for no pool), node group first."""
    if pool is None:
        return [NODE_GROUP_NAME, LAUNCH_TEMPLATE_NAME, PLACEMENT_GROUP_NAME]
    from .launch_template import uses_launch_template

    efa = getattr(pool, "efa", None)
    efa_on = efa is not None and efa.enabled
    return [NODE_GROUP_NAME, *([LAUNCH_TEMPLATE_NAME] if uses_launch_template(pool) else []),
            *([PLACEMENT_GROUP_NAME] if efa_on else [])]


def resource_name_problem(name: str, pool: Any = None) -> str | None:
    """Why AWS refuses a name Pulumi gives a child of the pool ``name`` (the first child it refuses), or None.
    ``pool``: the pool's validated model, when known; then only the children it creates are judged."""
    from . import BACKEND

    return first_autoname_problem(name, BACKEND, _rules(pool))
