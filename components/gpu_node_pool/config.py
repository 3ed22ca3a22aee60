"""The stack config of gpu-node-pools: pydantic models, and errors a platform engineer can read.

A stack file (``stacks/Pulumi.<stack>.yaml``) holds, under the project namespace
``gpu-node-pools:``, the keys ``cluster``, ``pools`` and ``devicePlugin`` (camelCase, as
Pulumi config usually is). :func:`load_stack_config` validates all of it at once and raises
:class:`ConfigError` listing every mistake, one line each: the config path, the bad value,
the rule, and the fix where it is obvious. Nothing in this module registers a resource.

Example::

    config:
      gpu-node-pools:cluster:
        name: ml-dev
        nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
        subnetIds: [subnet-0a1b2c3d4e5f60718]
      gpu-node-pools:pools:
        - name: inference
          backend: eks-managed
          instanceTypes: [g6.xlarge]
          scaling: {minSize: 0, maxSize: 4}
          taints: ["nvidia.com/gpu=present:NoSchedule"]
"""

from __future__ import annotations

import base64
import binascii
import difflib
import ipaddress
import json
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args
from urllib.parse import urlsplit

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from . import instances
from .labels import (
    DEFAULT_GPU_LABEL,
    eks_label_problem,
    gke_label_problem,
    label_syntax_problem,
    node_restriction_problem,
)
from .taints import (
    Taint,
    TaintEffect,
    TaintError,
    Toleration,
    find_duplicate_taints,
    label_value_problem,
    qualified_name_problem,
    split_kubelet_form,
)
from .yaml_errors import yaml_syntax_problem

__all__ = [
    "PROJECT",
    "ConfigError",
    "ConfigIssue",
    "StackConfig",
    "ClusterConfig",
    "DevicePluginConfig",
    "EksManagedPool",
    "SelfManagedPool",
    "SELF_MANAGED_FORMATS",
    "GkePool",
    "GkeAccelerator",
    "GkeGpuSharingConfig",
    "KarpenterPool",
    "KarpenterNodeClass",
    "KarpenterNodeClassRef",
    "KarpenterRequirement",
    "karpenter_label_problem",
    "karpenter_requirement_problems",
    "PoolConfig",
    "ScalingConfig",
    "POOL_LABEL_KEY",
    "DEFAULT_TAINT",
    "load_stack_config",
    "validate_stack_config",
    "stack_file_config",
    "read_stack_file",
]

PROJECT = "gpu-node-pools"
#: Every pool's nodes carry ``gpu-node-pools/pool=<pool name>``, so the device plugin's
#: affinity and workloads can select exactly the pools they mean.
POOL_LABEL_KEY = "gpu-node-pools/pool"
#: The taint a pool gets when its config declares none: the convention GKE and NVIDIA's
#: tools know; it has a value because Cluster Autoscaler drops value-less EKS taints.
DEFAULT_TAINT = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)

EKS_MAX_TAINTS = 50
INT32_MAX = 2**31 - 1
#: AWS tagging rules (https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html):
#: key 1-128 characters, value 0-256, at most 50 user tags, the aws: prefix is reserved.
AWS_TAG_KEY_MAX, AWS_TAG_VALUE_MAX, AWS_MAX_TAGS = 128, 256, 50
EKS_TAINT_FIELD_MAX = 63
#: EKS ``amiType`` values with NVIDIA drivers (botocore ``AMITypesType``).
EKS_GPU_AMI_TYPES = (
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA",
    "BOTTLEROCKET_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA_FIPS",
    "BOTTLEROCKET_ARM_64_NVIDIA_FIPS",
)


# --- errors -----------------------------------------------------------------------------


class ConfigIssue:
    """One mistake in the stack config.

    Attributes:
        path: where it is, e.g. ``pools[1].taints[0].effect``.
        message: the bad value, the rule and the fix, as one sentence.
    """

    __slots__ = ("path", "message")

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def __repr__(self) -> str:
        return f"ConfigIssue({self.path!r}, {self.message!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigIssue) and (self.path, self.message) == (other.path, other.message)

    def __hash__(self) -> int:
        return hash((self.path, self.message))


class ConfigError(ValueError):
    """The stack config is invalid. ``issues`` lists every mistake; ``str()`` prints one per line."""

    def __init__(self, issues: list[ConfigIssue], source: str = "stack config") -> None:
        self.issues = issues
        self.source = source
        lines = [f"{len(issues)} error(s) in the {source}; nothing was deployed:"]
        lines += [f"  {issue}" for issue in issues]
        super().__init__("\n".join(lines))


def _fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("gpu_node_pools", "{reason}", {"reason": message})


# --- building blocks --------------------------------------------------------------------


class _Model(BaseModel):
    """Base: camelCase keys (as in the stack YAML), unknown keys are errors, frozen after validation."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        frozen=True,
        hide_input_in_errors=False,
        # No silent coercion: YAML's `yes`/`on` must not become 1 in minSize, nor 3.0 an int.
        strict=True,
    )


def _split_taint_string(value: Any) -> Any:
    # "key=value:Effect" becomes {key, value, effect} so that errors point at .key/.value/.effect
    if isinstance(value, str):
        try:
            key, val, effect = split_kubelet_form(value)
        except TaintError as err:
            raise _fail(str(err)) from None
        return {"key": key, "value": val, "effect": effect}
    if isinstance(value, Taint):
        return value.to_k8s()
    return value


class TaintConfig(_Model):
    """One taint: the string ``key=value:Effect`` or the object ``{key, value, effect}``.

    ``effect`` uses the Kubernetes spelling (``NoSchedule``, ``PreferNoSchedule``,
    ``NoExecute``) for every backend; the component translates it for EKS and GKE.
    """

    key: str = Field(description="Qualified name: optional DNS-subdomain prefix (<=253) + '/' + name (<=63).")
    value: str = Field("", description="Label value: up to 63 characters, may be empty.")
    effect: str = Field(description=" | ".join(e.value for e in TaintEffect))

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        problem = qualified_name_problem(key)
        if problem:
            raise _fail(f"{key!r} {problem}")
        return key

    @field_validator("value")
    @classmethod
    def _value(cls, value: str) -> str:
        problem = label_value_problem(value)
        if problem:
            raise _fail(f"{value!r} {problem}")
        return value

    @field_validator("effect")
    @classmethod
    def _effect(cls, effect: str) -> str:
        try:
            return TaintEffect.parse(effect).value
        except TaintError as err:
            raise _fail(str(err)) from None

    def to_taint(self) -> Taint:
        """The validated :class:`~gpu_node_pool.taints.Taint`."""
        return Taint(self.key, self.value, TaintEffect(self.effect))


TaintItem = Annotated[TaintConfig, BeforeValidator(_split_taint_string)]


class TolerationConfig(_Model):
    """A Kubernetes toleration (``key``, ``operator``, ``value``, ``effect``, ``tolerationSeconds``)."""

    key: str | None = None
    operator: str = "Equal"
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None

    @model_validator(mode="after")
    def _valid(self) -> TolerationConfig:
        try:
            self.to_toleration()
        except TaintError as err:
            raise _fail(str(err)) from None
        return self

    def to_toleration(self) -> Toleration:
        return Toleration(self.key, self.operator, self.value, self.effect, self.toleration_seconds)


def _labels_problems(labels: Mapping[str, str]) -> list[str]:
    return [p for k, v in labels.items() if (p := label_syntax_problem(k, v))]


def _check_labels(labels: dict[str, str]) -> dict[str, str]:
    problems = _labels_problems(labels)
    if problems:
        raise _fail("; ".join(problems))
    return labels


Labels = Annotated[dict[str, str], Field(description="Node labels: qualified-name keys, label values.")]

def _check_aws_tags(tags: dict[str, str]) -> dict[str, str]:
    problems = []
    if len(tags) > AWS_MAX_TAGS:
        problems.append(f"{len(tags)} tags; AWS allows at most {AWS_MAX_TAGS} per resource")
    for key, value in tags.items():
        if not 1 <= len(key) <= AWS_TAG_KEY_MAX:
            problems.append(f"tag key {key[:40]!r}... is {len(key)} characters; AWS allows 1-{AWS_TAG_KEY_MAX}")
        elif key.lower().startswith("aws:"):
            problems.append(f"tag key {key!r} uses the aws: prefix, which AWS reserves for its own tags")
        if len(value) > AWS_TAG_VALUE_MAX:
            problems.append(f"tag {key[:40]!r} has a {len(value)}-character value; AWS allows at most {AWS_TAG_VALUE_MAX}")
    if problems:
        raise _fail("; ".join(problems))
    return tags


#: AWS resource tags, checked against the AWS tagging limits.
AwsTags = Annotated[dict[str, str], AfterValidator(_check_aws_tags)]


_POOL_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class ScalingConfig(_Model):
    """Node count bounds. ``minSize`` may be 0 (scale from zero); ``desiredSize`` defaults to ``minSize``."""

    min_size: int = Field(ge=0, description="Minimum nodes, >= 0.")
    max_size: int = Field(ge=1, le=INT32_MAX, description="Maximum nodes, >= 1 and >= minSize (an int32 in the EKS and Auto Scaling APIs).")
    desired_size: int | None = Field(None, ge=0, description="Initial nodes, between minSize and maxSize.")

    @model_validator(mode="after")
    def _bounds(self) -> ScalingConfig:
        if self.min_size > self.max_size:
            raise _fail(
                f"minSize {self.min_size} is above maxSize {self.max_size}; raise maxSize or lower minSize"
            )
        if self.desired_size is not None and not self.min_size <= self.desired_size <= self.max_size:
            raise _fail(
                f"desiredSize {self.desired_size} is outside [minSize {self.min_size}, maxSize {self.max_size}]"
            )
        return self

    @property
    def desired(self) -> int:
        return self.min_size if self.desired_size is None else self.desired_size


class UpdateConfig(_Model):
    """EKS node group update config: exactly one of ``maxUnavailable`` (nodes) or ``maxUnavailablePercentage`` (1-100)."""

    max_unavailable: int | None = Field(None, ge=1, le=100)
    max_unavailable_percentage: int | None = Field(None, ge=1, le=100)

    @model_validator(mode="after")
    def _one(self) -> UpdateConfig:
        if (self.max_unavailable is None) == (self.max_unavailable_percentage is None):
            raise _fail("set exactly one of maxUnavailable or maxUnavailablePercentage")
        return self


class GpuLabel(_Model):
    """The label that marks the pool's nodes as GPU nodes (default ``nvidia.com/gpu.present=true``)."""

    key: str = DEFAULT_GPU_LABEL[0]
    value: str = DEFAULT_GPU_LABEL[1]

    @model_validator(mode="after")
    def _syntax(self) -> GpuLabel:
        problem = label_syntax_problem(self.key, self.value)
        if problem:
            raise _fail(problem)
        return self


# --- pools ------------------------------------------------------------------------------


