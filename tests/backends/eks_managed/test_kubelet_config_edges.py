"""eks-managed ``kubelet.config``: odd shapes reach a clear error, never a crash; a rule between two fields
is judged against the value the kubelet ends up with when the fragment gives one of them; what the kubelet
ignores is not refused; and each fix offered is one that validates.

Sources (cited in gpu_node_pool/backends/_shared/kubelet_config_rules.py): kubernetes/kubernetes
pkg/kubelet/apis/config/v1beta1/defaults.go (SetDefaults_KubeletConfiguration),
pkg/kubelet/apis/config/validation/validation.go, pkg/kubelet/eviction/helpers.go (parseThresholdStatement),
pkg/kubelet/cm/cpumanager/cpu_manager.go (NewManager), kubernetes/utils cpuset/cpuset.go (Parse) and
awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go (defaultKubeletSubConfig).
"""

from __future__ import annotations

import pytest
from builders import config_issues
from conftest import ROOT, base

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import validate_stack_config

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def validate(capsys, temp_project, kubelet: str, stack: str = "mine") -> tuple[int, str]:
    """``gpupool validate`` of the dev stack with ``kubelet: <kubelet>`` added to its first pool."""
    assert DEV.count("      capacityType: ON_DEMAND\n") == 1
    text = DEV.replace("      capacityType: ON_DEMAND\n", f"      capacityType: ON_DEMAND\n      kubelet: {kubelet}\n")
    code = main(["validate", "--stack", stack, "--project-dir", str(temp_project(stack, text))])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("numa", ["[1]", "{a: 1}", "'0'", "true", "1.5"])
def test_a_numa_node_of_another_type_is_refused_by_its_type_not_a_crash(capsys, temp_project, numa):
    code, out = validate(capsys, temp_project,
                         f"{{config: {{reservedMemory: [{{numaNode: {numa}, limits: {{memory: 1Gi}}}}, "
                         f"{{numaNode: {numa}, limits: {{memory: 1Gi}}}}]}}}}")
    assert code == 2, out
    assert "internal error" not in out, out
    assert "reservedMemory[0].numaNode: " in out and "reservedMemory[1].numaNode: " in out, out
    assert "what the kubelet takes for reservedMemory[0].numaNode: a whole number (int32)" in out, out
    assert "already reserves" not in out, out  # no duplicate judged on a value the kubelet cannot decode


