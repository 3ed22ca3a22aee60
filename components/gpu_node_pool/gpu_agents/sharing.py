"""GPU sharing per pool (time-slicing, MPS): device-plugin configs, node labels, GPU counts, GKE mapping.

NVIDIA's device plugin (chart ``nvidia-device-plugin`` 0.20.0) reads named configs from the
chart's ``config.map`` (``<name>: <YAML string>``) and picks one per node from the node label
``nvidia.com/device-plugin.config=<name>``; nodes without the label get ``config.default``.
Config format ``version: v1`` with ``sharing.timeSlicing.resources[{name, replicas}]`` or
``sharing.mps.resources[...]``; each GPU is then advertised ``replicas`` times, so
``nvidia.com/gpu`` = GPUs x replicas. ``renameByDefault`` stays off (default false), so the
resource keeps the name ``nvidia.com/gpu``.
Source: NVIDIA/k8s-device-plugin@v0.20.0 README.md L383-430, L515-599, L725-846 ("Shared Access to GPUs") and
``deployments/helm/nvidia-device-plugin/values.yaml`` L1-28.

A Bottlerocket NVIDIA image runs NVIDIA's plugin itself and shares from its own settings, which the component
writes into the node's TOML user data (:mod:`.bottlerocket_sharing`); the node then advertises the same GPUs x
replicas ``nvidia.com/gpu`` (:func:`advertised_gpus`).

MPS needs the chart's MPS control daemon, which runs only on nodes GFD labels
``nvidia.com/mps.capable=true`` (``templates/daemonset-mps-control-daemon.yml``; the label is written
by GFD's labeler, ``internal/lm/nvml.go``): MPS implies GPU
Feature Discovery (:func:`needs_feature_discovery`).

GKE does the sharing itself: ``guest_accelerators[].gpu_sharing_config``
(``gpu_sharing_strategy`` ``TIME_SHARING`` | ``MPS``, ``max_shared_clients_per_gpu``): hashicorp/terraform-provider-google
``website/docs/r/container_cluster.html.markdown``; https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus.
GKE also time-shares its own MIG partitions (``gpu_partition_size`` with ``TIME_SHARING``): its device plugin lists
the partitions as the physical devices and advertises each one ``max_shared_clients_per_gpu`` times
(GoogleCloudPlatform/container-engine-accelerators ``pkg/gpu/nvidia/manager.go``@992db8125755 ``ListDevices``,
``ListPhysicalDevices``; virtual IDs ``nvidia0/gi0/vgpu0`` in ``pkg/gpu/nvidia/gpusharing/gpusharing.go``), and GKE's
API creates such a node pool (hashicorp/terraform-provider-google
``google/services/container/resource_container_node_pool_test.go``@e03b7622a26c ``testAccContainerNodePool_withGPU``:
``a2-highgpu-1g``, ``gpu_partition_size = "1g.5gb"``, ``TIME_SHARING`` x 2): :func:`shares_mig_partitions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..config.sharing_names import sharing_config_name
from ..k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, NVIDIA_GPU_RESOURCE
from .bottlerocket_sharing import image_plugin_problem
from .pools import AgentPool, GpuSharing, Problem
from .sharing_config import DEFAULT_CONFIG_NAME, config_documents, config_values, pool_setting, setting_name
from .sharing_config import plugin_config as _plugin_config

__all__ = [
    "CONFIG_LABEL",
    "STRATEGY_NAMES",
    "DEFAULT_CONFIG_NAME",
    "GPU_RESOURCE",
    "GKE_STRATEGY",
    "GKE_DOCUMENTED_MAX_CLIENTS",
    "config_name",
    "plugin_config",
    "device_plugin_config_values",
    "pool_config_labels",
    "plugin_exposes_mig",
    "advertised_gpus",
    "gke_sharing_config",
    "needs_feature_discovery",
    "operator_plugin_config_values",
    "sharing_problems",
    "shares_mig_partitions",
]

#: Node label selecting the device plugin's named config (k8s-device-plugin README L820-846).
CONFIG_LABEL = DEVICE_PLUGIN_CONFIG_LABEL
GPU_RESOURCE = NVIDIA_GPU_RESOURCE
#: Config strategy -> GKE ``gpu_sharing_strategy`` (Terraform/pulumi_gcp ``gpu_sharing_config``,
#: hashicorp/terraform-provider-google ``website/docs/r/container_cluster.html.markdown``).
GKE_STRATEGY = {"timeSlicing": "TIME_SHARING", "mps": "MPS"}
#: Each ``gpuSharing.strategy`` as a sentence names it (NVIDIA's terms: time-slicing, MPS).
STRATEGY_NAMES = {"timeSlicing": "time-slicing", "mps": "MPS"}
#: A maximum of 48 clients per GPU on GKE is UNCONFIRMED (neither GKE's time-sharing docs nor the
#: Terraform google provider's ``max_shared_clients_per_gpu`` give an upper bound), so exceeding it is a
#: warning, never a refusal.
GKE_DOCUMENTED_MAX_CLIENTS = 48


def config_name(sharing: GpuSharing) -> str:
    """The named device-plugin config for one setting: ``timeslicing-<N>`` or ``mps-<N>``
    (:func:`gpu_node_pool.config.sharing_names.sharing_config_name`, the one definition)."""
    return sharing_config_name(sharing.strategy, sharing.replicas)


def plugin_config(sharing: GpuSharing | None) -> dict[str, Any]:
    """The device-plugin config document for ``sharing`` (None: the plain default); see
    :func:`gpu_node_pool.gpu_agents.sharing_config.plugin_config`."""
    return _plugin_config(None if sharing is None else (sharing.strategy, sharing.replicas))


def _served(pools: Iterable[AgentPool]) -> list[AgentPool]:
    return [p for p in pools if p.uses_nvidia_device_plugin]


def device_plugin_config_values(pools: Sequence[AgentPool]) -> dict[str, Any]:
    """The device-plugin chart's ``config`` values for the pools it serves, or ``{}`` when none shares GPUs.

    Returns ``{"map": {"default": <YAML>, "<name>": <YAML>, ...}, "default": "default"}``: one
    named config per distinct ``gpuSharing`` among the served pools (sorted by name) plus
    ``default`` (no sharing) for every other node (:func:`gpu_node_pool.gpu_agents.sharing_config.config_values`,
    which ``NvidiaDevicePlugin``'s chart values use too).
    """
    return config_values((p.sharing.strategy, p.sharing.replicas) for p in _served(pools) if p.sharing is not None)


def operator_plugin_config_values(pools: Sequence[AgentPool], configmap_name: str) -> dict[str, Any]:
    """The same configs in the GPU Operator's form: ``devicePlugin.config`` ``{create, name, default, data}``.

    Source: gpu-operator chart ``values.yaml`` ``devicePlugin.config`` and
    ``templates/plugin_config.yaml`` (a ConfigMap ``name`` built from ``data`` when ``create``).
    Every GPU pool the operator's plugin serves counts: not those whose platform or image runs its own plugin
    (GKE; Bottlerocket NVIDIA, whose sharing is in its TOML settings: :mod:`.bottlerocket_sharing`). ``{}`` when none
    shares GPUs.
    """
    documents = config_documents(
        s for p in pools if p.device_plugin not in ("platform", "image") and (s := pool_setting(p, mig_in_plugin=plugin_exposes_mig(p)))
    )
    if not documents:
        return {}
    return {"create": True, "name": configmap_name, "default": DEFAULT_CONFIG_NAME, "data": documents}


def pool_config_labels(pool: AgentPool) -> dict[str, str]:
    """The labels the pool's nodes must carry for sharing or a MIG strategy: ``{nvidia.com/device-plugin.config: <name>}``
    (``timeslicing-<N>``, ``mps-<N>``, ``mig-single``, ``mig-mixed``).

    Empty for pools with neither and for platform-managed sharing (GKE labels its nodes). The pool
    config models add the same label in ``node_labels`` (``config.common.PoolBase``).
    Set them through the pool's own labels so they survive node replacement like the taints.
    """
    if pool.device_plugin == "platform":
        return {}
    setting = pool_setting(pool, mig_in_plugin=plugin_exposes_mig(pool))
    return {} if setting is None else {CONFIG_LABEL: setting_name(setting)}


def plugin_exposes_mig(pool: AgentPool) -> bool:
    """Whether NVIDIA's device plugin (the GPU Operator's) exposes the pool's MIG devices under the pool's own
    named config ``mig-<strategy>``: ``mig`` set, partitioned on the node by the operator's MIG manager (not
    the platform, not Bottlerocket's own plugin). The same pools as ``PoolBase.mig_by_operator``."""
    return pool.mig is not None and pool.mig_by == "device-plugin" and pool.image_family != "bottlerocket-nvidia"