class _PoolBase(_Model):
    name: str = Field(description="Pool name: lower-case DNS label, up to 40 characters; names child resources.")
    taints: list[TaintItem] = Field(
        default_factory=lambda: [TaintConfig.model_validate(DEFAULT_TAINT.to_k8s())],
        description=f"Taints every node of the pool carries; default [{DEFAULT_TAINT}].",
    )
    labels: Labels = Field(default_factory=dict)
    gpu_label: GpuLabel = Field(default_factory=GpuLabel)

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if len(name) > 40 or not _POOL_NAME_RE.match(name):
            raise _fail(
                f"{name!r} must be a lower-case DNS label (letters, digits, '-'), up to 40 characters, "
                "e.g. gpu-inference"
            )
        return name

    @field_validator("taints")
    @classmethod
    def _taints(cls, taints: list[TaintConfig]) -> list[TaintConfig]:
        dups = find_duplicate_taints(t.to_taint() for t in taints)
        if dups:
            first, dup, taint = dups[0]
            raise _fail(
                f"taints[{first}] and taints[{dup}] both have key {taint.key!r} and effect "
                f"{taint.effect.value}; a node carries one taint per key and effect (Kubernetes, EKS "
                "and GKE reject duplicates): keep one"
            )
        return taints

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: dict[str, str]) -> dict[str, str]:
        return _check_labels(labels)

    @model_validator(mode="after")
    def _reserved_labels(self) -> _PoolBase:
        if POOL_LABEL_KEY in self.labels:
            raise _fail(f"labels: {POOL_LABEL_KEY!r} is set by the component to the pool name; remove it")
        if self.gpu_label.key == POOL_LABEL_KEY:
            raise _fail(
                f"gpuLabel: {POOL_LABEL_KEY!r} is the pool label the component sets to the pool name; "
                "use another key, e.g. nvidia.com/gpu.present"
            )
        if self.labels.get(self.gpu_label.key, self.gpu_label.value) != self.gpu_label.value:
            raise _fail(
                f"labels[{self.gpu_label.key!r}] conflicts with gpuLabel ({self.gpu_label.value!r}); "
                "set it once, in gpuLabel"
            )
        return self

    # derived, plain values (known at preview) -----------------------------------------
    @property
    def taint_list(self) -> list[Taint]:
        """The pool's taints as :class:`Taint`, in config order."""
        return [t.to_taint() for t in self.taints]

    @property
    def node_labels(self) -> dict[str, str]:
        """All labels the nodes carry: the user's, the GPU label and the pool label, sorted by key."""
        merged = dict(self.labels)
        merged[self.gpu_label.key] = self.gpu_label.value
        merged[POOL_LABEL_KEY] = self.name
        return dict(sorted(merged.items()))

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        """Whether NVIDIA's device plugin chart must serve this pool (backends override)."""
        return True


