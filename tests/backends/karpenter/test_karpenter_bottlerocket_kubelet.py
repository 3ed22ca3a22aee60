"""A karpenter pool's ``nodeClass.kubelet`` on a ``bottlerocket`` alias, through ``gpupool plan``: Karpenter writes the
kubelet fields into the node's Bottlerocket settings (aws/karpenter-provider-aws bottlerocket.go@v1.14.1), so a value the
CRD takes but Bottlerocket's settings model refuses is an error at the kubelet field's own line, naming the field, the
setting it becomes and both sources; on al2023 the same value is the kubelet's to judge."""

from __future__ import annotations

from conftest import plan_stack_text
from stack_texts import karpenter_kubelet


def _bottlerocket(text: str) -> str:
    assert text.count("amiAlias: al2023@latest") == 1
    return text.replace("amiAlias: al2023@latest", "amiAlias: bottlerocket@latest")


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_negative_max_pod_grace_period_is_refused_on_bottlerocket_at_its_field(capsys, temp_project):
    text = _bottlerocket(karpenter_kubelet("{evictionMaxPodGracePeriod: -1}"))
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 2
    (line,) = [x for x in out.splitlines() if "evictionMaxPodGracePeriod" in x and "error" not in x.split(":")[0]]
    assert f":{_line(text, 'evictionMaxPodGracePeriod')}:" in line
    assert ".nodeClass.kubelet.evictionMaxPodGracePeriod: " in line
    assert "settings.kubernetes.eviction-max-pod-grace-period" in line
    assert "bottlerocket.go@v1.14.1" in line and "settings-extensions/kubernetes/src/lib.rs" in line
    assert "-1 is outside a whole number from 0 to 2147483647 (Rust NonNegativeInteger)" in line
    assert "the node never joins" in line


def test_the_same_value_on_al2023_is_not_judged_by_bottlerocket(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, karpenter_kubelet("{evictionMaxPodGracePeriod: -1}"))
    assert "eviction-max-pod-grace-period" not in out


def test_several_bottlerocket_mistakes_are_each_at_their_own_line(capsys, temp_project):
    text = _bottlerocket(karpenter_kubelet(
        "{evictionMaxPodGracePeriod: -5, evictionSoft: {memory.available: 10%}, "
        "evictionSoftGracePeriod: {memory.available: 500us}}"))
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 2
    lines = [x for x in out.splitlines() if "nodeClass.kubelet." in x]
    assert any(".nodeClass.kubelet.evictionMaxPodGracePeriod: " in x for x in lines)
    (grace,) = [x for x in lines if "kubelet.evictionSoftGracePeriod['memory.available']: " in x]
    assert '"500µs"' in grace and "settings.kubernetes.eviction-soft-grace-period['memory.available']" in grace


def test_values_bottlerocket_takes_pass(capsys, temp_project):
    text = _bottlerocket(karpenter_kubelet(
        "{maxPods: 58, evictionMaxPodGracePeriod: 30, imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80, "
        "evictionSoft: {memory.available: 10%}, evictionSoftGracePeriod: {memory.available: 90s}, cpuCFSQuota: true}"))
    code, out = plan_stack_text(capsys, temp_project, text)
    assert "nodeClass.kubelet" not in out and "settings.kubernetes" not in out