def advertised_gpus(pool: AgentPool) -> int | None:
    """``nvidia.com/gpu`` per node once the plugin runs: GPUs x replicas (None when GPUs are unknown).

    This is the figure for the Cluster Autoscaler ``resources/nvidia.com/gpu`` node-template tag
    (NVIDIA/k8s-device-plugin@v0.20.0 README.md L420-430: "On 8 GPUs, capacity becomes nvidia.com/gpu: 80";
    GKE: GoogleCloudPlatform/container-engine-accelerators ``pkg/gpu/nvidia/manager.go``, each GPU advertised
    ``max_shared_clients_per_gpu`` times).
    """
    if pool.gpus_per_node is None:
        return None
    return pool.gpus_per_node * (pool.sharing.replicas if pool.sharing else 1)


def shares_mig_partitions(pool: AgentPool) -> bool:
    """True when the platform both partitions the pool's GPUs and time-shares each partition: ``mig`` and
    ``gpuSharing`` ``timeSlicing`` on a backend whose registry record says the platform does both (``mig_by`` and
    ``sharing_by`` ``platform``: GKE's ``gpu_partition_size`` with ``gpu_sharing_config`` ``TIME_SHARING``), on the
    pools the platform's own device plugin serves. The node then advertises partitions x clients (module
    docstring). NVIDIA's device plugin shares ``nvidia.com/gpu`` of whole GPUs only, so nowhere else."""
    return (pool.mig is not None and pool.sharing is not None and pool.sharing.strategy == "timeSlicing"
            and pool.sharing_by == "platform" and pool.mig_by == "platform" and pool.device_plugin == "platform")