class EksManagedPool(_PoolBase):
    """A GPU pool as an EKS managed node group (``aws.eks.NodeGroup``).

    Limits checked here (EKS API ``CreateNodegroup``/``Taint``): at most 50 taints, taint key
    and value up to 63 characters, label keys up to 63 and label values 1-63 characters, no
    ``kubernetes.io``, ``k8s.io`` or ``eks.amazonaws.com`` label keys.
    """

    backend: Literal["eks-managed"]
    instance_types: list[str] = Field(min_length=1, description="NVIDIA GPU instance types, e.g. [g6.xlarge].")
    ami_type: str = Field("AL2023_x86_64_NVIDIA", description="One of the EKS NVIDIA AMI types.")
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] = "ON_DEMAND"
    scaling: ScalingConfig
    subnet_ids: list[str] | None = Field(None, min_length=1, description="Defaults to cluster.subnetIds.")
    node_role_arn: str | None = Field(None, description="Defaults to cluster.nodeRoleArn.")
    disk_size: int | None = Field(None, ge=20, le=16384, description="Root volume GiB.")
    update_config: UpdateConfig | None = None
    tags: AwsTags = Field(default_factory=dict, description="AWS tags on the node group.")

    @field_validator("taints")
    @classmethod
    def _eks_taints(cls, taints: list[TaintConfig]) -> list[TaintConfig]:
        if len(taints) > EKS_MAX_TAINTS:
            raise _fail(f"{len(taints)} taints; an EKS managed node group takes at most {EKS_MAX_TAINTS}")
        for i, t in enumerate(taints):
            if len(t.key) > EKS_TAINT_FIELD_MAX:
                raise _fail(
                    f"taints[{i}].key {t.key!r} is {len(t.key)} characters; the EKS API caps taint keys "
                    f"at {EKS_TAINT_FIELD_MAX} (prefix included)"
                )
        return taints

    @field_validator("labels")
    @classmethod
    def _eks_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        problems = [p for k, v in labels.items() if (p := eks_label_problem(k, v))]
        if problems:
            raise _fail("; ".join(problems))
        return labels

    @field_validator("gpu_label")
    @classmethod
    def _eks_gpu_label(cls, label: GpuLabel) -> GpuLabel:
        problem = eks_label_problem(label.key, label.value)
        if problem:
            raise _fail(problem)
        return label

    @field_validator("ami_type")
    @classmethod
    def _ami(cls, ami_type: str) -> str:
        if ami_type in EKS_GPU_AMI_TYPES:
            return ami_type
        if ami_type == "AL2_x86_64_GPU":
            raise _fail(
                "'AL2_x86_64_GPU': EKS stopped publishing AL2 AMIs on 2025-11-26; use AL2023_x86_64_NVIDIA "
                "(or BOTTLEROCKET_x86_64_NVIDIA)"
            )
        close = difflib.get_close_matches(ami_type, EKS_GPU_AMI_TYPES, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise _fail(f"{ami_type!r} is not an EKS NVIDIA AMI type; allowed: {', '.join(EKS_GPU_AMI_TYPES)}{hint}")

    @field_validator("instance_types")
    @classmethod
    def _instance_types(cls, types: list[str]) -> list[str]:
        problems = instances.nvidia_instance_problems(types)
        if problems:
            raise _fail("; ".join(problems))
        return types

    @model_validator(mode="after")
    def _arch(self) -> EksManagedPool:
        ami_arch = "arm64" if "ARM_64" in self.ami_type else "x86_64"
        wrong = [t for t in self.instance_types if instances.instance_arch(t) != ami_arch]
        if wrong:
            raise _fail(
                f"instanceTypes {wrong} are {instances.instance_arch(wrong[0])} but amiType {self.ami_type} is "
                f"{ami_arch}; pick a matching amiType or instance types"
            )
        if self.scaling.min_size == 0:
            keys = [t.key for t in self.taint_list]
            multi = sorted({k for k in keys if keys.count(k) > 1})
            if multi:
                raise _fail(
                    f"taint key(s) {multi} carry several effects, but a Cluster Autoscaler node-template "
                    "taint tag holds one value:Effect per key, so scale from zero (minSize 0) would miss one; "
                    "use one effect per key or minSize >= 1"
                )
        return self

    @property
    def ships_own_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA AMIs include NVIDIA's device plugin (EKS user guide, ml-eks-optimized-ami)."""
        return self.ami_type.startswith("BOTTLEROCKET_")

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return not self.ships_own_device_plugin


# --- GKE --------------------------------------------------------------------------------

#: ``gpu_driver_installation_config.gpu_driver_version`` values (pulumi_gcp 10.2.0
#: ``NodePoolNodeConfigGuestAcceleratorGpuDriverInstallationConfigArgs``): ``LATEST`` and
#: ``DEFAULT`` install that driver (``LATEST`` on COS), ``INSTALLATION_DISABLED`` installs none,
#: ``GPU_DRIVER_VERSION_UNSPECIFIED`` installs the default one from GKE 1.30.1-gke.1156000.
GkeDriverVersion = Literal["LATEST", "DEFAULT", "INSTALLATION_DISABLED", "GPU_DRIVER_VERSION_UNSPECIFIED"]
GKE_GPU_DRIVER_VERSIONS: tuple[str, ...] = get_args(GkeDriverVersion)
#: Node label that turns GKE's own device plugin DaemonSet off on a pool; NVIDIA pairs it with
#: ``gpu-driver-version=disabled`` (NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst``).
GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
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
_GKE_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
_GCE_ZONE_RE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")


def gke_fixed_gpus(machine_type: str) -> tuple[str, int | None] | None:
    """``(accelerator type, count or None)`` a fixed-GPU machine type comes with, or None when not fixed."""
    for prefix, accelerator in GKE_FIXED_GPU_SERIES.items():
        if machine_type.startswith(prefix):
            rest = machine_type[len(prefix):]
            if prefix == "g2-standard-":
                return accelerator, _G2_GPU_COUNT.get(int(rest)) if rest.isdigit() else None
            m = re.fullmatch(r"(\d+)g", rest)
            return accelerator, int(m.group(1)) if m else None
    return None


class GkeGpuSharingConfig(_Model):
    """GKE GPU sharing (``guest_accelerators[].gpu_sharing_config``), done by GKE's own device plugin."""

    gpu_sharing_strategy: Literal["TIME_SHARING", "MPS"] = Field(description="TIME_SHARING | MPS")
    max_shared_clients_per_gpu: int = Field(ge=1, description="Containers that may share one GPU, >= 1.")


class GkeAccelerator(_Model):
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


class GkePool(_PoolBase):
    """A GPU pool as a GKE Standard node pool (``gcp.container.NodePool``).

    Rules checked here (sources: ``facts/gke-nvidia-crossguard.md`` §1):

    * Taints: ``nvidia.com/gpu=present:NoSchedule`` is always declared (added when the
      config lacks that key and effect), because GKE adds it only when a GPU pool joins a
      cluster that already runs a non-GPU pool; a ``nvidia.com/gpu:NoSchedule`` taint must
      carry GKE's value ``present``; never two taints with one key and effect (GKE: ``Found
      more than one taint with key ... and effect``).
    * Labels: no ``kubernetes.io``/``k8s.io`` keys, no GKE-managed ``cloud.google.com`` keys
      (:func:`~gpu_node_pool.labels.gke_label_problem`).
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
        ValidationError: (through :func:`validate_stack_config`, as :class:`ConfigError`) any rule above.
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
        pattern=r"^[^@\s]+@[a-z0-9-]+(\.[a-z0-9-]+)+$",
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

    @field_validator("name")
    @classmethod
    def _gke_name(cls, name: str) -> str:
        if len(name) > GKE_POOL_NAME_MAX or not name[:1].isalpha():
            raise _fail(
                f"{name!r}: a gke pool name starts with a letter and has at most {GKE_POOL_NAME_MAX} characters "
                "(GKE node pool names are at most 40 and Pulumi adds '-node-pool-xxxxxxx'), e.g. l4-inference"
            )
        return name

    @field_validator("labels")
    @classmethod
    def _gke_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        problems = [p for k, v in labels.items() if (p := gke_label_problem(k, v))]
        value = labels.get(GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL)
        if value is not None and value != "true":
            problems.append(
                f"label {GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL!r} is {value!r}; GKE acts on the value 'true' only: "
                "set 'true' (with nvidiaDevicePlugin and INSTALLATION_DISABLED) or remove it"
            )
        if problems:
            raise _fail("; ".join(problems))
        return labels

    @field_validator("taints")
    @classmethod
    def _gke_taints(cls, taints: list[TaintConfig]) -> list[TaintConfig]:
        for i, t in enumerate(taints):
            taint = t.to_taint()
            if taint.identity == DEFAULT_TAINT.identity and taint.value != DEFAULT_TAINT.value:
                raise _fail(
                    f"taints[{i}] {str(taint)!r}: GKE's own GPU taint is {str(DEFAULT_TAINT)!r} and one key and "
                    f"effect can carry one value; write {str(DEFAULT_TAINT)!r} or use another key"
                )
        return taints

    @field_validator("autoscaling")
    @classmethod
    def _gke_autoscaling(cls, scaling: ScalingConfig) -> ScalingConfig:
        if scaling.desired_size is not None:
            raise _fail(
                "desiredSize is not used by gke pools: GKE's initial node count is per zone and the autoscaler "
                "keeps the pool between minSize and maxSize; remove desiredSize"
            )
        return scaling

    @field_validator("node_locations")
    @classmethod
    def _zones(cls, zones: list[str] | None) -> list[str] | None:
        bad = [z for z in zones or [] if not _GCE_ZONE_RE.match(z)]
        if bad:
            raise _fail(f"{bad} are not Compute Engine zones (e.g. us-central1-a)")
        if zones and len(set(zones)) != len(zones):
            raise _fail(f"{zones} lists a zone twice")
        return zones

    @model_validator(mode="after")
    def _gke_rules(self) -> GkePool:
        problems = []
        problem = gke_label_problem(self.gpu_label.key, self.gpu_label.value)
        if problem:
            problems.append(f"gpuLabel: {problem}")
        fixed = gke_fixed_gpus(self.machine_type)
        if fixed is not None:
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
            raise _fail("; ".join(problems))
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


def _gke_stack_issues(stack: StackConfig) -> list[str]:
    """Stack-level GKE rules as ``"path: message"`` lines: cluster project/location/name, zones, no mixing."""
    gke = [i for i, p in enumerate(stack.pools) if isinstance(p, GkePool)]
    if not gke:
        return []
    cluster = stack.cluster
    issues = []
    where = ", ".join(f"pools[{i}]" for i in gke)
    if not cluster.project:
        issues.append(f"cluster.project: missing; gke pools ({where}) need the cluster's Google Cloud project ID")
    if not cluster.location:
        issues.append(
            f"cluster.location: missing; gke pools ({where}) need the cluster's region (us-central1) or zone "
            "(us-central1-a)"
        )
    if not _GKE_NAME_RE.match(cluster.name):
        issues.append(
            f"cluster.name: {cluster.name!r} is not a GKE cluster name (a lower-case letter, then up to 39 lower-case "
            "letters, digits or '-', not ending in '-')"
        )
    region = cluster.location.rsplit("-", 1)[0] if cluster.location and _GCE_ZONE_RE.match(cluster.location) else (
        cluster.location
    )
    for i in gke:
        pool = stack.pools[i]
        outside = [z for z in pool.node_locations or [] if region and z.rsplit("-", 1)[0] != region]
        if outside:
            issues.append(f"pools[{i}].nodeLocations: {outside} are outside the cluster's region {region}")
    others = [i for i, p in enumerate(stack.pools) if not isinstance(p, GkePool)]
    for i in others:
        issues.append(
            f"pools[{i}].backend: {stack.pools[i].backend!r} cannot share a stack with gke pools ({where}); "
            "a stack is one cluster"
        )
    return issues


# --- self-managed -----------------------------------------------------------------------

#: How a self-managed node is bootstrapped, i.e. where its kubelet reads the taints it
#: registers with (renderers and readers in ``render/kubelet.py``):
#: ``al2023`` nodeadm ``NodeConfig`` (MIME user data), ``bottlerocket`` TOML settings, ``al2``
#: ``/etc/eks/bootstrap.sh`` (legacy: EKS stopped publishing AL2 AMIs on 2025-11-26),
#: ``kubeadm`` ``JoinConfiguration`` (on-premises), ``kubelet`` plain flags and a
#: ``KubeletConfiguration`` snippet (any other image).
SelfManagedFormat = Literal["al2023", "bottlerocket", "al2", "kubeadm", "kubelet"]
SELF_MANAGED_FORMATS: tuple[str, ...] = get_args(SelfManagedFormat)
#: Formats the component launches on EC2 itself (EKS bootstrap in the user data).
SELF_MANAGED_EC2_FORMATS = ("al2023", "bottlerocket", "al2")
#: Cluster keys each format writes into the bootstrap, and why it needs them.
_FORMAT_CLUSTER_KEYS: dict[str, tuple[tuple[str, ...], str]] = {
    "al2023": (
        ("apiServerEndpoint", "certificateAuthority", "serviceCidr"),
        "nodeadm needs spec.cluster.{apiServerEndpoint, certificateAuthority, cidr} on self-managed nodes",
    ),
    "bottlerocket": (
        ("apiServerEndpoint", "certificateAuthority"),
        "Bottlerocket needs settings.kubernetes.{api-server, cluster-certificate}",
    ),
    "al2": (
        ("apiServerEndpoint", "certificateAuthority"),
        "bootstrap.sh gets --apiserver-endpoint and --b64-cluster-ca (else it calls eks:DescribeCluster)",
    ),
    "kubeadm": (
        ("apiServerEndpoint", "caCertHashes"),
        "kubeadm join discovers the cluster at discovery.bootstrapToken.{apiServerEndpoint, caCertHashes}",
    ),
    "kubelet": ((), ""),
}
#: Keys that only mean something when the component creates EC2 resources (``provider: aws``).
_SELF_MANAGED_AWS_KEYS = {
    "instance_types": "instanceTypes",
    "scaling": "scaling",
    "subnet_ids": "subnetIds",
    "instance_profile_arn": "instanceProfileArn",
    "security_group_ids": "securityGroupIds",
    "ami_id": "amiId",
    "gpus_per_node": "gpusPerNode",
    "disk_size": "diskSize",
    "tags": "tags",
}


def _kubelet_label_problem(key: str) -> str | None:
    problem = node_restriction_problem(key)
    if problem is None:
        return None
    return (
        f"{problem}. A self-managed node sets its own labels at registration (kubelet --node-labels), and the "
        "NodeRestriction admission plugin decides which it may set; if the label must be on the Node, have an "
        "admin-side controller apply it after the node joins"
    )


class SelfManagedPool(_PoolBase):
    """A GPU pool of self-managed nodes whose kubelet registers the pool's taints itself.

    Registration is the only way a taint exists before the first pod can land (the
    ``--register-with-taints`` / ``registerWithTaints`` facts: ``facts/aws-eks-karpenter.md``
    §3). With ``provider: aws`` the component creates an EC2 launch template (user data in
    ``format``, IMDSv2 required, the NVIDIA AMI from the public SSM parameter of ``format`` and
    ``cluster.kubernetesVersion`` unless ``amiId`` is set) and an Auto Scaling group tagged for
    Cluster Autoscaler scale from zero (§4). With ``provider: none`` (bare metal, kubeadm
    on-premises) it renders the bootstrap only, as stack outputs.

    Rules checked here:

    * Labels, the GPU label included, must pass NodeRestriction: no ``kubernetes.io``/``k8s.io``
      keys except ``kubelet.kubernetes.io/``, ``node.kubernetes.io/`` and the kubelet's
      allow-list, no ``node-restriction.kubernetes.io/`` keys (``node-role.kubernetes.io/gpu``
      is refused: the kubelet would not start). Source: kubernetes
      ``plugin/pkg/admission/noderestriction/admission.go``.
    * ``provider: aws``: ``format`` is al2023, bottlerocket or al2; ``instanceTypes`` (NVIDIA,
      one architecture, one GPU count per node), ``scaling`` and ``securityGroupIds`` are
      required; ``al2`` needs ``amiId`` (no AL2 AMI is published for Kubernetes 1.33+); one
      effect per taint key, since
      a Cluster Autoscaler ``node-template/taint/<key>`` tag holds one ``value:Effect``.
    * ``provider: none``: none of the EC2 keys (instanceTypes, scaling, subnetIds, amiId...).
    * Stack level (:class:`StackConfig`): the cluster keys ``format`` writes into the bootstrap
      (``apiServerEndpoint``, ``certificateAuthority``, ``serviceCidr``, ``caCertHashes``), and for
      ``provider: aws`` subnets, an instance profile (or ``cluster.nodeRoleArn``) and
      ``cluster.kubernetesVersion`` (unless ``amiId``).

    Raises:
        ValidationError: (through :func:`validate_stack_config`, as :class:`ConfigError`) any rule above.
    """

    backend: Literal["self-managed"]
    format: SelfManagedFormat = Field(
        description="al2023 | bottlerocket | al2 (legacy) | kubeadm | kubelet: where the kubelet reads its taints."
    )
    provider: Literal["aws", "none"] = Field(
        "aws", description="aws: launch template + Auto Scaling group; none: render the bootstrap only (bare metal)."
    )
    instance_types: list[str] | None = Field(
        None, min_length=1, description="aws: NVIDIA GPU instance types of one GPU count, e.g. [g6e.12xlarge]."
    )
    scaling: ScalingConfig | None = Field(None, description="aws: Auto Scaling group bounds; minSize may be 0.")
    subnet_ids: list[str] | None = Field(None, min_length=1, description="aws: defaults to cluster.subnetIds.")
    instance_profile_arn: str | None = Field(
        None,
        pattern=r"^arn:aws[a-z-]*:iam::\d{12}:instance-profile/.+$",
        description="aws: the nodes' instance profile; default: one made for cluster.nodeRoleArn.",
    )
    security_group_ids: list[str] | None = Field(
        None, min_length=1, description="aws, required: security groups of the nodes (the EKS cluster security group)."
    )
    ami_id: str | None = Field(
        None, pattern=r"^ami-[0-9a-f]{8,17}$", description="aws: fixed AMI; default: the NVIDIA AMI from SSM."
    )
    gpus_per_node: int | None = Field(
        None, ge=1, le=64, description="aws: GPUs per node when the instance table does not know the type."
    )
    disk_size: int | None = Field(None, ge=20, le=16384, description="aws: root (Bottlerocket: data) volume GiB.")
    tags: AwsTags = Field(default_factory=dict, description="AWS tags on the Auto Scaling group and nodes.")

    @field_validator("labels")
    @classmethod
    def _kubelet_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        problems = [p for k in labels if (p := _kubelet_label_problem(k))]
        if problems:
            raise _fail("; ".join(problems))
        return labels

    @model_validator(mode="after")
    def _self_managed_rules(self) -> SelfManagedPool:
        problems = []
        problem = _kubelet_label_problem(self.gpu_label.key)
        if problem:
            problems.append(f"gpuLabel: {problem}")
        if self.provider == "none":
            extra = [alias for name, alias in _SELF_MANAGED_AWS_KEYS.items() if name in self.model_fields_set]
            if extra:
                problems.append(
                    f"{', '.join(extra)}: provider none creates no cloud resources and only renders the "
                    f"{self.format} bootstrap; remove them, or set provider: aws"
                )
        else:
            problems += self._aws_problems()
        if problems:
            raise _fail("; ".join(problems))
        return self

    def _aws_problems(self) -> list[str]:
        problems = []
        if self.format not in SELF_MANAGED_EC2_FORMATS:
            problems.append(
                f"format {self.format!r} is for nodes the component does not launch (on-premises, custom images); "
                f"set provider: none to render it, or use {' or '.join(SELF_MANAGED_EC2_FORMATS[:2])} on AWS"
            )
        if self.format == "al2" and self.ami_id is None:
            problems.append(
                "format 'al2' needs amiId: EKS stopped publishing AL2 AMIs on 2025-11-26 (none for Kubernetes "
                "1.33+), so there is no SSM parameter to resolve; prefer format al2023"
            )
        if self.instance_types is None:
            problems.append("instanceTypes: required with provider aws, e.g. [g6e.12xlarge]")
        if self.scaling is None:
            problems.append("scaling: required with provider aws, e.g. {minSize: 0, maxSize: 4}")
        if self.security_group_ids is None:
            problems.append(
                "securityGroupIds: required with provider aws: without the cluster security group (aws eks "
                "describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId) the nodes get the "
                "VPC default group and cannot reach the control plane"
            )
        types = self.instance_types or []
        bad = instances.nvidia_instance_problems(types)
        problems += [f"instanceTypes: {p}" for p in bad]
        if types and not bad:
            arches = sorted({instances.instance_arch(t) for t in types})
            if len(arches) > 1:
                problems.append(f"instanceTypes {types} mix architectures {arches}; one group runs one AMI")
            counts = {t: instances.gpu_count(t) for t in types}
            if self.gpus_per_node is None:
                unknown = [t for t, n in counts.items() if n is None]
                if unknown:
                    problems.append(
                        f"instanceTypes {unknown}: GPUs per node unknown to the instance table; set gpusPerNode "
                        "(Cluster Autoscaler needs it to scale from zero)"
                    )
                elif len(set(counts.values())) > 1:
                    problems.append(
                        f"instanceTypes {types} have different GPU counts {counts}; Cluster Autoscaler models a group "
                        "as one node shape: split them into pools"
                    )
        keys = [t.key for t in self.taint_list]
        multi = sorted({k for k in keys if keys.count(k) > 1})
        if multi:
            problems.append(
                f"taint key(s) {multi} carry several effects, but the Auto Scaling group's Cluster Autoscaler "
                "node-template/taint/<key> tag holds one value:Effect per key; use one effect per key "
                "(or provider none)"
            )
        return problems

    @property
    def ships_own_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA variants (``aws-k8s-<version>-nvidia``) include NVIDIA's device plugin
        (EKS user guide ``ml-eks-optimized-ami``; bottlerocket ``QUICKSTART-EKS.md``)."""
        return self.format == "bottlerocket"

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return not self.ships_own_device_plugin

    @property
    def arch(self) -> str:
        """``x86_64`` or ``arm64``: the architecture of the instance types (``x86_64`` without any)."""
        return instances.instance_arch(self.instance_types[0]) if self.instance_types else "x86_64"

    @property
    def gpus(self) -> int | None:
        """GPUs per node: ``gpusPerNode``, else the instance table's count for the instance types."""
        if self.gpus_per_node is not None:
            return self.gpus_per_node
        return instances.gpu_count(self.instance_types[0]) if self.instance_types else None


_CLUSTER_ATTRS = {
    "apiServerEndpoint": "api_server_endpoint",
    "certificateAuthority": "certificate_authority",
    "serviceCidr": "service_cidr",
    "caCertHashes": "ca_cert_hashes",
}


def _self_managed_stack_issues(stack: StackConfig) -> list[str]:
    """Stack-level self-managed rules as ``"path: message"`` lines (cluster keys, subnets, role, version)."""
    cluster = stack.cluster
    issues = []
    missing: dict[str, list[str]] = {}
    for i, pool in enumerate(stack.pools):
        if not isinstance(pool, SelfManagedPool):
            continue
        keys, why = _FORMAT_CLUSTER_KEYS[pool.format]
        for key in keys:
            if not getattr(cluster, _CLUSTER_ATTRS[key]):
                missing.setdefault(key, []).append(f"pools[{i}] ({pool.format}: {why})")
        if pool.provider != "aws":
            continue
        if not (pool.subnet_ids or cluster.subnet_ids):
            issues.append(f"pools[{i}].subnetIds: missing; set it here or in cluster.subnetIds")
        if not (pool.instance_profile_arn or cluster.node_role_arn):
            issues.append(
                f"pools[{i}].instanceProfileArn: missing; set it here, or cluster.nodeRoleArn to get one made for it"
            )
        if pool.ami_id is None and not cluster.kubernetes_version:
            issues.append(
                f"cluster.kubernetesVersion: missing; pools[{i}] resolves its {pool.format} NVIDIA AMI from the SSM "
                f"parameter of that version (or set pools[{i}].amiId)"
            )
    for key, users in missing.items():
        issues.append(f"cluster.{key}: missing; needed by {', '.join(users)}")
    return issues


# --- karpenter ----------------------------------------------------------------------------
# Rules of Karpenter v1.14.1 (aws/karpenter-provider-aws tag v1.14.1): the NodePool and
# EC2NodeClass CRDs (openAPIV3Schema patterns, enums, limits and x-kubernetes-validations CEL
# rules; copies in tests/data/karpenter-crds/) and the Go runtime validation of
# kubernetes-sigs/karpenter ``pkg/apis/v1/nodeclaim_validation.go``. tests/test_karpenter.py
# runs every rule below against the CRDs themselves, so the two cannot drift apart.

KARPENTER_MAX_REQUIREMENTS = 100  # NodePool spec.template.spec.requirements maxItems
KARPENTER_MAX_LABELS = 100  # NodePool spec.template.metadata.labels maxProperties
KARPENTER_REQUIREMENT_KEY_MAX = 316  # requirements[].key maxLength
KARPENTER_MAX_MIN_VALUES = 50  # requirements[].minValues maximum
KARPENTER_MAX_BUDGETS = 50  # disruption.budgets maxItems
KARPENTER_MAX_SELECTOR_TERM_TAGS = 20  # EC2NodeClass *SelectorTerms[].tags maxProperties
KARPENTER_ALIAS_MAX = 30  # EC2NodeClass amiSelectorTerms[].alias maxLength
KARPENTER_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte")
_KARPENTER_INTEGER_OPERATORS = ("Gt", "Lt", "Gte", "Lte")
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
KARPENTER_ARCHITECTURES = ("amd64", "arm64")
KARPENTER_CONSOLIDATION_POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced")
KARPENTER_BUDGET_REASONS = ("Underutilized", "Empty", "Drifted")
#: AMI alias families that have NVIDIA variants Karpenter picks for GPU instances (al2 AMIs
#: stopped being published on 2025-11-26; Windows has no NVIDIA EKS AMI).
KARPENTER_GPU_ALIAS_FAMILIES = ("al2023", "bottlerocket")
#: NodePool label CEL rule: of the karpenter.sh domain only these keys pass
#: (``karpenter.sh/nodepool`` is listed there but refused by its own rule).
KARPENTER_SH_ALLOWED_LABELS = ("karpenter.sh/capacity-type",)
#: NodePool label and requirement-key CEL rule: the karpenter.k8s.aws keys that pass (v1.14.1).
KARPENTER_AWS_ALLOWED_LABELS = frozenset(
    "karpenter.k8s.aws/" + name
    for name in (
        "instance-tenancy", "capacity-reservation-type", "capacity-reservation-id",
        "capacity-reservation-interruptible", "ec2nodeclass", "instance-encryption-in-transit-supported",
        "instance-category", "instance-hypervisor", "instance-family", "instance-generation",
        "instance-local-nvme", "instance-size", "instance-cpu", "instance-cpu-manufacturer",
        "instance-cpu-sustained-clock-speed-mhz", "instance-memory", "instance-ebs-bandwidth",
        "instance-network-bandwidth", "instance-gpu-name", "instance-gpu-manufacturer", "instance-gpu-count",
        "instance-gpu-memory", "instance-accelerator-name", "instance-accelerator-manufacturer",
        "instance-accelerator-count", "instance-capability-flex", "placement-group-id",
        "placement-group-partition",
    )
)
#: Requirement keys the pool's dedicated fields write; neither ``requirements`` nor
#: ``labels`` may set them too (Karpenter would intersect both silently).
KARPENTER_MANAGED_KEYS = {
    "karpenter.k8s.aws/instance-family": "instanceFamilies",
    "node.kubernetes.io/instance-type": "instanceTypes",
    "karpenter.k8s.aws/instance-gpu-manufacturer": "(always nvidia)",
    "karpenter.k8s.aws/instance-gpu-count": "gpuCounts",
    "karpenter.k8s.aws/instance-gpu-name": "gpuNames",
    "karpenter.sh/capacity-type": "capacityTypes",
    "kubernetes.io/arch": "architecture",
    "topology.kubernetes.io/zone": "zones",
}
#: The resource every GPU NodePool must limit.
KARPENTER_GPU_RESOURCE = "nvidia.com/gpu"

# CRD patterns (searched like an OpenAPI ``pattern``: unanchored unless the pattern anchors).
_K_DURATION_RE = re.compile(r"^(([0-9]+(s|m|h))+|Never)$")  # expireAfter, consolidateAfter
_K_GRACE_RE = re.compile(r"^([0-9]+(s|m|h))+$")  # terminationGracePeriod
_K_BUDGET_NODES_RE = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_K_BUDGET_DURATION_RE = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_K_BUDGET_SCHEDULE_RE = re.compile(
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$"
)
_K_QUANTITY_RE = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_K_ALIAS_RE = re.compile(r"^[a-zA-Z0-9]+@.+$")
_K8S_OBJECT_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
# IAM role names (IAM API CreateRole RoleName): 1-64 of [A-Za-z0-9+=,.@_-].
_IAM_ROLE_NAME_RE = re.compile(r"^[\w+=,.@-]{1,64}$")
_K_RESTRICTED_TAGS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                      "karpenter.k8s.aws/ec2nodeclass")


