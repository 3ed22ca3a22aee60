"""What the audit reports: findings with a level, and what it could not judge.

Levels, lowest first: ``info``, ``advisory``, ``mandatory`` (the policy pack's words:
``mandatory`` is what the pack would block). ``--fail-on LEVEL`` makes the command exit 1
when a finding at or above LEVEL exists (default ``mandatory``; ``none`` never fails).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..sdk.outcome import FAIL_ON, LEVELS

__all__ = ["LEVELS", "FAIL_ON", "Finding", "NotJudged"]


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

