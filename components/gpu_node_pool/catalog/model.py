"""One EC2 instance type as the catalog knows it, and the Karpenter labels it carries.

Sources: the type's numbers come from Cluster Autoscaler's table (``ec2-instance-types.csv``)
or, for NVIDIA types it lacks, Karpenter's generated docs (:data:`._families.EXTRA_TYPES`); the
GPU model, MIG and EFA columns from :mod:`._families`. How Karpenter derives labels from
``DescribeInstanceTypes`` is mirrored from aws/karpenter-provider-aws@1d927085
``pkg/providers/instancetype/types.go`` (``computeRequirements``, ``memory``, ``nvidiaGPUs``).
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from functools import cached_property

from ._families import GPU_MEMORY_BY_TYPE, GpuFamily

__all__ = ["InstanceType", "LabelValue", "split_name"]

#: Karpenter's ``instanceTypeScheme``: category = group 1, generation = group 3 (types.go L52, L403-407).
_SCHEME = re.compile(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")
#: Karpenter's default ``VM_MEMORY_OVERHEAD_PERCENT`` (docs/reference/settings.md; types.go ``memory``).
VM_MEMORY_OVERHEAD_PERCENT = 0.075
#: Graviton types lose 64 MiB of CMA-reserved memory in Karpenter's capacity (types.go ``memory``).
ARM64_RESERVED_MIB = 64


class LabelValue(enum.Enum):
    """What a label lookup can return besides a string value."""

    ABSENT = "absent"  #: Karpenter does not put this label on the type (e.g. GPU labels on a CPU type).
    UNKNOWN = "unknown"  #: Karpenter puts the label on the type, but the catalog's sources lack its value.


def split_name(name: str) -> tuple[str, str, str | None, int | None]:
    """``"p6-b200.48xlarge"`` -> ``("p6-b200", "48xlarge", "p", 6)``: family, size, category, generation.

    Category and generation follow Karpenter's regex (``u-6tb1.metal`` -> ``u``, 1); None when it
    does not match.
    """
    family, _, size = name.partition(".")
    match = _SCHEME.match(name)
    if not match:
        return family, size, None, None
    return family, size, match.group(1), int(match.group(3))


@dataclass(frozen=True)
class InstanceType:
    """An EC2 instance type.

    Attributes:
        name: ``g6e.12xlarge``.
        vcpu: default vCPUs (Karpenter ``instance-cpu``; ``cpu`` capacity).
        memory_mib: memory in MiB (Karpenter ``instance-memory``).
        architecture: ``amd64`` | ``arm64`` (``kubernetes.io/arch`` spelling).
        ec2_gpus: GPUs as EC2 reports them (sum of ``GpuInfo.Gpus[].Count``), which is what Cluster
            Autoscaler's template node and Karpenter's ``instance-gpu-count`` use. 0 for g6f/gr6f.
        in_autoscaler_table: listed in Cluster Autoscaler's table (else it cannot scale a group of
            this type from zero without ``node-template/resources`` tags: kubernetes/autoscaler
            ``cluster-autoscaler/cloudprovider/aws/README.md``).
        gpu: the family's accelerator, None when EC2 reports no GPU.
        efa_interfaces: EC2 ``MaximumEfaInterfaces`` (= EFA-capable network cards), None if not sourced.
        source: where the numbers come from (keys of ``_families.SOURCES``).
        warnings: known risks of the type, shown as warnings, never refusals.
    """

    name: str
    vcpu: int
    memory_mib: int
    architecture: str
    ec2_gpus: int
    in_autoscaler_table: bool
    gpu: GpuFamily | None = None
    efa_interfaces: int | None = None
    source: tuple[str, ...] = ("ca-table",)
    warnings: tuple[str, ...] = field(default=())

    @cached_property
    def _parts(self) -> tuple[str, str, str | None, int | None]:
        return split_name(self.name)

    @property
    def family(self) -> str:
        return self._parts[0]

    @property
    def size(self) -> str:
        return self._parts[1]

    @property
    def category(self) -> str | None:
        return self._parts[2]

    @property
    def generation(self) -> int | None:
        return self._parts[3]

    @property
    def is_nvidia(self) -> bool:
        """The accelerator is an NVIDIA GPU (whole or fractional)."""
        return self.gpu is not None and self.gpu.manufacturer == "nvidia"

    @property
    def nvidia_gpus(self) -> int:
        """``nvidia.com/gpu`` capacity in Karpenter's scheduling and limits: EC2's count for NVIDIA
        GPUs, else 0 (aws/karpenter-provider-aws ``pkg/providers/instancetype/types.go`` ``nvidiaGPUs``; a resource a
        type lacks counts as 0 against the NodePool's limits, kubernetes-sigs/karpenter ``scheduler.go``)."""
        return self.ec2_gpus if self.is_nvidia else 0

    @property
    def advertised_gpus(self) -> int | None:
        """``nvidia.com/gpu`` the NVIDIA device plugin advertises on a node of this type: the EC2 count
        for whole GPUs, 0 without NVIDIA GPUs, None (unknown: the pool must state ``gpusPerNode``) for
        fractional GPUs (g6f, gr6f), whose advertised count no source gives."""
        if not self.is_nvidia:
            return 0
        if self.gpu.fractional or self.ec2_gpus == 0:
            return None
        return self.ec2_gpus

    @property
    def gpu_memory_mib(self) -> int | None:
        """MiB per GPU (Karpenter ``instance-gpu-memory``), None when not sourced or no GPU."""
        if self.gpu is None:
            return None
        return GPU_MEMORY_BY_TYPE.get(self.name, self.gpu.gpu_memory_mib)

    @property
    def mig_capable(self) -> bool | None:
        """The GPU supports Multi-Instance GPU (NVIDIA MIG guide); None when unconfirmed; False without GPU."""
        return self.gpu.mig_capable if self.gpu is not None else False

    @property
    def efa_supported(self) -> bool | None:
        """At least one EFA interface; None when the EFA count is not sourced."""
        return None if self.efa_interfaces is None else self.efa_interfaces > 0

    @property
    def memory_capacity_mib(self) -> int:
        """Karpenter's ``memory`` capacity before a node exists: MiB (minus 64 on arm64) minus
        ``ceil(MiB * 7.5%)`` (types.go ``memory``, default ``VM_MEMORY_OVERHEAD_PERCENT``)."""
        mib = self.memory_mib - (ARM64_RESERVED_MIB if self.architecture == "arm64" else 0)
        return mib - math.ceil(mib * VM_MEMORY_OVERHEAD_PERCENT)

    def label(self, suffix: str) -> str | LabelValue:
        """The value of Karpenter label ``karpenter.k8s.aws/<suffix>`` (same for Auto Mode's
        ``eks.amazonaws.com/<suffix>``) on this type, or :class:`LabelValue` ABSENT / UNKNOWN.

        GPU labels exist only when EC2 reports exactly one GPU entry (types.go L426-432), so also
        for g6f (count ``"0"``); the catalog assumes one entry for every type with a GPU family.

        Raises:
            KeyError: a suffix the catalog does not model (see ``requirements.INSTANCE_LABELS``).
        """
        # A type's labels never change: each is worked out once (a NodePool's requirements are
        # evaluated against every catalog type, and placement reads each type's labels per pool).
        known = self._labels
        if suffix in known:
            return known[suffix]
        value = known[suffix] = self._label(suffix)
        return value

    @cached_property
    def _labels(self) -> dict[str, str | LabelValue]:
        return {}

    def _label(self, suffix: str) -> str | LabelValue:
        gpu = self.gpu
        if suffix.startswith("instance-gpu-") and gpu is None:
            return LabelValue.ABSENT
        values: dict[str, object] = {
            "instance-family": self.family,
            "instance-size": self.size,
            "instance-category": self.category,
            "instance-generation": self.generation,
            "instance-cpu": self.vcpu,
            "instance-memory": self.memory_mib,
            "instance-gpu-count": self.ec2_gpus,
            "instance-gpu-name": gpu and gpu.gpu_name,
            "instance-gpu-manufacturer": gpu and gpu.manufacturer,
            "instance-gpu-memory": self.gpu_memory_mib,
        }
        value = values[suffix]
        if value is None:
            return LabelValue.ABSENT if suffix in ("instance-category", "instance-generation") else LabelValue.UNKNOWN
        return str(value)
