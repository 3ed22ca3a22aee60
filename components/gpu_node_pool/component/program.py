"""The Pulumi program behind ``__main__.py``: read and validate the stack config, then build.

Kept in the package so that ``pulumi up`` (through the thin ``__main__.py``), the offline
plan and the tests run exactly the same code.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import pulumi

from ..config import PROJECT, ConfigError

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["STACK_CONFIG_SOURCE", "runtime_config", "read_stack_config", "build", "install_gpu_agents", "main"]

#: How a ConfigError about the stack config names its source: ``config of stack 'dev'``.
STACK_CONFIG_SOURCE = "config of stack "


def runtime_config() -> dict[str, Any]:
    """Every config key the Pulumi runtime holds (``PULUMI_CONFIG`` and explicitly set keys)."""
    from pulumi.runtime import config as rc

    merged: dict[str, Any] = dict(rc.get_config_env() or {})
    merged.update(rc.CONFIG.get())
    return merged


#: ``(raw config, StackConfig)`` that ``gpupool plan`` validated before running the program under
#: mocks (:func:`validated_by_the_plan`): the program takes it instead of validating the same config
#: a second time. Outside the plan (``pulumi up``/``preview``) it is unset.
_VALIDATED: ContextVar[tuple[dict[str, Any], StackConfig] | None] = ContextVar("gpupool_validated", default=None)


@contextmanager
def validated_by_the_plan(raw: dict[str, Any], stack: StackConfig) -> Iterator[None]:
    """While the plan runs the program: :func:`read_stack_config` returns ``stack`` when the runtime
    config equals ``raw`` (any other config is validated as usual)."""
    token = _VALIDATED.set((raw, stack))
    try:
        yield
    finally:
        _VALIDATED.reset(token)


def read_stack_config() -> StackConfig:
    """Validate the stack's config. Raises :class:`ConfigError` listing every mistake."""
    from pulumi.runtime import config as rc

    from ..config.loading import load_stack_config  # pydantic and the models: loaded to validate, not at import

    config = runtime_config()
    handed = _VALIDATED.get()
    if handed is not None and handed[0] == config:
        return handed[1]
    return load_stack_config(config, f"{STACK_CONFIG_SOURCE}{pulumi.get_stack()!r}", rc.is_config_secret)


def build(stack: StackConfig) -> dict[str, Any]:
    """Register the pools and the device plugin for a validated stack; returns them by name."""
    from ..gpu_agents.device_plugin import NvidiaDevicePlugin, NvidiaDevicePluginArgs
    from .pool import GpuNodePool, GpuNodePoolArgs

    k8s_opts = None
    kubeconfig = pulumi.Config(PROJECT).get_secret("kubeconfig")
    if kubeconfig is not None:
        from ..sdk.provider_sdk import provider_sdk

        k8s = provider_sdk("pulumi_kubernetes", "the stack program's Kubernetes provider")

        provider = k8s.Provider(f"{stack.cluster.name}-k8s", kubeconfig=kubeconfig)
        k8s_opts = pulumi.ResourceOptions(providers={"kubernetes": provider})

    # The kubernetes provider reaches the Karpenter NodePool/EC2NodeClass children too.
    pools = {
        p.name: GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=stack.cluster, config_path=f"pools[{i}]",
                                                     limits=stack.limits), opts=k8s_opts)
        for i, p in enumerate(stack.pools)
    }
    plugin = None
    served = [p.spec for p in pools.values() if p.spec.uses_nvidia_device_plugin]
    # provider gpu-operator: the operator runs the plugin; never a second (standalone) one beside it
    if stack.device_plugin.enabled and served and stack.device_plugin.provider == "nvidia-device-plugin":
        plugin = NvidiaDevicePlugin(
            "nvidia-device-plugin",
            NvidiaDevicePluginArgs(cluster_name=stack.cluster.name, pools=served, config=stack.device_plugin,
                                   feature_discovery=stack.gpu_agents.feature_discovery.enabled),
            opts=k8s_opts,
        )
    agents = install_gpu_agents(stack, [p.spec for p in pools.values()], k8s_opts)  # GPU Operator / DCGM / EFA
    admission = None
    if stack.admission.enabled:  # the cluster enforces the pack's rules for what never passes through preview
        from ..admission.component import GpuAdmissionPolicies

        admission = GpuAdmissionPolicies("gpu-admission-policies", stack, opts=k8s_opts)
        pulumi.export("admission.actions", admission.actions)
    for name, pool in pools.items():
        pulumi.export(f"{name}.taints", pool.taints)
        pulumi.export(f"{name}.labels", pool.labels)
        pulumi.export(f"{name}.workloadTolerations", pool.workload_tolerations)
        pulumi.export(f"{name}.workloadNodeSelector", pool.workload_node_selector)
        for key, value in pool.exports.items():  # what the pool's backend exports (its registry wiring)
            pulumi.export(f"{name}.{key}", value)
    if plugin is not None:
        pulumi.export("devicePlugin.tolerations", plugin.tolerations)
    return {"pools": pools, "device_plugin": plugin, "admission": admission, **agents}


