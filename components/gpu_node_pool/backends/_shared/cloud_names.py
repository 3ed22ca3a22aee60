"""Whether the cloud takes the names Pulumi gives a pool's children.

A backend's cloud resources (an EKS node group, an EC2 launch template) get no name from the component:
Pulumi autonames each from its resource name, ``<component name>-<role>`` (the registry's ``children``),
plus ``-`` and 7 random hex digits (pulumi/pulumi-terraform-bridge ``AutoName``: separator ``-``, 7 random
characters). So the ``GpuNodePool`` name must leave room for that in the cloud's own name rule, or the
preview passes and the cloud refuses the resource at ``pulumi up``.
"""

from __future__ import annotations

import re

__all__ = ["AUTONAME_SUFFIX", "autoname_problem"]

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
