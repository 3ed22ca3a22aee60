"""``gpupool``: the command line of gpu-node-pools.

    gpupool plan --stack dev [--json] [--fail-on LEVEL] [--project-dir DIR] [--policy-pack-config FILE] [--html OUT]
    gpupool render --stack prod --out DIR [--json] [--fail-on LEVEL] [--project-dir DIR] [--policy-pack-config FILE]
    gpupool validate --stack dev [--json] [--project-dir DIR]
    gpupool check --project-dir DIR --stack S [--json] [--fail-on LEVEL] [--policy-pack-config FILE] [--html OUT]
                  [--python PATH] [--program-timeout S] [--strict] [--helm PATH] [--fetch-charts] [--render-timeout S]
    gpupool policy-pack --out DIR [--requirement SPEC] [--layout per-rule|per-level] [--json]
    gpupool schema [--out FILE]
    gpupool completion bash|zsh|tcsh
    gpupool --version
    gpupool audit --cluster-dump FILE | [--kubeconfig FILE] [--context NAME] [--stack S] [--html OUT]

Every command keeps the contract of :mod:`gpu_node_pool.cli.contract`: exit 0 clean, 1 findings at
or above ``--fail-on`` (default mandatory), 2 invalid input, 64 usage, 70 internal error, 141 stdout
closed by its reader; the report on stdout, human-readable errors on stderr; ``--json`` prints one
report with ``schemaVersion: 1`` (schema: ``cli/report.schema.json``). No command but a live
``gpupool audit`` (read-only) calls a cloud or Kubernetes API.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .. import plan as plan_mod
from .._version import __version__
from ..config import ConfigError
from ..config.errors import issues_json
from ..text.terminal import escape_control, terminal_text
from .audit_parser import register as register_audit
from .contract import (
    DIRECTORY,
    EXECUTABLE,
    FAIL_ON_LEVELS,
    FILE_TO_READ,
    FILE_TO_WRITE,
    WRITE_FAILED,
    ExitCode,
    UsageParser,
    cannot_write,
    closed_stdout,
    last_line,
    positive_seconds,
    print_report,
    report,
    stdout_closed,
)
from .expand_options import expand_arguments, expand_options
from .failures import config_error_lines, input_errors, internal_error, interrupt_in, invalid_input
from .sarif import sarif_log
from .stack_name import project_refusal, stack_name


def _project_note(args: argparse.Namespace) -> str | None:
    """The line saying which ``Pulumi.yaml`` was used when it is not in the given directory.

    Like ``pulumi`` (its workspace looks for the project "upwards" from the working directory,
    ``DetectProjectPathFrom`` in pulumi/pulumi ``sdk/go/common/workspace/paths.go``), gpupool uses
    the nearest ``Pulumi.yaml`` at or above ``--project-dir`` (default: the current directory).
    """
    import os
    from pathlib import Path

    given = Path(args.project_dir or os.getcwd()).resolve()
    try:
        found = plan_mod.find_project(args.project_dir)
    except FileNotFoundError:
        return None
    if found == given:
        return None
    return f"project: {found / 'Pulumi.yaml'} (there is no Pulumi.yaml in {given}; as pulumi does, the nearest one above it is used)"


def _print_text(args: argparse.Namespace, text: str | None, error: bool = False) -> None:
    """Print a command's human-readable report, after the project note: on stdout, or on stderr
    when it is an error (``error``: the input was refused), as every command does. ``text`` is a
    report already joined by :func:`~gpu_node_pool.text.terminal.terminal_text` (escaped line by line).
    With ``--quiet`` a report that is not an error is cut to its last line (the exit line) and the
    note is left out."""
    stream = sys.stderr if error else sys.stdout
    if getattr(args, "quiet", False) and not error:
        if text is not None:
            print(last_line(text), file=stream)
        return
    note = _project_note(args)
    if note:
        print(escape_control(note), file=stream)
    if text is not None:
        print(text, file=stream)


def _stack_parent(required: bool) -> argparse.ArgumentParser:
    stack = UsageParser(add_help=False)
    stack.add_argument(
        "--stack", required=required, type=stack_name, help="stack name: reads <stackConfigDir>/Pulumi.<stack>.yaml"
    )
    stack.add_argument(
        "--project-dir", default=None, type=DIRECTORY,
        help="where to look for Pulumi.yaml: this directory or the nearest one above it, as pulumi does "
        "(default: the current directory)",
    )
    return stack


def _one_of_stack_or_file(args: argparse.Namespace) -> None:
    """``gpupool validate``: exactly one of ``--stack`` and ``--file`` (a usage error, exit 64, otherwise)."""
    if (args.stack is None) == (args.files is None):
        print("gpupool validate: error: give --stack NAME or --file PATH... (one of them)", file=sys.stderr)
        raise SystemExit(ExitCode.USAGE)


def _output_format(args: argparse.Namespace) -> str:
    """``text``, ``json`` or ``sarif``: ``--format``, else ``json`` for ``--json``; sets ``args.json``."""
    chosen = getattr(args, "format", None) or ("json" if args.json else "text")
    args.json = chosen == "json"
    return chosen


def _parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="gpupool", description="Offline plan and checks for gpu-node-pools stacks.")
    parser.add_argument("--version", action="version", version=f"gpupool {__version__}")
    common = UsageParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON report (schemaVersion 1) for machines")
    common.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    common.add_argument("--quiet", "-q", action="store_true",
                        help="text output: print only the last line (the exit line); errors still in full on stderr")
    formats = UsageParser(add_help=False)
    formats.add_argument("--format", choices=("text", "json", "sarif"), default=None,
                         help="text (default), json (as --json) or sarif (SARIF 2.1.0, for code-scanning tools)")
    stack, optional_stack = _stack_parent(required=True), _stack_parent(required=False)
    judged = UsageParser(add_help=False)
    judged.add_argument(
        "--fail-on", choices=FAIL_ON_LEVELS, default="mandatory",
        help="exit 1 when a finding is at or above this level (default: mandatory; none: never)",
    )
    judged.add_argument(
        "--policy-pack-config",
        default=None,
        metavar="FILE",
        type=FILE_TO_READ,
        help="policy pack config JSON, as for pulumi preview --policy-pack-config "
        '(e.g. {"all": "mandatory", "gpu-toleration-allowlist": {"allowedNamespaces": ["ml"]}})',
    )
    expand_arguments(judged)  # --helm, --fetch-charts, --render-timeout, --strict
    sub = parser.add_subparsers(dest="command", required=True)
    pl = sub.add_parser(
        "plan", parents=[stack, judged, common, formats],
        help="run the program under Pulumi mocks and report pools, taints, the device plugin and policy verdicts",
    )
    pl.add_argument("--html", default=None, metavar="OUT", type=FILE_TO_WRITE,
                    help="also write the DaemonSet x GPU pool page (one self-contained HTML file) to OUT")
    r = sub.add_parser(
        "render", parents=[stack, judged, common],
        help="write the Kubernetes objects the stack declares (and the chart reference) as YAML files",
    )
    r.add_argument(
        "--out", required=True, type=DIRECTORY,
        help="output directory: new, empty or an earlier render (created; a later render removes only the files "
        "an earlier render of the same stack listed in DIR/.gpupool-render.json and no longer writes)",
    )
    validate = sub.add_parser("validate", parents=[optional_stack, common, formats],
                              help="validate the stack config only (--stack NAME, or --file PATH...)")
    validate.set_defaults(check_usage=_one_of_stack_or_file)
    validate.add_argument(
        "--file", nargs="+", default=None, metavar="PATH", dest="files", type=FILE_TO_READ,
        help="validate these stack files (Pulumi.<stack>.yaml, each its own stack) instead of --stack; "
        "the pre-commit hook's entry",
    )
    ck = sub.add_parser(
        "check", parents=[stack, judged, common, formats],
        help="run ANY Pulumi Python program under mocks with its own stack config, open its charts and YAML "
        "as plan does; find its GPU pools and report coverage and policy verdicts",
    )
    ck.add_argument("--python", default=None, metavar="PATH", type=EXECUTABLE,
                    help="the Python that runs the program (default: Pulumi.yaml's runtime.options.virtualenv, "
                    "else gpupool's own); gpu-node-pool must be installed there")
    ck.add_argument("--html", default=None, metavar="OUT", type=FILE_TO_WRITE,
                    help="also write the DaemonSet x GPU pool page (one self-contained HTML file) to OUT")
    ck.add_argument("--program-timeout", type=positive_seconds, default=300.0, metavar="S",
                    help="seconds the program may run (in its child process) before it is stopped (default 300)")
    sc = sub.add_parser(
        "schema", help="print the JSON Schema of a stack file (for editors: # yaml-language-server: $schema=...)"
    )
    sc.add_argument("--out", default=None, metavar="FILE", type=FILE_TO_WRITE, help="write it to FILE instead of printing it")
    sc.add_argument("--quiet", "-q", action="store_true", help="with --out, print nothing")
    p = sub.add_parser(
        "policy-pack", parents=[common], help="write the CrossGuard policy pack as a directory to run or publish"
    )
    p.add_argument("--out", required=True, type=DIRECTORY, help="pack directory to write (created)")
    p.add_argument(
        "--requirement", default=None, metavar="SPEC",
        help=f"requirements.txt line installing this package (default: gpu-node-pool=={__version__}); "
        "it must resolve where the pack is installed, e.g. 'gpu-node-pool @ git+https://<host>/gpu-node-pools@v"
        f"{__version__}'",
    )
    p.add_argument(
        "--layout", choices=("per-rule", "per-level"), default="per-rule",
        help="per-rule (default): one Pulumi policy per rule; per-level: one stack policy per enforcement level "
        "in use, the rules still configured by id, several times faster in a preview (README, Policy pack)",
    )
    register_audit(sub, parents=[common])
    from .completion import SHELLS

    comp = sub.add_parser("completion", help="print the shell completion script (source <(gpupool completion bash))")
    comp.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    return parser


# --- commands -----------------------------------------------------------------------------


def _policy_config(args: argparse.Namespace) -> Any:
    if not args.policy_pack_config:
        return None
    from ..policies import load_policy_pack_config, resolve_config

    config = load_policy_pack_config(args.policy_pack_config)
    resolve_config(config)  # a config mistake stops before the program runs
    return config


def _write_html(args: argparse.Namespace, result: Any) -> None:
    """``--html OUT`` of plan and check: the audit's DaemonSet x GPU pool page, from the result."""
    if args.html and not result.config_issues:
        from ..plan.page import write_page

        page = write_page(result, args.html)
        if not args.quiet:  # --quiet: the exit line only
            # stdout stays one JSON or SARIF document with --json / --format json|sarif
            print(escape_control(f"wrote   {page} (DaemonSet x GPU pool page)"),
                  file=sys.stdout if _output_format(args) == "text" else sys.stderr)


