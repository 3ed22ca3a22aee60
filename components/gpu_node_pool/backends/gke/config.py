"""Config of ``gke`` pools: the GKE node pool model and its stack-level rules."""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from ...config.common import (
    Model,
    PoolBase,
    ScalingConfig,
    TaintConfig,
    fail,
)
from ...config.defaults import DEFAULT_TAINT
from ...config.errors import ConfigIssue, fail_per_key
from ...k8s.labels import gke_label_problem
from ...k8s.patterns import full_match, go_regexp
from ...k8s.taints import Taint
from ...k8s.wellknown import GKE_ACCELERATOR_LABEL, GKE_NO_DEFAULT_PLUGIN_LABEL
from .._shared.capacity import NodeRepair
from .node_config_extras import ReservationAffinity

#: ``NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs``): ``LATEST`` and
#: ``DEFAULT`` install that driver (``LATEST`` on COS), ``INSTALLATION_DISABLED`` installs none,
#: ``GPU_DRIVER_VERSION_UNSPECIFIED`` installs the default one from GKE 1.30.1-gke.1156000.
GkeDriverVersion = Literal["LATEST", "DEFAULT", "INSTALLATION_DISABLED", "GPU_DRIVER_VERSION_UNSPECIFIED"]
GKE_GPU_DRIVER_VERSIONS: tuple[str, ...] = get_args(GkeDriverVersion)
#: Node label that turns GKE's own device plugin DaemonSet off on a pool; NVIDIA pairs it with
#: ``gpu-driver-version=disabled`` (NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst``).
GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL = GKE_NO_DEFAULT_PLUGIN_LABEL
#: GKE node pool names match ``[a-z]([-a-z0-9]{0,38}[a-z0-9])?`` (at most 40 characters; the API
#: error quoted in pulumi/pulumi-gcp#1510). Pulumi autonames the child ``<pool>-node-pool`` with
#: an 8-character suffix (``-1a2b3c4``), which leaves 22 characters for the pool name.
GKE_POOL_NAME_MAX = 40 - len("-node-pool") - 8
#: Google's recommended node scope: one broad scope, access controlled by the service account's IAM roles.
GKE_DEFAULT_OAUTH_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
#: Compute Engine machine series that come with a fixed GPU model (Compute Engine "GPU machine
#: types"); other series (``n1-`` with an attached T4/V100/P100/P4, newer ones) are not checked.
GKE_FIXED_GPU_SERIES = {
    "g2-standard-": "nvidia-l4",
    "a2-highgpu-": "nvidia-tesla-a100",
    "a2-megagpu-": "nvidia-tesla-a100",
    "a2-ultragpu-": "nvidia-a100-80gb",
    "a3-highgpu-": "nvidia-h100-80gb",
    "a3-edgegpu-": "nvidia-h100-80gb",
    "a3-megagpu-": "nvidia-h100-mega-80gb",
    "a3-ultragpu-": "nvidia-h200-141gb",
    "a4-highgpu-": "nvidia-b200",
}
#: GPUs that attach to N1 machine types (Compute Engine "GPU platforms": N1 + T4/V100/P100/P4).
GKE_N1_ATTACHABLE_GPUS = ("nvidia-tesla-t4", "nvidia-tesla-v100", "nvidia-tesla-p100", "nvidia-tesla-p4")
#: General-purpose and compute-optimized series that take no GPU at all.
GKE_NO_GPU_SERIES = frozenset(
    {"e2", "n2", "n2d", "n4", "n4d", "c2", "c2d", "c3", "c3d", "c4", "c4a", "c4d", "t2a", "t2d", "m1", "m2", "m3", "m4", "h3", "z3"}
)
#: L4s per G2 machine type; A-series names end in the count (``a2-highgpu-4g`` has 4).
_G2_GPU_COUNT = {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}
#: GPUs per N1 VM by attached model (Compute Engine "GPU machine types", N1 general-purpose section,
#: https://cloud.google.com/compute/docs/gpus, checked 2026-12-01): T4, P4 and P100 1, 2 or 4; V100 1, 2, 4 or 8.
GKE_N1_GPU_COUNTS = {
    "nvidia-tesla-t4": (1, 2, 4),
    "nvidia-tesla-p4": (1, 2, 4),
    "nvidia-tesla-p100": (1, 2, 4),
    "nvidia-tesla-v100": (1, 2, 4, 8),
}
_GPU_DOCS = "Compute Engine GPU machine types, https://cloud.google.com/compute/docs/gpus, checked 2026-12-01"
_GKE_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
_GCE_ZONE_RE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")


