"""A ``Gt``/``Lt`` toleration in a workload of the program is judged by the Kubernetes version the stack's
GpuNodePools declare (their ``kubernetesVersion`` property): below 1.35 the API server knows only ``Equal`` and
``Exists`` and refuses the pod spec, so the pack reports it as not judged, naming the version, the rule, its
source and the fix, never as a finding; on 1.35 or with no version declared it is judged as on a cluster with the
gate ``TaintTolerationComparisonOperators`` on."""

from __future__ import annotations

import pytest
from builders import EXISTS_GPU, daemonset, node_group

from gpu_node_pool.k8s.wellknown import GPU_NODE_POOL_TYPE
from gpu_node_pool.policies import StackResource, evaluate
from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.workloads import judge_on_kube_version, read_tolerations

SLA = "example.com/sla=950:NoSchedule"
NOTE = "can't run policy"


@pytest.fixture(autouse=True)
def _no_declared_version():
    yield
    judge_on_kube_version(None)  # no version carried into other tests of the process


def pool_component(name: str, version: str | None) -> StackResource:
    props = {"kubernetesVersion": version} if version is not None else {}
    return StackResource(GPU_NODE_POOL_TYPE, name, props, urn=f"urn:pulumi:s::p::{GPU_NODE_POOL_TYPE}::{name}")


def verdicts(policy, *versions: str | None, value: str = "950", first=EXISTS_GPU):
    """(findings, "can't run" notes) of ``policy`` on a GPU pool tainted ``SLA``, one GpuNodePool per version,
    and a DaemonSet tolerating ``first`` (the GPU taint) and ``example.com/sla`` with ``Gt <value>``."""
    pools = [pool_component(f"gpu-{i}", v) for i, v in enumerate(versions)]
    agent = daemonset("node-exporter", "monitoring",
                      tolerations=[first, {"key": "example.com/sla", "operator": "Gt", "value": value}])
    found = evaluate([*pools, node_group(taints=("nvidia.com/gpu=present:NoSchedule", SLA)), agent], policies=[policy])
    return ([f["message"] for f in found if NOTE not in f["message"]],
            [f["message"] for f in found if NOTE in f["message"]])


@pytest.mark.parametrize("versions", [("1.33",), ("1.35", "1.33")])
def test_a_gt_toleration_below_1_35_is_not_judged_with_the_version_rule_source_and_fix(versions):
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, *versions)
    assert findings == []
    (note,) = notes
    assert "DaemonSet monitoring/node-exporter" in note
    assert "not judged: spec.template.spec.tolerations[1].operator 'Gt'" in note
    assert "needs Kubernetes 1.35+ with the alpha feature gate TaintTolerationComparisonOperators on" in note
    assert "the cluster is Kubernetes 1.33 (GpuNodePool 'gpu-" in note
    assert "the API server refuses this pod spec" in note and "KEP-5471" in note
    assert "remove this toleration, or use operator Equal or Exists" in note


@pytest.mark.parametrize("versions", [("1.35",), ()])
def test_a_gt_toleration_on_1_35_or_no_declared_version_is_judged_by_integer_comparison(versions):
    findings, notes = verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, *versions)
    assert notes == []
    (finding,) = findings  # Gt 950 does not tolerate the value 950
    assert "will not run on GPU nodes" in finding and SLA in finding
    assert verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, *versions, value="900") == ([], [])


def test_a_rule_that_reads_only_tolerations_reads_it_as_refused_below_1_35_too():
    catch_all = {"operator": "Exists"}
    findings, notes = verdicts(d.daemonsets_tolerate_exactly.POLICY, "1.33", first=catch_all)
    assert findings == []
    assert any("not judged: tolerations[1].operator 'Gt'" in n and "Kubernetes 1.33" in n for n in notes), notes
    findings, notes = verdicts(d.daemonsets_tolerate_exactly.POLICY, "1.35", first=catch_all)
    assert notes == [] and "catch-all toleration" in findings[0]


def test_the_declared_version_does_not_stay_with_a_pod_spec_read_again():
    spec = {"tolerations": [{"key": "example.com/sla", "operator": "Lt", "value": "5"}]}
    judge_on_kube_version(("1.33", "GpuNodePool 'gpu'"))
    tolerations, problems = read_tolerations(spec)
    assert tolerations == [] and "needs Kubernetes 1.35+" in problems[0]
    judge_on_kube_version(("1.35", "GpuNodePool 'gpu'"))
    tolerations, problems = read_tolerations(spec)
    assert len(tolerations) == 1 and problems == []


def test_the_declared_version_does_not_outlive_its_evaluation():
    """After the runner judged a stack declaring 1.33, a pod spec read outside any evaluation is judged as with no
    version declared: one stack's version never reaches another's."""
    from gpu_node_pool.policies.workloads import judge_on_kube_version, judged_kube_version

    judge_on_kube_version(("1.33", "GpuNodePool 'gpu'"))
    assert judged_kube_version() is not None
    evaluate([])
    assert judged_kube_version() is None
