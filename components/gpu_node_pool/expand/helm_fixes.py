"""The fix to offer when ``helm template`` fails, from what Helm says went wrong.

A failing render is not always the values' fault: Helm also fails before rendering when the chart itself cannot
be loaded (an archive that is not gzip, a ``Chart.yaml`` that does not parse or lacks ``name``, no chart at the
path), when a dependency listed in ``Chart.yaml`` is not in ``charts/``, or when the chart's ``kubeVersion``
excludes the Kubernetes version rendered for. :data:`HELM_ERRORS` is the table of the error forms Helm prints
for such cases: each row is a fixed part of Helm's own error text, the fix, and the Helm source that prints it
(``helm/helm`` at the tag of the Helm this project installs, :data:`HELM_SOURCE_TAG`; ``tools/install_helm.py``).
The tests render each form with that Helm.

Each row also says what the failure tells about the program (:attr:`HelmError.verdict`), which
:mod:`.render_failure` acts on:

- :data:`OFFLINE`: it may be the offline render's (a chart or dependency that a real run fetches, or values that
  differ there), so the chart stays not judged;
- :data:`VALUES`: a template's own ``required`` or ``fail`` stopped the render; with the chart and the values fixed
  it stops the same way in the provider, which renders with Helm's engine at preview, unless the templates read the
  cluster or the versions (:mod:`.render_failure` decides);
- :data:`KUBE_VERSION`: the chart's ``kubeVersion`` refused the version rendered for; an error of the program when
  that version is the cluster's, declared, or when the constraint is none Helm can read
  (:mod:`.kube_constraint`), else not judged until the version is declared.

An error of no known form gets :data:`GENERIC_FIX`: the reason the plan shows already carries Helm's own first
error line (:func:`gpu_node_pool.expand.helm.helm_error_line`), and the fix sends the user to it; it never
guesses that the values are at fault.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GENERIC_FIX", "HELM_ERRORS", "HELM_SOURCE_TAG", "KUBE_VERSION", "OFFLINE", "VALUES", "HelmError",
           "helm_error_row", "helm_failure_fix"]

#: The Helm release whose sources the rows cite (``tools/install_helm.py`` installs it).
HELM_SOURCE_TAG = "v4.1.4"

#: What a failed render tells about the program (module docstring): it may be offline's; the values; the version.
OFFLINE, VALUES, KUBE_VERSION = "offline", "values", "kube-version"

_RUN_AGAIN = " (run the same `helm template` to see the whole error)"

#: The fix of an error of no known form: Helm's own message (in the reason) names what to correct.
GENERIC_FIX = ("correct what Helm's error names: the chart's values, its templates or the chart reference; the "
               "reason quotes Helm's first error line")


@dataclass(frozen=True)
class HelmError:
    """One form of Helm's error text and its fix.

    Attributes:
        phrase: a fixed part of the message (matched as a substring of Helm's stderr).
        fix: what the user does about it (one sentence).
        source: where Helm prints it: ``helm/helm <path>@<tag> (<function>)``, or Go's own source
            (``golang/go ...``) for an error of Go's template package, which Helm passes on.
        verdict: :data:`OFFLINE`, :data:`VALUES` or :data:`KUBE_VERSION` (module docstring).
    """

    phrase: str
    fix: str
    source: str
    verdict: str = OFFLINE


def _helm(path: str, function: str = "") -> str:
    """``helm/helm <path>@<tag> (<function>)``: the file at :data:`HELM_SOURCE_TAG` and the function in it that
    returns the error, spelt as the source spells it."""
    return f"helm/helm {path}@{HELM_SOURCE_TAG}" + (f" ({function})" if function else "")


#: The known forms, first match wins.
HELM_ERRORS: tuple[HelmError, ...] = (
    HelmError("does not appear to be a gzipped archive",
              "the chart archive is not a gzipped tar: download it again (`helm pull`) or point chart at the chart "
              "directory", _helm("pkg/chart/loader/archive/archive.go", "EnsureArchive")),
    HelmError("seems to be a YAML file, but expected a gzipped archive",
              "chart names a YAML file, not a chart: point chart at the chart directory or a packaged chart .tgz",
              _helm("pkg/chart/loader/archive/archive.go", "EnsureArchive")),
    HelmError("error unpacking",
              "a subchart archive in the chart's charts/ cannot be unpacked: run `helm dependency build` in the chart "
              "directory, or download the chart again (`helm pull`)", _helm("pkg/chart/v2/loader/load.go", "LoadFiles")),
    HelmError("cannot load Chart.yaml", "fix the chart's Chart.yaml: it does not parse as YAML",
              _helm("pkg/chart/loader/load.go", "LoadDir")),
    HelmError("chart.metadata",
              "fix the chart's Chart.yaml: it lacks a field every chart needs (apiVersion, name, version) or holds "
              "one Helm refuses", _helm("pkg/chart/v2/metadata.go", "Metadata.Validate")),
    HelmError("Chart.yaml file is missing", "point chart at a directory holding Chart.yaml, or at a chart archive",
              _helm("pkg/chart/v2/loader/load.go", "LoadFiles")),
    HelmError("unable to detect chart", "point chart at a directory holding Chart.yaml, or at a chart archive",
              _helm("pkg/chart/loader/load.go", "LoadDir")),
    HelmError("missing in charts/ directory",
              "run `helm dependency build` in the chart directory (its Chart.yaml lists dependencies that are not "
              "in charts/)", _helm("pkg/action/install.go", "CheckDependencies")),
    HelmError("chart requires kubeVersion",
              "declare the cluster's Kubernetes version (the stack config's cluster.kubernetesVersion, or the "
              "kubernetesVersion of a GpuNodePool's cluster), or use a chart version whose kubeVersion admits it",
              _helm("pkg/action/action.go", "renderResources"), KUBE_VERSION),
    HelmError("don't meet the specifications of the schema",
              "fix the chart values: they break the chart's values.schema.json",
              _helm("pkg/chart/common/util/values.go", "ToRenderValuesWithSchemaValidation")),
    HelmError("execution error at (",
              "fix the chart values: the chart's own `required` or `fail` message (in the reason) says which value "
              "it needs", _helm("pkg/engine/engine.go", "reformatExecErrorMsg"), VALUES),
    HelmError("nil pointer evaluating",
              "fix the chart values: a template reads a field of a value that is not set (the reason names the "
              "template and the field)", "golang/go src/text/template/exec.go (evalField), as Helm's engine "
              f"reports it ({_helm('pkg/engine/engine.go')})"),
)


def helm_error_row(error: str) -> HelmError | None:
    """The first row of :data:`HELM_ERRORS` whose phrase Helm's error text ``error`` holds, else None."""
    return next((row for row in HELM_ERRORS if row.phrase in error), None)


def helm_failure_fix(error: str) -> str:
    """The fix for a failed ``helm template`` whose error text (stderr, or its first line) is ``error``: the fix
    of the first row of :data:`HELM_ERRORS` whose phrase it holds, else :data:`GENERIC_FIX`; either ends by
    telling the user how to see the whole error."""
    row = helm_error_row(error)
    return (row.fix if row is not None else GENERIC_FIX) + _RUN_AGAIN
