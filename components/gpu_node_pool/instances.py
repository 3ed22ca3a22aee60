"""EC2 instance families with NVIDIA GPUs: the table that says what a GPU instance type is.

Used to refuse non-GPU instance types in a GPU pool, to match the AMI architecture, and by
the policies to recognise a GPU node group or launch template. Source: the Amazon EC2
accelerated-computing instance type pages (https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing)
and Cluster Autoscaler's generated ``ec2_instance_types.go`` (GPU counts per type).
"""

from __future__ import annotations

__all__ = [
    "NVIDIA_FAMILIES",
    "ARM_FAMILIES",
    "OTHER_ACCELERATOR_FAMILIES",
    "NVIDIA_GPU_COUNTS",
    "instance_family",
    "is_nvidia_instance_type",
    "instance_arch",
    "gpu_count",
]

#: Families whose instances carry NVIDIA GPUs.
NVIDIA_FAMILIES = frozenset(
    {
        "p2", "p3", "p3dn", "p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "p6-b300", "p6e-gb200",
        "g3", "g3s", "g4dn", "g5", "g5g", "g6", "g6e", "g6f", "gr6", "gr6f", "g7e",
    }
)
#: NVIDIA families on Graviton (arm64) hosts: they need an ARM_64 AMI.
ARM_FAMILIES = frozenset({"g5g", "p6e-gb200"})
#: Accelerated families whose accelerator is not an NVIDIA GPU (a common mix-up).
OTHER_ACCELERATOR_FAMILIES = {
    "g4ad": "AMD Radeon Pro GPUs",
    "inf1": "AWS Inferentia chips",
    "inf2": "AWS Inferentia2 chips",
    "trn1": "AWS Trainium chips",
    "trn1n": "AWS Trainium chips",
    "trn2": "AWS Trainium2 chips",
    "dl1": "Habana Gaudi accelerators",
    "dl2q": "Qualcomm AI 100 accelerators",
    "f1": "FPGAs",
    "f2": "FPGAs",
    "vt1": "Xilinx video transcoders",
}


def instance_family(instance_type: str) -> str:
    """``g6e.12xlarge`` -> ``g6e``; ``p6-b200.48xlarge`` -> ``p6-b200``."""
    return instance_type.split(".", 1)[0]


def is_nvidia_instance_type(instance_type: str) -> bool:
    """True when ``instance_type`` belongs to a family with NVIDIA GPUs."""
    return isinstance(instance_type, str) and instance_family(instance_type) in NVIDIA_FAMILIES


def instance_arch(instance_type: str) -> str:
    """``arm64`` for Graviton GPU families, else ``x86_64``."""
    return "arm64" if instance_family(instance_type) in ARM_FAMILIES else "x86_64"


#: NVIDIA GPUs per instance (the ``nvidia.com/gpu`` capacity a node advertises), for the
#: Cluster Autoscaler ``node-template/resources/nvidia.com/gpu`` tag of self-managed groups.
#: Only types whose count is certain are listed; for others a pool sets ``gpusPerNode``.
#: Sources: the EC2 accelerated-computing pages (P2-P6, G3-G6e specification tables) and
#: Cluster Autoscaler ``cloudprovider/aws/ec2_instance_types.go`` (``GPU`` field).
NVIDIA_GPU_COUNTS: dict[str, int] = {
    "p2.xlarge": 1, "p2.8xlarge": 8, "p2.16xlarge": 16,
    "p3.2xlarge": 1, "p3.8xlarge": 4, "p3.16xlarge": 8, "p3dn.24xlarge": 8,
    "p4d.24xlarge": 8, "p4de.24xlarge": 8,
    "p5.4xlarge": 1, "p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
    "p6-b200.48xlarge": 8, "p6-b300.48xlarge": 8,
    "g3s.xlarge": 1, "g3.4xlarge": 1, "g3.8xlarge": 2, "g3.16xlarge": 4,
    "g4dn.xlarge": 1, "g4dn.2xlarge": 1, "g4dn.4xlarge": 1, "g4dn.8xlarge": 1, "g4dn.16xlarge": 1,
    "g4dn.12xlarge": 4, "g4dn.metal": 8,
    "g5.xlarge": 1, "g5.2xlarge": 1, "g5.4xlarge": 1, "g5.8xlarge": 1, "g5.16xlarge": 1,
    "g5.12xlarge": 4, "g5.24xlarge": 4, "g5.48xlarge": 8,
    "g5g.xlarge": 1, "g5g.2xlarge": 1, "g5g.4xlarge": 1, "g5g.8xlarge": 1, "g5g.16xlarge": 2, "g5g.metal": 2,
    "g6.xlarge": 1, "g6.2xlarge": 1, "g6.4xlarge": 1, "g6.8xlarge": 1, "g6.16xlarge": 1,
    "g6.12xlarge": 4, "g6.24xlarge": 4, "g6.48xlarge": 8,
    "gr6.4xlarge": 1, "gr6.8xlarge": 1,
    "g6e.xlarge": 1, "g6e.2xlarge": 1, "g6e.4xlarge": 1, "g6e.8xlarge": 1, "g6e.16xlarge": 1,
    "g6e.12xlarge": 4, "g6e.24xlarge": 4, "g6e.48xlarge": 8,
}  # fmt: skip


def gpu_count(instance_type: str) -> int | None:
    """NVIDIA GPUs of ``instance_type`` (``g6e.12xlarge`` -> 4), or None when the table does not know it."""
    return NVIDIA_GPU_COUNTS.get(instance_type)


def nvidia_instance_problems(values: list[str], *, families: bool = False) -> list[str]:
    """Why each of ``values`` is not an NVIDIA GPU instance type (or family), as sentences.

    Args:
        values: instance types (``g6.xlarge``) or, with ``families=True``, families (``g6``).
        families: check families instead of types.

    Returns:
        One sentence per problem: a non-NVIDIA accelerator (AMD, Inferentia, Trainium, ...),
        a non-GPU type, a type where a family is expected, a value that is not a valid label
        value (Karpenter puts them in requirements), or duplicates; empty when all are fine.
    """
    from .taints import label_value_problem

    problems = []
    for value in values:
        fam = value if families else instance_family(value)
        if families and "." in value:
            problems.append(f"{value!r} is an instance type; put it in instanceTypes or write its family {instance_family(value)!r}")
        elif fam in OTHER_ACCELERATOR_FAMILIES:
            problems.append(f"{value!r} has {OTHER_ACCELERATOR_FAMILIES[fam]}, not NVIDIA GPUs")
        elif fam not in NVIDIA_FAMILIES or (not families and "." not in value):
            example = "g6e, g6, p5" if families else "g6.xlarge, p5.48xlarge"
            problems.append(f"{value!r} is not an NVIDIA GPU instance {'family' if families else 'type'} (e.g. {example})")
        elif bad := label_value_problem(value):
            problems.append(f"{value!r} {bad}")
    dups = sorted({v for v in values if values.count(v) > 1})
    if dups:
        problems.append(f"{dups} listed more than once")
    return problems