def gke_fixed_gpus(machine_type: str) -> tuple[str, int | None] | None:
    """``(accelerator type, count or None)`` a fixed-GPU machine type comes with, or None when not fixed."""
    for prefix, accelerator in GKE_FIXED_GPU_SERIES.items():
        if machine_type.startswith(prefix):
            rest = machine_type[len(prefix):]
            if prefix == "g2-standard-":
                return accelerator, _G2_GPU_COUNT.get(int(rest)) if rest.isdigit() else None
            m = go_regexp(r"(\d+)g").fullmatch(rest)
            return accelerator, int(m.group(1)) if m else None
    return None


class GkeGpuSharingConfig(Model):
    """GKE GPU sharing (``guest_accelerators[].gpu_sharing_config``), done by GKE's own device plugin."""

    gpu_sharing_strategy: Literal["TIME_SHARING", "MPS"] = Field(description="TIME_SHARING | MPS")
    max_shared_clients_per_gpu: int = Field(ge=1, description="Containers that may share one GPU, >= 1.")


class GkeAccelerator(Model):
    """The GPUs of each node (``node_config.guest_accelerators[0]``)."""

    type: str = Field(
        pattern=r"^nvidia-[a-z0-9]+(-[a-z0-9]+)*$",
        description="GKE accelerator type, e.g. nvidia-l4, nvidia-tesla-t4, nvidia-h100-80gb.",
    )
    count: int = Field(ge=1, description="GPUs per node, >= 1 (fixed by the machine type for A and G series).")
    gpu_driver_version: GkeDriverVersion = Field(
        "LATEST",
        description="LATEST (default) | DEFAULT | INSTALLATION_DISABLED (no driver: only with NVIDIA's plugin) "
        "| GPU_DRIVER_VERSION_UNSPECIFIED.",
    )
    gpu_sharing_config: GkeGpuSharingConfig | None = None


