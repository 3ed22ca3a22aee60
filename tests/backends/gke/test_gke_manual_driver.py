"""GKE's manual-driver setup: ``gpuDriverVersion: INSTALLATION_DISABLED`` with GKE's own device plugin.

GKE runs its device plugin on every GPU node whatever the driver setting (GoogleCloudPlatform/container-engine-accelerators
``cmd/nvidia_gpu``); with the driver install disabled the user applies GKE's ``nvidia-driver-installer`` DaemonSet
(https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers). The plan takes that pool with a
warning; only NVIDIA's plugin without the opt-out label is refused (a second plugin beside GKE's).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, shipped_project

from gpu_node_pool.cli.commands import main as cli_main

OPT_OUT = "gke-no-default-nvidia-gpu-device-plugin"
WARNING = "pools[0].accelerator.gpuDriverVersion: INSTALLATION_DISABLED: GKE installs no NVIDIA driver on these nodes"
INSTALLER_URL = ("https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
                 "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer/cos/daemonset-preloaded.yaml")
#: The stack's own installer switched off: the user applies one (or the plan reports the pool).
OFF = {"gkeDriverInstaller": {"enabled": False}}
#: GKE's COS driver installer as GoogleCloudPlatform/container-engine-accelerators
#: nvidia-driver-installer/cos/daemonset-preloaded.yaml declares it (selection, tolerations, images).
INSTALLER = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nvidia-driver-installer, namespace: kube-system, labels: {k8s-app: nvidia-driver-installer}}
spec:
  selector: {matchLabels: {k8s-app: nvidia-driver-installer}}
  template:
    metadata: {labels: {name: nvidia-driver-installer, k8s-app: nvidia-driver-installer}}
    spec:
      priorityClassName: system-node-critical
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: cloud.google.com/gke-accelerator, operator: Exists}
              - {key: cloud.google.com/gke-gpu-driver-version, operator: DoesNotExist}
      tolerations: [{operator: Exists}]
      hostNetwork: true
      hostPID: true
      initContainers:
      - {name: nvidia-driver-installer, image: cos-nvidia-installer:fixed, imagePullPolicy: Never,
         securityContext: {privileged: true}}
      containers:
      - {name: pause, image: gcr.io/google-containers/pause:2.0}
"""


def gke_dev(gpu_agents: dict | None = None, **pool_changes) -> dict:
    """The repository's stacks/Pulumi.gke-dev.yaml as a mapping, its pool's accelerator and keys changed, with
    ``gpuAgents`` when given."""
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())
    if gpu_agents is not None:
        doc["config"]["gpu-node-pools:gpuAgents"] = gpu_agents
    pool = doc["config"]["gpu-node-pools:pools"][0]
    pool["accelerator"]["gpuDriverVersion"] = "INSTALLATION_DISABLED"
    for key, value in pool_changes.items():
        pool[key] = value
    return doc


def project(root: Path, doc: dict, *, installer: bool = False) -> Path:
    """A copy of the shipped project with stack ``g-nodriver`` = ``doc``; with ``installer`` its program also
    declares GKE's driver installer DaemonSet (as ``kubectl apply -f`` of GKE's manifest would create it)."""
    shipped_project(root, {"g-nodriver": yaml.safe_dump(doc, sort_keys=False)})
    if installer:
        manifest = root / "nvidia-driver-installer.yaml"
        manifest.write_text(INSTALLER)
        program = (root / "__main__.py").read_text()
        (root / "__main__.py").write_text(
            program + '\nimport pulumi_kubernetes as k8s\n'
            f'k8s.yaml.ConfigFile("nvidia-driver-installer", file={str(manifest)!r})\n')
    return root