def _cel_label_domain(key: str) -> str:
    # The CRD's CEL rules take key.find("^([^/]+)"): everything before the first '/', or the
    # whole key when it has none, then test endsWith() -- a plain suffix, not a DNS subdomain
    # (so "mykarpenter.sh/x" is refused too). Mirrored exactly.
    match = re.match(r"[^/]+", key)
    return match.group(0) if match else ""


def karpenter_label_problem(key: str) -> str | None:
    """Why Karpenter refuses ``key`` as a NodePool label or requirement key, or None.

    Rules (NodePool CRD v1.14.1, ``x-kubernetes-validations`` on
    ``spec.template.metadata.labels`` and on ``requirements[].key``), checked in this order:

    1. ``karpenter.sh/nodepool``: Karpenter sets it ("label "karpenter.sh/nodepool" is restricted").
    2. ``kubernetes.io/hostname``: refused ("label "kubernetes.io/hostname" is restricted").
    3. A key whose domain (the text before the first ``/``, or the whole key) ends with
       ``karpenter.sh``, other than ``karpenter.sh/capacity-type``
       ("label domain "karpenter.sh" is restricted").
    4. A key whose domain ends with ``karpenter.k8s.aws``, other than the well-known
       :data:`KARPENTER_AWS_ALLOWED_LABELS` ("label domain "karpenter.k8s.aws" is restricted").
    """
    if key == "karpenter.sh/nodepool":
        return (
            "'karpenter.sh/nodepool' is set by Karpenter to the NodePool name (NodePool CRD: label "
            "\"karpenter.sh/nodepool\" is restricted); select the pool with gpu-node-pools/pool instead"
        )
    if key == "kubernetes.io/hostname":
        return (
            "'kubernetes.io/hostname' is the node's own name and cannot be set for a whole pool (NodePool CRD: "
            "label \"kubernetes.io/hostname\" is restricted); remove it"
        )
    domain = _cel_label_domain(key)
    if domain.endswith("karpenter.sh") and key not in KARPENTER_SH_ALLOWED_LABELS:
        return (
            f"{key!r} is in the karpenter.sh domain, which Karpenter reserves for itself (NodePool CRD: label "
            "domain \"karpenter.sh\" is restricted; only karpenter.sh/capacity-type is allowed); use your own "
            "domain, e.g. example.com/" + key.rpartition("/")[2]
        )
    if domain.endswith("karpenter.k8s.aws") and key not in KARPENTER_AWS_ALLOWED_LABELS:
        return (
            f"{key!r} is in the karpenter.k8s.aws domain, which Karpenter reserves (NodePool CRD: label domain "
            "\"karpenter.k8s.aws\" is restricted; only its well-known labels such as "
            "karpenter.k8s.aws/instance-family are allowed); use your own domain, e.g. example.com/"
            + key.rpartition("/")[2]
        )
    return None


