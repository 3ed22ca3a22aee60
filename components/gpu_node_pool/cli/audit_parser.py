"""``gpupool audit``'s argparse wiring: :func:`register` adds the sub-command (``gpupool --help`` lists it)
without importing the audit itself; ``gpupool``'s handler imports :func:`gpu_node_pool.cli.audit.run` when
``audit`` runs. The sub-command's parser is a :class:`~gpu_node_pool.cli.contract.UsageParser` (subparsers
take their parent's class), so a usage mistake exits 64, and an option given twice is refused, as under every
command."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from ..k8s.taints import PLATFORMS
from .contract import AUDIT_FAIL_ON, DIRECTORY, FILE_TO_READ, FILE_TO_WRITE, GivenArgument, once, positive_seconds
from .stack_name import stack_name

__all__ = ["register"]

#: ``--cluster-dump`` given twice: one dump is read, and several files go in one directory.
_ONE_DUMP = once("put several dump files in one directory")


#: ``--context`` and ``--admission-plugins``: an empty value would read as "not given" (the kubeconfig's current
#: context, no plugins), so an unset shell variable would turn into another cluster: refused (exit 64).
_CONTEXT = GivenArgument("a context of the kubeconfig, e.g. --context prod", optional=True)
_PLUGINS = GivenArgument("the plugins, e.g. --admission-plugins PodNodeSelector", optional=True)


def register(subparsers: Any, parents: Sequence[argparse.ArgumentParser] = ()) -> argparse.ArgumentParser:
    """Add the ``audit`` sub-command to ``subparsers`` and return its parser.

    ``parents``: the options every command shares (``--json``, ``--debug``). The parser's
    ``check_usage`` default holds the rules argparse cannot state (``--cluster-dump`` with
    ``--kubeconfig``/``--context``, ``--project-dir`` without ``--stack``); ``gpupool`` calls it
    after parsing, and a broken rule is a usage error (exit 64). ``--stack`` is checked as ``plan``'s is
    (:func:`~gpu_node_pool.cli.stack_name.stack_name`: Pulumi's stack-name rule; a refusal exits 64).
    """
    a = subparsers.add_parser("audit", parents=list(parents),
                              help="check a live cluster (read-only) or a kubectl dump against the GPU pool rules")
    src = a.add_mutually_exclusive_group()
    src.add_argument("--cluster-dump", metavar="PATH", type=FILE_TO_READ, action=_ONE_DUMP,
                     help="JSON/YAML of kubectl get nodes,daemonsets,pods,events -A -o json, or a directory of them")
    src.add_argument("--in-cluster", action="store_true", help="use the pod's service account (inside the cluster)")
    a.add_argument("--kubeconfig", metavar="FILE", type=FILE_TO_READ, help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    a.add_argument("--context", metavar="NAME", type=_CONTEXT, help="kubeconfig context (default: current-context)")
    a.add_argument("--stack", type=stack_name,
                   help="also compare with the pools this stack declares (drift and what-if); a Pulumi stack name, as for plan")
    a.add_argument("--project-dir", default=None, type=DIRECTORY, help="directory with Pulumi.yaml (with --stack)")
    a.add_argument("--html", metavar="OUT.html", type=FILE_TO_WRITE, help="write the DaemonSet x pool page (self-contained)")
    a.add_argument("--fail-on", choices=AUDIT_FAIL_ON, default="mandatory",
                   help="exit 1 when a finding is at or above this level (default: mandatory; none: never)")
    a.add_argument("--platform", choices=PLATFORMS, help="control plane, for admission-added tolerations (default: detected)")
    a.add_argument("--admission-plugins", metavar="A,B", type=_PLUGINS, help="the API server's enabled admission plugins, if known")
    a.add_argument("--timeout", type=positive_seconds, default=30.0, metavar="S",
                   help="seconds above 0, at most 86400, for each API request as a whole, body included (live only; default 30)")
    a.add_argument("--print-rbac", action="store_true", help="print the minimal read-only ClusterRole and exit")

    def check_usage(args: argparse.Namespace) -> None:
        if args.cluster_dump and (args.kubeconfig or args.context is not None):
            a.error("--cluster-dump reads a file; drop --kubeconfig/--context")
        if args.project_dir and not args.stack:
            a.error("--project-dir needs --stack")

    a.set_defaults(check_usage=check_usage)
    return a
