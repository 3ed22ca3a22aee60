"""Which GKE driver installer a pool with ``gpuDriverVersion: INSTALLATION_DISABLED`` gets: a pool that names no image
type is rendered without one (GKE's default ``COS_CONTAINERD``) and gets Google's COS manifest; the pool's warning names
Google's Ubuntu manifest as ``kubectl apply -f`` takes it, pinned at the same commit
(GoogleCloudPlatform/container-engine-accelerators@992db81257553607f1477945f1b3219632991829), for a pool whose image
type is changed outside the stack (Ubuntu pools of the stack: ``test_gke_image_type.py``)."""

from __future__ import annotations

import yaml
from conftest import ROOT

from gpu_node_pool.backends.gke.render import node_pool_args
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.gke_driver_installer.values import installer_daemonset
from gpu_node_pool.gpu_agents.pools import agent_pool

RAW = ("https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/"
       "992db81257553607f1477945f1b3219632991829/nvidia-driver-installer")


def stack():
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text())["config"]
    cfg = {key.split(":", 1)[1]: value for key, value in doc.items() if key.startswith("gpu-node-pools:")}
    cfg["pools"][0]["accelerator"]["gpuDriverVersion"] = "INSTALLATION_DISABLED"
    return validate_stack_config(cfg)


def test_the_warning_gives_both_of_googles_manifests_at_the_pinned_commit():
    [(path, message)] = [w for w in stack().pools[0].config_warnings() if w[0] == "accelerator.gpuDriverVersion"]
    assert (f"If the image type is changed outside the stack, that installer no longer fits the nodes (Ubuntu nodes need "
            f"kubectl apply -f {RAW}/ubuntu/daemonset-preloaded.yaml): set imageType in the stack instead") in message
    assert "cos/daemonset-preloaded.yaml" in message
    from gpu_node_pool.backends.gke.driver import GKE_COS_DRIVER_INSTALLER

    assert GKE_COS_DRIVER_INSTALLER == f"{RAW}/cos/daemonset-preloaded.yaml"


def test_the_stacks_installer_is_the_cos_one_as_the_node_pool_names_no_image_type():
    s = stack()
    assert "image_type" not in node_pool_args(s.pools[0], s.cluster)["node_config"]
    pod = installer_daemonset([agent_pool(p) for p in s.pools])["spec"]["template"]["spec"]
    assert [c["image"] for c in pod["initContainers"]][0] == "cos-nvidia-installer:fixed"