def _plan(args: argparse.Namespace) -> int:
    from ..sdk.process import pause_collector

    pause_collector()  # everything the plan allocates lives until its report is written
    result = plan_mod.plan_stack(args.stack, args.project_dir, policy_config=_policy_config(args),
                                 expand=expand_options(args))
    code = result.exit_code_at(args.fail_on)
    _write_html(args, result)
    if _output_format(args) == "sarif":
        doc = plan_mod.to_json(result, args.fail_on)
        print_report(sarif_log(code, doc["configErrors"], doc["violations"], plan_mod.find_project(args.project_dir)))
    elif args.json:
        print_report(plan_mod.to_json(result, args.fail_on))
    else:
        _print_warnings(result.warnings)
        _print_text(args, plan_mod.render_text(result, args.fail_on, warnings=False), error=bool(result.config_issues))
    return code


def _print_warnings(warnings: Any) -> None:
    """Config warnings, in text mode: on stderr (as errors are), with their stack-file place; also under ``--quiet``."""
    from ..plan.report import warning_lines

    lines = warning_lines(warnings)
    if lines:
        print(terminal_text(lines), file=sys.stderr)


def _render(args: argparse.Namespace) -> int:
    from ..plan import render as render_files

    render_files.check_out_dir(args.out)  # "", /, home, ~nobody, links to the manifest: refused before the plan runs
    out = render_files.out_path(args.out)  # ~ expanded: the directory checked is the one written
    result = plan_mod.plan_stack(args.stack, args.project_dir, policy_config=_policy_config(args),
                                 expand=expand_options(args))
    code = result.exit_code_at(args.fail_on)
    written = None
    if code == ExitCode.OK:
        files = (
            render_files.kubernetes_files(result.resources, kube_version=result.chart_kube_version)
            + render_files.bootstrap_files(result.outputs)
            + render_files.launch_template_files(result.resources)
        )
        written = render_files.write_files(files, args.out, args.stack)
    if args.json:  # cut of the program's secrets as plan --json is (its outputs: a secret one is [secret])
        from ..plan.masking import masked_document

        print_report(masked_document(report(
            "render", code, stack=args.stack, failOn=args.fail_on,
            configErrors=issues_json(result.config_issues),
            violations=result.violations, outDir=str(out),
            written=[str(p) for p in written.written] if written else [],
            removed=[str(p) for p in written.removed] if written else [],
            placeholders=list(written.placeholders) if written else [],
            outputs=result.outputs,
        ), result.resources))
        return code
    if written is None:  # the failed plan says why, on stderr: stdout lists written files only
        if args.quiet and not result.config_issues:  # --quiet: findings are no input error; their exit line only
            from ..plan.report import exit_line

            _print_warnings(result.warnings)
            print(escape_control(f"{exit_line(result, args.fail_on)}; nothing was written to {out}"), file=sys.stderr)
            return code
        _print_text(args, plan_mod.render_text(result, args.fail_on, command="render") + f"\nnothing was written to {out}",
                    error=True)
        return code
    _print_warnings(result.warnings)
    if not args.quiet:  # --quiet: only the summary line below
        _print_text(args, terminal_text([*(f"wrote   {p}" for p in written.written),
                                         *(f"removed {p}" for p in written.removed)]) or None)
    if written.placeholders:
        print(terminal_text(["warning: values unknown before apply, or secret, were written as placeholders:",
                             *(f"  {p}" for p in written.placeholders)]), file=sys.stderr)
    print(escape_control(f"{len(written.written)} file(s) for stack {args.stack!r} in {out} "
                         "(offline: no cloud API was called)"))
    return code


