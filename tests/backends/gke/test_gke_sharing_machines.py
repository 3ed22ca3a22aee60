"""gke: one setting for GPU sharing (``gpuSharing``; the raw ``accelerator.gpuSharingConfig`` is refused),
time-sharing of GKE's own MIG partitions (partitions x clients), the ``cloud.google.com/compute-class`` label of
a custom ComputeClass, and the Compute Engine machine type / accelerator table (``backends/gke/machines.py``).

Each case goes through ``gpupool plan`` on a stack file, as a user meets it: the message names the stack
file's line, the path, the value, the rule with its source and the fix; accepted pools show the figures the
node advertises."""

from __future__ import annotations

import ast
import copy
import json
import re
import shutil
import textwrap

import builders
import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.backends.gke import render as gke_render
from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings
from gpu_node_pool.gpu_agents.capacity import autoscaler_resources, gke_accelerator_args
from gpu_node_pool.gpu_agents.promise import pool_promise

STACK = "gke-dev"
COMPUTE_CLASS = "cloud.google.com/compute-class"
CC_DOC = "https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes#manual-node-pools"
TOOLKIT = "GoogleCloudPlatform/cluster-toolkit modules/internal/gpu-definition/main.tf@147e356daa10"


def shipped() -> dict:
    """The shipped ``stacks/Pulumi.gke-dev.yaml`` as data."""
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{STACK}.yaml").read_text())


