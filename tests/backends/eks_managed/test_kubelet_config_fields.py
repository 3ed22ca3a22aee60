"""eks-managed ``kubelet.config``: each value has the JSON type of its KubeletConfiguration field, or the
stack is refused at the field's path with the fix; an unknown key is a warning with the nearest field name.

A type the kubelet cannot decode stops the kubelet at start-up, so the node would never join
(kubernetes/kubernetes staging/src/k8s.io/kubelet/config/v1beta1/types.go@v1.34.0,
pkg/kubelet/kubeletconfig/util/codec); an unknown key is skipped by the kubelet.
"""

from __future__ import annotations

import pytest
from builders import config_issues
from conftest import ROOT, base

from gpu_node_pool.backends._shared.kubelet_config_fields import duration_problem
from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import stack_warnings, validate_stack_config

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def with_kubelet_config(config: dict) -> dict:
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"config": config}
    return cfg


def kubelet_warnings(config: dict) -> list[tuple[str, str]]:
    stack = validate_stack_config(with_kubelet_config(config))
    return [(w.path, w.message) for w in stack_warnings(stack) if w.path.startswith("pools[0].kubelet")]


def validate(capsys, temp_project, line: str) -> tuple[int, str]:
    """``gpupool validate`` of the dev stack with ``line`` added to its first pool."""
    assert DEV.count("      capacityType: ON_DEMAND\n") == 1
    text = DEV.replace("      capacityType: ON_DEMAND\n", f"      capacityType: ON_DEMAND\n      {line}\n")
    code = main(["validate", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_number_written_as_text_is_refused_at_its_field_with_the_fix_and_the_fix_validates(capsys, temp_project):
    code, out = validate(capsys, temp_project, "kubelet: {config: {maxPods: '110'}}")
    assert code == 2, out
    assert "pools[0].kubelet.config.maxPods: the text '110' is not what the kubelet takes for maxPods: a whole number (int32)" in out
    assert "types.go@v1.34.0" in out and "would never join" in out and out.rstrip().endswith("write maxPods: 110 (a number, without quotes)")
    code, out = validate(capsys, temp_project, "kubelet: {config: {maxPods: 110}}")
    assert code == 0, out


@pytest.mark.parametrize(("config", "path", "takes", "fix"), [
    ({"systemReserved": "2Gi"}, "systemReserved", "a map of names to Kubernetes quantities", "write a map, e.g. systemReserved: {memory: 2Gi"),
    ({"evictionHard": ["memory.available<500Mi"]}, "evictionHard", "a map of names to text values", "evictionHard: {memory.available: 500Mi}"),
    ({"cpuManagerPolicy": 1}, "cpuManagerPolicy", ": text (", "quote it: cpuManagerPolicy: '1'"),
    ({"cpuManagerPolicyOptions": {"full-pcpus-only": True}}, "cpuManagerPolicyOptions.full-pcpus-only", ": text (",
     "quote it: full-pcpus-only: 'true'"),
    ({"featureGates": {"SomeFeature": "true"}}, "featureGates.SomeFeature", "true or false", "write SomeFeature: true (without quotes)"),
    ({"clusterDNS": "10.100.0.10"}, "clusterDNS", "a list of text values", "write a list: clusterDNS: ['10.100.0.10']"),
    ({"systemReserved": {"cpu": 1}}, "systemReserved.cpu", "written as text", "quote it: cpu: '1'"),
    ({"systemReserved": {"memory": "2 GB"}}, "systemReserved.memory", "not a Kubernetes quantity", "write a quantity"),
    ({"serializeImagePulls": "false"}, "serializeImagePulls", "true or false", "write serializeImagePulls: false"),
    ({"memoryThrottlingFactor": "0.9"}, "memoryThrottlingFactor", "a number", "write memoryThrottlingFactor: 0.9"),
    ({"authentication": {"webhook": {"enabled": "yes"}}}, "authentication.webhook.enabled", "true or false",
     "write enabled: true or enabled: false"),
    ({"reservedMemory": [{"numaNode": "0", "limits": {"memory": "1Gi"}}]}, "reservedMemory[0].numaNode", "int32", "write numaNode: 0"),
    ({"podPidsLimit": 2**63}, "podPidsLimit", "beyond the kubelet's int64", "write a whole number within that range, e.g. podPidsLimit: 10"),
    ({"apiVersion": "kubelet.config.k8s.io/v1"}, "apiVersion", "not kubelet.config.k8s.io/v1beta1", "or leave it out"),
    ({"kind": 1}, "kind", "the number 1", "write kind: KubeletConfiguration, or leave it out"),
    ({"reservedMemory": [{"numaNode": 0, "limits": {"memory": True}}]}, "reservedMemory[0].limits.memory",
     "Kubernetes quantity", "write a quantity, e.g. memory: 500Mi"),
])
def test_a_value_of_another_type_is_refused_at_its_path_with_what_the_kubelet_takes_and_the_fix(config, path, takes, fix):
    (issue,) = config_issues(with_kubelet_config(config))
    where, message = issue
    assert where == f"pools[0].kubelet.config.{path}", issue
    assert takes in message and fix in message and "so the node would never join" in message, message
    # a reservation is text the kubelet parses when it starts; every other value fails the decoding itself
    assert ("parseResourceList" in message) == (path == "systemReserved.memory"), message


@pytest.mark.parametrize(("value", "problem"), [
    ("30 s", "' s' is no unit"), (30, "the number 30 is not"), ("30", "the number 30 has no unit"),
    ("1d", "'d' is no unit"), (".s", "does not start with a number"), ("", "it is empty"), ("3000000h", "longer than"),
])
def test_a_duration_go_cannot_parse_is_refused_with_the_form_it_takes(value, problem):
    (issue,) = config_issues(with_kubelet_config({"shutdownGracePeriod": value}))
    assert issue[0] == "pools[0].kubelet.config.shutdownGracePeriod" and problem in issue[1], issue
    assert 'write a duration with its unit, such as "90s" or "1m30s" (shutdownGracePeriod: 90s)' in issue[1], issue
    assert "shutdownGracePeriod: 30s" not in issue[1], issue  # a number's unit is not guessed


def test_the_duration_forms_go_parses_are_accepted():
    # golang/go src/time/format.go ParseDuration: a sign, numbers with fractions, several units, "0" alone
    for text in ("0", "-0", "30s", "1m30s", "-1.5h", "+2h45m", "1.s", ".5s", "300ms", "10us", "10µs", "10μs", "1ns"):
        assert duration_problem(text) is None, text
    assert validate_stack_config(with_kubelet_config({"evictionPressureTransitionPeriod": "1m30s",
                                                      "authentication": {"webhook": {"cacheTTL": "2m"}}}))


def test_a_config_of_the_right_types_is_accepted_with_no_warning_and_reaches_the_node_as_written():
    config = {
        "maxPods": 110, "podPidsLimit": 2**40, "systemReserved": {"memory": "2Gi", "cpu": "500m"},
        "kubeReserved": {"ephemeral-storage": "1Gi"}, "evictionHard": {"memory.available": "500Mi", "nodefs.available": "10%"},
        "evictionSoft": {"memory.available": "1Gi"}, "evictionSoftGracePeriod": {"memory.available": "1m30s"},
        "featureGates": {"SomeFeature": True}, "cpuManagerPolicy": "static", "cpuManagerPolicyOptions": {"full-pcpus-only": "true"},
        "topologyManagerPolicy": "single-numa-node", "clusterDNS": ["10.100.0.10"],
        "memoryThrottlingFactor": 0.9, "serializeImagePulls": False, "maxParallelImagePulls": 5,
        "reservedMemory": [{"numaNode": 0, "limits": {"memory": 1073741824}}],
        "shutdownGracePeriodByPodPriority": [{"priority": 0, "shutdownGracePeriodSeconds": 30}],
        "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True, "cacheTTL": "2m"}},
        "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "imageGCHighThresholdPercent": None,
    }
    stack = validate_stack_config(with_kubelet_config(config))
    assert stack.pools[0].kubelet.config == config
    assert kubelet_warnings(config) == []


def test_every_wrong_value_is_named_at_once_each_at_its_own_key():
    issues = dict(config_issues(with_kubelet_config({"maxPods": "110", "cpuManagerPolicy": 1})))
    assert set(issues) == {"pools[0].kubelet.config.maxPods", "pools[0].kubelet.config.cpuManagerPolicy"}, issues
    assert "maxPods: the text '110'" in issues["pools[0].kubelet.config.maxPods"]
    assert "cpuManagerPolicy: the number 1" in issues["pools[0].kubelet.config.cpuManagerPolicy"]


def test_an_unknown_key_is_a_warning_with_the_nearest_field_not_an_error(capsys, temp_project):
    code, out = validate(capsys, temp_project, "kubelet: {config: {maxPod: 110}}")
    assert code == 0, out
    assert "pools[0].kubelet.config.maxPod: KubeletConfiguration has no field 'maxPod'" in out, out
    assert "it skips it, so this setting may do nothing; did you mean maxPods?" in out
    (warning,) = kubelet_warnings({"authentication": {"webhok": {"enabled": True}}})
    assert warning[0] == "pools[0].kubelet.config.authentication.webhok" and "did you mean webhook?" in warning[1]
    (warning,) = kubelet_warnings({"someFutureField": 1})
    assert "kubelet-config.v1beta1" in warning[1] and "a newer kubelet may know it" in warning[1]


def test_what_the_table_does_not_know_is_reported_as_not_judged():
    (warning,) = kubelet_warnings({"logging": {"verbosity": 2}})
    assert warning[0] == "pools[0].kubelet.config.logging" and "not judged" in warning[1] and "component-base" in warning[1]
    assert kubelet_warnings({"logging": {}}) == []


def test_an_int32_field_out_of_range_is_refused_at_its_field_and_an_int64_field_takes_a_wider_number():
    (issue,) = config_issues(with_kubelet_config({"maxPods": 2**31}))
    assert issue[0] == "pools[0].kubelet.config.maxPods", issue
    assert f"{2**31} is beyond the kubelet's int32 (-2147483648..2147483647)" in issue[1] and "e.g. maxPods: 10" in issue[1]
    assert validate_stack_config(with_kubelet_config({"maxOpenFiles": 2**40}))


def test_each_value_is_judged_by_its_own_field_and_every_problem_of_the_pool_is_named_together():
    # evictionHard is a map of texts: a big number there needs quotes, it is no int32 field; an unknown
    # key is skipped by the kubelet whatever its value, so only a warning.
    config = {"evictionHard": {"memory.available": 5000000000}, "maxPods": "110", "someUnknown": 99999999999}
    issues = dict(config_issues(with_kubelet_config(config)))
    assert set(issues) == {"pools[0].kubelet.config.evictionHard['memory.available']",
                           "pools[0].kubelet.config.maxPods"}, issues
    message = " ".join(issues.values())
    assert ("evictionHard['memory.available']: the number 5000000000 is not what the kubelet takes for "
            "evictionHard['memory.available']: text") in message, message
    assert "quote it: memory.available: '5000000000'" in message, message
    assert "maxPods: the text '110'" in message and "write maxPods: 110 (a number, without quotes)" in message, message
    assert "int32 fields" not in message and "someUnknown" not in message, message
    # with the two values fixed, the unknown key is a warning and the stack validates
    fixed = {"evictionHard": {"memory.available": "5000000000"}, "maxPods": 110, "someUnknown": 99999999999}
    (warning,) = kubelet_warnings(fixed)
    assert warning[0] == "pools[0].kubelet.config.someUnknown" and "has no field 'someUnknown'" in warning[1], warning


def test_a_control_character_is_named_with_the_other_problems_of_the_pool():
    issues = dict(config_issues(with_kubelet_config({"cpuManagerPolicy": "static\n", "maxPods": "110"})))
    assert "cpuManagerPolicy: 'static\\n' holds a control character" in issues["pools[0].kubelet.config.cpuManagerPolicy"]
    assert "maxPods: the text '110'" in issues["pools[0].kubelet.config.maxPods"], issues
