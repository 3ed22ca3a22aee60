"""The whole stack config: cluster, device plugin and the pools, whose models come from the backend registry."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, Union
from urllib.parse import urlsplit

from pydantic import (
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    TypeAdapter,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from ..k8s.names import DNS1123_LABEL_RE
from ..sdk.identity import IDENTITY_FIELDS
from ..text.listing import listed
from .admission import AdmissionConfig, admission_issues
from .agents import GpuAgentsConfig, operator_unused_issues
from .chart_repository import ChartRepository, url_text_problem
from .chart_versions import pinned_chart_version
from .common import Model, PoolBase, TolerationConfig, fail
from .errors import ConfigIssue
from .limits import LimitsConfig, aws_id_problem, eks_version_problem
from .messages import show

# --- cluster and device plugin ----------------------------------------------------------


class ClusterConfig(Model):
    """The Kubernetes cluster the pools join.

    From the stack config every value is plain. In a program, ``GpuNodePoolArgs`` may give the
    identity fields (``name``, ``nodeRoleArn``, ``subnetIds``, ``project``, ``location``,
    ``apiServerEndpoint``, ``certificateAuthority``, ``serviceCidr``) as Pulumi Inputs: those are
    carried beside this model in a ``gpu_node_pool.sdk.cluster_inputs.ClusterIdentity``. Validated
    with the context ``{IDENTITY_INPUTS: {field, ...}}``, the named fields are not judged: they are
    ``None`` here and listed in :attr:`not_judged`; rules test their presence with :meth:`given`.
    The model never holds an Output.
    """

    yaml_example: ClassVar[str] = "{name: ml-dev, nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node, subnetIds: [subnet-0a1b2c3d4e5f60718]}"

    name: str = Field(pattern=r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$", description="Cluster name; GKE: <= 40, lower-case.")
    node_role_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/[!-~]+$", description="Default node IAM role ARN."
    )
    subnet_ids: list[str] | None = Field(None, min_length=1, description="Default subnets for node groups, e.g. [subnet-0a1b2c3d4e5f60718].")
    kubernetes_version: str | None = Field(None, pattern=r"^1\.[0-9]{2}$", description="e.g. '1.33' (quote it).")
    cluster_security_group_id: str | None = Field(
        None,
        pattern=r"^sg-[0-9a-f]+$",
        description="EKS: the cluster security group EKS created (aws eks describe-cluster --query "
        "cluster.resourcesVpcConfig.clusterSecurityGroupId); it already allows all inbound traffic from itself, "
        "so an EFA pool on it gets only the self egress rule.",
    )
    karpenter_version: str | None = Field(
        None,
        # at most 6 digits a part: the versions are compared as integers (Karpenter's releases are v1.x,
        # https://github.com/aws/karpenter-provider-aws/releases), and Python refuses int() of 4300 digits
        pattern=r"^v?[0-9]{1,6}\.[0-9]{1,6}(\.[0-9]{1,6})?$",
        description="Karpenter: the installed Karpenter release, e.g. '1.11' or 'v1.11.2' (quote it); fields that "
        "need a newer Karpenter are refused below it and warned about while unset.",
    )
    auto_mode_built_in_node_pools: bool | None = Field(
        None,
        description="EKS Auto Mode: whether the cluster's built-in node pools (general-purpose, system) are enabled; "
        "EKS provisions the built-in 'default' NodeClass only while one is. false refuses pools on 'default'.",
    )
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
    admission_plugins: list[str] | None = Field(
        None,
        description="Self-managed/kubeadm clusters: the API server's enabled admission plugins that change what pods "
        "tolerate, e.g. [ExtendedResourceToleration] (on by default on EKS and GKE). Policies use it for effective "
        "tolerations.",
    )
    ca_cert_hashes: list[str] | None = Field(
        None,
        min_length=1,
        description="kubeadm: discovery CA public key hashes 'sha256:<64 hex>' (kubeadm token create "
        "--print-join-command prints one).",
    )

    _not_judged: frozenset[str] = PrivateAttr(default=frozenset())

    @field_validator("subnet_ids")
    @classmethod
    def _subnet_ids(cls, ids: list[str] | None) -> list[str] | None:
        problem = aws_id_problem("subnet", ids if isinstance(ids, list) else None)
        if problem:
            raise fail(problem)
        return ids

    @field_validator("api_server_endpoint")
    @classmethod
    def _endpoint(cls, url: str | None) -> str | None:
        if url is None:
            return url
        example = "e.g. https://10.0.0.10:6443 (EKS: the cluster's endpoint from DescribeCluster)"
        problem = url_text_problem(url, example)
        if problem:
            raise fail(problem)
        parts = urlsplit(url)
        try:
            port = parts.port  # urllib reads the port only on access: '6443x' or 99999 raise here
        except ValueError:
            raise fail(f"{show(url)} has a port that is not a number in 1-65535; {example}") from None
        if port == 0:
            raise fail(f"{show(url)} has port 0; the API server listens on a port in 1-65535, {example}")
        if (parts.scheme != "https" or not parts.hostname or parts.path not in ("", "/") or parts.query
                or parts.fragment or "@" in parts.netloc):
            raise fail(f"{show(url)} must be an https URL of the API server with no path, query or user, {example}")
        return url

    @field_validator("certificate_authority")
    @classmethod
    def _ca(cls, data: str | None) -> str | None:
        if data is None:
            return data
        fix = "give the base64 encoding of the PEM CA bundle (EKS certificateAuthority.data, or base64 -w0 ca.crt)"
        if "-----BEGIN" in data:
            raise fail(f"is the PEM text itself; {fix}")
        try:
            pem = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise fail(f"is not base64 (only A-Z a-z 0-9 + / and = padding, no spaces or line breaks); {fix}") from None
        if b"-----BEGIN CERTIFICATE-----" not in pem:
            raise fail(f"is base64, but of no PEM certificate (no -----BEGIN CERTIFICATE----- line inside); {fix}")
        return data

    @field_validator("service_cidr")
    @classmethod
    def _cidr(cls, cidr: str | None) -> str | None:
        if cidr is None:
            return cidr
        try:
            ipaddress.ip_network(cidr)
        except ValueError as err:
            raise fail(f"{cidr!r} is not a CIDR ({err}); e.g. 10.100.0.0/16") from None
        return cidr

    @field_validator("ca_cert_hashes")
    @classmethod
    def _hashes(cls, hashes: list[str] | None) -> list[str] | None:
        bad = [h for h in hashes or [] if not re.fullmatch(r"sha256:[0-9a-f]{64}", h)]
        if bad:
            raise fail(f"{listed(bad, quote=True)} must be 'sha256:' and 64 lower-case hex digits, as kubeadm prints them")
        return hashes

    # Defined after the field validators above, so it wraps them: a field given as an Input is
    # left out (None) without being judged by its type, pattern or validator.
    @field_validator(*IDENTITY_FIELDS, mode="wrap")
    @classmethod
    def _identity_input(cls, value: Any, handler: Any, info: ValidationInfo) -> Any:
        if info.field_name in _identity_inputs(info):
            return None
        return handler(value)

    @model_validator(mode="after")
    def _record_not_judged(self, info: ValidationInfo) -> ClusterConfig:
        self._not_judged = frozenset(_identity_inputs(info))
        return self

    @property
    def not_judged(self) -> tuple[str, ...]:
        """The identity keys (camelCase, e.g. ``("name", "subnetIds")``) given as Pulumi Inputs and
        so not judged: ``None`` on this model, their values in the ``ClusterIdentity`` beside it."""
        not_judged = self._not_judged  # a private attribute: read through pydantic's __getattr__, once
        return tuple(to_camel(f) for f in IDENTITY_FIELDS if f in not_judged)

    def given(self, field: str) -> bool:
        """True when the identity or settings ``field`` (snake_case) has a value, plain or an
        Input that was not judged (:attr:`not_judged`)."""
        return bool(getattr(self, field)) or field in self._not_judged


#: Validation-context key: the identity fields (snake_case) given as Inputs, left unjudged.
IDENTITY_INPUTS = "gpu-node-pools:identity-inputs"


#: Validation-context key: the stack's ``aws:region`` (the AWS provider's region), when the stack sets
#: it in plain text; the rules that need the region accept what they cannot place without it.
AWS_REGION = "aws:region"


#: Validation-context key: True when the GPU agents are components of their own, declared apart from the pools
#: (a program's ``GpuNodePool``): the rules that need the device plugin's provider are judged by the agent
#: component that serves the pool (:func:`gpu_node_pool.gpu_agents.validate.served_pool_issues`), not here.
AGENTS_APART = "gpu-node-pools:agents-apart"


def context_aws_region(info: ValidationInfo) -> str | None:
    """The stack's ``aws:region`` from the validation context, or None when the stack does not set it."""
    context = info.context
    region = context.get(AWS_REGION) if isinstance(context, Mapping) else None
    return region if isinstance(region, str) and region else None


