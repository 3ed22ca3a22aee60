"""A chart's values given as Pulumi assets are read as the provider reads them, under ``gpupool check`` (whose
program runs in a child process) and ``gpupool plan`` (in-process) alike: a ``FileAsset`` from the project
directory, a ``StringAsset``'s text, an asset inside ``values`` as its text; a values file that does not exist is
the error a real preview gives, at the program's line."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import jsonschema
import programs
import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema
from gpu_node_pool.expand import NotJudged, RefusedInput
from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.plan.expand import locate_helm

needs_helm = pytest.mark.skipif(locate_helm() is None, reason="no helm on PATH or beside this Python (make setup installs it)")
DS = "kubernetes:apps/v1:DaemonSet"
GATE = "daemonsets-tolerate-gpu-taints"
# The chart's DaemonSet tolerates nothing, and is only rendered when the values turn it on (off by default), so it
# is judged only when the values file was read.
DAEMONSET = """\
{{- if eq (toString .Values.mode) "daemonset" }}
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: '{{ .Release.Name }}-logship'}
spec:
  selector: {matchLabels: {app: logship}}
  template:
    metadata: {labels: {app: logship}}
    spec:
      containers: [{name: fluent-bit, image: fluent/fluent-bit:3.1}]
{{- end }}
"""
LOGSHIP = f"{DS} logship:logging/logship-logship"


def _chart(project: Path) -> None:
    (project / "charts" / "logship" / "templates").mkdir(parents=True)
    (project / "charts" / "logship" / "Chart.yaml").write_text("apiVersion: v2\nname: logship\nversion: 0.1.0\n")
    (project / "charts" / "logship" / "values.yaml").write_text("mode: off\n")
    (project / "charts" / "logship" / "templates" / "ds.yaml").write_text(DAEMONSET)


def team_project(tmp_path: Path, chart_line: str) -> Path:
    """A team's own Pulumi project: a tainted GPU pool with its device plugin (clean alone), plus ``chart_line``."""
    project = programs.team_project(tmp_path / "team", programs.team_program(chart_line))
    _chart(project)
    return project


