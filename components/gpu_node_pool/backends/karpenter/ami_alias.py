"""The version half of an EC2NodeClass ``amiSelectorTerms[].alias`` (``family@version``), judged per family.

The CRD checks only ``^[a-zA-Z0-9]+@.+$``, the family and 30 characters (aws/karpenter-provider-aws
``pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml``@v1.14.1); the version is judged when Karpenter resolves the
alias to an SSM parameter. A version no release has resolves to no parameter ("failed to discover any AMIs for
alias", ``pkg/providers/amifamily/al2023.go`` / ``bottlerocket.go``@v1.14.1), so the EC2NodeClass never becomes
Ready and the NodePool launches no node.

Versions, per family (``website/content/en/docs/concepts/nodeclasses.md``@v1.14.1, "The version string can be set to
``latest``, or pinned to a specific AMI using the format of that AMI's GitHub release tags"):

- ``latest`` for every family.
- ``al2023``: the EKS AMI release date, ``vYYYYMMDD`` ("AL2 and AL2023 use dates for their release", e.g.
  ``al2023@v20240703``); Karpenter reads the SSM parameter ``.../amazon-eks-node-al2023-<arch>-nvidia-<k8s>-<version>``
  (``al2023.go`` ``resolvePath``), so the ``v`` and the eight digits are part of the name.
- ``bottlerocket``: the release's semantic version, ``vX.Y.Z`` (e.g. ``bottlerocket@v1.20.4``); Karpenter strips the
  leading ``v`` for the SSM path ``/aws/service/bottlerocket/aws-k8s-<k8s>-nvidia/<arch>/<X.Y.Z>/image_id``
  (``bottlerocket.go``), so ``X.Y.Z`` works too. ``X.Y.Z-<commit>`` is the ``image_version`` Bottlerocket's publishing
  tool names its parameters by (bottlerocket-os/bottlerocket ``tools/pubsys/policies/ssm/defaults.toml``, e.g.
  ``1.42.0-5ed15786``); whether AWS's public parameters carry that form is not documented by Karpenter, so it is
  a warning, not judged.
"""

from __future__ import annotations

import re
from datetime import date

from ...config.version_calendars import EKS, parse_minor
from ...text.suggest import closest

__all__ = ["alias_kubernetes_warning", "alias_version_problem", "alias_version_warning"]

_SOURCE = ("aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md@v1.14.1: 'latest' or the AMI's "
           "GitHub release tag; pkg/providers/amifamily/{family}.go looks it up in SSM")
_NOT_READY = ("Karpenter finds no AMI for it ('failed to discover any AMIs for alias'), so the EC2NodeClass never "
              "becomes Ready and the pool launches no node")
_AL2023_DATE = re.compile(r"v(\d{4})(\d{2})(\d{2})")
_SEMVER = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
_SEMVER_COMMIT = re.compile(r"v?\d+\.\d+\.\d+-[0-9a-f]+")


def _real_date(year: str, month: str, day: str) -> bool:
    try:
        date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def _latest_hint(version: str) -> str:
    """`` (did you mean latest?)`` for a near miss of ``latest``; Karpenter compares the exact lower-case word."""
    if version.lower() == "latest":
        return " (Karpenter takes latest in lower case only)"
    return " (did you mean latest?)" if closest(version.lower(), ["latest"], cutoff=0.7) else ""


def alias_version_problem(family: str, version: str) -> str | None:
    """Why ``family@version`` names no AMI Karpenter can resolve, or None.

    ``family``: ``al2023`` or ``bottlerocket`` (other families are refused before this). Refused: an ``al2023``
    version other than ``latest`` or ``v`` and a real calendar date ``YYYYMMDD``; a ``bottlerocket`` version other
    than ``latest``, ``vX.Y.Z``/``X.Y.Z`` or ``X.Y.Z-<hex commit>`` (the last is warned of by
    :func:`alias_version_warning`). The sentence names the rule, its source and the fix."""
    if version == "latest":
        return None
    if family == "al2023":
        match = _AL2023_DATE.fullmatch(version)
        if match and _real_date(*match.groups()):
            return None
        close = _latest_hint(version)
        if re.fullmatch(r"\d{8}", version):
            close = f" (the release tag starts with v: al2023@v{version})"
        return (f"version {version!r} is neither latest nor an AL2023 EKS AMI release, whose tag is v and its date "
                f"YYYYMMDD{close} ({_SOURCE.format(family='al2023')}); {_NOT_READY}; write al2023@latest or a "
                "release of your cluster's Kubernetes version, al2023@v<YYYYMMDD> (list them with aws ssm get-parameters-by-path --path "
                "/aws/service/eks/optimized-ami/<k8s version>/amazon-linux-2023/ --recursive)")
    if family == "bottlerocket":
        if _SEMVER.fullmatch(version) or _SEMVER_COMMIT.fullmatch(version):
            return None
        close = _latest_hint(version)
        return (f"version {version!r} is neither latest nor a Bottlerocket release, whose tag is a semantic version "
                f"vX.Y.Z{close} ({_SOURCE.format(family='bottlerocket')}); {_NOT_READY}; write bottlerocket@latest or "
                "a release such as bottlerocket@v1.20.4 (list them with aws ssm get-parameters-by-path --path "
                "/aws/service/bottlerocket/aws-k8s-<k8s version>-nvidia --recursive)")
    return None


