"""Whether the cloud takes the names Pulumi gives a pool's children.

A backend's cloud resources (an EKS node group, an EC2 launch template) get no name from the component:
Pulumi autonames each from its resource name, ``<component name>-<role>`` (the registry's ``children``),
plus ``-`` and 7 random hex digits (pulumi/pulumi-terraform-bridge ``AutoName``: separator ``-``, 7 random
characters). So the ``GpuNodePool`` name must leave room for that in the cloud's own name rule, or the
preview passes and the cloud refuses the resource at ``pulumi up``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["AUTONAME_SUFFIX", "ASG_NAME", "LAUNCH_TEMPLATE_NAME", "PLACEMENT_GROUP_NAME", "NameRule", "autoname_problem",
           "first_autoname_problem"]

#: What Pulumi's autonaming adds after the resource name: ``-`` and 7 random hex digits.
AUTONAME_SUFFIX = 8


def autoname_problem(name: str, child: str, longest: int, allowed: str, rule: str) -> str | None:
    """Why the cloud refuses the name Pulumi gives the child resource ``child`` (its resource name, e.g.
    ``vision-node-group``) of the ``GpuNodePool`` named ``name``, or None.

    ``longest``: the cloud's longest name; ``allowed``: a regular expression the whole name must match; ``rule``:
    the rule in words with its source, as the message quotes it."""
    room = longest - len(child) - AUTONAME_SUFFIX
    if room < 0:
        most = len(name) + room
        return (f"{name!r} is {len(name)} characters; Pulumi names the child {child!r} plus '-' and 7 random "
                f"characters, which {rule}: use a name of at most {most} characters")
    sample = f"{child}-0123abc"
    if not re.fullmatch(allowed, sample):
        return f"{name!r}: Pulumi names the child {child!r} plus a random suffix, which {rule}: rename the component"
    return None


@dataclass(frozen=True)
class NameRule:
    """The cloud's name rule for one autonamed child: ``child`` is its registry ``children`` key
    (``launch_template``), the rest as :func:`autoname_problem` takes them."""

    child: str
    longest: int
    allowed: str
    rule: str


#: An EC2 Auto Scaling group name (Amazon EC2 Auto Scaling API reference, CreateAutoScalingGroup
#: ``AutoScalingGroupName``: 1 to 255 characters, ASCII 33 to 126 but no colon).
ASG_NAME = NameRule("asg", 255, r"[!-9;-~]{1,255}", (
    "an Auto Scaling group name must fit (1 to 255 printable ASCII characters, no colon: Amazon EC2 Auto Scaling "
    "API reference, CreateAutoScalingGroup AutoScalingGroupName)"))
#: An EC2 launch template name (EC2 API reference, CreateLaunchTemplate ``LaunchTemplateName``: 3 to 128 characters
#: of letters, digits and ``( ) . - / _``).
LAUNCH_TEMPLATE_NAME = NameRule("launch_template", 128, r"[A-Za-z0-9().\-/_]{3,128}", (
    "an EC2 launch template name must fit (3 to 128 characters of letters, digits and ( ) . - / _: "
    "EC2 API reference, CreateLaunchTemplate LaunchTemplateName)"))
#: An EC2 placement group name (EC2 API reference, CreatePlacementGroup ``GroupName``: up to 255 ASCII characters).
PLACEMENT_GROUP_NAME = NameRule("placement_group", 255, r"[\x00-\x7f]{1,255}", (
    "an EC2 placement group name must fit (up to 255 ASCII characters: EC2 API reference, CreatePlacementGroup "
    "GroupName)"))


def first_autoname_problem(name: str, backend: Any, rules: Iterable[NameRule]) -> str | None:
    """The first of ``rules`` (one per child the pool's backend autonames) the cloud would break for the
    ``GpuNodePool`` named ``name``, as :func:`autoname_problem` says it, or None when every child's name fits.
    ``backend``: the registry record, whose ``child_name`` gives each child's resource name."""
    for r in rules:
        problem = autoname_problem(name, backend.child_name(r.child, name), r.longest, r.allowed, r.rule)
        if problem is not None:
            return problem
    return None
