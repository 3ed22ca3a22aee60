"""The Bottlerocket release a pool pins, and whether it has the device-plugin settings the pool's GPUs need.

An eks-managed ``releaseVersion`` on a ``BOTTLEROCKET_*`` AMI type (``1.40.0-25e1f1a4``) names the Bottlerocket release
in its first three numbers (EKS API ``CreateNodegroup`` ``releaseVersion``; Bottlerocket's AMI names, e.g.
``bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.40.0-25e1f1a4``). A node of an older release refuses a setting its data
model does not have, so the node would not share or partition its GPUs while the plan, the Cluster Autoscaler tags and
the policies promise it does. The first release of each setting the component writes (:data:`SINCE`):

* time-slicing (``device-sharing-strategy = "time-slicing"``, ``time-slicing.*``): 1.25.0, bottlerocket-os/bottlerocket#4230
  (details in :mod:`.bottlerocket_sharing`);
* MPS (``device-sharing-strategy = "mps"``, ``mps.*``): 1.54.0, bottlerocket-os/bottlerocket#4744 and
  bottlerocket-os/bottlerocket-core-kit#789;
* MIG (``device-partitioning-strategy = "mig"``, ``mig.profile``): 1.34.0, bottlerocket-os/bottlerocket#4418 (the
  settings migrations of ``device-partitioning-strategy`` and ``mig``; before it a 1.32.0 node answers "unknown field
  `device-partitioning-strategy`"), the release bottlerocket-os/bottlerocket#4483 names ("On Bottlerocket 1.34.0 MIG
  support was added").

A pool that pins no release gets the latest one for its Kubernetes version: not judged here. Pure, no Pulumi.
"""

from __future__ import annotations

import re
from typing import Any

from .bottlerocket_sharing import (
    BOTTLEROCKET_STRATEGY,
    DEVICE_PLUGINS_REFERENCE,
    shares_on_bottlerocket,
    writes_nvidia_settings,
)

__all__ = ["SINCE", "pinned_release", "release_problem"]

#: The first Bottlerocket release whose settings take each feature, and the public source saying so.
SINCE: dict[str, tuple[tuple[int, int, int], str]] = {
    "timeSlicing": ((1, 25, 0), "bottlerocket-os/bottlerocket#4230, release 1.25.0"),
    "mps": ((1, 54, 0), "bottlerocket-os/bottlerocket#4744 and bottlerocket-core-kit#789, release 1.54.0"),
    "mig": ((1, 34, 0), "bottlerocket-os/bottlerocket#4418, release 1.34.0 (bottlerocket-os/bottlerocket#4483)"),
}
_SETTING = {
    "timeSlicing": f'device-sharing-strategy = "{BOTTLEROCKET_STRATEGY["timeSlicing"]}"',
    "mps": f'device-sharing-strategy = "{BOTTLEROCKET_STRATEGY["mps"]}"',
    "mig": 'device-partitioning-strategy = "mig" and mig.profile',
}
_RELEASE = re.compile(r"^([0-9]+)\.([0-9]+)\.([0-9]+)-")


def pinned_release(pool: Any) -> tuple[int, int, int] | None:
    """The Bottlerocket release a pool config model's ``release_version`` pins (``(1, 40, 0)``), or None when it pins
    none or one not in Bottlerocket's ``X.Y.Z-<build>`` form."""
    release = getattr(pool, "release_version", None)
    found = _RELEASE.match(release) if isinstance(release, str) else None
    return tuple(int(part) for part in found.groups()) if found else None  # type: ignore[return-value]


def _feature(pool: Any) -> str | None:
    """Which :data:`SINCE` feature the component writes for the pool's nodes, or None."""
    if shares_on_bottlerocket(pool):
        return pool.gpu_sharing.strategy
    if getattr(pool, "mig", None) is not None and writes_nvidia_settings(pool):
        return "mig"
    return None


def release_problem(pool: Any) -> str | None:
    """Why the Bottlerocket release the pool pins lacks the setting its ``gpuSharing`` or ``mig`` needs, or None.

    The message names the ``releaseVersion``, the release, the setting, its source and the fixes (a later release, no
    pin, or no ``gpuSharing``/``mig``).
    """
    feature = _feature(pool)
    version = pinned_release(pool) if feature else None
    if feature is None or version is None or feature not in SINCE:
        return None
    since, source = SINCE[feature]
    if version >= since:
        return None
    wanted = ".".join(map(str, since))
    what = "partition" if feature == "mig" else "share"
    field = "mig" if feature == "mig" else "gpuSharing"
    return (
        f"{pool.release_version!r} pins Bottlerocket {'.'.join(map(str, version))}, which has no "
        f"settings.kubelet-device-plugins.nvidia {_SETTING[feature]} ({source}; {DEVICE_PLUGINS_REFERENCE}), so the "
        f"node would refuse the setting and {what} nothing; pin a release {wanted} or later, remove releaseVersion "
        f"(the latest release), or remove {field}"
    )
