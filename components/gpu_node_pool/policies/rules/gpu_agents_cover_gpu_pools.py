"""Policy ``gpu-agents-cover-gpu-pools``: every GPU pool gets the GPU agents besides the device plugin it needs.

The device plugin itself stays judged by ``device-plugin-covers-gpu-pools`` (which also recognises the
GPU Operator's plugin). This policy judges, per pool:

* **driver installer** where the backend installs none: a GKE pool with ``gpuDriverVersion:
  INSTALLATION_DISABLED`` (GKE installs no driver: Terraform google provider ``container_cluster``
  ``gpu_driver_installation_config``, https://cloud.google.com/kubernetes-engine/docs/how-to/gpus) needs GKE's
  ``nvidia-driver-installer`` DaemonSet, NVIDIA's driver container in a DaemonSet, or the GPU Operator
  with ``driver.enabled`` - tolerating the pool's taints and selecting its nodes;
* **feature discovery** wherever it is installed: an NFD worker (the standalone chart's with
  ``gfd.enabled``, the GPU Operator's) that does not tolerate a pool's taints leaves the pool's nodes
  without the labels the plugin's affinity and the operator's operands select (NVIDIA/k8s-device-plugin@v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml``:
  the NFD worker tolerates only ``nvidia.com/gpu=present`` with ``Equal``, the plugin's affinity wants NFD's
  ``pci-10de.present`` label);
Each agent is judged where it lands (:func:`gpu_node_pool.policies.placement.place`): its tolerations
against the pool's taints and its node selection against the labels of each instance type (and zone)
of the pool, so an agent pinned to other instance types, or to a label the pool's nodes never carry,
is a finding naming the type and the label.

* **DCGM exporter** wherever one is installed (the standalone chart, whose default tolerates only the
  control plane - NVIDIA/dcgm-exporter#731, ``deployment/values.yaml``; a DaemonSet by image; the GPU Operator's operand):
  it must reach every GPU pool, or those GPUs have no metrics;
* **MIG manager** on every pool whose nodes ask for a MIG layout (the ``nvidia.com/mig.config`` node label,
  which ``GpuNodePool`` sets on MIG pools served by the GPU Operator): only NVIDIA's MIG manager applies that
  layout (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html; a
  ``k8s-mig-manager`` DaemonSet, or the GPU Operator's ``migManager`` operand); the device plugin only finds
  MIG devices that already exist (NVIDIA/k8s-device-plugin@v0.20.0 README ``--mig-strategy``), so without it
  the GPUs stay whole and the node advertises none of the MIG devices the pool is planned for;
* **EFA device plugin** on every pool a ``GpuNodePool`` declares with ``efa.enabled`` (its ``efa`` property):
  without AWS's ``aws-efa-k8s-device-plugin`` tolerating the pool's taints its nodes advertise no
  ``vpc.amazonaws.com/efa`` and no pod asking for EFA interfaces schedules (EKS user guide,
  https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html). EFA on hand-written pools is not read here.

How it fits with ``gpu-toleration-allowlist``: the agents this rule asks for are DaemonSets, which the allow-list
does not judge, so an agent that tolerates exactly the taints of the pools it serves passes both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, StackValidationArgs, StackValidationPolicy

from ...k8s.wellknown import MIG_CONFIG_LABEL
from ...sdk.props import Undecided, UnknownValueError
from ..gpu_agents import (
    agent_resources,
    dcgm_exporters,
    discovery_agents,
    driver_installers,
    efa_device_plugins,
    mig_managers,
    standalone_nfd_workers,
)
from ..placement import SELECTION_FIX, StackPlacements
from ..stack import stack_index
from ..workloads import NodeSelection, read_tolerations
from ._shared import _stack_placements, _stack_pools, placement_fix

NO_DRIVER = "INSTALLATION_DISABLED"


class _Agent:
    """An agent's pod spec read once for every pool: its tolerations and node selection (or the
    ``UnknownValueError`` reading them raised)."""

    __slots__ = ("display", "tolerations", "selection")

    def __init__(self, display: str, pod_spec: Mapping[str, Any]) -> None:
        self.display = display
        try:
            self.tolerations, _ = read_tolerations(pod_spec)
            self.selection: NodeSelection | UnknownValueError = NodeSelection.of(pod_spec)
        except UnknownValueError as err:
            self.tolerations, self.selection = [], err


def _agents(found: Sequence[tuple[str, Mapping[str, Any]]]) -> list[_Agent]:
    return [_Agent(display, pod_spec) for display, pod_spec in found]


def _why_not(agent: _Agent, pool: Any, undecided: Undecided, placed: StackPlacements, discovered: tuple[str, ...]) -> str | None:
    """None when the agent's pods land on every new node of the pool (or it cannot be decided: then it is
    recorded as not judged, with the label and the agent that would set it); else why not (one clause
    naming the taint, or the instance type and label its selection excludes). ``placed``: the placements
    on the stack's pools (:class:`~gpu_node_pool.policies.placement.StackPlacements`: each pool's kinds of
    node worked out once, each agent's content placed once per pool); ``discovered``: the discovery agents
    the stack installs."""
    if isinstance(agent.selection, UnknownValueError):
        undecided.add(f"{agent.display} on {pool.display}", agent.selection)
        return None
    placement = placed(pool, agent.tolerations, agent.selection, discovered=discovered)
    if placement.status == "notJudged":
        undecided.not_judged(f"{agent.display} on {pool.display}", placement.not_judged_text(), placement_fix(placement))
        return None
    if placement.status == "runs":
        return None
    fix = f"; {SELECTION_FIX}" if placement.excluded else ""
    return f"{agent.display}: {placement.describe()}{fix}"


def _judge(agents: Sequence[_Agent], pool: Any, undecided: Undecided, placed: StackPlacements,
           discovered: tuple[str, ...]) -> list[str] | None:
    """None when some agent covers the pool (or one is not judged), else the reasons of each agent."""
    reasons = []
    for agent in agents:
        why = _why_not(agent, pool, undecided, placed, discovered)
        if why is None:
            return None
        reasons.append(why)
    return reasons


def validate_gpu_agents_cover_gpu_pools(args: StackValidationArgs, report: ReportViolation) -> None:
    """Driver installers where the backend installs none, and feature discovery workers, cover every GPU pool."""
    undecided = Undecided()
    pools = [p for p in _stack_pools(args, undecided) if not p.problem]
    discovered = discovery_agents(agent_resources(stack_index(args)), undecided) if pools else ()
    placed = _stack_placements(args)  # shared with the device-plugin rule
    _require(
        lambda: driver_installers(agent_resources(stack_index(args)), undecided), "installers",
        [p for p in pools if (p.extra or {}).get("gpu_driver_version") == NO_DRIVER], report, undecided, placed,
        discovered,
        lambda pool, found: (
            f"No NVIDIA driver installer covers {pool.display}: gpuDriverVersion {NO_DRIVER} makes GKE install no "
            f"driver, so its GPUs stay unusable and no device plugin can advertise them.{found} Install GKE's "
            "nvidia-driver-installer DaemonSet (container-engine-accelerators nvidia-driver-installer/cos/"
            "daemonset-preloaded.yaml; it tolerates every taint), or the GPU Operator with driver.enabled, or let GKE "
            "install the driver (gpuDriverVersion LATEST or DEFAULT)."),
    )
    workers = _agents(standalone_nfd_workers(agent_resources(stack_index(args)), undecided)) if pools else []
    for agent in workers:
        for pool in pools:
            if pool.gke_managed_plugin:
                continue  # GKE's own plugin needs no NFD labels
            why = _why_not(agent, pool, undecided, placed, discovered)
            if why is not None:
                report(
                    f"Feature discovery does not cover {pool.display}: {why}. Its nodes get no NFD/GFD labels "
                    "(feature.node.kubernetes.io/pci-10de.present, nvidia.com/gpu.deploy.*), which NVIDIA's plugin "
                    "affinity and the GPU Operator's operands select. Tolerate every pool taint with an Exists "
                    "toleration (nfd.worker.tolerations / node-feature-discovery.worker.tolerations).",
                    pool.urn or None,
                )
    for agent in _agents(dcgm_exporters(agent_resources(stack_index(args)), undecided)) if pools else []:
        for pool in pools:
            why = _why_not(agent, pool, undecided, placed, discovered)
            if why is not None:
                report(
                    f"The DCGM exporter does not cover {pool.display}: {why}. Those GPUs export no metrics "
                    "(the dcgm-exporter chart's default tolerates only the control plane, dcgm-exporter#731). "
                    "Derive its tolerations and node affinity from the pools (gpuAgents.dcgmExporter, or one Exists "
                    "toleration per pool taint in the chart's tolerations, and a nodeSelector/affinity that admits "
                    "every instance type of the pool).",
                    pool.urn or None,
                )
    _require(
        lambda: efa_device_plugins(agent_resources(stack_index(args)), undecided), "plugins",
        [p for p in pools if (p.extra or {}).get("efa")], report, undecided, placed, discovered,
        lambda pool, found: (
            f"No EFA device plugin covers {pool.display}: its nodes advertise no vpc.amazonaws.com/efa, so no pod "
            f"asking for EFA interfaces schedules there.{found} Install AWS's aws-efa-k8s-device-plugin chart "
            "(https://aws.github.io/eks-charts) with one Exists toleration per pool taint (the program does so "
            "unless gpuAgents.efaDevicePlugin.enabled is false)."),
    )
    _require(
        lambda: mig_managers(agent_resources(stack_index(args)), undecided), "MIG managers",
        [p for p in pools if MIG_CONFIG_LABEL in (p.labels or {})], report, undecided, placed, discovered,
        lambda pool, found: (
            f"No MIG manager covers {pool.display}: its nodes ask for the MIG layout "
            f"{pool.labels[MIG_CONFIG_LABEL]!r} ({MIG_CONFIG_LABEL}), which only NVIDIA's MIG manager applies "
            "(https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html); the device "
            "plugin partitions nothing, so the GPUs stay whole and the node advertises none of the MIG devices the "
            f"pool is planned for.{found} Install the GPU Operator with migManager.enabled (GpuOperator, or "
            "devicePlugin.provider: gpu-operator) tolerating the pool's taints, or drop the pool's mig setting."),
    )
    undecided.raise_if_any()


def _require(find: Callable[[], Sequence[tuple[str, Mapping[str, Any]]]], found_word: str, pools: Sequence[Any],
             report: ReportViolation, undecided: Undecided, placed: StackPlacements, discovered: tuple[str, ...],
             message: Callable[[Any, str], str]) -> None:
    """Report each of ``pools`` that no agent ``find()`` gives covers (read only when some pool needs one):
    ``message(pool, found)``, ``found`` naming why each agent found misses it (``The <found_word> found do not reach
    it: ...``) or empty when there is none."""
    agents = _agents(find()) if pools else []
    for pool in pools:
        reasons = _judge(agents, pool, undecided, placed, discovered)
        if reasons is None:
            continue
        found = f" The {found_word} found do not reach it: {' | '.join(reasons)}." if reasons else ""
        report(message(pool, found), pool.urn or None)


POLICY = StackValidationPolicy(
    name="gpu-agents-cover-gpu-pools",
    description="Every GPU pool gets the GPU agents besides the device plugin it needs: a driver installer where "
    "the backend installs none (GKE INSTALLATION_DISABLED), feature discovery workers and DCGM exporters that "
    "tolerate its taints, the EFA device plugin on EFA pools, and a MIG manager on pools asking for a MIG layout.",
    validate=validate_gpu_agents_cover_gpu_pools,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Install GKE's nvidia-driver-installer (or the GPU Operator with driver.enabled) for pools with "
        "gpuDriverVersion INSTALLATION_DISABLED; install the GPU Operator with migManager.enabled for pools with "
        "the nvidia.com/mig.config label; derive NFD worker, DCGM exporter and EFA device plugin tolerations "
        "from the pools (one Exists toleration per pool taint). These agents are DaemonSets, which "
        "gpu-toleration-allowlist does not judge."
    ),
)