def _karpenter_duration_problem(value: str, *, never: bool = True) -> str | None:
    pattern = _K_DURATION_RE if never else _K_GRACE_RE
    if not isinstance(value, str) or not pattern.search(value):
        allowed = "or Never " if never else ""
        return (
            f"{value!r} is not a Karpenter duration: write hours, minutes and seconds like 720h, 30m or 1h30m "
            f"{allowed}(pattern {pattern.pattern}; no days, no spaces)"
        )
    return None


def _quantity_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return f"{value!r} must be a Kubernetes quantity: an integer or a string such as '1000' or '4000Gi'"
    if isinstance(value, str) and not _K_QUANTITY_RE.search(value):
        return f"{value!r} is not a Kubernetes quantity (e.g. 32, '1000', '4000Gi', '500m')"
    if str(value).startswith("-"):
        return f"{value!r} is negative; a limit of capacity must be >= 0"
    return None


def _selector_tags_problem(tags: Mapping[str, str], what: str) -> str | None:
    # EC2NodeClass *SelectorTerms[].tags: maxProperties 20; CEL "empty tag keys or values aren't supported".
    if not tags:
        return f"{what} must hold at least one tag"
    if len(tags) > KARPENTER_MAX_SELECTOR_TERM_TAGS:
        return f"{what} has {len(tags)} tags; a Karpenter selector term takes at most {KARPENTER_MAX_SELECTOR_TERM_TAGS}"
    empty = [k for k, v in tags.items() if k == "" or v == ""]
    if empty:
        return f"{what}: tag {empty[0]!r} has an empty key or value, which Karpenter does not support (use '*' for any value)"
    return None


class KarpenterRequirement(_Model):
    """An extra NodePool requirement (``spec.template.spec.requirements[]``).

    ``{key, operator, values, minValues}``: ``key`` a qualified name up to 316 characters outside
    the restricted Karpenter domains; ``operator`` one of In, NotIn, Exists, DoesNotExist, Gt, Lt,
    Gte, Lte; ``In`` needs values; Gt/Lt/Gte/Lte need exactly one non-negative integer; Exists and
    DoesNotExist take no values; ``minValues`` 1-50 and at most the number of values.
    Sources: NodePool CRD v1.14.1 and ``nodeclaim_validation.go`` ``ValidateRequirement``.
    """

    key: str = Field(description="Label key, e.g. karpenter.k8s.aws/instance-gpu-memory.")
    operator: str = Field(description="In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte")
    values: list[str] = Field(default_factory=list, description="Label values (<= 63 characters each).")
    min_values: int | None = Field(None, description="1-50, at most len(values); In only.")

    @model_validator(mode="after")
    def _rules(self) -> KarpenterRequirement:
        problems = karpenter_requirement_problems(self.key, self.operator, self.values, self.min_values)
        if problems:
            raise _fail("; ".join(problems))
        return self

    def to_k8s(self) -> dict[str, Any]:
        """The NodePool requirement object (``values`` omitted when empty)."""
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out


def karpenter_requirement_problems(key: Any, operator: Any, values: list[Any], min_values: int | None) -> list[str]:
    """Every reason Karpenter refuses a NodePool requirement; empty when it is fine.

    Rules in the order checked: key syntax (qualified name, CRD ``maxLength: 316`` and
    pattern), restricted keys (:func:`karpenter_label_problem`), ``operator`` enum, value
    syntax (label values, ``maxLength: 63``), the CEL rules "requirements with operator 'In'
    must have a value defined", "operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single
    positive integer value" and "'minValues' must have at least that many values", the
    ``minValues`` range 1-50, and (CRD field description) no values with Exists/DoesNotExist.
    """
    problems = []
    syntax = qualified_name_problem(key)
    if syntax:
        problems.append(f"key {key!r} {syntax}")
    elif len(key) > KARPENTER_REQUIREMENT_KEY_MAX:
        problems.append(f"key {key!r} is {len(key)} characters; Karpenter allows {KARPENTER_REQUIREMENT_KEY_MAX}")
    else:
        restricted = karpenter_label_problem(key)
        if restricted:
            problems.append(f"key {restricted}")
    if operator not in KARPENTER_OPERATORS:
        close = difflib.get_close_matches(str(operator), KARPENTER_OPERATORS, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        problems.append(f"operator {operator!r} is not one of {', '.join(KARPENTER_OPERATORS)}{hint}")
    for value in values:
        bad = label_value_problem(value)
        if bad:
            problems.append(f"value {value!r} {bad}")
    if operator == "In" and not values:
        problems.append("operator In needs at least one value (Karpenter: requirements with operator 'In' must have a value defined)")
    if operator in _KARPENTER_INTEGER_OPERATORS:
        if len(values) != 1 or not (isinstance(values[0], str) and values[0].isdigit()):
            problems.append(
                f"operator {operator} needs exactly one non-negative integer value, e.g. values: [\"0\"] "
                f"(got {values!r})"
            )
    if operator in ("Exists", "DoesNotExist") and values:
        problems.append(f"operator {operator} takes no values; remove values {values!r}")
    if min_values is not None:
        if isinstance(min_values, bool) or not 1 <= min_values <= KARPENTER_MAX_MIN_VALUES:
            problems.append(f"minValues {min_values!r} must be between 1 and {KARPENTER_MAX_MIN_VALUES}")
        elif operator == "In" and len(values) < min_values:
            problems.append(
                f"minValues {min_values} is more than the {len(values)} value(s) given; list at least {min_values} "
                "values or lower minValues"
            )
    return problems


class KarpenterBudget(_Model):
    """A disruption budget (``spec.disruption.budgets[]``).

    ``nodes``: a node count or percentage (``10%``, ``0``; pattern ``^((100|[0-9]{1,2})%|[0-9]+)$``);
    ``schedule``: cron (5 fields) or ``@daily``-style macro; ``duration``: ``1h``, ``30m``,
    ``1h30m``; ``schedule`` and ``duration`` go together; ``reasons``: Underutilized, Empty, Drifted.
    """

    nodes: str = Field("10%", description="Count or percentage of nodes that may be disrupted at once.")
    schedule: str | None = Field(None, description="Cron schedule (UTC) when the budget starts; needs duration.")
    duration: str | None = Field(None, description="How long the budget is active after each schedule hit (h/m).")
    reasons: list[str] | None = Field(None, description="Underutilized | Empty | Drifted; default all.")

    @field_validator("nodes", mode="before")
    @classmethod
    def _nodes(cls, nodes: Any) -> Any:
        if isinstance(nodes, int) and not isinstance(nodes, bool):
            nodes = str(nodes)
        if isinstance(nodes, str) and not _K_BUDGET_NODES_RE.search(nodes):
            raise _fail(f"{nodes!r} must be a node count (e.g. 1) or a percentage from 0% to 100% (e.g. 10%)")
        return nodes

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, schedule: str | None) -> str | None:
        if schedule is not None and not _K_BUDGET_SCHEDULE_RE.search(schedule):
            raise _fail(
                f"{schedule!r} is not a cron schedule: five fields (minute hour day month weekday, e.g. "
                "'0 9 * * mon-fri') or a macro such as @daily"
            )
        return schedule

    @field_validator("duration")
    @classmethod
    def _duration(cls, duration: str | None) -> str | None:
        if duration is not None and not _K_BUDGET_DURATION_RE.search(duration):
            raise _fail(f"{duration!r} must be hours and/or minutes, e.g. 8h, 30m or 1h30m (cron has no seconds)")
        return duration

    @field_validator("reasons")
    @classmethod
    def _reasons(cls, reasons: list[str] | None) -> list[str] | None:
        if reasons is None:
            return None
        wrong = [r for r in reasons if r not in KARPENTER_BUDGET_REASONS]
        if wrong:
            raise _fail(f"{wrong} are not disruption reasons; allowed: {', '.join(KARPENTER_BUDGET_REASONS)}")
        if len(set(reasons)) != len(reasons):
            raise _fail(f"{reasons} repeats a reason; list each once")
        return reasons

    @model_validator(mode="after")
    def _pair(self) -> KarpenterBudget:
        if (self.schedule is None) != (self.duration is None):
            raise _fail("set schedule and duration together (Karpenter: 'schedule' must be set with 'duration')")
        return self

    def to_k8s(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodes": self.nodes}
        if self.schedule is not None:
            out["schedule"] = self.schedule
            out["duration"] = self.duration
        if self.reasons is not None:
            out["reasons"] = list(self.reasons)
        return out


class KarpenterDisruption(_Model):
    """``spec.disruption``: when Karpenter may remove or replace the pool's nodes.

    ``consolidationPolicy``: WhenEmpty | WhenEmptyOrUnderutilized (Karpenter's default) | Balanced.
    ``consolidateAfter``: how long a node stays empty/underutilized first (``0s``, ``5m``,
    ``1h30m`` or ``Never``). ``budgets``: at most 50; Karpenter's default is ``[{nodes: 10%}]``.
    """

    consolidation_policy: str = Field("WhenEmptyOrUnderutilized", description="WhenEmpty | WhenEmptyOrUnderutilized | Balanced")
    consolidate_after: str = Field("0s", description="Duration (s/m/h) or Never.")
    budgets: list[KarpenterBudget] | None = Field(None, description="At most 50; default [{nodes: 10%}].")

    @field_validator("consolidation_policy")
    @classmethod
    def _policy(cls, policy: str) -> str:
        if policy in KARPENTER_CONSOLIDATION_POLICIES:
            return policy
        if policy == "WhenUnderutilized":
            raise _fail("'WhenUnderutilized' is the v1beta1 name; Karpenter v1 calls it WhenEmptyOrUnderutilized")
        raise _fail(f"{policy!r} is not a consolidation policy; allowed: {', '.join(KARPENTER_CONSOLIDATION_POLICIES)}")

    @field_validator("consolidate_after")
    @classmethod
    def _after(cls, after: str) -> str:
        problem = _karpenter_duration_problem(after)
        if problem:
            raise _fail(problem)
        return after

    @field_validator("budgets")
    @classmethod
    def _budgets(cls, budgets: list[KarpenterBudget] | None) -> list[KarpenterBudget] | None:
        if budgets is not None and len(budgets) > KARPENTER_MAX_BUDGETS:
            raise _fail(f"{len(budgets)} budgets; a NodePool takes at most {KARPENTER_MAX_BUDGETS}")
        return budgets


class KarpenterNodeClassRef(_Model):
    """An existing ``EC2NodeClass`` the pool's NodePool uses (``nodeClassRef``).

    ``amiFamily`` says what that class runs, since the plan cannot look: ``Bottlerocket``
    means its NVIDIA AMI ships the device plugin, so NVIDIA's chart is not installed for the pool.
    """

    name: str = Field(description="EC2NodeClass name (a DNS subdomain).")
    ami_family: Literal["AL2023", "Bottlerocket"] = Field("AL2023", description="AL2023 | Bottlerocket")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if len(name) > 253 or not _K8S_OBJECT_NAME_RE.match(name):
            raise _fail(f"{name!r} is not a Kubernetes object name (lower-case DNS subdomain, e.g. gpu-al2023)")
        return name


class KarpenterNodeClass(_Model):
    """An ``EC2NodeClass`` (``karpenter.k8s.aws/v1``) the component creates for the pool.

    ``amiAlias``: ``al2023@<version>`` or ``bottlerocket@<version>`` (``latest`` or a release
    such as ``al2023@v20250505``; at most 30 characters); Karpenter picks the NVIDIA variant
    for GPU instances. ``role``: the node IAM role *name* (default: the name in
    ``cluster.nodeRoleArn``). Subnets and security groups are discovered by tag (default
    ``karpenter.sh/discovery: <cluster name>``, at most 20 tags, no empty keys or values).
    ``tags``: extra EC2 tags; not ``eks:eks-cluster-name``, ``kubernetes.io/cluster*``,
    ``karpenter.sh/nodepool``, ``karpenter.sh/nodeclaim``, ``karpenter.k8s.aws/ec2nodeclass``.
    """

    name: str | None = Field(None, description="EC2NodeClass name; default: the pool name.")
    ami_alias: str = Field("al2023@latest", description="al2023@<version> | bottlerocket@<version>")
    role: str | None = Field(None, description="Node IAM role name; default: from cluster.nodeRoleArn.")
    subnet_selector_tags: dict[str, str] | None = Field(None, description="Default {karpenter.sh/discovery: <cluster>}.")
    security_group_selector_tags: dict[str, str] | None = Field(None, description="Default {karpenter.sh/discovery: <cluster>}.")
    tags: AwsTags = Field(default_factory=dict, description="Extra EC2 tags on instances and volumes.")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str | None) -> str | None:
        if name is not None and (len(name) > 253 or not _K8S_OBJECT_NAME_RE.match(name)):
            raise _fail(f"{name!r} is not a Kubernetes object name (lower-case DNS subdomain, e.g. gpu-al2023)")
        return name

    @field_validator("ami_alias")
    @classmethod
    def _alias(cls, alias: str) -> str:
        family, _, version = alias.partition("@")
        if not _K_ALIAS_RE.search(alias):
            raise _fail(f"{alias!r} must be family@version, e.g. al2023@latest or bottlerocket@v1.30.0")
        if family not in KARPENTER_GPU_ALIAS_FAMILIES:
            raise _fail(
                f"{alias!r}: family {family!r} has no NVIDIA AMI Karpenter can pick; use "
                + " or ".join(f"{f}@{version}" for f in KARPENTER_GPU_ALIAS_FAMILIES)
            )
        if len(alias) > KARPENTER_ALIAS_MAX:
            raise _fail(f"{alias!r} is {len(alias)} characters; an EC2NodeClass alias has at most {KARPENTER_ALIAS_MAX}")
        return alias

    @field_validator("role")
    @classmethod
    def _role(cls, role: str | None) -> str | None:
        if role is not None and not _IAM_ROLE_NAME_RE.match(role):
            hint = f"; give the name, e.g. {role.rsplit('/', 1)[-1]!r}" if role.startswith("arn:") else ""
            raise _fail(f"{role!r} is not an IAM role name (1-64 of letters, digits and +=,.@_-){hint}")
        return role

    @field_validator("subnet_selector_tags", "security_group_selector_tags")
    @classmethod
    def _selector(cls, tags: dict[str, str] | None) -> dict[str, str] | None:
        if tags is not None:
            problem = _selector_tags_problem(tags, "the selector")
            if problem:
                raise _fail(problem)
        return tags

    @field_validator("tags")
    @classmethod
    def _tags(cls, tags: dict[str, str]) -> dict[str, str]:
        for key in tags:
            if key == "":
                raise _fail("an EC2NodeClass tag key may not be empty")
            if key in _K_RESTRICTED_TAGS or key.startswith("kubernetes.io/cluster"):
                raise _fail(f"tag {key!r} is set by EKS or Karpenter (EC2NodeClass: restricted tag); remove it")
        return tags

    @property
    def ami_family(self) -> str:
        """The alias family: ``al2023`` or ``bottlerocket``."""
        return self.ami_alias.partition("@")[0]


