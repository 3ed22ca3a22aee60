"""Per-GPU MIG profile tables: which profiles a GPU can run and how many GPU instances of each fit. Pure data.

A table maps a MIG profile (``<compute>g.<memory>gb``, ``+me`` with media extensions) to the GPU
instances of that profile one GPU holds when every instance has that profile: the figure a node
partitioned into one profile advertises per GPU, and so the Cluster Autoscaler's count
(instances x GPUs). Each table names its source; a GPU without a table is not judged.

Sources, each read at the tag or commit named:

* A30 and A100: NVIDIA MIG User Guide, "Supported MIG Profiles"
  (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html): the A30-24GB
  and A100-SXM4-40GB tables, and the note that the A100-SXM4-80GB names "change according to the memory
  proportion". The guide's H100, H200 and Blackwell tables were not read here (the copy consulted shows A30
  and A100 only), so those GPUs take the sources below.
* H100 80GB, H200 141GB and B200: the GPU Operator's MIG manager config ``default-mig-parted-config``
  (NVIDIA/gpu-operator ``assets/state-mig-manager/0400_configmap.yaml``@v26.7.0, the chart version the
  component pins): each ``all-<profile>`` layout's ``mig-devices`` count is the instances per GPU the
  layout creates; the GPU of a profile is the layout's ``device-filter`` where it has one
  (``all-1g.10gb``: 7 on 0x233010DE, 4 on A100 40GB; ``all-1g.35gb``: 4 on 0x233510DE), its comment and the
  ``all-balanced`` entry of the GPU's device ID otherwise. Device IDs: the PCI ID list vendored in the same
  tag (``vendor/github.com/NVIDIA/go-nvlib/pkg/pciids/default_pci.ids``: 10de:2330 "GH100 [H100 SXM5 80GB]",
  2335 "GH100 [H200 SXM 141GB]", 2901 "GB100 [B200]"). Cross-checks, no count differing: GKE's
  partitioner (below) has every profile but the ``+me`` ones with the same counts (its ``partition_gpu.go``
  names the accelerator of each); NVIDIA/mig-parted
  ``deployments/container/nvidia-mig-manager-example-hopper-blackwell.yaml``@v0.15.0 has the same layouts
  and counts (its H100-80GB section without ``all-4g.40gb``); the guide's "Supported GPUs"
  (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html) gives H100-SXM5 80GB,
  H200-SXM5 141GB and B200 180GB, each at most 7 instances.
* GKE (``gpu_partition_size``): the partition sizes GKE's own partitioner creates and its device plugin
  accepts, GoogleCloudPlatform/container-engine-accelerators ``partition_gpu/partition_gpu.go``
  (``partitionSizeMaxCount``) and ``pkg/gpu/nvidia/mig/mig.go`` (``gpuPartitionSizeMaxCount``: a size
  missing there fails the plugin with "is not a valid GPU partition size", and a GPU holding another count
  of partitions fails it too) @992db81 (the repository has no release tag after v1.0.20 of 2022, which
  knows A100 only). GKE's page https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi defers
  to the MIG user guide for the sizes. GKE's set is smaller than NVIDIA's: no ``+me`` and no ``4g``
  profile on A100 and H100, no ``1g.10gb`` on the A100 40GB.

Not tabled (not judged, as before): B300 (``p6-b300``: only the operator's config names its profiles, no
second source), GB200 (the instance catalog has no GPU figures for ``p6e-gb200``), H100 NVL 94GB and GH200
(no EC2 type or GKE accelerator type of the component has them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

__all__ = ["MigTable", "MIG_PROFILES", "GKE_PARTITION_SIZES", "AWS_MODELS", "GKE_MODELS"]

_GUIDE = "NVIDIA MIG User Guide, Supported MIG Profiles: https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
_OPERATOR = (
    "the GPU Operator's default-mig-parted-config: NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml@v26.7.0"
)
_GKE = (
    "GKE's partitioner: GoogleCloudPlatform/container-engine-accelerators partition_gpu/partition_gpu.go and "
    "pkg/gpu/nvidia/mig/mig.go@992db81"
)


class MigTable(Mapping[str, int]):
    """One GPU's MIG profiles: ``{profile: GPU instances per GPU}``, read-only, in the source's order.

    Attributes:
        model: the GPU (``H100-80GB``) or, for GKE, the accelerator type (``nvidia-h100-80gb``).
        source: where the table comes from (owner/repo path@tag or URL), for messages.
    """

    def __init__(self, model: str, source: str, profiles: Mapping[str, int]) -> None:
        self.model = model
        self.source = source
        self._profiles = dict(profiles)

    def __getitem__(self, profile: str) -> int:
        return self._profiles[profile]

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def __len__(self) -> int:
        return len(self._profiles)

    def __repr__(self) -> str:
        return f"MigTable({self.model!r}, {self._profiles!r})"


#: GPU model -> its MIG profile table (sources in the module docstring).
MIG_PROFILES: dict[str, MigTable] = {
    t.model: t
    for t in (
        MigTable("A100-40GB", _GUIDE, {"1g.5gb": 7, "1g.5gb+me": 1, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2,
                                       "4g.20gb": 1, "7g.40gb": 1}),
        MigTable("A100-80GB", _GUIDE, {"1g.10gb": 7, "1g.10gb+me": 1, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2,
                                       "4g.40gb": 1, "7g.80gb": 1}),
        MigTable("A30-24GB", _GUIDE, {"1g.6gb": 4, "1g.6gb+me": 1, "2g.12gb": 2, "2g.12gb+me": 1, "4g.24gb": 1}),
        MigTable("H100-80GB", _OPERATOR, {"1g.10gb": 7, "1g.10gb+me": 1, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2,
                                          "4g.40gb": 1, "7g.80gb": 1}),
        MigTable("H200-141GB", _OPERATOR, {"1g.18gb": 7, "1g.18gb+me": 1, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2,
                                           "4g.71gb": 1, "7g.141gb": 1}),
        MigTable("B200-180GB", _OPERATOR, {"1g.23gb": 7, "1g.23gb+me": 1, "1g.45gb": 4, "2g.45gb": 3, "3g.90gb": 2,
                                           "4g.90gb": 1, "7g.180gb": 1}),
    )
}  # fmt: skip

#: EC2 GPU (instance catalog ``gpu_name``, MiB per GPU) -> :data:`MIG_PROFILES` model. The catalog's
#: figures: p4d A100 40960, p4de A100 81920, p5 H100 81920, p5e/p5en H200 144384, p6-b200 B200 183359.
AWS_MODELS: dict[tuple[str, int], str] = {
    ("a100", 40960): "A100-40GB",
    ("a100", 81920): "A100-80GB",
    ("h100", 81920): "H100-80GB",
    ("h200", 144384): "H200-141GB",
    ("b200", 183359): "B200-180GB",
}

#: GKE accelerator type -> its GPU (:data:`MIG_PROFILES` model). ``nvidia-h100-mega-80gb`` (A3 Mega) carries
#: the same H100 80GB GPU as ``nvidia-h100-80gb``.
GKE_MODELS: dict[str, str] = {
    "nvidia-tesla-a100": "A100-40GB",
    "nvidia-a100-80gb": "A100-80GB",
    "nvidia-h100-80gb": "H100-80GB",
    "nvidia-h100-mega-80gb": "H100-80GB",
    "nvidia-h200-141gb": "H200-141GB",
    "nvidia-b200": "B200-180GB",
}

_GKE_A100_40 = {"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "7g.40gb": 1}
_GKE_A100_80 = {"1g.10gb": 7, "2g.20gb": 3, "3g.40gb": 2, "7g.80gb": 1}
_GKE_H100 = {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "7g.80gb": 1}
_GKE_H200 = {"1g.18gb": 7, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1, "7g.141gb": 1}
_GKE_B200 = {"1g.23gb": 7, "1g.45gb": 4, "2g.45gb": 3, "3g.90gb": 2, "4g.90gb": 1, "7g.180gb": 1}

#: GKE accelerator type -> the ``gpu_partition_size`` values GKE partitions it into, with partitions per GPU.
GKE_PARTITION_SIZES: dict[str, MigTable] = {
    accel: MigTable(accel, _GKE, sizes)
    for accel, sizes in (
        ("nvidia-tesla-a100", _GKE_A100_40),
        ("nvidia-a100-80gb", _GKE_A100_80),
        ("nvidia-h100-80gb", _GKE_H100),
        ("nvidia-h100-mega-80gb", _GKE_H100),
        ("nvidia-h200-141gb", _GKE_H200),
        ("nvidia-b200", _GKE_B200),
    )
}