class GkePool(PoolBase):
    """A GPU pool as a GKE Standard node pool (``gcp.container.NodePool``).

    Rules checked here (sources: pulumi_gcp ``container/_inputs.py`` ``NodePoolNodeConfigArgs``; the GKE
    GPU guide https://cloud.google.com/kubernetes-engine/docs/how-to/gpus (the automatic
    ``nvidia.com/gpu`` taint); NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst`` (the
    ``gke-no-default-nvidia-gpu-device-plugin`` label with the driver install disabled)):

    * Taints: ``nvidia.com/gpu=present:NoSchedule`` is always declared (added when the
      config lacks that key and effect), because GKE adds it only when a GPU pool joins a
      cluster that already runs a non-GPU pool; a ``nvidia.com/gpu:NoSchedule`` taint must
      carry GKE's value ``present``; never two taints with one key and effect (GKE: ``Found
      more than one taint with key ... and effect``).
    * Labels: no ``kubernetes.io``/``k8s.io`` keys, no GKE-managed ``cloud.google.com`` keys
      (:func:`~gpu_node_pool.k8s.labels.gke_label_problem`).
    * Device plugin: GKE runs its own (which also finishes the driver install). NVIDIA's plugin
      serves the pool only with ``nvidiaDevicePlugin: true``, the label
      ``gke-no-default-nvidia-gpu-device-plugin: "true"`` and ``gpuDriverVersion:
      INSTALLATION_DISABLED``, all three together: the label alone leaves nodes without a
      driver, the driver setting alone leaves GKE's plugin running beside NVIDIA's.
    * Name: at most 22 characters, starting with a letter (GKE node pool names are at most 40
      characters; Pulumi adds ``-node-pool-xxxxxxx``).
    * ``autoscaling``: ``minSize``/``maxSize`` are the pool's total node counts across its zones
      (``total_min_node_count``/``total_max_node_count``); ``minSize`` 0 scales from zero.
      ``desiredSize`` is refused (GKE's initial size is per zone).

    Raises:
        ValidationError: (through :func:`~gpu_node_pool.config.loading.validate_stack_config`, as :class:`ConfigError`) any rule above.
    """

    backend: Literal["gke"]
    machine_type: str = Field(
        pattern=r"^[a-z][a-z0-9]*-[a-z0-9-]+$",
        description="Compute Engine machine type, e.g. g2-standard-8 (1x L4), a3-highgpu-8g, n1-standard-8 (+ T4).",
    )
    accelerator: GkeAccelerator
    autoscaling: ScalingConfig = Field(description="Total nodes across the pool's zones; minSize may be 0.")
    spot: bool = Field(False, description="Spot VMs (node_config.spot).")
    node_locations: list[str] | None = Field(
        None, min_length=1, description="Zones of the pool, in the cluster's region; default: the cluster's zones."
    )
    service_account: str | None = Field(
        None,
        pattern=r"^[a-z0-9][a-z0-9._-]*@[a-z0-9-]+(\.[a-z0-9-]+)+$",
        description="Node service account e-mail; default: the Compute Engine default service account.",
    )
    oauth_scopes: list[str] = Field(
        default_factory=lambda: list(GKE_DEFAULT_OAUTH_SCOPES),
        min_length=1,
        description="Node OAuth scopes; default [https://www.googleapis.com/auth/cloud-platform] (IAM decides).",
    )
    nvidia_device_plugin: bool = Field(
        False,
        description="Serve the pool with NVIDIA's device plugin instead of GKE's; needs the label "
        "gke-no-default-nvidia-gpu-device-plugin: 'true' and accelerator.gpuDriverVersion INSTALLATION_DISABLED.",
    )
    node_repair: NodeRepair | None = Field(
        None, description="{enabled: true|false}: GKE node auto-repair (management.autoRepair); unset: GKE's default."
    )
    disk_size_gb: int | None = Field(
        None, ge=10, le=65536,
        description="Boot disk GB (node_config.disk_size_gb, 10 to 65536: a persistent disk is at most 64 TB, "
        "https://cloud.google.com/compute/docs/disks#introduction; GKE default 100).",
    )
    disk_type: Literal["pd-standard", "pd-balanced", "pd-ssd", "pd-extreme", "hyperdisk-balanced"] | None = Field(
        None, description="Boot disk type (node_config.disk_type); GKE picks pd-balanced or hyperdisk-balanced by machine type."
    )
    reservation_affinity: ReservationAffinity | None = Field(
        None, description="Compute Engine reservations the nodes consume (node_config.reservation_affinity)."
    )

    @field_validator("name")
    @classmethod
    def _gke_name(cls, name: str) -> str:
        if len(name) > GKE_POOL_NAME_MAX or not name[:1].isalpha():
            raise fail(
                f"{name!r}: a gke pool name starts with a letter and has at most {GKE_POOL_NAME_MAX} characters "
                "(GKE node pool names are at most 40 and Pulumi adds '-node-pool-xxxxxxx'), e.g. l4-inference"
            )
        return name

    @field_validator("labels")
    @classmethod
    def _gke_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        problems = [(k, p) for k, v in labels.items() if (p := gke_label_problem(k, v))]
        value = labels.get(GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL)
        if value is not None and value != "true":
            problems.append((GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL,
                f"label {GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL!r} is {value!r}; GKE acts on the value 'true' only: "
                "set 'true' (with nvidiaDevicePlugin and INSTALLATION_DISABLED) or remove it"
            ))
        if problems:
            raise fail_per_key(problems)
        return labels

    @field_validator("taints")
    @classmethod
    def _gke_taints(cls, taints: list[TaintConfig]) -> list[TaintConfig]:
        for i, t in enumerate(taints):
            taint = t.to_taint()
            if taint.identity == DEFAULT_TAINT.identity and taint.value != DEFAULT_TAINT.value:
                raise fail(
                    f"taints[{i}] {str(taint)!r}: GKE's own GPU taint is {str(DEFAULT_TAINT)!r} and one key and "
                    f"effect can carry one value; write {str(DEFAULT_TAINT)!r} or use another key"
                )
        return taints

    @field_validator("autoscaling")
    @classmethod
    def _gke_autoscaling(cls, scaling: ScalingConfig) -> ScalingConfig:
        if scaling.desired_size is not None:
            raise fail(
                "desiredSize is not used by gke pools: GKE's initial node count is per zone and the autoscaler "
                "keeps the pool between minSize and maxSize; remove desiredSize"
            )
        return scaling

    @field_validator("node_locations")
    @classmethod
    def _zones(cls, zones: list[str] | None) -> list[str] | None:
        bad = [z for z in zones or [] if not full_match(_GCE_ZONE_RE, z)]
        if bad:
            raise fail(f"{bad} are not Compute Engine zones (e.g. us-central1-a)")
        if zones and len(set(zones)) != len(zones):
            raise fail(f"{zones} lists a zone twice")
        return zones

    @model_validator(mode="after")
    def _gke_rules(self) -> GkePool:
        problems = []
        problem = gke_label_problem(self.gpu_label.key, self.gpu_label.value)
        if problem:
            problems.append(f"gpuLabel: {problem}")
        fixed = gke_fixed_gpus(self.machine_type)
        if fixed is not None and self.machine_type.startswith("g2-standard-") and fixed[1] is None:
            sizes = ", ".join(f"g2-standard-{n}" for n in _G2_GPU_COUNT)
            problems.append(f"machineType {self.machine_type!r} does not exist: G2 comes as {sizes} ({_GPU_DOCS})")
        elif fixed is not None:
            accelerator, count = fixed
            if self.accelerator.type != accelerator:
                problems.append(
                    f"accelerator.type {self.accelerator.type!r}: machine type {self.machine_type} comes with "
                    f"{accelerator}; set accelerator.type: {accelerator} or pick another machine type"
                )
            elif count is not None and self.accelerator.count != count:
                problems.append(
                    f"accelerator.count {self.accelerator.count}: machine type {self.machine_type} comes with "
                    f"{count} x {accelerator}; set accelerator.count: {count}"
                )
        else:
            series = self.machine_type.split("-", 1)[0]
            if series == "n1" and self.accelerator.type not in GKE_N1_ATTACHABLE_GPUS:
                problems.append(
                    f"accelerator.type {self.accelerator.type!r} cannot be attached to {self.machine_type}: N1 machines "
                    f"take {', '.join(GKE_N1_ATTACHABLE_GPUS)}; other GPUs come with their machine type "
                    "(L4: g2-standard-*, A100: a2-*, H100/H200: a3-*, B200: a4-*)"
                )
            elif series == "n1" and self.accelerator.count not in GKE_N1_GPU_COUNTS[self.accelerator.type]:
                counts = GKE_N1_GPU_COUNTS[self.accelerator.type]
                problems.append(
                    f"accelerator.count {self.accelerator.count}: an N1 VM takes {', '.join(map(str, counts[:-1]))} or "
                    f"{counts[-1]} x {self.accelerator.type} ({_GPU_DOCS}); set accelerator.count to one of them"
                )
            elif series in GKE_NO_GPU_SERIES:
                problems.append(
                    f"machineType {self.machine_type!r}: GPUs cannot be attached to the {series.upper()} series; use "
                    "n1-* with a T4/V100/P100/P4, or a GPU machine type (g2-standard-* for L4, a2/a3/a4 for A100/H100/B200)"
                )
        opted_out = self.labels.get(GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL) == "true"
        no_driver = self.accelerator.gpu_driver_version == "INSTALLATION_DISABLED"
        label = f"labels['{GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL}']"
        if opted_out and not no_driver:
            problems.append(
                f"{label} is 'true' but accelerator.gpuDriverVersion is {self.accelerator.gpu_driver_version}: the "
                "label turns off GKE's device plugin DaemonSet, which is also what finishes GKE's driver install, so "
                "the nodes would come up without a driver. To run NVIDIA's plugin, set accelerator.gpuDriverVersion: "
                "INSTALLATION_DISABLED (and install the driver yourself) and nvidiaDevicePlugin: true; to keep GKE's "
                "plugin and driver, remove the label"
            )
        elif no_driver and not opted_out:
            problems.append(
                f"accelerator.gpuDriverVersion is INSTALLATION_DISABLED but {label} is not 'true': GKE's own device "
                "plugin keeps running, so NVIDIA's plugin would be a second plugin for nvidia.com/gpu on the same "
                f"nodes. Add the label {GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL}: 'true' (and nvidiaDevicePlugin: true), "
                "or let GKE install the driver (gpuDriverVersion LATEST or DEFAULT)"
            )
        elif opted_out and no_driver and not self.nvidia_device_plugin:
            problems.append(
                f"{label} and gpuDriverVersion INSTALLATION_DISABLED turn GKE's device plugin and driver off, but "
                "nvidiaDevicePlugin is false, so nothing would advertise nvidia.com/gpu; set nvidiaDevicePlugin: true "
                "(with devicePlugin.enabled: false if the GPU Operator installs the plugin)"
            )
        elif self.nvidia_device_plugin and not (opted_out and no_driver):
            problems.append(
                f"nvidiaDevicePlugin is true, but GKE's own plugin still serves the pool; also set {label}: 'true' "
                "and accelerator.gpuDriverVersion: INSTALLATION_DISABLED (and install the driver yourself), or "
                "remove nvidiaDevicePlugin to keep GKE's plugin"
            )
        if self.nvidia_device_plugin and self.accelerator.gpu_sharing_config is not None:
            problems.append(
                "accelerator.gpuSharingConfig is carried out by GKE's device plugin, which nvidiaDevicePlugin turns "
                "off; remove it and configure time-slicing in NVIDIA's plugin instead"
            )
        if problems:
            raise fail("; ".join(problems))
        return self

    @property
    def taint_list(self) -> list[Taint]:
        """The pool's taints in config order, plus ``nvidia.com/gpu=present:NoSchedule`` when the config lacks it."""
        taints = [t.to_taint() for t in self.taints]
        if DEFAULT_TAINT.identity not in {t.identity for t in taints}:
            taints.append(DEFAULT_TAINT)
        return taints

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        """True only when the pool opted out of GKE's plugin (``nvidiaDevicePlugin``); GKE's serves it otherwise."""
        return self.nvidia_device_plugin

    @property
    def device_plugin_source(self) -> str:
        """``platform`` (GKE's own device plugin) unless the pool opted out of it (``none``)."""
        return "none" if self.nvidia_device_plugin else "platform"

    @property
    def image_family(self) -> str:
        return "gke"

    @property
    def driver_source(self) -> str:
        """``platform`` (GKE's driver installer) unless ``gpuDriverVersion: INSTALLATION_DISABLED`` (``none``)."""
        return "none" if self.accelerator.gpu_driver_version == "INSTALLATION_DISABLED" else "platform"

    @property
    def gpu_model(self) -> str | None:
        """The accelerator type, e.g. ``nvidia-l4``."""
        return self.accelerator.type

    @property
    def gpus_per_node(self) -> int | None:
        """``accelerator.count``."""
        return self.accelerator.count

    @property
    def platform_node_labels(self) -> dict[str, str]:
        """``cloud.google.com/gke-accelerator=<type>``: GKE sets it on every GPU node."""
        return {GKE_ACCELERATOR_LABEL: self.accelerator.type}