class KarpenterPool(_PoolBase):
    """A GPU pool as a Karpenter ``NodePool`` (``karpenter.sh/v1``) on EKS, with its ``EC2NodeClass``.

    Taints go to ``spec.template.spec.taints`` (Kubernetes spelling) and boot-time taints that
    an agent removes (e.g. Cilium's ``node.cilium.io/agent-not-ready``) to ``startupTaints``;
    startup taints are never part of :attr:`taint_list`, so no toleration is derived from them.
    Requirements are built from ``instanceFamilies`` or ``instanceTypes`` (exactly one),
    ``karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia]``, ``gpuCounts``, ``gpuNames``,
    ``capacityTypes``, ``architecture``, ``zones``, then ``requirements`` (extras).
    ``limits`` must cap ``nvidia.com/gpu``. Exactly one of ``nodeClassRef`` (an existing
    EC2NodeClass) and ``nodeClass`` (create one; ``nodeClass: {}`` takes the defaults).

    Everything the NodePool/EC2NodeClass CRDs (v1.14.1, schema and CEL) or Karpenter's runtime
    validation would refuse is refused here, with the config path: label and requirement key
    domains (:func:`karpenter_label_problem`), requirement rules
    (:func:`karpenter_requirement_problems`), durations, budgets, weight 1-100, quantities,
    at most 100 labels and 100 requirements, and a key+effect both in ``taints`` and
    ``startupTaints`` (``duplicate taint Key/Effect pair``).
    """

    backend: Literal["karpenter"]
    startup_taints: list[TaintItem] = Field(
        default_factory=list,
        description="Taints present at boot until an agent removes them; not tolerated by the device plugin.",
    )
    instance_families: list[str] | None = Field(None, min_length=1, description="NVIDIA families, e.g. [g6e, g6].")
    instance_types: list[str] | None = Field(None, min_length=1, description="NVIDIA instance types, e.g. [g6e.2xlarge].")
    gpu_counts: list[int] | None = Field(None, min_length=1, description="GPUs per instance, e.g. [1, 4].")
    gpu_names: list[str] | None = Field(None, min_length=1, description="Lower-case GPU names, e.g. [l40s, l4].")
    capacity_types: list[str] = Field(default_factory=lambda: ["on-demand"], description="on-demand | spot | reserved")
    architecture: str = Field("amd64", description="amd64 | arm64")
    zones: list[str] | None = Field(None, min_length=1, description="Availability zones, e.g. [us-east-1a].")
    requirements: list[KarpenterRequirement] = Field(default_factory=list, description="Extra requirements.")
    node_class_ref: KarpenterNodeClassRef | None = None
    node_class: KarpenterNodeClass | None = None
    limits: dict[str, int | str] = Field(description="Resource caps; must include nvidia.com/gpu (e.g. 32).")
    disruption: KarpenterDisruption = Field(default_factory=KarpenterDisruption)
    weight: int | None = Field(None, description="1-100; higher is tried first.")
    expire_after: str | None = Field(None, description="Node lifetime, e.g. 720h, or Never (Karpenter default 720h).")
    termination_grace_period: str | None = Field(None, description="Max drain time, e.g. 24h (no Never).")

    @field_validator("startup_taints")
    @classmethod
    def _startup_taints(cls, startup: list[TaintConfig], info: ValidationInfo) -> list[TaintConfig]:
        dups = find_duplicate_taints(t.to_taint() for t in startup)
        if dups:
            first, dup, taint = dups[0]
            raise _fail(
                f"startupTaints[{first}] and startupTaints[{dup}] both have key {taint.key!r} and effect "
                f"{taint.effect.value}; keep one"
            )
        taints = info.data.get("taints") or []
        by_identity = {t.to_taint().identity: i for i, t in enumerate(taints)}
        for j, item in enumerate(startup):
            taint = item.to_taint()
            if taint.identity in by_identity:
                raise _fail(
                    f"startupTaints[{j}] ({taint}) has the same key and effect as taints[{by_identity[taint.identity]}]; "
                    "Karpenter rejects a key+effect in both lists (duplicate taint Key/Effect pair): keep it in "
                    "taints if it stays, in startupTaints if an agent removes it at boot"
                )
        return startup

    @field_validator("labels")
    @classmethod
    def _karpenter_labels(cls, labels: dict[str, str]) -> dict[str, str]:
        problems = [p for k in labels if (p := karpenter_label_problem(k))]
        problems += [
            f"{k!r} is written by {KARPENTER_MANAGED_KEYS[k]} as a requirement; set it there"
            for k in labels
            if k in KARPENTER_MANAGED_KEYS
        ]
        if problems:
            raise _fail("; ".join(problems))
        return labels

    @field_validator("instance_families")
    @classmethod
    def _families(cls, families: list[str] | None) -> list[str] | None:
        problems = instances.nvidia_instance_problems(families or [], families=True)
        if problems:
            raise _fail("; ".join(problems))
        return families

    @field_validator("instance_types")
    @classmethod
    def _types(cls, types: list[str] | None) -> list[str] | None:
        problems = instances.nvidia_instance_problems(types or [])
        if problems:
            raise _fail("; ".join(problems))
        return types

    @field_validator("gpu_counts")
    @classmethod
    def _gpu_counts(cls, counts: list[int] | None) -> list[int] | None:
        if counts is not None:
            if any(c < 1 for c in counts) or len(set(counts)) != len(counts):
                raise _fail(f"{counts} must be distinct GPU counts >= 1, e.g. [1, 4]")
        return counts

    @field_validator("gpu_names")
    @classmethod
    def _gpu_names(cls, names: list[str] | None) -> list[str] | None:
        for name in names or []:
            bad = label_value_problem(name)
            if bad:
                raise _fail(f"{name!r} {bad}")
            if name != name.lower():
                # karpenter-provider-aws lower-cases GPU names for the label (l40s, a10g, h100)
                raise _fail(f"{name!r}: Karpenter's instance-gpu-name label is lower-case; write {name.lower()!r}")
        return names

    @field_validator("capacity_types")
    @classmethod
    def _capacity(cls, types: list[str]) -> list[str]:
        wrong = [t for t in types if t not in KARPENTER_CAPACITY_TYPES]
        if wrong:
            hint = " (Karpenter spells it on-demand)" if any(t.lower().replace("_", "-") == "on-demand" for t in wrong) else ""
            raise _fail(f"{wrong} are not capacity types; allowed: {', '.join(KARPENTER_CAPACITY_TYPES)}{hint}")
        if not types or len(set(types)) != len(types):
            raise _fail(f"{types} must list one or more distinct capacity types")
        return types

    @field_validator("architecture")
    @classmethod
    def _arch(cls, arch: str) -> str:
        if arch not in KARPENTER_ARCHITECTURES:
            hint = " (Kubernetes spells x86_64 amd64)" if arch in ("x86_64", "x86-64") else ""
            raise _fail(f"{arch!r} is not a Kubernetes architecture; allowed: amd64, arm64{hint}")
        return arch

    @field_validator("zones")
    @classmethod
    def _zones(cls, zones: list[str] | None) -> list[str] | None:
        for zone in zones or []:
            bad = label_value_problem(zone)
            if bad:
                raise _fail(f"{zone!r} {bad}")
        return zones

    @field_validator("limits")
    @classmethod
    def _limits(cls, limits: dict[str, int | str]) -> dict[str, int | str]:
        problems = []
        for resource, value in limits.items():
            bad = qualified_name_problem(resource)
            if bad:
                problems.append(f"resource name {resource!r} {bad}")
            bad = _quantity_problem(value)
            if bad:
                problems.append(f"{resource}: {bad}")
        gpus = limits.get(KARPENTER_GPU_RESOURCE)
        if gpus is None:
            problems.append(
                f"missing {KARPENTER_GPU_RESOURCE}: a GPU NodePool without a GPU limit can launch GPUs without bound; "
                f"add e.g. {KARPENTER_GPU_RESOURCE}: 32"
            )
        elif not (isinstance(gpus, int) or (isinstance(gpus, str) and gpus.isdigit())):
            problems.append(f"{KARPENTER_GPU_RESOURCE}: {gpus!r} must be a whole number of GPUs")
        if problems:
            raise _fail("; ".join(problems))
        return limits

    @field_validator("weight")
    @classmethod
    def _weight(cls, weight: int | None) -> int | None:
        if weight is not None and not 1 <= weight <= 100:
            raise _fail(f"{weight} is outside 1..100 (NodePool spec.weight); omit it for the lowest priority")
        return weight

    @field_validator("expire_after")
    @classmethod
    def _expire(cls, value: str | None) -> str | None:
        problem = value is not None and _karpenter_duration_problem(value)
        if problem:
            raise _fail(problem)
        return value

    @field_validator("termination_grace_period")
    @classmethod
    def _grace(cls, value: str | None) -> str | None:
        problem = value is not None and _karpenter_duration_problem(value, never=False)
        if problem:
            raise _fail(problem)
        return value

    @model_validator(mode="after")
    def _karpenter_whole(self) -> KarpenterPool:
        problems = []
        if (self.instance_families is None) == (self.instance_types is None):
            problems.append(
                "set exactly one of instanceFamilies (e.g. [g6e, g6]) or instanceTypes (e.g. [g6e.2xlarge]); "
                "without either Karpenter may pick any NVIDIA instance, up to p5.48xlarge"
            )
        if (self.node_class_ref is None) == (self.node_class is None):
            problems.append(
                "set exactly one of nodeClassRef (an existing EC2NodeClass: {name: ...}) or nodeClass "
                "(create one; nodeClass: {} takes the defaults)"
            )
        arch_name = {"amd64": "x86_64", "arm64": "arm64"}[self.architecture]
        wrong = [v for v in (self.instance_families or self.instance_types or []) if instances.instance_arch(v) != arch_name]
        if wrong:
            problems.append(
                f"{wrong} are {instances.instance_arch(wrong[0])} but architecture is {self.architecture}; "
                "set architecture to match"
            )
        for i, req in enumerate(self.requirements):
            if req.key in KARPENTER_MANAGED_KEYS:
                problems.append(f"requirements[{i}].key {req.key!r} is written by {KARPENTER_MANAGED_KEYS[req.key]}; set it there")
        for key in (self.gpu_label.key,):
            restricted = karpenter_label_problem(key)
            if restricted:
                problems.append(f"gpuLabel: {restricted}")
        if len(self.node_labels) > KARPENTER_MAX_LABELS:
            problems.append(
                f"{len(self.node_labels)} labels (with gpuLabel and gpu-node-pools/pool); a NodePool takes at most "
                f"{KARPENTER_MAX_LABELS}"
            )
        count = len(self.requirement_list)
        if count > KARPENTER_MAX_REQUIREMENTS:
            problems.append(f"{count} requirements in all; a NodePool takes at most {KARPENTER_MAX_REQUIREMENTS}")
        if problems:
            raise _fail("; ".join(problems))
        return self

    # derived, plain values (known at preview) -----------------------------------------
    @property
    def startup_taint_list(self) -> list[Taint]:
        """Startup taints as :class:`Taint`, in config order (never in :attr:`taint_list`)."""
        return [t.to_taint() for t in self.startup_taints]

    @property
    def requirement_list(self) -> list[dict[str, Any]]:
        """The NodePool requirements, in a fixed order: instance family or type, GPU
        manufacturer, GPU count, GPU name, capacity type, architecture, zone, then extras."""
        reqs: list[dict[str, Any]] = []

        def add(key: str, values: list[str] | None) -> None:
            if values:
                reqs.append({"key": key, "operator": "In", "values": list(values)})

        add("karpenter.k8s.aws/instance-family", self.instance_families)
        add("node.kubernetes.io/instance-type", self.instance_types)
        add("karpenter.k8s.aws/instance-gpu-manufacturer", ["nvidia"])
        add("karpenter.k8s.aws/instance-gpu-count", [str(c) for c in self.gpu_counts or []])
        add("karpenter.k8s.aws/instance-gpu-name", self.gpu_names)
        add("karpenter.sh/capacity-type", self.capacity_types)
        add("kubernetes.io/arch", [self.architecture])
        add("topology.kubernetes.io/zone", self.zones)
        reqs += [r.to_k8s() for r in self.requirements]
        return reqs

    @property
    def node_class_name(self) -> str:
        """The EC2NodeClass the NodePool references (``nodeClassRef.name``, ``nodeClass.name`` or the pool name)."""
        if self.node_class_ref is not None:
            return self.node_class_ref.name
        return (self.node_class.name if self.node_class else None) or self.name

    @property
    def ships_own_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA AMIs include NVIDIA's device plugin (EKS user guide, ml-eks-optimized-ami)."""
        if self.node_class is not None:
            return self.node_class.ami_family == "bottlerocket"
        return self.node_class_ref is not None and self.node_class_ref.ami_family == "Bottlerocket"

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        return not self.ships_own_device_plugin


