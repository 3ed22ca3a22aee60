"""``gpupool audit``: the run (``run``); its argparse wiring (``register``) is :mod:`.audit_parser`.

    gpupool audit [--kubeconfig FILE] [--context NAME] [--in-cluster] | --cluster-dump PATH
                  [--stack S [--project-dir DIR]] [--json] [--html OUT.html] [--fail-on LEVEL]
                  [--platform eks|gke|self-managed] [--admission-plugins A,B] [--timeout S] [--debug]
    gpupool audit --print-rbac

The contract of every command (:mod:`gpu_node_pool.cli.contract`): exit 0 clean, 1 a finding at or
above ``--fail-on`` (default mandatory), 2 unreadable input (dump, kubeconfig, API refusal, stack,
``--html``), 64 usage, 70 internal error; ``--json`` prints one report whose ``cloudApiCalled`` is
true when the cluster's API was read (live), false for ``--cluster-dump``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..text.terminal import escape_control
from .audit_parser import register
from .contract import InputError, last_line, print_report

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run the audit for parsed ``args``; returns the exit code.

    Raises:
        InputError: the stack, the dump, the kubeconfig or the cluster could not be read, or
            ``--html`` could not be written (``gpupool`` reports it as invalid input, exit 2).
    """
    from ..audit.declared import DeclaredError, read_declared
    from ..audit.rbac import print_rbac
    from ..audit.report import run_audit
    from ..audit.sources import SourceError, load_dump, load_live
    from ..plan.html import render_page
    from ..sdk.files import html_page_head, write_output_text

    if args.print_rbac:
        sys.stdout.write(print_rbac())
        return 0
    plugins = [p.strip() for p in args.admission_plugins.split(",") if p.strip()] if args.admission_plugins else None
    try:
        declared = read_declared(args.stack, args.project_dir) if args.stack else None
    except DeclaredError as err:
        raise InputError("--stack", str(err)) from err
    try:
        if args.cluster_dump:
            snapshot = load_dump(args.cluster_dump)
        else:
            args.cloud_api_called = True  # read by the JSON report, the error reports included
            snapshot = load_live(args.kubeconfig, args.context, in_cluster=args.in_cluster, timeout=args.timeout)
    except SourceError as err:
        source = "--cluster-dump" if args.cluster_dump else "--in-cluster" if args.in_cluster else "--kubeconfig"
        raise InputError(source, str(err)) from err
    report = run_audit(snapshot, platform=args.platform, admission_plugins=plugins, declared=declared, fail_on=args.fail_on)
    if args.html:
        try:
            write_output_text(Path(args.html), render_page(report.matrix()), html_page_head, "an HTML page")
        except OSError as err:
            raise InputError("--html", f"--html {args.html}: cannot write it ({err.strerror or err})") from err
    if args.json:
        print_report(report.to_json(cloud_api_called=bool(getattr(args, "cloud_api_called", False))))
    else:
        text = report.to_text()
        print(last_line(text) if args.quiet else text)  # --quiet: the exit line only
        if args.html and not args.quiet:
            print(escape_control(f"page written: {args.html}"))
    return report.exit_code
