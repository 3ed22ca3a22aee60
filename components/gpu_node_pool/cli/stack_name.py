"""``--stack``: Pulumi's rule of a stack name, one argparse type for every command that reads a stack
(``plan``, ``render``, ``validate``, ``check``, ``audit``), and the rule that a qualified name's project is the
project's (:func:`project_refusal`)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..text.terminal import shown

__all__ = ["PROJECT_RULE", "STACK_FILE", "STACK_NAME", "STACK_RULE", "StackName", "project_refusal", "stack_name"]

#: Pulumi's rule of a stack name: 1 to 100 letters, digits, '-', '_' and '.' (pulumi/pulumi@v3.259.0
#: sdk/go/common/tokens/stack_name.go ``ParseStackName``; the org and project of a qualified name
#: ``<org>/[<project>/]<stack>`` are of the same characters, sdk/go/common/tokens/project.go ``ValidateProjectName``).
STACK_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
#: A stack file's name, ``Pulumi.<stack>.yaml`` (or ``.yml``), whose ``<stack>`` is the name to give instead.
STACK_FILE = re.compile(r"Pulumi\.(.+)\.ya?ml")
#: The rule as a refusal states it, with its source.
STACK_RULE = ("a Pulumi stack name is 1 to 100 letters, digits, '-', '_' and '.', optionally qualified as "
              "<org>/<stack> or <org>/<project>/<stack> (pulumi/pulumi@v3.259.0 sdk/go/common/tokens/stack_name.go)")
#: The rule of a qualified name's project, as a refusal states it, with its source: the check runs in both of
#: Pulumi's backends (Pulumi Cloud's ``httpstate``, the self-managed ``diy``) from ``CreateStack`` and from ``apply``,
#: which preview, up, import, refresh and destroy run through.
PROJECT_RULE = ("the <project> of <org>/<project>/<stack> must be the name: of the project's Pulumi.yaml: pulumi "
                "refuses a stack whose project differs from it when it creates the stack and when it previews, "
                "updates, imports, refreshes or destroys it (\"provided project name ... doesn't match Pulumi.yaml\", "
                "pulumi/pulumi@v3.259.0 pkg/backend/backend.go CurrentProjectContradictsWorkspace, called by "
                "CreateStack and apply in pkg/backend/httpstate/backend.go and pkg/backend/diy/backend.go)")


class StackName(str):
    """What :func:`stack_name` returns: the stack's own name (``dev``, the ``<stack>`` of ``Pulumi.<stack>.yaml``), a
    ``str``; :attr:`given` is the value as given (``acme/gpu-node-pools/dev``) and :attr:`project` the project it
    names (``gpu-node-pools``), or None when it names none (``dev``, ``acme/dev``)."""

    given: str
    project: str | None

    def __new__(cls, name: str, given: str, project: str | None) -> StackName:
        out = super().__new__(cls, name)
        out.given, out.project = given, project
        return out

    def __getnewargs__(self) -> tuple[str, str, str | None]:  # copy and pickle keep what was given
        return str(self), self.given, self.project


def project_refusal(stack: str, project: str | None, pulumi_yaml: Path) -> str | None:
    """The refusal of a ``--stack`` whose project (``<org>/<project>/<stack>``) is not ``project``, the ``name:`` of
    the project's ``pulumi_yaml``, or None (no project named, the same one, or ``project`` unknown). Pulumi compares
    the two exactly (:data:`PROJECT_RULE`); the message names the value, both projects, the rule and the fix."""
    named = getattr(stack, "project", None)
    if named is None or project is None or named == project:
        return None
    given = getattr(stack, "given", str(stack))
    org = given.split("/")[0]
    return (f"{shown(given)} names the project {shown(named)}, but this project is {shown(project)} (name: in "
            f"{pulumi_yaml}): {PROJECT_RULE}; give --stack {org}/{project}/{stack} or --stack {stack}")


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


def stack_name(value: str) -> StackName:
    """``--stack``: a Pulumi stack name (:data:`STACK_NAME`), or one qualified by its org and project, whose
    stack file is ``Pulumi.<stack>.yaml`` of its last part, which is returned.

    Returns a :class:`StackName`, which keeps the value given and the project it names: whether that project is
    the project's is :func:`project_refusal`'s to say, once the project is known.

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
    return StackName(parts[-1], value, parts[1] if len(parts) == 3 else None)