def _karpenter_stack_issues(stack: StackConfig) -> list[str]:
    """Stack-level Karpenter rules as ``"path: message"`` lines: a node role for created
    EC2NodeClasses, and no two pools creating an EC2NodeClass of the same name."""
    issues = []
    created: dict[str, int] = {}
    for i, pool in enumerate(stack.pools):
        if not isinstance(pool, KarpenterPool) or pool.node_class is None:
            continue
        if pool.node_class.role is None and not stack.cluster.node_role_arn:
            issues.append(f"pools[{i}].nodeClass.role: missing; set the node IAM role name here or cluster.nodeRoleArn")
        name = pool.node_class_name
        if name in created:
            issues.append(
                f"pools[{i}].nodeClass.name: EC2NodeClass {name!r} is already created by pools[{created[name]}]; "
                f"give it another name, or reference it with nodeClassRef: {{name: {name}}}"
            )
        created.setdefault(name, i)
    return issues


PoolConfig = Annotated[
    Union[
        Annotated[EksManagedPool, Tag("eks-managed")],
        Annotated[GkePool, Tag("gke")],
        Annotated[SelfManagedPool, Tag("self-managed")],
        Annotated[KarpenterPool, Tag("karpenter")],
    ],
    Discriminator(lambda v: v.get("backend") if isinstance(v, Mapping) else getattr(v, "backend", None)),
]
BACKENDS = ("eks-managed", "gke", "self-managed", "karpenter")
_POOL_MODELS = {"eks-managed": EksManagedPool, "gke": GkePool, "self-managed": SelfManagedPool, "karpenter": KarpenterPool}


# --- cluster and device plugin ----------------------------------------------------------


class ClusterConfig(_Model):
    """The Kubernetes cluster the pools join."""

    name: str = Field(pattern=r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$", description="Cluster name; GKE: <= 40, lower-case.")
    node_role_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$", description="Default node IAM role ARN."
    )
    subnet_ids: list[str] | None = Field(None, min_length=1, description="Default subnets for node groups.")
    kubernetes_version: str | None = Field(None, pattern=r"^1\.\d{2}$", description="e.g. '1.33' (quote it).")
    project: str | None = Field(
        None, pattern=r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$", description="GKE: Google Cloud project ID; gke pools need it."
    )
    location: str | None = Field(
        None,
        pattern=r"^[a-z]+-[a-z]+[0-9]+(-[a-z])?$",
        description="GKE: the cluster's region (us-central1) or zone (us-central1-a); gke pools need it.",
    )
    # Self-managed nodes are told where the cluster is (nodeadm no longer calls DescribeCluster).
    api_server_endpoint: str | None = Field(
        None,
        description="Self-managed: API server URL, https://host[:port] (EKS: DescribeCluster endpoint; kubeadm: "
        "https://10.0.0.10:6443).",
    )
    certificate_authority: str | None = Field(
        None, description="Self-managed: the cluster CA bundle, base64-encoded PEM (EKS certificateAuthority.data)."
    )
    service_cidr: str | None = Field(
        None,
        description="Self-managed: the Kubernetes service CIDR, e.g. 10.100.0.0/16 (EKS serviceIpv4Cidr); the "
        "cluster DNS is its .10 address.",
    )
    ca_cert_hashes: list[str] | None = Field(
        None,
        min_length=1,
        description="kubeadm: discovery CA public key hashes 'sha256:<64 hex>' (kubeadm token create "
        "--print-join-command prints one).",
    )

    @field_validator("api_server_endpoint")
    @classmethod
    def _endpoint(cls, url: str | None) -> str | None:
        if url is None:
            return url
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname or parts.path not in ("", "/") or parts.query:
            raise _fail(f"{url!r} must be an https URL of the API server, e.g. https://10.0.0.10:6443")
        return url

    @field_validator("certificate_authority")
    @classmethod
    def _ca(cls, data: str | None) -> str | None:
        if data is None:
            return data
        try:
            pem = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            pem = b""
        if b"-----BEGIN CERTIFICATE-----" not in pem:
            raise _fail(
                "must be the base64 encoding of the PEM CA bundle (EKS certificateAuthority.data, or "
                "base64 -w0 ca.crt), not the PEM text itself"
            )
        return data

    @field_validator("service_cidr")
    @classmethod
    def _cidr(cls, cidr: str | None) -> str | None:
        if cidr is None:
            return cidr
        try:
            ipaddress.ip_network(cidr)
        except ValueError as err:
            raise _fail(f"{cidr!r} is not a CIDR ({err}); e.g. 10.100.0.0/16") from None
        return cidr

    @field_validator("ca_cert_hashes")
    @classmethod
    def _hashes(cls, hashes: list[str] | None) -> list[str] | None:
        bad = [h for h in hashes or [] if not re.fullmatch(r"sha256:[0-9a-f]{64}", h)]
        if bad:
            raise _fail(f"{bad} must be 'sha256:' and 64 lower-case hex digits, as kubeadm prints them")
        return hashes


