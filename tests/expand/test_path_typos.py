"""A mistyped chart or manifest path in a team's program, under ``gpupool check``: what a real preview fails on is
an error at the program's line, what Helm would read otherwise stays not judged, and either names the local path
of a similar name that the user most likely meant."""

from __future__ import annotations

from programs import daemonset_yaml
from test_chart_value_assets import check, team_project

MANIFEST = daemonset_yaml()


def test_a_chart_name_without_a_dot_that_looks_like_a_local_chart_says_which_one(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.helm.v4.Chart("logship", chart="charts/logshp", namespace="logging")')
    code, doc = check(capsys, project)
    [item] = doc["notJudged"]
    assert item["reason"].startswith(f"no directory charts/logshp here ({project / 'charts' / 'logshp'}); "
                                     "did you mean charts/logship?")
    # helm/helm pkg/action/install.go@v4.1.4 LocateChart: not a path, not absolute, no leading '.': <repo>/<chart>
    assert "a chart 'logshp' of a Helm repository named 'charts'" in item["reason"]
    assert item["fix"].startswith("write chart='./charts/logship'")
    assert "repositoryOpts.repo" in item["fix"]
    assert code == 0  # not judged offline: advisory, as before; a Helm repository named 'charts' may exist


def test_a_chart_path_with_a_dot_where_nothing_is_names_the_similar_chart_in_its_error(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.helm.v4.Chart("logship", chart="./charts/logshp", namespace="logging")')
    code, doc = check(capsys, project)
    [error] = doc["configErrors"]
    assert code == 2 and "did you mean './charts/logship'?" in error["message"]


def test_a_chart_name_with_nothing_similar_here_keeps_the_repository_advice(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.helm.v4.Chart("nginx", chart="bitnami/nginx", namespace="web")')
    code, doc = check(capsys, project)
    [item] = doc["notJudged"]
    assert "did you mean" not in item["reason"] and "repositoryOpts.repo" in item["fix"]


def test_a_v2_config_group_file_that_is_not_there_is_an_error_at_the_programs_line(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.v2.ConfigGroup("extra", files=["./manifests/agent.yml"])')
    (project / "manifests").mkdir()
    (project / "manifests" / "agent.yaml").write_text(MANIFEST)
    code, doc = check(capsys, project)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml/v2:ConfigGroup 'extra' files[0]"
    assert error["message"].startswith(f"'./manifests/agent.yml' names no file ({project / 'manifests' / 'agent.yml'}); "
                                       "did you mean './manifests/agent.yaml'?")
    assert "provider/pkg/provider/yaml/v2/yaml.go@v4.32.0" in error["message"]
    assert error["location"] == {"file": "__main__.py", "line": 11, "column": 1}
    assert doc["notJudged"] == []


def test_a_v2_config_file_that_is_not_there_is_an_error_at_its_file_input(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.v2.ConfigFile("extra", file="manifests/agent.yaml")')
    code, doc = check(capsys, project)
    [error] = doc["configErrors"]
    assert code == 2 and error["path"] == "kubernetes:yaml/v2:ConfigFile 'extra' file"
    assert "did you mean" not in error["message"]


def test_a_v2_glob_that_matches_nothing_is_not_judged_as_the_provider_creates_nothing_from_it(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.v2.ConfigGroup("extra", files=["./manifests/*.yml"])')
    code, doc = check(capsys, project)
    [item] = doc["notJudged"]
    assert "matches no file" in item["reason"] and "creates nothing from a glob that matches nothing" in item["reason"]
    assert doc["configErrors"] == [] and code == 0


def test_a_v2_config_group_file_that_is_there_is_judged(capsys, tmp_path):
    project = team_project(tmp_path, 'k8s.yaml.v2.ConfigGroup("extra", files=["manifests/agent.yaml"])')
    (project / "manifests").mkdir()
    (project / "manifests" / "agent.yaml").write_text(MANIFEST)
    code, doc = check(capsys, project)
    assert "kubernetes:apps/v1:DaemonSet extra:monitoring/agent" in {
        v["resource"] for v in doc["violations"] if v["enforcement"] == "mandatory"}
    assert code == 1
