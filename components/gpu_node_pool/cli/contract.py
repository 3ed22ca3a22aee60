"""The contract every ``gpupool`` command keeps: exit codes, ``--fail-on``, the JSON envelope.

Exit codes (stated once in the README, "Command-line contract"; decided by
:func:`gpu_node_pool.sdk.outcome.exit_code` for every command, ``audit`` included):

====  =========================================================================================
0     clean: nothing at or above ``--fail-on`` was found
1     findings at or above ``--fail-on`` (default ``mandatory``): a policy violation, or a pool
      taint the device plugin does not tolerate (always judged mandatory), or an audit finding
2     invalid input: stack file, stack config, ``--policy-pack-config``, ``--requirement``,
      ``--out``, the audit's dump, kubeconfig or cluster (the message names the file or argument,
      the bad value and the fix)
64    command-line usage (``EX_USAGE`` of BSD sysexits.h; argparse's own exit 2 is overridden so
      that a typo never reads as a config error), an empty path given to any option (:class:`PathArgument`)
70    internal error (``EX_SOFTWARE``): a bug; one line and "please report", the traceback only
      with ``--debug``
141   stdout closed by its reader (``gpupool plan ... | head -1``): the run ends quietly, as a
      process stopped by ``SIGPIPE`` (128 + 13) does
====  =========================================================================================

Streams: the report (text, or with ``--json`` the one JSON object) goes to stdout; a human-readable
error (invalid input, exit 2; internal error, exit 70) goes to stderr, for every command. With
``--json`` an invalid input is a report on stdout (``configErrors``), and an internal error is both
the line on stderr and a report on stdout (``internalError``).

With ``--json`` every command prints one JSON object, the *report*, whose top level carries
``schemaVersion`` (:data:`SCHEMA_VERSION`), ``command``, ``exitCode`` and ``cloudApiCalled``; its
JSON Schema is ``gpu_node_pool/cli/report.schema.json`` (:func:`report_schema`), and the audit's
keys are ``gpu_node_pool/audit/report.schema.json``.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import select
import sys
from collections.abc import Mapping
from importlib import resources
from typing import Any, NoReturn

from ..sdk.outcome import FAIL_ON, SCHEMA_VERSION, ExitCode, envelope
from ..text.terminal import shown

__all__ = [
    "SCHEMA_VERSION",
    "FAIL_ON_LEVELS",
    "AUDIT_FAIL_ON",
    "ExitCode",
    "DIRECTORY",
    "EXECUTABLE",
    "FILE_TO_READ",
    "FILE_TO_WRITE",
    "GivenArgument",
    "InputError",
    "PathArgument",
    "StoreOnce",
    "SubcommandParser",
    "UsageParser",
    "closed_stdout",
    "cannot_write",
    "WRITE_FAILED",
    "last_line",
    "once",
    "positive_seconds",
    "stdout_closed",
    "report",
    "report_schema",
]

#: ``--fail-on`` values of plan, check and render, lowest first (their findings are never ``info``).
FAIL_ON_LEVELS = FAIL_ON[1:]
#: ``--fail-on`` values of the audit, whose findings include ``info``.
AUDIT_FAIL_ON = FAIL_ON


class GivenArgument:
    """The argparse ``type`` refusing an empty value: the one place an empty option value is refused, for every
    path (:class:`PathArgument`) and for the audit's ``--context`` and ``--admission-plugins``.

    An empty value (or blanks only), as an unset ``$VAR`` in a CI job's command line gives, is a usage error
    naming the option, exit 64 (``argument --context: an empty value; give ...``), whatever the command: read as
    "no option given" it would run with the default silently (the kubeconfig's current context, the default
    policy config, the current directory). ``wanted`` says what to give (``a context of the kubeconfig, e.g.
    --context prod``); ``optional``: the option may also be left out, and the refusal says so.
    """

    #: What the value is, in the refusal (``an empty value``).
    what = "value"

    def __init__(self, wanted: str, optional: bool = False) -> None:
        self.wanted = wanted
        self.optional = optional

    def __call__(self, value: str) -> str:
        if not value.strip():
            leave = ", or leave the option out" if self.optional else ""
            raise argparse.ArgumentTypeError(f"an empty {self.what}; give {self.wanted} (an unset or empty shell "
                                             f"variable expands to nothing){leave}")
        return value

    def __repr__(self) -> str:
        return f"GivenArgument({self.wanted!r})"


class PathArgument(GivenArgument):
    """The argparse ``type`` of every option whose value is a path (``--project-dir``, ``--out``,
    ``--policy-pack-config``, ``--helm``, ``--html``, ``--file``, ...): an empty one is refused as by
    :class:`GivenArgument` (``argument --policy-pack-config: an empty path; ...``, exit 64). :attr:`kind`
    (``file`` or ``directory``) is what shell completion offers for the option.
    """

    what = "path"

    def __init__(self, kind: str, wanted: str) -> None:
        super().__init__(wanted)
        self.kind = kind

    def __repr__(self) -> str:
        return f"PathArgument({self.kind!r}, {self.wanted!r})"


#: A file the command reads (``--policy-pack-config``, ``--file``, ``--cluster-dump``, ``--kubeconfig``).
FILE_TO_READ = PathArgument("file", "the path of the file to read")
#: A file the command writes (``--html``, ``schema --out``).
FILE_TO_WRITE = PathArgument("file", "the path of the file to write")
#: A directory (``--project-dir``, ``render --out``, ``policy-pack --out``).
DIRECTORY = PathArgument("directory", "the path of the directory")
#: A program to run (``--helm``, ``check --python``).
EXECUTABLE = PathArgument("file", "the path of the executable")


#: The longest timeout any option takes, in seconds (one day): no real request, program or render needs more,
#: and every wait it bounds can count that far (a lock's wait of 1e10 s overflows the platform's ``time_t``).
MAX_SECONDS = 86_400


def positive_seconds(text: str) -> float:
    """A timeout's value (``check --program-timeout``, ``audit --timeout``, ``--render-timeout``): a number
    of seconds above 0 and at most :data:`MAX_SECONDS` (86,400 s, one day). argparse reports anything else
    (``0``, ``-5``, ``nan``, ``inf``, ``1e20``, ``soon``) as a usage error naming the option, exit 64,
    whatever else the command line says."""
    rule = f"a number of seconds above 0 and at most {MAX_SECONDS} (one day), e.g. 30"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a number of seconds; give {rule}") from None
    if not 0 < value <= MAX_SECONDS:  # nan compares false: refused too
        raise argparse.ArgumentTypeError(f"{shown(text)} must be {rule}")
    return value


class InputError(ValueError):
    """Invalid input named by a command-line argument: exit 2 with ``{"path": argument, "message"}``."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(message)
        self.argument = argument


