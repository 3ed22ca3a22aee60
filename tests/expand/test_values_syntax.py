"""A values file the provider cannot read as a map of values (a tab indenting a line, an unclosed bracket, a list
instead of a map) fails a real preview: the provider reads each file with sigs.k8s.io/yaml into a map when it
renders the chart (pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0, ValueOpts.MergeValues). So it is
refused before helm sees it, at the user's file, line and column, never at helm's temporary copy."""

from __future__ import annotations

import pytest
from test_chart_value_assets import CHART, check, team_project

from gpu_node_pool.config.yaml_errors import MANIFEST, yaml_syntax_problem
from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.helm_values import values_documents
from gpu_node_pool.expand.result import RefusedInput

CHART_TYPE = "kubernetes:helm.sh/v4:Chart"
ASSET = {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17"}  # Pulumi's asset signature
TABS = "mode: daemonset\ntolerations:\n\t- key: nvidia.com/gpu\n\t  operator: Exists\n"


def file_inputs(tmp_path, text: str, name: str = "logship-values.yaml") -> dict:
    (tmp_path / name).write_text(text)
    return {"valueYamlFiles": [{**ASSET, "path": name}]}


def test_a_tab_indented_values_file_is_refused_at_the_users_file_line_and_column(tmp_path):
    helm = tmp_path / "helm"
    helm.write_text("#!/bin/sh\nexit 3\n")  # never reached: the file is refused before helm runs
    helm.chmod(0o755)
    (tmp_path / "chart").mkdir()
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    with HelmRenderer(helm, base_dir=tmp_path) as renderer:
        result = renderer.render(CHART_TYPE, "logship", {"chart": "./chart", **file_inputs(tmp_path, TABS)})
    assert isinstance(result, RefusedInput) and result.input == "valueYamlFiles[0]", result
    assert result.message.startswith("logship-values.yaml:3:1: is not valid YAML: found character that cannot "
                                     "start any token")
    assert "the character there is a tab: YAML indents with spaces only" in result.message
    assert "fix the syntax there" in result.message
    assert "provider/pkg/helm/values.go@v4.32.0" in result.message and "a real `pulumi preview` fails" in result.message
    assert renderer.runs == 0


def test_the_callers_wording_names_the_problem_as_the_stack_file_reader_does(tmp_path):
    said: list[str] = []

    def manifest_words(err: Exception, name: str) -> str:
        where, message = yaml_syntax_problem(err, name, MANIFEST)  # type: ignore[arg-type]
        said.append(f"{where}: {message}")
        return said[-1]

    problem = values_documents(CHART_TYPE, file_inputs(tmp_path, "a: [1, 2\nb: 3\n"), tmp_path, [], manifest_words)
    assert problem.refused and problem.input == "valueYamlFiles[0]"
    [words] = said
    assert words.startswith("logship-values.yaml:2:2: is not valid YAML: ") and words.endswith("; fix the syntax there")
    assert problem.reason.startswith(words + ". The provider reads each values file as a YAML map of values")


@pytest.mark.parametrize(("text", "kind", "go"), [("- a\n- b\n", "list", "array"), ("just text\n", "string", "string")])
def test_a_values_file_that_holds_no_map_is_refused(tmp_path, text, kind, go):
    problem = values_documents(CHART_TYPE, file_inputs(tmp_path, text), tmp_path, [])
    assert problem.refused
    assert problem.reason.startswith(f"logship-values.yaml: holds a YAML {kind} where a map of values")
    assert f'"cannot unmarshal {go} into Go value of type map[string]interface {{}}"' in problem.reason


@pytest.mark.parametrize("text", [
    "", "~\n", "a:\tb\n", "a: &x 1\nb: &x 2\n",  # Go's YAML readers take these: a tab after a colon, a repeated anchor
    "a: !custom b\n",  # an unknown tag: left to helm
    "a: 1\n---\nb: [\n",  # a later document the provider never reads
])
def test_what_the_provider_reads_is_not_refused(tmp_path, text):
    assert isinstance(values_documents(CHART_TYPE, file_inputs(tmp_path, text), tmp_path, []), list)


def test_a_string_asset_is_named_by_its_input(tmp_path):
    problem = values_documents(CHART_TYPE, {"valueYamlFiles": [{**ASSET, "text": "a: 1\n"}, {**ASSET, "text": "x: 'y\n"}]},
                               tmp_path, [])
    assert problem.input == "valueYamlFiles[1]" and problem.reason.startswith("valueYamlFiles[1]:2:1: is not valid YAML")


def test_check_exits_2_naming_the_values_file_not_helms_copy(capsys, tmp_path):
    project = team_project(tmp_path, CHART.format(args='value_yaml_files=[pulumi.FileAsset("logship-values.yaml")]'))
    (project / "logship-values.yaml").write_text(TABS)
    code, doc = check(capsys, project)
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"].endswith("valueYamlFiles[0]")
    assert error["message"].startswith("logship-values.yaml:3:1: is not valid YAML")
    assert "values-0.yaml" not in error["message"] and "gpupool-helm" not in error["message"]
