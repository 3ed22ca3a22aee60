"""Stack-level rules of the GPU-agent config: pool ``gpuSharing`` and ``mig``, ``devicePlugin.provider``, ``gpuAgents``.

Listed in :data:`gpu_node_pool.registry.STACK_RULES`, so :func:`gpu_node_pool.config.stack.stack_issues`
runs it (every ``validate_stack_config``,
``gpupool check``/``plan`` and ``pulumi up`` applies them); returns :class:`ConfigIssue` objects,
one per mistake, each naming the path, the bad value, the rule with its source, and the fix.

Warnings (an UNCONFIRMED rule, a figure not known) never refuse a config: :func:`stack_warnings`
returns them for the plan to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..config.errors import ConfigError, ConfigIssue
from ..text.listing import listed
from .bottlerocket_release import release_problem
from .mig import mig_gpu, mig_problems, mixed_gpus
from .mig_profiles import MIG_PROFILES
from .pools import Problem, agent_pool
from .sharing import sharing_problems

__all__ = ["pool_problems", "served_pool_issues", "stack_issues", "stack_warnings", "warning_issues"]

#: ``devicePlugin`` keys only the standalone nvidia-device-plugin chart reads (the GPU Operator pins
#: its own operand images and chart): a non-default value together with ``provider: gpu-operator``
#: would be silently ignored.
_STANDALONE_ONLY = {"image_digest": "imageDigest", "repository": "repository"}


def _no_nvidia_gpu(pool: Any) -> str | None:
    """Why ``pool`` has no NVIDIA GPU per the instance catalog, or None (GKE accelerators are NVIDIA by
    their pattern; Karpenter pools without ``instanceTypes`` are judged by their requirements elsewhere)."""
    from .. import catalog

    types = [t for t in getattr(pool, "instance_types", None) or [] if catalog.find(t) is not None]
    other = [t for t in types if not catalog.lookup(t).is_nvidia]
    if other:
        return f"instance types {listed(other)} have no NVIDIA GPU (instance catalog)"
    return None


def pool_problems(pool: Any, index: int, provider: str | None) -> list[Problem]:
    """Problems (errors and warnings) with pool ``index``'s ``gpuSharing`` and ``mig``; ``provider`` the agent
    that serves it (``nvidia-device-plugin`` | ``gpu-operator``), None when that is not known yet (see
    :func:`served_pool_issues`).

    A backend whose registry record says it does not support one (``gpu_sharing``/``mig`` ``""``)
    refuses it in its own pool model, with what it supports; it is not judged again here.
    """
    from ..registry import get

    path = f"pools[{index}]"
    problems: list[Problem] = []
    record = get(pool.backend)
    sharing = pool.gpu_sharing is not None and bool(record.gpu_sharing)
    mig = pool.mig is not None and bool(record.mig)
    if not (sharing or mig):
        return problems
    apool = agent_pool(pool)
    if record.provisioner == "karpenter" and not pool.provisioner_counts_shared_gpus:
        problems += _karpenter_problems(path, sharing=sharing, mig=mig)
        mig = False  # one clear refusal: the MIG rules below assume a node group that partitions
    # with the pool's NodeOverlay (karpenter/node_overlay.py) Karpenter counts what the node advertises: the
    # sharing and MIG rules below apply as on a node group
    if sharing:
        why = _no_nvidia_gpu(pool)
        if why:
            problems.append(
                Problem(f"{path}.gpuSharing", f"{why}; GPU sharing is a feature of NVIDIA's device plugin (k8s-device-plugin "
                        "README, Shared Access to GPUs); remove gpuSharing or use NVIDIA GPU instance types")
            )
        problems += sharing_problems(apool, f"{path}.gpuSharing")
    if release := release_problem(pool, path):  # the Bottlerocket release a pool pins may lack the setting the pool needs
        problems.append(release)
    if mig and (mixed := mixed_gpus(pool)):
        problems.append(
            Problem(f"{path}.mig", f"the pool's instance types carry different GPUs ({', '.join(mixed)}): a MIG profile "
                    "and how many MIG devices it makes per GPU belong to one GPU model (NVIDIA MIG user guide, "
                    "Supported MIG Profiles), so one layout cannot serve every node and the autoscaler's count "
                    "would be wrong for some; declare one pool per GPU model")
        )
        mig = False
    if mig:
        capable, model, profiles = mig_gpu(pool)
        if model and apool.gpu_model is None:
            apool = replace(apool, gpu_model=model)
        problems += mig_problems(apool, f"{path}.mig", provider=provider, mig_capable=capable, profiles=profiles)
        if profiles is None and capable:
            problems.append(
                Problem(f"{path}.mig.profile", f"the MIG profiles of this GPU ({model or 'unknown model'}) are not in the "
                        f"component's tables (tabled: {', '.join(MIG_PROFILES)}), so the "
                        "profile and the autoscaler's MIG count are not judged", warning=True)
            )
    return problems


#: Karpenter's NodeOverlay (``karpenter.sh/v1alpha1``, alpha since v1.7 behind the ``NodeOverlay`` feature gate:
#: aws/karpenter-provider-aws website/content/en/docs/reference/settings.md@v1.14.1) adds capacity to an instance
#: type in Karpenter's simulation; a karpenter pool renders it with ``nodeOverlay: {enabled: true}``
#: (``backends/karpenter/node_overlay.py``). EKS Auto Mode has no NodeOverlay.
_NODE_OVERLAY = (
    "on a karpenter pool, nodeOverlay: {enabled: true} renders Karpenter's NodeOverlay (karpenter.sh/v1alpha1, "
    "Karpenter >= v1.7 with the NodeOverlay feature gate, https://karpenter.sh/docs/concepts/nodeoverlays/), which "
    "declares that capacity"
)


def _karpenter_problems(path: str, *, sharing: bool, mig: bool) -> list[Problem]:
    """What Karpenter (and EKS Auto Mode) cannot provision for: it computes each instance type's
    ``nvidia.com/gpu`` from its physical GPUs and has no ``nvidia.com/mig-*`` (kubernetes-sigs/karpenter#729,
    aws/karpenter-provider-aws#3376)."""
    out: list[Problem] = []
    if sharing:
        out.append(
            Problem(
                f"{path}.gpuSharing",
                "Karpenter counts nvidia.com/gpu from the instance's physical GPUs, not the shared replicas the device "
                "plugin advertises (kubernetes-sigs/karpenter#729), so a pod requesting more nvidia.com/gpu than a "
                f"node's physical GPUs never triggers a node ({_NODE_OVERLAY}); keep requests within the physical "
                "GPU count, or use an eks-managed pool, whose autoscaler tag counts the replicas",
                warning=True,
            )
        )
    if mig:
        out.append(
            Problem(
                f"{path}.mig",
                "Karpenter cannot provision nodes for MIG devices: it knows no nvidia.com/mig-* resources and counts "
                "whole GPUs (kubernetes-sigs/karpenter#729, aws/karpenter-provider-aws#3376), so pods requesting MIG "
                f"devices stay Pending or land on too few nodes ({_NODE_OVERLAY}); use an eks-managed or self-managed "
                "pool with devicePlugin.provider: gpu-operator, or remove mig",
            )
        )
    return out


def _record(backend: str) -> Any:
    from ..registry import get

    return get(backend)


def _provider_issues(stack: Any) -> list[ConfigIssue]:
    plugin = stack.device_plugin
    issues: list[ConfigIssue] = []
    if plugin.provider != "gpu-operator":
        return issues
    defaults = type(plugin).model_fields
    for attr, key in _STANDALONE_ONLY.items():
        if getattr(plugin, attr) != defaults[attr].default:
            issues.append(
                ConfigIssue(
                    f"devicePlugin.{key}",
                    f"{getattr(plugin, attr)!r} is read only by the standalone nvidia-device-plugin chart; with provider "
                    "gpu-operator the operator's chart runs the plugin (gpu-operator values.yaml devicePlugin.*): remove "
                    f"{key} or use provider: nvidia-device-plugin",
                )
            )
    return issues


def served_pool_issues(pools: Sequence[Any], provider: str, source: str,
                       judged: Sequence[Any] | None = None) -> ConfigError | None:
    """The refusals of the rules that need the agent serving the pools, for an agent component (``provider``:
    ``nvidia-device-plugin`` for ``NvidiaDevicePlugin``, ``gpu-operator`` for ``GpuOperator``) and the pool
    models it is given (``GpuNodePool.spec``; other items are skipped): what partitions a MIG pool, which a
    ``GpuNodePool`` alone cannot know (``StackConfig.agents_apart``). ``judged``: the pools of ``pools`` the
    agent serves (the same objects; default all of them), the only ones judged: a pool that ships its own
    plugin is not the agent's to partition. Each issue is at ``pools[<index>]...``, the pool's index in the
    agent's arguments (``source``); None when there is none."""
    from ..config.common import PoolBase

    serves = None if judged is None else {id(p) for p in judged}
    issues: list[ConfigIssue] = []
    for i, pool in enumerate(pools):
        if isinstance(pool, PoolBase) and (serves is None or id(pool) in serves):
            issues += [ConfigIssue(p.path, f"pool {pool.name!r}: {p.message}") for p in pool_problems(pool, i, provider)
                       if not p.warning]
    return ConfigError(issues, source) if issues else None


def _all_problems(stack: Any) -> list[Problem]:
    provider = None if stack.agents_apart else stack.device_plugin.provider
    out: list[Problem] = []
    for i, pool in enumerate(stack.pools):
        out += pool_problems(pool, i, provider)
    return out


def stack_issues(stack: Any) -> list[ConfigIssue]:
    """Every refusal of the GPU-agent rules, as :class:`ConfigIssue` (warnings excluded; see :func:`stack_warnings`)."""
    issues = [ConfigIssue(p.path, p.message) for p in _all_problems(stack) if not p.warning]
    issues += _provider_issues(stack)
    out: list[ConfigIssue] = []
    for issue in issues:
        if issue not in out:
            out.append(issue)
    return out


def stack_warnings(stack: Any) -> list[str]:
    """The warnings of the GPU-agent rules, one line each (``<path>: warning: <message>``)."""
    return [str(p) for p in _all_problems(stack) if p.warning]


def warning_issues(stack: Any) -> list[ConfigIssue]:
    """The warnings of the GPU-agent rules as :class:`ConfigIssue` (each once), listed in
    :data:`gpu_node_pool.registry.STACK_WARNINGS` so the plan reports them beside the other config warnings."""
    out: list[ConfigIssue] = []
    for p in _all_problems(stack):
        issue = ConfigIssue(p.path, p.message)
        if p.warning and issue not in out:
            out.append(issue)
    return out
