"""The ``gpupool plan``/``render`` options that open charts, YAML and add-ons offline.

``--helm PATH``        the helm executable (default: ``helm`` on ``PATH``, else ``venv/bin/helm``)
``--fetch-charts``     download charts from their repository or OCI registry (default: only local
                       paths and Helm's repository cache; the plan then calls no network at all)
``--render-timeout S`` seconds before one ``helm template`` is killed (default 30; > 0)
``--strict``           what cannot be judged is a mandatory finding (default advisory)

Kept apart from :mod:`gpu_node_pool.cli.commands` so that module only gains a hook line; importing this
module imports nothing heavy (``gpupool --version`` stays light).
"""

from __future__ import annotations

import argparse
import errno
from typing import Any

from .contract import EXECUTABLE, positive_seconds

__all__ = ["DEFAULT_RENDER_TIMEOUT", "expand_arguments", "expand_options"]

#: Seconds (default 30 s, configurable with ``--render-timeout``); the same as ``expand.helm.DEFAULT_TIMEOUT``.
DEFAULT_RENDER_TIMEOUT = 30.0


def expand_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--helm``, ``--fetch-charts``, ``--render-timeout`` and ``--strict`` to ``parser``."""
    parser.add_argument("--helm", default=None, metavar="PATH", type=EXECUTABLE,
                        help="helm executable for rendering charts offline (default: helm on PATH, else venv/bin/helm)")
    parser.add_argument("--fetch-charts", action="store_true",
                        help="download charts from their repository/OCI registry (default: local paths and Helm's "
                        "repository cache only)")
    parser.add_argument("--render-timeout", type=positive_seconds, default=DEFAULT_RENDER_TIMEOUT, metavar="SECONDS",
                        help="kill a helm template after this many seconds (default: 30)")
    parser.add_argument("--strict", action="store_true",
                        help="resources that cannot be judged (a chart not rendered, a remote manifest, an unknown "
                        "add-on, a policy that cannot run at preview) are mandatory findings, not advisory")


def expand_options(args: argparse.Namespace) -> Any:
    """The plan's :class:`~gpu_node_pool.plan.expand.ExpandOptions` from parsed arguments.

    Raises:
        FileNotFoundError: ``--helm`` names no executable (the CLI reports it as invalid input, exit 2).
    """
    from ..plan.expand import ExpandOptions, locate_helm

    helm = getattr(args, "helm", None)
    if helm and locate_helm(helm) is None:
        raise FileNotFoundError(errno.ENOENT, "--helm: no helm executable there (give the path to Helm v4, or omit "
                                "--helm to use helm on PATH)", helm)
    return ExpandOptions(helm=helm, fetch=bool(getattr(args, "fetch_charts", False)),
                         timeout=float(getattr(args, "render_timeout", DEFAULT_RENDER_TIMEOUT)),
                         strict=bool(getattr(args, "strict", False)))
