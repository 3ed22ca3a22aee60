"""The components every Pulumi language gets, with typed arguments and outputs.

Each class is the Python component of the same name (same type token, same children, same
validation) taking its arguments as the dicts the component provider hands it: the types of
:mod:`.types`. Each validates them through :func:`.inputs.validated` (the stack validator
``GpuNodePoolArgs`` also uses) before anything is registered, and raises :class:`ConfigError` with
argument paths (``pool.eksManaged.instanceTypes``) and the Python path's messages. Outputs are the
class annotations (the analyzer reads them): plain values known at preview, or the provider
resources' outputs.

This module has no ``from __future__ import annotations``: the analyzer reads annotations
without evaluating them, so they must be real types.
"""

from typing import Any, NotRequired, Required, TypedDict

import pulumi

from ..admission import component as admission
from ..component import pool as pool_component
from ..gpu_agents.dcgm_exporter import component as dcgm
from ..gpu_agents.device_plugin import component as device_plugin
from ..gpu_agents.efa_device_plugin import component as efa
from ..gpu_agents.gpu_operator import component as gpu_operator
from ..k8s.taints import TaintEffect
from .inputs import Pools, arguments, stack_mapping, validated
from .types import (
    AdmissionArgs,
    ClusterArgs,
    DevicePluginArgs,
    GpuAgentsArgs,
    PoolArgs,
    TolerationArgs,
    args_type,
)

__all__ = ["COMPONENTS", "DcgmExporter", "EfaDevicePlugin", "GpuAdmissionPolicies", "GpuNodePool", "GpuOperator",
           "NvidiaDevicePlugin", "Toleration"]


class Toleration(TypedDict):
    """A Kubernetes core/v1 Toleration, as a workload or an agent's pod spec carries it."""

    key: NotRequired[str]
    """The taint key; absent with operator Exists: every taint."""
    operator: Required[str]
    """Equal | Exists."""
    value: NotRequired[str]
    """The taint value (operator Equal)."""
    effect: NotRequired[TaintEffect]
    """The taint effect; absent: every effect."""
    toleration_seconds: NotRequired[int]
    """For an evicting taint only: how long a pod stays bound after the taint appears."""


def _pool_items(pools: Any, where: str = "pools") -> Pools:
    return [(p or {}, f"{where}[{i}]") for i, p in enumerate(pools or [])]


# --- GpuNodePool ---------------------------------------------------------------------------


