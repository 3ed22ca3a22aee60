"""Whether a chart that ``helm template`` rendered to no object offline holds nothing to judge.

An empty render is the chart's answer only when Helm gave it and the chart does not read the cluster:

* the binary must be Helm: a ``--helm`` that prints nothing and exits 0 (``/bin/true``) also gives no object;
  ``<helm> version --short`` answering ``v<major>.<minor>...`` (Helm's own format, ``helm version --help``) tells.
* templates that call ``lookup`` (they read live objects; offline it returns an empty map: Helm docs, "Template
  Functions and Pipelines", Using the lookup function: "helm template ... lookup will return an empty response")
  or ``.Capabilities.APIVersions`` (offline only the built-in API versions: Helm docs, "Built-in Objects",
  Capabilities) may render objects in the cluster that they do not render here. The templates of the chart's
  subcharts (directories or ``.tgz`` in its ``charts/``) are read too; :func:`chart_reads` gives what they call,
  also to :mod:`.render_failure`, which asks as well for the reads of what a real run may render with otherwise
  (``.Capabilities.KubeVersion``, ``.Capabilities.HelmVersion``, ``.Release.Namespace``).
"""

from __future__ import annotations

import functools
import re
import subprocess
import tarfile
from collections.abc import Sequence
from pathlib import Path

from ..sdk.files import open_input

__all__ = ["chart_reads", "empty_render_problem"]

#: What a template calls that makes its offline render differ from the cluster's.
CLUSTER_READS = ("lookup", ".Capabilities.APIVersions")
#: How each read a render may differ by is written in a template: the cluster's (:data:`CLUSTER_READS`), the
#: Kubernetes version rendered for, the Helm that renders (Helm docs, "Built-in Objects", Capabilities), the namespace.
_READS = {"lookup": re.compile(r"\blookup\s"), **{name: re.compile(re.escape(name) + r"\b") for name in (
    ".Capabilities.APIVersions", ".Capabilities.KubeVersion", ".Capabilities.HelmVersion", ".Release.Namespace")}}
#: ``helm version --short``: ``v3.19.0+g3d8990f`` / ``v4.0.0+g...``.
_HELM_VERSION = re.compile(r"v\d+\.\d+")
#: Most bytes of a chart's templates read for what they call (a chart is far smaller).
_MAX_TEMPLATE_BYTES = 32 << 20


@functools.lru_cache(maxsize=8)
def _is_helm(binary: str) -> bool:
    try:
        run = subprocess.run([binary, "version", "--short"], capture_output=True, timeout=10, check=False)  # noqa: S603
    except (OSError, subprocess.SubprocessError):
        return False
    return run.returncode == 0 and _HELM_VERSION.match(run.stdout.decode("utf-8", "replace").strip()) is not None


def _archive_templates(archive: tarfile.TarFile, texts: list[str], read: int, depth: int = 0) -> int:
    """Append the templates of a packaged chart (and of the packaged subcharts in its ``charts/``, two levels deep)
    to ``texts``; returns the bytes read so far."""
    for member in archive.getmembers():
        if not member.isfile() or read >= _MAX_TEMPLATE_BYTES:
            continue
        if "/templates/" in member.name:
            handle = archive.extractfile(member)
            data = handle.read(_MAX_TEMPLATE_BYTES - read) if handle is not None else b""
            read += len(data)
            texts.append(data.decode("utf-8", "replace"))
        elif "/charts/" in member.name and member.name.endswith(".tgz") and depth < 2:
            handle = archive.extractfile(member)
            if handle is not None:
                with tarfile.open(fileobj=handle, mode="r:gz") as inner:
                    read = _archive_templates(inner, texts, read, depth + 1)
    return read


def _templates(ref: str) -> list[str]:
    """The texts of a local chart's templates (a directory or a packaged ``.tgz``), its subcharts' included (a
    directory or a ``.tgz`` in ``charts/``); [] when not readable. A file is opened by
    :func:`gpu_node_pool.sdk.files.open_input` (regular files only, never waited on); what is no regular file is
    skipped."""
    path, texts, read = Path(ref), [], 0
    try:
        if path.is_dir():
            for file in sorted(path.glob("**/*")):
                if read >= _MAX_TEMPLATE_BYTES:
                    break
                parts = file.relative_to(path).parts
                packaged = parts[0] == "charts" and file.name.endswith(".tgz")
                if "templates" not in parts[:-1] and not packaged:
                    continue
                try:  # a regular file only: a FIFO among the templates is never waited on
                    with open_input(file) as fh:
                        if packaged:
                            with tarfile.open(fileobj=fh, mode="r:gz") as archive:
                                read = _archive_templates(archive, texts, read, 1)
                            continue
                        data = fh.read(_MAX_TEMPLATE_BYTES - read)
                except (OSError, tarfile.TarError):  # a directory, a FIFO, unreadable, no archive: no template text
                    continue
                read += len(data)
                texts.append(data.decode("utf-8", "replace"))
        elif path.is_file():
            with tarfile.open(path, "r:gz") as archive:
                _archive_templates(archive, texts, read)
    except (OSError, tarfile.TarError):
        return []
    return texts


def chart_reads(chart_ref: str, texts: Sequence[str] = (), reads: Sequence[str] = CLUSTER_READS) -> list[str] | None:
    """Which of ``reads`` (``lookup``, ``.Capabilities.APIVersions``, ``.Capabilities.KubeVersion``,
    ``.Capabilities.HelmVersion``, ``.Release.Namespace``) the templates of the local chart ``chart_ref`` (its
    subcharts' too) or ``texts`` (e.g. values that ``tpl`` renders) call, sorted; None when no template could be
    read."""
    templates = _templates(chart_ref)
    if not templates:
        return None
    every = [*templates, *texts]
    return sorted(name for name in reads if any(_READS[name].search(t) for t in every))


def empty_render_problem(helm: str, chart_ref: str, local: bool) -> tuple[str, str] | None:
    """``(reason, fix)`` when a render of no object does not show the chart holds none, else None.

    ``helm``: the binary that rendered; ``chart_ref``: the chart as helm was given it; ``local``: a local
    directory or ``.tgz`` (a fetched chart's templates are not read: only the binary is checked)."""
    if not _is_helm(helm):
        return (f"{helm} printed no manifest and does not answer `version --short` as Helm does, so nothing shows the "
                "chart renders no object", "check that --helm (or helm on PATH) is Helm: `<helm> version` prints its version")
    if not local:
        return None
    reads = chart_reads(chart_ref)
    if reads:
        return (f"helm template rendered no object offline, but the chart's templates call {', '.join(reads)}, which "
                "read the cluster (offline lookup answers nothing and only built-in API versions exist), so in the "
                "cluster it may render objects", "judge its DaemonSets after apply with `gpupool audit`, or render it "
                "against the cluster (`helm template --validate`, or pass --api-versions)")
    return None
