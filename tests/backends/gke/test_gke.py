"""The gke backend: config rules, the pure NodePool renderer, the inputs under mocks, the plan and the CLI."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from builders import config_errors
from conftest import ROOT  # noqa: E402

from gpu_node_pool.backends.gke import read as gke_read
from gpu_node_pool.backends.gke import render as gke_render
from gpu_node_pool.backends.gke.config import GkePool
from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config import DEFAULT_TAINT, validate_stack_config
from gpu_node_pool.k8s.labels import gke_label_problem
from gpu_node_pool.k8s.taints import Taint, TaintEffect
from gpu_node_pool.plan import plan_stack, render_text

NODE_POOL = "gcp:container/nodePool:NodePool"
OPT_OUT = "gke-no-default-nvidia-gpu-device-plugin"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"


def base() -> dict:
    """A valid GKE stack: one L4 pool scaling from zero, with one custom taint."""
    return {
        "cluster": {"name": "ml-gke-dev", "project": "acme-ml-dev", "location": "us-central1"},
        "pools": [
            {
                "name": "l4-inference",
                "backend": "gke",
                "machineType": "g2-standard-8",
                "accelerator": {"type": "nvidia-l4", "count": 1},
                "autoscaling": {"minSize": 0, "maxSize": 4},
                "taints": ["workload=inference:NoSchedule"],
                "labels": {"example.com/team": "ml"},
            }
        ],
    }


def opted_in() -> dict:
    """A valid pool served by NVIDIA's plugin: opt-in, opt-out label and no GKE driver, together."""
    cfg = base()
    p = cfg["pools"][0]
    p["nvidiaDevicePlugin"] = True
    p["labels"][OPT_OUT] = "true"
    p["accelerator"]["gpuDriverVersion"] = "INSTALLATION_DISABLED"
    return cfg


def pool_of(cfg: dict) -> tuple[GkePool, object]:
    stack = validate_stack_config(cfg)
    return stack.pools[0], stack.cluster


def stack_yaml(cfg: dict) -> str:
    return yaml.safe_dump(
        {"config": {"gpu-node-pools:cluster": cfg["cluster"], "gpu-node-pools:pools": cfg["pools"]}},
        sort_keys=False,
    )


# --- config -----------------------------------------------------------------------------


def test_the_base_pool_is_valid_and_keeps_gke_plugin_and_latest_driver():
    pool, _ = pool_of(base())
    assert isinstance(pool, GkePool)
    assert pool.accelerator.gpu_driver_version == "LATEST"
    assert pool.oauth_scopes == [CLOUD_PLATFORM]
    assert pool.uses_nvidia_device_plugin is False


def test_the_gpu_taint_is_added_after_the_users_taints_when_missing():
    pool, _ = pool_of(base())
    assert [str(t) for t in pool.taint_list] == [
        "workload=inference:NoSchedule",
        "nvidia.com/gpu=present:NoSchedule",
    ]


def test_the_gpu_taint_is_added_even_to_an_explicitly_empty_taint_list():
    cfg = base()
    cfg["pools"][0]["taints"] = []
    pool, _ = pool_of(cfg)
    assert pool.taint_list == [DEFAULT_TAINT]


def test_a_declared_gpu_taint_is_kept_once_in_its_config_position():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule", "workload=inference:NoSchedule"]
    pool, _ = pool_of(cfg)
    assert [str(t) for t in pool.taint_list] == [
        "nvidia.com/gpu=present:NoSchedule",
        "workload=inference:NoSchedule",
    ]


def test_a_gpu_taint_with_another_effect_does_not_replace_the_no_schedule_one():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoExecute"]
    pool, _ = pool_of(cfg)
    assert [str(t) for t in pool.taint_list] == [
        "nvidia.com/gpu=present:NoExecute",
        "nvidia.com/gpu=present:NoSchedule",
    ]


def test_all_three_opt_in_settings_together_select_nvidias_plugin():
    pool, _ = pool_of(opted_in())
    assert pool.uses_nvidia_device_plugin is True


@pytest.mark.parametrize(
    "key, refused",
    [
        ("example.com/team", False),
        ("workload", False),
        (OPT_OUT, False),
        ("kubernetes.io/role", True),
        ("node-role.kubernetes.io/gpu", True),
        ("k8s.io/x", True),
        ("cloud.google.com/gke-nodepool", True),
        ("cloud.google.com/compute-class", False),
        ("cloud.google.com.example.com/x", False),
    ],
)
def test_gke_label_rule(key, refused):
    assert (gke_label_problem(key, "v") is not None) is refused


