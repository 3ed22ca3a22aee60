"""The fix to offer when ``helm template`` fails, from what Helm says went wrong.

A failing render is not always the values' fault: Helm also fails before rendering when the chart itself cannot
be loaded (an archive that is not gzip, a ``Chart.yaml`` that does not parse or lacks ``name``, no chart at the
path), when a dependency listed in ``Chart.yaml`` is not in ``charts/``, or when the chart's ``kubeVersion``
excludes the Kubernetes version rendered for. The phrases are Helm's own error texts, as the Helm v4 binary
this project installs (``tools/install_helm.py``) prints them for such charts (the tests render each case).
Anything else is the values or templates.
"""

from __future__ import annotations

__all__ = ["helm_failure_fix"]

_RUN_AGAIN = " (run the same `helm template` to see the whole error)"

#: (a phrase of Helm's error, the fix), first match wins.
_FIXES: tuple[tuple[str, str], ...] = (
    ("does not appear to be a gzipped archive", "the chart archive is not a gzipped tar: download it again "
     "(`helm pull`) or point chart at the chart directory"),
    ("error unpacking", "the chart archive cannot be unpacked: download it again (`helm pull`)"),
    ("cannot load Chart.yaml", "fix the chart's Chart.yaml: it does not parse as YAML"),
    ("chart.metadata", "fix the chart's Chart.yaml: it lacks a field every chart needs (apiVersion, name, version)"),
    ("Chart.yaml file is missing", "point chart at a directory holding Chart.yaml, or at a chart archive"),
    ("unable to detect chart", "point chart at a directory holding Chart.yaml, or at a chart archive"),
    ("missing in charts/ directory", "run `helm dependency build` in the chart directory (its Chart.yaml lists "
     "dependencies that are not in charts/)"),
    ("chart requires kubeVersion", "set cluster.kubernetesVersion to the cluster's version, or use a chart "
     "version that supports it"),
    ("don't meet the specifications of the schema", "fix the chart values: they break the chart's "
     "values.schema.json"),
)


def helm_failure_fix(error: str) -> str:
    """The fix for a failed ``helm template`` whose error text (stderr, or its first line) is ``error``: the
    chart's archive, ``Chart.yaml``, dependencies or ``kubeVersion`` when Helm names one of them, else the values."""
    for phrase, fix in _FIXES:
        if phrase in error:
            return fix + _RUN_AGAIN
    return "fix the chart values" + _RUN_AGAIN
