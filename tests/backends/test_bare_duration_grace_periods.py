"""A number where a duration goes is refused with a duration to write, never "quote it": quoted, ``5`` is still no
duration, and no unit is assumed for it.

Sources: the kubelet parses each ``evictionSoftGracePeriod`` value with Go's ``time.ParseDuration``
(kubernetes/kubernetes pkg/kubelet/eviction/helpers.go, ``parseGracePeriods``), as it does every
``metav1.Duration`` field (k8s.io/apimachinery pkg/apis/meta/v1/duration.go); Karpenter's EC2NodeClass types
``evictionSoftGracePeriod`` as ``map[string]metav1.Duration`` while its CRD says only ``type: string``
(aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass.go, pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml);
``evictionMaxPodGracePeriod`` is an int32 of seconds in both.
"""

from __future__ import annotations

import pytest
from conftest import plan_stack_text as plan
from stack_texts import eks_managed_kubelet as eks_managed
from stack_texts import karpenter_kubelet as karpenter

DURATION = 'write a duration with its unit, such as "90s" or "1m30s" (memory.available: 90s)'
NO_UNIT = "5 alone names no unit (ns, us, ms, s, m or h), quoted or not, and none is assumed"


@pytest.mark.parametrize("value", ["5", "'5'"], ids=["bare", "quoted"])
def test_eks_managed_grace_period_of_a_number_asks_for_a_duration_with_its_unit(capsys, temp_project, value):
    code, out = plan(capsys, temp_project, eks_managed(
        f"{{evictionSoft: {{memory.available: 1Gi}}, evictionSoftGracePeriod: {{memory.available: {value}}}}}"))
    assert code == 2, out
    assert "Pulumi.mine.yaml:" in out  # the place in the stack file
    assert "pools[0].kubelet.config.evictionSoftGracePeriod['memory.available']" in out, out
    assert "pkg/kubelet/eviction/helpers.go" in out and "parseGracePeriods" in out and "time.ParseDuration" in out
    assert DURATION in out and NO_UNIT in out, out
    assert "quote it" not in out and "memory.available: 5s" not in out, out
    # the fix, as written there, validates
    code, out = plan(capsys, temp_project, eks_managed(
        "{evictionSoft: {memory.available: 1Gi}, evictionSoftGracePeriod: {memory.available: 90s}}"))
    assert code in (0, 1) and "evictionSoftGracePeriod" not in out, out


def test_eks_managed_duration_field_of_a_number_guesses_no_unit(capsys, temp_project):
    code, out = plan(capsys, temp_project, eks_managed("{imageMinimumGCAge: 5}"))
    assert code == 2, out
    assert "pools[0].kubelet.config.imageMinimumGCAge" in out and "the number 5" in out, out
    assert 'write a duration with its unit, such as "90s" or "1m30s" (imageMinimumGCAge: 90s)' in out, out
    assert "for 5 seconds" not in out and "imageMinimumGCAge: 5s" not in out, out


def test_eks_managed_max_pod_grace_period_is_seconds_not_a_duration(capsys, temp_project):
    code, out = plan(capsys, temp_project, eks_managed("{evictionMaxPodGracePeriod: 1m30s}"))
    assert code == 2, out
    assert "evictionMaxPodGracePeriod: a whole number (int32)" in out, out
    assert "write evictionMaxPodGracePeriod: 90 (a number of seconds, without quotes or unit)" in out, out


@pytest.mark.parametrize("value", ["5", "'5'"], ids=["bare", "quoted"])
def test_karpenter_grace_period_of_a_number_asks_for_a_duration_with_its_unit(capsys, temp_project, value):
    code, out = plan(capsys, temp_project, karpenter(
        f"{{evictionSoft: {{memory.available: '10%'}}, evictionSoftGracePeriod: {{memory.available: {value}}}}}"))
    assert code == 2, out
    assert "pools[2].nodeClass.kubelet.evictionSoftGracePeriod['memory.available']" in out, out
    assert "pkg/apis/v1/ec2nodeclass.go" in out and "metav1.Duration" in out and "time.ParseDuration" in out, out
    assert DURATION in out and NO_UNIT in out, out
    assert "quote it" not in out, out
    code, out = plan(capsys, temp_project, karpenter(
        "{evictionSoft: {memory.available: '10%'}, evictionSoftGracePeriod: {memory.available: 90s}}"))
    assert code in (0, 1) and "evictionSoftGracePeriod" not in out, out


def test_karpenter_negative_grace_period_is_refused_as_the_kubelet_refuses_it(capsys, temp_project):
    code, out = plan(capsys, temp_project, karpenter(
        "{evictionSoft: {memory.available: '10%'}, evictionSoftGracePeriod: {memory.available: -1m}}"))
    assert code == 2, out
    assert "an eviction grace period must not be negative: '-1m'" in out and "parseGracePeriods" in out, out


def test_karpenter_max_pod_grace_period_of_a_duration_is_offered_its_seconds(capsys, temp_project):
    code, out = plan(capsys, temp_project, karpenter("{evictionMaxPodGracePeriod: 2m}"))
    assert code == 2, out
    assert "pools[2].nodeClass.kubelet.evictionMaxPodGracePeriod" in out, out
    assert "the text '2m' is not what the kubelet takes for evictionMaxPodGracePeriod: a whole number (int32)" in out, out
    assert "write evictionMaxPodGracePeriod: 120 (a number of seconds, without quotes or unit)" in out, out
