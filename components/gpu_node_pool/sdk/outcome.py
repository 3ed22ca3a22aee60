"""The outcome of a ``gpupool`` run, decided in one place for every command: its exit code
(:func:`exit_code`) and the top of its ``--json`` report (:func:`envelope`).

``plan``, ``check``, ``render`` and ``validate`` judge policy violations (CrossGuard enforcement
levels ``advisory``, ``mandatory``, ``remediate``: ``EnforcementLevel`` in
``pulumi/pulumi-policy`` ``sdk/python/lib/pulumi_policy/policy.py``) and uncovered pool taints
(judged ``mandatory``); ``audit`` judges its findings (``info``, ``advisory``, ``mandatory``).
:func:`exit_code` turns those levels, ``--fail-on`` and "was the input valid" into the code the
process exits with, so the plan (``PlanResult``), the audit (``AuditReport``) and the CLI cannot
disagree. It lives in this room, below ``plan`` and ``audit``, because both compute it and a room
imports only the rooms below it; it reads CrossGuard's levels and sets the status of the
processes this package owns, which is what ``sdk`` holds. Pure: no imports beyond the stdlib.
The schemas of the reports are ``cli/report.schema.json`` and ``audit/report.schema.json``.

Exit codes (64 and 70 from BSD ``sysexits.h``; 141 is how a shell reports a writer stopped by
``SIGPIPE``, 128 + 13):

====  =========================================================================================
0     clean: nothing at or above ``--fail-on``
1     findings at or above ``--fail-on`` (default ``mandatory``)
2     invalid input (stack file, stack config, ``--policy-pack-config``, ``--out``, a dump...)
64    command-line usage
70    internal error: a bug
141   stdout was closed by its reader (``gpupool plan ... | head -1``); nothing else is printed
====  =========================================================================================
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

__all__ = ["SCHEMA_VERSION", "ExitCode", "LEVELS", "FAIL_ON", "exit_code", "envelope"]

#: Version of the ``--json`` report layout; bumped on any incompatible change of a key.
SCHEMA_VERSION = 1


class ExitCode(IntEnum):
    """Process exit codes of ``gpupool``."""

    OK = 0
    FINDINGS = 1
    INVALID_INPUT = 2
    USAGE = 64
    INTERNAL = 70
    CLOSED_STDOUT = 141


#: Finding levels, lowest first (``remediate``, a CrossGuard level, ranks as ``mandatory``).
LEVELS = ("info", "advisory", "mandatory")
#: Every ``--fail-on`` value: a finding fails the run when its level is at or above it; ``none``
#: never fails on findings (invalid input still exits 2).
FAIL_ON = (*LEVELS, "none")
_RANK = {"info": 0, "advisory": 1, "mandatory": 2, "remediate": 2}


def exit_code(levels: Iterable[str], fail_on: str = "mandatory", *, invalid_input: bool = False) -> ExitCode:
    """The exit code of a run.

    Args:
        levels: the level of each finding: ``"info"``, ``"advisory"``, ``"mandatory"`` or ``"remediate"``.
        fail_on: one of :data:`FAIL_ON`.
        invalid_input: the input was refused (config errors): exit 2 whatever the findings.

    Returns:
        :attr:`ExitCode.INVALID_INPUT`, :attr:`ExitCode.FINDINGS` or :attr:`ExitCode.OK`.

    Raises:
        ValueError: ``fail_on`` is not in :data:`FAIL_ON`, or a level is unknown (argparse restricts
            ``--fail-on``; an unknown level is a bug of the caller).
    """
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on {fail_on!r} is not one of {', '.join(FAIL_ON)}")
    if invalid_input:
        return ExitCode.INVALID_INPUT
    if fail_on == "none":
        return ExitCode.OK
    threshold = _RANK[fail_on]
    for level in levels:
        if level not in _RANK:
            raise ValueError(f"finding level {level!r} is not one of {', '.join(_RANK)}")
        if _RANK[level] >= threshold:
            return ExitCode.FINDINGS
    return ExitCode.OK


def envelope(command: str, code: int, *, cloud_api_called: bool = False, **fields: Any) -> dict[str, Any]:
    """A ``--json`` report: ``{"schemaVersion": 1, "command", "exitCode", "cloudApiCalled", **fields}``.

    ``cloud_api_called`` is true only when the run called (or tried to call) a cloud or Kubernetes
    API: a live ``gpupool audit``; every other command is offline.
    """
    return {"schemaVersion": SCHEMA_VERSION, "command": command, "exitCode": int(code),
            "cloudApiCalled": bool(cloud_api_called), **fields}
