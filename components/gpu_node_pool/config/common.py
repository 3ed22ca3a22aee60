"""Models and constants shared by every backend's pool config (taints, labels, scaling, the pool base)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from ..k8s.controller_taints import controller_taint_problems
from ..k8s.discovery import OPERATOR_DEPLOY_PREFIX
from ..k8s.integers import INT32_MAX, INT64_MAX, INT64_MIN
from ..k8s.labels import DEFAULT_GPU_LABEL, label_syntax_problem
from ..k8s.names import LABEL_VALUE_MAX
from ..k8s.patterns import full_match
from ..k8s.taint_slips import mapping_slip
from ..k8s.taints import (
    Taint,
    TaintEffect,
    TaintError,
    Toleration,
    find_duplicate_taints,
    label_value_problem,
    qualified_name_problem,
    split_kubelet_form,
)
from ..k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, POOL_LABEL_KEY
from .defaults import DEFAULT_TAINT
from .errors import fail, fail_each, fail_per_key
from .pool_names import check_pool_name, pool_name_schema
from .reserved_labels import RESERVED_LABELS, reserved_label_problem
from .sharing_names import mig_config_name, mig_layout_name, sharing_config_name

EKS_MAX_TAINTS = 50
# The widest whole numbers the APIs behind the settings hold: int32 (EKS, EC2 Auto Scaling, Bottlerocket's
# bounded settings) and int64 (Kubernetes: "All public integer fields MUST use the Go int32 or int64 types",
# kubernetes/community contributors/devel/sig-architecture/api-conventions.md): INT32_MAX and INT64_MAX, both from
# gpu_node_pool.k8s.integers. Every whole-number field of a model has one as its ``le`` bound, which the loader
# reports with the API the field's description names.

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


class Model(BaseModel):
    """Base of every stack config model (pools, cluster, agents, each backend's pool).

    Keys are camelCase as in the stack YAML (``minSize`` for ``min_size``), an unknown key is an
    error (``extra="forbid"``), values are not coerced (``strict``: YAML ``yes`` is no number),
    and a validated model is frozen. A subclass may set ``yaml_example`` to a valid value in YAML
    flow style, shown when a value of the wrong type is given, and ``refused_keys`` to the keys it
    has no place for that a user may bring from elsewhere (another backend's), each with the
    sentence that says why and the fix: pydantic refuses them as unknown keys with every other
    mistake of the model, and the report gives that sentence instead. Validation errors are pydantic
    ``ValidationError`` s, reported as :class:`~gpu_node_pool.config.errors.ConfigIssue` s.
    """

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        frozen=True,
        hide_input_in_errors=False,
        # No silent coercion: YAML's `yes`/`on` must not become 1 in minSize, nor 3.0 an int.
        strict=True,
        # Validators are built on first use, so importing the CLI does not pay for every backend's
        # models (~30 models would otherwise cost most of the CLI's import time).
        defer_build=True,
    )
    #: A valid value in YAML flow style, shown when a value of the wrong type is given.
    yaml_example: ClassVar[str] = ""
    #: Keys this model refuses with a sentence of their own (key -> why, and the fix), as YAML writes them.
    refused_keys: ClassVar[Mapping[str, str]] = {}


def _split_taint_string(value: Any) -> Any:
    # "key=value:Effect" becomes {key, value, effect} so that errors point at .key/.value/.effect
    if isinstance(value, str):
        try:
            key, val, effect = split_kubelet_form(value)
        except TaintError as err:
            raise fail(str(err)) from None
        return {"key": key, "value": val, "effect": effect}
    if isinstance(value, Taint):
        return value.to_k8s()
    if isinstance(value, Mapping) and len(value) == 1:  # "k = v : Effect": YAML reads ': ' as a key and its value
        [(key, rest)] = value.items()
        slip = mapping_slip(key, rest, TaintConfig.model_fields)
        if slip is not None:
            raise fail(slip)
    return value


class TaintConfig(Model):
    """One taint: the string ``key=value:Effect`` or the object ``{key, value, effect}``.

    ``effect`` uses the Kubernetes spelling (``NoSchedule``, ``PreferNoSchedule``,
    ``NoExecute``) for every backend; the component translates it for EKS and GKE.
    """

    yaml_example: ClassVar[str] = (
        f"{DEFAULT_TAINT} or {{key: {DEFAULT_TAINT.key}, value: {DEFAULT_TAINT.value}, effect: {DEFAULT_TAINT.effect.value}}}"
    )
    key: str = Field(description="Qualified name: optional DNS-subdomain prefix (<=253) + '/' + name (<=63).")
    value: str = Field("", description="Label value: up to 63 characters, may be empty.")
    effect: str = Field(description=" | ".join(e.value for e in TaintEffect))

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        problem = qualified_name_problem(key)
        if problem:
            raise fail(f"{key!r} {problem}")
        return key

    @field_validator("value")
    @classmethod
    def _value(cls, value: str) -> str:
        problem = label_value_problem(value)
        if problem:
            raise fail(f"{value!r} {problem}")
        return value

    @field_validator("effect")
    @classmethod
    def _effect(cls, effect: str) -> str:
        try:
            return TaintEffect.parse(effect).value
        except TaintError as err:
            raise fail(str(err)) from None

    def to_taint(self) -> Taint:
        """The validated :class:`~gpu_node_pool.k8s.taints.Taint` (one frozen instance per key, value and effect)."""
        return _taint(self.key, self.value, self.effect)


@lru_cache(maxsize=4096)
def _taint(key: str, value: str, effect: str) -> Taint:
    """``Taint(key, value, effect)``, built and checked once per content: a stack's pools repeat a few taints."""
    return Taint(key, value, TaintEffect(effect))


# json_schema_input_type: editors (gpupool schema) offer the string form too.
TaintItem = Annotated[TaintConfig, BeforeValidator(_split_taint_string, json_schema_input_type=str | TaintConfig)]


class TolerationConfig(Model):
    """A Kubernetes toleration (``key``, ``operator``, ``value``, ``effect``, ``tolerationSeconds``)."""

    key: str | None = None
    operator: str = "Equal"
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = Field(
        None, ge=INT64_MIN, le=INT64_MAX,
        description=f"Seconds a {TaintEffect.NO_EXECUTE.value} toleration lasts (an int64 in the Kubernetes Toleration, "
                    "k8s.io/api core/v1).",
    )

    @model_validator(mode="after")
    def _valid(self) -> TolerationConfig:
        try:
            self.to_toleration()
        except TaintError as err:
            raise fail(str(err)) from None
        return self

    def to_toleration(self) -> Toleration:
        return Toleration(self.key, self.operator, self.value, self.effect, self.toleration_seconds)


def labels_problems(labels: Mapping[str, str]) -> list[str]:
    """One sentence per label whose key is not a qualified name or whose value is not a label
    value (:func:`gpu_node_pool.k8s.labels.label_syntax_problem`; Kubernetes "Labels and
    Selectors", https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/);
    empty when every label is valid."""
    return [p for _, p in _label_problems(labels)]


def _label_problems(labels: Mapping[str, str]) -> list[tuple[str, str]]:
    return [(k, p) for k, v in labels.items() if (p := label_syntax_problem(k, v, node_label=True))]


def check_labels(labels: dict[str, str],
                 backend: Callable[[Mapping[str, str]], list[tuple[str, str]]] | None = None) -> dict[str, str]:
    """A pydantic field validator for ``{key: value}`` node labels: returns ``labels`` unchanged,
    or raises :func:`fail_per_key` with every :func:`labels_problems` sentence and, for the labels of valid
    syntax, every ``(key, sentence)`` of ``backend(labels)`` (a backend's own rules), one error per key."""
    problems = _label_problems(labels)
    if backend is not None:
        bad = {key for key, _ in problems}
        problems += [(k, why) for k, why in backend({k: v for k, v in labels.items() if k not in bad})]
    if problems:
        raise fail_per_key(problems)
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
        raise fail("; ".join(problems))
    return tags


#: AWS resource tags, checked against the AWS tagging limits.
AwsTags = Annotated[dict[str, str], AfterValidator(_check_aws_tags)]




#: The APIs a pool's node counts go to, with their bounds: EKS ``NodegroupScalingConfig`` and EC2 Auto Scaling's
#: ``CreateAutoScalingGroup`` (``MinSize``, ``MaxSize``, ``DesiredCapacity``).
_SCALING_APIS = ("https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupScalingConfig.html, "
                 "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_CreateAutoScalingGroup.html")


class ScalingConfig(Model):
    """Node count bounds. ``minSize`` may be 0 (scale from zero); ``desiredSize`` defaults to ``minSize``."""

    yaml_example: ClassVar[str] = "{minSize: 0, maxSize: 4}"
    min_size: int = Field(ge=0, le=INT32_MAX, description="Minimum nodes, >= 0 (an int32 of at least 0 in the EKS and "
                          f"Auto Scaling APIs: {_SCALING_APIS}).")
    max_size: int = Field(ge=1, le=INT32_MAX, description="Maximum nodes, >= 1 and >= minSize (an int32 of at least 1 in "
                          f"the EKS and Auto Scaling APIs: {_SCALING_APIS}).")
    desired_size: int | None = Field(
        None, ge=0, le=INT32_MAX,
        description="Initial nodes, between minSize and maxSize (an int32 of at least 0 in the EKS and Auto Scaling "
        f"APIs: {_SCALING_APIS}).",
    )

    @model_validator(mode="after")
    def _bounds(self) -> ScalingConfig:
        if self.min_size > self.max_size:
            raise fail(
                f"minSize {self.min_size} is above maxSize {self.max_size}; raise maxSize or lower minSize"
            )
        if self.desired_size is not None and not self.min_size <= self.desired_size <= self.max_size:
            raise fail(
                f"desiredSize {self.desired_size} is outside [minSize {self.min_size}, maxSize {self.max_size}]"
            )
        return self

    @property
    def desired(self) -> int:
        return self.min_size if self.desired_size is None else self.desired_size


class UpdateConfig(Model):
    """EKS node group update config: exactly one of ``maxUnavailable`` (nodes) or ``maxUnavailablePercentage`` (1-100)."""

    yaml_example: ClassVar[str] = "{maxUnavailable: 1}"
    max_unavailable: int | None = Field(None, ge=1, le=100)
    max_unavailable_percentage: int | None = Field(None, ge=1, le=100)

    @model_validator(mode="after")
    def _one(self) -> UpdateConfig:
        if (self.max_unavailable is None) == (self.max_unavailable_percentage is None):
            raise fail("set exactly one of maxUnavailable or maxUnavailablePercentage")
        return self


class GpuLabel(Model):
    """The label that marks the pool's nodes as GPU nodes (default ``nvidia.com/gpu.present=true``)."""

    yaml_example: ClassVar[str] = f"{{key: {DEFAULT_GPU_LABEL[0]}, value: '{DEFAULT_GPU_LABEL[1]}'}}"
    key: str = DEFAULT_GPU_LABEL[0]
    value: str = DEFAULT_GPU_LABEL[1]

    @model_validator(mode="after")
    def _syntax(self) -> GpuLabel:
        problem = label_syntax_problem(self.key, self.value, node_label=True)
        if problem:
            raise fail(problem)
        return self


# --- GPU agents: sharing and MIG per pool (stack-level rules in gpu_agents/validate.py) ---

#: MIG profile names: ``<compute>g.<memory>gb`` with an optional ``+me``/``+gfx`` attribute
#: (NVIDIA MIG User Guide, "Supported MIG Profiles"; GKE ``gpu_partition_size`` uses the same).
_MIG_PROFILE_RE = re.compile(r"^[1-8]g\.\d+gb(\+[a-z]+)*$")


class GpuSharingConfig(Model):
    """Pool ``gpuSharing``: several containers share each GPU.

    ``strategy`` ``timeSlicing`` | ``mps``; ``replicas``: clients per GPU, >= 2 (with 1 the plugin
    shares nothing). NVIDIA's plugin then advertises GPUs x replicas ``nvidia.com/gpu``; on GKE
    (GKE's plugin) it becomes ``gpu_sharing_config`` (``TIME_SHARING`` | ``MPS``,
    ``max_shared_clients_per_gpu``).
    """

    yaml_example: ClassVar[str] = "{strategy: timeSlicing, replicas: 4}"
    strategy: Literal["timeSlicing", "mps"] = Field(description="timeSlicing | mps")
    replicas: int = Field(
        le=INT32_MAX,
        description="Clients per GPU, >= 2 (k8s-device-plugin: sharing needs replicas > 1) and at most 2147483647 "
        "(an int32, the narrowest type of the places it is written: NVIDIA's device plugin config holds a Go int, "
        "NVIDIA/k8s-device-plugin api/config/v1/replicas.go ReplicaResource.Replicas; Bottlerocket's "
        "time-slicing.replicas on BOTTLEROCKET_* nodes is an int32, bottlerocket-os/bottlerocket-settings-sdk "
        "bottlerocket-settings-models/modeled-types/src/kubernetes.rs).",
    )

    @field_validator("replicas")
    @classmethod
    def _replicas(cls, replicas: int) -> int:
        if replicas < 2:
            raise fail(
                f"{replicas}: sharing needs at least 2 replicas per GPU (the device plugin shares nothing with 1: "
                "NVIDIA/k8s-device-plugin@v0.20.0 internal/lm/resource.go); set "
                "replicas: 2 or more, or remove gpuSharing"
            )
        return replicas

    @property
    def config_name(self) -> str:
        """The named device-plugin config (and node label value) of this setting; see :func:`sharing_config_name`."""
        return sharing_config_name(self.strategy, self.replicas)


class MigConfig(Model):
    """Pool ``mig``: partition each GPU into MIG devices of one ``profile`` (e.g. ``1g.10gb``).

    ``strategy`` ``single`` (MIG devices are advertised as ``nvidia.com/gpu``) | ``mixed`` (as
    ``nvidia.com/mig-<profile>``). Needs a partitioner (GPU Operator, Bottlerocket, GKE).
    """

    yaml_example: ClassVar[str] = "{strategy: single, profile: 1g.10gb}"
    strategy: Literal["single", "mixed"] = Field(description="single | mixed")
    profile: str = Field(description="MIG profile <compute>g.<memory>gb, e.g. 1g.10gb (NVIDIA MIG User Guide).")

    @field_validator("profile")
    @classmethod
    def _profile(cls, profile: str) -> str:
        if not full_match(_MIG_PROFILE_RE, profile):
            raise fail(
                f"{profile!r} is not a MIG profile name: <compute>g.<memory>gb, e.g. 1g.10gb or 3g.40gb (NVIDIA MIG "
                "User Guide, Supported MIG Profiles)"
            )
        return profile


# --- pools ------------------------------------------------------------------------------


#: Per node image, the GPU Operator operands (their ``nvidia.com/gpu.deploy.<operand>`` label names) the image
#: runs itself. Bottlerocket's ``aws-k8s-*-nvidia`` variants ship the driver, the container toolkit, NVIDIA's
#: device plugin and their own MIG settings (bottlerocket-os/bottlerocket ``QUICKSTART-EKS.md``; EKS user guide
#: ml-eks-optimized-ami). The operator never overrides a deploy label a node already has with a non-empty value,
#: and each operand selects ``<label>: "true"`` (NVIDIA/gpu-operator@v26.7.0 ``controllers/state_manager.go``
#: ``addGPUStateLabels``; ``assets/state-device-plugin/0500_daemonset.yaml``).
IMAGE_OWN_OPERANDS: dict[str, tuple[str, ...]] = {
    "bottlerocket-nvidia": ("driver", "container-toolkit", "device-plugin", "mig-manager"),
}


class PoolBase(Model):
    model_config = ConfigDict(json_schema_extra=pool_name_schema)
    yaml_example: ClassVar[str] = "{name: inference, backend: eks-managed, instanceTypes: [g6.xlarge], scaling: {minSize: 0, maxSize: 4}}"
    name: str = Field(description=(
        f"Pool name: a lower-case DNS label (letters, digits, '-') of at most {LABEL_VALUE_MAX} characters, the value "
        f"of the node label {POOL_LABEL_KEY}; fewer where the backend's cloud derives a longer name from it."))
    taints: list[TaintItem] = Field(
        default_factory=lambda: [TaintConfig.model_validate(DEFAULT_TAINT.to_k8s())],
        description=f"Taints every node of the pool carries; default [{DEFAULT_TAINT}].",
    )
    labels: Labels = Field(default_factory=dict)
    gpu_label: GpuLabel = Field(default_factory=GpuLabel)
    gpu_sharing: GpuSharingConfig | None = Field(None, description="Share each GPU: {strategy: timeSlicing|mps, replicas}.")
    mig: MigConfig | None = Field(None, description="MIG partitions: {strategy: single|mixed, profile}; needs a partitioner.")

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        """A lower-case DNS label of at most :func:`.pool_names.pool_name_limit` characters (63, fewer on some backends)."""
        return check_pool_name(cls, name)

    @field_validator("taints")
    @classmethod
    def _taints(cls, taints: list[TaintConfig]) -> list[TaintConfig]:
        """Every mistake of the list in one run: each taint a controller owns (at its own line), each repeated key
        and effect (at ``taints``), then the backend's own rules (:meth:`backend_taint_problems`)."""
        problems: list[tuple[tuple[str | int, ...], str]] = [
            ((i,), why) for i, why in controller_taint_problems([t.to_taint() for t in taints])]
        problems += [((), f"taints[{first}] and taints[{dup}] both have key {taint.key!r} and effect "
                          f"{taint.effect.value}; a node carries one taint per key and effect (Kubernetes, EKS "
                          "and GKE reject duplicates): keep one")
                     for first, dup, taint in find_duplicate_taints(t.to_taint() for t in taints)]
        problems += cls.backend_taint_problems(taints)
        if problems:
            raise fail(problems[0][1], at=problems[0][0]) if len(problems) == 1 else fail_each(problems)
        return taints

    @classmethod
    def backend_taint_problems(cls, taints: list[TaintConfig]) -> list[tuple[tuple[str | int, ...], str]]:
        """``[(at, sentence), ...]``: what the backend refuses of the taints (``at``: ``(i,)`` for ``taints[i]``,
        ``()`` for the list), each with its rule's source and fix; a backend's pool model overrides it (no second
        ``taints`` validator, which pydantic would skip once this one fails). None here."""
        return []

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: dict[str, str]) -> dict[str, str]:
        """Every label's mistakes in one run: its syntax (:func:`check_labels`), and for a label of valid syntax the
        backend's own rules (:meth:`backend_label_problems`)."""
        return check_labels(labels, cls.backend_label_problems)

    @classmethod
    def backend_label_problems(cls, labels: Mapping[str, str]) -> list[tuple[str, str]]:
        """``[(key, sentence), ...]``: the labels of valid syntax the backend refuses (an EKS node group's empty value,
        a domain the platform keeps), each with its rule's source and fix; a backend's pool model overrides it (no
        second ``labels`` validator, which pydantic would skip once this one fails). None here."""
        return []

    @model_validator(mode="after")
    def _reserved_labels(self) -> PoolBase:
        for key in RESERVED_LABELS:
            why = key in self.labels and reserved_label_problem(key, self.labels[key], **self.reserved_label_context)
            if why:
                raise fail(why, at=("labels", key))  # at the key's own line
        if self.gpu_label.key == POOL_LABEL_KEY:
            raise fail(
                f"gpuLabel: {POOL_LABEL_KEY!r} is the pool label the component sets to the pool name; "
                "use another key, e.g. nvidia.com/gpu.present"
            )
        if self.labels.get(self.gpu_label.key, self.gpu_label.value) != self.gpu_label.value:
            raise fail(
                f"labels[{self.gpu_label.key!r}] conflicts with gpuLabel ({self.gpu_label.value!r}); "
                "set it once, in gpuLabel"
            )
        return self

    @property
    def reserved_label_context(self) -> dict[str, str | None]:
        """What :func:`.reserved_labels.reserved_label_problem` names as the component's own value of each label."""
        return {"sharing": self.gpu_sharing.config_name if self.gpu_sharing is not None else None,
                "mig": mig_config_name(self.mig.strategy) if self.mig is not None else None,
                "mig_layout": mig_layout_name(self.mig.profile) if self.mig is not None else None}

    # derived, plain values (known at preview) -----------------------------------------
    @property
    def taint_list(self) -> list[Taint]:
        """The pool's taints as :class:`Taint`, in config order."""
        return [t.to_taint() for t in self.taints]

    @property
    def node_labels(self) -> dict[str, str]:
        """All labels the nodes carry: the user's, the GPU label, the pool label; on a Bottlerocket NVIDIA image
        ``nvidia.com/gpu.deploy.<operand>=false`` for each operand the image runs itself (:data:`IMAGE_OWN_OPERANDS`),
        so a GPU Operator in the same cluster keeps its driver, toolkit, device plugin and MIG manager off
        these nodes; with ``gpuSharing`` on
        NVIDIA's plugin ``nvidia.com/device-plugin.config=<config name>`` (so it survives node replacement
        like the taints; k8s-device-plugin README L820-846), and with ``mig`` partitioned by the GPU
        Operator ``nvidia.com/mig.config=<layout>`` (:func:`mig_layout_name`; without it the operator labels
        the node ``all-disabled``: NVIDIA/gpu-operator ``controllers/nodelabeling_controller.go``) and
        ``nvidia.com/device-plugin.config=mig-<strategy>`` (:func:`mig_config_name`: the pool's own
        ``migStrategy``, read per node by the operator's device plugin and GFD), sorted by key."""
        merged = dict(self.labels)
        merged[self.gpu_label.key] = self.gpu_label.value
        merged[POOL_LABEL_KEY] = self.name
        if self.gpu_sharing is not None and self.uses_nvidia_device_plugin:  # selects the plugin's named config
            merged[DEVICE_PLUGIN_CONFIG_LABEL] = self.gpu_sharing.config_name
        if self.mig_by_operator:  # the layout the operator's MIG manager applies, the strategy its plugin uses
            merged[MIG_CONFIG_LABEL] = mig_layout_name(self.mig.profile)
            merged[DEVICE_PLUGIN_CONFIG_LABEL] = mig_config_name(self.mig.strategy)
        if self.image_family == "bottlerocket-nvidia":  # the image runs its own: keep the operator's off
            merged.update({OPERATOR_DEPLOY_PREFIX + operand: "false" for operand in IMAGE_OWN_OPERANDS["bottlerocket-nvidia"]})
        return dict(sorted(merged.items()))

    @property
    def provisioner_counts_shared_gpus(self) -> bool:
        """Whether the pool renders what its node provisioner needs to count shared or partitioned GPUs (a
        karpenter pool's NodeOverlay); False by default. The GPU-agent rules then judge ``gpuSharing``/``mig``
        as on a node group instead of warning that the provisioner cannot see them (``gpu_agents/validate.py``)."""
        return False

    @property
    def mig_by_operator(self) -> bool:
        """Whether the pool's ``mig`` is partitioned by the GPU Operator's MIG manager, so its nodes carry
        ``nvidia.com/mig.config=<layout>``: a ``mig`` on a backend whose registry record says ``mig:
        device-plugin``, on an image that does not partition itself (not Bottlerocket NVIDIA). The stack
        rules refuse such a pool unless ``devicePlugin.provider`` is ``gpu-operator`` (``gpu_agents/mig.py``)."""
        from ..registry import find

        record = find(str(getattr(self, "backend", "")))
        by = record.mig if record is not None else "device-plugin"
        return self.mig is not None and by == "device-plugin" and self.image_family != "bottlerocket-nvidia"

    @property
    def uses_nvidia_device_plugin(self) -> bool:
        """Whether NVIDIA's device plugin chart must serve this pool (backends override)."""
        return True

    # what the GPU agents, the warnings and the plan need of a pool (backends override) ---------
    @property
    def cluster_platform(self) -> str:
        """The Kubernetes platform the pool's nodes join: ``eks`` | ``gke`` | ``self-managed``: the
        backend's ``platform`` in the registry (``self-managed`` for an unregistered one)."""
        from ..registry import find

        record = find(str(getattr(self, "backend", "")))
        return record.platform if record is not None else "self-managed"

    @property
    def joins_eks(self) -> bool:
        """Whether the pool's nodes join an EKS cluster, so the EKS Kubernetes version calendar applies."""
        return self.cluster_platform == "eks"

    @property
    def image_family(self) -> str:
        """The node image family, for the GPU Operator's operand enables: ``al2023-nvidia`` (EKS AL2023
        NVIDIA AMI: driver and container toolkit), ``bottlerocket-nvidia`` (driver, toolkit and NVIDIA's
        device plugin), ``gke`` (GKE's node images and driver installer) or ``other`` (nothing known)."""
        return "other"

    @property
    def critical_pods_need_quota(self) -> bool:
        """Whether the platform admits ``system-node-critical``/``system-cluster-critical`` pods outside ``kube-system``
        only in a namespace with a ResourceQuota scoped to them (GKE: :mod:`gpu_node_pool.gpu_agents.critical_quota`,
        its sources). Default False: Kubernetes limits those classes only where the admission config says so."""
        return False

    @property
    def writes_bottlerocket_settings(self) -> bool:
        """Whether the backend writes this pool's Bottlerocket settings (TOML user data), where
        Bottlerocket's own MIG settings go (``gpu_agents/mig_partitioners.py``). Default False."""
        return False

    @property
    def driver_source(self) -> str:
        """Who installs the NVIDIA driver: ``image`` (the node image), ``platform`` (the platform's
        installer, e.g. GKE's), ``none`` (nobody: the GPU Operator must) or ``unknown``."""
        return "unknown"

    @property
    def device_plugin_source(self) -> str:
        """Who runs a device plugin on the pool's nodes without this component: ``none`` (NVIDIA's
        chart or the GPU Operator must), ``image`` (the node image's own: Bottlerocket NVIDIA, EKS Auto
        Mode) or ``platform`` (the platform's, e.g. GKE's). Default: from :attr:`uses_nvidia_device_plugin`."""
        return "none" if self.uses_nvidia_device_plugin else "image"

    @property
    def gpu_model(self) -> str | None:
        """The GPU model when the config names it (e.g. the GKE accelerator type ``nvidia-l4``), else None."""
        return None

    @property
    def platform_node_labels(self) -> dict[str, str]:
        """Labels the platform itself puts on every node of the pool (the component does not set
        them, so they are not in :attr:`node_labels`), e.g. ``cloud.google.com/gke-accelerator``."""
        return {}

    def config_warnings(self) -> list[tuple[str, str]]:
        """Valid but risky settings, ``[(sub-path under the pool or "", message)]`` (backends override;
        collected by :func:`gpu_node_pool.config.warnings.stack_warnings`)."""
        return []

