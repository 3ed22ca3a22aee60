"""A live GPU pool whose GPU nodes carry no NoSchedule/NoExecute taint is a finding at the level of the pack's
``gpu-pool-declares-taint``: per pool, naming the nodes, the pods that request no GPU already running there, the
Kubernetes rule and where to declare the taint so that it survives node replacement."""

from __future__ import annotations

import json

import jsonschema
from audit_cluster import audit_dump, corpus_ds, ds_pod, eks_node, gke_l4_node
from conftest import ROOT

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())
SOURCE = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
GKE_GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def node(name: str, taints: list[dict] | None = None, nodegroup: str = "gpu", gpus: int | None = 1) -> dict:
    return eks_node(name, pool=None, nodegroup=nodegroup, instance="g6.xlarge", gpus=gpus, taints=taints)


def pod(name: str, on: str, *, gpus: int = 0, phase: str = "Running", namespace: str = "web") -> dict:
    resources = {"limits": {"nvidia.com/gpu": str(gpus)}} if gpus else {}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"nodeName": on, "containers": [{"name": "c", "image": "nginx", "resources": resources}]},
            "status": {"phase": phase}}


def untainted(report: dict) -> list[dict]:
    return [f for f in report["findings"] if f["code"] == "gpu-pool-untainted"]


def test_an_eks_node_group_of_untainted_gpu_nodes_fails_naming_nodes_pods_rule_and_fix(tmp_path):
    code, report, text = audit_dump(tmp_path, [node("n0"), node("n1"), node("n2"), corpus_ds("kube-proxy-eks"),
                                               pod("nginx", "n0")])
    jsonschema.validate(report, SCHEMA)
    [found] = untainted(report)
    assert code == 1 and report["summary"]["findings"]["mandatory"] == 1
    assert found["level"] == "mandatory" and found["subject"] == found["pool"] == "EKS node group gpu"
    assert found["message"].startswith("its 3 GPU node(s) (n0, n1, n2) carry no taint: ordinary pods will be "
                                       "scheduled on its GPU nodes; pods that request no GPU already run there: "
                                       "web/nginx on n0.")
    assert "gpu-pool-declares-taint (mandatory)" in found["message"] and SOURCE in found["message"]
    assert found["fix"].startswith("declare a NoSchedule taint such as nvidia.com/gpu=present:NoSchedule where it "
                                   "survives node replacement: the node group's taints")
    assert "kubectl taint is lost when a node is replaced" in found["fix"]
    assert "[mandatory] EKS node group gpu: its 3 GPU node(s) (n0, n1, n2) carry no taint" in text
    assert "1 mandatory, 0 advisory, 0 info; exit 1" in text


def test_the_level_and_rule_are_the_pack_rules_for_the_same_fact():
    from pulumi_policy import EnforcementLevel

    from gpu_node_pool.audit.untainted import LEVEL, RULE
    from gpu_node_pool.policies.rules.gpu_pool_declares_taint import POLICY

    assert POLICY.name == RULE
    assert POLICY.enforcement_level == EnforcementLevel(LEVEL)


def test_daemonset_gpu_and_finished_pods_are_no_evidence(tmp_path):
    ds = corpus_ds("fluent-bit")
    objects = [node("n0"), ds, ds_pod(ds, "n0"), pod("trainer", "n0", gpus=1), pod("done", "n0", phase="Succeeded")]
    _, report, _ = audit_dump(tmp_path, objects)
    [found] = untainted(report)
    assert "no pod that requests no GPU runs there yet (DaemonSet pods aside)" in found["message"]


def test_without_pods_read_the_evidence_is_said_unknown(tmp_path):
    _, report, _ = audit_dump(tmp_path, [node("n0")])
    [found] = untainted(report)
    assert "which pods run there is not known (no pods were read)" in found["message"]


def test_many_pods_are_named_up_to_five_and_more(tmp_path):
    _, report, _ = audit_dump(tmp_path, [node("n0"), *(pod(f"p{i}", "n0") for i in range(9))])
    [found] = untainted(report)
    assert "web/p0 on n0, web/p1 on n0, web/p2 on n0, web/p3 on n0, web/p4 on n0 and more." in found["message"]


def test_a_taint_on_the_node_counts_whoever_set_it_and_a_cpu_pool_is_not_judged(tmp_path):
    startup = {"key": "example.com/agent-not-ready", "value": "true", "effect": "NoExecute"}
    objects = [gke_l4_node("gke-0", "l4"), node("n0", [GKE_GPU_TAINT]), node("n1", [startup], nodegroup="gpu-b"),
               eks_node("cpu-0", pool=None, nodegroup="system", instance="m6i.large", gpus=None),
               pod("web", "cpu-0")]
    _, report, _ = audit_dump(tmp_path, objects)
    assert untainted(report) == []


def test_some_untainted_nodes_of_a_pool_and_a_soft_taint_are_named(tmp_path):
    soft = {"key": "nvidia.com/gpu", "value": "present", "effect": "PreferNoSchedule"}
    _, report, _ = audit_dump(tmp_path, [node("n0", [GKE_GPU_TAINT]), node("n1", [soft]), pod("web", "n1")])
    [found] = untainted(report)
    assert found["message"].startswith(
        "1 of its 2 GPU nodes (n1) carry only nvidia.com/gpu=present:PreferNoSchedule, a scheduling preference, not "
        "a rule: ordinary pods will be scheduled on its GPU nodes; pods that request no GPU already run there: web/web on n1.")


def test_an_untainted_gke_node_pool_is_told_to_declare_the_taint_in_its_node_config(tmp_path):
    gke = gke_l4_node("gke-0", "l4")
    gke["spec"].pop("taints", None)
    _, report, _ = audit_dump(tmp_path, [gke])
    [found] = untainted(report)
    assert found["subject"] == "GKE node pool l4"
    assert "the node pool's node_config.taints" in found["fix"]


def test_with_the_stack_nodes_lacking_the_declared_taint_are_pointed_to_that_finding(tmp_path):
    import contextlib
    import io
    import shutil

    from audit_cluster import ACCEPTANCE_STACK, as_list

    from gpu_node_pool.cli.commands import main

    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.acc.yaml").write_text(ACCEPTANCE_STACK)
    nodes = [eks_node(name, pool="inference", nodegroup="inference", instance="g6e.2xlarge", gpus=1)
             for name in ("inf-1", "inf-2")]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(as_list([*nodes, pod("web", "inf-1")])))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["audit", "--cluster-dump", str(dump), "--stack", "acc", "--project-dir", str(tmp_path), "--json"])
    report = json.loads(out.getvalue())
    [found] = untainted(report)
    assert code == 1 and found["subject"] == "GpuNodePool inference"
    assert found["fix"].startswith("the stack declares the taint but the nodes lack it: see the findings on Nodes "
                                   "inf-1, inf-2 about the declared taint (pulumi up the stack")
    assert {f["subject"] for f in report["findings"] if f["code"] == "declared-taint-missing"} == {"Node inf-1", "Node inf-2"}