def _identity_inputs(info: ValidationInfo) -> frozenset[str]:
    context = info.context
    return frozenset(context.get(IDENTITY_INPUTS, ())) if isinstance(context, Mapping) else frozenset()


#: The nvidia-device-plugin chart version whose values and DaemonSet the component writes and the plan models
#: (``gpu_node_pool.gpu_agents.device_plugin.values.CHART_VERSION``); ``v0.20.0`` is read as it
#: (:func:`.chart_versions.pinned_chart_version`).
_DEVICE_PLUGIN_CHART = "0.20.0"
_DevicePluginChartVersion = pinned_chart_version(
    "nvidia-device-plugin", _DEVICE_PLUGIN_CHART,
    writes=f"tolerations, affinity, priorityClassName, image tag v{_DEVICE_PLUGIN_CHART}, the time-slicing/MPS config "
    "map, gfd and nfd",
    source=f"NVIDIA/k8s-device-plugin@v{_DEVICE_PLUGIN_CHART} deployments/helm/nvidia-device-plugin",
    enabled_key="devicePlugin.enabled", judged_by="device-plugin-covers-gpu-pools",
)


class DevicePluginConfig(Model):
    """The NVIDIA device plugin chart, installed once per cluster for every pool that needs it."""

    enabled: bool = True
    provider: Literal["nvidia-device-plugin", "gpu-operator"] = Field(
        "nvidia-device-plugin",
        description="nvidia-device-plugin (NVIDIA's standalone chart) | gpu-operator (the GPU Operator runs the plugin "
        "and the other agents as its operands).",
    )
    namespace: str = Field("nvidia-device-plugin", pattern=DNS1123_LABEL_RE.pattern)
    chart_version: _DevicePluginChartVersion = _DEVICE_PLUGIN_CHART  # type: ignore[valid-type]
    repository: ChartRepository = "https://nvidia.github.io/k8s-device-plugin"
    image_digest: str | None = Field(None, pattern=r"^sha256:[0-9a-f]{64}$")
    extra_tolerations: list[TolerationConfig] = Field(
        default_factory=list, description="Tolerations for taints of nodes outside this stack."
    )

    @field_validator("namespace")
    @classmethod
    def _ns(cls, ns: str) -> str:
        if ns == "default":
            raise fail(
                "'default': the chart refuses to install into the default namespace unless its value "
                "allowDefaultNamespace is true (NVIDIA/k8s-device-plugin@v0.20.0 deployments/helm/nvidia-device-plugin/"
                "templates/validation.yml), which the component does not set: a node agent does not belong in the "
                "namespace of the cluster's workloads; use e.g. nvidia-device-plugin"
            )
        return ns


