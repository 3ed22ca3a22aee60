"""A config key the program requires and the stack file misses, placed at the stack file key that looks misspelt.

A Pulumi program reads ``<namespace>:<key>`` (``pulumi.Config().require("clusterName")`` reads
``<project>:clusterName``: the bag's name, by default the project's, is prepended, pulumi/pulumi
``sdk/python/lib/pulumi/config.py`` ``Config.full_key``) and a stack file that spells the key otherwise
(``platform-eks:clusterNmae``) gives it nothing: the program fails with ``ConfigMissingError``
("Missing required configuration variable '<namespace>:<key>'", the same file), or, when ``Pulumi.yaml``
declares the key without a default, the CLI refuses the stack first. :func:`name_near_misses` adds to such an
error the stack file key of the same namespace within a small edit distance, with its
``Pulumi.<stack>.yaml:<line>:<column>``, and the rename that fixes it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from ..config import ConfigIssue
from ..config.errors import Location

__all__ = ["distance", "name_near_misses", "stack_file_of", "stack_keys"]

#: The message of the Pulumi Python SDK's ``ConfigMissingError`` (``sdk/python/lib/pulumi/config.py``).
_REQUIRED = re.compile(r"Missing required configuration variable '(?P<key>[^'\s]+)'")
#: The message of a key ``Pulumi.yaml`` declares with no default that the stack leaves out (:mod:`.project_config`).
_DECLARED = "is missing this configuration value"


def distance(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance of ``a`` and ``b`` (insertions, deletions, substitutions and swaps of
    two neighbours, each 1: ``clusterNmae`` -> ``clusterName`` is 1), or ``limit + 1`` once it exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if before is not None and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
        if min(row) > limit:
            return limit + 1
    return min(row[-1], limit + 1)


def stack_keys(path: Path, project: str) -> tuple[dict[str, tuple[int, int]], tuple[int, int] | None]:
    """``({"<namespace>:<key>": (line, column)}, (line, column) of config:)`` of the stack file at ``path``, counted
    from 1; a key written without a namespace gets ``project``'s, as the Pulumi CLI reads it. Empty when the file is
    not a YAML mapping with a ``config:`` mapping.

    Raises:
        OSError: the file cannot be read.
    """
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (yaml.YAMLError, UnicodeDecodeError):
        return {}, None
    if not isinstance(root, yaml.MappingNode):
        return {}, None
    for key, value in root.value:
        if key.value == "config" and isinstance(value, yaml.MappingNode):
            found = {}
            for name, _ in value.value:
                if isinstance(name, yaml.ScalarNode):
                    full = name.value if ":" in name.value else f"{project}:{name.value}"
                    found.setdefault(full, (name.start_mark.line + 1, name.start_mark.column + 1))
            return found, (key.start_mark.line + 1, key.start_mark.column + 1)
    return {}, None


def _missing(issue: ConfigIssue) -> str | None:
    """The ``<namespace>:<key>`` ``issue`` says the stack leaves out, or None."""
    found = _REQUIRED.search(issue.message)
    if found is not None:
        return found["key"]
    if _DECLARED in issue.message and re.fullmatch(r"[^\s:]+:[^\s:]+", issue.path):
        return issue.path
    return None


def name_near_misses(issues: list[ConfigIssue], stack_file: Path, shown: str, project: str) -> list[ConfigIssue]:
    """``issues`` with each missing key (``ConfigMissingError``, or a key ``Pulumi.yaml`` declares) told which key of
    the same namespace in ``stack_file`` (shown as ``shown``, relative to the project directory) is within a small
    edit distance of it (1 for keys up to 5 characters, else 2): ``; <shown>:<line>:<column> sets
    platform-eks:clusterNmae, a near spelling: if that is this value, rename the key to platform-eks:clusterName``
    (for ``ConfigMissingError``, whose spelling in the program may be the wrong one: make the names agree, renaming
    the key or correcting the program). An issue without a
    place gets that key's place, or, with no such key, the place of the file's ``config:``. Unchanged when the file
    cannot be read."""
    try:
        keys, config_at = stack_keys(stack_file, project)
    except OSError:
        return issues
    out = []
    for issue in issues:
        missing = _missing(issue)
        if missing is None or missing in keys:
            out.append(issue)
            continue
        namespace, _, name = missing.partition(":")
        limit = 1 if len(name) <= 5 else 2
        close = sorted((distance(name, key.partition(":")[2], limit), key) for key in keys
                       if key.partition(":")[0] == namespace)
        close = [(d, key) for d, key in close if d <= limit]
        if close:
            key = close[0][1]
            line, column = keys[key]
            said = f"; {shown}:{line}:{column} sets {key}, a near spelling: "
            if _REQUIRED.search(issue.message):  # the program's spelling may be the wrong one
                said += (f"if that is the value the program means, make the names agree (rename the key to {missing}, "
                         "or correct the name the program asks for)")
            else:
                said += f"if that is this value, rename the key to {missing}"
            where = issue.location or Location(shown, line, column)
            out.append(replace(issue, message=issue.message + said, location=where))
        elif issue.location is None and config_at is not None:
            out.append(replace(issue, location=Location(shown, *config_at)))
        else:
            out.append(issue)
    return out


def stack_file_of(project_dir: Path, doc: dict[str, Any], stack: str) -> tuple[Path, str]:
    """``(path, shown)`` of ``Pulumi.<stack>.yaml`` in the ``stackConfigDir`` of ``Pulumi.yaml`` (``doc``), ``shown``
    relative to ``project_dir`` (absolute when outside it)."""
    path = project_dir / str(doc.get("stackConfigDir") or ".") / f"Pulumi.{stack}.yaml"
    try:
        return path, path.resolve().relative_to(project_dir.resolve()).as_posix()
    except ValueError:
        return path, path.resolve().as_posix()
