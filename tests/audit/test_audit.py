"""gpupool audit on dumps: the issue's acceptance cluster, GKE, bad input, the JSON contract."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from audit_cluster import ACCEPTANCE_STACK, acceptance_objects, as_list, corpus_ds, ds_pod, gke_l4_node
from conftest import ROOT

from gpu_node_pool.audit.declared import read_declared
from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import SourceError, load_dump
from gpu_node_pool.cli.commands import main

SCHEMA = json.loads((ROOT / "components/gpu_node_pool/audit/report.schema.json").read_text())


def write(tmp_path: Path, objects, name="dump.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(as_list(objects)))
    return path


@pytest.fixture(scope="module")
def acceptance(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("acceptance")
    import shutil

    root = ROOT
    shutil.copy(root / "Pulumi.yaml", tmp / "Pulumi.yaml")
    shutil.copy(root / "__main__.py", tmp / "__main__.py")
    (tmp / "stacks").mkdir()
    (tmp / "stacks" / "Pulumi.acc.yaml").write_text(ACCEPTANCE_STACK)
    dump = write(tmp, acceptance_objects())
    report = run_audit(load_dump(dump), declared=read_declared("acc", tmp))
    return report, dump, tmp


def statuses(report):
    return {r.ds.display: {pid: c.status for pid, c in r.cells.items()} for r in report.rows if r.ds.origin == "cluster"}


def test_acceptance_yields_exactly_the_daemonset_verdicts(acceptance):
    report, _, _ = acceptance
    inf, train = "GpuNodePool inference", "GpuNodePool training"
    assert [p.id for p in report.gpu_pools] == [inf, train]
    assert statuses(report) == {
        "logging/fluent-bit": {inf: "doesNotRun", train: "doesNotRun"},
        "gpu-monitoring/dcgm-exporter": {inf: "doesNotRun", train: "doesNotRun"},
        "kube-system/ebs-csi-node": {inf: "doesNotRun", train: "doesNotRun"},
        "kube-system/nvidia-device-plugin-daemonset": {inf: "partial", train: "doesNotRun"},
        "kube-system/aws-node": {inf: "runs", train: "runs"},
        "kube-system/kube-proxy": {inf: "runs", train: "runs"},
    }
    rows = {r.ds.display: r for r in report.rows}
    assert rows["gpu-monitoring/dcgm-exporter"].rules_say == 0  # selects GPU nodes, tolerates none: runs nowhere
    ebs = rows["kube-system/ebs-csi-node"].cells[inf]
    # its NoExecute-for-300-s toleration does not help against NoSchedule taints
    assert [str(t) for t, _ in ebs.missing] == ["nvidia.com/gpu=present:NoSchedule", "maintenance=true:NoSchedule"]
    plugin = rows["kube-system/nvidia-device-plugin-daemonset"]
    assert [str(t) for t, _ in plugin.cells[inf].missing] == ["maintenance=true:NoSchedule"]
    assert plugin.cells[inf].missing[0][1].to_k8s() == {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}
    assert [str(t) for t, _ in plugin.cells[train].missing] == ["workload=training:NoSchedule"]
    # the cross-check agrees: every desiredNumberScheduled equals what the rules say
    assert not [f for f in report.findings if f.code == "daemonset-count-mismatch"]
    does_not_run = {(f.subject, f.pool) for f in report.findings if f.code == "daemonset-does-not-run"}
    assert len(does_not_run) == 8 and not any("aws-node" in s or "kube-proxy" in s for s, _ in does_not_run)


def test_acceptance_drift_starved_pending_and_whatif(acceptance):
    report, _, _ = acceptance
    by_code = {}
    for f in report.findings:
        by_code.setdefault(f.code, []).append(f)
    assert [(f.subject, f.message.split(" is on")[0]) for f in by_code["imperative-taint"]] == [
        ("Node gpu-inf-2", "taint maintenance=true:NoSchedule")]
    assert sorted(f.subject for f in by_code["declared-taint-missing"]) == ["Node gpu-inf-1", "Node gpu-inf-2"]
    assert "label-drift" not in by_code  # controller-set labels are not drift; declared ones match
    assert [s["node"] for s in report.starved] == ["gpu-inf-2"]
    assert "nvidia-device-plugin-daemonset does not run here (maintenance=true:NoSchedule not tolerated)" in report.starved[0]["reason"]
    [pending] = report.pending
    assert pending.display == "ml/model-cache-warmer" and pending.reason_source == "event FailedScheduling"
    [(taint, fix, why)] = pending.missing
    assert str(taint) == "nvidia.com/gpu=present:NoSchedule" and "value 'true'" in why
    assert fix.to_k8s() == {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    [stop] = by_code["whatif-would-stop"]
    assert stop.subject == "DaemonSet kube-system/nvidia-device-plugin-daemonset"
    assert "adding example.com/tier=gpu:NoSchedule to pool inference would stop it" in stop.message
    stack_row = next(r for r in report.rows if r.ds.origin == "stack")
    assert {k: c.status for k, c in stack_row.whatif.items()} == {
        "pool inference as declared": "runs", "pool training as declared": "keptOff"}  # Bottlerocket ships its own


def test_acceptance_json_validates_and_the_cli_exits_by_fail_on(acceptance, capsys):
    _, dump, project = acceptance
    code = main(["audit", "--cluster-dump", str(dump), "--stack", "acc", "--project-dir", str(project), "--json"])
    out = json.loads(capsys.readouterr().out)
    jsonschema.validate(out, SCHEMA)
    assert code == 1 and out["exitCode"] == 1 and out["schemaVersion"] == 1 and out["readOnly"] is True
    assert out["daemonSets"][0]["pools"]["GpuNodePool inference"]["status"] == "doesNotRun"
    assert main(["audit", "--cluster-dump", str(dump), "--fail-on", "none"]) == 0
    capsys.readouterr()


def test_the_schema_rejects_a_report_with_a_wrong_status(acceptance):
    report, _, _ = acceptance
    data = report.to_json()
    data["daemonSets"][0]["pools"]["GpuNodePool inference"]["status"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, SCHEMA)


def test_gke_cluster_names_the_missing_driver_and_the_admission_added_toleration(tmp_path):
    gke_plugin = corpus_ds("gke-nvidia-gpu-device-plugin", 2)
    objs = [gke_l4_node("gke-ml-l4-pool-1a2b", "l4-pool"), gke_l4_node("gke-ml-l4-pool-3c4d", "l4-pool", driver=False, gpus=None),
            gke_plugin, ds_pod(gke_plugin, "gke-ml-l4-pool-1a2b"), ds_pod(gke_plugin, "gke-ml-l4-pool-3c4d")]
    vllm = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "vllm-0", "namespace": "ml"},
            "spec": {"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
                     "containers": [{"name": "vllm", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                             "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."}]}}
    report = run_audit(load_dump(write(tmp_path, objs + [vllm])))
    assert report.platform == "gke" and not report.events_available
    assert [p.id for p in report.gpu_pools] == ["GKE node pool l4-pool"]
    [starved] = report.starved
    assert starved["node"] == "gke-ml-l4-pool-3c4d" and starved["reason"].startswith("driver missing on GKE")
    assert report.pending == []  # it requests a GPU: GKE's admission adds the toleration; it waits for capacity


def test_a_desired_count_the_rules_cannot_explain_is_reported(tmp_path):
    objs = acceptance_objects()
    next(o for o in objs if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "fluent-bit")["status"]["desiredNumberScheduled"] = 3
    report = run_audit(load_dump(write(tmp_path, objs)))
    [f] = [f for f in report.findings if f.code == "daemonset-count-mismatch"]
    assert f.subject == "DaemonSet logging/fluent-bit" and "is 3 but" in f.message and "say 1 node" in f.message


def test_a_malformed_taint_is_a_finding_for_that_node_not_a_traceback(tmp_path, capsys):
    objs = acceptance_objects()
    objs[0]["spec"]["taints"].append({"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"})
    path = write(tmp_path, objs)
    assert main(["audit", "--cluster-dump", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    [f] = [f for f in out["findings"] if f["code"] == "malformed-taint"]
    assert f["subject"] == "Node gpu-inf-1" and "NO_SCHEDULE" in f["message"] and "EKS/GKE API spelling of NoSchedule" in f["message"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}),
         "got an object of kind 'Deployment' (one object: put it, with the others, in the items of a List"),
        (b"\xff\xfe\x00garbage", "not UTF-8 (byte 0xff at offset 0)"),
    ],
)
def test_bad_dumps_exit_2_with_one_line_naming_the_file(tmp_path, capsys, content, expected):
    path = tmp_path / "dump.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["audit", "--cluster-dump", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and expected in err and "Traceback" not in err


def test_a_directory_of_dumps_is_read_whole_and_events_are_optional(tmp_path):
    objs = acceptance_objects()
    d = tmp_path / "dump"
    d.mkdir()
    write(d, [o for o in objs if o["kind"] == "Node"], "nodes.json")
    write(d, [o for o in objs if o["kind"] in ("DaemonSet", "Pod")], "workloads.json")
    snap = load_dump(d)
    assert len(snap.nodes) == 4 and len(snap.daemonsets) == 6 and "Event" not in snap.read
    report = run_audit(snap)
    assert report.pending[0].reason_source == "condition PodScheduled"
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no .json/.yaml/.yml files"):
        load_dump(tmp_path / "empty")


def test_usage_mistakes_exit_64(capsys):
    assert main(["audit", "--fail-on", "sometimes"]) == 64  # the CLI contract turns argparse's exit into 64
    assert main(["audit", "--cluster-dump", "x.json", "--context", "prod"]) == 64
    capsys.readouterr()


def test_print_rbac_is_get_and_list_only(capsys):
    import yaml

    assert main(["audit", "--print-rbac"]) == 0
    role, binding = yaml.safe_load_all(capsys.readouterr().out)
    assert {v for rule in role["rules"] for v in rule["verbs"]} == {"get", "list"}
    assert {r for rule in role["rules"] for r in rule["resources"]} == {
        "nodes", "daemonsets", "pods", "events", "validatingadmissionpolicies", "validatingadmissionpolicybindings",
        "constrainttemplates", "*"}  # "*" only in constraints.gatekeeper.sh: every Constraint kind
    assert [r["apiGroups"] for r in role["rules"] if "*" in r["resources"]] == [["constraints.gatekeeper.sh"]]
    assert binding["roleRef"]["name"] == role["metadata"]["name"]


def test_quiet_audit_prints_only_its_last_line(acceptance, capsys):
    _, dump, _ = acceptance
    assert main(["audit", "--cluster-dump", str(dump), "--fail-on", "none"]) == 0
    full = capsys.readouterr().out.rstrip("\n").splitlines()
    assert main(["audit", "--cluster-dump", str(dump), "--fail-on", "none", "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines() == [full[-1]] and len(full) > 1


def test_a_dump_object_with_a_field_of_the_wrong_shape_is_skipped_and_named_not_a_crash(tmp_path, capsys):
    from gpu_node_pool.cli import commands as cli_commands

    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": ["a"]}, "spec": {}, "status": {}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"}, "spec": {},
         "status": {"phase": "Pending", "conditions": "x"}},
    ]}))
    code = cli_commands.main(["audit", "--cluster-dump", str(dump), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and out["exitCode"] == code
    assert any("Node n1: a field has the wrong shape" in item["reason"] for item in out["notJudged"]), out["notJudged"]


def test_malformed_fields_in_a_dump_are_reported_not_read_silently(tmp_path, capsys):
    objs = acceptance_objects()
    objs[0]["spec"]["taints"] = ["oops"]
    objs[0]["status"]["allocatable"]["nvidia.com/gpu"] = "lots"
    objs[0]["status"]["capacity"]["nvidia.com/gpu"] = "lots"
    path = write(tmp_path, objs)
    assert main(["audit", "--cluster-dump", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    node = next(n for p in out["gpuPools"] for n in p["nodes"] if n["name"] == "gpu-inf-1")
    assert node["starved"] is False and "nvidia.com/gpu" not in node["gpuAllocatable"]
    assert node["malformedTaints"] == ['spec.taints[0] "oops": a taint must be an object with key, value, effect; got \'oops\'']
    assert all("'lots': not a Kubernetes quantity" in m for m in node["malformedResources"])
    assert len(node["malformedResources"]) == 2
    assert not any(s["node"] == "gpu-inf-1" for s in out["starvedNodes"])
    assert [f["code"] for f in out["findings"] if f["subject"] == "Node gpu-inf-1"] == ["malformed-taint"]
    assert [n["reason"] for n in out["notJudged"] if n["subject"] == "Node gpu-inf-1"] == [
        f"status.{part}.nvidia.com/gpu 'lots': not a Kubernetes quantity (apimachinery resource.Quantity: digits with "
        "an optional suffix, such as '4'); this resource was left out of the GPU-starved verdict"
        for part in ("capacity", "allocatable")]


def test_a_huge_malformed_value_is_cut_with_its_length(tmp_path, capsys):
    objs = acceptance_objects()
    objs[0]["spec"]["taints"] = [{"key": "k" * 5_000_000, "effect": "NoSchedule"}]
    objs[0]["status"]["allocatable"]["nvidia.com/gpu"] = "9" * 1_000_000
    main(["audit", "--cluster-dump", str(write(tmp_path, objs))])
    out = capsys.readouterr().out
    assert len(out) < 20_000 and "characters)" in out


def test_a_yaml_dump_alias_bomb_is_refused_at_once_naming_the_line(tmp_path, capsys):
    levels = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True))
    path = tmp_path / "dump.yaml"
    path.write_text("kind: List\napiVersion: v1\na: &a [x, x, x, x, x, x, x, x, x, x]\n" + levels + "items: [*i]\n")
    assert main(["audit", "--cluster-dump", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "expands through its aliases" in err



def _selecting(name: str, selector: dict | None = None, affinity: dict | None = None) -> dict:
    spec = {"containers": [{"name": "c", "image": "busybox"}]}
    if selector:
        spec["nodeSelector"] = selector
    if affinity:
        spec["affinity"] = affinity
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}},
                                                                               "spec": spec}}}


def test_a_whatif_pool_with_no_node_yet_knows_its_instance_type_and_architecture(tmp_path):
    # the dev stack's pool is g6.xlarge (amd64, linux); the cluster has no node of it yet
    from audit_cluster import eks_node

    arm = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}]}}}
    objects = [eks_node("gpu-1", pool=None, nodegroup="other", instance="g5.xlarge", gpus=1,
                        taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]),
               _selecting("m5-only", {"node.kubernetes.io/instance-type": "m5.large"}),
               _selecting("windows-only", {"kubernetes.io/os": "windows"}),
               _selecting("arm-only", affinity=arm),
               _selecting("anywhere")]
    report = run_audit(load_dump(write(tmp_path, objects)), declared=read_declared("dev", ROOT))
    whatif = {r.ds.display: r.whatif["pool inference as declared"] for r in report.rows if r.ds.origin == "cluster"}
    assert {name: whatif[f"default/{name}"].status for name in ("m5-only", "windows-only", "arm-only")} == {
        "m5-only": "keptOff", "windows-only": "keptOff", "arm-only": "keptOff"}
    assert whatif["default/anywhere"].status == "doesNotRun"
    assert whatif["default/m5-only"].summary.startswith("would be kept off its new nodes by its own selection")
    assert whatif["default/anywhere"].summary.startswith("would not run on its new nodes: ")
