"""gke: one setting for GPU sharing (``gpuSharing``; the raw ``accelerator.gpuSharingConfig`` is refused),
time-sharing of GKE's own MIG partitions (partitions x clients), the ``cloud.google.com/compute-class`` label of
a custom ComputeClass, and the Compute Engine machine type / accelerator table (``backends/gke/machines.py``).

Each case goes through ``gpupool plan`` on a stack file, as a user meets it: the message names the stack
file's line, the path, the value, the rule with its source and the fix; accepted pools show the figures the
node advertises."""

from __future__ import annotations

import copy
import json

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
    assert "nothing was deployed" in err


def test_raw_mps_sharing_maps_to_mps_and_is_refused_even_with_mig(temp_project, capsys):
    # before: accepted with MPS x1 on MIG partitions and a plan promising 7 GPUs nothing shares
    code, _, err, _ = plan(temp_project, capsys, lambda p: a100_mig(p) or p["accelerator"].update(
        gpuSharingConfig={"gpuSharingStrategy": "MPS", "maxSharedClientsPerGpu": 1}))
    assert code == 2, err
    assert "gpuSharing: {strategy: mps, replicas: 1}" in err


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
    ("n1-custom-8-30720", "nvidia-tesla-t4", 1, "the vCPUs of this N1 machine type are not read"),
]


@pytest.mark.parametrize("machine, accel, count, fragment", WARNED, ids=[w[0] for w in WARNED])
def test_what_the_table_cannot_judge_is_a_warning_never_a_silent_accept(machine, accel, count, fragment):
    stack = stack_of(lambda p: (p.update(machineType=machine), p["accelerator"].update(type=accel, count=count)))
    warnings = [str(w) for w in stack_warnings(stack)]
    assert any(w.startswith("pools[0].machineType:") and fragment in w for w in warnings), warnings


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
    assert _per_type("a4x-maxgpu-4g-metal")[0] == {"kubernetes.io/arch": "arm64"}  # a series the table lacks, still A4X
    assert _per_type("a3-highgpu-8g")[0] == {"kubernetes.io/arch": "amd64"}
    assert all(s.source for s in machines.GPU_SERIES)
    assert TOOLKIT in machines.GPU_SERIES[0].source
