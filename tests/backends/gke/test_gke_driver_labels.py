"""Where GKE's manual driver installer lands: the node labels of a GKE pool per ``gpuDriverVersion``.

GKE's ``nvidia-driver-installer`` DaemonSet (GoogleCloudPlatform/container-engine-accelerators
``nvidia-driver-installer/cos/daemonset-preloaded.yaml``) selects GPU nodes without
``cloud.google.com/gke-gpu-driver-version``, the label of a node whose driver GKE installs.
"""

from __future__ import annotations

import pytest

from gpu_node_pool.backends.gke.detect import detect
from gpu_node_pool.backends.gke.labels import node_labels
from gpu_node_pool.k8s.selection import node_matches

#: The installer's node selection (GoogleCloudPlatform/container-engine-accelerators
#: nvidia-driver-installer/cos/daemonset-preloaded.yaml), as :func:`node_matches` takes it (no matchFields).
INSTALLER_TERMS = [([("cloud.google.com/gke-accelerator", "Exists", []),
                     ("cloud.google.com/gke-gpu-driver-version", "DoesNotExist", [])], False)]


@pytest.mark.parametrize("driver, lands", [("INSTALLATION_DISABLED", True), ("LATEST", False), ("DEFAULT", False),
                                           ("GPU_DRIVER_VERSION_UNSPECIFIED", None)])
def test_gkes_driver_installer_lands_only_where_gke_installs_no_driver(driver, lands):
    """True: it lands; False: the nodes carry cloud.google.com/gke-gpu-driver-version; None: not known."""
    pool = detect("gcp:container/nodePool:NodePool", {
        "name": "l4", "nodeLocations": ["us-central1-a"],
        "nodeConfig": {"machineType": "g2-standard-8", "labels": {},
                       "guestAccelerators": [{"type": "nvidia-l4", "count": 1,
                                              "gpuDriverInstallationConfig": {"gpuDriverVersion": driver}}]}},
        "l4", "", {})
    assert [node_matches([], INSTALLER_TERMS, kind) for kind in node_labels(pool)] == [lands]


#: The installer's selection with the Confidential GKE Nodes term the COS manifest also has.
CONFIDENTIAL_TERMS = [([("cloud.google.com/gke-accelerator", "Exists", []),
                        ("cloud.google.com/gke-gpu-driver-version", "DoesNotExist", []),
                        ("cloud.google.com/gke-confidential-nodes-instance-type", "DoesNotExist", [])], False)]


@pytest.mark.parametrize("confidential, lands", [(None, True), ({"enabled": False}, True), ({"enabled": True}, False)])
def test_the_cos_installer_keeps_off_confidential_nodes_only_where_the_pool_enables_them(confidential, lands):
    """A pool that does not enable Confidential GKE Nodes has no cloud.google.com/gke-confidential-nodes-instance-type
    label, so the COS installer's DoesNotExist term matches; one that does carries it."""
    config = {"machineType": "g2-standard-8", "labels": {},
              "guestAccelerators": [{"type": "nvidia-l4", "count": 1,
                                     "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"}}]}
    if confidential is not None:
        config["confidentialNodes"] = confidential
    pool = detect("gcp:container/nodePool:NodePool", {"name": "l4", "nodeLocations": ["us-central1-a"],
                                                       "nodeConfig": config}, "l4", "", {})
    assert [node_matches([], CONFIDENTIAL_TERMS, kind) for kind in node_labels(pool)] == [lands]