class StackConfig(Model):
    """The whole stack config (``gpu-node-pools:cluster``, ``:pools``, ``:devicePlugin``).

    ``pools`` holds one model per pool, of the backend its ``backend:`` key names; the union
    is built from the backend registry (:func:`stack_model`), so validate with
    :func:`gpu_node_pool.config.validate_stack_config`, which also runs the stack-level rules
    (:func:`stack_issues`).
    """

    cluster: ClusterConfig
    pools: list[PoolBase] = Field(min_length=1)
    device_plugin: DevicePluginConfig = Field(default_factory=DevicePluginConfig)
    gpu_agents: GpuAgentsConfig = Field(default_factory=GpuAgentsConfig)
    limits: LimitsConfig = Field(
        default_factory=LimitsConfig, description="Your account's applied quotas; silence the quota warnings."
    )
    admission: AdmissionConfig = Field(
        default_factory=AdmissionConfig,
        description="ValidatingAdmissionPolicies rendered from the pools (Kubernetes >= 1.30); off by default.",
    )

    _agents_apart: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _record_agents_apart(self, info: ValidationInfo) -> StackConfig:
        context = info.context
        self._agents_apart = bool(context.get(AGENTS_APART)) if isinstance(context, Mapping) else False
        return self

    @property
    def agents_apart(self) -> bool:
        """True when the GPU agents are declared apart from the pools (a program's ``GpuNodePool``, validated as a
        one-pool stack): ``device_plugin`` is then not the agent that serves them, and the rules that need it
        are left to that agent's component (:data:`AGENTS_APART`)."""
        return self._agents_apart


def _backend_tag(value: Any) -> Any:
    return value.get("backend") if isinstance(value, Mapping) else getattr(value, "backend", None)


_MODELS: dict[tuple[int, tuple[str, ...] | None], type[StackConfig]] = {}


def pool_union(backends: tuple[str, ...] | None = None) -> Any:
    """The discriminated union of the pool models of ``backends`` (registered names; default: every
    registered backend), tagged by ``backend``."""
    from ..registry import all_backends

    members = tuple(Annotated[b.model(), Tag(b.name)] for b in all_backends() if backends is None or b.name in backends)
    return Annotated[Union[members], Discriminator(_backend_tag)]  # noqa: UP007 - a runtime-built union


