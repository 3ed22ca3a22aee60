"""The AMI release an ``eks-managed`` pool pins with ``releaseVersion``: its form for the AMI type, its Kubernetes
version, and the Bottlerocket release it names.

A node group's ``releaseVersion`` is "the AMI version of the Amazon EKS optimized AMI to use with your node group";
without it EKS takes "the latest available AMI version for the node group's current Kubernetes version" (EKS API
``CreateNodegroup``, :data:`API`). The node group's Kubernetes version is ``cluster.kubernetesVersion`` (rendered as
the node group's ``version``; unset, EKS takes the cluster's). The two forms, one per image family:

* AL2023 (``AL2023_*`` AMI types): ``<Kubernetes major.minor.patch>-<YYYYMMDD>``, e.g. ``1.33.0-20250610``, the
  "Release version" of each Kubernetes version in awslabs/amazon-eks-ami's releases (v20230513: ``1.27.1-20230513``;
  v20260818: ``1.36.2-20260818``). Its ``major.minor`` is the Kubernetes version the AMI is built for.
* Bottlerocket (``BOTTLEROCKET_*``): ``<Bottlerocket version>-<commit>``, e.g. ``1.40.0-25e1f1a4``, as in
  Bottlerocket's AMI names (``bottlerocket-aws-k8s-1.33-nvidia-x86_64-v1.40.0-25e1f1a4``) and its SSM parameter
  ``/aws/service/bottlerocket/aws-k8s-<version>-nvidia/<arch>/latest/image_version``. Its version is Bottlerocket's
  own, one for every Kubernetes version (``1.30.0-ca9b9399`` for both aws-k8s-1.29 and aws-k8s-1.30:
  hashicorp/terraform-provider-aws#40903), so it says nothing of the Kubernetes version.

EKS refuses a release that is not one of the node group's AMI type and Kubernetes version: an AL2 release on a
Bottlerocket node group, "Requested release version 1.21.4-20211013 is not valid for kubernetes version 1.21"
(eksctl-io/eksctl#4423); a release of another Kubernetes minor, "Requested release version 1.31.3-20250103 is not
valid for kubernetes version 1.30." (eksctl-io/eksctl#7976; hashicorp/terraform-provider-aws#14492: "Requested
Nodegroup release version 1.17.9-20200723 is invalid. Allowed release version is 1.16.13-20200723").

The Bottlerocket release is the registry's ``bottlerocket_release`` hook of the backend; the rules on it are the GPU
agents' (``gpu_agents/bottlerocket_release.py``). Pure, no Pulumi.
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING, Any

from ...registry import PinnedRelease

if TYPE_CHECKING:
    from ...config.errors import ConfigIssue
    from .config import EksManagedPool

__all__ = ["bottlerocket_release", "form_problem", "version_issues", "version_warnings"]

#: The config key that pins the release.
KEY = "releaseVersion"
#: The EKS API reference of ``releaseVersion``.
API = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"
#: Where EKS's refusal of a release of another image family than the node group's AMI type is told.
OTHER_FAMILY = "eksctl-io/eksctl#4423"
#: Where EKS's refusal of a release of another Kubernetes version than the node group's is told.
OTHER_VERSION = "eksctl-io/eksctl#7976, hashicorp/terraform-provider-aws#14492"
_RELEASE = re.compile(r"^([0-9]+)\.([0-9]+)\.([0-9]+)-([0-9a-f]+)$")
_FIRST_EKS_YEAR = 2018  # EKS and its optimized AMIs were published in 2018
_AL2023_FORM = "<Kubernetes major.minor.patch>-<YYYYMMDD>, e.g. 1.33.0-20250610"
_BOTTLEROCKET_FORM = "<Bottlerocket version>-<commit>, e.g. 1.40.0-25e1f1a4"
_AL2023_LOOKUP = ("aws ssm get-parameter --name /aws/service/eks/optimized-ami/<version>/amazon-linux-2023/"
                  "<x86_64|arm64>/nvidia/recommended/release_version, or the \"Release version\" of "
                  "https://github.com/awslabs/amazon-eks-ami/releases")
_BOTTLEROCKET_LOOKUP = ("aws ssm get-parameter --name /aws/service/bottlerocket/aws-k8s-<version>-nvidia/"
                        "<x86_64|arm64>/latest/image_version")


def _dated(build: str) -> bool:
    """Whether ``build`` (the part after the ``-``) is an AMI release date ``YYYYMMDD`` of EKS's years."""
    if len(build) != 8 or not build.isdigit():
        return False
    try:
        day = datetime.date(int(build[:4]), int(build[4:6]), int(build[6:]))
    except ValueError:
        return False
    return day.year >= _FIRST_EKS_YEAR


def _bottlerocket(ami_type: str) -> bool:
    return ami_type.startswith("BOTTLEROCKET_")


def bottlerocket_release(pool: EksManagedPool) -> PinnedRelease | None:
    """The Bottlerocket release ``pool``'s ``releaseVersion`` pins (``1.40.0-25e1f1a4`` -> ``(1, 40, 0)``), or None:
    no ``releaseVersion`` (the latest release for the Kubernetes version), an AMI type that is not ``BOTTLEROCKET_*``,
    or a value not in Bottlerocket's ``X.Y.Z-<commit>`` form (an AL2023 release, which :func:`form_problem` refuses)."""
    text = pool.release_version
    if text is None or not _bottlerocket(pool.ami_type):
        return None
    found = _RELEASE.match(text)
    if found is None or _dated(found.group(4)):
        return None
    major, minor, patch = (int(part) for part in found.groups()[:3])
    return PinnedRelease(KEY, text, (major, minor, patch))


