"""Whether a chart that ``helm template`` rendered to no object offline holds nothing to judge.

An empty render is the chart's answer only when Helm gave it and the chart does not read the cluster:

* the binary must be Helm: a ``--helm`` that prints nothing and exits 0 (``/bin/true``) also gives no object;
  ``<helm> version --short`` answering ``v<major>.<minor>...`` (Helm's own format, ``helm version --help``) tells.
* templates that call ``lookup`` (they read live objects; offline it returns an empty map: Helm docs, "Template
  Functions and Pipelines", Using the lookup function: "helm template ... lookup will return an empty response")
  or ``.Capabilities.APIVersions`` (offline only the built-in API versions: Helm docs, "Built-in Objects",
  Capabilities) may render objects in the cluster that they do not render here.
"""

from __future__ import annotations

import functools
import re
import subprocess
import tarfile
from pathlib import Path

from ..sdk.files import open_input

__all__ = ["empty_render_problem"]

#: What a template calls that makes its offline render differ from the cluster's.
_CLUSTER_READS = {"lookup": re.compile(r"\blookup\s"), ".Capabilities.APIVersions": re.compile(r"\.Capabilities\.APIVersions\b")}
#: ``helm version --short``: ``v3.19.0+g3d8990f`` / ``v4.0.0+g...``.
_HELM_VERSION = re.compile(r"v\d+\.\d+")
#: Most bytes of a chart's templates read for :data:`_CLUSTER_READS` (a chart is far smaller).
_MAX_TEMPLATE_BYTES = 32 << 20


@functools.lru_cache(maxsize=8)
def _is_helm(binary: str) -> bool:
    try:
        run = subprocess.run([binary, "version", "--short"], capture_output=True, timeout=10, check=False)  # noqa: S603
    except (OSError, subprocess.SubprocessError):
        return False
    return run.returncode == 0 and _HELM_VERSION.match(run.stdout.decode("utf-8", "replace").strip()) is not None


def _templates(ref: str) -> list[str]:
    """The texts of a local chart's templates (a directory or a packaged ``.tgz``); [] when not readable. A template
    file is opened by :func:`gpu_node_pool.sdk.files.open_input` (regular files only, never waited on); what is no
    regular file is skipped."""
    path, texts, read = Path(ref), [], 0
    try:
        if path.is_dir():
            for file in sorted(path.glob("templates/**/*")):
                if read >= _MAX_TEMPLATE_BYTES:
                    break
                try:  # a regular file only: a FIFO among the templates is never waited on
                    with open_input(file) as fh:
                        data = fh.read(_MAX_TEMPLATE_BYTES - read)
                except OSError:  # a directory, a FIFO, a socket, unreadable: no template text
                    continue
                read += len(data)
                texts.append(data.decode("utf-8", "replace"))
        elif path.is_file():
            with tarfile.open(path, "r:gz") as archive:
                for member in archive.getmembers():
                    if member.isfile() and "/templates/" in member.name and read < _MAX_TEMPLATE_BYTES:
                        handle = archive.extractfile(member)
                        data = handle.read(_MAX_TEMPLATE_BYTES - read) if handle is not None else b""
                        read += len(data)
                        texts.append(data.decode("utf-8", "replace"))
    except (OSError, tarfile.TarError):
        return []
    return texts


def empty_render_problem(helm: str, chart_ref: str, local: bool) -> tuple[str, str] | None:
    """``(reason, fix)`` when a render of no object does not show the chart holds none, else None.

    ``helm``: the binary that rendered; ``chart_ref``: the chart as helm was given it; ``local``: a local
    directory or ``.tgz`` (a fetched chart's templates are not read: only the binary is checked)."""
    if not _is_helm(helm):
        return (f"{helm} printed no manifest and does not answer `version --short` as Helm does, so nothing shows the "
                "chart renders no object", "check that --helm (or helm on PATH) is Helm: `<helm> version` prints its version")
    if not local:
        return None
    texts = _templates(chart_ref)
    reads = sorted(name for name, pattern in _CLUSTER_READS.items() if any(pattern.search(t) for t in texts))
    if reads:
        return (f"helm template rendered no object offline, but the chart's templates call {', '.join(reads)}, which "
                "read the cluster (offline lookup answers nothing and only built-in API versions exist), so in the "
                "cluster it may render objects", "judge its DaemonSets after apply with `gpupool audit`, or render it "
                "against the cluster (`helm template --validate`, or pass --api-versions)")
    return None
