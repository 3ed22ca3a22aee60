"""EC2 instance families with NVIDIA GPUs: what a GPU instance type is (a view of :mod:`.catalog`).

Used to refuse non-GPU instance types in a GPU pool, to match the AMI architecture, and by
the policies to recognise a GPU node group or launch template. Every answer comes from the
instance catalog (:mod:`gpu_node_pool.catalog`: Cluster Autoscaler's ``ec2_instance_types.go``
table plus the sourced family tables); this module keeps the names other modules import.
"""

from __future__ import annotations

import functools

from .. import catalog

__all__ = [
    "NVIDIA_FAMILIES",
    "nvidia_instance_problems_at",
    "ARM_FAMILIES",
    "OTHER_ACCELERATOR_FAMILIES",
    "NVIDIA_GPU_COUNTS",
    "instance_family",
    "is_nvidia_instance_type",
    "instance_arch",
    "gpu_count",
]

#: Families whose instances carry NVIDIA GPUs (whole or fractional).
NVIDIA_FAMILIES = catalog.nvidia_families()
#: Accelerated families whose accelerator is not an NVIDIA GPU (a common mix-up).
OTHER_ACCELERATOR_FAMILIES = catalog.other_accelerator_families()


# ARM_FAMILIES and NVIDIA_GPU_COUNTS read the whole instance catalog: computed on first use (module
# __getattr__), so importing this module does not load the catalog.
@functools.cache
def _arm_families() -> frozenset[str]:
    """NVIDIA families on Graviton (arm64) hosts: they need an ARM_64 AMI (``ARM_FAMILIES``)."""
    return frozenset(f for f in NVIDIA_FAMILIES if catalog.architecture(f) == "arm64")


@functools.cache
def _gpu_counts() -> dict[str, int]:
    """NVIDIA GPUs per instance (the ``nvidia.com/gpu`` capacity a node advertises), for the Cluster
    Autoscaler ``node-template/resources/nvidia.com/gpu`` tag of self-managed groups (``NVIDIA_GPU_COUNTS``).
    Only types whose count is sourced are listed (not g6f/gr6f); for others a pool sets ``gpusPerNode``."""
    return {t.name: t.advertised_gpus for t in catalog.all_types() if t.is_nvidia and t.advertised_gpus}


#: NVIDIA families on Graviton (arm64) hosts (first use computes it, see _arm_families).
ARM_FAMILIES: frozenset[str]
#: NVIDIA GPUs per sourced instance type (first use computes it, see _gpu_counts).
NVIDIA_GPU_COUNTS: dict[str, int]
_LAZY = {"ARM_FAMILIES": _arm_families, "NVIDIA_GPU_COUNTS": _gpu_counts}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return _LAZY[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


instance_family = catalog.instance_family


def is_nvidia_instance_type(instance_type: str) -> bool:
    """True when ``instance_type`` belongs to a family with NVIDIA GPUs."""
    return catalog.is_nvidia(instance_type)


def instance_arch(instance_type: str) -> str:
    """``arm64`` for Graviton types and families, else ``x86_64`` (the AMI spelling)."""
    return "arm64" if catalog.architecture(instance_type) == "arm64" else "x86_64"


def gpu_count(instance_type: str) -> int | None:
    """NVIDIA GPUs of ``instance_type`` (``g6e.12xlarge`` -> 4), or None when no source gives it."""
    return _gpu_counts().get(instance_type)


def nvidia_instance_problems_at(values: list[str], *, families: bool = False) -> list[tuple[int, str]]:
    """Why each of ``values`` is not an NVIDIA GPU instance type (or family): ``(index, sentence)`` per problem,
    in order, so each can be reported at its own item (``instanceTypes[2]``).

    Args:
        values: instance types (``g6.xlarge``) or, with ``families=True``, families (``g6``).
        families: check families instead of types.

    Returns:
        One sentence per problem: a non-NVIDIA accelerator (AMD, Inferentia, Trainium, ...),
        a non-GPU type, a type where a family is expected, a value that is not a valid label
        value (Karpenter puts them in requirements), or a repeat of an earlier value (at the
        repeat); empty when all are fine.
    """
    from ..k8s.taints import label_value_problem

    problems = []
    for i, value in enumerate(values):
        fam = value if families else instance_family(value)
        if families and "." in value:
            problems.append((i, f"{value!r} is an instance type; put it in instanceTypes or write its family {instance_family(value)!r}"))
        elif fam in OTHER_ACCELERATOR_FAMILIES:
            problems.append((i, f"{value!r} has {OTHER_ACCELERATOR_FAMILIES[fam]}, not NVIDIA GPUs"))
        elif (cased := catalog.case_problem(value)) and (value.lower() if families else instance_family(value.lower())) in NVIDIA_FAMILIES:
            problems.append((i, cased))
        elif fam not in NVIDIA_FAMILIES or (not families and "." not in value):
            example = "g6e, g6, p5" if families else "g6.xlarge, p5.48xlarge"
            problems.append((i, f"{value!r} is not an NVIDIA GPU instance {'family' if families else 'type'} (e.g. {example})"))
        elif bad := label_value_problem(value):
            problems.append((i, f"{value!r} {bad}"))
        elif value in values[:i]:
            problems.append((i, f"{value!r} is listed more than once (first at [{values.index(value)}]); remove the repeat"))
    return problems

