"""``gpupool check`` on a hand-written Karpenter program: the taints its EC2NodeClass's ``spec.userData``
registers are judged like a node group's launch template user data."""

from __future__ import annotations

import json
from pathlib import Path

from gpu_node_pool.cli import commands as cli

PROGRAM = '''
from pathlib import Path

import pulumi_kubernetes as k8s

USER_DATA = Path(__file__).with_name("user-data.txt").read_text()

k8s.apiextensions.CustomResource(
    "gpu-class",
    api_version="karpenter.k8s.aws/v1",
    kind="EC2NodeClass",
    metadata={{"name": "gpu"}},
    spec={{"role": "KarpenterNodeRole-ml", "amiSelectorTerms": [{{"alias": "al2023@latest"}}], "userData": USER_DATA,
           "subnetSelectorTerms": [{{"tags": {{"karpenter.sh/discovery": "ml"}}}}],
           "securityGroupSelectorTerms": [{{"tags": {{"karpenter.sh/discovery": "ml"}}}}]}},
)
k8s.apiextensions.CustomResource(
    "gpu-pool",
    api_version="karpenter.sh/v1",
    kind="NodePool",
    metadata={{"name": "gpu"}},
    spec={{"limits": {{"nvidia.com/gpu": 8}}, "template": {{"spec": {{
        "nodeClassRef": {{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"}},
        "requirements": [{{"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}}],
        "taints": [{{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}}]}}}}}},
)
k8s.apps.v1.DaemonSet(
    "node-exporter",
    metadata={{"name": "node-exporter", "namespace": "monitoring"}},
    spec={{"selector": {{"matchLabels": {{"app": "node-exporter"}}}}, "template": {{
        "metadata": {{"labels": {{"app": "node-exporter"}}}},
        "spec": {{"tolerations": [{{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}],
                 "containers": [{{"name": "node-exporter", "image": "quay.io/prometheus/node-exporter:v1.8.2"}}]}}}}}},
)
'''
FLAG = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    flags:
      - --register-with-taints=dedicated=ml:NoSchedule
--//--
"""
SED = """#!/bin/bash
sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --register-with-taints=dedicated=ml:NoSchedule"' /etc/eks/bootstrap.sh
"""


def project(tmp_path: Path, user_data: str) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: karpenter-team\nruntime:\n  name: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  aws:region: us-west-2\n")
    (tmp_path / "__main__.py").write_text(PROGRAM.replace("{{", "{").replace("}}", "}"))
    (tmp_path / "user-data.txt").write_text(user_data)
    return tmp_path


def check(capsys, path: Path) -> tuple[int, dict]:
    code = cli.main(["check", "--project-dir", str(path), "--stack", "dev", "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_check_reports_the_user_data_taint_and_the_daemonset_that_does_not_tolerate_it(capsys, tmp_path):
    code, doc = check(capsys, project(tmp_path, FLAG))
    (pool,) = doc["pools"]
    assert "dedicated=ml:NoSchedule" in pool["taints"]
    found = {(v["policy"], v["enforcement"]): v["message"] for v in doc["violations"]}
    assert "EC2NodeClass 'gpu' (spec.userData) registers the taint dedicated=ml:NoSchedule" in found[
        ("registration-taints-visible", "mandatory")]
    assert "dedicated=ml:NoSchedule" in found[("daemonsets-tolerate-gpu-taints", "mandatory")]
    assert code == 1


def test_check_of_user_data_the_reader_cannot_follow_is_not_judged_never_passed(capsys, tmp_path):
    _, doc = check(capsys, project(tmp_path, SED))
    (pool,) = doc["pools"]
    assert pool["taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    notes = [v["message"] for v in doc["violations"] if v["policy"] == "registration-taints-visible"]
    assert notes and all(v["enforcement"] == "advisory" for v in doc["violations"] if v["policy"] == "registration-taints-visible")
    assert any("registration taints in user data not readable" in m and "sed -i" in m for m in notes)