def install_gpu_agents(stack: StackConfig, specs: list[Any], opts: pulumi.ResourceOptions | None) -> dict[str, Any]:
    """The GPU Operator (``devicePlugin.provider: gpu-operator``) or, with the standalone plugin, the DCGM
    exporter (``gpuAgents.dcgmExporter.enabled``), and the EFA device plugin for EFA pools
    (:func:`gpu_node_pool.gpu_agents.installed.installed_agents` decides which), and GKE's driver installer for GKE
    pools with ``gpuDriverVersion: INSTALLATION_DISABLED`` (``gpuAgents.gkeDriverInstaller.enabled``); returns them as
    ``{"gpu_operator": ..., "dcgm_exporter": ..., "efa_device_plugin": ..., "gke_driver_installer": ...}`` (None when
    not installed)."""
    from ..gpu_agents import (
        DcgmExporter,
        DcgmExporterArgs,
        EfaDevicePlugin,
        EfaDevicePluginArgs,
        GpuOperator,
        GpuOperatorArgs,
    )
    from ..gpu_agents.installed import installed_agents

    out: dict[str, Any] = {"gpu_operator": None, "dcgm_exporter": None, "efa_device_plugin": None}
    wanted = {a.key for a in installed_agents(stack)}
    name = stack.cluster.name
    extra = [t.to_toleration() for t in stack.device_plugin.extra_tolerations]
    if "gpu_operator" in wanted:
        out["gpu_operator"] = GpuOperator("gpu-operator", GpuOperatorArgs(
            cluster_name=name, pools=specs, agents=stack.gpu_agents, config=stack.device_plugin), opts=opts)
        pulumi.export("gpuOperator.tolerations", out["gpu_operator"].tolerations)
    if "dcgm_exporter" in wanted:
        out["dcgm_exporter"] = DcgmExporter("dcgm-exporter", DcgmExporterArgs(
            cluster_name=name, pools=specs, config=stack.gpu_agents.dcgm_exporter, extra_tolerations=extra), opts=opts)
        pulumi.export("dcgmExporter.tolerations", out["dcgm_exporter"].tolerations)
    if "efa_device_plugin" in wanted:
        out["efa_device_plugin"] = EfaDevicePlugin("efa-device-plugin", EfaDevicePluginArgs(
            cluster_name=name, pools=specs, config=stack.gpu_agents.efa_device_plugin, extra_tolerations=extra), opts=opts)
        pulumi.export("efaDevicePlugin.tolerations", out["efa_device_plugin"].tolerations)
    out["gke_driver_installer"] = _gke_driver_installer(stack, specs, extra, opts)
    return out


def _gke_driver_installer(stack: StackConfig, specs: list[Any], extra: list[Any],
                          opts: pulumi.ResourceOptions | None) -> Any:
    """GKE's driver installer DaemonSet (``gpuAgents.gkeDriverInstaller.enabled``) when a pool has no driver installed
    by anyone on GKE's node image (:func:`gpu_node_pool.gpu_agents.gke_driver_installer.values.installer_pools`); None
    otherwise."""
    from ..gpu_agents.gke_driver_installer.values import installer_pools
    from ..gpu_agents.pools import agent_pool

    if not stack.gpu_agents.gke_driver_installer.enabled or not installer_pools([agent_pool(p) for p in specs]):
        return None
    from ..gpu_agents.gke_driver_installer.component import GkeDriverInstaller, GkeDriverInstallerArgs

    installer = GkeDriverInstaller("gke-driver-installer", GkeDriverInstallerArgs(
        cluster_name=stack.cluster.name, pools=specs, extra_tolerations=extra), opts=opts)
    pulumi.export("gkeDriverInstaller.tolerations", installer.tolerations)
    return installer


def main() -> dict[str, Any]:
    """Entry point of ``__main__.py``. A config mistake ends the run with a clean message, no traceback. The
    stack's config warnings (:func:`gpu_node_pool.config.warnings.stack_warnings`) are given once, as Pulumi
    warnings and kept for the run (``gpupool check`` reports them), unless ``gpupool plan`` validated the stack
    (it reports them itself); the pools, written in the stack config, give none of their own."""
    try:
        stack = read_stack_config()
    except ConfigError as err:
        raise pulumi.RunError(str(err)) from err
    handed = _VALIDATED.get()
    if handed is None or handed[1] is not stack:
        from ..config.warnings import stack_warnings
        from ..gpu_agents import once
        from ..sdk.program_log import log_own

        found = stack_warnings(stack)
        once.record_warnings("", found)
        for warning in found:
            log_own(pulumi.log.warn, f"{warning.path}: {warning.message}")
    return build(stack)
