"""Kubernetes version calendars of the managed platforms, as data with their source and date.

Each :class:`Calendar` holds, per minor version, the dates the platform publishes, the source of
each row, and ``as_of``: the date of the newest source read. The sources read stop there; a
version newer than the table is judged against that date (:func:`newer_than_table`): before the
next release is due (:data:`RELEASE_CADENCE` after ``as_of``), the platform had not released it;
after, the table is old and the warning says so, never that the version is unknown.

EKS (:data:`EKS`): 14 months of standard support then 12 of extended support; on the end of
extended support date EKS creates no new clusters of the version and upgrades existing control
planes. The dates of 1.28-1.34 are the "Amazon EKS Kubernetes release calendar" of the EKS user guide
(awsdocs/amazon-eks-user-guide ``latest/ug/versioning/kubernetes-versions.adoc``@01385604 for
1.29-1.34, @8596db85 for 1.28; https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html).
The dates of 1.35 are not in the copies of that page read (the newest, @01385604, stops at 1.34): they come from AWS's aws-samples "EKS Version Support
Calendar" (https://aws-samples.github.io/sample-apex-skills/docs/skills/eks-operation-review/references/cluster-lifecycle,
"last verified 2026-04-24"), matching https://endoflife.date/amazon-eks. No source read gives
1.36 dates.

GKE (:data:`GKE`): up to 24 months of support after a minor is available in the Regular channel,
about 14 of standard and 10 of extended (Extended channel) support
(https://cloud.google.com/kubernetes-engine/versioning). GKE's own release schedule table
(https://cloud.google.com/kubernetes-engine/docs/release-schedule) was not among the pages read, and
the third-party dates seen (endoflife.date, snapshot 2026-04-10: 1.34 "maintenance support" to
2026-10-01) do not match GKE's own notes (1.34 patches still released on 2026-09-23,
https://docs.cloud.google.com/feeds/gke-no-channel-release-notes.xml), so the GKE rows carry no end
dates: only the minors GKE offered by ``as_of`` (1.33-1.35 in that snapshot).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Calendar", "Entry", "EKS", "GKE", "RELEASE_CADENCE", "parse_minor", "newer_than_table"]

#: Kubernetes ships a minor version about every four months ("on average once every four months",
#: EKS user guide, kubernetes-versions.html): a table older than that may miss a release.
RELEASE_CADENCE = datetime.timedelta(days=122)


@dataclass(frozen=True)
class Entry:
    """One minor version's row: ``end_standard`` / ``end_extended`` (None where no source gives
    them) and ``source`` (URL or repo path@commit)."""

    end_standard: datetime.date | None
    end_extended: datetime.date | None
    source: str


@dataclass(frozen=True)
class Calendar:
    """A platform's version table: ``entries`` (``(1, 35)`` -> :class:`Entry`), ``as_of`` (date of the
    newest source read), ``source`` (the page that is the judge) and ``note`` (where the
    sources stop)."""

    platform: str
    source: str
    as_of: datetime.date
    entries: Mapping[tuple[int, int], Entry] = field(default_factory=dict)
    note: str = ""

    @property
    def newest(self) -> tuple[int, int]:
        return max(self.entries)

    @property
    def oldest(self) -> tuple[int, int]:
        return min(self.entries)

    @property
    def stale_after(self) -> datetime.date:
        """The day after which the table may miss a released minor (``as_of`` + :data:`RELEASE_CADENCE`)."""
        return self.as_of + RELEASE_CADENCE


_D = datetime.date
_EKS_GUIDE = "awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions.adoc@01385604"
EKS = Calendar(
    platform="EKS",
    source="https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html",
    as_of=_D(2026, 4, 24),
    entries={
        (1, 28): Entry(_D(2024, 11, 26), _D(2025, 11, 26), "awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions.adoc@8596db85"),
        (1, 29): Entry(_D(2025, 3, 23), _D(2026, 3, 23), _EKS_GUIDE),
        (1, 30): Entry(_D(2025, 7, 23), _D(2026, 7, 23), _EKS_GUIDE),
        (1, 31): Entry(_D(2025, 11, 26), _D(2026, 11, 26), _EKS_GUIDE),
        (1, 32): Entry(_D(2026, 3, 23), _D(2027, 3, 23), _EKS_GUIDE),
        (1, 33): Entry(_D(2026, 7, 29), _D(2027, 7, 29), _EKS_GUIDE),
        (1, 34): Entry(_D(2026, 12, 2), _D(2027, 12, 2), _EKS_GUIDE),
        (1, 35): Entry(_D(2027, 3, 27), _D(2028, 3, 27),
                       "https://aws-samples.github.io/sample-apex-skills/docs/skills/eks-operation-review/references/cluster-lifecycle (verified 2026-04-24)"),
    },
    note="the EKS user guide read stops at 1.34; 1.35 from AWS's aws-samples calendar of 2026-04-24; no source read gives 1.36",
)

_GKE_EOL = "https://endoflife.date/api/v1/products/google-kubernetes-engine (snapshot 2026-04-10)"
GKE = Calendar(
    platform="GKE",
    source="https://cloud.google.com/kubernetes-engine/docs/release-schedule",
    as_of=_D(2026, 4, 10),
    entries={
        (1, 33): Entry(None, None, _GKE_EOL),
        (1, 34): Entry(None, None, _GKE_EOL),
        (1, 35): Entry(None, None, _GKE_EOL),
    },
    note="GKE's release schedule table was not among the pages read: the minors GKE offered by 2026-04-10, no end dates",
)


def parse_minor(version: str) -> tuple[int, int] | None:
    """``"1.35"`` -> ``(1, 35)``; None for anything else."""
    parts = str(version).split(".")
    if len(parts) < 2 or not all(p.isascii() and p.isdigit() for p in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


def newer_than_table(calendar: Calendar, version: str, today: datetime.date, fix: str) -> str | None:
    """The warning for ``version`` newer than every row of ``calendar``, or None when it is not newer.

    Up to :attr:`Calendar.stale_after`: the platform had not released it by ``as_of``, so it refuses
    it. After: the table is old, and the warning says so and how to check, never "unknown"."""
    minor = parse_minor(version)
    if minor is None or minor <= calendar.newest:
        return None
    newest = f"{calendar.newest[0]}.{calendar.newest[1]}"
    if today <= calendar.stale_after:
        return (f"{version!r} is newer than {newest}, the newest {calendar.platform} version as of "
                f"{calendar.as_of.isoformat()} ({calendar.source}); {calendar.platform} refuses versions it has not "
                f"released: {fix}")
    return (f"{version!r} is newer than {newest}, the newest version in this package's {calendar.platform} calendar, "
            f"which dates from {calendar.as_of.isoformat()} and is now old ({calendar.note}): {calendar.platform} may "
            f"have released {version} since; check {calendar.source}, or {fix}")