def _validate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..config import load_stack_config
    from ..config.warnings import stack_warnings
    from ..plan.stack_file import read_stack, read_stack_path, unread_by_pulumi

    fmt = _output_format(args)
    if args.files is None:
        project = plan_mod.find_project(args.project_dir)
        targets = [(args.stack, lambda: read_stack(project, args.stack))]
    else:  # each file its own stack, in the project it belongs to (the nearest Pulumi.yaml above it)
        from ..sdk.files import check_input

        for f in args.files:
            try:  # a FIFO, a directory or a device is refused at once, naming what it is
                check_input(f, "--file", "give the path of a Pulumi.<stack>.yaml")
            except FileNotFoundError:
                broken = " (a symbolic link to nothing)" if os.path.lexists(f) else ""
                raise FileNotFoundError(f"--file {f}: no such stack file{broken}; give the path of a "
                                        "Pulumi.<stack>.yaml") from None
        targets = [(_stack_of(Path(f)), lambda f=f: read_stack_path(plan_mod.find_project(Path(f).parent), Path(f)))
                   for f in args.files]
    issues: list[Any] = []
    warnings: list[Any] = []
    pools: list[dict[str, str]] = []
    lines: list[str] = []
    for name, read in targets:
        found = None
        try:
            found = read()
            stack_config = load_stack_config(found.config, found.path.name, set(found.secrets).__contains__)
        except ConfigError as err:
            located = found.locate(err.issues) if found is not None else err.issues
            if args.files is None and fmt == "text":
                raise ConfigError(located, err.source) from None
            issues += located
            lines.append(f"stack {name!r}: {len(located)} error{'' if len(located) == 1 else 's'}, on stderr")
            if fmt == "text":
                print(terminal_text(config_error_lines(ConfigError(located, err.source), "validate")), file=sys.stderr)
            continue
        pools += [{"name": p.name, "backend": p.backend} for p in stack_config.pools]
        found_warnings = found.locate(stack_warnings(stack_config))  # the same warnings gpupool plan prints
        if args.files is not None:  # a file given by path may be one no pulumi command reads
            unread = unread_by_pulumi(found, plan_mod.find_project(found.path.parent))
            found_warnings += [unread] if unread is not None else []
        warnings += found_warnings
        lines.append(f"stack {name!r}: config is valid ({len(stack_config.pools)} pool(s))"
                     + (f"; {len(found_warnings)} warning(s), on stderr, nothing refused" if found_warnings else ""))
        if fmt == "text" and found_warnings:
            print(terminal_text([f"stack {name!r}: {len(found_warnings)} warning(s), nothing refused:",
                                 *(f"  warning: {w}" for w in found_warnings)]), file=sys.stderr)
    code = ExitCode.INVALID_INPUT if issues else ExitCode.OK
    if fmt == "sarif":
        print_report(sarif_log(code, issues_json(issues), (), plan_mod.find_project(args.project_dir)))
    elif args.json:
        fields: dict[str, Any] = {"files": list(args.files)} if args.files is not None else {}
        print_report(report("validate", code, stack=", ".join(name for name, _ in targets),
                            configErrors=issues_json(issues), pools=pools,
                            warnings=[w.to_json() for w in warnings], **fields))
    elif args.quiet:  # one verdict line per stack, valid or not
        print(terminal_text(lines))
    else:
        _print_text(args, terminal_text(lines) if lines else None, error=False)
    return code