def gke_sharing_config(sharing: GpuSharing | None) -> dict[str, Any] | None:
    """GKE's ``gpu_sharing_config`` for ``sharing``: ``{gpu_sharing_strategy, max_shared_clients_per_gpu}``."""
    if sharing is None:
        return None
    return {"gpu_sharing_strategy": GKE_STRATEGY[sharing.strategy], "max_shared_clients_per_gpu": sharing.replicas}


def needs_feature_discovery(pool: AgentPool) -> bool:
    """True when the pool's sharing needs GFD: MPS (the MPS control daemon selects ``nvidia.com/mps.capable=true``,
    which only GFD writes: NVIDIA/k8s-device-plugin@v0.20.0 ``internal/lm/nvml.go``). A platform that shares
    GPUs itself (GKE) runs MPS itself, and so does a Bottlerocket NVIDIA image (its own MPS control daemon:
    :mod:`.bottlerocket_sharing`)."""
    return (pool.sharing is not None and pool.sharing.strategy == "mps" and pool.sharing_by != "platform"
            and pool.device_plugin != "image")


def sharing_problems(pool: AgentPool, path: str) -> list[Problem]:
    """Problems with ``pool``'s ``gpuSharing``; ``path`` is where it sits (``pools[0].gpuSharing``).

    Rules:
      * ``replicas`` >= 2: 1 shares nothing (the plugin writes ``gpu.sharing-strategy: none``
        unless replicas > 1; NVIDIA/k8s-device-plugin@v0.20.0 ``internal/lm/resource.go``) - error.
      * platform sharing (GKE, ``sharing_by == "platform"``): above 48 clients per GPU - warning
        (UNCONFIRMED maximum, see :data:`GKE_DOCUMENTED_MAX_CLIENTS`).
      * NVIDIA plugin: no documented maximum, none invented.
      * MPS and MIG together - error: "Not supported on MIG-enabled devices" (README L515-599); on GKE too: its
        plugin sizes each MPS client's memory limit from the whole GPU's memory (``manager.go`` ``totalMemPerGPU``,
        device 0's total), more than a partition holds, and no public source shows GKE running MPS on partitions.
      * time-slicing with MIG - accepted where the platform partitions and shares itself
        (:func:`shares_mig_partitions`: GKE); error elsewhere: NVIDIA's plugin, as this component configures it,
        time-slices ``nvidia.com/gpu`` of whole GPUs only.
      * a pool whose device plugin is its image's: accepted on a Bottlerocket NVIDIA image whose backend writes its
        settings (the component writes ``settings.kubelet-device-plugins.nvidia``: :mod:`.bottlerocket_sharing`); error
        elsewhere (:func:`.bottlerocket_sharing.image_plugin_problem`): that plugin does not read the chart's ConfigMap,
        so the label would do nothing.
    """
    sharing = pool.sharing
    if sharing is None:
        return []
    problems: list[Problem] = []
    if sharing.strategy not in GKE_STRATEGY:
        problems.append(Problem(f"{path}.strategy", f"{sharing.strategy!r} is not a sharing strategy; use timeSlicing or mps"))
        return problems
    if isinstance(sharing.replicas, bool) or not isinstance(sharing.replicas, int) or sharing.replicas < 2:
        problems.append(
            Problem(
                f"{path}.replicas",
                f"{sharing.replicas!r}: sharing needs at least 2 replicas per GPU (with 1 the device plugin shares "
                "nothing: k8s-device-plugin v0.20.0 internal/lm/resource.go); set replicas: 2 or more, or remove gpuSharing",
            )
        )
    elif pool.sharing_by == "platform" and sharing.replicas > GKE_DOCUMENTED_MAX_CLIENTS:
        problems.append(
            Problem(
                f"{path}.replicas",
                f"{sharing.replicas} clients per GPU: GKE is reported to cap max_shared_clients_per_gpu at "
                f"{GKE_DOCUMENTED_MAX_CLIENTS} (UNCONFIRMED: https://cloud.google.com/kubernetes-engine/docs/how-to/timesharing-gpus gives no upper bound); if the "
                f"node pool is refused, use {GKE_DOCUMENTED_MAX_CLIENTS} or fewer",
                warning=True,
            )
        )
    if pool.mig is not None and sharing.strategy == "mps":
        platform = pool.mig_by == "platform" and pool.sharing_by == "platform" and pool.device_plugin == "platform"
        why = ("MPS is not supported on MIG-enabled devices (k8s-device-plugin v0.20.0 README, MPS section); "
               "remove gpuSharing or mig")
        if platform:
            why = ("MPS on MIG partitions is not taken on GKE: GKE's plugin sizes each MPS client's memory limit from "
                   "the whole GPU's memory, more than a partition holds (GoogleCloudPlatform/container-engine-accelerators "
                   "pkg/gpu/nvidia/manager.go totalMemPerGPU), and no public source shows GKE running MPS on partitions; "
                   "use strategy: timeSlicing (GKE time-shares each partition) or remove gpuSharing or mig")
        problems.append(Problem(path, why))
    elif pool.mig is not None and not shares_mig_partitions(pool):
        problems.append(
            Problem(
                path,
                "time-slicing of MIG devices is not derived by this component where NVIDIA's device plugin would do it "
                "(it time-slices nvidia.com/gpu of whole GPUs only; only GKE's own plugin time-shares its partitions: "
                "GoogleCloudPlatform/container-engine-accelerators pkg/gpu/nvidia/manager.go); remove gpuSharing or mig",
            )
        )
    if pool.device_plugin == "image":
        found = image_plugin_problem(pool)
        if found:
            field, why = found
            problems.append(Problem(f"{path}.{field}" if field else path, why))
    return problems
