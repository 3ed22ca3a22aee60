"""``gpupool audit``: the run (``run``); its argparse wiring (``register``) is :mod:`.audit_parser`.

    gpupool audit [--kubeconfig FILE] [--context NAME] [--in-cluster] | --cluster-dump PATH
                  [--stack S [--project-dir DIR]] [--json] [--html OUT.html] [--fail-on LEVEL]
                  [--platform eks|gke|self-managed] [--admission-plugins A,B] [--timeout S]
    gpupool audit --print-rbac

Exit codes: 0 clean, 1 a finding at or above ``--fail-on`` (default mandatory), 2 unreadable
input (dump, kubeconfig, API refusal, stack), 64 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .audit_parser import EXIT_USAGE, register

__all__ = ["register", "run", "EXIT_USAGE"]  # register and EXIT_USAGE: from .parser


def _error(args: argparse.Namespace, message: str) -> int:
    if getattr(args, "json", False):
        json.dump({"schemaVersion": 1, "command": "audit", "exitCode": 2, "error": message}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Run the audit for parsed ``args``; returns the exit code."""
    from ..audit.declared import DeclaredError, read_declared
    from ..audit.rbac import print_rbac
    from ..audit.report import run_audit
    from ..audit.sources import SourceError, load_dump, load_live
    from ..plan.html import render_page

    if args.print_rbac:
        sys.stdout.write(print_rbac())
        return 0
    if args.cluster_dump and (args.kubeconfig or args.context):
        print("gpupool audit: error: --cluster-dump reads a file; drop --kubeconfig/--context", file=sys.stderr)
        return EXIT_USAGE
    if args.project_dir and not args.stack:
        print("gpupool audit: error: --project-dir needs --stack", file=sys.stderr)
        return EXIT_USAGE
    plugins = [p.strip() for p in args.admission_plugins.split(",") if p.strip()] if args.admission_plugins else None
    try:
        declared = read_declared(args.stack, args.project_dir) if args.stack else None
        if args.cluster_dump:
            snapshot = load_dump(args.cluster_dump)
        else:
            snapshot = load_live(args.kubeconfig, args.context, in_cluster=args.in_cluster, timeout=args.timeout)
    except (SourceError, DeclaredError) as err:
        return _error(args, str(err))
    report = run_audit(snapshot, platform=args.platform, admission_plugins=plugins, declared=declared, fail_on=args.fail_on)
    if args.html:
        try:
            Path(args.html).write_text(render_page(report.matrix()), encoding="utf-8")
        except OSError as err:
            return _error(args, f"--html {args.html}: cannot write it ({err.strerror or err})")
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(report.to_text())
        if args.html:
            print(f"page written: {args.html}")
    return report.exit_code
