"""``gpupool completion SHELL``: the shell completion script, generated from ``gpupool``'s own parser
by shtab (https://github.com/iterative/shtab), so it never lags behind the options.

Shells: ``bash``, ``zsh``, ``tcsh`` (shtab's; ``fish`` and ``powershell`` are left out until shtab's
support for them leaves its beta). Sub-commands, options and their choices complete; so do paths
where an option takes one, and ``--stack`` completes the stack names of ``stacks/Pulumi.<name>.yaml``
and ``./Pulumi.<name>.yaml`` under the current directory (a project whose ``stackConfigDir`` is
elsewhere gets no names, only the option).

    source <(gpupool completion bash)                     # this shell
    gpupool completion bash > ~/.local/share/bash-completion/completions/gpupool
    gpupool completion zsh > "${fpath[1]}/_gpupool"       # then: autoload -U compinit && compinit
"""

from __future__ import annotations

import argparse

__all__ = ["SHELLS", "completion_script"]

#: The shells ``gpupool completion`` writes for.
SHELLS = ("bash", "zsh", "tcsh")

#: The stack names under the current directory, one per line (``dev`` for ``stacks/Pulumi.dev.yaml``).
_LIST_STACKS = r"ls stacks . 2>/dev/null | sed -n 's/^Pulumi\.\(.*\)\.yaml$/\1/p'"


def _mark(parser: argparse.ArgumentParser) -> None:
    """Set shtab's ``complete`` on every action of ``parser`` and its sub-commands that takes a path (its type is a
    :class:`~gpu_node_pool.cli.contract.PathArgument`, whose ``kind`` says file or directory) or a stack."""
    import shtab

    from .contract import PathArgument

    for action in parser._actions:  # argparse keeps no public list of a parser's actions
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _mark(sub)
        elif action.dest == "stack" and action.option_strings:
            action.complete = shtab.cmd(_LIST_STACKS)  # type: ignore[attr-defined]
        elif isinstance(action.type, PathArgument):
            action.complete = shtab.DIRECTORY if action.type.kind == "directory" else shtab.FILE  # type: ignore[attr-defined]


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser`` (``gpupool``'s) for ``shell``, one of :data:`SHELLS`.

    Raises:
        ValueError: ``shell`` is not one of :data:`SHELLS` (argparse's ``choices`` refuses it first).
    """
    import shtab

    if shell not in SHELLS:
        raise ValueError(f"completion for {shell!r}: choose one of {', '.join(SHELLS)}")
    _mark(parser)
    return shtab.complete(parser, shell=shell)