def report(command: str, exit_code: int, **fields: Any) -> dict[str, Any]:
    """The ``--json`` report: ``{"schemaVersion": 1, "command", "exitCode", "cloudApiCalled", **fields}``
    (:func:`gpu_node_pool.sdk.outcome.envelope`; ``cloud_api_called=True`` only for a live audit)."""
    return envelope(command, exit_code, **fields)


def last_line(text: str) -> str:
    """The last non-empty line of a text report (``--quiet``: the exit line), or ``""``."""
    return next((line for line in reversed(text.splitlines()) if line.strip()), "")


def print_report(doc: Mapping[str, Any], stream: Any = None) -> None:
    """Write ``doc`` as indented JSON plus a newline (values JSON cannot hold become strings)."""
    stream = stream or sys.stdout
    json.dump(doc, stream, indent=2, sort_keys=False, default=str)
    stream.write("\n")


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every ``--json`` report, shipped as package data."""
    text = resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


#: Where :class:`StoreOnce` keeps, during one parse, the values given so far (by ``dest``); removed from the
#: parsed namespace before it is returned.
_GIVEN = "_gpupool_given_once"


class StoreOnce(argparse._StoreAction):  # argparse's own "store", whose class it keeps private
    """``store`` for an option that takes one value, refusing a second one (argparse would keep the last
    silently): ``--format sarif --format text`` is a usage error, exit 64, ``--format is given twice; give it
    once``. A default is not a given value: ``--fail-on`` (default ``mandatory``) given once is accepted.

    The default action of every :class:`UsageParser` (and its argument groups); an option that takes a list
    (``nargs="+"``) or an ``append`` action is left as argparse stores it. :attr:`hint` (see :func:`once`)
    adds what to do instead.
    """

    hint = ""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if self.option_strings and self.nargs in (None, "?"):
            given = getattr(namespace, _GIVEN, None)
            if given is None:
                given = {}
                setattr(namespace, _GIVEN, given)
            if self.dest in given:
                hint = f"; {self.hint}" if self.hint else ""
                parser.error(f"{option_string} is given twice; give it once (got {shown(given[self.dest])}, then "
                             f"{shown(values)}){hint}")
            given[self.dest] = values
        setattr(namespace, self.dest, values)


def once(hint: str) -> type[StoreOnce]:
    """:class:`StoreOnce` whose refusal adds ``hint``, what to do instead (``audit --cluster-dump``: put
    several dump files in one directory); pass it as ``action=``."""
    return type("StoreOnce", (StoreOnce,), {"hint": hint})


class UsageParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors exit 64 (``EX_USAGE``), not argparse's 2.

    Its sub-commands' parsers are :class:`SubcommandParser` (``add_subparsers``' ``parser_class``),
    so every sub-command follows the contract and names itself in its errors. An option that takes one
    value is stored with :class:`StoreOnce` (the default action here, for the parser, its argument groups
    and the parsers built from it as a parent), so a repeated one is a usage error, not the last one silently.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        vars(parsed).pop(_GIVEN, None)
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {message}\n")

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", SubcommandParser)
        return super().add_subparsers(**kwargs)


class SubcommandParser(UsageParser):
    """A sub-command's parser (``gpupool plan``): an option it does not know is its own usage error.

    argparse hands a sub-command's unrecognized arguments back to the top-level parser, which
    reports them under ``usage: gpupool [-h] [--version] {plan,...}``; here the sub-command reports
    them, ``usage: gpupool plan [-h] --stack STACK ...`` then ``gpupool plan: error: unrecognized
    arguments: --bogus`` on stderr, exit 64.
    """

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        chosen = getattr(parsed, "format", None)
        if getattr(parsed, "json", False) and chosen not in (None, "json"):
            self.error(f"--json and --format {chosen} ask for two reports; give one of them")
        return parsed, extras


def stdout_closed() -> bool:
    """Whether stdout's reader has gone, after a ``BrokenPipeError``: stdout is a pipe (or socket)
    whose other end is closed (``poll`` reports ``POLLERR``/``POLLHUP`` on it).

    A ``BrokenPipeError`` from elsewhere (a socket to an API server, a child's pipe) leaves stdout
    writable, so it stays an internal error. Where ``select.poll`` is missing (Windows) a broken
    pipe is taken to be stdout's.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no file descriptor: captured or replaced stdout
        return False
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def closed_stdout() -> int:
    """End a run whose stdout was closed by its reader: quietly, with :attr:`ExitCode.CLOSED_STDOUT`.

    Python's documented recipe (https://docs.python.org/3/library/signal.html#note-on-sigpipe):
    point stdout at ``os.devnull`` so the interpreter's final flush does not raise again. The
    exit code is 141 (128 + SIGPIPE), the status a shell reports for git or kubectl stopped by
    ``SIGPIPE`` when their reader goes away, rather than 0: not all of the report was written,
    and a ``set -o pipefail`` job sees the same status as with those tools. Nothing is printed.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (an embedding)
        pass
    return ExitCode.CLOSED_STDOUT


#: errno values of a write the disk refused: no space, over quota, too large, an I/O error.
WRITE_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def cannot_write(err: OSError) -> int:
    """A report or file the disk refused (``> /dev/full``, a full volume): one line on stderr, exit 2
    (the place the user chose cannot take it); stdout, which may be what failed, gets nothing more."""
    where = f" {err.filename}" if err.filename else " the report (stdout)"
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more goes to the stdout that failed
        print(f"gpupool: cannot write{where}: {os.strerror(err.errno)}; free space or write it elsewhere",
              file=sys.stderr)
    except (OSError, ValueError, AttributeError):
        pass
    return ExitCode.INVALID_INPUT
