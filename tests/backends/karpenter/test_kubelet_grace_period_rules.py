"""A Karpenter pool's ``nodeClass.kubelet`` grace periods are judged by the kubelet's own rules, the ones an
eks-managed ``kubelet.config`` gets: the same bad value is told the same rule and the same fix in both, each
message naming the path, the value, the source and who refuses it.

Sources: ``evictionMaxPodGracePeriod`` is an int32 of seconds in the kubelet (kubernetes/kubelet
config/v1beta1/types.go@v0.34.0, ``EvictionMaxPodGracePeriod int32``), in Karpenter's Go type and in the
EC2NodeClass CRD (``type: integer, format: int32``, aws/karpenter-provider-aws v1.14.1
pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml), which the API server holds a value to; an eviction grace
period is a Go duration written as text, not negative (kubernetes/kubernetes pkg/kubelet/eviction/helpers.go,
``parseGracePeriods``: "must be a positive value").
"""

from __future__ import annotations

import pytest
from conftest import plan_stack_text as plan
from stack_texts import eks_managed_kubelet as eks_managed
from stack_texts import karpenter_kubelet as karpenter

EKS_KUBELET = "pools[0].kubelet.config."
KARPENTER_KUBELET = "pools[2].nodeClass.kubelet."
GRACE = "evictionSoftGracePeriod['memory.available']"


def message(out: str, path: str) -> str:
    """What the one error line for ``path`` says after ``<path>: ``."""
    (line,) = [line for line in out.splitlines() if f" {path}: " in line]
    return line.split(f" {path}: ", 1)[1]


def soft(grace: str) -> str:
    return f"{{evictionSoft: {{memory.available: '10%'}}, evictionSoftGracePeriod: {{memory.available: {grace}}}}}"


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 10**10])
def test_karpenter_max_pod_grace_period_beyond_int32_is_refused_with_the_crd_format_and_a_fix(capsys, temp_project, value):
    code, out = plan(capsys, temp_project, karpenter(f"{{evictionMaxPodGracePeriod: {value}}}"))
    assert code == 2, out
    assert "Pulumi.mine.yaml:" in out, out  # the place in the stack file
    said = message(out, KARPENTER_KUBELET + "evictionMaxPodGracePeriod")
    assert said.startswith(f"{value} is beyond the kubelet's int32 (-2147483648..2147483647) ("), said
    assert "karpenter.k8s.aws_ec2nodeclasses.yaml" in said and "format: int32" in said, said
    assert "kubernetes/kubelet config/v1beta1/types.go@v0.34.0" in said, said
    assert said.endswith("write a whole number within that range, e.g. evictionMaxPodGracePeriod: 10"), said


@pytest.mark.parametrize("value", [2**31 - 1, -(2**31), 0, 90])
def test_karpenter_max_pod_grace_period_within_int32_is_taken(capsys, temp_project, value):
    code, out = plan(capsys, temp_project, karpenter(f"{{evictionMaxPodGracePeriod: {value}}}"))
    assert code in (0, 1) and "evictionMaxPodGracePeriod" not in out, out


def test_karpenter_bare_number_grace_period_gets_the_rule_and_a_duration_with_its_unit(capsys, temp_project):
    code, out = plan(capsys, temp_project, karpenter(soft("90")))
    assert code == 2, out
    said = message(out, KARPENTER_KUBELET + GRACE)
    assert said.startswith("the number 90 is no eviction grace period: a duration with its unit, written as text, "
                           "such as '1m30s' ("), said
    assert "evictionSoftGracePeriod values are type: string" in said and "metav1.Duration" in said, said
    assert 'write a duration with its unit, such as "90s" or "1m30s" (memory.available: 90s)' in said, said
    assert "90 alone names no unit" in said and "quote it" not in said, said


def test_karpenter_negative_grace_period_is_refused_and_zero_is_taken(capsys, temp_project):
    code, out = plan(capsys, temp_project, karpenter(soft("-30s")))
    assert code == 2, out
    said = message(out, KARPENTER_KUBELET + GRACE)
    assert said.startswith("an eviction grace period must not be negative: '-30s' ("), said
    assert "pkg/kubelet/eviction/helpers.go" in said and "parseGracePeriods" in said, said
    assert said.endswith('write a duration with its unit, such as "90s" or "1m30s" (memory.available: 90s)'), said
    code, out = plan(capsys, temp_project, karpenter(soft("0s")))  # parseGracePeriods refuses below zero only
    assert code in (0, 1) and "evictionSoftGracePeriod" not in out, out


@pytest.mark.parametrize(("kubelet", "field", "rule"), [
    (soft("5"), GRACE, "the number 5 is no eviction grace period: a duration with its unit, written as text, such as '1m30s'"),
    (soft("'5'"), GRACE, "'5' is not a Go duration (the number 5 has no unit (ns, us, ms, s, m, h); a grace period is "
                         "read with Go's time.ParseDuration)"),
    (soft("5 minutes"), GRACE, "'5 minutes' is not a Go duration (' minutes' is no unit (ns, us, ms, s, m, h); a grace "
                               "period is read with Go's time.ParseDuration)"),
    (soft("-1m"), GRACE, "an eviction grace period must not be negative: '-1m'"),
    ("{evictionMaxPodGracePeriod: 2147483648}", "evictionMaxPodGracePeriod",
     "2147483648 is beyond the kubelet's int32 (-2147483648..2147483647)"),
    ("{evictionMaxPodGracePeriod: 1m30s}", "evictionMaxPodGracePeriod",
     "the text '1m30s' is not what the kubelet takes for evictionMaxPodGracePeriod: a whole number (int32)"),
    ("{evictionMaxPodGracePeriod: '90'}", "evictionMaxPodGracePeriod",
     "the text '90' is not what the kubelet takes for evictionMaxPodGracePeriod: a whole number (int32)"),
], ids=["bare number", "quoted number", "no unit", "negative", "beyond int32", "a duration", "quoted seconds"])
def test_the_same_bad_value_gets_the_same_rule_and_fix_in_karpenter_and_eks_managed(capsys, temp_project, kubelet,
                                                                                     field, rule):
    said = {}
    for backend, stack, path in (("eks-managed", eks_managed, EKS_KUBELET), ("karpenter", karpenter, KARPENTER_KUBELET)):
        code, out = plan(capsys, temp_project, stack(kubelet))
        assert code == 2, (backend, out)
        said[backend] = message(out, path + field)
        assert said[backend].startswith(rule + " ("), (backend, said[backend])  # the rule, then its source
    eks_fix, karpenter_fix = (said[b][said[b].index("; write "):] for b in ("eks-managed", "karpenter"))
    assert eks_fix == karpenter_fix, said
    assert said["eks-managed"] != said["karpenter"], said  # each names who refuses it in that backend
