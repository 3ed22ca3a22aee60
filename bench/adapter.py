"""Every name the benchmarks take from ``gpu_node_pool``, in one place.

The package is being restructured (``config.py`` -> ``config/``, ``plan.py`` -> ``plan/``, the
policies split into ``policies/rules/``); when a name moves, only this module changes. The
rest of ``bench/`` imports the package through these functions alone, and the typed floor
(``typed_floor.py``) and the SDK analyzer path (``analyzer.py``) import nothing of it at all
in the processes they time.

Every import is inside a function, so that importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: The Pulumi project name the program and the plan use (``Pulumi.yaml`` ``name``).
PROJECT = "gpu-node-pools"
#: The console script the whole-process rows run (``[project.scripts]`` in pyproject.toml).
CLI_MODULE = "gpu_node_pool.cli.commands"
#: What ``__main__.py`` / ``gpupool plan`` import from the package (the cold-import rows).
PROGRAM_MODULES = ("gpu_node_pool.component.program", "gpu_node_pool.component.pool", "gpu_node_pool.gpu_agents.device_plugin", "gpu_node_pool.policies")


def taint_strings(teams: int) -> tuple[str, list[str]]:
    """The GPU taint and ``teams`` team taints in the kubelet form, spelled by ``taints.py``."""
    from gpu_node_pool.k8s.taints import Taint, TaintEffect

    gpu = str(Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE))
    return gpu, [str(Taint("team", f"t{i}", TaintEffect.NO_SCHEDULE)) for i in range(teams)]


def no_schedule() -> str:
    """The Kubernetes spelling of NoSchedule (``taints.TaintEffect``: the one source of it)."""
    from gpu_node_pool.k8s.taints import TaintEffect

    return TaintEffect.NO_SCHEDULE.value


def unknown_marker() -> str:
    """How the plan stores a value unknown at preview (``plan.UNKNOWN``)."""
    from gpu_node_pool.k8s.wellknown import UNKNOWN

    return UNKNOWN


def fake_ami() -> str:
    """The AMI id the plan's mocks answer a self-managed pool's SSM lookup with (``plan.FAKE_AMI_ID``)."""
    from gpu_node_pool.plan import FAKE_AMI_ID

    return FAKE_AMI_ID


def gc_thresholds() -> tuple[int, ...]:
    """The collector thresholds a ``gpupool`` process runs with (the typed floor process gets the same)."""
    from gpu_node_pool.sdk.process import GC_THRESHOLDS

    return tuple(GC_THRESHOLDS)


def tune_gc() -> None:
    """Apply the collector settings of the product's own processes to this one."""
    from gpu_node_pool.sdk.process import tune_gc as tune

    tune()


def plan_stack(stack: str, project_dir: str | Path) -> Any:
    """``gpupool plan``'s work in-process: a ``PlanResult`` (``resources``, ``violations``, ...)."""
    from gpu_node_pool.plan import plan_stack as run

    return run(stack, project_dir)


def with_stack_traces() -> Any:
    """A context in which the plan's program registers with the SDK's stack traces, as a program
    under a real engine does (the plan leaves them out under its mocks)."""
    import contextlib
    from unittest import mock

    return mock.patch("gpu_node_pool.sdk.mock_stack_traces.without_stack_traces", contextlib.nullcontext)


def cold_caches() -> None:
    """Forget what the renderers and readers memoise, so that every timed run starts cold."""
    from gpu_node_pool.backends._shared import user_data as _user_data
    from gpu_node_pool.catalog import requirements as _requirements
    from gpu_node_pool.config import common as _common
    from gpu_node_pool.k8s import names as _names

    _user_data._found_in_text.cache_clear()
    _names._qualified_name_problem.cache_clear()
    _names._label_value_problem.cache_clear()
    _requirements._kept.cache_clear()  # NodePool evaluations per requirements and limits
    _requirements._VERDICTS.clear()
    _common._taint.cache_clear()  # a pool's Taint per key, value and effect


def record_pools(config: Mapping[str, Any], stack: str) -> list[Any]:
    """The resources the real program registers for ``config`` under the plan's mocks."""
    from gpu_node_pool.component import program
    from gpu_node_pool.config import load_stack_config
    from gpu_node_pool.plan import record

    spec = load_stack_config(config, stack)
    return list(record(lambda: program.build(spec), config, stack=stack)[0])


def stack_resource(type_: str, name: str, inputs: dict[str, Any], **kw: Any) -> Any:
    """A resource as the pack's runner takes it (``urn``, ``parent``, ``dependencies``, ... as keywords)."""
    from gpu_node_pool.policies import StackResource

    return StackResource(type_, name, inputs, **kw)


