"""The stack config of gpu-node-pools: pydantic models, and errors a platform engineer can read.

A stack file (``stacks/Pulumi.<stack>.yaml``) holds, under the project namespace
``gpu-node-pools:``, the keys ``cluster``, ``pools`` and ``devicePlugin`` (camelCase, as
Pulumi config usually is). :func:`load_stack_config` validates all of it at once and raises
:class:`ConfigError` listing every mistake, one line each: the config path, the bad value,
the rule, and the fix where it is obvious. Nothing in this package registers a resource.

Layout: :mod:`.errors` (ConfigIssue, ConfigError), :mod:`.defaults` (PROJECT, DEFAULT_TAINT:
pure), :mod:`.common` (models every backend shares), :mod:`.stack` (ClusterConfig, DevicePluginConfig, StackConfig built from the backend
registry), :mod:`.loading` (YAML reader, pydantic errors as ConfigIssue). Each backend's pool
model lives in its folder (``backends/<name>/config.py``, e.g.
``from gpu_node_pool.backends.gke.config import GkePool``), found through the backend registry;
this package imports no backend and no GPU agent.

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
# isort: skip_file

from __future__ import annotations

from .errors import ConfigError, ConfigIssue
from .defaults import DEFAULT_TAINT, PROJECT

__all__ = [
    "PROJECT",
    "ConfigError",
    "ConfigIssue",
    "StackConfig",
    "ClusterConfig",
    "DevicePluginConfig",
    "PoolBase",
    "PoolConfig",
    "ScalingConfig",
    "GpuLabel",
    "TaintConfig",
    "TolerationConfig",
    "UpdateConfig",
    "POOL_LABEL_KEY",
    "DEFAULT_TAINT",
    "EKS_GPU_AMI_TYPES",
    "stack_issues",
    "stack_model",
    "stack_warnings",
    "load_stack_config",
    "validate_stack_config",
    "stack_file_config",
    "read_stack_file",
]


#: Where the names of this package live, imported on first use: importing ``config`` (for
#: :class:`ConfigError`, say) loads neither pydantic nor the models; validating a stack does.
#: No backend's names are here: a backend's pool model is ``gpu_node_pool.backends.<name>.config``
#: (or ``registry.get(name).model()``), so this package names no backend.
_LAZY = {
    **dict.fromkeys(
        ("EKS_GPU_AMI_TYPES", "POOL_LABEL_KEY", "GpuLabel", "PoolBase", "ScalingConfig",
         "TaintConfig", "TolerationConfig", "UpdateConfig"),
        "gpu_node_pool.config.common",
    ),
    **dict.fromkeys(("ClusterConfig", "DevicePluginConfig", "StackConfig", "stack_issues", "stack_model"),
                    "gpu_node_pool.config.stack"),
    **dict.fromkeys(("load_stack_config", "read_stack_file", "stack_file_config", "validate_stack_config"),
                    "gpu_node_pool.config.loading"),
    "stack_warnings": "gpu_node_pool.config.warnings",
}


def __getattr__(name: str):
    """``BACKENDS`` (the registered backend names, read at call time) and the lazy names above."""
    import importlib

    if name == "BACKENDS":
        from ..registry import names

        return names()
    if name == "PoolConfig":  # type of a validated pool: the registered backends' models share PoolBase
        name = "PoolBase"
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(name)


def __dir__() -> list[str]:
    """Every public name, the lazily loaded ones included (``dir()``, editor completion)."""
    return sorted(set(globals()) | set(__all__))
