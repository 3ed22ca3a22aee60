"""eks-managed ``kubelet.config``: values of the right type that the kubelet still refuses when it starts
(a resource it cannot reserve, an eviction signal or threshold it cannot parse, a rule of its config
validation) are refused at their path with the rule's source and a fix that itself validates.

Sources: kubernetes/kubernetes cmd/kubelet/app/server.go (parseResourceList),
pkg/kubelet/eviction/helpers.go (ParseThresholdConfig), pkg/kubelet/eviction/api/types.go (signals),
pkg/kubelet/apis/config/validation/validation.go, pkg/kubelet/cm/cpumanager/cpu_manager.go and
pkg/kubelet/cm/memorymanager/memory_manager.go (NewManager), each cited by commit in
gpu_node_pool/backends/_shared/kubelet_config_rules.py.
"""

from __future__ import annotations

import pytest
from builders import config_issues
from conftest import ROOT, base

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import stack_warnings, validate_stack_config

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def validate(capsys, temp_project, config: str) -> tuple[int, str]:
    """``gpupool validate`` of the dev stack with ``kubelet: {config: <config>}`` added to its first pool."""
    assert DEV.count("      capacityType: ON_DEMAND\n") == 1
    line = f"      kubelet: {{config: {config}}}\n"
    text = DEV.replace("      capacityType: ON_DEMAND\n", f"      capacityType: ON_DEMAND\n{line}")
    code = main(["validate", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    return code, out.out + out.err


def issue(config: dict) -> tuple[str, str]:
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"config": config}
    (found,) = config_issues(cfg)
    return found


def warnings(config: dict) -> list[tuple[str, str]]:
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"config": config}
    return [(w.path, w.message) for w in stack_warnings(validate_stack_config(cfg)) if w.path.startswith("pools[0].kubelet")]


@pytest.mark.parametrize("field", ["systemReserved", "kubeReserved"])
@pytest.mark.parametrize("gpu", ["1", "'1'"])
def test_a_resource_the_kubelet_cannot_reserve_is_refused_at_its_key_quoted_or_not(capsys, temp_project, field, gpu):
    code, out = validate(capsys, temp_project, f"{{{field}: {{cpu: 500m, memory: 1Gi, gpu: {gpu}}}}}")
    assert code == 2, out
    assert f"pools[0].kubelet.config.{field}.gpu: the kubelet reserves only cpu, memory, ephemeral-storage and pid" in out
    assert "cmd/kubelet/app/server.go@" in out and "parseResourceList" in out and "would never join" in out, out
    assert "quote it" not in out and out.rstrip().endswith(f"remove gpu from {field}"), out
    # following the fix validates
    code, out = validate(capsys, temp_project, f"{{{field}: {{cpu: 500m, memory: 1Gi}}}}")
    assert code == 0, out


def test_a_reservation_in_another_case_gets_the_right_spelling_and_a_negative_one_is_refused():
    where, message = issue({"systemReserved": {"Memory": "1Gi"}})
    assert where == "pools[0].kubelet.config.systemReserved.Memory" and message.endswith("did you mean memory?"), message
    where, message = issue({"kubeReserved": {"memory": "-1Gi"}})
    assert where == "pools[0].kubelet.config.kubeReserved.memory" and "cannot be negative" in message, message


def test_reserved_memory_takes_only_memory_and_hugepages_never_zero_nor_twice():
    where, message = issue({"reservedMemory": [{"numaNode": 0, "limits": {"cpu": "1"}}]})
    assert where == "pools[0].kubelet.config.reservedMemory[0].limits.cpu", where
    assert "only memory and hugepages-<size>" in message and "validation_reserved_memory.go@" in message, message
    where, message = issue({"reservedMemory": [{"numaNode": 0, "limits": {"memory": "0"}}]})
    assert "may not be zero" in message, message
    where, message = issue({"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}},
                                               {"numaNode": 0, "limits": {"memory": "1Gi"}}]})
    assert where == "pools[0].kubelet.config.reservedMemory[1].limits.memory" and "already reserves memory" in message
    assert validate_stack_config(base() | {"pools": [base()["pools"][0] | {"kubelet": {"config": {"reservedMemory": [
        {"numaNode": 0, "limits": {"memory": "1Gi", "hugepages-2Mi": "64Mi"}}, {"numaNode": 1, "limits": {"memory": "1Gi"}}]}}}]})


