"""Hand-kept, sourced data the EC2 instance table lacks: GPU model per family, MIG, EFA, extra types.

Every row names its source (keys of :data:`SOURCES`). Edit here when a source changes; the
generated data file ``ec2_instance_types.csv`` only ever comes from the Cluster Autoscaler CSV.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Citations used by the tables below (short id -> source and date read).
SOURCES = {
    "ca-table": "kubernetes/autoscaler@55c37cd5eb55 (2026-08-22) "
    "cluster-autoscaler/cloudprovider/aws/ec2_instance_types.go (generated from EC2 DescribeInstanceTypes)",
    "kpa-docs": "aws/karpenter-provider-aws@1d927085dd81 (2026-08-21, docs for v1.14.1) "
    "website/content/en/docs/reference/instance-types.md (labels and resources Karpenter computes per type)",
    "ec2-efa": "EC2 DescribeInstanceTypes NetworkInfo.EfaInfo.MaximumEfaInterfaces, as Karpenter publishes it per "
    "type (resource vpc.amazonaws.com/efa) in kpa-docs; one EFA per network card (EKS user guide "
    "https://docs.aws.amazon.com/eks/latest/userguide/node-efa.html), read 2026-11",
    "mig-guide": "NVIDIA Multi-Instance GPU User Guide, 'Supported GPUs' "
    "(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html, current and r610 pages, read 2026-11)",
    "ec2-pages": "Amazon EC2 accelerated-computing instance pages "
    "(https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing), as previously tabled in instances.py",
    "eks-ami-gpus": "Amazon EKS user guide, 'Use EKS-optimized accelerated AMIs for GPU instances', the EC2 instance "
    "types each AMI variant supports (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html): "
    "no p2, g3 or g3s",
    "eks-ami-1448": "awslabs/amazon-eks-ami#1448 (2023-10): the EKS accelerated AMIs' NVIDIA 535 and later drivers "
    "do not support the p2 family's chips (https://github.com/awslabs/amazon-eks-ami/issues/1448)",
    "kpa-8368": "aws/karpenter-provider-aws#8368 (open, 2025-08-13): EC2 DescribeInstanceTypes GPU Count 0 "
    "for g6f.* and (then) p5.4xlarge (https://github.com/aws/karpenter-provider-aws/issues/8368)",
}


@dataclass(frozen=True)
class GpuFamily:
    """The accelerator of one instance family.

    Attributes:
        family: ``g6e``.
        manufacturer: Karpenter's ``instance-gpu-manufacturer`` value (``nvidia``, ``amd``), or
            None when the family's GPU labels are unknown to the sources.
        gpu_name: Karpenter's ``instance-gpu-name`` value (``l40s``), None when not sourced.
        model: display name (``NVIDIA L40S``).
        gpu_memory_mib: Karpenter's ``instance-gpu-memory`` (MiB per GPU), None when not sourced.
        mig_capable: the GPU supports Multi-Instance GPU (NVIDIA's list); None when unconfirmed.
        architecture: ``amd64``/``arm64`` for every type of the family (used for families with no
            type in the catalog, e.g. ``p6e-gb200``).
        fractional: the instance gets a fraction of a GPU (g6f, gr6f): EC2 counts 0 GPUs and what
            the NVIDIA device plugin advertises is not sourced, so a pool must state ``gpusPerNode``.
        source: keys of :data:`SOURCES`.
        note: a caveat shown with the family (e.g. retired, unconfirmed).
    """

    family: str
    manufacturer: str | None
    gpu_name: str | None
    model: str
    gpu_memory_mib: int | None
    mig_capable: bool | None
    architecture: str = "amd64"
    fractional: bool = False
    source: tuple[str, ...] = ("kpa-docs", "mig-guide")
    note: str = ""


_RETIRED = "not in Cluster Autoscaler's table nor Karpenter's docs (retired generation); GPU count from the EC2 pages"
#: A retired family whose GPU the EKS accelerated AMIs' NVIDIA drivers do not support (eks-ami-1448).
RETIRED_DRIVER = {
    "p2": "their NVIDIA drivers (535 and later) do not support its K80 (https://github.com/awslabs/amazon-eks-ami/issues/1448)",
}
#: The EKS page listing the GPU instance types the accelerated AMIs support (eks-ami-gpus).
EKS_AMI_GPU_TYPES = "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html"
#: Current NVIDIA families offered in place of a retired one, in order (each in the eks-ami-gpus table).
CURRENT_GPU_FAMILIES = ("g6", "g5", "g4dn", "g6e")
_GB200 = "not in Cluster Autoscaler's table nor Karpenter's v1.14.1 docs; set gpusPerNode"
_FRACTION = "fractional GPU: EC2 reports 0 GPUs (aws/karpenter-provider-aws#8368)"

#: NVIDIA GPU families. ``mig_capable`` per the MIG guide: A100, H100, H200, B200, GB200, B300 and
#: RTX PRO 6000 Blackwell Server Edition are listed; T4, T4G, A10G, L4, L40S, V100, K80, M60 are not
#: (pre-Ampere or not listed); RTX PRO 4500 Blackwell is in the r610 list but not the current one.
NVIDIA_FAMILIES: tuple[GpuFamily, ...] = (
    GpuFamily("p2", "nvidia", None, "NVIDIA K80", None, False, source=("ec2-pages", "mig-guide", "eks-ami-gpus", "eks-ami-1448"),
              note=_RETIRED),
    GpuFamily("p3", "nvidia", "v100", "NVIDIA V100", None, False, source=("ca-table", "mig-guide"),
              note="in Cluster Autoscaler's table, not in Karpenter's v1.14.1 docs; GPU memory not sourced"),
    GpuFamily("p3dn", "nvidia", "v100", "NVIDIA V100", 32768, False),
    GpuFamily("p4d", "nvidia", "a100", "NVIDIA A100 40GB", 40960, True),
    GpuFamily("p4de", "nvidia", "a100", "NVIDIA A100 80GB", 81920, True),
    GpuFamily("p5", "nvidia", "h100", "NVIDIA H100", 81920, True),
    GpuFamily("p5e", "nvidia", "h200", "NVIDIA H200", 144384, True),
    GpuFamily("p5en", "nvidia", "h200", "NVIDIA H200", 144384, True),
    GpuFamily("p6-b200", "nvidia", "b200", "NVIDIA B200", 183359, True),
    GpuFamily("p6-b300", "nvidia", "b300", "NVIDIA B300", 275040, True),
    GpuFamily("p6e-gb200", "nvidia", None, "NVIDIA GB200", None, True, "arm64", source=("ec2-pages", "mig-guide"), note=_GB200),
    GpuFamily("g3", "nvidia", None, "NVIDIA M60", None, False, source=("ec2-pages", "mig-guide", "eks-ami-gpus"), note=_RETIRED),
    GpuFamily("g3s", "nvidia", None, "NVIDIA M60", None, False, source=("ec2-pages", "mig-guide", "eks-ami-gpus"), note=_RETIRED),
    GpuFamily("g4dn", "nvidia", "t4", "NVIDIA T4", 16384, False),
    GpuFamily("g5", "nvidia", "a10g", "NVIDIA A10G", 22888, False),
    GpuFamily("g5g", "nvidia", "t4g", "NVIDIA T4G", 16384, False, "arm64"),
    GpuFamily("g6", "nvidia", "l4", "NVIDIA L4", 22888, False),
    GpuFamily("g6e", "nvidia", "l40s", "NVIDIA L40S", 45776, False),
    GpuFamily("g6f", "nvidia", "l4", "NVIDIA L4 (fraction)", None, False, fractional=True,
              source=("kpa-docs", "kpa-8368"), note=_FRACTION),
    GpuFamily("gr6", "nvidia", "l4", "NVIDIA L4", 22888, False),
    GpuFamily("gr6f", "nvidia", "l4", "NVIDIA L4 (fraction)", None, False, fractional=True,
              source=("kpa-docs", "kpa-8368"), note=_FRACTION),
    GpuFamily("g7", "nvidia", "rtx-pro-4500", "NVIDIA RTX PRO 4500 Blackwell", 32768, None,
              note="MIG: RTX PRO 4500 Blackwell is in the MIG guide's r610 list but not its current list (UNCONFIRMED)"),
    GpuFamily("g7e", "nvidia", "rtx-pro-server-6000", "NVIDIA RTX PRO 6000 Blackwell Server Edition", 98304, True),
)  # fmt: skip
#: The NVIDIA families the catalog keeps only to refuse them (note :data:`_RETIRED`): the EKS-optimized accelerated
#: AMIs support none of them (eks-ami-gpus); what more a family's GPU lacks, in :data:`RETIRED_DRIVER`.
RETIRED_FAMILIES = tuple(f.family for f in NVIDIA_FAMILIES if f.note == _RETIRED)

#: Karpenter ``instance-gpu-memory`` of fractional types differs per size (MiB of the GPU slice; kpa-docs).
GPU_MEMORY_BY_TYPE = {
    "g6f.large": 2861, "g6f.xlarge": 2861, "g6f.2xlarge": 5722, "g6f.4xlarge": 11444, "gr6f.4xlarge": 11444,
}  # fmt: skip

#: Accelerated families whose accelerator is not an NVIDIA GPU (a common mix-up), with what they carry.
#: ``gpu`` is set where EC2 reports the accelerator as a GPU (Karpenter ``instance-gpu-*`` labels).
OTHER_ACCELERATORS: dict[str, tuple[str, GpuFamily | None]] = {
    "g4ad": ("AMD Radeon Pro GPUs", GpuFamily("g4ad", "amd", "radeon-pro-v520", "AMD Radeon Pro V520", 8192, False)),
    "dl1": ("Habana Gaudi accelerators", GpuFamily(
        "dl1", None, None, "Habana Gaudi", None, False, source=("ca-table",),
        note="Cluster Autoscaler counts 8 GPUs; Karpenter's GPU label values are not sourced")),
    "inf1": ("AWS Inferentia chips", None),
    "inf2": ("AWS Inferentia2 chips", None),
    "trn1": ("AWS Trainium chips", None),
    "trn1n": ("AWS Trainium chips", None),
    "trn2": ("AWS Trainium2 chips", None),
    "dl2q": ("Qualcomm AI 100 accelerators", None),
    "f1": ("FPGAs", None),
    "f2": ("FPGAs", None),
    "vt1": ("Xilinx video transcoders", None),
}  # fmt: skip

#: EFA interfaces (EC2 ``MaximumEfaInterfaces``; one EFA per network card) per size of each NVIDIA
#: family. Source: ec2-efa, i.e. kpa-docs (``vpc.amazonaws.com/efa`` resource; absent = 0), for every
#: size listed, the small sizes with 0 and g7/gr6 included. A type of an NVIDIA family missing here
#: has an unknown EFA count.
EFA_INTERFACES: dict[str, dict[str, int]] = {
    "p3dn": {"24xlarge": 1},
    "p4d": {"24xlarge": 4},
    "p4de": {"24xlarge": 4},
    "p5": {"4xlarge": 1, "48xlarge": 32},
    "p5e": {"48xlarge": 32},
    "p5en": {"48xlarge": 16},
    "p6-b200": {"48xlarge": 8},
    "p6-b300": {"48xlarge": 16},
    "g4dn": {"xlarge": 0, "2xlarge": 0, "4xlarge": 0, "8xlarge": 1, "12xlarge": 1, "16xlarge": 1, "metal": 1},
    "g5": {"xlarge": 0, "2xlarge": 0, "4xlarge": 0, "8xlarge": 1, "12xlarge": 1, "16xlarge": 1, "24xlarge": 1, "48xlarge": 1},
    "g6": {"xlarge": 0, "2xlarge": 0, "4xlarge": 0, "8xlarge": 1, "12xlarge": 1, "16xlarge": 1, "24xlarge": 1, "48xlarge": 1},
    "g6e": {"xlarge": 0, "2xlarge": 0, "4xlarge": 0, "8xlarge": 1, "12xlarge": 1, "16xlarge": 1, "24xlarge": 2, "48xlarge": 4},
    "g5g": {"xlarge": 0, "2xlarge": 0, "4xlarge": 0, "8xlarge": 0, "16xlarge": 0, "metal": 0},
    "g6f": {"large": 0, "xlarge": 0, "2xlarge": 0, "4xlarge": 0},
    "gr6": {"4xlarge": 0, "8xlarge": 1},
    "gr6f": {"4xlarge": 0},
    "g7": {"2xlarge": 0, "4xlarge": 0, "8xlarge": 1, "12xlarge": 1, "24xlarge": 1, "48xlarge": 2},
    "g7e": {"2xlarge": 0, "4xlarge": 0, "8xlarge": 1, "12xlarge": 1, "24xlarge": 2, "48xlarge": 4},
}  # fmt: skip

#: NVIDIA types EC2 offers that Cluster Autoscaler's table lacks: (type, vcpu, memory_mib, gpus,
#: architecture) from kpa-docs (``instance-cpu``, ``instance-memory``, ``instance-gpu-count``,
#: ``kubernetes.io/arch``). Cluster Autoscaler cannot build a scale-from-zero template for them.
EXTRA_TYPES: tuple[tuple[str, int, int, int, str], ...] = (
    ("g7.2xlarge", 8, 32768, 1, "amd64"),
    ("g7.4xlarge", 16, 65536, 1, "amd64"),
    ("g7.8xlarge", 32, 131072, 1, "amd64"),
    ("g7.12xlarge", 48, 196608, 2, "amd64"),
    ("g7.24xlarge", 96, 393216, 4, "amd64"),
    ("g7.48xlarge", 192, 786432, 8, "amd64"),
    ("p5e.48xlarge", 192, 2097152, 8, "amd64"),
    ("p6-b300.48xlarge", 192, 4194304, 8, "amd64"),
)

#: Known risks per type, shown as warnings (UNCONFIRMED items never refuse).
TYPE_WARNINGS = {
    "p5.4xlarge": (
        "p5.4xlarge: EC2 DescribeInstanceTypes reported 0 GPUs for it when it launched "
        "(https://github.com/aws/karpenter-provider-aws/issues/8368); the catalog uses 1, the value in Cluster "
        "Autoscaler's table (ec2-instance-types.csv) and Karpenter's v1.14.1 docs. If nodes come up without "
        "nvidia.com/gpu in your region, set gpusPerNode (Cluster Autoscaler) or a NodeOverlay (Karpenter)"
    ),
}

#: Known risks per family.
FAMILY_WARNINGS = {
    family: (
        f"{family}: fractional GPU; EC2 reports 0 GPUs, so Karpenter gives it instance-gpu-count 0 and no "
        "nvidia.com/gpu capacity and Cluster Autoscaler's template has none "
        "(https://github.com/aws/karpenter-provider-aws/issues/8368); what the NVIDIA device plugin advertises is "
        "not sourced: state gpusPerNode, and on Karpenter add a NodeOverlay for nvidia.com/gpu"
    )
    for family in ("g6f", "gr6f")
}
