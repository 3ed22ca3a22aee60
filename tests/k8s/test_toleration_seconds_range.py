"""``tolerationSeconds`` past int64 is refused as the API server refuses it (``Toleration.TolerationSeconds`` is
``*int64``; its JSON decoder fails on a bigger number), by both readers of a toleration, and never judged as a
toleration that holds for that long: through a manifest, a stack's own toleration, and a Helm values file, whose
big number Helm writes as ``1e+26``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from programs import daemonset_yaml, team_program, team_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.integers import INT64_MAX, INT64_MIN
from gpu_node_pool.k8s.refusals import toleration_refusal
from gpu_node_pool.k8s.taints import TaintError, Toleration
from gpu_node_pool.plan.expand import locate_helm

needs_helm = pytest.mark.skipif(locate_helm() is None, reason="no helm on PATH or beside this Python (make setup installs it)")


def tol(seconds: object) -> dict:
    return {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}


@pytest.mark.parametrize("seconds", [INT64_MAX + 1, INT64_MIN - 1, 10**26])
def test_a_pod_specs_toleration_past_int64_is_refused_with_the_type_and_the_fix(seconds):
    message = toleration_refusal(tol(seconds), "tolerations[0]")
    assert message is not None
    assert message.startswith(f"tolerations[0].tolerationSeconds {seconds}: must fit an int64 ")
    assert f"({INT64_MIN} to {INT64_MAX} seconds)" in message
    assert "Toleration.TolerationSeconds is *int64, k8s.io/api core/v1/types.go" in message
    assert "the API server refuses this pod spec" in message
    assert "fix: write at most 9223372036854775807 seconds" in message and "drop tolerationSeconds" in message


@pytest.mark.parametrize("seconds", [INT64_MAX, INT64_MIN, 0, 300, 300.0])
def test_every_int64_is_still_accepted(seconds):
    assert toleration_refusal(tol(seconds)) is None
    assert Toleration("nvidia.com/gpu", "Exists", None, "NoExecute", seconds).toleration_seconds == int(seconds)


def test_the_range_is_refused_before_the_effect_it_would_also_need():
    # the decoder fails first: the effect rule is never reached
    message = toleration_refusal({**tol(INT64_MAX + 1), "effect": "NoSchedule"})
    assert "must fit an int64" in message and "needs the effect" not in message


def test_a_toleration_built_past_int64_raises_the_same_rule():
    with pytest.raises(TaintError, match=r"tolerationSeconds 9223372036854775808: must fit an int64") as err:
        Toleration("nvidia.com/gpu", "Exists", None, "NoExecute", INT64_MAX + 1)
    assert err.value.refusal is not None and err.value.refusal.field == "tolerationSeconds"


def test_a_float_past_int64_in_exponent_form_says_how_helm_makes_one():
    message = toleration_refusal(tol(1e26))
    assert message.startswith("toleration.tolerationSeconds 1e+26: must fit an int64")
    assert "Helm holds every number of a chart's values as a float64" in message
    assert "helm/helm pkg/engine/funcs.go@v4.1.4, toYAML" in message
    assert "100000000000000000000000000 in a values file reaches the manifest as 1e+26" in message
    # a float below 1e21 is written out in digits by Helm: nothing about exponent form
    assert "Helm" not in toleration_refusal(tol(9.3e18))


def test_an_exponent_string_is_said_to_be_refused_quoted_or_not():
    message = toleration_refusal(tol("1e+26"))
    assert message.startswith("toleration.tolerationSeconds '1e+26' is read here as a string, but written unquoted")
    assert "the number 1e+26 to Kubernetes' YAML readers" in message and "either way refused: must fit an int64" in message
    assert "Helm holds every number" in message
    # an exponent string that fits stays a string refusal (unquoted it would be a valid number)
    assert toleration_refusal(tol("3e2")).startswith("toleration.tolerationSeconds is '3e2' (a string)")




def daemonset(tolerations: str) -> str:
    return daemonset_yaml(f" {tolerations}", namespace="logging", app="a", container="a", image="example.com/a:1")


def project(tmp_path: Path, line: str) -> Path:
    return team_project(tmp_path, team_program(line, taint="nvidia.com/gpu=present:NoExecute"))


def not_judged(capsys, root: Path) -> list[dict]:
    main(["check", "--project-dir", str(root), "--stack", "ci", "--json"])
    return json.loads(capsys.readouterr().out)["notJudged"]


def test_check_refuses_a_manifests_toleration_past_int64_instead_of_judging_it_evicted_then(capsys, tmp_path):
    root = project(tmp_path, 'k8s.yaml.v2.ConfigFile("ds", file="ds.yaml")')
    toleration = "[{key: nvidia.com/gpu, operator: Exists, effect: NoExecute, tolerationSeconds: 9223372036854775808}]"
    (root / "ds.yaml").write_text(daemonset(toleration))
    [item] = [i for i in not_judged(capsys, root) if "logging/agent" in i["resource"]]
    assert "tolerations[0].tolerationSeconds 9223372036854775808: must fit an int64" in item["reason"]
    assert "then evicted" not in json.dumps(item)


@needs_helm
def test_check_says_what_helm_makes_of_a_big_number_in_a_values_file(capsys, tmp_path):
    root = project(tmp_path, 'k8s.helm.v4.Chart("logship", chart="./chart", namespace="logging", '
                             'value_yaml_files=[pulumi.FileAsset("values.yaml")])')
    (root / "chart" / "templates").mkdir(parents=True)
    (root / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: logship\nversion: 0.1.0\n")
    (root / "chart" / "templates" / "ds.yaml").write_text(
        daemonset("{{- toYaml .Values.tolerations | nindent 8 }}"))
    (root / "values.yaml").write_text("tolerations:\n- {key: nvidia.com/gpu, operator: Exists, effect: NoExecute, "
                                      "tolerationSeconds: 100000000000000000000000000}\n")
    [item] = [i for i in not_judged(capsys, root) if "logging/agent" in i["resource"]]
    # Helm writes the number as 1e+26, which Go's YAML readers, and so this product, read as a number (the SDK hands a
    # whole float to the policy as an int): refused as past int64, not read as a string
    assert "tolerationSeconds 100000000000000004764729344: must fit an int64" in item["reason"]
    assert "then evicted" not in item["reason"]
    assert "(a string); it must be an integer" not in item["reason"]
