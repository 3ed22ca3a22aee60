"""GKE node pool renderer and readers: ``gcp.container.NodePool`` inputs, ``node_config`` above all.

:func:`node_pool_args` turns a validated :class:`~gpu_node_pool.backends.gke.config.GkePool` into the
keyword arguments of ``gcp.container.NodePool`` (snake_case, plain values). The readers turn
the provider inputs a policy or the plan sees (camelCase: ``nodeConfig.taints``) back into
taints, labels and accelerators.

GKE spells effects ``NO_SCHEDULE`` / ``PREFER_NO_SCHEDULE`` / ``NO_EXECUTE`` (pulumi_gcp
``NodePoolNodeConfigTaintArgs``); translation goes through :mod:`gpu_node_pool.k8s.taints`.

Sources: pulumi_gcp 10.2.0 ``container/node_pool.py`` and ``container/_inputs.py``
(``NodePoolNodeConfigArgs``, ``NodePoolAutoscalingArgs``,
``NodePoolNodeConfigGuestAcceleratorArgs``); the GKE GPU guide
https://cloud.google.com/kubernetes-engine/docs/how-to/gpus.
"""

from __future__ import annotations

from typing import Any

from ...config import ClusterConfig
from ...gpu_agents.capacity import gke_accelerator_args
from .config import GkeAccelerator, GkePool
from .node_config_extras import node_config_fields

#: Where the taints go, as the plan names it.
PROVIDER_FIELD = "gcp.container.NodePool.node_config.taints"


def guest_accelerator_args(accelerator: GkeAccelerator) -> dict[str, Any]:
    """One ``node_config.guest_accelerators`` item (snake_case).

    Shape: ``{type, count, gpu_driver_installation_config: {gpu_driver_version}}``.
    ``gpu_driver_version`` is always written (default ``LATEST``), so GKE installs the driver
    on every GKE version instead of depending on the version's unspecified default. Sharing and
    partitions (``gpu_sharing_config``, ``gpu_partition_size``) come from the pool's ``gpuSharing``
    and ``mig`` only (:func:`gpu_node_pool.gpu_agents.capacity.gke_accelerator_args`).
    """
    return {
        "type": accelerator.type,
        "count": accelerator.count,
        "gpu_driver_installation_config": {"gpu_driver_version": accelerator.gpu_driver_version},
    }


def node_pool_args(pool: GkePool, cluster: ClusterConfig) -> dict[str, Any]:
    """The keyword arguments of ``gcp.container.NodePool`` for ``pool`` (snake_case, plain values).

    Keys, in this order: ``cluster``, ``location``, ``project``, ``node_locations`` (only when
    the pool sets zones), ``autoscaling`` (``total_min_node_count``/``total_max_node_count``:
    the pool's total across zones, min may be 0), ``node_config``. ``node_config`` holds
    ``machine_type``, ``spot``, ``image_type`` (``COS_CONTAINERD`` | ``UBUNTU_CONTAINERD``, only when the pool sets
    ``imageType``), ``service_account`` (only when set), ``oauth_scopes``,
    ``guest_accelerators`` (one item, see :func:`guest_accelerator_args`), ``labels`` (sorted by
    key: the user's, the GPU label, ``gpu-node-pools/pool``) and ``taints`` in the GKE shape
    ``[{key, value, effect: NO_SCHEDULE|PREFER_NO_SCHEDULE|NO_EXECUTE}]``, in
    :attr:`GkePool.taint_list` order (``nvidia.com/gpu=present:NoSchedule`` always among them), then
    the pass-through ``disk_size_gb``, ``disk_type``, ``reservation_affinity`` when set.

    Left out on purpose: ``name`` (Pulumi autonames, so a replacement pool is created before the
    old one is deleted), ``initial_node_count`` (per zone; the provider advises not to set it),
    ``version`` (node pools follow the control plane under GKE auto-upgrade) and ``metadata``
    (GKE sets ``disable-legacy-endpoints`` itself).

    Raises:
        ValueError: ``cluster`` has no ``project`` or ``location`` (stack validation requires
            both for gke pools, so a validated stack never gets here).
    """
    if not cluster.project or not cluster.location:
        raise ValueError(f"cluster {cluster.name!r} needs project and location for gke pools")
    node_config: dict[str, Any] = {
        "machine_type": pool.machine_type,
        "spot": pool.spot,
    }
    if pool.image_type is not None:  # unset: GKE's default COS_CONTAINERD (backends/gke/image.py)
        node_config["image_type"] = pool.image_type
    if pool.service_account:
        node_config["service_account"] = pool.service_account
    node_config["oauth_scopes"] = list(pool.oauth_scopes)
    # pool gpuSharing / mig -> gpu_sharing_config / gpu_partition_size
    node_config["guest_accelerators"] = [guest_accelerator_args(pool.accelerator) | gke_accelerator_args(pool)]
    node_config["labels"] = pool.node_labels
    node_config["taints"] = [t.to_provider() for t in pool.taint_list]
    node_config |= node_config_fields(pool)  # disk_size_gb, disk_type, reservation_affinity (node_config_extras.py)
    args: dict[str, Any] = {
        "cluster": cluster.name,
        "location": cluster.location,
        "project": cluster.project,
    }
    if pool.node_locations:
        args["node_locations"] = list(pool.node_locations)
    args["autoscaling"] = {
        "total_min_node_count": pool.autoscaling.min_size,
        "total_max_node_count": pool.autoscaling.max_size,
    }
    args["node_config"] = node_config
    if pool.node_repair is not None:  # NodeManagement.autoRepair (GKE API reference NodeManagement)
        args["management"] = {"auto_repair": pool.node_repair.enabled}
    return args