def stack_issues(stack: Any) -> list[ConfigIssue]:
    """Stack-level GKE rules as :class:`ConfigIssue` objects: cluster project/location/name, zones, no mixing,
    and no second copy of the GPU agents GKE runs itself (:func:`_agent_issues`)."""
    gke = [i for i, p in enumerate(stack.pools) if isinstance(p, GkePool)]
    if not gke:
        return []
    cluster = stack.cluster
    issues = []
    where = ", ".join(f"pools[{i}]" for i in gke)
    if not cluster.given("project"):
        issues.append(ConfigIssue("cluster.project", f"missing; gke pools ({where}) need the cluster's Google Cloud project ID"))
    if not cluster.given("location"):
        issues.append(ConfigIssue("cluster.location", f"missing; gke pools ({where}) need the cluster's region (us-central1) or zone "
            "(us-central1-a)"
        ))
    if "name" not in cluster.not_judged and not full_match(_GKE_NAME_RE, cluster.name):
        issues.append(ConfigIssue("cluster.name", f"{cluster.name!r} is not a GKE cluster name (a lower-case letter, then up to 39 lower-case "
            "letters, digits or '-', not ending in '-')"
        ))
    region = cluster.location.rsplit("-", 1)[0] if cluster.location and full_match(_GCE_ZONE_RE, cluster.location) else (
        cluster.location
    )
    for i in gke:
        pool = stack.pools[i]
        outside = [z for z in pool.node_locations or [] if region and z.rsplit("-", 1)[0] != region]
        if outside:
            issues.append(ConfigIssue(f"pools[{i}].nodeLocations", f"{outside} are outside the cluster's region {region}"))
    others = [i for i, p in enumerate(stack.pools) if not isinstance(p, GkePool)]
    for i in others:
        issues.append(ConfigIssue(f"pools[{i}].backend", f"{stack.pools[i].backend!r} cannot share a stack with gke pools ({where}); "
            "a stack is one cluster"
        ))
    return issues + _agent_issues(stack, gke)