def mutate(fn) -> dict:
    cfg = base()
    fn(cfg)
    return cfg


P = "pools[0]"
MISTAKES = [
    ("opt-out label without INSTALLATION_DISABLED", lambda c: c["pools"][0]["labels"].update({OPT_OUT: "true"}),
     P, "without a driver"),
    ("nvidiaDevicePlugin and INSTALLATION_DISABLED without the opt-out label",
     lambda c: (c["pools"][0].update({"nvidiaDevicePlugin": True}),
                c["pools"][0]["accelerator"].update({"gpuDriverVersion": "INSTALLATION_DISABLED"})), P, "second plugin"),
    ("opt-in alone", lambda c: c["pools"][0].update({"nvidiaDevicePlugin": True}), P, "GKE's own plugin still"),
    ("label and no driver but no opt-in",
     lambda c: (c["pools"][0]["labels"].update({OPT_OUT: "true"}),
                c["pools"][0]["accelerator"].update({"gpuDriverVersion": "INSTALLATION_DISABLED"})),
     P, "nothing would advertise"),
    ("opt-out label with a value other than true", lambda c: c["pools"][0]["labels"].update({OPT_OUT: "yes"}),
     f"{P}.labels.{OPT_OUT}", "value 'true' only"),
    ("kubernetes.io label", lambda c: c["pools"][0]["labels"].update({"node-role.kubernetes.io/gpu": "true"}),
     f"{P}.labels['node-role.kubernetes.io/gpu']", "kubernetes.io domain"),
    ("cloud.google.com label", lambda c: c["pools"][0]["labels"].update({"cloud.google.com/gke-spot": "true"}),
     f"{P}.labels['cloud.google.com/gke-spot']", "GKE manages"),
    ("gpuLabel in cloud.google.com",
     lambda c: c["pools"][0].update({"gpuLabel": {"key": "cloud.google.com/gke-accelerator", "value": "nvidia-l4"}}),
     P, "gpuLabel"),
    ("duplicate key and effect", lambda c: c["pools"][0].update({"taints": ["a=1:NoSchedule", "a=2:NoSchedule"]}),
     f"{P}.taints", "both have key 'a' and effect NoSchedule"),
    ("GPU taint with a value other than present",
     lambda c: c["pools"][0].update({"taints": ["nvidia.com/gpu=true:NoSchedule"]}), f"{P}.taints", "present"),
    ("GKE spelling of an effect", lambda c: c["pools"][0].update({"taints": ["a=1:NO_SCHEDULE"]}),
     f"{P}.taints[0].effect", "write NoSchedule"),
    ("machine type with another GPU", lambda c: c["pools"][0]["accelerator"].update({"type": "nvidia-tesla-t4"}),
     f"{P}.accelerator.type", "comes with nvidia-l4"),
    ("wrong GPU count", lambda c: c["pools"][0].update({"machineType": "g2-standard-48"}), f"{P}.accelerator.count",
     "4 x nvidia-l4"),
    ("not an NVIDIA accelerator", lambda c: c["pools"][0]["accelerator"].update({"type": "tpu-v5"}),
     f"{P}.accelerator.type", "nvidia-"),
    ("unknown driver version", lambda c: c["pools"][0]["accelerator"].update({"gpuDriverVersion": "latest"}),
     f"{P}.accelerator.gpuDriverVersion", "LATEST"),
    ("raw accelerator.gpuSharingConfig",
     lambda c: c["pools"][0]["accelerator"].update(
         {"gpuSharingConfig": {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 4}}),
     f"{P}.accelerator.gpuSharingConfig", "gpuSharing: {strategy: timeSlicing, replicas: 4}"),
    ("pool name too long for a GKE node pool", lambda c: c["pools"][0].update({"name": "a" * 23}),
     f"{P}.name", "at most 22"),
    ("desiredSize", lambda c: c["pools"][0]["autoscaling"].update({"desiredSize": 1}), f"{P}.autoscaling",
     "per zone"),
    ("zone outside the region", lambda c: c["pools"][0].update({"nodeLocations": ["europe-west4-a"]}),
     f"{P}.nodeLocations", "outside the cluster's region us-central1"),
    ("missing project", lambda c: c["cluster"].pop("project"), "cluster.project", "missing"),
    ("missing location", lambda c: c["cluster"].pop("location"), "cluster.location", "missing"),
    ("upper-case cluster name", lambda c: c["cluster"].update({"name": "ML-dev"}), "cluster.name", "GKE cluster name"),
    ("an EKS pool beside a gke pool",
     lambda c: c["pools"].append({"name": "eks", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
                                  "scaling": {"minSize": 0, "maxSize": 1}}),
     "pools[1].backend", "one cluster"),
    ("typo in a gke key", lambda c: c["pools"][0].update({"machinType": "x"}), f"{P}.machinType", "machineType"),
]


