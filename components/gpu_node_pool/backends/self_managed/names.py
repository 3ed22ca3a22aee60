"""The names Pulumi derives from a ``GpuNodePool``'s name for a self-managed pool's cloud resources
(:mod:`.._shared.cloud_names`): the launch template, the IAM instance profile, the Auto Scaling group and,
with EFA, the placement group."""

from __future__ import annotations

from typing import Any

from .._shared.cloud_names import ASG_NAME, LAUNCH_TEMPLATE_NAME, PLACEMENT_GROUP_NAME, NameRule, first_autoname_problem

__all__ = ["resource_name_problem"]

#: The instance profile name rule of the IAM API reference, CreateInstanceProfile ``InstanceProfileName``
#: (https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateInstanceProfile.html: 1 to 128 characters,
#: pattern ``[\w+=,.@-]+``, ``\w`` being ASCII letters, digits and ``_``).
_INSTANCE_PROFILE = NameRule("instance_profile", 128, r"[A-Za-z0-9_+=,.@-]{1,128}", (
    "an IAM instance profile name must fit (1 to 128 characters of letters, digits and _ + = , . @ -: "
    "IAM API reference, CreateInstanceProfile InstanceProfileName)"))


def _rules(pool: Any) -> list[NameRule]:
    """The children ``pool`` autonames (every one the backend can, for no pool), the tightest first: the
    instance profile's longest name is one character shorter than the launch template's."""
    if pool is None:
        return [_INSTANCE_PROFILE, LAUNCH_TEMPLATE_NAME, ASG_NAME, PLACEMENT_GROUP_NAME]
    if getattr(pool, "provider", "aws") == "none":
        return []  # the bootstrap only: no cloud resource
    rules = [_INSTANCE_PROFILE] if getattr(pool, "instance_profile_arn", None) is None else []
    rules += [LAUNCH_TEMPLATE_NAME, ASG_NAME]
    efa = getattr(pool, "efa", None)
    return rules + ([PLACEMENT_GROUP_NAME] if efa is not None and efa.enabled else [])


def resource_name_problem(name: str, pool: Any = None) -> str | None:
    """Why AWS refuses a name Pulumi gives a child of the pool ``name`` (the first child it refuses), or None.
    ``pool``: the pool's validated model, when known; then only the children it creates are judged."""
    from . import BACKEND

    return first_autoname_problem(name, BACKEND, _rules(pool))
