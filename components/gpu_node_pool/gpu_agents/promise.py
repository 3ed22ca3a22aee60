"""What a GPU pool's node will advertise, who makes it so, and what its autoscaler is told: one record per pool.

The plan (text and ``--json``) shows this record per pool, and the audit compares a node's
``status.capacity`` with its ``advertised``. The quantities come from
:func:`.capacity.autoscaler_resources`, the same function the Cluster Autoscaler node-template tags
are rendered from (``backends/eks_managed/resources.py``, ``backends/self_managed/render.py``), so the
plan, the tags and the audit cannot disagree.

Mechanisms and who carries them out (sources in :mod:`.sharing`, :mod:`.mig`, :mod:`.mig_partitioners`):

* ``whole-gpus``: NVIDIA's device plugin advertises each physical GPU once as ``nvidia.com/gpu``.
* ``time-slicing`` / ``mps``: the plugin's named config ``timeslicing-<N>`` / ``mps-<N>`` (node label
  ``nvidia.com/device-plugin.config``), GKE's ``gpu_sharing_config``, or on a Bottlerocket NVIDIA image its own plugin
  from the ``settings.kubelet-device-plugins.nvidia`` the component writes (:mod:`.bottlerocket_sharing`): the same
  GPUs x replicas ``nvidia.com/gpu`` in every case (:func:`.sharing.advertised_gpus`).
* ``mig-single`` / ``mig-mixed``: the GPU Operator's MIG manager (node label ``nvidia.com/mig.config``)
  with the plugin's config ``mig-<strategy>``; Bottlerocket's own MIG manager (its TOML settings); GKE
  ``gpu_partition_size`` (with ``gpu_sharing_config`` ``TIME_SHARING``: each partition advertised once per client,
  :func:`.sharing.shares_mig_partitions`).

Autoscalers: ``cluster-autoscaler`` (node-template tags on the Auto Scaling group), ``karpenter``
(Karpenter and EKS Auto Mode count ``nvidia.com/gpu`` from the instance type's physical GPUs and know no
``nvidia.com/mig-*``: kubernetes-sigs/karpenter#729, aws/karpenter-provider-aws#3376; unless NodeOverlays
change the capacity Karpenter assumes: then the view is read back from them per group of candidate types),
``gke`` (GKE's cluster autoscaler, which knows its own sharing and partitions).
"""

from __future__ import annotations

from typing import Any

from ..config.sharing_names import mig_layout_name
from ..k8s.wellknown import DEVICE_PLUGIN_CONFIG_LABEL, MIG_CONFIG_LABEL, NVIDIA_GPU_RESOURCE
from .bottlerocket_sharing import carried_by as bottlerocket_carried_by
from .bottlerocket_sharing import shares_on_bottlerocket
from .capacity import autoscaler_resources
from .mig import partitioner
from .pools import AgentPool, agent_pool
from .sharing import shares_mig_partitions

__all__ = ["pool_promise", "promise_lines"]

_KARPENTER_NOTE = (
    "counts nvidia.com/gpu from the instance type's physical GPUs and knows no nvidia.com/mig-* "
    "(kubernetes-sigs/karpenter#729, aws/karpenter-provider-aws#3376)"
)


def _mechanism(agent: AgentPool) -> str:
    if agent.mig is not None:
        return f"mig-{agent.mig.strategy}"
    if agent.sharing is not None:
        return "time-slicing" if agent.sharing.strategy == "timeSlicing" else "mps"
    return "whole-gpus"


def _carried_by(agent: AgentPool, provider: str) -> str:
    """Who produces the advertised resources on the node, with the setting that tells it to."""
    labels = agent.labels
    if agent.mig is not None:
        where = partitioner(agent, provider)
        if where == "platform" and shares_mig_partitions(agent):
            assert agent.sharing is not None
            return (f"GKE gpu_partition_size={agent.mig.profile}, each partition time-shared by "
                    f"{agent.sharing.replicas} (gpu_sharing_config TIME_SHARING)")
        if where == "platform":
            return f"GKE gpu_partition_size={agent.mig.profile}"
        if where == "bottlerocket":
            return "Bottlerocket MIG manager (settings.kubelet-device-plugins.nvidia, TOML user data)"
        if where == "gpu-operator":
            return (
                f"GPU Operator MIG manager ({MIG_CONFIG_LABEL}={labels.get(MIG_CONFIG_LABEL, mig_layout_name(agent.mig.profile))}) "
                f"+ device plugin config {labels.get(DEVICE_PLUGIN_CONFIG_LABEL, '?')}"
            )
        return "nothing (refused by the config rules)"
    plugin = "GPU Operator device plugin" if provider == "gpu-operator" else "nvidia-device-plugin"
    if agent.sharing is not None:
        if agent.sharing_by == "platform" and agent.device_plugin == "platform":
            return "GKE gpu_sharing_config"
        if shares_on_bottlerocket(agent):
            return bottlerocket_carried_by(agent)
        return f"{plugin} config {labels.get(DEVICE_PLUGIN_CONFIG_LABEL, '?')}"
    if agent.device_plugin == "platform":
        return "GKE's device plugin"
    if agent.device_plugin == "image":
        return "the node image's device plugin"
    return plugin