def run(capsys, *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    assert doc["exitCode"] == code
    return code, doc


def check(capsys, project: Path) -> tuple[int, dict]:
    return run(capsys, "check", "--project-dir", str(project), "--stack", "ci")


def mandatory(doc: dict) -> set[str]:
    return {v["resource"] for v in doc["violations"] if v["policy"] == GATE and v["enforcement"] == "mandatory"}


CHART = 'k8s.helm.v4.Chart("logship", chart="./charts/logship", namespace="logging", {args})'


def test_the_team_project_without_the_chart_is_clean(capsys, tmp_path):
    code, doc = check(capsys, team_project(tmp_path, ""))
    assert code == 0 and doc["violations"] == [] and doc["notJudged"] == []


@needs_helm
@pytest.mark.parametrize("args, files", [
    ('value_yaml_files=[pulumi.FileAsset("./values-prod.yaml")]', {"values-prod.yaml": "mode: daemonset\n"}),
    ('value_yaml_files=[pulumi.FileAsset("values/prod.yaml")]', {"values/prod.yaml": "mode: daemonset\n"}),
    ('value_yaml_files=[pulumi.StringAsset("mode: daemonset")]', {}),
    ('values={"mode": pulumi.FileAsset("./mode.txt")}', {"mode.txt": "daemonset"}),  # Helm's --set-file
    ('values={"mode": pulumi.StringAsset("daemonset")}', {}),
])
def test_check_reads_a_charts_values_assets_and_fails_on_the_daemonset_they_turn_on(capsys, tmp_path, args, files):
    project = team_project(tmp_path, CHART.format(args=args))
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    code, doc = check(capsys, project)
    assert doc["notJudged"] == [], doc["notJudged"]
    assert LOGSHIP in mandatory(doc)
    [finding] = [v for v in doc["violations"] if v["resource"] == LOGSHIP and v["policy"] == GATE]
    assert finding["location"]["file"] == "__main__.py" and finding["location"]["line"] == 11
    assert code == 1


@pytest.mark.parametrize("args", ['value_yaml_files=[pulumi.FileAsset("./values-prod.yaml")]',
                                  'values={"mode": pulumi.FileAsset("./values-prod.yaml")}'])
def test_check_refuses_a_values_file_that_is_not_there_at_the_programs_line(capsys, tmp_path, args):
    project = team_project(tmp_path, CHART.format(args=args))
    code, doc = check(capsys, project)
    assert code == 2
    [error] = doc["configErrors"]
    where = "valueYamlFiles[0]" if "value_yaml_files" in args else "values.mode"
    assert error["path"] == f"kubernetes:helm.sh/v4:Chart 'logship' {where}"
    assert error["message"].startswith(f"cannot read ./values-prod.yaml ({project / 'values-prod.yaml'}): no such file")
    assert "provider/pkg/helm/values.go@v4.32.0" in error["message"] and "a real `pulumi preview` fails" in error["message"]
    assert "not a local file or string asset" not in error["message"]
    assert error["location"] == {"file": "__main__.py", "line": 11, "column": 1}
    main(["check", "--project-dir", str(project), "--stack", "ci"])
    text = "".join(capsys.readouterr())
    assert f"__main__.py:11:1: kubernetes:helm.sh/v4:Chart 'logship' {where}: cannot read ./values-prod.yaml" in text


def test_a_missing_values_file_beside_a_similar_one_names_it(capsys, tmp_path):
    project = team_project(tmp_path, CHART.format(args='value_yaml_files=[pulumi.FileAsset("./values-prd.yaml")]'))
    (project / "values-prod.yaml").write_text("mode: daemonset\n")
    code, doc = check(capsys, project)
    [error] = doc["configErrors"]
    assert code == 2 and "cannot read ./values-prd.yaml" in error["message"]
    assert "did you mean './values-prod.yaml'? The provider reads" in error["message"]  # one sentence each, no '?.'


def test_an_archive_in_a_charts_values_is_refused_as_the_provider_refuses_it(capsys, tmp_path):
    project = team_project(tmp_path, CHART.format(args='values={"mode": pulumi.FileArchive("./charts")}'))
    code, doc = check(capsys, project)
    [error] = doc["configErrors"]
    assert code == 2 and error["path"] == "kubernetes:helm.sh/v4:Chart 'logship' values.mode"
    assert "Archive values are not supported as a Helm value" in error["message"]


def test_a_remote_values_asset_is_not_judged_and_says_it_is_not_fetched(capsys, tmp_path):
    project = team_project(tmp_path, CHART.format(
        args='value_yaml_files=[pulumi.RemoteAsset("https://example.com/values.yaml")]'))
    code, doc = check(capsys, project)
    [item] = doc["notJudged"]
    assert "valueYamlFiles[0] is a RemoteAsset (https://example.com/values.yaml)" in item["reason"]
    assert code == 0  # advisory


# --- gpupool plan: the program runs in-process, its assets are the SDK's objects --------------------------------


def plan_project(tmp_path: Path, chart_line: str) -> Path:
    """The shipped project and stack dev, its program plus ``chart_line`` and the logship chart."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    (tmp_path / "__main__.py").write_text(textwrap.dedent("""\
        import pulumi
        import pulumi_kubernetes as k8s
        from gpu_node_pool.component.program import main

        main()
        """) + chart_line + "\n")
    _chart(tmp_path)
    return tmp_path


def plan(capsys, project: Path) -> tuple[int, dict]:
    return run(capsys, "plan", "--project-dir", str(project), "--stack", "dev")


@needs_helm
@pytest.mark.parametrize("args", ['value_yaml_files=[pulumi.FileAsset("./values-prod.yaml")]',
                                  'value_yaml_files=[pulumi.StringAsset("mode: daemonset")]',
                                  'values={"mode": pulumi.FileAsset("./mode.txt")}'])
def test_plan_reads_the_same_value_assets_in_process(capsys, tmp_path, args):
    project = plan_project(tmp_path, CHART.format(args=args))
    (project / "values-prod.yaml").write_text("mode: daemonset\n")
    (project / "mode.txt").write_text("daemonset")
    code, doc = plan(capsys, project)
    assert not [n for n in doc["notJudged"] if "logship" in n["resource"]]
    assert LOGSHIP in mandatory(doc) and code == 1


def test_plan_refuses_a_values_file_that_is_not_there(capsys, tmp_path):
    project = plan_project(tmp_path, CHART.format(args='value_yaml_files=[pulumi.FileAsset("./values-prod.yaml")]'))
    code, doc = plan(capsys, project)
    [error] = doc["configErrors"]
    assert code == 2 and error["path"] == "kubernetes:helm.sh/v4:Chart 'logship' valueYamlFiles[0]"
    assert error["message"].startswith(f"cannot read ./values-prod.yaml ({project / 'values-prod.yaml'})")
    assert error["location"]["line"] == 6


# --- the renderer, given either form of an asset ------------------------------------------------------------------


@pytest.mark.parametrize("form", ["object", "wire"])
def test_the_renderer_refuses_a_missing_values_file_in_either_asset_form_without_a_helm(tmp_path, form):
    import pulumi

    from gpu_node_pool.sdk.record import wire_form

    _chart(tmp_path)
    asset = pulumi.FileAsset("./values-prod.yaml")
    inputs = {"chart": "./charts/logship", "valueYamlFiles": [asset if form == "object" else wire_form(asset)]}
    with HelmRenderer(tmp_path / "no-helm-here", base_dir=tmp_path) as renderer:
        result = renderer.render("kubernetes:helm.sh/v4:Chart", "logship", inputs)
    assert isinstance(result, RefusedInput) and result.input == "valueYamlFiles[0]"
    with HelmRenderer(tmp_path / "no-helm-here", base_dir=tmp_path) as renderer:
        result = renderer.render("kubernetes:helm.sh/v4:Chart", "logship", {**inputs, "valueYamlFiles": ["values.yaml"]})
    assert isinstance(result, NotJudged) and "valueYamlFiles[0] is no Pulumi asset (str 'values.yaml')" in result.reason