class GpuNodePoolInputs(TypedDict):
    """The arguments of a GpuNodePool."""

    pool: Required[PoolArgs]
    """The pool, as one item of the stack config's pools (the shared fields, backend, and that backend's block)."""
    cluster: Required[ClusterArgs]
    """The cluster the pool joins; its identity fields (name, nodeRoleArn, subnetIds...) may be outputs."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """The node IAM role ARN; overrides cluster.nodeRoleArn."""
    config_path: NotRequired[str]
    """Where the pool is written (pools[1]), shown in policy messages."""


class GpuNodePool(pool_component.GpuNodePool):
    """A GPU node pool whose taints and labels are declared where they survive node replacement.

    The Python component's children, names and checks (see ``gpu_node_pool.component.pool``).
    Raises ConfigError (the provider's construct error) naming the argument path before anything is registered.
    """

    taints: pulumi.Output[list[str]]
    """The pool's taints in kubelet form, key=value:Effect."""
    labels: pulumi.Output[dict[str, str]]
    """Every node label of the pool, by key."""
    workload_tolerations: pulumi.Output[list[Toleration]]
    """The tolerations a GPU workload needs for this pool."""
    workload_node_selector: pulumi.Output[dict[str, str]]
    """The nodeSelector that lands a workload on this pool only."""
    node_group_name: pulumi.Output[str | None]
    """eks-managed: the node group's name."""
    node_group_arn: pulumi.Output[str | None]
    """eks-managed: the node group's ARN."""
    asg_tags: pulumi.Output[dict[str, str]]
    """The Cluster Autoscaler node-template tags (scale from zero)."""
    node_pool_name: pulumi.Output[str | None]
    """gke: the node pool's name."""
    nodepool_name: pulumi.Output[str | None]
    """karpenter and eks-auto: the NodePool's name."""
    bootstrap_format: pulumi.Output[str | None]
    """self-managed: the bootstrap format."""
    bootstrap: pulumi.Output[dict[str, str] | None]
    """self-managed: the bootstrap files, by file name."""
    launch_template_id: pulumi.Output[str | None]
    """self-managed with provider aws: the launch template's id."""
    autoscaling_group_name: pulumi.Output[str | None]
    """self-managed with provider aws: the Auto Scaling group's name."""

    def __init__(self, name: str, args: GpuNodePoolInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        pools = [(args.get("pool") or {}, "pool")]
        with arguments("GpuNodePool", pools):
            mapping = stack_mapping(args.get("cluster") or {}, pools)
            super().__init__(name, pool_component.GpuNodePoolArgs(
                pool=mapping["pools"][0], cluster=mapping["cluster"], config_path=args.get("config_path"),
                node_role_arn=args.get("node_role_arn")), opts)


# --- the GPU agents ------------------------------------------------------------------------


class NvidiaDevicePluginInputs(TypedDict):
    """The arguments of an NvidiaDevicePlugin."""

    cluster: Required[ClusterArgs]
    """The cluster all pools belong to; one plugin per cluster."""
    pools: Required[list[PoolArgs]]
    """The pools the plugin serves (the same objects given to each GpuNodePool)."""
    config: NotRequired[DevicePluginArgs]
    """The stack's devicePlugin settings (namespace, chart version, image digest, extra tolerations)."""
    feature_discovery: NotRequired[bool]
    """Also run GPU Feature Discovery and its NFD worker."""


class NvidiaDevicePlugin(device_plugin.NvidiaDevicePlugin):
    """The NVIDIA device plugin chart, once per cluster, with tolerations and affinity derived from the pools."""

    tolerations: pulumi.Output[list[Toleration]]
    """The derived tolerations of the plugin's DaemonSet."""
    namespace: pulumi.Output[str]
    """The chart's namespace."""

    def __init__(self, name: str, args: NvidiaDevicePluginInputs,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        pools = _pool_items(args.get("pools"))
        with arguments("NvidiaDevicePlugin", pools, {"devicePlugin": "config"}):
            stack = validated(stack_mapping(args.get("cluster") or {}, pools, device_plugin=args.get("config")),
                              "NvidiaDevicePlugin arguments")
            super().__init__(name, device_plugin.NvidiaDevicePluginArgs(
                cluster_name=(args.get("cluster") or {}).get("name"), pools=list(stack.pools),
                config=stack.device_plugin, feature_discovery=bool(args.get("feature_discovery"))), opts)
        self.namespace = stack.device_plugin.namespace


class GpuOperatorInputs(TypedDict):
    """The arguments of a GpuOperator."""

    cluster: Required[ClusterArgs]
    """The cluster all pools belong to; one operator per cluster."""
    pools: Required[list[PoolArgs]]
    """The pools the operator serves."""
    gpu_agents: NotRequired[GpuAgentsArgs]
    """The stack's gpuAgents (DCGM exporter, feature discovery), mapped to the operands."""
    device_plugin: NotRequired[DevicePluginArgs]
    """The stack's devicePlugin (provider gpu-operator; its extraTolerations reach the operands)."""
    namespace: NotRequired[str]
    """Where the chart is installed (default gpu-operator)."""
    version: NotRequired[str]
    """The chart version."""


class GpuOperator(gpu_operator.GpuOperator):
    """NVIDIA's GPU Operator chart, once per cluster, with operand tolerations derived from the pools."""

    tolerations: pulumi.Output[list[Toleration]]
    """The operands' derived tolerations."""
    namespace: pulumi.Output[str]
    """The chart's namespace."""

    def __init__(self, name: str, args: GpuOperatorInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        pools = _pool_items(args.get("pools"))
        plugin = {"provider": "gpu-operator", **(args.get("device_plugin") or {})}
        with arguments("GpuOperator", pools, {"devicePlugin": "devicePlugin", "gpuAgents": "gpuAgents"}):
            stack = validated(stack_mapping(args.get("cluster") or {}, pools, device_plugin=plugin,
                                            gpu_agents=args.get("gpu_agents")), "GpuOperator arguments")
            extra = {k: args[k] for k in ("namespace", "version") if args.get(k) is not None}
            super().__init__(name, gpu_operator.GpuOperatorArgs(
                cluster_name=(args.get("cluster") or {}).get("name"), pools=list(stack.pools), agents=stack.gpu_agents,
                config=stack.device_plugin, **extra), opts)
        self.namespace = extra.get("namespace", gpu_operator.render.NAMESPACE)


class DcgmExporterInputs(TypedDict):
    """The arguments of a DcgmExporter."""

    cluster: Required[ClusterArgs]
    """The cluster all pools belong to; one exporter per cluster."""
    pools: Required[list[PoolArgs]]
    """The pools: every GPU pool gets the exporter."""
    config: NotRequired[args_type(dcgm.DcgmExporterConfig)]  # type: ignore[valid-type]
    """The stack's gpuAgents.dcgmExporter (namespace, chart version, repository)."""
    extra_tolerations: NotRequired[list[TolerationArgs]]
    """Tolerations for taints of nodes outside the stack."""


def _agent_stack(component: str, args: Any, pools: Pools, agent: str) -> Any:
    """The validated stack of a DCGM or EFA exporter's arguments (its ``config`` is ``gpuAgents.<agent>``)."""
    agents = {agent: {"enabled": True, **(args.get("config") or {})}}
    plugin = {"extra_tolerations": args["extra_tolerations"]} if args.get("extra_tolerations") else None
    return validated(stack_mapping(args.get("cluster") or {}, pools, gpu_agents=agents, device_plugin=plugin),
                     f"{component} arguments")


class DcgmExporter(dcgm.DcgmExporter):
    """NVIDIA's standalone DCGM exporter chart, once per cluster, on every GPU pool."""

    tolerations: pulumi.Output[list[Toleration]]
    """The exporter's derived tolerations."""
    namespace: pulumi.Output[str]
    """The chart's namespace."""

    def __init__(self, name: str, args: DcgmExporterInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        pools = _pool_items(args.get("pools"))
        with arguments("DcgmExporter", pools, {"gpuAgents.dcgmExporter": "config",
                                               "devicePlugin.extraTolerations": "extraTolerations"}):
            stack = _agent_stack("DcgmExporter", args, pools, "dcgm_exporter")
            config = stack.gpu_agents.dcgm_exporter
            super().__init__(name, dcgm.DcgmExporterArgs(
                cluster_name=(args.get("cluster") or {}).get("name"), pools=list(stack.pools), config=config,
                extra_tolerations=[t.to_toleration() for t in stack.device_plugin.extra_tolerations]), opts)
        self.namespace = config.namespace


class EfaDevicePluginInputs(TypedDict):
    """The arguments of an EfaDevicePlugin."""

    cluster: Required[ClusterArgs]
    """The cluster all pools belong to; one plugin per cluster."""
    pools: Required[list[PoolArgs]]
    """The pools; those with efa.enabled are served."""
    config: NotRequired[args_type(efa.EfaDevicePluginConfig)]  # type: ignore[valid-type]
    """The stack's gpuAgents.efaDevicePlugin (namespace, chart version, repository)."""
    extra_tolerations: NotRequired[list[TolerationArgs]]
    """Tolerations for taints of nodes outside the stack."""


class EfaDevicePlugin(efa.EfaDevicePlugin):
    """The AWS EFA device plugin chart, once per cluster, on the EFA pools."""

    tolerations: pulumi.Output[list[Toleration]]
    """The plugin's derived tolerations."""
    namespace: pulumi.Output[str]
    """The chart's namespace."""

    def __init__(self, name: str, args: EfaDevicePluginInputs, opts: pulumi.ResourceOptions | None = None) -> None:
        pools = _pool_items(args.get("pools"))
        with arguments("EfaDevicePlugin", pools, {"gpuAgents.efaDevicePlugin": "config",
                                                  "devicePlugin.extraTolerations": "extraTolerations"}):
            stack = _agent_stack("EfaDevicePlugin", args, pools, "efa_device_plugin")
            config = stack.gpu_agents.efa_device_plugin
            super().__init__(name, efa.EfaDevicePluginArgs(
                cluster_name=(args.get("cluster") or {}).get("name"), pools=list(stack.pools), config=config,
                extra_tolerations=[t.to_toleration() for t in stack.device_plugin.extra_tolerations]), opts)
        self.namespace = config.namespace


# --- admission -----------------------------------------------------------------------------


class GpuAdmissionPoliciesInputs(TypedDict):
    """The arguments of GpuAdmissionPolicies."""

    cluster: Required[ClusterArgs]
    """The cluster the policies are installed in."""
    pools: Required[list[PoolArgs]]
    """The pools whose taints the policies protect."""
    admission: NotRequired[AdmissionArgs]
    """The stack's admission settings (engine validating-admission-policy | gatekeeper, action audit | warn | deny,
    exemptions)."""


class GpuAdmissionPolicies(admission.GpuAdmissionPolicies):
    """ValidatingAdmissionPolicies and bindings (or Gatekeeper ConstraintTemplates and Constraints) that make the
    cluster enforce the pack's rules."""

    actions: pulumi.Output[dict[str, list[str]]]
    """Rule name -> its binding's validationActions, or [enforcementAction] of its Gatekeeper Constraint."""

    def __init__(self, name: str, args: GpuAdmissionPoliciesInputs,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        pools = _pool_items(args.get("pools"))
        with arguments("GpuAdmissionPolicies", pools, {"admission": "admission"}):
            stack = validated(stack_mapping(args.get("cluster") or {}, pools, admission=args.get("admission")),
                              "GpuAdmissionPolicies arguments")
        super().__init__(name, stack, opts)


#: What the package serves, in the order of the schema's resources.
COMPONENTS: list[type[pulumi.ComponentResource]] = [
    GpuNodePool, NvidiaDevicePlugin, GpuOperator, DcgmExporter, EfaDevicePlugin, GpuAdmissionPolicies,
]
