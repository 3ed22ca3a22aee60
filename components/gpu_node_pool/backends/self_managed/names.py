"""The EC2 launch template name Pulumi derives from a ``GpuNodePool``'s name (:mod:`.._shared.cloud_names`)."""

from __future__ import annotations

from .._shared.cloud_names import autoname_problem

__all__ = ["resource_name_problem"]

#: The launch template name rule of the EC2 API reference, CreateLaunchTemplate ``LaunchTemplateName``.
_LAUNCH_TEMPLATE_RULE = ("an EC2 launch template name must fit (3 to 128 characters of letters, digits and ( ) . - / _: "
                         "EC2 API reference, CreateLaunchTemplate LaunchTemplateName)")


def resource_name_problem(name: str) -> str | None:
    """Why EC2 refuses the launch template name Pulumi gives the pool ``name``'s launch template, or None."""
    from . import BACKEND

    return autoname_problem(name, BACKEND.child_name("launch_template", name), 128, r"[A-Za-z0-9().\-/_]{3,128}",
                            _LAUNCH_TEMPLATE_RULE)
