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

import difflib
import json
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from . import instances
from .labels import DEFAULT_GPU_LABEL, eks_label_problem, label_syntax_problem
from .taints import (
    Taint,
    TaintEffect,
    TaintError,
    Toleration,
    find_duplicate_taints,
    label_value_problem,
    qualified_name_problem,
)

__all__ = [
    "PROJECT",
    "ConfigError",
    "ConfigIssue",
    "StackConfig",
    "ClusterConfig",
    "DevicePluginConfig",
    "EksManagedPool",
    "PoolConfig",
    "ScalingConfig",
    "POOL_LABEL_KEY",
    "DEFAULT_TAINT",
    "load_stack_config",
    "validate_stack_config",
    "stack_file_config",
]

PROJECT = "gpu-node-pools"
#: Every pool's nodes carry ``gpu-node-pools/pool=<pool name>``, so the device plugin's
#: affinity and workloads can select exactly the pools they mean.
POOL_LABEL_KEY = "gpu-node-pools/pool"
#: The taint a pool gets when its config declares none: the convention GKE and NVIDIA's
#: tools know; it has a value because Cluster Autoscaler drops value-less EKS taints.
DEFAULT_TAINT = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)

EKS_MAX_TAINTS = 50
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
    )


def _split_taint_string(value: Any) -> Any:
    # "key=value:Effect" becomes {key, value, effect} so that errors point at .key/.value/.effect
    if isinstance(value, str):
        head, sep, effect = value.rpartition(":")
        if not sep:
            raise _fail(
                f"{value!r} has no effect; write key=value:Effect, e.g. nvidia.com/gpu=present:NoSchedule"
            )
        key, eq, val = head.partition("=")
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
    effect: str = Field(description="NoSchedule | PreferNoSchedule | NoExecute")

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

_POOL_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class ScalingConfig(_Model):
    """Node count bounds. ``minSize`` may be 0 (scale from zero); ``desiredSize`` defaults to ``minSize``."""

    min_size: int = Field(ge=0, description="Minimum nodes, >= 0.")
    max_size: int = Field(ge=1, description="Maximum nodes, >= 1 and >= minSize.")
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
        default_factory=lambda: [TaintConfig(key=DEFAULT_TAINT.key, value=DEFAULT_TAINT.value, effect="NoSchedule")],
        description="Taints every node of the pool carries; default [nvidia.com/gpu=present:NoSchedule].",
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
    tags: dict[str, str] = Field(default_factory=dict, description="AWS tags on the node group.")

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
        problems = []
        for t in types:
            fam = instances.instance_family(t)
            if fam in instances.OTHER_ACCELERATOR_FAMILIES:
                problems.append(f"{t!r} has {instances.OTHER_ACCELERATOR_FAMILIES[fam]}, not NVIDIA GPUs")
            elif not instances.is_nvidia_instance_type(t) or "." not in t:
                problems.append(f"{t!r} is not an NVIDIA GPU instance type (e.g. g6.xlarge, p5.48xlarge)")
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


PoolConfig = Annotated[
    Union[Annotated[EksManagedPool, Tag("eks-managed")]],
    Discriminator(lambda v: v.get("backend") if isinstance(v, Mapping) else getattr(v, "backend", None)),
]
BACKENDS = ("eks-managed",)


# --- cluster and device plugin ----------------------------------------------------------


class ClusterConfig(_Model):
    """The Kubernetes cluster the pools join."""

    name: str = Field(pattern=r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$", description="EKS cluster name.")
    node_role_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/.+$", description="Default node IAM role ARN."
    )
    subnet_ids: list[str] | None = Field(None, min_length=1, description="Default subnets for node groups.")
    kubernetes_version: str | None = Field(None, pattern=r"^1\.\d{2}$", description="e.g. '1.33' (quote it).")


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
                      ScalingConfig, UpdateConfig, GpuLabel, EksManagedPool):
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
        if "\n" in msg:  # stack-level checks carry their own paths
            return [ConfigIssue(*line.split(": ", 1)) for line in msg.splitlines()]
        return [ConfigIssue(path, msg)]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        close = difflib.get_close_matches(key, sorted(_known_keys()), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else "; remove it"
        return [ConfigIssue(path, f"unknown key {key!r}{hint}")]
    if kind == "missing":
        if len(loc) == 1:
            return [ConfigIssue(f"{PROJECT}:{loc[0]}", "required key is missing from the stack config")]
        return [ConfigIssue(path, "required key is missing")]
    if kind == "union_tag_invalid" or kind == "union_tag_not_found":
        got = value.get("backend") if isinstance(value, Mapping) else value
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


def stack_file_config(doc: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Turn the ``config:`` map of a ``Pulumi.<stack>.yaml`` into Pulumi's runtime config form.

    Keys without a namespace get the project's (as the Pulumi CLI does); structured values are
    JSON-encoded strings. Returns ``(config, secret_keys)``; ``secure:`` values cannot be
    decrypted offline and become the placeholder ``"[secret]"`` (listed in ``secret_keys``).
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


def load_stack_config(config: Mapping[str, str], source: str = "stack config") -> StackConfig:
    """Validate the project's keys of a Pulumi runtime config map (``{"gpu-node-pools:pools": "<json>"}``).

    Unknown keys under ``gpu-node-pools:`` are errors too.

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
