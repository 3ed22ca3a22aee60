"""What the audit reports: findings with a level, and what it could not judge.

Levels, lowest first: ``info``, ``advisory``, ``mandatory`` (the policy pack's words:
``mandatory`` is what the pack would block). ``--fail-on LEVEL`` makes the command exit 1
when a finding at or above LEVEL exists (default ``mandatory``; ``none`` never fails).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..sdk.outcome import FAIL_ON, LEVELS

__all__ = ["LEVELS", "FAIL_ON", "Finding", "NotJudged", "SHOWN_SUBJECTS", "finding_lines", "see_findings", "shown_names"]

#: How many subjects a line of findings alike names before it counts the rest (``--json`` lists each one).
SHOWN_SUBJECTS = 5


@dataclass(frozen=True)
class Finding:
    """One thing wrong (or worth knowing), with the fix.

    Attributes:
        level: one of :data:`LEVELS`.
        code: a stable id (``daemonset-does-not-run``, ``gpu-node-starved``, ``imperative-taint``...).
        subject: what it is about (``DaemonSet logging/fluent-bit``, ``Node ip-10-0-1-5...``).
        message: one sentence.
        fix: what to do, or "".
        pool: the pool id it concerns, or "".
    """

    level: str
    code: str
    subject: str
    message: str
    fix: str = ""
    pool: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = {"level": self.level, "code": self.code, "subject": self.subject, "message": self.message, "fix": self.fix}
        if self.pool:
            out["pool"] = self.pool
        return out


@dataclass(frozen=True)
class NotJudged:
    """Something the audit could not decide, and why (never a silent pass)."""

    subject: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"subject": self.subject, "reason": self.reason}


def see_findings(subjects: Sequence[str], about: str) -> str:
    """How one finding points to another, in the words every output prints (the text shows no finding ``code``):
    the subject its line starts with and what its message names, ``see the finding on Node gpu-1 about
    maintenance=true:NoSchedule``; several subjects of one kind, ``see the findings on Nodes a, b and 3 more about
    ...`` (up to :data:`SHOWN_SUBJECTS` named). ``subjects``: the findings' ``subject`` (``Node gpu-1``), in order."""
    kind = subjects[0].partition(" ")[0]
    names = [s.partition(" ")[2] or s for s in subjects]
    if len(names) == 1:
        return f"see the finding on {subjects[0]} about {about}"
    return f"see the findings on {kind}s {shown_names(names)} about {about}"


def shown_names(names: Sequence[str]) -> str:
    """``names`` in one clause, up to :data:`SHOWN_SUBJECTS` of them and a count of the rest: ``a, b, c, d, e and 2
    more`` (``--json`` lists each one)."""
    return ", ".join(names[:SHOWN_SUBJECTS]) + (f" and {len(names) - SHOWN_SUBJECTS} more"
                                                if len(names) > SHOWN_SUBJECTS else "")


def finding_lines(findings: list[Finding], fix_word: str = " -> ") -> list[str]:
    """One line per distinct finding, in the order first found: findings alike (same level, code, message and fix)
    about several subjects of one kind (a starved ``Node`` each, on a cluster of thousands) share a line naming
    them, ``[mandatory] 3 Nodes (a, b, c): <message> -> <fix>``, up to :data:`SHOWN_SUBJECTS` of them and a count of
    the rest. ``fix_word`` joins the fix (the page says `` Fix: ``)."""
    groups: dict[tuple[str, str, str, str, str], list[str]] = {}
    for f in findings:
        kind, _, name = f.subject.partition(" ")
        key = (f.level, f.code, f.message, f.fix, kind if name else f.subject)
        groups.setdefault(key, []).append(name if name else f.subject)
    lines = []
    for (level, _, message, fix, kind), names in groups.items():
        if len(names) == 1:
            subject = f"{kind} {names[0]}" if names[0] != kind else kind
        else:
            shown = ", ".join(names[:SHOWN_SUBJECTS]) + (f", and {len(names) - SHOWN_SUBJECTS} more"
                                                         if len(names) > SHOWN_SUBJECTS else "")
            subject = f"{len(names)} {kind}s ({shown})"
        lines.append(f"[{level}] {subject}: {message}" + (f"{fix_word}{fix}" if fix else ""))
    return lines