def policies() -> list[Any]:
    """Every policy of the pack (what ``policy/__main__.py`` gives ``PolicyPack``)."""
    from gpu_node_pool.policies import POLICIES

    return list(POLICIES)


def level_pack_servicer(version: str) -> tuple[Any, dict[str, str]]:
    """The per-level pack's analyzer (not served) and its policies' names -> default levels."""
    from gpu_node_pool.policies import PACK_NAME
    from gpu_node_pool.policies.level_pack import LEVEL_POLICY_NAMES, LevelSettings, check_config, level_policies
    from gpu_node_pool.sdk.analyzer_config import analyzer_servicer

    settings = LevelSettings()
    servicer = analyzer_servicer(lambda entries: check_config(settings, entries), PACK_NAME, version,
                                 level_policies(settings))
    return servicer, {name: level.value for level, name in LEVEL_POLICY_NAMES.items()}


def pack_name() -> str:
    from gpu_node_pool.policies import PACK_NAME

    return PACK_NAME


def evaluate(resources: Iterable[Any], stack: str) -> list[dict[str, Any]]:
    """Our runner: every policy of the pack over ``resources``; the findings."""
    from gpu_node_pool.policies import evaluate as run

    return run(resources, stack=stack, project=PROJECT)


def evaluate_with(resources: Iterable[Any], stack: str, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Our runner with a ``--policy-pack-config`` mapping."""
    from gpu_node_pool.policies import evaluate as run

    return run(resources, config, stack=stack, project=PROJECT)


def resolved_config() -> dict[str, tuple[Any, dict[str, Any]]]:
    """Per policy: (enforcement level, config with the schema defaults), as the engine sends it."""
    from gpu_node_pool.policies import resolve_config

    return resolve_config(None)


def to_policy_props(inputs: Any) -> Any:
    """Plan inputs with the plan's unknown marker turned into the engine's wire sentinel."""
    from gpu_node_pool.sdk.policy_props import to_policy_props as convert

    return convert(inputs, unknown_marker())


def read_and_validate(project_dir: Path, stack: str) -> Any:
    """Read and validate ``Pulumi.<stack>.yaml`` as the plan does: a ``StackConfig``."""
    from gpu_node_pool.config import load_stack_config
    from gpu_node_pool.plan import load_stack_file

    config, secrets, path = load_stack_file(project_dir, stack)
    return load_stack_config(config, path.name, set(secrets).__contains__)


def render_all(spec: Any) -> int:
    """Everything the components render for a validated stack, with the pure renderers alone
    (no Pulumi resource is built): per pool what ``pool.py`` passes to the provider classes,
    then the device plugin's chart values and the DaemonSet they make. Returns how many
    objects were rendered (so that nothing is optimised away)."""
    from gpu_node_pool.backends._shared import cluster_autoscaler as ca
    from gpu_node_pool.backends.eks_managed import render as eks
    from gpu_node_pool.backends.gke import render as gke
    from gpu_node_pool.backends.karpenter import render as karpenter
    from gpu_node_pool.backends.self_managed import render as kubelet
    from gpu_node_pool.gpu_agents.device_plugin import chart as device_chart
    from gpu_node_pool.gpu_agents.device_plugin import values as device_plugin

    unknown = unknown_marker()  # stands for outputs of other resources, as at preview
    count = 0
    for pool in spec.pools:
        cluster = spec.cluster
        if pool.backend == "eks-managed":
            out: list[Any] = [eks.node_group_args(pool, cluster)]
            if pool.scaling.min_size == 0:
                out.append(ca.ca_node_template_tags(pool.taint_list, pool.node_labels))
        elif pool.backend == "karpenter":
            out = [karpenter.nodepool_manifest(pool, cluster)]
            if pool.node_class is not None:
                out.append(karpenter.ec2nodeclass_manifest(pool, cluster))
        elif pool.backend == "gke":
            out = [gke.node_pool_args(pool, cluster)]
        else:
            out = [kubelet.bootstrap_files(pool, cluster)]
            if pool.provider != "none":
                out.append(kubelet.ami_ssm_parameter(pool.format, cluster.kubernetes_version or "", pool.arch))
                out.append(kubelet.launch_template_args(
                    pool, cluster, image_id=pool.ami_id or unknown,
                    instance_profile_arn=pool.instance_profile_arn or unknown))
                out.append(kubelet.autoscaling_group_args(
                    pool, cluster, launch_template_id=unknown, launch_template_version=unknown))
                out.append(kubelet.ca_tags(pool, cluster))
        count += len(out)
    served = [p for p in spec.pools if p.uses_nvidia_device_plugin]
    if spec.device_plugin.enabled and served:
        values = device_plugin.chart_values(served, spec.device_plugin)
        count += device_chart.chart_daemonset(values, spec.device_plugin.namespace, "nvidia-device-plugin") is not None
    return count
