"""``--stack``: Pulumi's rule of a stack name, one argparse type for every command that reads a stack
(``plan``, ``render``, ``validate``, ``check``, ``audit``)."""

from __future__ import annotations

import argparse
import re

from ..text.terminal import shown

__all__ = ["STACK_FILE", "STACK_NAME", "STACK_RULE", "stack_name"]

#: Pulumi's rule of a stack name: 1 to 100 letters, digits, '-', '_' and '.' (pulumi/pulumi
#: sdk/go/common/tokens/stack_name.go ``ParseStackName``; the org and project of a qualified name
#: ``<org>/[<project>/]<stack>`` are of the same characters, sdk/go/common/tokens/project.go ``ValidateProjectName``).
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
#: A stack file's name, ``Pulumi.<stack>.yaml`` (or ``.yml``), whose ``<stack>`` is the name to give instead.
STACK_FILE = re.compile(r"Pulumi\.(.+)\.ya?ml")
#: The rule as a refusal states it, with its source.
STACK_RULE = ("a Pulumi stack name is 1 to 100 letters, digits, '-', '_' and '.', optionally qualified as "
              "<org>/<stack> or <org>/<project>/<stack> (pulumi/pulumi sdk/go/common/tokens/stack_name.go)")


def _file_path_refusal(value: str) -> str | None:
    """The refusal of a ``--stack`` that is a stack file's path (``stacks/Pulumi.dev.yaml``, ``Pulumi.dev.yaml``,
    ``./stacks/Pulumi.dev.yml``: it names the stack to give, ``dev``) or any YAML file's (ending in ``.yaml`` or
    ``.yml``), or None for any other value."""
    base = value.replace("\\", "/").rsplit("/", 1)[-1]
    named = STACK_FILE.fullmatch(base)
    if named and STACK_NAME.fullmatch(named.group(1)):
        name = named.group(1)
        return (f"{shown(value)} is a stack file's path, not a stack name; give the stack's name: --stack {name} "
                f"(it reads <stackConfigDir>/Pulumi.{name}.yaml)")
    if named or value.lower().endswith((".yaml", ".yml")):
        return (f"{shown(value)} is a file's path, not a stack name; give the stack's name, e.g. --stack dev "
                "(it reads <stackConfigDir>/Pulumi.dev.yaml)")
    return None


def stack_name(value: str) -> str:
    """``--stack``: a Pulumi stack name (:data:`STACK_NAME`), or one qualified by its org and project, whose
    stack file is ``Pulumi.<stack>.yaml`` of its last part, which is returned.

    Raises:
        argparse.ArgumentTypeError: (argparse turns it into a usage error, exit 64) an empty name (it would read
            ``Pulumi..yaml``); a stack file's path, or any value ending in ``.yaml``/``.yml`` (the message names the
            stack of ``Pulumi.<stack>.yaml``: ``--stack dev``), with or without a leading ``./``; other characters
            (a path such as ``../etc``), more than three parts, or an org or project of dots only (a path step,
            no name): the message names the value, :data:`STACK_RULE` and the fix.
    """
    if not value.strip():
        raise argparse.ArgumentTypeError(f"{value!r} is empty; name a stack, e.g. --stack dev")
    refusal = _file_path_refusal(value)
    if refusal is not None:
        raise argparse.ArgumentTypeError(refusal)
    parts = value.split("/")
    if len(parts) > 3 or not all(STACK_NAME.fullmatch(p) for p in parts) or any(set(p) == {"."} for p in parts[:-1]):
        odd = next((c for c in value if not (c.isascii() and (c.isalnum() or c in "-_./"))), None)
        why = f" ({shown(odd)} is none of those)" if odd is not None else ""
        raise argparse.ArgumentTypeError(f"{shown(value)} is not a stack name: {STACK_RULE}{why}; give the stack's "
                                         "name, e.g. --stack dev (it reads <stackConfigDir>/Pulumi.dev.yaml)")
    return parts[-1]
