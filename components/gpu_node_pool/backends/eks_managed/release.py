"""The Bottlerocket release an ``eks-managed`` pool pins with ``releaseVersion``.

A node group's ``releaseVersion`` pins the AMI release of its AMI type (EKS API ``CreateNodegroup`` ``releaseVersion``,
https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html). On a ``BOTTLEROCKET_*`` AMI type it is
Bottlerocket's release and build (``1.40.0-25e1f1a4``), the same as in Bottlerocket's AMI names (e.g.
``bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.40.0-25e1f1a4``); on AL2023 it is the Kubernetes version and a date
(``1.33.0-20250610``), no Bottlerocket release. The registry's ``bottlerocket_release`` hook of the backend; the rules
on the release are the GPU agents' (``gpu_agents/bottlerocket_release.py``). Pure, no Pulumi.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...registry import PinnedRelease

if TYPE_CHECKING:
    from .config import EksManagedPool

__all__ = ["bottlerocket_release"]

#: The config key that pins the release.
KEY = "releaseVersion"
_RELEASE = re.compile(r"^([0-9]+)\.([0-9]+)\.([0-9]+)-")


def bottlerocket_release(pool: EksManagedPool) -> PinnedRelease | None:
    """The Bottlerocket release ``pool``'s ``releaseVersion`` pins (``1.40.0-25e1f1a4`` -> ``(1, 40, 0)``), or None:
    no ``releaseVersion`` (the latest release for the Kubernetes version), an AMI type that is not ``BOTTLEROCKET_*``,
    or a value not in Bottlerocket's ``X.Y.Z-<build>`` form."""
    text = pool.release_version
    if text is None or not pool.ami_type.startswith("BOTTLEROCKET_"):
        return None
    found = _RELEASE.match(text)
    if found is None:
        return None
    major, minor, patch = (int(part) for part in found.groups())
    return PinnedRelease(KEY, text, (major, minor, patch))
