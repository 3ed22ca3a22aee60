"""NVIDIA's standalone device plugin on GKE pools: the chart's ``nvidiaDriverRoot`` points at
``/home/kubernetes/bin/nvidia``, where Google's COS installer puts the driver (NVIDIA/k8s-device-plugin@v0.20.0
``templates/daemonset-device-plugin.yml`` mounts it at ``/driver-root``; ``cmd/nvidia-device-plugin/root.go`` finds
``lib64/libnvidia-ml.so.1`` there), set only on an instance whose pools are all COS pools (Google's Ubuntu manifest
states no driver directory: left out and warned); and each such pool is warned that its containers get no GPU
without the NVIDIA container toolkit, which neither GKE nor the chart installs."""

from __future__ import annotations

import json

import yaml
from conftest import ROOT, shipped_project

from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config.loading import load_stack_config
from gpu_node_pool.gpu_agents.device_plugin.chart import chart_daemonset
from gpu_node_pool.gpu_agents.device_plugin.values import chart_values

CLUSTER = {"name": "ml-gke-dev", "project": "acme-ml-dev", "location": "us-central1"}
OPT_OUT = {"gke-no-default-nvidia-gpu-device-plugin": "true"}


def gke_pool(name: str, image: str | None) -> dict:
    pool = {"name": name, "backend": "gke", "machineType": "g2-standard-8",
            "accelerator": {"type": "nvidia-l4", "count": 1, "gpuDriverVersion": "INSTALLATION_DISABLED"},
            "autoscaling": {"minSize": 0, "maxSize": 4}, "labels": dict(OPT_OUT), "nvidiaDevicePlugin": True}
    if image:
        pool["imageType"] = image
    return pool


def gke_stack(*images: str | None, **devices) -> dict:
    pools = [gke_pool(f"p{i}", image) for i, image in enumerate(images or (None,))]
    config = {"gpu-node-pools:cluster": dict(CLUSTER), "gpu-node-pools:pools": pools}
    if devices:
        config["gpu-node-pools:devicePlugin"] = devices
    return config


def test_gke_pools_get_the_driver_root_in_the_values_and_the_rendered_daemonset():
    stack = load_stack_config(gke_stack(), "test")
    values = chart_values(stack.pools, stack.device_plugin)
    assert values["nvidiaDriverRoot"] == "/home/kubernetes/bin/nvidia"
    pod = chart_daemonset(values, "nvidia-device-plugin")["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert {"name": "NVIDIA_DRIVER_ROOT", "value": "/home/kubernetes/bin/nvidia"} in container["env"]
    assert {"name": "driver-root", "mountPath": "/driver-root", "readOnly": True} in container["volumeMounts"]
    assert {"name": "driver-root", "hostPath": {"path": "/home/kubernetes/bin/nvidia", "type": "Directory"}} in pod["volumes"]


def test_ubuntu_pools_get_no_driver_root_and_a_warning_says_why(tmp_path, capsys):
    for images in (("UBUNTU_CONTAINERD",), ("COS_CONTAINERD", "UBUNTU_CONTAINERD")):
        stack = load_stack_config(gke_stack(*images), "test")
        assert "nvidiaDriverRoot" not in chart_values(stack.pools, stack.device_plugin)
    shipped_project(tmp_path, {"go": yaml.safe_dump({"config": gke_stack(None, "UBUNTU_CONTAINERD")},
                                                    sort_keys=False)})
    cli_main(["plan", "--stack", "go", "--project-dir", str(tmp_path), "--json"])
    report = json.dumps(json.loads(capsys.readouterr().out))
    assert "NVIDIA_DRIVER_ROOT" not in report
    assert "the chart's nvidiaDriverRoot is left out" in report
    assert "no source states where the driver lies on the nodes of p1" in report
    assert "p0 has it under /home/kubernetes/bin/nvidia" in report
    assert "ubuntu/daemonset-preloaded.yaml sets no NVIDIA_INSTALL_DIR_HOST" in report


def test_other_pools_keep_the_charts_default_root():
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    stack = load_stack_config(dict(doc["config"]), "test")
    values = chart_values(stack.pools, stack.device_plugin)
    assert "nvidiaDriverRoot" not in values
    pod = chart_daemonset(values, "nvidia-device-plugin")["spec"]["template"]["spec"]
    assert "volumes" not in pod and "env" not in pod["containers"][0]


def test_the_plan_shows_the_root_and_warns_about_the_container_toolkit(tmp_path, capsys):
    shipped_project(tmp_path, {"go": yaml.safe_dump({"config": gke_stack()}, sort_keys=False)})
    code = cli_main(["plan", "--stack", "go", "--project-dir", str(tmp_path), "--json"])
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    report = json.dumps(json.loads(captured.out))
    assert '"NVIDIA_DRIVER_ROOT", "value": "/home/kubernetes/bin/nvidia"' in report
    assert "pools[0].nvidiaDevicePlugin" in report
    assert "true: NVIDIA's standalone device plugin serves this GKE pool" in report
    assert "only through the NVIDIA container toolkit" in report
    assert "NVIDIA/k8s-device-plugin@v0.20.0 README.md Prerequisites" in report
    assert "Set devicePlugin.provider: gpu-operator" in report


def test_no_toolkit_warning_when_the_gpu_operator_serves_the_pool(tmp_path, capsys):
    shipped_project(tmp_path, {"go": yaml.safe_dump({"config": gke_stack(provider="gpu-operator")}, sort_keys=False)})
    cli_main(["plan", "--stack", "go", "--project-dir", str(tmp_path)])
    assert "only through the NVIDIA container toolkit" not in capsys.readouterr().err
