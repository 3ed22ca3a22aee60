"""``gpupool audit --stack``: a node of a MIG pool that advertises whole GPUs while NVIDIA's MIG manager reports
``nvidia.com/mig.config.state`` ``failed`` (or ``pending``, ``rebooting``) is told that state, what it means and its fix
(the MIG manager's log, whether the layout fits, relabelling ``nvidia.com/mig.config``), with the source (NVIDIA/mig-parted
``deployments/gpu-operator/reconfigure-mig.sh``; the GPU Operator's MIG page): not to set the device plugin's config
label, which partitions nothing."""

from __future__ import annotations

from typing import Any

from audit_cluster import audit_stack, eks_node
from stack_texts import EKS_DEV

from gpu_node_pool.audit.advertised import CODE
from gpu_node_pool.audit.cluster import read_node
from gpu_node_pool.audit.declared import Declared, DeclaredPool, drift
from gpu_node_pool.k8s.taints import Taint

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
SOURCE = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"
STACK = EKS_DEV + """\
    - name: mig
      backend: eks-managed
      instanceTypes: [p4d.24xlarge]
      amiType: AL2023_x86_64_NVIDIA
      scaling: {minSize: 0, maxSize: 2}
      taints: ["nvidia.com/gpu=present:NoSchedule"]
      mig: {strategy: mixed, profile: 1g.5gb}
  gpu-node-pools:devicePlugin:
    provider: gpu-operator
"""


def audit(tmp_path, node: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
    return audit_stack(tmp_path, [node], "mig", STACK)


def test_a_failed_mig_manager_is_the_finding_and_its_fix_not_the_device_plugin_label(tmp_path):
    # the layout label as declared, the device plugin's config label missing, the MIG manager failed: 8 whole GPUs
    node = eks_node("gpu-mig2", pool="mig", nodegroup="mig", instance="p4d.24xlarge", gpus=8, taints=[GPU_TAINT],
                    extra_labels={"nvidia.com/mig.config": "all-1g.5gb", "nvidia.com/mig.config.state": "failed"})
    code, report, text = audit(tmp_path, node)
    [found] = [f for f in report["findings"] if f["code"] == CODE]
    assert found["level"] == "mandatory" and found["subject"] == "Node gpu-mig2"
    assert found["message"].startswith(
        "advertises nvidia.com/gpu: 8, but pools[0] 'mig' (mig-mixed) promises nvidia.com/mig-1g.5gb: 56 per node, as "
        "its autoscaler tags say; its GPUs are not partitioned as nvidia.com/mig.config=all-1g.5gb asks: its "
        "nvidia.com/mig.config.state is 'failed', NVIDIA's MIG manager failed to apply it")
    assert "NVIDIA/mig-parted deployments/gpu-operator/reconfigure-mig.sh" in found["message"] and SOURCE in found["message"]
    assert "device-plugin.config" not in found["fix"]
    assert found["fix"].startswith(
        "read the MIG manager's log on the node (kubectl get pods -A -l app=nvidia-mig-manager --field-selector "
        "spec.nodeName=gpu-mig2, then kubectl logs -n <namespace> <pod>); check that all-1g.5gb fits the node's GPUs")
    assert "kubectl label node gpu-mig2 nvidia.com/mig.config=all-disabled --overwrite, then back to " \
           "nvidia.com/mig.config=all-1g.5gb" in found["fix"]
    assert code == 1
    assert f"[mandatory] {found['subject']}: {found['message']} -> {found['fix']}" in text


TAINT = Taint.parse("nvidia.com/gpu=present:NoSchedule")
MIG_LABELS = {"gpu-node-pools/pool": "a100", "nvidia.com/mig.config": "all-1g.10gb",
              "nvidia.com/device-plugin.config": "mig-mixed"}


def _finding(labels: dict[str, str]) -> Any:
    node = read_node({"kind": "Node", "metadata": {"name": "n1", "labels": labels},
                      "spec": {"taints": [TAINT.to_k8s()]},
                      "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"}}}, ["a100"])
    pool = DeclaredPool(0, "a100", "eks-managed", [TAINT], dict(MIG_LABELS), mechanism="mig-mixed",
                        advertised={"nvidia.com/mig-1g.10gb": 32})
    findings, _ = drift(Declared("s", [pool], []), [node])
    [found] = [f for f in findings if f.code == CODE]
    return found


def test_pending_and_rebooting_say_the_mig_manager_is_at_work_and_to_wait():
    pending = _finding({**MIG_LABELS, "nvidia.com/mig.config.state": "pending"})
    assert "its nvidia.com/mig.config.state is 'pending', NVIDIA's MIG manager is applying it" in pending.message
    assert pending.fix.startswith("wait for nvidia.com/mig.config.state to become 'success' and audit again; if it "
                                  "stays 'pending', read the MIG manager's log")
    rebooting = _finding({**MIG_LABELS, "nvidia.com/mig.config.state": "rebooting"})
    assert "NVIDIA's MIG manager is rebooting the node to change the GPUs' MIG mode" in rebooting.message


def test_a_layout_label_not_as_declared_is_still_the_cause_named_first():
    # the MIG manager applies the layout the node's label names: a wrong one is fixed by the label, whatever its state
    found = _finding({**MIG_LABELS, "nvidia.com/mig.config": "all-disabled", "nvidia.com/mig.config.state": "success"})
    assert "its label nvidia.com/mig.config=all-1g.10gb is 'all-disabled'" in found.message
    failed = _finding({**MIG_LABELS, "nvidia.com/mig.config": "all-disabled", "nvidia.com/mig.config.state": "failed"})
    assert failed.fix.startswith("kubectl label node n1 nvidia.com/mig.config=all-1g.10gb --overwrite")
