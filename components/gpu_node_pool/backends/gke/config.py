"""Config of ``gke`` pools: the GKE node pool model and its stack-level rules."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property
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
from ...config.errors import ConfigIssue
from ...k8s.labels import GKE_COMPUTE_CLASS_LABEL as COMPUTE_CLASS_LABEL
from ...k8s.labels import GKE_COMPUTE_CLASS_SOURCE as COMPUTE_CLASS_SOURCE
from ...k8s.labels import gke_label_problem
from ...k8s.patterns import full_match
from ...k8s.taints import Taint, TaintEffect
from ...k8s.wellknown import GKE_ACCELERATOR_LABEL, GKE_NO_DEFAULT_PLUGIN_LABEL
from ...text.listing import listed
from .._shared.capacity import NodeRepair
from . import POOL_NAME
from .driver import DRIVER_DISABLED, GKE_DRIVER_INSTALLER_SOURCE, driver_warning, ubuntu_mig_refusal
from .image import DRIVER_MOUNT, GkeImageType, driver_root_of, image_type_of, ubuntu_latest_warning, windows_refusal
from .machines import MachineProblem, machine_problems
from .names import NODE_POOL_NAME
from .node_config_extras import ReservationAffinity
from .raw_sharing import raw_sharing_refusal as raw_sharing_refusal  # the refusal's text, importable here too
from .raw_sharing import refuse_raw_sharing, refused_sharing_of_the_pool

#: ``NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs``): ``LATEST`` and
#: ``DEFAULT`` install that driver (``LATEST`` on COS), ``INSTALLATION_DISABLED`` installs none,
#: ``GPU_DRIVER_VERSION_UNSPECIFIED`` installs the default one from GKE 1.30.1-gke.1156000.
GkeDriverVersion = Literal["LATEST", "DEFAULT", "INSTALLATION_DISABLED", "GPU_DRIVER_VERSION_UNSPECIFIED"]
GKE_GPU_DRIVER_VERSIONS: tuple[str, ...] = get_args(GkeDriverVersion)
#: Node label that turns GKE's own device plugin DaemonSet off on a pool; NVIDIA pairs it with
#: ``gpu-driver-version=disabled`` (NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst``).
GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL = GKE_NO_DEFAULT_PLUGIN_LABEL
#: GKE runs its own device plugin DaemonSet (``nvidia-gpu-device-plugin`` in ``kube-system``) on every node with a GPU,
#: whatever ``gpuDriverVersion`` says: it selects ``cloud.google.com/gke-accelerator Exists`` only.
GKE_PLUGIN_SOURCE = (
    "GoogleCloudPlatform/container-engine-accelerators cmd/nvidia_gpu/README.md: 'automatically deployed as an addon "
    "when you use nodes with accelerators attached'; its cmd/nvidia_gpu/device-plugin.yaml selects "
    "cloud.google.com/gke-accelerator Exists"
)
#: Only the node label ``gke-no-default-nvidia-gpu-device-plugin=true`` turns GKE's device plugin off.
GKE_OPT_OUT_SOURCE = (
    "https://cloud.google.com/kubernetes-engine/docs/how-to/gpu-operator; NVIDIA/cloud-native-docs "
    "gpu-operator/google-gke.rst"
)
#: Google's recommended node scope: one broad scope, access controlled by the service account's IAM roles.
GKE_DEFAULT_OAUTH_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
_GKE_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
_GCE_ZONE_RE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")
_GCE_REGION_RE = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")
#: Compute Engine's regions and zones: "a zone name is its region name and a letter" (us-central1-a).
_ZONES_DOC = "https://cloud.google.com/compute/docs/regions-zones"


def _fail_at(problems: list[tuple[tuple[str, ...], str]]) -> Any:
    """One error for the pool's problems ``[(key under the pool, sentence)]``: at that key when they all concern one
    (so the message's file:line is the value's own), else at the pool with each sentence led by its key."""
    keys = list(dict.fromkeys(key for key, _ in problems))
    if len(keys) == 1:
        return fail("; ".join(sentence for _, sentence in problems), at=keys[0])
    return fail("; ".join((f"{_dotted(key)} " if key else "") + sentence for key, sentence in problems))


def _dotted(key: tuple[str, ...]) -> str:
    """``("accelerator", "count")`` -> ``accelerator.count``; a key with dots or slashes in brackets (``labels['a/b']``)."""
    return "".join(f"['{k}']" if ("." in k or "/" in k) else (f".{k}" if i else k) for i, k in enumerate(key))


class GkeAccelerator(Model):
    """The GPUs of each node (``node_config.guest_accelerators[0]``)."""

    type: str = Field(
        pattern=r"^nvidia-[a-z0-9]+(-[a-z0-9]+)*$",
        description="GKE accelerator type, e.g. nvidia-l4, nvidia-tesla-t4, nvidia-h100-80gb.",
    )
    count: int = Field(ge=1, description="GPUs per node, >= 1 (fixed by the machine type for A and G series).")
    gpu_driver_version: GkeDriverVersion = Field(
        "LATEST",
        description="LATEST (default) | DEFAULT | INSTALLATION_DISABLED (GKE installs no driver: apply GKE's "
        "nvidia-driver-installer DaemonSet) | GPU_DRIVER_VERSION_UNSPECIFIED.",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_raw_sharing(cls, data: Any) -> Any:
        """Refuse ``gpuSharingConfig`` at its own key, with its pool's refusal when the pool gave one."""
        return refuse_raw_sharing(data)


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
      (:func:`~gpu_node_pool.k8s.labels.gke_label_problem`) but ``cloud.google.com/compute-class``, which
      must name the class its ``cloud.google.com/compute-class=<class>:NoSchedule`` taint names (one without
      the other is a warning, and so is a ``cloud.google.com/compute-class`` taint of another effect than
      ``NoSchedule``, the one GKE documents): GKE gives a node pool created by hand to a custom ComputeClass by both
      (https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes#manual-node-pools).
    * Machine type and accelerator: the pairs Compute Engine takes, from the sourced table of
      :mod:`.machines` (refused: sizes a known accelerator-optimized series does not have, another GPU
      model or count than the machine type carries, N1 above its vCPU limit per GPU count, GPUs on series
      that take none; a warning: a series or size the table does not list).
    * ``accelerator.gpuSharingConfig`` is refused for the pool's ``gpuSharing``, the one setting for GPU
      sharing (:func:`.raw_sharing.raw_sharing_refusal`).
    * Device plugin: GKE runs its own on every GPU node whatever the driver setting
      (:data:`GKE_PLUGIN_SOURCE`; it also finishes GKE's driver install). NVIDIA's plugin
      serves the pool only with ``nvidiaDevicePlugin: true``, the label
      ``gke-no-default-nvidia-gpu-device-plugin: "true"`` and ``gpuDriverVersion:
      INSTALLATION_DISABLED``, all three together (:data:`GKE_OPT_OUT_SOURCE`): the label alone
      leaves nodes without a driver, ``nvidiaDevicePlugin`` without the label leaves GKE's plugin
      running beside NVIDIA's, and the label without ``nvidiaDevicePlugin`` leaves no plugin.
    * Driver: ``gpuDriverVersion: INSTALLATION_DISABLED`` with GKE's plugin (no label, no
      ``nvidiaDevicePlugin``) is GKE's manual-driver setup: the user applies GKE's
      ``nvidia-driver-installer`` DaemonSet (:data:`GKE_DRIVER_INSTALLER_SOURCE`). Taken, with a
      warning on every ``INSTALLATION_DISABLED`` pool (:meth:`config_warnings`): its nodes advertise no
      ``nvidia.com/gpu`` until an installer runs there; the policy ``gpu-agents-cover-gpu-pools``
      judges an installer the stack declares.
    * ``imageType``: ``COS_CONTAINERD`` | ``UBUNTU_CONTAINERD`` (unset: GKE's default ``COS_CONTAINERD``); Windows
      Server images refused as out of scope, ``LATEST`` on Ubuntu a warning (:mod:`.image`); ``mig`` on Ubuntu with
      ``INSTALLATION_DISABLED`` refused: nothing creates the partitions (:func:`.driver.ubuntu_mig_refusal`).
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
    image_type: GkeImageType | None = Field(
        None, description="Node image (node_config.image_type): COS_CONTAINERD | UBUNTU_CONTAINERD; unset: GKE's "
        "default COS_CONTAINERD. Windows Server images are refused (rules: backends/gke/image.py).",
    )

    @field_validator("image_type", mode="before")
    @classmethod
    def _no_windows(cls, value: Any) -> Any:
        """A Windows Server image refused with its reason (:func:`.image.windows_refusal`), before the allowed values."""
        return windows_refusal(value)

    @model_validator(mode="before")
    @classmethod
    def _raw_sharing_of_the_pool(cls, data: Any) -> Any:
        """Hand ``accelerator.gpuSharingConfig`` to the accelerator's validator as the refusal that fits this pool
        (:func:`.raw_sharing.raw_sharing_refusal` with its ``mig`` and ``nvidiaDevicePlugin``), so that the error stays at the
        field's key beside the pool's other errors (:func:`.raw_sharing.refused_sharing_of_the_pool`)."""
        return refused_sharing_of_the_pool(data)

    @field_validator("name")
    @classmethod
    def _gke_name(cls, name: str) -> str:
        """A gke pool name starts with a letter (its length: ``PoolBase``, from the registry's ``pool_name``)."""
        if not name[:1].isalpha():
            raise fail(
                f"{name!r}: a gke pool name starts with a letter: the stack program names the pool's GpuNodePool "
                f"after it, and Pulumi names its node pool '<name>-node-pool-' plus 7 random characters, which "
                f"{NODE_POOL_NAME.rule}; write e.g. {('p' + name)[:POOL_NAME.longest].rstrip('-')!r}"
            )
        return name

    @classmethod
    def backend_label_problems(cls, labels: Mapping[str, str]) -> list[tuple[str, str]]:
        """What a GKE node pool refuses of the labels (:func:`gke_label_problem`), and GKE's device-plugin opt-out
        label with a value GKE does not act on."""
        problems = [(k, p) for k, v in labels.items() if (p := gke_label_problem(k, v))]
        value = labels.get(GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL)
        if value is not None and value != "true":
            problems.append((GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL,
                f"label {GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL!r} is {value!r}; GKE acts on the value 'true' only: "
                "set 'true' (with nvidiaDevicePlugin and INSTALLATION_DISABLED) or remove it"
            ))
        return problems

    @classmethod
    def backend_taint_problems(cls, taints: list[TaintConfig]) -> list[tuple[tuple[str | int, ...], str]]:
        """A taint of GKE's own GPU key and effect with another value (GKE adds ``DEFAULT_TAINT`` itself)."""
        return [((), f"taints[{i}] {str(taint)!r}: GKE's own GPU taint is {str(DEFAULT_TAINT)!r} and one key and "
                     f"effect can carry one value; write {str(DEFAULT_TAINT)!r} or use another key")
                for i, t in enumerate(taints)
                if (taint := t.to_taint()).identity == DEFAULT_TAINT.identity and taint.value != DEFAULT_TAINT.value]

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
            # a region written for a zone (us-central1) gets its zone a; anything else the documented example
            fix = [f"{z}-a" if full_match(_GCE_REGION_RE, z) else "us-central1-a" for z in bad]
            what = f"{bad[0]!r} is not a Compute Engine zone" if len(bad) == 1 else f"{listed(bad, quote=True)} are not Compute Engine zones"
            raise fail(f"{what}: a zone is its region and a letter, e.g. us-central1-a ({_ZONES_DOC}), and nodeLocations "
                       f"lists the zones of the pool's nodes ({NODE_LOCATIONS_SOURCE}); write zones, e.g. "
                       f"{listed(dict.fromkeys(fix))}, or drop nodeLocations to use the cluster's zones")
        if zones and len(set(zones)) != len(zones):
            raise fail(f"{listed(zones)} lists a zone twice")
        return zones

    @model_validator(mode="after")
    def _gke_rules(self) -> GkePool:
        problems: list[tuple[tuple[str, ...], str]] = []
        problem = gke_label_problem(self.gpu_label.key, self.gpu_label.value)
        if problem:
            problems.append(((), f"gpuLabel: {problem}"))
        problems += [(p.key, p.message) for p in self.machine_findings if not p.warning]
        problems += [(("labels", COMPUTE_CLASS_LABEL), why) for why in self._compute_class_problems(warnings=False)]
        if self.mig is not None and (why := ubuntu_mig_refusal(self.image_type, self.accelerator.gpu_driver_version,
                                                                self.mig.profile)):
            problems.append((("mig",), why))
        opted_out = self.labels.get(GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL) == "true"
        no_driver = self.accelerator.gpu_driver_version == DRIVER_DISABLED
        label = f"labels['{GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL}']"
        if opted_out and not no_driver:
            problems.append(((),
                f"{label} is 'true' but accelerator.gpuDriverVersion is {self.accelerator.gpu_driver_version}: the "
                "label turns off GKE's device plugin DaemonSet, which is also what finishes GKE's driver install, so "
                "the nodes would come up without a driver. To run NVIDIA's plugin, set accelerator.gpuDriverVersion: "
                "INSTALLATION_DISABLED (and install the driver yourself) and nvidiaDevicePlugin: true; to keep GKE's "
                "plugin and driver, remove the label"
            ))
        elif no_driver and not opted_out and self.nvidia_device_plugin:
            problems.append(((),
                f"nvidiaDevicePlugin is true with accelerator.gpuDriverVersion INSTALLATION_DISABLED, but {label} is "
                "not 'true': GKE runs its own device plugin DaemonSet on every GPU node whatever the driver setting "
                f"({GKE_PLUGIN_SOURCE}) and only that label turns it off ({GKE_OPT_OUT_SOURCE}), so NVIDIA's plugin "
                "would be a second plugin for nvidia.com/gpu on the same nodes (the kubelet keeps one registration "
                f"per resource name). Add the label {GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL}: 'true', or remove "
                "nvidiaDevicePlugin to keep GKE's plugin (and apply GKE's driver installer DaemonSet, "
                f"{GKE_DRIVER_INSTALLER_SOURCE})"
            ))
        elif opted_out and no_driver and not self.nvidia_device_plugin:
            problems.append(((),
                f"{label} and gpuDriverVersion INSTALLATION_DISABLED turn GKE's device plugin and driver off, but "
                "nvidiaDevicePlugin is false, so nothing would advertise nvidia.com/gpu; set nvidiaDevicePlugin: true "
                "(with devicePlugin.enabled: false if the GPU Operator installs the plugin)"
            ))
        elif self.nvidia_device_plugin and not (opted_out and no_driver):
            problems.append(((),
                f"nvidiaDevicePlugin is true, but GKE's own plugin still serves the pool; also set {label}: 'true' "
                "and accelerator.gpuDriverVersion: INSTALLATION_DISABLED (and install the driver yourself), or "
                "remove nvidiaDevicePlugin to keep GKE's plugin"
            ))
        if problems:
            raise _fail_at(problems)
        return self

    @cached_property
    def machine_findings(self) -> tuple[MachineProblem, ...]:
        """:func:`.machines.machine_problems` of ``machineType`` with ``accelerator.count`` x ``accelerator.type``,
        judged once per pool: its errors refuse the pool (``_gke_rules``), its warnings are
        :meth:`config_warnings`. Read from the frozen model's fields (a stand-in built by ``model_construct``
        from an invalid pool judges its own fields on first read)."""
        return tuple(machine_problems(self.machine_type, self.accelerator.type, self.accelerator.count))

    def _compute_class_problems(self, *, warnings: bool) -> list[str]:
        """The label and taint that give the pool to a custom ComputeClass, which GKE reads only as a pair of one
        name: ``cloud.google.com/compute-class: <name>`` and ``cloud.google.com/compute-class=<name>:NoSchedule``
        (:data:`COMPUTE_CLASS_SOURCE`: GKE documents that taint with the effect ``NoSchedule`` only). Errors: the
        ``NoSchedule`` taint names another class than the label. Warnings (``warnings=True``): one of the two without
        the other, and a ``cloud.google.com/compute-class`` taint of another effect (``NoExecute``,
        ``PreferNoSchedule``), with or without the label, which is not the taint GKE documents: the fix is to write
        it with ``NoSchedule``, or to remove it when ``taints`` already has a ``NoSchedule`` one (a second would be
        refused as a duplicate key and effect), so following every warning leaves one ``NoSchedule`` taint."""
        label = self.labels.get(COMPUTE_CLASS_LABEL)
        taints = [t.to_taint() for t in self.taints]
        classed = [t for t in taints if t.key == COMPUTE_CLASS_LABEL]
        tainted = [t for t in classed if t.effect is TaintEffect.NO_SCHEDULE]
        want = str(Taint(COMPUTE_CLASS_LABEL, label, TaintEffect.NO_SCHEDULE)) if label is not None else ""
        if warnings:
            out = []
            kept = str(tainted[0]) if tainted else None  # the NoSchedule taint the pool has, or the first fix gives it
            for t in classed:
                if t.effect is TaintEffect.NO_SCHEDULE:
                    continue
                why = (f"taints has {str(t)!r}, but GKE documents the ComputeClass taint of a node pool created by hand "
                       f"with the effect {TaintEffect.NO_SCHEDULE.value} only ({COMPUTE_CLASS_SOURCE}); ")
                if kept is not None:
                    out.append(why + (f"taints already has {kept!r}, so remove it" if tainted else
                                      f"remove it: the fix of the first one gives taints {kept!r}"))
                    continue
                kept = want or str(Taint(COMPUTE_CLASS_LABEL, t.value, TaintEffect.NO_SCHEDULE))
                out.append(why + f"write {kept!r} instead"
                           + ("" if label is not None else
                              f", and add the label {COMPUTE_CLASS_LABEL}: {t.value!r} (GKE gives the pool to the class "
                              "only with both)"))
            if label is not None and not tainted and not out:
                out.append(f"{label!r} without the taint {want!r}: GKE gives a node pool created by "
                           f"hand to the ComputeClass only with both ({COMPUTE_CLASS_SOURCE}); add the taint to taints")
            if label is None and tainted:
                out.append(f"taints has {str(tainted[0])!r} without the label {COMPUTE_CLASS_LABEL}: "
                           f"{tainted[0].value!r}: GKE gives a node pool created by hand to the ComputeClass only with "
                           f"both ({COMPUTE_CLASS_SOURCE}); add the label")
            return out
        other = [t for t in tainted if label is not None and t.value != label]
        if other:
            return [f"{label!r}, but taints has {str(other[0])!r}: GKE gives a node pool created by hand to the "
                    f"ComputeClass that its label and its taint both name ({COMPUTE_CLASS_SOURCE}); write {want!r} "
                    "in taints, or this label's value to match the taint"]
        return []

    def config_warnings(self) -> list[tuple[str, str]]:
        """What the machine-type table does not judge (:func:`.machines.machine_problems` warnings), a compute
        class label or taint without its pair (:meth:`_compute_class_problems`), and ``gpuDriverVersion:
        INSTALLATION_DISABLED`` (:func:`driver_warning`), ``LATEST`` on Ubuntu (:func:`.image.ubuntu_latest_warning`):
        ``[(sub-path under the pool, message)]``."""
        out = [(".".join(p.key), p.message) for p in self.machine_findings if p.warning]
        if self.accelerator.gpu_driver_version == DRIVER_DISABLED:
            out.append(("accelerator.gpuDriverVersion",
                        driver_warning(gke_plugin=not self.nvidia_device_plugin, image_type=self.image_type)))
        if latest := ubuntu_latest_warning(self.image_type, self.accelerator.gpu_driver_version):
            out.append(("accelerator.gpuDriverVersion", latest))
        where = _dotted(("labels", COMPUTE_CLASS_LABEL)) if COMPUTE_CLASS_LABEL in self.labels else "taints"
        return out + [("taints" if why.startswith("taints has") else where, why)
                      for why in self._compute_class_problems(warnings=True)]

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
    def critical_pods_need_quota(self) -> bool:
        """True: GKE admits ``system-node-critical``/``system-cluster-critical`` pods outside ``kube-system`` only in a
        namespace with a ResourceQuota scoped to them (:mod:`gpu_node_pool.gpu_agents.critical_quota`, its sources)."""
        return True

    @property
    def driver_source(self) -> str:
        """``platform`` (GKE's driver installer) unless ``gpuDriverVersion: INSTALLATION_DISABLED`` (``none``)."""
        return "none" if self.accelerator.gpu_driver_version == DRIVER_DISABLED else "platform"

    @property
    def node_image(self) -> str:
        """The node image the pool's nodes run (:func:`.image.image_type_of`)."""
        return image_type_of(self)

    @property
    def driver_root(self) -> str | None:
        """Where the driver lies on the nodes' host, None when no source states it (:func:`.image.driver_root_of`)."""
        return driver_root_of(self)

    @property
    def driver_mount(self) -> tuple[str, str]:  # :data:`.image.DRIVER_MOUNT`
        return DRIVER_MOUNT

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


#: Where GKE says a node pool's zones must be, as the nodeLocations refusal cites it.
NODE_LOCATIONS_SOURCE = (
    "https://cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters (\"All zones must be within the same "
    "region as the control plane\"); pulumi_gcp container.NodePool node_locations"
)


def _outside_region(outside: list[str], region: str) -> str:
    """Why GKE refuses the zones ``outside`` (not in ``region``, the cluster's region or its zone's region) in a node
    pool's ``nodeLocations``, with the source (:data:`NODE_LOCATIONS_SOURCE`) and the fix."""
    return (f"{listed(outside)} {'is' if len(outside) == 1 else 'are'} outside the cluster's region {region}: a node pool's zones "
            f"must be zones of the cluster's region ({NODE_LOCATIONS_SOURCE}); list zones of {region} that offer the "
            f"accelerator (gcloud compute accelerator-types list --filter=zone~^{region}-), or drop "
            "nodeLocations to use the cluster's zones")


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
            issues.append(ConfigIssue(f"pools[{i}].nodeLocations", _outside_region(outside, region)))
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
                    "GKE already runs its device plugin on this pool, so the GPU Operator's "
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