def _stack_of(path: Any) -> str:
    """``dev`` for ``stacks/Pulumi.dev.yaml``; the file name for any other name."""
    name = path.name
    return name[len("Pulumi."):-len(".yaml")] if name.startswith("Pulumi.") and name.endswith(".yaml") else name


def _policy_pack(args: argparse.Namespace) -> int:
    from ..policies.policy_pack import write_pack

    pack = write_pack(args.out, args.requirement, args.layout)
    if args.json:
        print_report(report(
            "policy-pack", ExitCode.OK, outDir=str(pack.out_dir), files=[str(f) for f in pack.files],
            requirement=pack.requirement,
        ))
    else:
        if not args.quiet:
            for f in pack.files:
                print(f"wrote   {f}")
        print(f"policy pack in {pack.out_dir}; requirements.txt installs {pack.requirement!r}")
        if args.quiet:
            return ExitCode.OK
        print(f"  install: cd {pack.out_dir} && pulumi install  (creates its venv/ from requirements.txt; no provider SDK)")
        print(f"  run:     pulumi preview --policy-pack {pack.out_dir}")
        print(f"  publish: cd {pack.out_dir} && pulumi policy publish <org>  (the requirement must resolve there)")
    return ExitCode.OK


def _check(args: argparse.Namespace) -> int:
    from ..plan import check as check_mod

    result = check_mod.check_project(args.stack, args.project_dir, policy_config=_policy_config(args),
                                     expand=expand_options(args), python=args.python,
                                     program_timeout=args.program_timeout)
    code = result.exit_code_at(args.fail_on)
    _write_html(args, result)
    if _output_format(args) == "sarif":
        doc = check_mod.to_json(result)
        print_report(sarif_log(code, doc["configErrors"], doc["violations"], plan_mod.find_project(args.project_dir)))
    elif args.json:
        print_report(report("check", code, failOn=args.fail_on, **check_mod.to_json(result)))
    else:
        _print_warnings(result.warnings)
        _print_text(args, check_mod.render_text(result, args.fail_on), error=bool(result.config_issues))
    return code