@pytest.mark.parametrize("desc, change, path, fragment", MISTAKES, ids=[m[0] for m in MISTAKES])
def test_each_gke_mistake_names_its_path_and_rule(desc, change, path, fragment):
    errors = config_errors(mutate(change))
    assert any(e.startswith(path + ":") and fragment in e for e in errors), errors


# --- pure renderer ----------------------------------------------------------------------


def test_node_pool_args_are_the_exact_provider_inputs():
    pool, cluster = pool_of(base())
    assert gke_render.node_pool_args(pool, cluster) == {
        "cluster": "ml-gke-dev",
        "location": "us-central1",
        "project": "acme-ml-dev",
        "autoscaling": {"total_min_node_count": 0, "total_max_node_count": 4},
        "node_config": {
            "machine_type": "g2-standard-8",
            "spot": False,
            "oauth_scopes": [CLOUD_PLATFORM],
            "guest_accelerators": [
                {"type": "nvidia-l4", "count": 1, "gpu_driver_installation_config": {"gpu_driver_version": "LATEST"}}
            ],
            "labels": {
                "example.com/team": "ml",
                "gpu-node-pools/pool": "l4-inference",
                "nvidia.com/gpu.present": "true",
            },
            "taints": [
                {"key": "workload", "value": "inference", "effect": "NO_SCHEDULE"},
                {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
            ],
        },
    }


def test_node_pool_args_are_deterministic_in_content_and_key_order():
    pool, cluster = pool_of(base())
    one, two = gke_render.node_pool_args(pool, cluster), gke_render.node_pool_args(pool, cluster)
    assert one == two and list(one) == list(two) and list(one["node_config"]) == list(two["node_config"])
    assert list(one["node_config"]["labels"]) == sorted(one["node_config"]["labels"])


def test_every_effect_is_written_in_gke_spelling_and_reads_back():
    cfg = base()
    cfg["pools"][0]["taints"] = ["a=1:NoSchedule", "b=2:PreferNoSchedule", "c:NoExecute"]
    pool, cluster = pool_of(cfg)
    taints = gke_render.node_pool_args(pool, cluster)["node_config"]["taints"]
    assert [t["effect"] for t in taints] == [e.provider_spelling for e in (
        TaintEffect.NO_SCHEDULE, TaintEffect.PREFER_NO_SCHEDULE, TaintEffect.NO_EXECUTE, TaintEffect.NO_SCHEDULE)]
    assert taints[2] == {"key": "c", "value": "", "effect": "NO_EXECUTE"}
    assert [Taint.from_provider(t) for t in taints] == pool.taint_list


def test_optional_fields_appear_only_when_set():
    cfg = base()
    p = cfg["pools"][0]
    p.update(spot=True, nodeLocations=["us-central1-a", "us-central1-c"],
             serviceAccount="gpu-nodes@acme-ml-dev.iam.gserviceaccount.com")
    p["gpuSharing"] = {"strategy": "timeSlicing", "replicas": 4}
    pool, cluster = pool_of(cfg)
    args = gke_render.node_pool_args(pool, cluster)
    assert args["node_locations"] == ["us-central1-a", "us-central1-c"]
    assert args["node_config"]["spot"] is True
    assert args["node_config"]["service_account"] == "gpu-nodes@acme-ml-dev.iam.gserviceaccount.com"
    assert args["node_config"]["guest_accelerators"][0]["gpu_sharing_config"] == {
        "gpu_sharing_strategy": "TIME_SHARING",
        "max_shared_clients_per_gpu": 4,
    }
    plain = gke_render.node_pool_args(*pool_of(base()))
    assert "node_locations" not in plain and "service_account" not in plain["node_config"]
    assert "gpu_sharing_config" not in plain["node_config"]["guest_accelerators"][0]


def test_the_opt_out_renders_the_label_and_no_driver_install():
    pool, cluster = pool_of(opted_in())
    node_config = gke_render.node_pool_args(pool, cluster)["node_config"]
    assert node_config["labels"][OPT_OUT] == "true"
    assert node_config["guest_accelerators"][0]["gpu_driver_installation_config"] == {
        "gpu_driver_version": "INSTALLATION_DISABLED"
    }


def test_the_readers_take_camel_case_provider_inputs():
    props = {
        "nodeConfig": {
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
            "labels": {"a": "b"},
            "guestAccelerators": [{"type": "nvidia-l4", "count": 1}],
        }
    }
    assert gke_read.read_node_pool_taints(props) == [DEFAULT_TAINT]
    assert gke_read.read_node_pool_labels(props) == {"a": "b"}
    assert gke_read.read_node_pool_accelerators(props) == [{"type": "nvidia-l4", "count": 1}]
    assert gke_read.read_node_pool_taints({}) == [] and gke_read.read_node_pool_labels({"nodeConfig": None}) == {}


# --- under Pulumi mocks (the real program) -----------------------------------------------


@pytest.fixture(scope="module")
def base_plan(tmp_path_factory):
    return plan_in(tmp_path_factory.mktemp("gke"), base())


def plan_in(project: Path, cfg: dict):
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (project / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (project / "stacks").mkdir(exist_ok=True)
    (project / "stacks" / "Pulumi.t.yaml").write_text(stack_yaml(cfg))
    return plan_stack("t", project)


def test_the_node_pool_carries_the_exact_node_config(base_plan):
    assert base_plan.exit_code == 0
    node_pool = {r.name: r for r in base_plan.resources if r.type == NODE_POOL}["l4-inference-node-pool"]
    node_config = node_pool.inputs["nodeConfig"]
    assert node_config["taints"] == [
        {"key": "workload", "value": "inference", "effect": "NO_SCHEDULE"},
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
    ]
    assert node_config["labels"] == {
        "example.com/team": "ml",
        "gpu-node-pools/pool": "l4-inference",
        "nvidia.com/gpu.present": "true",
    }
    assert node_config["guestAccelerators"] == [
        {"type": "nvidia-l4", "count": 1, "gpuDriverInstallationConfig": {"gpuDriverVersion": "LATEST"}}
    ]
    assert node_config["machineType"] == "g2-standard-8"
    assert node_pool.inputs["autoscaling"] == {"totalMinNodeCount": 0, "totalMaxNodeCount": 4}
    assert (node_pool.inputs["cluster"], node_pool.inputs["location"], node_pool.inputs["project"]) == (
        "ml-gke-dev", "us-central1", "acme-ml-dev")


def test_the_recorded_taints_read_back_to_the_pools_taints(base_plan):
    node_pool = next(r for r in base_plan.resources if r.type == NODE_POOL)
    pool = base_plan.config.pools[0]
    assert gke_read.read_node_pool_taints(node_pool.inputs) == pool.taint_list


def test_the_node_pool_is_a_child_of_the_component_and_no_device_plugin_is_installed(base_plan):
    types = [r.type for r in base_plan.resources]
    assert types == ["gpu-node-pools:index:GpuNodePool", NODE_POOL]
    assert base_plan.device_plugin is None
    assert base_plan.outputs["l4-inference.nodePoolName"] == "(known after apply)"


def test_the_plan_entry_reads_the_pool_back_and_says_gke_manages_the_plugin(base_plan):
    entry = base_plan.pools[0]
    assert entry["taints"] == ["workload=inference:NoSchedule", "nvidia.com/gpu=present:NoSchedule"]
    assert entry["providerField"] == "gcp.container.NodePool.node_config.taints"
    assert [t["effect"] for t in entry["providerTaints"]] == ["NO_SCHEDULE", "NO_SCHEDULE"]
    assert entry["accelerators"][0]["type"] == "nvidia-l4"
    assert entry["devicePlugin"].startswith("managed by GKE")
    assert "device plugin   managed by GKE" in render_text(base_plan)


def test_an_opted_in_pool_gets_nvidias_plugin_tolerating_every_pool_taint(tmp_path):
    result = plan_in(tmp_path, opted_in())
    # The plugin covers the pool, and the driver GKE does not install (INSTALLATION_DISABLED) comes from the stack's
    # GKE driver installer (gpuAgents.gkeDriverInstaller, on by default), which gpu-agents-cover-gpu-pools judges.
    assert result.violations == []
    assert not [n for n in result.not_judged if "driver" in str(n).lower()]
    assert result.device_plugin is not None
    assert all(c["tolerated"] for c in result.device_plugin["coverage"])
    assert {c["taint"] for c in result.device_plugin["coverage"]} == {
        "workload=inference:NoSchedule",
        "nvidia.com/gpu=present:NoSchedule",
    }
    assert result.pools[0]["devicePlugin"].startswith("nvidia-device-plugin chart")


def test_the_repo_gke_dev_stack_plans_clean_with_no_schedule_and_gke_managed_plugin(capsys):
    code = cli_main(["plan", "--stack", "gke-dev", "--project-dir", str(ROOT)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "nvidia.com/gpu=present:NO_SCHEDULE" in out
    assert "device plugin   managed by GKE" in out
    assert "device plugin: not installed by this stack" in out


# --- bad configs through the CLI: exit 2 and a clear message ------------------------------

CLI_MISTAKES = [
    ("opt-out label without INSTALLATION_DISABLED",
     lambda c: c["pools"][0]["labels"].update({OPT_OUT: "true"}),
     [f"labels['{OPT_OUT}'] is 'true' but accelerator.gpuDriverVersion is LATEST", "without a driver",
      "INSTALLATION_DISABLED"]),
    ("kubernetes.io label", lambda c: c["pools"][0]["labels"].update({"kubernetes.io/role": "gpu"}),
     ["pools[0].labels['kubernetes.io/role']: label 'kubernetes.io/role' is in the kubernetes.io domain"]),
    ("cloud.google.com label", lambda c: c["pools"][0]["labels"].update({"cloud.google.com/gke-nodepool": "gpu"}),
     ["pools[0].labels['cloud.google.com/gke-nodepool']: label 'cloud.google.com/gke-nodepool' is in the "
      "cloud.google.com domain", "only cloud.google.com/compute-class is taken"]),
    ("duplicate key and effect",
     lambda c: c["pools"][0].update({"taints": ["nvidia.com/gpu=present:NoSchedule", "nvidia.com/gpu:NoSchedule"]}),
     ["pools[0].taints: taints[0] and taints[1] both have key 'nvidia.com/gpu' and effect NoSchedule"]),
]


@pytest.mark.parametrize("desc, change, fragments", CLI_MISTAKES, ids=[m[0] for m in CLI_MISTAKES])
def test_the_cli_exits_2_with_a_clear_message(desc, change, fragments, temp_project, capsys):
    cfg = copy.deepcopy(base())
    change(cfg)
    project = temp_project("bad", stack_yaml(cfg))
    code = cli_main(["plan", "--stack", "bad", "--project-dir", str(project)])
    out = capsys.readouterr().err  # a config error is on stderr
    assert code == 2, out
    assert "no resource was registered" in out
    for fragment in fragments:
        assert fragment in out, out


# --- node_config pass-through: boot disk and reservations ---------------------------------------


def test_boot_disk_and_reservation_affinity_reach_node_config():
    cfg = base()
    cfg["pools"][0] |= {"diskSizeGb": 200, "diskType": "pd-ssd", "reservationAffinity": {
        "consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": ["l4-reservation"]}}
    pool, cluster = pool_of(cfg)
    node_config = gke_render.node_pool_args(pool, cluster)["node_config"]
    assert node_config["disk_size_gb"] == 200 and node_config["disk_type"] == "pd-ssd"
    assert node_config["reservation_affinity"] == {"consume_reservation_type": "SPECIFIC_RESERVATION",
                                                   "key": "compute.googleapis.com/reservation-name",
                                                   "values": ["l4-reservation"]}
    plain = base()
    pool, cluster = pool_of(plain)
    assert not {"disk_size_gb", "disk_type", "reservation_affinity"} & set(gke_render.node_pool_args(pool, cluster)["node_config"])


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("diskSizeGb", 5, "must be at least 10"),
        ("diskSizeGb", 99999999999999, "must be at most 65536"),
        ("reservationAffinity", {"consumeReservationType": "SPECIFIC_RESERVATION"}, "needs key and values"),
        ("reservationAffinity", {"consumeReservationType": "ANY_RESERVATION", "values": ["x"]}, "SPECIFIC_RESERVATION only"),
    ],
)
def test_bad_pass_through_values_are_refused(field, value, needle):
    cfg = base()
    cfg["pools"][0][field] = value
    errors = config_errors(cfg)
    assert any(f"pools[0].{field}" in e and needle in e for e in errors), errors
