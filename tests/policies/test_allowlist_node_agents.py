"""The allow-list judges workloads, not node agents: the `dev` stack plus hand-written workloads, planned offline
with the default pack config. A log shipper DaemonSet tolerating the GPU taint exactly passes; with a catch-all
toleration it gets the advisory `daemonsets-tolerate-exactly` only; a Deployment in `web` with the GPU toleration
and no GPU request still fails the mandatory `gpu-toleration-allowlist`."""

from __future__ import annotations

import shutil

import pytest
from conftest import ROOT

from gpu_node_pool.plan import plan_stack

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
CATCH_ALL = {"operator": "Exists"}

MAIN = '''
import pulumi_kubernetes as k8s
from gpu_node_pool.program import main

main()
KIND = {kind!r}
TOLERATIONS = {tolerations!r}
NAMESPACE = {namespace!r}
pod = {{"metadata": {{"labels": {{"app": "shipper"}}}},
       "spec": {{"tolerations": TOLERATIONS, "containers": [{{"name": "c", "image": "fluent/fluent-bit:3.1"}}]}}}}
spec = {{"selector": {{"matchLabels": {{"app": "shipper"}}}}, "template": pod}}
cls = k8s.apps.v1.DaemonSet if KIND == "DaemonSet" else k8s.apps.v1.Deployment
cls("extra", metadata={{"name": "shipper", "namespace": NAMESPACE}}, spec=spec)
'''


def planned(tmp_path, kind: str, namespace: str, tolerations: list[dict]):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "__main__.py").write_text(MAIN.format(kind=kind, tolerations=tolerations, namespace=namespace))
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    result = plan_stack("dev", tmp_path)
    assert not result.config_issues, result.config_issues
    return result


def by_policy(result, enforcement=None):
    return {v["policy"] for v in result.violations if enforcement is None or v["enforcement"] == enforcement}


def test_log_shipper_daemonset_tolerating_the_pool_taint_plans_clean(tmp_path):
    result = planned(tmp_path, "DaemonSet", "logging", [GPU_TOLERATION])
    assert result.exit_code == 0, result.violations
    assert "gpu-toleration-allowlist" not in by_policy(result)
    assert "daemonsets-tolerate-exactly" not in by_policy(result)


def test_log_shipper_with_a_catch_all_toleration_gets_an_advisory_only(tmp_path):
    result = planned(tmp_path, "DaemonSet", "logging", [CATCH_ALL])
    assert result.exit_code == 0, result.violations
    assert not by_policy(result, "mandatory"), result.violations
    (advice,) = [v for v in result.violations if v["policy"] == "daemonsets-tolerate-exactly"]
    assert advice["enforcement"] == "advisory"
    assert "DaemonSet logging/shipper" in advice["message"]
    assert "key: nvidia.com/gpu, operator: Exists, effect: NoSchedule" in advice["message"]


def test_catch_all_daemonset_in_an_allowed_namespace_gets_no_advisory(tmp_path):
    result = planned(tmp_path, "DaemonSet", "kube-system", [CATCH_ALL])
    assert "daemonsets-tolerate-exactly" not in by_policy(result)


@pytest.mark.parametrize("tolerations", [[GPU_TOLERATION], [CATCH_ALL]])
def test_deployment_in_web_tolerating_gpu_taints_without_a_gpu_request_still_fails(tmp_path, tolerations):
    result = planned(tmp_path, "Deployment", "web", tolerations)
    assert result.exit_code == 1
    (finding,) = [v for v in result.violations if v["policy"] == "gpu-toleration-allowlist"]
    assert finding["enforcement"] == "mandatory"
    assert "Deployment web/shipper" in finding["message"] and "'web' is not allowed" in finding["message"]
