"""What a failed offline ``helm template`` means for the program: an error of its input, or a chart not judged.

The Kubernetes provider renders a ``helm.v4.Chart`` at preview with Helm's install action in client-only dry-run
(``pulumi/pulumi-kubernetes provider/pkg/provider/helm/v4/chart.go@v4.32.0``, ``Construct``: ``cmd.Execute``, whose
error Construct returns; ``provider/pkg/helm/tool.go@v4.32.0``, ``runInstall``), for the cluster's Kubernetes version
and API versions (``setKubeVersionAndAPIVersions``), so a render Helm refuses fails the preview. A
``helm.v3.Release`` is rendered at preview only to find its CRDs, a failure passed over (``provider/pkg/provider/
helm_release.go@v4.32.0``, ``Check``: ``cacheReleaseCRDs``), and rendered again by the install ``pulumi up`` runs
(``Create``: ``helmCreate``), which fails the same way.

A failure is the program's error when it does not depend on being offline, by the verdict of its row in
:data:`~gpu_node_pool.expand.helm_fixes.HELM_ERRORS` (one table):

- ``VALUES`` (a template's ``required`` or ``fail``): an error at ``values`` when the chart is local (its templates
  are read: :func:`~gpu_node_pool.expand.empty_render.chart_reads`) and neither they nor the values call ``lookup``
  or ``.Capabilities.APIVersions`` (offline they read no cluster), ``.Capabilities.HelmVersion`` (the provider's Helm
  is not this one), ``.Capabilities.KubeVersion`` unless the version rendered for is the cluster's, declared, nor
  ``.Release.Namespace`` unless the chart sets its namespace (else the provider's default namespace is used);
- ``KUBE_VERSION``: an error at ``chart`` when the chart's ``kubeVersion`` is no constraint Helm can read
  (:mod:`.kube_constraint`; no version passes it), or when the version it refuses is the cluster's, declared; with
  the default version, not judged, saying to declare it;
- anything else (a chart not reachable, ``OFFLINE`` rows, an error of no known form): not judged.

Either way the chart must be the one a real run renders: a local chart, or a pinned version.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..text.terminal import shown
from .empty_render import CLUSTER_READS, chart_reads
from .helm_fixes import HELM_SOURCE_TAG, KUBE_VERSION, VALUES, helm_error_row, helm_failure_fix
from .kube_constraint import CONSTRAINT_SOURCE, constraint_problem
from .result import NotJudged, RefusedInput

__all__ = ["render_failure"]

_CHART = "kubernetes:helm.sh/v4:Chart"
_RELEASE = "kubernetes:helm.sh/v3:Release"
#: Where a real run fails on a chart Helm refuses to render, per chart type (module docstring).
_FAILS = {
    _CHART: ("a real `pulumi preview` fails the same way: the provider renders the chart with Helm's install action at "
             "preview and Construct returns Helm's error (pulumi/pulumi-kubernetes "
             "provider/pkg/provider/helm/v4/chart.go@v4.32.0, cmd.Execute; provider/pkg/helm/tool.go@v4.32.0, "
             "runInstall)"),
    _RELEASE: ("`pulumi up` fails when it installs the Release: its preview renders the chart only to find CRDs and "
               "passes over a failure (pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0, Check: "
               "cacheReleaseCRDs), then Create's install (helmCreate) renders it with Helm the same way"),
}
#: Which version a real run renders for, per chart type.
_CLUSTER_VERSION = {
    _CHART: "the provider renders for the cluster's version (chart.go@v4.32.0, setKubeVersionAndAPIVersions)",
    _RELEASE: "the install renders for the cluster's version",
}
_ENGINE = f"helm/helm pkg/engine/engine.go@{HELM_SOURCE_TAG}, reformatExecErrorMsg"
_KUBE_CHECK = (f"helm/helm pkg/action/action.go@{HELM_SOURCE_TAG}, renderResources, with IsCompatibleRange, "
               f"pkg/chart/v2/util/compatible.go@{HELM_SOURCE_TAG}")
_KUBE_FIELD = "https://helm.sh/docs/topics/charts/#the-kubeversion-field"
#: Helm's words for a template's ``required`` or ``fail``: the template, line, column, and the chart's message.
_EXEC = re.compile(r"execution error at \((?P<template>.+?):(?P<line>\d+)(?::(?P<column>\d+))?\): (?P<message>.*)")
#: Helm's words for a ``kubeVersion`` the version fails: the constraint and the version.
_KUBE = re.compile(r"chart requires kubeVersion: (?P<constraint>.*) which is incompatible with Kubernetes "
                   r"(?P<version>\S+)")
#: Why each read of a template makes its offline render differ.
_READS = {
    "lookup": "lookup, which answers nothing offline",
    ".Capabilities.APIVersions": ".Capabilities.APIVersions, which holds only the built-in API versions offline",
    ".Capabilities.KubeVersion": ".Capabilities.KubeVersion, rendered for {version}, which nothing declares as the "
                                 "cluster's version",
    ".Capabilities.HelmVersion": ".Capabilities.HelmVersion, which differs between this Helm and the provider's",
    ".Release.Namespace": ".Release.Namespace, rendered as default while the chart sets no namespace (a real run "
                          "takes the provider's default namespace, which its kubeconfig may set)",
}


def render_failure(err: str, line: str, *, who: str, type_token: str, label: str, chart_ref: str, local: bool,
                   pinned: bool, values_docs: Sequence[str] = (), kube_version: str | None = None,
                   declared_by: str = "", namespace_given: bool = True) -> NotJudged | RefusedInput:
    """The outcome of a ``helm template`` that exited non-zero with ``err`` on stderr.

    Args:
        err: Helm's stderr; ``line``: its first error line (:func:`~gpu_node_pool.expand.helm.helm_error_line`).
        who, type_token: the chart resource's URN (or name) and type token.
        label: the chart in words, ``chart '<ref>' [version]``.
        chart_ref: the chart as Helm was given it; ``local``: a local directory or ``.tgz``; ``pinned``: a version
            was asked for (a fetched chart is then the one a real run renders).
        values_docs: the values documents rendered with (searched for reads, as ``tpl`` renders values).
        kube_version: the ``--kube-version`` rendered for; ``declared_by``: who declares it the cluster's version
            (``"GpuNodePool 'gpu'"``), ``""`` when it is the default or one of several.
        namespace_given: the chart sets its namespace (else it rendered in ``default``, the provider's may differ).

    Returns:
        :class:`RefusedInput` at ``values`` (``required``/``fail``) or ``chart`` (``kubeVersion``) when the failure is
        the program's (module docstring), else :class:`NotJudged` with Helm's first error line, its fix, and the
        verdict of its row of :data:`~gpu_node_pool.expand.helm_fixes.HELM_ERRORS` (``""`` for no row).
    """
    reason, fix = f"helm template of {label} failed: {line}", helm_failure_fix(err)
    row = helm_error_row(err)
    fixed = local or pinned

    def not_judged(reason: str, fix: str) -> NotJudged:
        return NotJudged(who, type_token, reason, fix, verdict=row.verdict if row is not None else "")

    if row is not None and row.verdict == KUBE_VERSION and (m := _KUBE.search(err)) is not None:
        constraint, version = m.group("constraint"), m.group("version")
        problem = constraint_problem(constraint)
        if problem is not None:
            if fixed:
                return RefusedInput(who, type_token, "chart", _malformed(label, chart_ref, local, constraint, problem,
                                                                         line, type_token))
            return not_judged(f"{reason} (its kubeVersion is no constraint: {shown(problem, quote=False)})",
                              _malformed_fix("the chart's Chart.yaml", constraint))
        if declared_by and fixed:
            return RefusedInput(who, type_token, "chart", (
                f"{label}: its Chart.yaml's kubeVersion {shown(constraint)} excludes Kubernetes {version}, the "
                f"cluster's version as {declared_by} declares it (Helm: {_said(line)}; {_KUBE_CHECK}, checked before "
                f"rendering; {_KUBE_FIELD}), and {_CLUSTER_VERSION.get(type_token, _CLUSTER_VERSION[_CHART])}, so "
                f"{_FAILS.get(type_token, _FAILS[_CHART])}. Fix: use a chart version whose kubeVersion admits "
                f"{kube_version or version}, or upgrade the cluster first and declare its new version"))
        return not_judged(reason, fix)
    if row is not None and row.verdict == VALUES and local and (m := _EXEC.search(line)) is not None:
        asked = [*CLUSTER_READS, ".Capabilities.HelmVersion", *(() if declared_by else (".Capabilities.KubeVersion",)),
                 *(() if namespace_given else (".Release.Namespace",))]
        reads = chart_reads(chart_ref, values_docs, asked)
        if reads is None:
            return not_judged(reason, fix)
        if reads:
            said = "; ".join(_READS[r].format(version=kube_version) for r in reads)  # our words, whole
            return not_judged(f"{reason}; the chart's templates call {said}, so the failure may be the offline "
                              "render's", f"{fix}; if the message is about what the cluster holds, judge the chart's "
                              "objects after apply with `gpupool audit`")
        return RefusedInput(who, type_token, "values", _stopped(label, chart_ref, m, line, type_token))
    return not_judged(reason, fix)


def _stopped(label: str, chart_ref: str, m: re.Match[str], line: str, type_token: str) -> str:
    """The error of a template's ``required`` or ``fail`` with the program's values."""
    template, message = m.group("template"), m.group("message")
    where = f"line {m.group('line')}" + (f", column {m.group('column')}" if m.group("column") else "")
    file = Path(chart_ref, *Path(template).parts[1:]) if Path(chart_ref).is_dir() else None
    if file is not None and file.is_file():
        where += f", {file}"
    return (f"{label} does not render with the values the program gives: its template {template} ({where}) stops "
            f"with the chart's own message {shown(message)} (Helm: {_said(line)}; a template's `required` or `fail`, "
            f"{_ENGINE}). "
            "The chart and the values are the program's and the templates read neither the cluster nor the versions, "
            f"so {_FAILS.get(type_token, _FAILS[_CHART])}. Fix: give the value that message asks for in values (or "
            "a file of valueYamlFiles): the template at that line names it")


def _chart_file(chart_ref: str, local: bool) -> str:
    """The chart's ``Chart.yaml`` in words: its path for a directory, in the archive for a ``.tgz``."""
    if local and Path(chart_ref).is_dir():
        return str(Path(chart_ref) / "Chart.yaml")
    return f"the Chart.yaml in {chart_ref}" if local else "the chart's Chart.yaml"


def _malformed_fix(chart_file: str, constraint: str) -> str:
    return (f"write kubeVersion in {chart_file} as a version constraint, e.g. '>=1.28.0-0' (the '-0' also admits the "
            f"versions with a suffix that managed clusters report, such as v1.33.4-eks-...), or remove it; for a chart "
            f"you do not maintain, use a version of it whose kubeVersion is one (this one's kubeVersion is "
            f"{shown(constraint)})")


def _malformed(label: str, chart_ref: str, local: bool, constraint: str, problem: str, line: str,
               type_token: str) -> str:
    """The error of a ``kubeVersion`` that is no constraint: the chart's own error, on every cluster."""
    chart_file = _chart_file(chart_ref, local)
    return (f"{label}: kubeVersion {shown(constraint)} in {chart_file} is no version constraint "
            f"({shown(problem, quote=False)}; {CONSTRAINT_SOURCE}; {_KUBE_FIELD}). Helm refuses to render such a "
            f"chart for every Kubernetes version, as if the constraint excluded it (Helm: {_said(line)}; "
            f"{_KUBE_CHECK}: a constraint that does not parse admits no version), so on any cluster, whatever version "
            f"is declared, {_FAILS.get(type_token, _FAILS[_CHART])}. Fix: {_malformed_fix(chart_file, constraint)}")


def _said(line: str) -> str:
    """Helm's error line without its ``Error:``."""
    return line.removeprefix("Error: ")