def _autoscaler(agent: AgentPool, advertised: dict[str, int], tagged: dict[str, int] | None,
                karpenter: dict[str, Any] | None = None) -> dict[str, Any]:
    from ..registry import find

    record = find(agent.backend)
    if record is not None and record.provisioner and karpenter and karpenter.get("groups"):
        groups = karpenter["groups"]
        per_group = "; ".join(
            f"{', '.join(f'{k}: {v}' for k, v in g['karpenter'].items())} on {len(g['types'])} type(s)" for g in groups)
        resources = dict(groups[0]["karpenter"]) if len(groups) == 1 else {}
        differs = karpenter.get("differs") or []
        note = ("per group of candidate types, physical GPUs with the NodeOverlays that select the NodePool "
                "(karpenter.sh/v1alpha1, feature gate NodeOverlay): " + per_group + ("; " + "; ".join(differs) if differs else ""))
        return {"name": "karpenter", "resources": resources, "agrees": karpenter.get("agrees"), "note": note}
    if record is not None and record.provisioner:
        physical = {NVIDIA_GPU_RESOURCE: agent.gpus_per_node} if agent.gpus_per_node else {}
        agrees = physical == advertised if advertised and physical else None
        return {"name": "karpenter", "resources": physical, "agrees": agrees, "note": _KARPENTER_NOTE}
    if record is not None and record.autoscaler_tags:
        if tagged is None:  # not read back: the figures the tags are rendered from
            tagged = dict(advertised)
            note = "node-template/resources tags, as rendered"
        else:
            note = "read back from the Auto Scaling group's node-template/resources tags"
        if not tagged:
            note = ("no node-template/resources tag rendered: Cluster Autoscaler reads a running node of the group, "
                    "or its own instance table")
        agrees = tagged == advertised if tagged and advertised else None
        return {"name": "cluster-autoscaler", "resources": tagged, "agrees": agrees, "note": note}
    return {"name": agent.backend, "resources": dict(advertised), "agrees": None,
            "note": "the platform's own autoscaler; nothing rendered by the component"}


def pool_promise(pool: Any, provider: str, tagged: dict[str, int] | None = None,
                 karpenter: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record for one validated pool config model (``config.PoolConfig``).

    Args:
        pool: the pool.
        provider: the stack's ``devicePlugin.provider`` (``nvidia-device-plugin`` | ``gpu-operator``).
        tagged: the ``node-template/resources/<name>`` quantities read back from the pool's recorded Auto
            Scaling group tags (the plan passes them), or None when not read back.
        karpenter: a Karpenter pool's ``karpenterCapacity`` read back from the recorded NodePool and NodeOverlays
            (``backends/karpenter/node_overlay.py`` ``karpenter_view``: ``groups`` of candidate types with the
            capacity Karpenter assumes and the node advertises, ``agrees``, ``differs``), or None.

    Returns:
        ``{mechanism: whole-gpus|time-slicing|mps|mig-single|mig-mixed, by: <who and which setting>,
        advertised: {<resource>: <per node>} ({} when the count is not known: not judged),
        autoscaler: {name: cluster-autoscaler|karpenter|<backend>, resources: {...}, agrees: bool|None, note}}``.
    """
    agent = agent_pool(pool)
    advertised = autoscaler_resources(pool)
    return {
        "mechanism": _mechanism(agent),
        "by": _carried_by(agent, provider),
        "advertised": advertised,
        "autoscaler": _autoscaler(agent, advertised, tagged, karpenter),
    }


def promise_lines(promise: dict[str, Any]) -> list[str]:
    """The plan's text lines for :func:`pool_promise`'s record."""

    def res(found: dict[str, int]) -> str:
        return ", ".join(f"{k}: {v}" for k, v in found.items()) or "not known (not judged)"

    scaler = promise["autoscaler"]
    agrees = {True: "matches", False: "DIFFERS from the node", None: "not judged"}[scaler["agrees"]]
    # A Karpenter pool whose candidate types have several GPU counts has no one figure per node, but each
    # group of types was compared (the note lists them): say so, not "not known".
    per_group = scaler["name"] == "karpenter" and not scaler["resources"] and scaler["agrees"] is not None
    if per_group and not promise["advertised"]:
        advertises = "varies by instance type (one figure per group of candidate types, on the autoscaler line)"
    else:
        advertises = f"{res(promise['advertised'])} per node"
    # with no figure the parenthesis says "not judged" already
    told = "per group of candidate types" if per_group else (res(scaler["resources"]) if scaler["resources"] else "not known")
    return [
        f"  GPUs            {promise['mechanism']} by {promise['by']}",
        f"  advertises      {advertises}",
        f"  autoscaler      {scaler['name']}: {told} ({agrees}; {scaler['note']})",
    ]
