"""A local chart path that holds no chart Helm can load is an error at ``chart`` (a real preview fails on it), with
or without a helm, not an unjudged chart."""

from __future__ import annotations

import gzip
import shutil

import pytest

from gpu_node_pool.expand.chart_load import is_loose_semver
from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.result import RefusedInput
from gpu_node_pool.plan.expand import _manifest_syntax

CHART = "kubernetes:helm.sh/v4:Chart"
RELEASE = "kubernetes:helm.sh/v3:Release"
GOOD = "apiVersion: v2\nname: logship\nversion: 1.0.0\n"


def _render(tmp_path, chart, token=CHART, syntax=None):
    # `true` is never run: each of these is refused before helm would be
    with HelmRenderer(shutil.which("true"), kube_version="1.31", base_dir=tmp_path, syntax_problem=syntax) as r:
        return r.render(token, "logship", {"chart": chart}, resource="logship")


def _chart(tmp_path, meta=GOOD):
    d = tmp_path / "charts" / "logship"
    (d / "templates").mkdir(parents=True)
    (d / "Chart.yaml").write_text(meta)
    return d


@pytest.mark.parametrize("token", [CHART, RELEASE])
def test_a_directory_without_chart_yaml_is_an_error_at_chart(tmp_path, token):
    (tmp_path / "charts" / "empty").mkdir(parents=True)
    got = _render(tmp_path, "./charts/empty", token)
    assert isinstance(got, RefusedInput), got
    assert got.input == "chart"
    assert "'./charts/empty' is a directory without a Chart.yaml" in got.message
    assert str(tmp_path / "charts" / "empty") in got.message
    assert "unable to load the chart" in got.message if token == CHART else "Check" in got.message
    assert "Fix: point chart at a chart directory" in got.message


def test_chart_yaml_itself_is_an_error_naming_its_directory(tmp_path):
    _chart(tmp_path)
    got = _render(tmp_path, "./charts/logship/Chart.yaml")
    assert isinstance(got, RefusedInput), got
    assert "is a file but no packaged chart" in got.message and "gzipped chart archive" in got.message
    assert "point chart at the chart directory 'charts/logship'" in got.message


def test_a_gzipped_file_is_loaded_as_a_packaged_chart(tmp_path):
    (tmp_path / "logship.tar.gz").write_bytes(gzip.compress(b"not checked here"))
    assert not isinstance(_render(tmp_path, "./logship.tar.gz"), RefusedInput)


def test_a_version_helm_refuses_is_an_error_with_the_rule(tmp_path):
    _chart(tmp_path, "apiVersion: v2\nname: logship\nversion: 1.0.0.0.0\n")
    got = _render(tmp_path, "./charts/logship")
    assert isinstance(got, RefusedInput), got
    assert "version '1.0.0.0.0' is not a semantic version" in got.message
    assert "chart.metadata.version is invalid" in got.message and "metadata.go@v4.1.4" in got.message
    assert "Chart.yaml" in got.message and "Fix: fix " in got.message


@pytest.mark.parametrize(("meta", "said"), [
    ("name: logship\nversion: 1.0.0\n", "apiVersion is required"),
    ("apiVersion: v2\nversion: 1.0.0\n", "name is required"),
    ("apiVersion: v2\nname: logship\n", "version is required"),
    ("apiVersion: v2\nname: ..\nversion: 1.0.0\n", "name '..' is not allowed"),
    ("apiVersion: v2\nname: logship\nversion: 1.0.0\ntype: app\n", "type 'app' is neither application nor library"),
    ("- a\n", "is not a YAML map"),
])
def test_metadata_helm_refuses_is_an_error(tmp_path, meta, said):
    _chart(tmp_path, meta)
    got = _render(tmp_path, "./charts/logship")
    assert isinstance(got, RefusedInput), got
    assert said in got.message


def test_a_chart_yaml_indented_with_a_tab_is_placed_at_its_line_and_column(tmp_path):
    d = _chart(tmp_path, "apiVersion: v2\n\tname: logship\nversion: 1.0.0\n")
    got = _render(tmp_path, "./charts/logship", syntax=_manifest_syntax)
    assert isinstance(got, RefusedInput), got
    assert f"{d / 'Chart.yaml'}:2:1: is not valid YAML" in got.message
    assert "the character there is a tab" in got.message and "cannot load Chart.yaml" in got.message


def test_a_good_chart_is_not_refused(tmp_path):
    _chart(tmp_path, "apiVersion: v2\nname: logship\nversion: v1.2\n")
    assert not isinstance(_render(tmp_path, "./charts/logship"), RefusedInput)


@pytest.mark.parametrize(("version", "ok"), [
    ("1", True), ("1.2", True), ("v1.2.3", True), ("1.2.3-rc.1+build.5", True), ("0.0.0-0", True),
    ("1.0.0.0.0", False), ("1.2.3-01", False), ("latest", False), (" 1.2.3", False), ("1.2.3\n", False),
    (f"{1 << 64}.0.0", False),
])
def test_versions_as_masterminds_semver_reads_them(version, ok):
    assert is_loose_semver(version) is ok
