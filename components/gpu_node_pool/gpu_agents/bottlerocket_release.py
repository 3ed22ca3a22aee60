"""The Bottlerocket release a pool pins, and whether it has the device-plugin settings the pool's GPUs need.

The release a pool pins is its backend's to read: the registry's ``bottlerocket_release`` hook gives it as a
:class:`~gpu_node_pool.registry.PinnedRelease` (eks-managed: ``releaseVersion`` on a ``BOTTLEROCKET_*`` AMI type,
``1.40.0-25e1f1a4`` -> ``(1, 40, 0)``, EKS API ``CreateNodegroup`` ``releaseVersion``; ``backends/eks_managed/release.py``).
A node of an older release refuses a setting its data model does not have, so the node would not share or partition
its GPUs while the plan, the Cluster Autoscaler tags and the policies promise it does. The first release of each
setting the component writes (:data:`SINCE`):

* time-slicing (``device-sharing-strategy = "time-slicing"``, ``time-slicing.*``): 1.25.0, bottlerocket-os/bottlerocket#4230
  (details in :mod:`.bottlerocket_sharing`);
* MPS (``device-sharing-strategy = "mps"``, ``mps.*``): 1.54.0, bottlerocket-os/bottlerocket#4744 and
  bottlerocket-os/bottlerocket-core-kit#789;
* MIG (``device-partitioning-strategy = "mig"``, ``mig.profile``): 1.34.0, bottlerocket-os/bottlerocket#4418 (the
  settings migrations of ``device-partitioning-strategy`` and ``mig``; before it a 1.32.0 node answers "unknown field
  `device-partitioning-strategy`"), the release bottlerocket-os/bottlerocket#4483 names ("On Bottlerocket 1.34.0 MIG
  support was added").

A pool that pins no release (or whose backend has no ``bottlerocket_release``) gets the latest one for its Kubernetes
version: not judged here. Pure, no Pulumi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry import get
from .bottlerocket_sharing import (
    BOTTLEROCKET_STRATEGY,
    DEVICE_PLUGINS_REFERENCE,
    shares_on_bottlerocket,
    writes_nvidia_settings,
)
from .pools import Problem

if TYPE_CHECKING:
    from ..config.common import PoolBase
    from ..registry import PinnedRelease

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


def pinned_release(pool: PoolBase) -> PinnedRelease | None:
    """The Bottlerocket release a validated pool config model pins, as its backend's ``bottlerocket_release`` reads
    it, or None when the pool pins none (or its backend has no such hook).

    Raises:
        KeyError: ``pool.backend`` is not a registered backend (the message names the registered ones).
    """
    read = get(pool.backend).fn("bottlerocket_release")
    return read(pool) if read is not None else None


def _feature(pool: PoolBase) -> str | None:
    """Which :data:`SINCE` feature the component writes for the pool's nodes, or None."""
    if shares_on_bottlerocket(pool):
        return pool.gpu_sharing.strategy
    if pool.mig is not None and writes_nvidia_settings(pool):
        return "mig"
    return None


def release_problem(pool: PoolBase, path: str) -> Problem | None:
    """Why the Bottlerocket release the validated pool at ``path`` (``pools[0]``) pins lacks the setting its
    ``gpuSharing`` or ``mig`` needs, or None.

    The problem sits at the key that pins the release (eks-managed: ``pools[0].releaseVersion``); its message names
    the pinned value, the release, the setting, its source and the fixes (a later release, no pin, or no
    ``gpuSharing``/``mig``).

    Raises:
        KeyError: ``pool.backend`` is not a registered backend.
    """
    feature = _feature(pool)
    pinned = pinned_release(pool) if feature else None
    if feature is None or pinned is None or feature not in SINCE:
        return None
    since, source = SINCE[feature]
    version = pinned.version
    if version >= since:
        return None
    wanted = ".".join(map(str, since))
    what = "partition" if feature == "mig" else "share"
    field = "mig" if feature == "mig" else "gpuSharing"
    return Problem(f"{path}.{pinned.key}", (
        f"{pinned.text!r} pins Bottlerocket {'.'.join(map(str, version))}, which has no "
        f"settings.kubelet-device-plugins.nvidia {_SETTING[feature]} ({source}; {DEVICE_PLUGINS_REFERENCE}), so the "
        f"node would refuse the setting and {what} nothing; pin a release {wanted} or later, remove {pinned.key} "
        f"(the latest release), or remove {field}"
    ))