def plan(temp_project, capsys, change, *extra: str) -> tuple[int, str, str, str]:
    """``gpupool plan`` of the shipped gke-dev stack after ``change(pool)``: ``(exit code, stdout, stderr, stack text)``."""
    doc = copy.deepcopy(shipped())
    change(doc["config"]["gpu-node-pools:pools"][0])
    text = yaml.safe_dump(doc, sort_keys=False)
    project = temp_project(STACK, text)
    code = cli_main(["plan", "--stack", STACK, "--project-dir", str(project), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err, text


def _machines():
    from gpu_node_pool.backends.gke import machines

    return machines


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` holding ``needle``."""
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def a100_mig(pool: dict, **more) -> None:
    pool.update(machineType="a2-highgpu-1g", mig={"strategy": "single", "profile": "1g.5gb"}, **more)
    pool["accelerator"].update(type="nvidia-tesla-a100", count=1)


def stack_of(pool_change) -> object:
    doc = copy.deepcopy(shipped())["config"]
    pool_change(doc["gpu-node-pools:pools"][0])
    return validate_stack_config({"cluster": doc["gpu-node-pools:cluster"], "pools": doc["gpu-node-pools:pools"]})


# --- the raw accelerator.gpuSharingConfig: refused, naming gpuSharing --------------------------------------------


def test_raw_gpu_sharing_config_is_refused_at_its_line_with_the_gpu_sharing_that_replaces_it(temp_project, capsys):
    code, _, err, text = plan(temp_project, capsys, lambda p: p["accelerator"].update(
        gpuSharingConfig={"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4}))
    assert code == 2, err
    line = line_of(text, "gpuSharingConfig:")
    msg = next(ln for ln in err.splitlines() if "gpuSharingConfig" in ln)
    assert msg.strip().startswith(f"stacks/Pulumi.{STACK}.yaml:{line}:")
    assert "pools[0].accelerator.gpuSharingConfig: not taken" in msg
    assert "gpuSharing: {strategy: timeSlicing, replicas: 4}" in msg
    assert "container-engine-accelerators pkg/gpu/nvidia/manager.go" in msg
    assert "no resource was registered" in err


def nvidia_plugin_mig(pool: dict, **more) -> None:
    """A MIG pool served by NVIDIA's device plugin instead of GKE's (the three settings that opt out)."""
    a100_mig(pool, nvidiaDevicePlugin=True, **more)
    pool["labels"]["gke-no-default-nvidia-gpu-device-plugin"] = "true"
    pool["accelerator"]["gpuDriverVersion"] = "INSTALLATION_DISABLED"


def suggested_sharing(message: str) -> dict | None:
    """The ``gpuSharing`` a refusal suggests (YAML flow mapping), or None when it suggests none."""
    found = re.search(r"gpuSharing: (\{strategy: [^}]*\})", message)
    return yaml.safe_load(found.group(1)) if found else None


RAW_SHARING = [
    # (pool shape, gpuSharingConfig, the gpuSharing suggested or None for "no sharing", a fragment of the reason)
    ("whole GPUs", {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4},
     {"strategy": "timeSlicing", "replicas": 4}, "(TIME_SHARING -> timeSlicing, MPS -> mps"),
    ("whole GPUs", {"gpuSharingStrategy": "MPS", "maxSharedClientsPerGpu": 2}, {"strategy": "mps", "replicas": 2},
     "maxSharedClientsPerGpu -> replicas"),
    ("whole GPUs", {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 1}, None,
     "maxSharedClientsPerGpu 1 shares nothing (1 client per GPU is no sharing, and gpuSharing takes 2 or more)"),
    ("GKE's MIG", {"gpuSharingStrategy": "MPS", "maxSharedClientsPerGpu": 1}, None, "maxSharedClientsPerGpu 1 shares nothing"),
    ("GKE's MIG", {"gpuSharingStrategy": "MPS", "maxSharedClientsPerGpu": 3}, {"strategy": "timeSlicing", "replicas": 3},
     "MPS is not taken with mig on GKE (its plugin sizes each MPS client from the whole GPU's memory), but GKE "
     "time-shares each MIG partition"),
    ("GKE's MIG", {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2},
     {"strategy": "timeSlicing", "replicas": 2}, "remove it and write, at the pool's level"),
    ("NVIDIA's plugin on MIG", {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2}, None,
     "with mig, NVIDIA's device plugin (nvidiaDevicePlugin: true) shares no MIG device"),
]
SHAPES = {"whole GPUs": lambda p: None, "GKE's MIG": a100_mig, "NVIDIA's plugin on MIG": nvidia_plugin_mig}


@pytest.mark.parametrize("shape, raw, suggested, reason", RAW_SHARING,
                         ids=[f"{r[0]}-{r[1]['gpuSharingStrategy']}x{r[1]['maxSharedClientsPerGpu']}" for r in RAW_SHARING])
def test_the_refusal_suggests_what_the_pool_takes_and_the_suggestion_plans(temp_project, capsys, shape, raw, suggested,
                                                                          reason):
    # before: {MPS, 1} on a MIG pool suggested gpuSharing {strategy: mps, replicas: 1}, which the product refuses twice
    # (replicas < 2; MPS with mig on GKE)
    code, _, err, _ = plan(temp_project, capsys, lambda p: SHAPES[shape](p) or p["accelerator"].update(gpuSharingConfig=raw))
    assert code == 2, err
    msg = next(ln for ln in err.splitlines() if "pools[0].accelerator.gpuSharingConfig: not taken" in ln)
    assert reason in msg, msg
    assert suggested_sharing(msg) == suggested, msg
    if suggested is None:
        assert msg.endswith("remove gpuSharingConfig and write no gpuSharing"), msg
    # the suggestion, applied: the stack config is accepted and planned (policy findings aside: --fail-on none), with no
    # word on gpuSharing; so is no sharing wherever the refusal offers it
    applied = [suggested] if suggested is not None else []
    applied += [None] if suggested is None or "or write no gpuSharing" in msg else []
    for sharing in applied:
        code, _, err, _ = plan(temp_project, capsys, lambda p, s=sharing: SHAPES[shape](p) or (
            p.update(gpuSharing=s) if s is not None else None), "--fail-on", "none")
        assert code == 0, (sharing, err)
        assert "gpuSharing" not in err, (sharing, err)


#: GKE's ``gpu_sharing_strategy`` values, written once: gpu_agents/sharing.py ``GKE_STRATEGY``.
GKE_SPELLINGS = ("TIME_SHARING", "MPS")


def gke_strategy_literals(path) -> list[str]:
    """Where ``path`` writes a GKE sharing strategy as a string literal of its code (docstrings aside)."""
    tree = ast.parse(path.read_text())
    docs = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [f"{path.name}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value in GKE_SPELLINGS and id(n) not in docs]


def test_one_mapping_between_gke_strategies_and_gpu_sharing():
    # before: backends/gke/config.py kept its own reverse table {"TIME_SHARING": "timeSlicing", "MPS": "mps"}
    package = ROOT / "components" / "gpu_node_pool"
    sharing = package / "gpu_agents" / "sharing.py"
    hits = [hit for path in sorted(package.rglob("*.py")) if path != sharing for hit in gke_strategy_literals(path)]
    assert not hits, hits
    assert gke_strategy_literals(sharing)  # the check can fail
    from gpu_node_pool.backends.gke.config import raw_sharing_refusal
    from gpu_node_pool.gpu_agents.sharing import GKE_STRATEGY

    for ours, gke in GKE_STRATEGY.items():
        message = raw_sharing_refusal({"gpuSharingStrategy": gke, "maxSharedClientsPerGpu": 3})
        assert suggested_sharing(message) == {"strategy": ours, "replicas": 3}, message


def test_the_raw_field_is_not_in_the_schema_and_never_rendered():
    from gpu_node_pool.backends.gke.config import GkeAccelerator

    assert "gpuSharingConfig" not in json.dumps(GkeAccelerator.model_json_schema(by_alias=True))
    stack = stack_of(lambda p: p.update(gpuSharing={"strategy": "timeSlicing", "replicas": 3}))
    (accel,) = gke_render.node_pool_args(stack.pools[0], stack.cluster)["node_config"]["guest_accelerators"]
    assert accel["gpu_sharing_config"] == {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 3}


def test_gpu_sharing_on_gke_still_advertises_gpus_times_clients(temp_project, capsys):
    code, out, err, _ = plan(temp_project, capsys, lambda p: p.update(gpuSharing={"strategy": "timeSlicing", "replicas": 4}))
    assert code == 0, err
    assert "GPUs            time-slicing by GKE gpu_sharing_config" in out
    assert "advertises      nvidia.com/gpu: 4 per node" in out


# --- time-sharing GKE's own MIG partitions ------------------------------------------------------------------------


def test_time_sharing_on_gke_mig_partitions_is_accepted_and_counts_partitions_times_clients(temp_project, capsys):
    code, out, err, _ = plan(temp_project, capsys, lambda p: a100_mig(p, gpuSharing={"strategy": "timeSlicing", "replicas": 2}),
                             "--json")
    assert code == 0, err
    (entry,) = json.loads(out)["pools"]
    # 7 x 1g.5gb per A100 40GB, each advertised twice by GKE's plugin
    assert entry["gpus"]["mechanism"] == "mig-single"
    assert entry["gpus"]["advertised"] == {"nvidia.com/gpu": 14}
    assert entry["gpus"]["autoscaler"]["resources"] == {"nvidia.com/gpu": 14}
    assert "gpu_partition_size=1g.5gb, each partition time-shared by 2" in entry["gpus"]["by"]
    (accel,) = entry["accelerators"]
    assert accel["gpuPartitionSize"] == "1g.5gb"
    assert accel["gpuSharingConfig"] == {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2}


def test_the_text_plan_promises_the_shared_partitions(temp_project, capsys):
    code, out, err, _ = plan(temp_project, capsys, lambda p: a100_mig(p, gpuSharing={"strategy": "timeSlicing", "replicas": 3}))
    assert code == 0, err
    assert "advertises      nvidia.com/gpu: 21 per node" in out
    assert "autoscaler      gke: nvidia.com/gpu: 21" in out


def test_mps_on_gke_mig_partitions_stays_refused_with_gke_reason(temp_project, capsys):
    code, _, err, text = plan(temp_project, capsys, lambda p: a100_mig(p, gpuSharing={"strategy": "mps", "replicas": 2}))
    assert code == 2, err
    msg = next(ln for ln in err.splitlines() if "pools[0].gpuSharing" in ln)
    assert f"Pulumi.{STACK}.yaml:{line_of(text, 'gpuSharing:')}:" in msg
    assert "MPS on MIG partitions is not taken on GKE" in msg and "totalMemPerGPU" in msg
    assert "use strategy: timeSlicing" in msg


def test_time_slicing_on_mig_stays_refused_where_nvidias_plugin_would_share():
    from gpu_node_pool.config import ConfigError

    def opted_in(p):
        a100_mig(p, gpuSharing={"strategy": "timeSlicing", "replicas": 2}, nvidiaDevicePlugin=True)
        p["labels"]["gke-no-default-nvidia-gpu-device-plugin"] = "true"
        p["accelerator"]["gpuDriverVersion"] = "INSTALLATION_DISABLED"

    with pytest.raises(ConfigError) as err:
        stack_of(opted_in)
    assert any(str(i).startswith("pools[0].gpuSharing: time-slicing of MIG devices is not derived by this component "
                                 "where NVIDIA's device plugin would do it") for i in err.value.issues)


def test_eks_time_slicing_on_mig_stays_refused():
    from gpu_node_pool.config import ConfigError

    raw = {"cluster": {"name": "c", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
           "devicePlugin": {"provider": "gpu-operator"},
           "pools": [{"name": "m", "backend": "eks-managed", "instanceTypes": ["p4d.24xlarge"], "scaling": {"minSize": 0, "maxSize": 1},
                      "mig": {"strategy": "single", "profile": "1g.5gb"}, "gpuSharing": {"strategy": "timeSlicing", "replicas": 2}}]}
    with pytest.raises(ConfigError) as err:
        validate_stack_config(raw)
    assert any("time-slicing of MIG devices is not derived" in str(i) for i in err.value.issues)


def test_capacity_figures_agree_for_shared_partitions():
    stack = stack_of(lambda p: a100_mig(p, gpuSharing={"strategy": "timeSlicing", "replicas": 4}))
    pool = stack.pools[0]
    assert autoscaler_resources(pool) == {"nvidia.com/gpu": 28}
    assert pool_promise(pool, "nvidia-device-plugin")["advertised"] == {"nvidia.com/gpu": 28}
    assert gke_accelerator_args(pool) == {
        "gpu_sharing_config": {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 4},
        "gpu_partition_size": "1g.5gb",
    }


# --- cloud.google.com/compute-class -------------------------------------------------------------------------------


def test_the_compute_class_label_and_taint_are_accepted_and_rendered(temp_project, capsys):
    def change(p):
        p["labels"][COMPUTE_CLASS] = "gpu-l4"
        p["taints"].append(f"{COMPUTE_CLASS}=gpu-l4:NoSchedule")

    code, out, err, _ = plan(temp_project, capsys, change)
    assert code == 0, err + out
    assert f"{COMPUTE_CLASS}=gpu-l4:NO_SCHEDULE" in out and f"{COMPUTE_CLASS}=gpu-l4," in out
    assert "warning" not in err


def test_a_compute_class_taint_naming_another_class_is_refused(temp_project, capsys):
    def change(p):
        p["labels"][COMPUTE_CLASS] = "gpu-l4"
        p["taints"].append(f"{COMPUTE_CLASS}=other:NoSchedule")

    code, _, err, text = plan(temp_project, capsys, change)
    assert code == 2, err
    msg = next(ln for ln in err.splitlines() if COMPUTE_CLASS in ln)
    assert f"Pulumi.{STACK}.yaml:{line_of(text, COMPUTE_CLASS + ':')}:" in msg
    assert f"pools[0].labels['{COMPUTE_CLASS}']: 'gpu-l4', but taints has '{COMPUTE_CLASS}=other:NoSchedule'" in msg
    assert CC_DOC in msg and f"write '{COMPUTE_CLASS}=gpu-l4:NoSchedule' in taints" in msg


def test_a_compute_class_label_without_its_taint_is_a_warning(temp_project, capsys):
    code, _, err, _ = plan(temp_project, capsys, lambda p: p["labels"].update({COMPUTE_CLASS: "gpu-l4"}))
    assert code == 0, err
    assert f"warning: stacks/Pulumi.{STACK}.yaml:" in err
    assert f"pools[0].labels['{COMPUTE_CLASS}']: 'gpu-l4' without the taint '{COMPUTE_CLASS}=gpu-l4:NoSchedule'" in err
    assert CC_DOC in err


def compute_class_pool(pool: dict) -> None:
    pool["labels"][COMPUTE_CLASS] = "gpu-l4"
    pool["taints"].append(f"{COMPUTE_CLASS}=gpu-l4:NoSchedule")


def workload(node_selector: dict, tolerations: list | None = None) -> str:
    """A Deployment requesting one GPU with ``node_selector`` (and ``tolerations``), as program text."""
    spec = {"nodeSelector": node_selector, "containers": [
        {"name": "vllm", "image": "vllm/vllm-openai:v0.10.0", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return textwrap.dedent(f"""
        k8s.apps.v1.Deployment(
            "vllm",
            metadata={{"name": "vllm", "namespace": "ml"}},
            spec={{"selector": {{"matchLabels": {{"app": "vllm"}}}},
                  "template": {{"metadata": {{"labels": {{"app": "vllm"}}}}, "spec": {spec!r}}}}},
        )
        """)


def plan_with_workload(tmp_path, capsys, program: str) -> tuple[int, dict]:
    """``gpupool plan --json`` of the gke-dev stack with a compute-class pool, its program declaring ``program`` too."""
    doc = copy.deepcopy(shipped())
    compute_class_pool(doc["config"]["gpu-node-pools:pools"][0])
    project = tmp_path / f"project{len(list(tmp_path.iterdir()))}"
    (project / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    (project / "stacks" / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    (project / "__main__.py").write_text("import pulumi_kubernetes as k8s\nfrom gpu_node_pool.component.program import main"
                                         "\n\nmain()\n" + program)
    code = cli_main(["plan", "--stack", STACK, "--project-dir", str(project), "--json"])
    return code, json.loads(capsys.readouterr().out)


TOLERATE = "gpu-workloads-tolerate-their-pool"


def test_a_workload_selecting_the_compute_class_is_not_judged_on_its_taint(tmp_path, capsys):
    # before: "Deployment ml/vllm selects GPU nodes it can never land on ...: cloud.google.com/compute-class=gpu-l4:
    # NoSchedule not tolerated", a finding GKE's documentation does not support (nor refute): GKE may add that toleration
    code, report = plan_with_workload(tmp_path, capsys, workload({COMPUTE_CLASS: "gpu-l4"}))
    assert code == 0, report
    assert [v for v in report["violations"] if v["policy"] == TOLERATE and "never land" in v["message"]] == []
    (item,) = [n for n in report["notJudged"] if "Deployment ml/vllm" in n["reason"]]
    assert ('Deployment ml/vllm: not judged: on GPU pool pools[0] "l4-inference" (gke: gcp:container/nodePool:NodePool '
            f"l4-inference-node-pool) its only untolerated taint is {COMPUTE_CLASS}=gpu-l4:NoSchedule, the taint of the "
            f"custom ComputeClass gpu-l4 it selects (nodeSelector {COMPUTE_CLASS}: gpu-l4)") in item["reason"]
    assert "GKE's documentation does not say whether GKE adds the matching toleration" in item["reason"]
    assert CC_DOC in item["reason"]
    assert item["reason"].endswith(f"add the toleration {{key: {COMPUTE_CLASS}, operator: Equal, value: gpu-l4, "
                                   "effect: NoSchedule} to be certain")
    assert item["fix"].startswith("add the toleration the reason names")  # not "make the values known at preview"


def test_a_compute_class_workload_missing_another_taint_is_still_a_finding(tmp_path, capsys):
    pool_label = {"gpu-node-pools/pool": "l4-inference"}
    other = [{"key": COMPUTE_CLASS, "operator": "Equal", "value": "gpu-l4", "effect": "NoSchedule"}]
    code, report = plan_with_workload(tmp_path, capsys, workload({COMPUTE_CLASS: "gpu-l4", **pool_label}, other))
    assert code == 0, report
    assert not [v for v in report["violations"] if v["policy"] == TOLERATE]  # tolerates both: GPU by admission
    # a class it does not select: GKE adds nothing for it, a finding as before
    code, report = plan_with_workload(tmp_path, capsys, workload(pool_label))
    (found,) = [v for v in report["violations"] if v["policy"] == TOLERATE]
    assert f"{COMPUTE_CLASS}=gpu-l4:NoSchedule not tolerated" in found["message"]


CC_TAINT = f"{COMPUTE_CLASS}=gpu-l4:NoSchedule"
CC_POOLS = {
    "gke": lambda *taints: builders.gke_pool(taints=("nvidia.com/gpu=present:NoSchedule", *taints),
                                             labels={"nvidia.com/gpu.present": "true", COMPUTE_CLASS: "gpu-l4"}),
    "eks": lambda *taints: builders.node_group(taints=("nvidia.com/gpu=present:NoSchedule", *taints),
                                               labels={"nvidia.com/gpu.present": "true", COMPUTE_CLASS: "gpu-l4"}),
}
CC_CASES = [
    # (platform, the pool's other taints, the workload's nodeSelector, not judged (True) or a finding (False))
    ("gke", (), {COMPUTE_CLASS: "gpu-l4"}, True),
    ("gke", ("team=ml:NoSchedule",), {COMPUTE_CLASS: "gpu-l4"}, False),  # another taint it misses: a finding
    ("gke", (), {"nvidia.com/gpu.present": "true"}, False),  # selects no class: GKE adds nothing
    ("eks", (), {COMPUTE_CLASS: "gpu-l4"}, False),  # not GKE: no compute classes
]


@pytest.mark.parametrize("platform, others, selector, unsure", CC_CASES, ids=["selects", "other-taint", "no-class", "eks"])
def test_only_a_selected_compute_class_taint_on_gke_leaves_a_workload_not_judged(platform, others, selector, unsure):
    from gpu_node_pool.policies import rules

    pool = CC_POOLS[platform](CC_TAINT, *others)
    app = builders.deployment("vllm", "ml", node_selector=selector, resources={"limits": {"nvidia.com/gpu": 1}})
    found = builders.run(rules.gpu_workloads_tolerate_their_pool.POLICY, [pool, app])
    notes = builders.cannot_run(rules.gpu_workloads_tolerate_their_pool.POLICY, [pool, app])
    assert bool(notes) is unsure and bool(found) is not unsure, (found, notes)
    if not unsure:
        assert f"{CC_TAINT} not tolerated" in found[0]["message"] or "team=ml:NoSchedule" in found[0]["message"]


def test_other_cloud_google_com_labels_stay_refused_and_name_the_one_exception(temp_project, capsys):
    code, _, err, _ = plan(temp_project, capsys, lambda p: p["labels"].update({"cloud.google.com/gke-spot": "true"}))
    assert code == 2, err
    assert "pools[0].labels['cloud.google.com/gke-spot']: label 'cloud.google.com/gke-spot' is in the cloud.google.com domain" in err
    assert f"only {COMPUTE_CLASS} is taken" in err


# --- machine types and accelerators ---------------------------------------------------------------------------------

REFUSED = [
    ("a2-highgpu-3g", "nvidia-tesla-a100", 3, "machineType",
     "'a2-highgpu-3g' does not exist: A2 High comes as a2-highgpu-1g, a2-highgpu-2g, a2-highgpu-4g, a2-highgpu-8g"),
    ("a2-megagpu-8g", "nvidia-tesla-a100", 8, "machineType", "A2 Mega comes as a2-megagpu-16g"),
    ("a2-ultragpu-3g", "nvidia-a100-80gb", 3, "machineType", "A2 Ultra comes as a2-ultragpu-1g"),
    ("a4x-highgpu-4g", "nvidia-l4", 4, "accelerator.type",
     "'nvidia-l4': machine type a4x-highgpu-4g (A4X, Arm: NVIDIA Grace) comes with nvidia-gb200"),
    ("a4x-highgpu-4g", "nvidia-gb200", 8, "accelerator.count", "comes with 4 x nvidia-gb200"),
    ("a4x-maxgpu-4g-metal", "nvidia-gb200", 4, "accelerator.type",
     "'nvidia-gb200': machine type a4x-maxgpu-4g-metal (A4X Max, Arm: NVIDIA Grace) comes with nvidia-gb300"),
    ("a4x-maxgpu-8g-metal", "nvidia-gb300", 8, "machineType", "A4X Max comes as a4x-maxgpu-4g-metal"),
    ("a3-megagpu-8g", "nvidia-h100-80gb", 8, "accelerator.type", "comes with nvidia-h100-mega-80gb"),
    ("g4-standard-96", "nvidia-rtx-pro-6000", 1, "accelerator.count", "comes with 2 x nvidia-rtx-pro-6000"),
    ("n1-standard-96", "nvidia-tesla-t4", 1, "machineType",
     "'n1-standard-96' has 96 vCPUs, but an N1 VM with 1 x nvidia-tesla-t4 has at most 48"),
    ("n1-highmem-32", "nvidia-tesla-v100", 2, "machineType", "with 2 x nvidia-tesla-v100 has at most 24"),
    ("n1-standard-8", "nvidia-tesla-t4", 3, "accelerator.count", "an N1 VM takes 1, 2 or 4 x nvidia-tesla-t4"),
    ("n2-standard-8", "nvidia-tesla-t4", 1, "machineType", "GPUs cannot be attached to the N2 series"),
]


@pytest.mark.parametrize("machine, accel, count, path, fragment", REFUSED, ids=[f"{r[0]}+{r[2]}x{r[1]}" for r in REFUSED])
def test_pairs_compute_engine_rejects_are_refused_at_their_line_with_source(temp_project, capsys, machine, accel, count, path,
                                                                             fragment):
    def change(p):
        p["machineType"] = machine
        p["accelerator"].update(type=accel, count=count)

    code, _, err, text = plan(temp_project, capsys, change)
    assert code == 2, err
    key = path.rsplit(".", 1)[-1]
    needle = f"{key}: {machine}" if key == "machineType" else (f"type: {accel}" if key == "type" else f"count: {count}")
    msg = next(ln for ln in err.splitlines() if f"pools[0].{path}:" in ln)
    assert f"Pulumi.{STACK}.yaml:{line_of(text, needle)}:" in msg, (needle, msg)
    assert fragment in msg, msg
    assert "https://cloud.google.com/compute/docs/gpus" in msg


def test_the_n1_limit_names_the_count_that_fits():
    (p,) = _machines().machine_problems("n1-standard-96", "nvidia-tesla-t4", 1)
    assert p.key == ("machineType",) and "or accelerator.count: 4" in p.message and not p.warning


ACCEPTED = [
    ("a2-highgpu-8g", "nvidia-tesla-a100", 8), ("a2-megagpu-16g", "nvidia-tesla-a100", 16),
    ("a2-ultragpu-4g", "nvidia-a100-80gb", 4), ("a3-highgpu-1g", "nvidia-h100-80gb", 1),
    ("a3-highgpu-8g-nolssd", "nvidia-h100-80gb", 8), ("a3-megagpu-8g", "nvidia-h100-mega-80gb", 8),
    ("a3-ultragpu-8g", "nvidia-h200-141gb", 8), ("a3-edgegpu-8g", "nvidia-h100-80gb", 8),
    ("a4-highgpu-8g", "nvidia-b200", 8), ("a4-highgpu-8g-lowmem", "nvidia-b200", 8),
    ("a4x-highgpu-4g", "nvidia-gb200", 4), ("a4x-highgpu-4g-nolssd", "nvidia-gb200", 4),
    # variants and the series sourced since the table was first written (machines.py names each source and commit)
    ("a3-ultragpu-8g-nolssd", "nvidia-h200-141gb", 8), ("a4-highgpu-8g-nolssd", "nvidia-b200", 8),
    ("a4x-maxgpu-4g-metal", "nvidia-gb300", 4),
    ("g2-standard-24", "nvidia-l4", 2), ("g4-standard-384", "nvidia-rtx-pro-6000", 8),
    ("n1-standard-48", "nvidia-tesla-t4", 1), ("n1-standard-96", "nvidia-tesla-t4", 4),
    ("n1-highmem-12", "nvidia-tesla-v100", 1), ("n1-standard-16", "nvidia-tesla-p100", 1),
]


@pytest.mark.parametrize("machine, accel, count", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_sourced_pairs_are_accepted_without_a_warning(machine, accel, count):
    assert _machines().machine_problems(machine, accel, count) == []


WARNED = [
    ("z9-standard-48", "nvidia-l4", 1, "is of a machine series the component's table does not list"),
    ("g4-standard-6", "nvidia-rtx-pro-6000", 1, "lists G4 as g4-standard-48, g4-standard-96, g4-standard-192, g4-standard-384 only"),
    ("a3-edgegpu-4g", "nvidia-h100-80gb", 4, "lists A3 Edge as a3-edgegpu-8g only"),
    ("a3-megagpu-8g-nolssd", "nvidia-h100-mega-80gb", 8, "the variant '-nolssd' of a3-megagpu-8g is not in the component's table"),
    ("a2-ultragpu-1g-nolssd", "nvidia-a100-80gb", 1, "the variant '-nolssd' of a2-ultragpu-1g is not in the component's table"),
    ("a4x-maxgpu-4g", "nvidia-gb300", 4, "the component's table has A4X Max only as a4x-maxgpu-4g-metal"),
    ("n1-custom-8-30720", "nvidia-tesla-t4", 1, "the vCPUs of this N1 machine type are not read"),
]


@pytest.mark.parametrize("machine, accel, count, fragment", WARNED, ids=[w[0] for w in WARNED])
def test_what_the_table_cannot_judge_is_a_warning_never_a_silent_accept(machine, accel, count, fragment):
    stack = stack_of(lambda p: (p.update(machineType=machine), p["accelerator"].update(type=accel, count=count)))
    warnings = [str(w) for w in stack_warnings(stack)]
    assert any(w.startswith("pools[0].machineType:") and fragment in w for w in warnings), warnings


def test_a4x_max_plans_four_gb300_per_node(temp_project, capsys):
    # before: a4x-maxgpu-4g-metal was "of a machine series the component's table does not list" (a warning)
    def change(p):
        p["machineType"] = "a4x-maxgpu-4g-metal"
        p["accelerator"].update(type="nvidia-gb300", count=4)

    code, out, err, _ = plan(temp_project, capsys, change, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["warnings"] == [], report["warnings"]
    (entry,) = report["pools"]
    assert entry["gpus"]["advertised"] == {"nvidia.com/gpu": 4}
    (accel,) = entry["accelerators"]
    assert accel["type"] == "nvidia-gb300" and accel["count"] == 4


def test_an_unknown_series_warns_through_the_plan_at_its_line(temp_project, capsys):
    code, _, err, text = plan(temp_project, capsys, lambda p: p.update(machineType="z9-standard-48"))
    assert code == 0, err
    assert f"warning: stacks/Pulumi.{STACK}.yaml:{line_of(text, 'machineType:')}:" in err
    assert "'z9-standard-48' is of a machine series the component's table does not list" in err
    assert "is not judged" in err


def test_the_table_is_the_one_place_for_gpus_and_architecture():
    from gpu_node_pool.backends.gke.labels import _per_type

    machines = _machines()
    assert machines.fixed_gpus("a4x-highgpu-4g") == ("nvidia-gb200", 4)
    assert machines.fixed_gpus("g2-standard-48") == ("nvidia-l4", 4)
    assert machines.fixed_gpus("n1-standard-8") is None
    assert _per_type("a4x-highgpu-4g")[0] == {"kubernetes.io/arch": "arm64"}
    assert machines.fixed_gpus("a4x-maxgpu-4g-metal") == ("nvidia-gb300", 4)
    assert _per_type("a4x-maxgpu-4g-metal")[0] == {"kubernetes.io/arch": "arm64"}
    assert _per_type("a4x-ultragpu-4g")[0] == {"kubernetes.io/arch": "arm64"}  # a series the table lacks, still A4X
    assert _per_type("a3-highgpu-8g")[0] == {"kubernetes.io/arch": "amd64"}
    assert all(s.source for s in machines.GPU_SERIES)
    assert TOOLKIT in machines.GPU_SERIES[0].source
