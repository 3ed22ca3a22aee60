"""The contract every ``gpupool`` command keeps: exit codes, ``--fail-on``, the JSON envelope.

Exit codes (stated once in the README, "Command-line contract"):

====  =========================================================================================
0     clean: nothing at or above ``--fail-on`` was found
1     findings at or above ``--fail-on`` (default ``mandatory``): a policy violation, or a pool
      taint the device plugin does not tolerate (always judged mandatory)
2     invalid input: stack file, stack config, ``--policy-pack-config``, ``--requirement``,
      ``--out`` (the message names the file or argument, the bad value and the fix)
64    command-line usage (``EX_USAGE`` of BSD sysexits.h; argparse's own exit 2 is overridden so
      that a typo never reads as a config error)
70    internal error (``EX_SOFTWARE``): a bug; one line and "please report", the traceback only
      with ``--debug``
====  =========================================================================================

With ``--json`` every command prints one JSON object, the *report*, whose top level carries
``schemaVersion`` (:data:`SCHEMA_VERSION`), ``command`` and ``exitCode``; its JSON Schema is
``gpu_node_pool/cli/report.schema.json`` (:func:`report_schema`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from enum import IntEnum
from importlib import resources
from typing import Any, NoReturn

__all__ = [
    "SCHEMA_VERSION",
    "FAIL_ON_LEVELS",
    "ExitCode",
    "UsageParser",
    "findings_exit_code",
    "report",
    "report_schema",
]

#: Version of the ``--json`` report layout; bumped on any incompatible change of a key.
SCHEMA_VERSION = 1


class ExitCode(IntEnum):
    """Process exit codes of ``gpupool`` (values 64 and 70 from BSD ``sysexits.h``)."""

    OK = 0
    FINDINGS = 1
    INVALID_INPUT = 2
    USAGE = 64
    INTERNAL = 70


#: ``--fail-on`` values, lowest first: a finding fails the run when its level is at or above.
#: ``none`` never fails on findings (config errors still exit 2).
FAIL_ON_LEVELS = ("advisory", "mandatory", "none")
# Pulumi's enforcement levels as the policies report them; "remediate" blocks like "mandatory".
_RANK = {"advisory": 0, "mandatory": 1, "remediate": 1}


def findings_exit_code(violations: Iterable[Mapping[str, Any]], uncovered_taints: int, fail_on: str) -> int:
    """0 or 1 for a run whose input was valid.

    Args:
        violations: ``[{"enforcement": "advisory"|"mandatory"|"remediate", ...}]`` as the plan reports them.
        uncovered_taints: pool taints the device plugin does not tolerate (each a mandatory finding).
        fail_on: one of :data:`FAIL_ON_LEVELS`.

    Raises:
        ValueError: ``fail_on`` is not one of :data:`FAIL_ON_LEVELS` (argparse prevents it).
    """
    if fail_on not in FAIL_ON_LEVELS:
        raise ValueError(f"fail_on {fail_on!r} is not one of {', '.join(FAIL_ON_LEVELS)}")
    if fail_on == "none":
        return ExitCode.OK
    threshold = FAIL_ON_LEVELS.index(fail_on)
    levels = [_RANK.get(str(v.get("enforcement")), 0) for v in violations]
    levels += [_RANK["mandatory"]] * uncovered_taints
    return ExitCode.FINDINGS if any(level >= threshold for level in levels) else ExitCode.OK


def report(command: str, exit_code: int, **fields: Any) -> dict[str, Any]:
    """The ``--json`` report: ``{"schemaVersion": 1, "command", "exitCode", "cloudApiCalled": false, **fields}``."""
    return {"schemaVersion": SCHEMA_VERSION, "command": command, "exitCode": int(exit_code), "cloudApiCalled": False,
            **fields}


def print_report(doc: Mapping[str, Any], stream: Any = None) -> None:
    """Write ``doc`` as indented JSON plus a newline (values JSON cannot hold become strings)."""
    stream = stream or sys.stdout
    json.dump(doc, stream, indent=2, sort_keys=False, default=str)
    stream.write("\n")


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every ``--json`` report, shipped as package data."""
    text = resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


class UsageParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors exit 64 (``EX_USAGE``), not argparse's 2.

    Subparsers inherit the class (``add_subparsers`` uses the parent's type), so every
    sub-command follows the contract.
    """

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")