def plan(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = cli_main(["plan", "--stack", "g-nodriver", "--project-dir", str(root), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_installation_disabled_with_gkes_plugin_is_planned_with_the_driver_warning(tmp_path, capsys):
    code, out, err = plan(project(tmp_path, gke_dev(OFF)), capsys)
    assert "second plugin" not in out + err
    assert "no resource was registered" not in err
    assert WARNING in err
    assert f"kubectl apply -f {INSTALLER_URL}" in err
    assert "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers" in err
    assert "set gpuAgents.gkeDriverInstaller.enabled: true" in err
    assert "device plugin   managed by GKE" in out
    # Nothing in this stack installs the driver: the pack says so, as a mandatory finding (exit 1, not 2).
    assert "[mandatory] gpu-agents-cover-gpu-pools" in out and "No NVIDIA driver installer covers" in out
    assert code == 1, out + err


def test_the_warnings_say_what_the_stack_installs_for_each_setting_and_never_the_other(tmp_path, capsys):
    """Off: the pool's warning does not claim the stack installs the installer, and one warning at the setting says
    it installs none, for which pool, and the fix. On (the default): no such warning, and the stack's installer
    covers the pool."""
    code, out, err = plan(project(tmp_path / "off", gke_dev(OFF)), capsys, "--json")
    warnings = {w["path"]: w["message"] for w in json.loads(out)["warnings"]}
    pool = warnings["pools[0].accelerator.gpuDriverVersion"]
    assert "The stack installs" not in pool and "enabled by default" not in pool
    off = warnings["gpuAgents.gkeDriverInstaller.enabled"]
    assert off.startswith("false: the stack installs no NVIDIA driver installer")
    assert "pools[0] 'l4-inference' (INSTALLATION_DISABLED)" in off
    assert f"kubectl apply -f {INSTALLER_URL}" in off
    code, out, err = plan(project(tmp_path / "on", gke_dev()), capsys, "--json")
    doc = json.loads(out)
    assert "gpuAgents.gkeDriverInstaller.enabled" not in {w["path"] for w in doc["warnings"]}
    assert doc["violations"] == [], doc["violations"]
    assert code == 0, out + err


def test_the_driver_installer_in_the_program_makes_the_plan_clean_and_keeps_the_warning(tmp_path, capsys):
    code, out, err = plan(project(tmp_path, gke_dev(OFF), installer=True), capsys, "--json")
    doc = json.loads(out)
    assert doc["configErrors"] == [], doc["configErrors"]
    assert doc["notJudged"] == [] and doc["violations"] == [], (doc["notJudged"], doc["violations"])
    assert any(w["path"] == "pools[0].accelerator.gpuDriverVersion" and "GKE installs no NVIDIA driver" in w["message"]
               for w in doc["warnings"]), doc["warnings"]
    assert code == 0, out + err


def test_the_repo_gke_dev_stack_has_no_driver_warning(capsys):
    code = cli_main(["plan", "--stack", "gke-dev", "--project-dir", str(ROOT)])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert "GKE installs no NVIDIA driver" not in captured.out + captured.err


def test_nvidias_plugin_with_installation_disabled_but_no_opt_out_label_is_still_refused(tmp_path, capsys):
    code, out, err = plan(project(tmp_path, gke_dev(nvidiaDevicePlugin=True)), capsys)
    assert code == 2, out + err
    assert "no resource was registered" in err
    assert ("nvidiaDevicePlugin is true with accelerator.gpuDriverVersion INSTALLATION_DISABLED, but "
            f"labels['{OPT_OUT}'] is not 'true'") in err
    assert "GKE runs its own device plugin DaemonSet on every GPU node whatever the driver setting" in err
    assert "cmd/nvidia_gpu" in err and "https://cloud.google.com/kubernetes-engine/docs/how-to/gpu-operator" in err
    assert "second plugin for nvidia.com/gpu" in err
    assert f"Add the label {OPT_OUT}: 'true', or remove nvidiaDevicePlugin" in err


def test_nvidias_plugin_with_the_opt_out_label_is_planned_with_the_driver_warning(tmp_path, capsys):
    doc = gke_dev(OFF, nvidiaDevicePlugin=True)
    doc["config"]["gpu-node-pools:pools"][0]["labels"][OPT_OUT] = "true"
    code, out, err = plan(project(tmp_path, doc), capsys)
    assert "no resource was registered" not in err
    assert WARNING in err and "so NVIDIA's device plugin finds no GPU" in err
    assert "No NVIDIA driver installer covers" in out
    assert code == 1, out + err