def form_problem(pool: Any) -> str | None:
    """Why ``pool``'s ``releaseVersion`` is a release of the other image family than its ``amiType``, or None.

    ``pool`` has ``release_version`` (None or ``X.Y.Z-<8 hex digits>``, the model's pattern) and ``ami_type``. A
    release whose part after the ``-`` is a date (``YYYYMMDD``, 2018 or later) is AL2023's form, any other is
    Bottlerocket's (a commit); ``AL2023_*`` AMI types take the first, ``BOTTLEROCKET_*`` the second, and EKS refuses
    the other (module docstring). The message names the value, both forms, which AMI types take which, the sources
    and the fix.
    """
    text = getattr(pool, "release_version", None)
    found = _RELEASE.match(text) if text else None
    if found is None:
        return None
    ami_type, build = pool.ami_type, found.group(4)
    refusal = ("EKS refuses a release that is not one of the node group's AMI type: \"Requested release version "
               f"1.21.4-20211013 is not valid for kubernetes version 1.21\" for an AL2 release on a Bottlerocket node "
               f"group ({OTHER_FAMILY}; {API})")
    if _bottlerocket(ami_type) and _dated(build):
        return (f"{text!r} is an AL2023 EKS-optimized AMI release ({_AL2023_FORM}: it ends in a date), but amiType "
                f"{ami_type} runs Bottlerocket, whose releases are {_BOTTLEROCKET_FORM}; AL2023_* AMI types take "
                f"the first form, BOTTLEROCKET_* the second. {refusal}. Pin a Bottlerocket release "
                f"({_BOTTLEROCKET_LOOKUP}), remove releaseVersion to get the latest one for the pool's Kubernetes "
                "version, or use an AL2023_* amiType")
    if not _bottlerocket(ami_type) and not _dated(build):
        return (f"{text!r} is a Bottlerocket release ({_BOTTLEROCKET_FORM}: {build!r} is a commit, no date "
                f"YYYYMMDD), but amiType {ami_type} is an AL2023 EKS-optimized AMI, whose releases are "
                f"{_AL2023_FORM}; AL2023_* AMI types take that form, BOTTLEROCKET_* the first. {refusal}. Pin an "
                f"AL2023 release of the pool's Kubernetes version ({_AL2023_LOOKUP}), remove releaseVersion to get "
                "the latest one, or use a BOTTLEROCKET_* amiType")
    return None


def _al2023_minor(pool: Any) -> str | None:
    """The Kubernetes ``major.minor`` of ``pool``'s pinned AL2023 release (``1.30.0-20250610`` -> ``1.30``), or None:
    no pin, or a Bottlerocket one (its version is Bottlerocket's)."""
    text = getattr(pool, "release_version", None)
    found = _RELEASE.match(text) if text else None
    if found is None or _bottlerocket(pool.ami_type) or not _dated(found.group(4)):
        return None
    return f"{int(found.group(1))}.{int(found.group(2))}"


def _pinned_al2023(stack: Any) -> list[tuple[int, Any, str]]:
    from .config import EksManagedPool

    return [(i, pool, minor) for i, pool in enumerate(stack.pools)
            if isinstance(pool, EksManagedPool) and (minor := _al2023_minor(pool)) is not None]


def version_issues(stack: Any) -> list[ConfigIssue]:
    """``pools[i].releaseVersion`` issues: an AL2023 release of another Kubernetes minor than
    ``cluster.kubernetesVersion`` (the node group's ``version``), which EKS refuses ("Requested release version
    1.31.3-20250103 is not valid for kubernetes version 1.30.", eksctl-io/eksctl#7976). ``[]`` while
    ``cluster.kubernetesVersion`` is unset (:func:`version_warnings` says so)."""
    from ...config.errors import ConfigIssue

    version = stack.cluster.kubernetes_version
    if not version:
        return []
    issues = []
    for i, pool, minor in _pinned_al2023(stack):
        if minor != version:
            issues.append(ConfigIssue(f"pools[{i}].{KEY}", (
                f"{pool.release_version!r} is an AL2023 EKS-optimized AMI release for Kubernetes {minor} "
                f"({_AL2023_FORM}), but the node group runs Kubernetes {version} (cluster.kubernetesVersion); EKS "
                f"takes only a release of the node group's Kubernetes version: \"Requested release version "
                f"1.31.3-20250103 is not valid for kubernetes version 1.30.\" ({OTHER_VERSION}; {API}). Pin a release of "
                f"Kubernetes {version} ({_AL2023_LOOKUP.replace('<version>', version)}), or remove releaseVersion to "
                f"get the latest one")))
    return issues


def version_warnings(stack: Any) -> list[ConfigIssue]:
    """A ``pools[i].releaseVersion`` note per pinned AL2023 release while ``cluster.kubernetesVersion`` is unset:
    the node group then runs the cluster's version, which the stack does not say, so whether EKS takes the release
    is not judged (:func:`version_issues`)."""
    from ...config.errors import ConfigIssue

    if stack.cluster.kubernetes_version:
        return []
    return [ConfigIssue(f"pools[{i}].{KEY}", (
        f"{pool.release_version!r} is an AL2023 release for Kubernetes {minor}; EKS takes it only on a node group of "
        f"that version ({OTHER_VERSION}; {API}), and with cluster.kubernetesVersion unset the node group runs the "
        f"cluster's version, which the stack does not name: not judged. Set cluster.kubernetesVersion to the "
        f"cluster's version, or remove releaseVersion to get the latest release for it"))
        for i, pool, minor in _pinned_al2023(stack)]