def test_an_eviction_threshold_that_is_no_quantity_is_refused_and_the_suggested_fixes_validate(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{evictionHard: {memory.available: 500MB}}")
    assert code == 2, out
    assert "pools[0].kubelet.config.evictionHard['memory.available']: '500MB' is neither a percentage nor a Kubernetes quantity" in out
    assert "pkg/kubelet/eviction/helpers.go@" in out and "ParseThresholdConfig" in out, out
    assert out.rstrip().endswith("e.g. memory.available: 500Mi or memory.available: 10%"), out
    for fixed in ("500Mi", "10%"):
        code, out = validate(capsys, temp_project, f"{{evictionHard: {{memory.available: '{fixed}'}}}}")
        assert code == 0, out


def test_a_misspelt_eviction_signal_is_refused_in_every_eviction_map_with_the_right_one(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{evictionHard: {memory.availible: 500Mi}}")
    assert code == 2, out
    assert "evictionHard['memory.availible']: 'memory.availible' is no eviction signal the kubelet knows" in out, out
    assert "pkg/kubelet/eviction/api/types.go@" in out and out.rstrip().endswith("did you mean memory.available?"), out
    for field in ("evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim"):
        where, message = issue({field: {"nodefs.availble": "1Gi"}})
        assert where == f"pools[0].kubelet.config.{field}['nodefs.availble']" and "did you mean nodefs.available?" in message


@pytest.mark.parametrize(("config", "path", "says"), [
    ({"evictionHard": {"memory.available": "150%"}}, "evictionHard['memory.available']", "within 0% and 100%"),
    ({"evictionHard": {"memory.available": "-5%"}}, "evictionHard['memory.available']", "within 0% and 100%"),
    ({"evictionHard": {"memory.available": "ten%"}}, "evictionHard['memory.available']", "is no number"),
    ({"evictionHard": {"memory.available": "0"}}, "evictionHard['memory.available']", "must be positive"),
    ({"evictionMinimumReclaim": {"memory.available": "0%"}}, "evictionMinimumReclaim['memory.available']", "must be positive"),
    ({"evictionMinimumReclaim": {"memory.available": "-1Mi"}}, "evictionMinimumReclaim['memory.available']", "cannot be negative"),
    ({"evictionSoft": {"memory.available": "1Gi"}, "evictionSoftGracePeriod": {"memory.available": "90"}},
     "evictionSoftGracePeriod['memory.available']", "has no unit"),
    ({"evictionSoft": {"memory.available": "1Gi"}, "evictionSoftGracePeriod": {"memory.available": "-1s"}},
     "evictionSoftGracePeriod['memory.available']", "must not be negative"),
    ({"evictionSoft": {"memory.available": "1Gi"}}, "evictionSoft['memory.available']", "has no grace period"),
])
def test_eviction_values_parse_threshold_config_refuses_are_refused_at_their_signal(config, path, says):
    where, message = issue(config)
    assert where == f"pools[0].kubelet.config.{path}" and says in message and "ParseThresholdConfig" in message, (where, message)


def test_eviction_values_the_kubelet_takes_are_accepted():
    config = {"evictionHard": {"memory.available": "500Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5.5%",
                               "imagefs.available": "15%", "pid.available": "100"},
              "evictionSoft": {"memory.available": "1Gi"}, "evictionSoftGracePeriod": {"memory.available": "1m30s"},
              "evictionMinimumReclaim": {"memory.available": "0", "nodefs.available": "1%"}}
    assert warnings(config) == []


def test_a_threshold_the_kubelet_ignores_and_swap_are_warnings_not_errors():
    (warning,) = warnings({"evictionHard": {"memory.available": "0%"}})
    assert "ignores a threshold of 0%" in warning[1], warning
    (warning,) = warnings({"evictionHard": {"swap.available": "1Gi"}})
    assert warning[0] == "pools[0].kubelet.config.evictionHard['swap.available']" and "not judged" in warning[1], warning


def test_critical_pods_shutdown_longer_than_the_whole_shutdown_is_refused_and_the_fix_validates(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{shutdownGracePeriodCriticalPods: 60s, shutdownGracePeriod: 30s}")
    assert code == 2, out
    assert "pools[0].kubelet.config.shutdownGracePeriodCriticalPods: '60s' is longer than shutdownGracePeriod '30s'" in out
    assert "pkg/kubelet/apis/config/validation/validation.go@" in out and "would never join" in out, out
    assert out.rstrip().endswith("e.g. shutdownGracePeriod: 60s, shutdownGracePeriodCriticalPods: 30s"), out
    code, out = validate(capsys, temp_project, "{shutdownGracePeriod: 60s, shutdownGracePeriodCriticalPods: 30s}")
    assert code == 0, out


@pytest.mark.parametrize(("field", "wrong", "right"), [
    ("cpuManagerPolicy", "Static", "static"), ("memoryManagerPolicy", "static", "Static"),
    ("topologyManagerPolicy", "single-numa", "single-numa-node"), ("topologyManagerScope", "Pod", "pod"),
    ("hairpinMode", "hairpin_veth", "hairpin-veth"),
])
def test_a_policy_in_the_wrong_case_or_spelling_is_refused_with_the_right_one_which_validates(capsys, temp_project,
                                                                                           field, wrong, right):
    code, out = validate(capsys, temp_project, f"{{{field}: {wrong}}}")
    assert code == 2, out
    assert f"pools[0].kubelet.config.{field}: '{wrong}' is not a {field} the kubelet takes" in out, out
    assert out.rstrip().endswith(f"did you mean {right}?"), out
    extra = ", systemReserved: {memory: 1Gi}, reservedMemory: [{numaNode: 0, limits: {memory: 1Gi}}]" if right == "Static" else ""
    code, out = validate(capsys, temp_project, f"{{{field}: {right}{extra}}}")
    assert code == 0, out


@pytest.mark.parametrize(("config", "path", "says"), [
    ({"containerLogMaxFiles": 1}, "containerLogMaxFiles", "2 or more"),
    ({"imageGCHighThresholdPercent": 101}, "imageGCHighThresholdPercent", "0..100"),
    ({"imageGCHighThresholdPercent": 80, "imageGCLowThresholdPercent": 85}, "imageGCLowThresholdPercent",
     "must be less than imageGCHighThresholdPercent 80"),
    ({"maxPods": -1}, "maxPods", "0 or more"),
    ({"readOnlyPort": 70000}, "readOnlyPort", "is not a port"),
    ({"memoryThrottlingFactor": 1.5}, "memoryThrottlingFactor", "at most 1.0"),
    ({"shutdownGracePeriod": "500ms"}, "shutdownGracePeriod", "neither zero nor at least 1s"),
    ({"shutdownGracePeriod": "30s", "shutdownGracePeriodByPodPriority": [{"priority": 0, "shutdownGracePeriodSeconds": 30}]},
     "shutdownGracePeriodByPodPriority", "cannot be given with shutdownGracePeriod"),
    ({"serializeImagePulls": True, "maxParallelImagePulls": 5}, "maxParallelImagePulls", "serializeImagePulls: true"),
    ({"memorySwap": {"swapBehavior": "Limited"}}, "memorySwap.swapBehavior", "did you mean LimitedSwap?"),
])
def test_rules_of_the_kubelet_config_validation_are_refused_at_their_field(config, path, says):
    where, message = issue(config)
    assert where == f"pools[0].kubelet.config.{path}" and says in message and "validation.go@" in message, (where, message)


def test_a_fix_for_a_memory_quantity_suggests_mebibytes_and_a_milli_memory_is_a_warning(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{systemReserved: {memory: 1 Gi}}")
    assert code == 2, out
    assert out.rstrip().endswith("write a quantity, e.g. memory: 500Mi") and "memory: 500m" not in out, out
    code, out = validate(capsys, temp_project, "{systemReserved: {memory: 500Mi}}")
    assert code == 0 and "warning" not in out, out
    (warning,) = warnings({"systemReserved": {"memory": "500m"}})
    assert "'m' is milli" in warning[1] and warning[1].endswith("did you mean 500Mi?"), warning
    where, message = issue({"systemReserved": {"cpu": "half"}})
    assert message.endswith("write a quantity, e.g. cpu: 500m"), message


def test_flags_under_config_is_a_warning_that_says_where_they_belong(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{maxPods: 110, flags: ['--v=2']}")
    assert code == 0, out
    assert "warning: " in out and "pools[0].kubelet.config.flags: flags belongs under kubelet, not kubelet.config" in out, out
    assert "flags: [--v=2]" in out and "these flags are not applied" in out, out
    text = DEV.replace("      capacityType: ON_DEMAND\n",
                       "      capacityType: ON_DEMAND\n      kubelet: {config: {maxPods: 110}, flags: ['--v=2']}\n")
    code = main(["validate", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    assert code == 0 and "warning" not in out.out + out.err, out
