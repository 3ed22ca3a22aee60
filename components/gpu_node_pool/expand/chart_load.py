"""Whether Helm can load the local chart a chart resource points at, judged without Helm.

A chart written as a path that exists is read from there only (helm/helm ``pkg/action/install.go@v4.1.4``,
``LocateChart``: an existing path is the chart), then loaded with ``loader.Load``
(helm/helm ``pkg/chart/v2/loader/load.go@v4.1.4``): a directory through ``LoadDir``, anything else through
``LoadFile``, which takes a gzipped archive only (``pkg/chart/v2/loader/archive.go@v4.1.4``, ``EnsureArchive``:
"does not appear to be a gzipped archive"). Loading fails when the directory has no ``Chart.yaml``
("Chart.yaml file is missing"), when ``Chart.yaml`` is not YAML ("cannot load Chart.yaml"), and when its metadata
fails ``Metadata.Validate`` (``pkg/chart/v2/metadata.go@v4.1.4``): ``apiVersion``, ``name`` and ``version``
required, ``name`` neither ``.`` nor ``..`` nor a path, ``version`` a version Masterminds/semver's ``NewVersion``
reads (``version.go@v3.4.0``, the loose form ``coerceNewVersion`` takes: ``looseSemVerRegex``, each number a
uint64, no leading zero in a numeric pre-release part), ``type`` empty, ``application`` or ``library``. The chart
file's rules: https://helm.sh/docs/topics/charts/#the-chartyaml-file.

The Kubernetes provider loads the chart the same way at preview (a ``helm.v4.Chart`` in ``Construct``, a
``helm.v3.Release`` in ``Check``), so each of these is an error of the program, not a chart left unjudged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import yaml

from ..sdk.files import open_input, read_input_text
from ..sdk.yaml_bounded import load_bounded, with_tab_cause

__all__ = ["CHART_FILE_RULE", "SyntaxProblem", "chart_load_problem", "is_loose_semver"]

#: Words a YAML error in the file ``name`` as ``<name>:<line>:<column>: ...`` (the plan passes the stack reader's).
SyntaxProblem = Callable[[Exception, str], str]

#: The public rules of a chart's files, named in every problem.
CHART_FILE_RULE = ("Helm loads the chart with loader.Load (helm/helm pkg/chart/v2/loader/load.go@v4.1.4; its "
                   "Chart.yaml rules: https://helm.sh/docs/topics/charts/#the-chartyaml-file)")

#: Masterminds/semver version.go@v3.4.0 ``looseSemVerRegex``, which ``NewVersion`` (``coerceNewVersion``) matches.
_LOOSE_SEMVER = re.compile(r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
                           r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")
_UINT64_MAX = (1 << 64) - 1  # strconv.ParseUint(s, 10, 64): Go's uint64, no Kubernetes bound
_GZIP_MAGIC = b"\x1f\x8b"


def is_loose_semver(version: str) -> bool:
    """Whether Masterminds/semver v3.4.0 ``NewVersion`` reads ``version`` (what Helm's ``isValidSemver`` asks):
    ``1``, ``1.2``, ``v1.2.3``, ``1.2.3-rc.1+build`` are; ``1.0.0.0.0``, ``1.2.3-01``, ``latest`` are not."""
    m = _LOOSE_SEMVER.fullmatch(version)
    if m is None:
        return False
    if any(part and int(part.lstrip(".")) > _UINT64_MAX for part in m.group(1, 2, 3)):
        return False
    pre = m.group(5) or ""
    return not any(p.isdigit() and len(p) > 1 and p.startswith("0") for p in pre.split(".") if pre)


def chart_load_problem(path: Path, chart: str, syntax_problem: SyntaxProblem | None = None) -> tuple[str, str] | None:
    """``(what is wrong, fix)`` when Helm cannot load the chart at the existing local ``path`` (written ``chart`` in
    the program), else None. ``syntax_problem`` words a ``Chart.yaml`` that is not YAML (``<file>:<line>:<col>:
    ...``); a tab where the error is found is named as the cause.

    ``what is wrong`` names the path and the rule; it is one sentence without the source of the failing preview,
    which the caller adds."""
    if path.is_dir():
        meta = path / "Chart.yaml"
        if not meta.exists():
            return (f"chart {chart!r} is a directory without a Chart.yaml ({path}), so Helm cannot load it "
                    "(\"Chart.yaml file is missing\")",
                    "point chart at a chart directory (with its Chart.yaml) or a packaged chart .tgz")
        return _chart_yaml_problem(meta, chart, syntax_problem)
    try:
        with open_input(path) as fh:
            head = fh.read(2)
    except OSError as err:
        return (f"chart {chart!r} ({path}) cannot be read as a packaged chart: {err}",
                "point chart at a chart directory (with its Chart.yaml) or a packaged chart .tgz")
    if head != _GZIP_MAGIC:
        hint = " (that is the chart's Chart.yaml: give its directory)" if path.name == "Chart.yaml" else ""
        return (f"chart {chart!r} is a file but no packaged chart ({path}): Helm loads a file as a gzipped chart "
                f"archive only (pkg/chart/v2/loader/archive.go@v4.1.4, EnsureArchive){hint}",
                f"point chart at the chart directory{' ' + repr(str(Path(chart).parent)) if hint else ''} "
                "(with its Chart.yaml) or a packaged chart .tgz (`helm package`)")
    return None


def _chart_yaml_problem(meta: Path, chart: str, syntax_problem: SyntaxProblem | None) -> tuple[str, str] | None:
    """What Helm refuses in the chart's ``Chart.yaml`` (module docstring), else None."""
    fix_file = f"fix {meta}"
    try:
        text = read_input_text(meta)[0]
    except OSError as err:
        return f"chart {chart!r}: its Chart.yaml cannot be read: {err}", f"make {meta} a readable file"
    try:
        doc = load_bounded(text)
    except yaml.YAMLError as err:
        said = syntax_problem(err, str(meta)) if syntax_problem is not None else _plain_syntax(err, str(meta))
        said = with_tab_cause(said, err, text)
        return (f"chart {chart!r}: {said}, so Helm cannot load the chart (\"cannot load Chart.yaml\")",
                f"{fix_file}: indent with spaces and keep it a YAML map of the chart's fields")
    if not isinstance(doc, dict):
        return (f"chart {chart!r}: {meta} is not a YAML map of the chart's fields (it holds "
                f"{type(doc).__name__ if doc is not None else 'nothing'}), so Helm cannot load the chart",
                f"{fix_file}: give apiVersion, name and version")
    problem = _metadata_problem(doc)
    if problem is None:
        return None
    return (f"chart {chart!r}: {meta}: {problem}, so Helm refuses to load the chart (Metadata.Validate, "
            "pkg/chart/v2/metadata.go@v4.1.4)", f"{fix_file}: {_METADATA_FIX}")


_METADATA_FIX = ("apiVersion v2, a name that is no path, a version in SemVer 2 form (e.g. 1.0.0), type application "
                 "or library")


def _metadata_problem(doc: dict[object, object]) -> str | None:
    """The first field of ``Chart.yaml`` that ``Metadata.Validate`` refuses, in its order, or None."""
    for key in ("apiVersion", "name"):
        if doc.get(key) in (None, ""):
            return f"{key} is required (chart.metadata.{key} is required)"
    name = str(doc.get("name"))
    if name in (".", "..") or "/" in name:
        return f"name {name!r} is not allowed: a chart's name is no path (chart.metadata.name is invalid)"
    version = doc.get("version")
    if version in (None, ""):
        return "version is required (chart.metadata.version is required)"
    if isinstance(version, str) and not is_loose_semver(version):
        return (f"version {version!r} is not a semantic version (chart.metadata.version is invalid: Helm reads it "
                "with Masterminds/semver NewVersion, version.go@v3.4.0; SemVer 2 https://semver.org/spec/v2.0.0.html)")
    kind = doc.get("type")
    if kind not in (None, "", "application", "library"):
        return f"type {kind!r} is neither application nor library (chart.metadata.type must be application or library)"
    return None


def _plain_syntax(err: yaml.YAMLError, name: str) -> str:
    """``<name>:<line>:<column>: is not valid YAML: <problem>; fix the syntax there`` without a caller's wording."""
    mark = getattr(err, "problem_mark", None)
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
    problem = getattr(err, "problem", None) or (str(err).splitlines() or [type(err).__name__])[0]
    return f"{where}: is not valid YAML: {problem}; fix the syntax there"