def alias_version_warning(alias: str) -> str | None:
    """A sentence for an accepted ``family@version`` whose version form is plausible but not confirmed, or None: a
    ``bottlerocket`` ``X.Y.Z-<commit>`` (module docstring)."""
    family, _, version = alias.partition("@")
    if family == "bottlerocket" and _SEMVER_COMMIT.fullmatch(version):
        return (f"amiAlias bottlerocket@{version}: not judged. Karpenter documents Bottlerocket versions as vX.Y.Z "
                "(aws/karpenter-provider-aws website/content/en/docs/concepts/nodeclasses.md@v1.14.1) and looks up "
                f"/aws/service/bottlerocket/aws-k8s-<k8s>-nvidia/<arch>/{version.lstrip('v')}/image_id; Bottlerocket's "
                "publishing tool names parameters by version-commit (bottlerocket-os/bottlerocket "
                "tools/pubsys/policies/ssm/defaults.toml), but whether AWS's public ones exist in that form is not "
                "documented; check with aws ssm get-parameters-by-path --path "
                "/aws/service/bottlerocket/aws-k8s-<k8s version>-nvidia --recursive, or pin "
                f"bottlerocket@v{version.lstrip('v').split('-')[0]}")
    return None


#: EKS supports a minor version for 14 months of standard support from its release (EKS user guide,
#: kubernetes-versions.html): the release is about that long before the calendar's end of standard support.
_STANDARD_SUPPORT_DAYS = 426


def alias_kubernetes_warning(alias: str, kubernetes_version: str | None) -> str | None:
    """A sentence for an ``al2023@vYYYYMMDD`` alias dated before EKS released ``kubernetes_version`` (``"1.33"``),
    or None: Karpenter looks the alias up as ``amazon-eks-node-al2023-<arch>-nvidia-<k8s>-v<date>``
    (``pkg/providers/amifamily/al2023.go``@v1.14.1), and no AMI of a Kubernetes version is built before EKS
    released that version. The release day is derived from the EKS calendar's end of standard support minus 14
    months (:data:`gpu_node_pool.config.version_calendars.EKS`), so the sentence is a warning, not a refusal;
    None for ``latest``, another family, a version the calendar lacks or no version given."""
    family, _, version = alias.partition("@")
    match = _AL2023_DATE.fullmatch(version) if family == "al2023" else None
    minor = parse_minor(kubernetes_version) if kubernetes_version else None
    entry = EKS.entries.get(minor) if minor else None
    if match is None or entry is None or entry.end_standard is None or not _real_date(*match.groups()):
        return None
    pinned = date(*map(int, match.groups()))
    released = date.fromordinal(entry.end_standard.toordinal() - _STANDARD_SUPPORT_DAYS)
    if pinned >= released:
        return None
    return (f"amiAlias {alias}: an AL2023 AMI release of {pinned.isoformat()}, before EKS released Kubernetes "
            f"{kubernetes_version} (about {released.isoformat()}: 14 months of standard support ending "
            f"{entry.end_standard.isoformat()}, {EKS.source}); Karpenter looks up "
            f"amazon-eks-node-al2023-<arch>-nvidia-{kubernetes_version}-{version} "
            "(aws/karpenter-provider-aws pkg/providers/amifamily/al2023.go@v1.14.1), which no release of that date has, "
            f"so the EC2NodeClass would find no AMI; write al2023@latest or a release of {kubernetes_version} "
            f"(aws ssm get-parameters-by-path --path /aws/service/eks/optimized-ami/{kubernetes_version}/amazon-linux-2023/ "
            "--recursive)")
