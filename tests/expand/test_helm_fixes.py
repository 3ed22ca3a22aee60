"""The fix a user sees when ``helm template`` fails: one per form of Helm's error (rendered with the real Helm
where a chart can provoke it), and for an error of no known form Helm's own line plus a generic fix."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest

from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.helm_fixes import (
    GENERIC_FIX,
    HELM_ERRORS,
    HELM_SOURCE_TAG,
    KUBE_VERSION,
    OFFLINE,
    VALUES,
    helm_error_row,
    helm_failure_fix,
)
from gpu_node_pool.expand.result import NotJudged
from gpu_node_pool.plan.expand import locate_helm

HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or in venv/bin (make setup installs it)")
_RUN_AGAIN = "(run the same `helm template` to see the whole error)"

#: Helm's error text of each form, as the cited source formats it, and the start of the fix a user must see.
_FORMS = [
    ("Error: file '/c/bad.tgz' does not appear to be a gzipped archive; got 'text/plain; charset=utf-8'",
     "the chart archive is not a gzipped tar"),
    ("Error: file '/c/bad.tgz' seems to be a YAML file, but expected a gzipped archive",
     "chart names a YAML file, not a chart"),
    ("Error: error unpacking subchart dep in c: EOF", "a subchart archive in the chart's charts/ cannot be unpacked"),
    ("Error: cannot load Chart.yaml: error converting YAML to JSON", "fix the chart's Chart.yaml: it does not parse"),
    ("Error: validation: chart.metadata.name is required", "fix the chart's Chart.yaml: it lacks a field"),
    ("Error: Chart.yaml file is missing", "point chart at a directory holding Chart.yaml"),
    ("Error: unable to detect chart at /c/Chart.yaml: open /c/Chart.yaml: no such file or directory",
     "point chart at a directory holding Chart.yaml"),
    ("Error: found in Chart.yaml, but missing in charts/ directory: dep", "run `helm dependency build`"),
    ("Error: chart requires kubeVersion: >=1.99.0 which is incompatible with Kubernetes v1.31.0",
     "declare the cluster's Kubernetes version (the stack config's cluster.kubernetesVersion, or the "
     "kubernetesVersion of a GpuNodePool's cluster)"),
    ("Error: values don't meet the specifications of the schema(s) in the following chart(s):\nc:\n- x: Invalid type",
     "fix the chart values: they break the chart's values.schema.json"),
    ("Error: execution error at (c/templates/a.yaml:1:3): give image.tag",
     "fix the chart values: the chart's own `required` or `fail` message"),
    ('Error: template: c/templates/a.yaml:1:10: executing "c/templates/a.yaml" at <.Values.x.y>: nil pointer '
     "evaluating interface {}.y", "fix the chart values: a template reads a field of a value that is not set"),
]


#: Where each phrase is returned in helm/helm at v4.1.4 (read there: the file, and the Go function around the line
#: that formats it, spelt as Go spells it).
_SOURCES = {
    "does not appear to be a gzipped archive": ("pkg/chart/loader/archive/archive.go", "EnsureArchive"),
    "seems to be a YAML file, but expected a gzipped archive": ("pkg/chart/loader/archive/archive.go", "EnsureArchive"),
    "error unpacking": ("pkg/chart/v2/loader/load.go", "LoadFiles"),
    "cannot load Chart.yaml": ("pkg/chart/loader/load.go", "LoadDir"),
    "chart.metadata": ("pkg/chart/v2/metadata.go", "Metadata.Validate"),
    "Chart.yaml file is missing": ("pkg/chart/v2/loader/load.go", "LoadFiles"),
    "unable to detect chart": ("pkg/chart/loader/load.go", "LoadDir"),
    "missing in charts/ directory": ("pkg/action/install.go", "CheckDependencies"),
    "chart requires kubeVersion": ("pkg/action/action.go", "renderResources"),
    "don't meet the specifications of the schema": ("pkg/chart/common/util/values.go", "ToRenderValuesWithSchemaValidation"),
    "execution error at (": ("pkg/engine/engine.go", "reformatExecErrorMsg"),
}


def test_every_row_of_the_table_names_its_source_and_has_a_form_here():
    assert [row.phrase for row in HELM_ERRORS if not any(row.phrase in text for text, _ in _FORMS)] == []
    for row in HELM_ERRORS:
        if row.phrase in _SOURCES:
            path, function = _SOURCES[row.phrase]
            assert row.source == f"helm/helm {path}@{HELM_SOURCE_TAG} ({function})", row
        else:  # Go's template package, as Helm's engine passes it on
            assert row.source.startswith("golang/go src/text/template/exec.go (evalField)"), row
            assert f"helm/helm pkg/engine/engine.go@{HELM_SOURCE_TAG}" in row.source, row


def test_only_a_templates_own_stop_and_a_kube_version_are_judged_the_programs_error():
    # every other form may be the offline render's (a chart, a dependency or a schema a real run fetches or reads
    # otherwise), so it leaves the chart not judged
    verdicts = {row.phrase: row.verdict for row in HELM_ERRORS}
    assert {p for p, v in verdicts.items() if v != OFFLINE} == {"execution error at (", "chart requires kubeVersion"}
    assert verdicts["execution error at ("] == VALUES and verdicts["chart requires kubeVersion"] == KUBE_VERSION
    assert helm_error_row("Error: execution error at (c/templates/a.yaml:1:3): x").verdict == VALUES
    assert helm_error_row("Error: something else") is None


@pytest.mark.parametrize(("error", "fix"), _FORMS)
def test_each_known_form_of_helms_error_gets_its_fix(error, fix):
    got = helm_failure_fix(error)
    assert got.startswith(fix), got
    assert got.endswith(_RUN_AGAIN)


def test_an_error_of_no_known_form_gets_a_generic_fix_that_sends_to_helms_own_line(tmp_path):
    got = helm_failure_fix("Error: looks like \"https://example.com\" is not a valid chart repository")
    assert got == f"{GENERIC_FIX} {_RUN_AGAIN}"
    # as a user sees it: Helm's own line in the reason, and no row's fix (no guess that the values are at fault)
    helm = tmp_path / "helm"
    helm.write_text("#!/bin/sh\necho 'Error: something no row knows happened' >&2\nexit 1\n")
    helm.chmod(0o755)
    chart = _chart(tmp_path, "c", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with HelmRenderer(helm, kube_version="1.31", base_dir=tmp_path) as r:
        result = r.render("kubernetes:helm.sh/v4:Chart", "c", {"chart": str(chart)}, resource="c")
    assert isinstance(result, NotJudged), result
    assert result.reason.endswith(" failed: Error: something no row knows happened"), result.reason
    assert result.fix == got and not [row.fix for row in HELM_ERRORS if row.fix in result.fix]


def _chart(root: Path, name: str, chart_yaml: str, templates: dict[str, str] | None = None,
           files: dict[str, str] | None = None) -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(chart_yaml)
    for file, text in (templates or {}).items():
        (chart / "templates" / file).write_text(text)
    for file, text in (files or {}).items():
        (chart / file).write_text(text)
    return chart


def _tgz(path: Path, members: dict[str, bytes]) -> Path:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(buf.getvalue()))
    return path


@needs_helm
@pytest.mark.parametrize(("make", "values", "fix"), [
    (lambda t: _tgz(t / "noyaml.tgz", {"c/values.yaml": b"a: 1\n"}), None, "point chart at a directory holding"),
    (lambda t: _chart(t, "schema", "apiVersion: v2\nname: schema\nversion: 0.1.0\n",
                      files={"values.schema.json": '{"type": "object", "properties": {"x": {"type": "integer"}}}'}),
     {"x": "text"}, "fix the chart values: they break the chart's values.schema.json"),
    # a `required` in a chart that reads the cluster (else it is an error of the program: test_render_failure.py)
    (lambda t: _chart(t, "req", "apiVersion: v2\nname: req\nversion: 0.1.0\n",
                      {"a.yaml": "{{ required \"give image.tag\" (lookup \"v1\" \"Node\" \"\" \"n\").x }}\n"}), None,
     "fix the chart values: the chart's own `required` or `fail` message"),
])
def test_a_chart_that_provokes_a_form_shows_helms_line_and_its_fix(tmp_path, make, values, fix):
    chart = make(tmp_path)
    inputs = {"chart": str(chart), **({"values": values} if values else {})}
    with HelmRenderer(HELM, kube_version="1.31", base_dir=tmp_path) as r:
        got = r.render("kubernetes:helm.sh/v4:Chart", "c", inputs, resource="c")
    assert isinstance(got, NotJudged), got
    assert " failed: Error: " in got.reason  # Helm's own first error line
    assert got.fix.startswith(fix), (got.reason, got.fix)