def stack_model(backends: tuple[str, ...] | None = None) -> type[StackConfig]:
    """The :class:`StackConfig` subclass whose ``pools`` accept the pools of ``backends`` (registered
    names; default: every registered backend), built once per registry version and set of backends.

    A stack whose pools all name registered backends validates the same with the model of just those
    (a pool is checked by its own backend's model either way), and building the validators of the
    others is most of a small stack's validation: :func:`used_backends`."""
    from .. import registry

    key = (registry.version(), backends)
    model = _MODELS.get(key)
    if model is None:
        if any(k[0] != key[0] for k in _MODELS):
            _MODELS.clear()  # built from an older registry
        model = _MODELS[key] = create_model(
            "StackConfig",
            __base__=StackConfig,
            __module__=__name__,
            pools=(list[pool_union(backends)], Field(min_length=1)),  # type: ignore[valid-type]
        )
    return model


def used_backends(raw: Any) -> tuple[str, ...] | None:
    """The registered backends the pools of a raw stack config name, in registration order, or None
    (every backend) unless ``pools`` is a list of mappings whose ``backend`` each names one: a missing
    or unknown backend is reported against the whole registry."""
    from .. import registry

    pools = raw.get("pools") if isinstance(raw, Mapping) else None
    if not isinstance(pools, list) or not pools:
        return None
    known = registry.names()
    named = [p.get("backend") if isinstance(p, Mapping) else None for p in pools]
    if not all(isinstance(n, str) and n in known for n in named):
        return None
    return tuple(n for n in known if n in named)


def _stack_checks(stack: StackConfig) -> list[Any]:
    """The stack-level rules, in report order: the ``stack_checks`` of each backend the stack's pools
    use (a backend's checks judge its own pools), then the registry's
    :data:`~gpu_node_pool.registry.STACK_RULES` (the GPU agents')."""
    from ..registry import stack_rules

    return stack_rules({getattr(p, "backend", None) for p in stack.pools})


def _unique_names(stack: StackConfig) -> list[ConfigIssue]:
    return _name_clashes([getattr(pool, "name", None) for pool in stack.pools])


def _name_clashes(names: list[Any]) -> list[ConfigIssue]:
    """One issue per pool whose ``name`` (a text; any other value is skipped) an earlier pool already has."""
    issues: list[ConfigIssue] = []
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        if not isinstance(name, str):
            continue
        if name in first:
            issues.append(ConfigIssue(f"pools[{i}].name", f"{name!r} is already used by pools[{first[name]}]; names must be unique"))
        first.setdefault(name, i)
    return issues


def stack_issues(stack: StackConfig) -> list[ConfigIssue]:
    """Rules across the stack, as :class:`ConfigIssue` objects: unique pool names, then each
    backend's ``stack_checks`` (cluster keys its pools need, shared names, no mixing), then the
    registry's other stack rules (the GPU agents': gpuSharing, mig, devicePlugin, gpuAgents)."""
    from .tolerations import numeric_toleration_issues

    issues = _unique_names(stack) + _eks_version_issues(stack) + admission_issues(stack) + numeric_toleration_issues(stack)
    issues += operator_unused_issues(stack)  # gpuAgents settings the GPU Operator never reads
    for check in _stack_checks(stack):
        issues += check(stack)
    return issues


def _eks_version_issues(stack: StackConfig) -> list[ConfigIssue]:
    """``cluster.kubernetesVersion`` no EKS cluster runs (:func:`~.limits.eks_version_problem`), when a pool is on EKS."""
    cluster = getattr(stack, "cluster", None)
    version, name = getattr(cluster, "kubernetes_version", None), getattr(cluster, "name", None)
    on_eks = any(getattr(p, "cluster_platform", None) == "eks" for p in getattr(stack, "pools", None) or ())
    problem = eks_version_problem(version, name if isinstance(name, str) and name else "<cluster>") if version and on_eks else None
    return [ConfigIssue("cluster.kubernetesVersion", problem)] if problem else []


def _stand_in(model: type[Model], raw: Any, context: Mapping[str, Any] | None = None) -> Any:
    """``model`` validated from ``raw`` if it passes; else a stand-in (``model_construct``) holding every field
    that is valid on its own (type, pattern, literal, nested model), the default for the others (None when
    required). Model-level rules are not run on a stand-in: it only lets the stack rules look at the rest.
    ``context``: the validation context (:data:`IDENTITY_INPUTS`: fields left unjudged, None on the stand-in)."""
    return _judged(model, raw, context)[0]