def _schema(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from ..config.json_schema import stack_file_schema

    text = json.dumps(stack_file_schema(), indent=2) + "\n"
    if args.out:
        from ..sdk.files import json_schema_head, write_output_text

        write_output_text(Path(args.out), text, json_schema_head, "a JSON Schema")
        if not args.quiet:
            print(f"wrote   {args.out}  (first line of a stack file: # yaml-language-server: $schema={args.out})")
    else:
        sys.stdout.write(text)
    return ExitCode.OK


def _completion(args: argparse.Namespace) -> int:
    from .completion import completion_script

    sys.stdout.write(completion_script(_parser(), args.shell))
    return ExitCode.OK


def _audit(args: argparse.Namespace) -> int:
    from .audit import run  # the audit and its analysis load only for `gpupool audit`

    return run(args)


_COMMANDS = {"schema": _schema, "check": _check, "plan": _plan, "render": _render, "validate": _validate,
             "policy-pack": _policy_pack, "audit": _audit, "completion": _completion}


def _check_stack_project(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A ``--stack <org>/<project>/<stack>`` whose project is not the ``name:`` of the project's ``Pulumi.yaml`` (the
    nearest at or above ``--project-dir``) is a usage error of the command, exit 64
    (:func:`~gpu_node_pool.cli.stack_name.project_refusal`). Without a ``Pulumi.yaml`` that can be read, nothing is
    said here: the command reports that itself."""
    stack = getattr(args, "stack", None)
    if getattr(stack, "project", None) is None:
        return
    from ..plan.stack_file import read_project_file

    try:
        root = plan_mod.find_project(getattr(args, "project_dir", None))
        name = read_project_file(root).get("name")
    except (OSError, ValueError):  # ConfigError is a ValueError
        return
    refusal = project_refusal(stack, name if isinstance(name, str) else None, root / "Pulumi.yaml")
    if refusal is not None:
        (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"argument --stack: {refusal}")


def main(argv: list[str] | None = None) -> int:
    """Run one ``gpupool`` command; returns the exit code of :class:`gpu_node_pool.cli.contract.ExitCode`."""
    try:
        parser = _parser()
        args = parser.parse_args(argv)
        check_usage = getattr(args, "check_usage", None)  # rules argparse cannot state (gpupool audit's)
        if check_usage is not None:
            check_usage(args)
        _check_stack_project(parser, args)
    except SystemExit as done:  # --help, --version (0) or a usage error (64, UsageParser.error)
        return int(done.code or 0)
    except BrokenPipeError:  # `gpupool plan --help | head -1`
        return closed_stdout()
    try:
        handler = _COMMANDS[args.command]
        return int(handler(args))
    except BrokenPipeError as err:  # stdout's reader went away: quiet, not an internal error
        if stdout_closed():
            return closed_stdout()
        return internal_error(args, err)
    except Exception as err:  # noqa: BLE001 - the contract: invalid input is 2, anything else a reported bug (70)
        interrupted = interrupt_in(err)
        if interrupted is not None:  # Ctrl-C or SIGTERM that a library wrapped (pydantic building a model)
            raise interrupted from None
        if isinstance(err, OSError) and err.errno in WRITE_FAILED:
            return cannot_write(err)
        report_error = invalid_input if isinstance(err, input_errors()) else internal_error
        try:
            return report_error(args, err)
        except BrokenPipeError:  # the error report's reader went away too
            if stdout_closed():
                return closed_stdout()
            raise
        except OSError as unwritten:  # the error report (--json: on stdout) could not be written either
            if unwritten.errno in WRITE_FAILED:
                return cannot_write(unwritten)
            raise


if __name__ == "__main__":  # pragma: no cover
    from .entry import main_exit

    main_exit()
