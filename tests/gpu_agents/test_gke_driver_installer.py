"""GKE's NVIDIA driver installer (``gpuAgents.gkeDriverInstaller``) for GKE pools with ``gpuDriverVersion:
INSTALLATION_DISABLED``: the DaemonSet is Google's COS manifest
(``tests/data/gke_driver_installer/cos-daemonset-preloaded.yaml``, a copy of GoogleCloudPlatform/container-engine-accelerators
``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` at 992db81257553607f1477945f1b3219632991829) with the pools'
tolerations and node affinity, installed by default, and the policy pack takes it as the pools' installer."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import yaml
from conftest import ROOT, shipped_project

from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config.loading import load_stack_config
from gpu_node_pool.gpu_agents.gke_driver_installer.values import installer_daemonset, installer_pools
from gpu_node_pool.gpu_agents.pools import agent_pool

UPSTREAM = Path(__file__).parents[1] / "data" / "gke_driver_installer" / "cos-daemonset-preloaded.yaml"


def gke_dev(driver: str = "INSTALLATION_DISABLED", gpu_agents: dict | None = None) -> dict:
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())
    doc["config"]["gpu-node-pools:pools"][0]["accelerator"]["gpuDriverVersion"] = driver
    doc["config"]["gpu-node-pools:pools"][0]["taints"].append("example.com/dedicated=ml:NoExecute")
    if gpu_agents is not None:
        doc["config"]["gpu-node-pools:gpuAgents"] = gpu_agents
    return doc


def specs(doc: dict) -> list:
    config = {k: v for k, v in doc["config"].items()}
    return list(load_stack_config(config, "test").pools)


def plan_json(tmp_path: Path, doc: dict, capsys) -> tuple[int, dict]:
    shipped_project(tmp_path, {"g": yaml.safe_dump(doc, sort_keys=False)})
    code = cli_main(["plan", "--stack", "g", "--project-dir", str(tmp_path), "--json"])
    return code, json.loads(capsys.readouterr().out)


def installers(doc: dict) -> list[dict]:
    return [r for r in doc["resources"] if r.get("type") == "kubernetes:apps/v1:DaemonSet"
            and (r.get("inputs") or {}).get("metadata", {}).get("name") == "nvidia-driver-installer"]


def test_the_daemonset_is_googles_cos_manifest_with_the_pools_tolerations_and_affinity():
    pools = [agent_pool(p) for p in specs(gke_dev())]
    expected = copy.deepcopy(yaml.safe_load(UPSTREAM.read_text()))
    pod = expected["spec"]["template"]["spec"]
    assert pod["tolerations"] == [{"operator": "Exists"}]  # the manifest's catch-all, replaced below
    pod["tolerations"] = [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                          {"key": "example.com/dedicated", "operator": "Exists", "effect": "NoExecute"},
                          {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    term = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]
    term["matchExpressions"].append({"key": "gpu-node-pools/pool", "operator": "In", "values": ["l4-inference"]})
    assert installer_daemonset(pools) == expected


def test_only_gke_pools_without_a_driver_are_served():
    assert [p.name for p in installer_pools(agent_pool(p) for p in specs(gke_dev()))] == ["l4-inference"]
    assert installer_pools(agent_pool(p) for p in specs(gke_dev("LATEST"))) == []


def test_installed_by_default_and_the_pack_finds_no_pool_without_an_installer(tmp_path, capsys):
    code, doc = plan_json(tmp_path, gke_dev(), capsys)
    found = installers(doc)
    assert len(found) == 1, [r.get("type") for r in doc["resources"]]
    assert found[0]["inputs"]["metadata"]["namespace"] == "kube-system"
    assert not any("No NVIDIA driver installer covers" in json.dumps(v) for v in doc["violations"]), doc["violations"]
    assert not any(v.get("enforcement") == "mandatory" for v in doc["violations"]), doc["violations"]
    assert code == 0, doc["violations"]


def test_switched_off_the_pool_is_reported_and_the_warning_names_the_switch(tmp_path, capsys):
    code, doc = plan_json(tmp_path, gke_dev(gpu_agents={"gkeDriverInstaller": {"enabled": False}}), capsys)
    assert installers(doc) == []
    assert any("No NVIDIA driver installer covers" in json.dumps(v) for v in doc["violations"]), doc["violations"]
    warnings = {w["path"]: w["message"] for w in doc["warnings"]}
    assert "gpuAgents.gkeDriverInstaller.enabled: true" in warnings["gpuAgents.gkeDriverInstaller.enabled"]
    assert "nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml" in warnings["pools[0].accelerator.gpuDriverVersion"]
    assert code == 1


def test_no_installer_where_gke_installs_the_driver(tmp_path, capsys):
    code, doc = plan_json(tmp_path, gke_dev("LATEST"), capsys)
    assert installers(doc) == []
    assert code == 0
