"""``gpupool audit``'s argparse wiring: :func:`register` adds the sub-command (``gpupool --help`` lists it)
without importing the audit itself; ``gpupool``'s handler imports :func:`gpu_node_pool.cli.audit.run` when
``audit`` runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..audit.findings import FAIL_ON
from ..k8s.taints import PLATFORMS

__all__ = ["register", "EXIT_USAGE"]

EXIT_USAGE = 64


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``audit`` sub-command to ``subparsers`` and return its parser."""
    a = subparsers.add_parser("audit", help="check a live cluster (read-only) or a kubectl dump against the GPU pool rules")
    src = a.add_mutually_exclusive_group()
    src.add_argument("--cluster-dump", metavar="PATH",
                     help="JSON/YAML of kubectl get nodes,daemonsets,pods,events -A -o json, or a directory of them")
    src.add_argument("--in-cluster", action="store_true", help="use the pod's service account (inside the cluster)")
    a.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    a.add_argument("--context", metavar="NAME", help="kubeconfig context (default: current-context)")
    a.add_argument("--stack", help="also compare with the pools this stack declares (drift and what-if)")
    a.add_argument("--project-dir", default=None, help="directory with Pulumi.yaml (with --stack)")
    a.add_argument("--json", action="store_true", help="print the JSON report (schemaVersion 1)")
    a.add_argument("--html", metavar="OUT.html", help="write the DaemonSet x pool page (self-contained)")
    a.add_argument("--fail-on", choices=FAIL_ON, default="mandatory", help="exit 1 at or above this level (default mandatory)")
    a.add_argument("--platform", choices=PLATFORMS, help="control plane, for admission-added tolerations (default: detected)")
    a.add_argument("--admission-plugins", metavar="A,B", help="the API server's enabled admission plugins, if known")
    a.add_argument("--timeout", type=float, default=30.0, help="seconds per API call (live only; default 30)")
    a.add_argument("--print-rbac", action="store_true", help="print the minimal read-only ClusterRole and exit")

    def usage_error(message: str) -> None:  # the platform contract: usage mistakes exit 64, not argparse's 2
        a.print_usage(sys.stderr)
        print(f"gpupool audit: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)

    a.error = usage_error  # type: ignore[method-assign]
    return a
