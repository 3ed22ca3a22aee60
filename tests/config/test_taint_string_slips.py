"""Two slips in a taint string get one error that says what happened: a second ':' (the kubelet's parseTaint refuses
it: a key or value holds no ':'), and spaces around ':' (YAML then reads the item as a mapping)."""

from __future__ import annotations

import pytest
from conftest import ROOT, base, plan_stack_text

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.k8s.taints import Taint, TaintError

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
GPU = "- nvidia.com/gpu=present:NoSchedule"


@pytest.mark.parametrize("text", ["nvidia.com/gpu=present:NoSchedule:extra", "a:b:NoSchedule", "k=v:w:NoExecute"])
def test_a_second_colon_is_one_error_naming_the_kubelets_rule(text):
    with pytest.raises(TaintError) as caught:
        Taint.parse(text)
    assert f"{text!r} has more than one ':'" in str(caught.value) and "pkg/util/taints/taints.go" in str(caught.value)
    cfg = base()
    cfg["pools"][0]["taints"] = [text]
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    [issue] = refused.value.issues
    assert issue.path == "pools[0].taints[0]" and "more than one ':'" in issue.message
    assert "write e.g." not in issue.message  # no made-up value suggested


def test_spaces_around_the_colon_are_said_as_yaml_reads_them_with_the_string_meant(capsys, temp_project):
    assert GPU in DEV
    code, out = plan_stack_text(capsys, temp_project, DEV.replace(GPU, "- nvidia.com/gpu = present : NoSchedule"))
    assert code == 2
    assert "pools[0].taints[0]: 'nvidia.com/gpu = present': 'NoSchedule' is a mapping to YAML" in out
    assert "e.g. nvidia.com/gpu=present:NoSchedule" in out
    assert "required key is missing" not in out and "unknown key" not in out


def test_a_taint_object_is_still_read_as_an_object():
    cfg = base()
    cfg["pools"][0]["taints"] = [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    assert [str(t) for t in validate_stack_config(cfg).pools[0].taint_list] == ["nvidia.com/gpu:NoSchedule"]
    cfg["pools"][0]["taints"] = [{"key": "nvidia.com/gpu"}]
    with pytest.raises(ConfigError) as refused:
        validate_stack_config(cfg)
    assert any("effect" in i.path and "required key is missing" in i.message for i in refused.value.issues)


def test_key_colon_effect_with_a_space_is_said_as_yaml_reads_it(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, DEV.replace(GPU, "- nvidia.com/gpu: NoSchedule"))
    assert code == 2
    assert "pools[0].taints[0]: 'nvidia.com/gpu': 'NoSchedule' is a mapping to YAML" in out
    assert "e.g. nvidia.com/gpu:NoSchedule" in out and "required key is missing" not in out
