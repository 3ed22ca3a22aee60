"""EC2 instance families with NVIDIA GPUs: the table that says what a GPU instance type is.

Used to refuse non-GPU instance types in a GPU pool, to match the AMI architecture, and by
the policies to recognise a GPU node group or launch template. Source: the Amazon EC2
accelerated-computing instance type pages (https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing)
and Cluster Autoscaler's generated ``ec2_instance_types.go`` (GPU counts per type).
"""

from __future__ import annotations

__all__ = ["NVIDIA_FAMILIES", "ARM_FAMILIES", "OTHER_ACCELERATOR_FAMILIES", "instance_family", "is_nvidia_instance_type", "instance_arch"]

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