class DevicePluginConfig(_Model):
    """The NVIDIA device plugin chart, installed once per cluster for every pool that needs it."""

    enabled: bool = True
    namespace: str = Field("nvidia-device-plugin", pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    chart_version: Literal["0.20.0"] = "0.20.0"
    repository: str = "https://nvidia.github.io/k8s-device-plugin"
    image_digest: str | None = Field(None, pattern=r"^sha256:[0-9a-f]{64}$")
    extra_tolerations: list[TolerationConfig] = Field(
        default_factory=list, description="Tolerations for taints of nodes outside this stack."
    )

    @field_validator("namespace")
    @classmethod
    def _ns(cls, ns: str) -> str:
        if ns == "default":
            raise _fail(
                "'default': the chart refuses to install into the default namespace; use e.g. nvidia-device-plugin"
            )
        return ns


class StackConfig(_Model):
    """The whole stack config (``gpu-node-pools:cluster``, ``:pools``, ``:devicePlugin``)."""

    cluster: ClusterConfig
    pools: list[PoolConfig] = Field(min_length=1)
    device_plugin: DevicePluginConfig = Field(default_factory=DevicePluginConfig)

    @model_validator(mode="after")
    def _cross(self) -> StackConfig:
        issues = []
        names: dict[str, int] = {}
        for i, pool in enumerate(self.pools):
            if pool.name in names:
                issues.append(f"pools[{i}].name: {pool.name!r} is already used by pools[{names[pool.name]}]; names must be unique")
            names.setdefault(pool.name, i)
            if isinstance(pool, EksManagedPool):
                if not (pool.node_role_arn or self.cluster.node_role_arn):
                    issues.append(f"pools[{i}].nodeRoleArn: missing; set it here or in cluster.nodeRoleArn")
                if not (pool.subnet_ids or self.cluster.subnet_ids):
                    issues.append(f"pools[{i}].subnetIds: missing; set it here or in cluster.subnetIds")
        issues += _gke_stack_issues(self)
        issues += _self_managed_stack_issues(self)
        issues += _karpenter_stack_issues(self)
        if issues:
            raise _fail("\n".join(issues))
        return self


# --- loading ----------------------------------------------------------------------------

_ALL_KEYS: set[str] | None = None


def _known_keys() -> set[str]:
    global _ALL_KEYS
    if _ALL_KEYS is None:
        keys: set[str] = set()
        for model in (StackConfig, ClusterConfig, DevicePluginConfig, TolerationConfig, TaintConfig,
                      ScalingConfig, UpdateConfig, GpuLabel, EksManagedPool,
                      GkePool, GkeAccelerator, GkeGpuSharingConfig, SelfManagedPool,
                      KarpenterPool, KarpenterRequirement, KarpenterBudget, KarpenterDisruption,
                      KarpenterNodeClassRef, KarpenterNodeClass):
            for name, field in model.model_fields.items():
                keys.add(field.alias or name)
        _ALL_KEYS = keys
    return _ALL_KEYS


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in BACKENDS or part.startswith("function-"):
            continue  # discriminated-union tag, not part of the user's path
        elif part == "[key]":
            continue
        elif out and any(c in str(part) for c in "./"):
            out += f"[{str(part)!r}]"  # a map key such as a label: labels['example.com/gpu']
        else:
            out += ("." if out else "") + str(part)
    return out


def _issue_from_pydantic(err: dict[str, Any]) -> list[ConfigIssue]:
    loc = tuple(err["loc"])
    path = _path(loc)
    kind = err["type"]
    value = err.get("input")
    if kind == "gpu_node_pools":
        msg = err["msg"]
        if "\n" in msg or not path:  # stack-level checks carry their own paths
            return [ConfigIssue(*line.split(": ", 1)) for line in msg.splitlines()]
        return [ConfigIssue(path, msg)]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        backend = next((part for part in loc if part in BACKENDS), None)
        if backend is not None and len(loc) == 4:  # a top-level key of a pool
            owners = [b for b, model in _POOL_MODELS.items() if key in {f.alias for f in model.model_fields.values()}]
            if owners:
                return [ConfigIssue(path, f"{key!r} is not a key of {backend} pools (it belongs to {', '.join(owners)} pools); "
                                          f"remove it or change the backend")]
        close = difflib.get_close_matches(key, sorted(_known_keys() - {key}), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else "; remove it"
        return [ConfigIssue(path, f"unknown key {key!r}{hint}")]
    if type(value).__name__ == "Output" and type(value).__module__.startswith("pulumi"):
        return [ConfigIssue(path, "is a Pulumi Output; pool and cluster settings must be plain values known at "
                                  "preview (policies judge taints and labels then), e.g. a name from config, not "
                                  "another resource's output")]
    if kind == "missing":
        if len(loc) == 1:
            return [ConfigIssue(f"{PROJECT}:{loc[0]}", "required key is missing from the stack config")]
        return [ConfigIssue(path, "required key is missing")]
    if kind == "union_tag_invalid" or kind == "union_tag_not_found":
        if not isinstance(value, Mapping):
            return [ConfigIssue(path, f"{value!r} must be a mapping with name, backend and the backend's keys")]
        got = value.get("backend")
        return [ConfigIssue(_path(loc) + ".backend", f"{got!r} is not a backend; use one of {', '.join(BACKENDS)}")]
    msg = err["msg"]
    if kind in ("string_type", "int_type", "bool_type") and isinstance(value, bool | int | float):
        msg += " (quote it in YAML: yes/no/on/off and numbers are not strings)" if kind == "string_type" else ""
    if kind == "literal_error":
        msg = msg.replace("Input should be", "must be")
    return [ConfigIssue(path, f"{value!r}: {msg}" if not isinstance(value, dict | list) else msg)]


def validate_stack_config(raw: Mapping[str, Any], source: str = "stack config") -> StackConfig:
    """Validate a stack config given as a plain mapping with keys ``cluster``, ``pools``, ``devicePlugin``.

    Raises:
        ConfigError: every mistake found, each with its config path.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError([ConfigIssue("", f"the config must be a mapping, got {type(raw).__name__}")], source)
    try:
        return StackConfig.model_validate(raw)
    except ValidationError as exc:
        issues: list[ConfigIssue] = []
        for err in exc.errors(include_url=False):
            for issue in _issue_from_pydantic(err):
                if issue not in issues:
                    issues.append(issue)
        raise ConfigError(issues, source) from None


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, recording duplicate mapping keys instead of keeping the last silently."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            try:
                key = self.construct_object(key_node, deep=True)
                hash(key)
            except Exception:  # noqa: BLE001 - unhashable keys are PyYAML's own error below
                continue
            line = key_node.start_mark.line + 1
            if key in seen:
                self.duplicates.append(
                    f"line {line}: key {key!r} appears again (first on line {seen[key]}); "
                    "YAML keeps only the last one, so remove one of them"
                )
            else:
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _config_path(top: str, rest: tuple[Any, ...]) -> str:
    ns, _, key = top.rpartition(":")
    out = key if ns in ("", PROJECT) else top
    for part in rest:
        out += f"[{part}]" if isinstance(part, int) else (f"[{part!r}]" if any(c in str(part) for c in "./:") else f".{part}")
    return out


def _yaml_type_problems(value: Any, top: str, rest: tuple[Any, ...] = ()) -> list[ConfigIssue]:
    """Keys and values that YAML 1.1 reads as something other than JSON (dates, booleans as keys...)."""
    problems = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                problems.append(
                    ConfigIssue(
                        _config_path(top, rest),
                        f"key {k!r} is read by YAML as a {type(k).__name__}, not a string "
                        f"(yes/no/on/off, numbers and dates are not strings); quote it",
                    )
                )
                continue
            problems += _yaml_type_problems(v, top, (*rest, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            problems += _yaml_type_problems(v, top, (*rest, i))
    elif not isinstance(value, str | int | float | bool | type(None)):
        problems.append(
            ConfigIssue(
                _config_path(top, rest),
                f"{value!s} is read by YAML as a {type(value).__name__}, not a string; quote it (\"{value!s}\")",
            )
        )
    return problems


def read_stack_file(data: bytes, name: str) -> tuple[dict[str, Any], list[str]]:
    """Parse a ``Pulumi.<stack>.yaml`` into Pulumi's runtime config form (see :func:`stack_file_config`).

    Refuses, with one :class:`ConfigIssue` each: bytes that are not UTF-8, invalid YAML, a
    document or ``config:`` that is not a mapping, duplicate keys, keys YAML reads as
    booleans/numbers/dates (``on:``), and values it reads as dates or other non-JSON types.

    Raises:
        ConfigError: every problem found, with the config path where there is one.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ConfigError([ConfigIssue(name, f"line {line} is not UTF-8; save the file as UTF-8")], name) from None
    loader = _StrictLoader(text)
    loader.duplicates = []
    try:
        doc = loader.get_single_data()
    except yaml.YAMLError as err:
        raise ConfigError([ConfigIssue(*yaml_syntax_problem(err, name))], name) from None
    finally:
        loader.dispose()
    issues = [ConfigIssue(name, d) for d in loader.duplicates]
    if doc is None:
        doc = {}
    if not isinstance(doc, Mapping):
        raise ConfigError(issues + [ConfigIssue(name, "must be a YAML mapping with a 'config:' key")], name)
    config_map = doc.get("config") or {}
    if not isinstance(config_map, Mapping):
        raise ConfigError(
            issues + [ConfigIssue(f"{name}: config", f"must be a mapping of config keys, got {type(config_map).__name__}")],
            name,
        )
    for key, value in config_map.items():
        if not isinstance(key, str):
            issues.append(ConfigIssue(f"{name}: config", f"key {key!r} is not a string; config keys look like {PROJECT}:pools"))
            continue
        issues += _yaml_type_problems(value, key)
    if issues:
        raise ConfigError(issues, name)
    return stack_file_config(doc)


def stack_file_config(doc: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Turn the ``config:`` map of a ``Pulumi.<stack>.yaml`` into Pulumi's runtime config form.

    Keys without a namespace get the project's (as the Pulumi CLI does); structured values are
    JSON-encoded strings. Returns ``(config, secret_keys)``; ``secure:`` values cannot be
    decrypted offline and become the placeholder ``"[secret]"`` (listed in ``secret_keys``).
    Use :func:`read_stack_file` for a file: it refuses what this function cannot encode.
    """
    config: dict[str, Any] = {}
    secrets: list[str] = []
    for key, value in (doc.get("config") or {}).items():
        full = key if ":" in key else f"{PROJECT}:{key}"
        if isinstance(value, Mapping) and set(value) == {"secure"}:
            config[full] = "[secret]"
            secrets.append(full)
        elif isinstance(value, str):
            config[full] = value
        else:
            config[full] = json.dumps(value)
    return config, secrets


# Keys under the project namespace that are not part of the validated model.
_SIDE_KEYS = {"kubeconfig"}


def load_stack_config(
    config: Mapping[str, str],
    source: str = "stack config",
    is_secret: Any = None,
) -> StackConfig:
    """Validate the project's keys of a Pulumi runtime config map (``{"gpu-node-pools:pools": "<json>"}``).

    Unknown keys under ``gpu-node-pools:`` are errors too. ``is_secret(full_key)``, when
    given, tells whether a key is a Pulumi secret: credentials (``kubeconfig``) must be.

    Raises:
        ConfigError: every mistake found.
    """
    raw: dict[str, Any] = {}
    issues: list[ConfigIssue] = []
    allowed = {f.alias for f in StackConfig.model_fields.values()} | _SIDE_KEYS
    for full, text in config.items():
        ns, _, key = full.partition(":")
        if ns != PROJECT:
            continue
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f"; did you mean {PROJECT}:{close[0]}?" if close else f"; allowed: {', '.join(sorted(allowed))}"
            issues.append(ConfigIssue(full, f"unknown config key{hint}"))
            continue
        if key in _SIDE_KEYS:
            if is_secret is not None and not is_secret(full):
                issues.append(
                    ConfigIssue(
                        full,
                        f"is stored in plain text; a credential must be a Pulumi secret: run "
                        f"`pulumi config set --secret {key} ...` (it stays encrypted in the stack file)",
                    )
                )
            continue
        try:
            raw[key] = json.loads(text) if isinstance(text, str) else text
        except json.JSONDecodeError:
            issues.append(ConfigIssue(key, f"{text!r} must be a structured value (a YAML mapping or list)"))
    try:
        stack = validate_stack_config(raw, source)
    except ConfigError as exc:
        raise ConfigError(issues + exc.issues, source) from None
    if issues:
        raise ConfigError(issues, source)
    return stack