def _judged(model: type[Model], raw: Any, context: Mapping[str, Any] | None = None) -> tuple[Any, bool]:
    """``(model validated from raw, True)``, or ``(its stand-in, False)`` when ``raw`` fails (:func:`_stand_in`)."""
    if not isinstance(raw, Mapping):
        return None, False
    try:
        return model.model_validate(raw, context=context), True
    except ValueError:
        pass
    inputs = frozenset((context or {}).get(IDENTITY_INPUTS, ())) if model is ClusterConfig else frozenset()
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        value = None if info.is_required() else info.get_default(call_default_factory=True)
        if key in raw and name not in inputs:
            try:
                value = TypeAdapter(info.rebuild_annotation()).validate_python(raw[key], strict=True)
            except (ValueError, TypeError):
                pass
        values[name] = value
    out = model.model_construct(**values)
    if inputs:
        out._not_judged = inputs
    return out, False


def partial_stack_issues(raw: Any, context: Mapping[str, Any] | None = None) -> list[ConfigIssue]:
    """The stack rules that can still run on a config that failed validation, so one run reports every mistake.

    Unique pool names are judged on the names as written, whatever else is wrong with the pools. Each pool and
    the cluster are then validated on their own; one that fails becomes a stand-in of its valid fields
    (:func:`_stand_in`), and the stack-level rules (:func:`stack_issues`) run on them: e.g. a self-managed pool
    missing ``securityGroupIds`` still gets the cluster keys its bootstrap needs reported. A rule that cannot
    judge a stand-in (it needs a field that is invalid) is not run, and a note
    (:attr:`ConfigIssue.not_judged`) at ``pools``, after every mistake, names those rules and the refused
    parts they read (the cluster, pools by index). Only the name rule runs when the cluster or the pool list
    is not a mapping/list, or a pool names no known backend (the pools' models are unknown). ``context``: the validation context of
    :func:`gpu_node_pool.config.validate_stack_config`.
    """
    from ..registry import all_backends

    if not isinstance(raw, Mapping):
        return []
    pools_raw = raw.get("pools")
    if not isinstance(pools_raw, list) or not pools_raw:
        return []
    issues = _name_clashes([p.get("name") if isinstance(p, Mapping) else None for p in pools_raw])
    backends = all_backends()
    models = {b.name: b.model() for b in backends}
    if not all(isinstance(p, Mapping) and isinstance(p.get("backend"), str) and p.get("backend") in models for p in pools_raw):
        return issues
    cluster, cluster_valid = _judged(ClusterConfig, raw.get("cluster"), context)
    if cluster is None:
        return issues
    judged = [_judged(models[p["backend"]], p) for p in pools_raw]
    pools = [pool for pool, _ in judged]
    refused = [i for i, (_, valid) in enumerate(judged) if not valid]
    parts = {
        "device_plugin": _stand_in(DevicePluginConfig, raw.get("devicePlugin", {})) or DevicePluginConfig(),
        "gpu_agents": _stand_in(GpuAgentsConfig, raw.get("gpuAgents", {})) or GpuAgentsConfig(),
        "limits": _stand_in(LimitsConfig, raw.get("limits", {})) or LimitsConfig(),
    }
    stack = StackConfig.model_construct(cluster=cluster, pools=pools, **parts)
    issues += operator_unused_issues(stack)
    owners = {id(fn): b.name for b in backends if (fn := b.fn("stack_checks")) is not None}
    notes = []
    for check in _stack_checks(stack):
        try:
            issues += check(stack)
        except Exception:  # noqa: BLE001 - a rule that needs a field the user has yet to fix
            backend = owners.get(id(check))
            read = [f"pools[{i}]" for i in refused if backend is None or pools_raw[i]["backend"] == backend]
            notes.append(_not_run_note(backend, read if cluster_valid else ["cluster", *read]))
    return issues + notes


def _not_run_note(backend: str | None, refused: list[str]) -> ConfigIssue:
    """The note that the stack rules of ``backend`` (None: the GPU agents' rules) were not run, as they read the
    ``refused`` parts of the config (``cluster``, ``pools[3]``), whose mistakes are reported with it."""
    rules = (f"the {backend} stack rules (what its pools need of the cluster and of each other)" if backend else
             "the GPU-agent stack rules (gpuSharing, mig, devicePlugin, gpuAgents across the pools)")
    which = ", ".join(refused) or "the pools"
    return ConfigIssue("pools", f"{rules} were not run: they read {which}, whose errors are listed with this note; "
                                "run again after fixing them", not_judged=True)
