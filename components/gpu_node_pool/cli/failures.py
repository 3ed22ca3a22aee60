"""What a ``gpupool`` command that failed reports, as the contract of :mod:`.contract` says: invalid input
(exit 2, one line per mistake with its path and fix, or the JSON/SARIF report), an internal error (exit 70, one
line asking for a report; the traceback with ``--debug``), and a Ctrl-C or SIGTERM a library wrapped in its own
error (still an interrupt)."""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import Any

from .._version import __version__
from ..config import ConfigError
from ..sdk.files import NotRegularFileError
from ..text.terminal import escape_control, terminal_text
from .contract import ExitCode, InputError, print_report, report
from .sarif import sarif_log

__all__ = ["FILE_ERRORS", "ISSUES_URL", "cloud_api_called", "config_error_lines", "input_errors", "internal_error",
           "interrupt_in", "invalid_input"]

#: Where "please report" points.
ISSUES_URL = "the gpu-node-pools issue tracker"
#: Filesystem mistakes in --project-dir, --stack, --out and --policy-pack-config: invalid input (exit 2).
FILE_ERRORS = (FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError, PermissionError,
               NotRegularFileError)


#: What a command with config errors did not do, the tail of their header line (``3 errors in Pulumi.dev.yaml;
#: the stack is not valid:``); any other command (plan, render, check) registered no resource.
_NOT_DONE = {"validate": "the stack is not valid", "audit": "nothing was audited"}


def config_error_lines(err: ConfigError, command: str) -> list[str]:
    """The lines of ``err`` (:meth:`ConfigError.lines`) as ``command`` reports them: the header says what did not
    happen for that command."""
    outcome = _NOT_DONE.get(command)
    return err.lines(outcome) if outcome else err.lines()


def input_errors() -> tuple[type[BaseException], ...]:
    # Imported only when an exception is being handled: `gpupool --version` stays light.
    from ..plan.render import RenderOutError
    from ..plan.run import ProgramError
    from ..policies import PolicyConfigError
    from ..policies.policy_pack import PolicyPackError

    return (ConfigError, InputError, PolicyConfigError, PolicyPackError, ProgramError, RenderOutError, *FILE_ERRORS)


#: The fix an OS error on an output path gets (``--out``, ``--html``).
_OUTPUT_FIXES: dict[type, str] = {
    IsADirectoryError: " (give a file path, not a directory)",
    FileExistsError: " (give a new or empty directory, or one this command wrote)",
    NotADirectoryError: " (a parent of this path is a file: give a path in a directory)",
    FileNotFoundError: " (its directory does not exist: create it or give a path in an existing directory)",
    PermissionError: " (no permission to write there: give a writable path)",
}


def invalid_input(args: argparse.Namespace, err: BaseException) -> int:
    """Exit 2: a mistake in the stack file, config, --policy-pack-config, --requirement or --out."""
    if isinstance(err, ConfigError):
        issues = [i.to_json() for i in err.issues]
        text = terminal_text(config_error_lines(err, args.command))
    elif getattr(err, "issue", None) is not None:  # plan.run.ProgramError: the user's program failed
        issues = [err.issue.to_json()]  # with its location: the program's line
        text = escape_control(f"error: {err}")
    else:
        path = getattr(err, "argument", None) or getattr(err, "option", None) or getattr(err, "filename", None) or ""
        if type(err).__name__ == "PolicyConfigError":
            path = "--policy-pack-config"
        message = str(err).removeprefix("error: ")
        if isinstance(err, NotRegularFileError) and err.option:  # names its option itself
            message = str(err)
        elif isinstance(err, OSError) and err.filename and err.strerror:
            option = next((f"--{name.replace('_', '-')} " for name in ("out", "html", "file", "project_dir")
                           if str(getattr(args, name, None) or "") == str(err.filename)), "")
            message = f"{option}{err.filename}: {err.strerror}"
            if option.startswith(("--out", "--html")) and "nothing was written" not in err.strerror:
                message += _OUTPUT_FIXES.get(type(err), "")
            if _file_for_directory(args, err):
                message = f"{err.filename} is a file, not a directory; pass a directory for --out"
        # one issue and one line per mistake (a policy pack config may hold several, one per line)
        parts = [part for part in message.split("\n") if part.strip()] or [message]
        head = parts[0] if len(parts) > 1 and parts[0].endswith(":") else None
        items = [part.strip() for part in parts[1:]] if head else parts
        issues = [{"path": str(path), "message": item} for item in items]
        lines = [f"error: {head}", *(f"  {item}" for item in items)] if head else [f"error: {item}" for item in items]
        text = "\n".join(escape_control(line) for line in lines)
    if getattr(args, "format", None) == "sarif":
        print_report(sarif_log(ExitCode.INVALID_INPUT, issues, project_dir=_project_root(args)))
    elif getattr(args, "json", False):  # not every command takes --json (schema)
        fields: dict[str, Any] = {"stack": args.stack} if getattr(args, "stack", None) else {}
        print_report(report(args.command, ExitCode.INVALID_INPUT, cloud_api_called=cloud_api_called(args), **fields,
                            configErrors=issues))
    else:
        print(text, file=sys.stderr)
    return ExitCode.INVALID_INPUT


def _file_for_directory(args: argparse.Namespace, err: OSError) -> bool:
    """True when ``render --out`` met a file where the directory it writes to (or one of its parents) belongs:
    creating the directory then fails with ``FileExistsError`` naming that file."""
    out = getattr(args, "out", None)
    if args.command != "render" or not out or not isinstance(err, FileExistsError):
        return False
    found, target = Path(str(err.filename)), Path(str(out))
    return (found == target or found in target.parents) and found.exists() and not found.is_dir()


def _project_root(args: argparse.Namespace) -> Any:
    """The project directory of ``--project-dir`` (or above the current directory) that a SARIF log's locations are
    relative to; None (the current directory) when there is none, which is then the mistake being reported."""
    from ..plan.run import find_project

    try:
        return find_project(getattr(args, "project_dir", None))
    except (OSError, ValueError):
        return None


def internal_error(args: argparse.Namespace, err: BaseException) -> int:
    """Exit 70: a bug. One line on stderr (and a JSON report with --json); the traceback only with --debug."""
    summary = f"{type(err).__name__}: {err}".splitlines()[0] if str(err) else type(err).__name__
    debug = getattr(args, "debug", False)
    print(escape_control(
        f"gpupool {__version__}: internal error in {args.command}: {summary} -- please report it to {ISSUES_URL} "
        "with the command line" + ("" if debug else " and the output of the same command with --debug")),
        file=sys.stderr,
    )
    if debug:
        traceback.print_exception(err, file=sys.stderr)
    if getattr(args, "format", None) == "sarif":
        print_report(sarif_log(ExitCode.INTERNAL))
    elif getattr(args, "json", False):  # not every command takes --json (schema)
        print_report(report(args.command, ExitCode.INTERNAL, cloud_api_called=cloud_api_called(args),
                            internalError=summary))
    return ExitCode.INTERNAL


def cloud_api_called(args: argparse.Namespace) -> bool:
    """Whether this run called (or tried) a cloud or Kubernetes API: only a live audit sets it."""
    return bool(getattr(args, "cloud_api_called", False))


def interrupt_in(err: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM (a ``KeyboardInterrupt``) that ``err`` was raised from, or None: a library that
    catches it and raises its own error (``RuntimeError: Error calling __set_name__``) must not make a
    stopped command read as a bug."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return err
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return None