def test_a_null_numa_node_is_node_0_for_the_duplicate_rule(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{config: {reservedMemory: [{numaNode: null, limits: {memory: 1Gi}}, "
                                               "{numaNode: 0, limits: {memory: 2Gi}}]}}")
    assert code == 2, out
    assert "pools[0].kubelet.config.reservedMemory[1].limits.memory: reservedMemory[0] already reserves memory on NUMA node 0" in out


ODD = ["null", "{a: 1}", "'text'", "[1]", "1", "true", "1.5", ".nan", "-.inf", "[[1]]", "''", "99999999999999999999999999"]
#: every place kubelet_config_rules reads, with X where an odd value goes
PLACES = [
    "{systemReserved: X}", "{systemReserved: {cpu: X}}", "{kubeReserved: {memory: X}}", "{reservedMemory: X}",
    "{reservedMemory: [X]}", "{reservedMemory: [{numaNode: X, limits: {memory: 1Gi}}]}",
    "{reservedMemory: [{numaNode: 0, limits: X}]}", "{reservedMemory: [{numaNode: 0, limits: {memory: X}}]}",
    "{evictionHard: X}", "{evictionHard: {memory.available: X}}", "{evictionSoft: {memory.available: X}}",
    "{evictionSoftGracePeriod: {memory.available: X}}", "{evictionMinimumReclaim: {memory.available: X}}",
    "{cpuManagerPolicy: X}", "{cpuManagerPolicy: static, kubeReserved: X}", "{cpuManagerPolicy: static, kubeReserved: {cpu: X}}",
    "{memorySwap: X}", "{memorySwap: {swapBehavior: X}}", "{maxPods: X}", "{healthzPort: X}",
    "{imageGCHighThresholdPercent: X}", "{imageGCLowThresholdPercent: X}", "{memoryThrottlingFactor: X}", "{runOnce: X}",
    "{serializeImagePulls: X, maxParallelImagePulls: 5}", "{maxParallelImagePulls: X}", "{shutdownGracePeriod: X}",
    "{shutdownGracePeriodCriticalPods: X}", "{shutdownGracePeriodByPodPriority: X, shutdownGracePeriod: 10s}",
    "{shutdownGracePeriodByPodPriority: [X]}", "{containerLogMonitorInterval: X}", "{reservedSystemCPUs: X}",
    "{reservedSystemCPUs: '0', systemReservedCgroup: X}", "{registerWithTaints: X}", "{registerWithTaints: [X]}", "{flags: X}",
]


@pytest.mark.parametrize("place", PLACES)
def test_an_odd_value_anywhere_the_rules_read_gets_an_answer_not_a_crash(capsys, temp_project, place):
    for odd in ODD:
        code, out = validate(capsys, temp_project, f"{{config: {place.replace('X', odd)}}}")
        assert code in (0, 2) and "internal error" not in out, (odd, out)


@pytest.mark.parametrize("threshold", ["0%", "100%"])
def test_a_soft_threshold_the_kubelet_ignores_needs_no_grace_period_and_only_warns(capsys, temp_project, threshold):
    code, out = validate(capsys, temp_project, f"{{config: {{evictionSoft: {{memory.available: '{threshold}'}}}}}}")
    assert code == 0, out
    assert "grace period" not in out, out
    assert f"the kubelet ignores a threshold of {threshold}" in out, out
    # the control: a threshold it reads still needs one
    code, out = validate(capsys, temp_project, "{config: {evictionSoft: {memory.available: '10%'}}}", "two")
    assert code == 2 and "has no grace period in evictionSoftGracePeriod" in out, out


@pytest.mark.parametrize("value", ["99999999999999999999999999", "'99999999999999999999999999'", "1.0e+10"])
def test_a_whole_number_beyond_the_field_type_is_not_echoed_as_the_fix(capsys, temp_project, value):
    code, out = validate(capsys, temp_project, f"{{config: {{maxPods: {value}}}}}")
    assert code == 2, out
    assert "e.g. maxPods: 10" in out, out
    assert "write maxPods: 1" not in out and "write maxPods: 4" not in out, out


@pytest.mark.parametrize(("value", "fix"), [(110.0, "write maxPods: 110"), ("110", "write maxPods: 110 (a number, without quotes)")])
def test_a_whole_number_within_the_field_type_is_offered_as_written(value, fix):
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"config": {"maxPods": value}}
    ((path, message),) = config_issues(cfg)
    assert path == "pools[0].kubelet.config.maxPods" and message.endswith(fix), message
    cfg["pools"][0]["kubelet"] = {"config": {"maxPods": 110}}
    assert validate_stack_config(cfg)


@pytest.mark.parametrize(("flags", "written"), [
    ("null", "['--name=value']"), ("{a: '--v=2'}", "['--name=value']"), ("'--v=2'", "['--name=value']"),
    ("[1, 2]", "['--name=value']"), ("['--v=2']", "[--v=2]"),
])
def test_flags_under_config_is_sent_under_kubelet_echoing_only_a_list_of_flags(capsys, temp_project, flags, written):
    code, out = validate(capsys, temp_project, f"{{config: {{maxPods: 110, flags: {flags}}}}}")
    assert code == 0, out
    assert f"flags belongs under kubelet, not kubelet.config: write kubelet: {{config: {{...}}, flags: {written}}}" in out, out


@pytest.mark.parametrize(("value", "shown"), [("{key: a}", "{key: a} is not a list of taints"), ("abc", "abc is not a list of taints")])
def test_a_register_with_taints_that_is_no_list_is_shown_as_yaml(capsys, temp_project, value, shown):
    code, out = validate(capsys, temp_project, f"{{config: {{registerWithTaints: {value}}}}}")
    assert code == 2, out
    assert f"pools[0].kubelet.config.registerWithTaints: {shown}; write [{{key: nvidia.com/gpu, " in out, out
    assert "dict" not in out and "{'key'" not in out, out


def test_a_second_effect_from_a_flag_is_refused_at_the_pool_when_the_pool_taints_have_one_too(capsys, temp_project):
    text = (
        "config:\n  aws:region: us-west-2\n  gpu-node-pools:cluster:\n    name: ml-dev\n"
        "    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node\n    subnetIds: [subnet-0a1b2c3d4e5f60718]\n"
        "  gpu-node-pools:pools:\n    - name: gpu\n      backend: eks-managed\n      instanceTypes: [g6.xlarge]\n"
        "      scaling: {minSize: 0, maxSize: 2}\n"
        "      taints: ['nvidia.com/gpu=present:NoSchedule', 'nvidia.com/gpu=present:NoExecute', 'team=ml:NoSchedule']\n"
        "      kubelet: {flags: ['--register-with-taints=team=ml:NoExecute']}\n"
    )
    code = main(["validate", "--stack", "both", "--project-dir", str(temp_project("both", text))])
    out = capsys.readouterr()
    out = out.out + out.err
    assert code == 2, out
    # removing the flag's taint alone would leave nvidia.com/gpu with two effects: the error is the pool's
    assert " pools[0]: taint key(s) nvidia.com/gpu, team carry several effects" in out, out
    assert "remove the taint from kubelet.flags[0]" not in out, out


LOW = "imageGCLowThresholdPercent"
HIGH = "imageGCHighThresholdPercent"


@pytest.mark.parametrize(("config", "at", "said", "fixes"), [
    (f"{{{LOW}: 90}}", LOW, f"90 must be less than {HIGH}, which this fragment leaves at the kubelet's default 85",
     {f"{LOW}: 80": f"{{{LOW}: 80}}", f"{HIGH}: 95": f"{{{LOW}: 90, {HIGH}: 95}}"}),
    (f"{{{LOW}: 90, {HIGH}: null}}", LOW, f"90 must be less than {HIGH}, which this fragment leaves at the kubelet's default 85",
     {f"{LOW}: 80": f"{{{LOW}: 80}}"}),
    (f"{{{HIGH}: 50}}", HIGH, f"50 must be greater than {LOW}, which this fragment leaves at the kubelet's default 80",
     {f"{LOW}: 45": f"{{{HIGH}: 50, {LOW}: 45}}", f"{HIGH}: 85": f"{{{HIGH}: 85}}"}),
    ("{shutdownGracePeriodCriticalPods: 30s}", "shutdownGracePeriodCriticalPods",
     "'30s' is longer than shutdownGracePeriod, which this fragment leaves at the kubelet's 0",
     {"shutdownGracePeriod: 30s": "{shutdownGracePeriodCriticalPods: 30s, shutdownGracePeriod: 30s}"}),
])
def test_a_rule_between_two_fields_compares_with_the_kubelet_default_of_the_one_left_out(
        capsys, temp_project, config, at, said, fixes):
    code, out = validate(capsys, temp_project, f"{{config: {config}}}")
    assert code == 2, out
    assert f"pools[0].kubelet.config.{at}: {said}" in out, out
    assert "pkg/kubelet/apis/config/v1beta1/defaults.go@" in out and "nodeadm's own file does not set it" in out, out
    fix = out.rstrip().rpartition("the node would never join; ")[2]
    for written, fixed in fixes.items():  # each fix offered validates
        assert f"e.g. {written}" in fix, (written, fix)
        code, out = validate(capsys, temp_project, f"{{config: {fixed}}}", "fixed")
        assert code == 0, (fixed, out)


def test_a_flag_that_sets_the_other_image_gc_threshold_makes_the_pair_not_judged(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{config: {imageGCLowThresholdPercent: 90}, flags: ['--image-gc-high-threshold=95']}")
    assert code == 0, out
    assert ("pools[0].kubelet.config.imageGCLowThresholdPercent: kubelet.flags sets --image-gc-high-threshold, which the "
            "kubelet applies over its config files") in out and "is not judged here" in out, out
    # another flag does not: the default 85 is still the high threshold
    assert validate(capsys, temp_project, "{config: {imageGCLowThresholdPercent: 90}, flags: ['--v=2']}", "other")[0] == 2


@pytest.mark.parametrize(("cpus", "why"), [
    ("0-a", "'a' in '0-a' is no whole number"), ("3-1", "the range '3-1' runs backwards"), ("0,,1", "'' in '' is no whole number"),
    ("-1", "'' in '-1' is no whole number"), ("0 - 1", "'0 ' in '0 - 1' is no whole number"),
])
def test_a_reserved_cpu_list_cpuset_parse_cannot_read_is_refused(capsys, temp_project, cpus, why):
    cgroups = "systemReservedCgroup: '', kubeReservedCgroup: ''"
    code, out = validate(capsys, temp_project, f"{{config: {{reservedSystemCPUs: '{cpus}', {cgroups}}}}}")
    assert code == 2, out
    assert f"pools[0].kubelet.config.reservedSystemCPUs: '{cpus}' is not a CPU list ({why};" in out, out
    assert "kubernetes/utils cpuset/cpuset.go@" in out, out
    for good in ("0-1", "0,2", "+1", "1-1,3"):
        assert validate(capsys, temp_project, f"{{config: {{reservedSystemCPUs: '{good}', {cgroups}}}}}", "good")[0] == 0


def test_the_static_cpu_manager_without_any_cpu_reservation_is_refused(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{config: {cpuManagerPolicy: static, kubeReserved: {cpu: '0'}}}")
    assert code == 2, out
    assert ("pools[0].kubelet.config.cpuManagerPolicy: the static CPU manager needs a CPU reservation above zero, and "
            "this fragment reserves none (kubeReserved.cpu '0', no reservedSystemCPUs") in out, out
    assert "pkg/kubelet/cm/cpumanager/cpu_manager.go@" in out and out.rstrip().endswith("leave kubeReserved.cpu out to keep nodeadm's")
    # the fixes: a reservation, or nodeadm's kubeReserved.cpu (reserved from the core count) kept
    for fixed in ("{cpuManagerPolicy: static, kubeReserved: {cpu: 100m}}", "{cpuManagerPolicy: static}",
                  "{cpuManagerPolicy: static, kubeReserved: {memory: 1Gi}}",
                  "{cpuManagerPolicy: static, kubeReserved: {cpu: '0'}, systemReserved: {cpu: 100m}}"):
        code, out = validate(capsys, temp_project, f"{{config: {fixed}}}", "fixed")
        assert code == 0 and "cpuManagerPolicy" not in out, (fixed, out)


@pytest.mark.parametrize(("kubelet", "said"), [
    ("{config: {cpuManagerPolicy: static, reservedSystemCPUs: '0-1', systemReservedCgroup: '', kubeReservedCgroup: ''}}",
     "reservedSystemCPUs '0-1' reserves those CPUs; whether the static CPU manager can reserve them on the instance"),
    ("{config: {cpuManagerPolicy: static}, flags: ['--kube-reserved=cpu=0']}", "kubelet.flags sets --kube-reserved"),
    ("{config: {cpuManagerPolicy: static, kubeReserved: null}}", "kubeReserved holds a null here"),
])
def test_a_static_cpu_reservation_that_cannot_be_judged_says_so(capsys, temp_project, kubelet, said):
    code, out = validate(capsys, temp_project, kubelet)
    assert code == 0, out
    assert f"pools[0].kubelet.config.cpuManagerPolicy: {said}" in out and "not judged" in out, out


def test_a_cpu_number_beyond_go_int_is_named_so(capsys, temp_project):
    code, out = validate(capsys, temp_project, "{config: {reservedSystemCPUs: '0-99999999999999999999', "
                                               "systemReservedCgroup: '', kubeReservedCgroup: ''}}")
    assert code == 2 and "'99999999999999999999' in '0-99999999999999999999' is no whole number Go's int holds (64 bits)" in out, out