def _agent_issues(stack: Any, gke: list[int]) -> list[ConfigIssue]:
    """GPU agents GKE already runs on the pools its own device plugin serves: the GPU Operator's plugin
    (``devicePlugin.provider: gpu-operator``) and, when every pool is such a pool, GPU Feature Discovery."""
    issues = []
    managed = [i for i in gke if not stack.pools[i].uses_nvidia_device_plugin]
    if stack.device_plugin.provider == "gpu-operator":
        for i in managed:
            issues.append(
                ConfigIssue(
                    f"pools[{i}]",
                    "GKE already runs its device plugin (and driver installer) on this pool, so the GPU Operator's "
                    "plugin would be a second one for nvidia.com/gpu (NVIDIA cloud-native-docs gpu-operator/google-gke.rst "
                    "disables GKE's with the label gke-no-default-nvidia-gpu-device-plugin=true); set nvidiaDevicePlugin: "
                    "true with that label and gpuDriverVersion INSTALLATION_DISABLED, or label the pool "
                    "nvidia.com/gpu.deploy.operands: 'false', or use provider: nvidia-device-plugin",
                )
            )
    if stack.gpu_agents.feature_discovery.enabled and len(managed) == len(stack.pools):
        issues.append(
            ConfigIssue(
                "gpuAgents.featureDiscovery.enabled",
                "every pool is served by GKE's own device plugin and driver installer, which label the nodes "
                "(cloud.google.com/gke-accelerator, gke-gpu-sharing-strategy; NVIDIA cloud-native-docs "
                "gpu-operator/google-gke.rst) and which NVIDIA's GFD does not configure; remove featureDiscovery or "
                "opt the pools out of GKE's plugin",
            )
        )
    return issues

