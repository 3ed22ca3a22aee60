"""Compute Engine machine types a gke pool may name, and the GPUs each carries: the one sourced table.

Pure data and one judge, :func:`machine_problems`, used by the pool model (errors) and its
``config_warnings`` (what the table cannot judge). No pydantic, no Pulumi.

Sources:

* Accelerator-optimized machine types and the GPUs attached to each (A2, A3 High/Mega/Ultra, A4, A4X, G2,
  G4): GoogleCloudPlatform/cluster-toolkit ``modules/internal/gpu-definition/main.tf``@147e356daa10
  (``accelerator_machines``: machine type -> ``{type, count}``), Google's own table for deriving a node
  pool's accelerators from its machine type; the series and their GPU models:
  https://cloud.google.com/compute/docs/gpus and
  https://cloud.google.com/compute/docs/accelerator-optimized-machines (A4X carries ``nvidia-gb200``
  Superchips on NVIDIA Grace, Arm).
* A3 Edge (``a3-edgegpu-8g``, ``-nolssd``: 8 x ``nvidia-h100-80gb``): GKE's ComputeClass example in
  https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus; its other sizes are not sourced,
  so they are not judged (a warning).
* G4: the four sizes above; Compute Engine also has G4 types with less than one GPU (same GKE page,
  "G4 machine types that have less than one GPU"), which are not tabled: other G4 sizes are not judged.
* A4X Max (``a4x-maxgpu-4g-metal``, bare metal: 4 x ``nvidia-gb300`` on NVIDIA Grace, Arm): the A4X Max table of
  https://cloud.google.com/compute/docs/gpus, and a GKE node pool of that machine type with 4 x ``nvidia-gb300`` in
  GoogleCloudPlatform/cluster-toolkit ``examples/gke-a4x-max-bm/gke-a4x-max-bm.yaml``@1047080375af.
* ``-nolssd``/``-lowmem`` variants (the same GPUs without the bundled Local SSD, or with less memory):
  cluster-toolkit (``a4-highgpu-8g-lowmem``, ``a4x-highgpu-4g-nolssd``); the A3 ``-nolssd`` types GKE's docs name;
  ``a3-ultragpu-8g-nolssd`` with 8 x ``nvidia-h200-141gb`` in GoogleCloudPlatform/cloud-image-tests
  ``test_suites/acceleratorconfig/setup.go``@06b6b5593d52 (Google's GPU-count test of that machine type);
  ``a4-highgpu-8g-nolssd`` among the machine types of GoogleCloudPlatform/gcsfuse ``cfg/params.yaml``@7b39292788a4.
  A variant the table lacks is not judged (a warning): ``a2-ultragpu-*-nolssd`` and ``a3-megagpu-8g-nolssd`` have
  no public source here that can be cited by repository and commit.
* N1 with an attached GPU: the GPU counts an N1 VM takes and the most vCPUs per count (T4: 1 or 2 GPUs up
  to 48 vCPUs, 4 up to 96; P4: 24/48/96; P100: 16/32/96; V100: 12/24/48/96 for 1/2/4/8), from the N1
  section of https://cloud.google.com/compute/docs/gpus as skypilot-org/skypilot
  ``sky/catalog/gcp_catalog.py``@b9dd08e76883 ``_NUM_ACC_TO_MAX_CPU_AND_MEMORY`` tabulates it
  (P100 x4 is 64 vCPUs in three zones, not judged here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "GpuSeries",
    "GPU_SERIES",
    "N1_GPU_MAX_VCPUS",
    "NO_GPU_SERIES",
    "MachineProblem",
    "fixed_gpus",
    "machine_arch",
    "machine_problems",
]

_TOOLKIT = ("GoogleCloudPlatform/cluster-toolkit modules/internal/gpu-definition/main.tf@147e356daa10; "
            "https://cloud.google.com/compute/docs/gpus")
_AUTOPILOT = "https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus"
_A3_ULTRA_NOLSSD = "a3-ultragpu-8g-nolssd: GoogleCloudPlatform/cloud-image-tests test_suites/acceleratorconfig@06b6b5593d52"
_A4_NOLSSD = "a4-highgpu-8g-nolssd: GoogleCloudPlatform/gcsfuse cfg/params.yaml@7b39292788a4"
_A4X_MAX = ("https://cloud.google.com/compute/docs/gpus (A4X Max); GoogleCloudPlatform/cluster-toolkit "
            "examples/gke-a4x-max-bm/gke-a4x-max-bm.yaml@1047080375af")
_N1 = ("N1 section of https://cloud.google.com/compute/docs/gpus, as tabulated in skypilot-org/skypilot "
       "sky/catalog/gcp_catalog.py@b9dd08e76883")


@dataclass(frozen=True)
class GpuSeries:
    """One accelerator-optimized machine series: its name prefix and the GPUs of each size.

    Attributes:
        label: the series as Compute Engine names it (``A2 High``).
        prefix: the machine type prefix (``a2-highgpu-``).
        accelerator: the GKE accelerator type every size carries (``nvidia-tesla-a100``).
        sizes: the size in the name -> GPUs: ``<N>g`` series (``a2-highgpu-4g``) map N to N; G series are
            named by vCPUs (``g2-standard-48``: 4 GPUs).
        by_vcpus: the name's number is vCPUs (G2, G4), not ``<N>g``.
        complete: the sourced sizes are all the series has, so another size does not exist (refused);
            False: other sizes are not judged (a warning).
        variants: sourced name suffixes after the size (``-nolssd``, ``-lowmem``, ``-metal``).
        plain: the name without a variant suffix exists (False for A4X Max, sourced only as ``-metal``).
        arch: the CPU architecture of its nodes (``kubernetes.io/arch``).
        source: where the row comes from.
    """

    label: str
    prefix: str
    accelerator: str
    sizes: Mapping[int, int]
    source: str
    by_vcpus: bool = False
    complete: bool = True
    variants: tuple[str, ...] = ()
    arch: str = "amd64"
    plain: bool = True

    def size_name(self, size: int) -> str:
        name = f"{self.prefix}{size}" if self.by_vcpus else f"{self.prefix}{size}g"
        return name if self.plain else name + self.variants[0]


def _g(*counts: int) -> dict[int, int]:
    return {n: n for n in counts}


#: Every accelerator-optimized series the component judges (sources in the module docstring).
GPU_SERIES: tuple[GpuSeries, ...] = (
    GpuSeries("A2 High", "a2-highgpu-", "nvidia-tesla-a100", _g(1, 2, 4, 8), _TOOLKIT),
    GpuSeries("A2 Mega", "a2-megagpu-", "nvidia-tesla-a100", _g(16), _TOOLKIT),
    GpuSeries("A2 Ultra", "a2-ultragpu-", "nvidia-a100-80gb", _g(1, 2, 4, 8), _TOOLKIT),
    GpuSeries("A3 High", "a3-highgpu-", "nvidia-h100-80gb", _g(1, 2, 4, 8), _TOOLKIT, variants=("-nolssd",)),
    GpuSeries("A3 Mega", "a3-megagpu-", "nvidia-h100-mega-80gb", _g(8), _TOOLKIT),
    GpuSeries("A3 Ultra", "a3-ultragpu-", "nvidia-h200-141gb", _g(8), f"{_TOOLKIT}; {_A3_ULTRA_NOLSSD}",
              variants=("-nolssd",)),
    GpuSeries("A3 Edge", "a3-edgegpu-", "nvidia-h100-80gb", _g(8), _AUTOPILOT, complete=False, variants=("-nolssd",)),
    GpuSeries("A4", "a4-highgpu-", "nvidia-b200", _g(8), f"{_TOOLKIT}; {_A4_NOLSSD}", variants=("-lowmem", "-nolssd")),
    GpuSeries("A4X", "a4x-highgpu-", "nvidia-gb200", _g(4), _TOOLKIT, variants=("-nolssd",), arch="arm64"),
    GpuSeries("A4X Max", "a4x-maxgpu-", "nvidia-gb300", _g(4), _A4X_MAX, variants=("-metal",), arch="arm64", plain=False),
    GpuSeries("G2", "g2-standard-", "nvidia-l4", {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}, _TOOLKIT,
              by_vcpus=True),
    GpuSeries("G4", "g4-standard-", "nvidia-rtx-pro-6000", {48: 1, 96: 2, 192: 4, 384: 8}, _TOOLKIT + "; " + _AUTOPILOT,
              by_vcpus=True, complete=False),
)
#: GPU model attached to an N1 VM -> {GPUs: most vCPUs of the N1 machine type} (:data:`_N1`).
N1_GPU_MAX_VCPUS: dict[str, dict[int, int]] = {
    "nvidia-tesla-t4": {1: 48, 2: 48, 4: 96},
    "nvidia-tesla-p4": {1: 24, 2: 48, 4: 96},
    "nvidia-tesla-p100": {1: 16, 2: 32, 4: 96},
    "nvidia-tesla-v100": {1: 12, 2: 24, 4: 48, 8: 96},
}
#: General-purpose, compute- and memory-optimized series that take no GPU (https://cloud.google.com/compute/docs/gpus:
#: GPUs come with the A and G series or attach to N1 only).
NO_GPU_SERIES = frozenset(
    {"e2", "n2", "n2d", "n4", "n4d", "c2", "c2d", "c3", "c3d", "c4", "c4a", "c4d", "t2a", "t2d", "m1", "m2", "m3", "m4", "h3", "z3"}
)
_N1_PREDEFINED = re.compile(r"n1-(?:standard|highmem|highcpu)-(\d+)")


@dataclass(frozen=True)
class MachineProblem:
    """One finding about a pool's machine type and accelerator: ``key`` is the path under the pool
    (``("accelerator", "type")``), ``warning`` True for what the table does not judge."""

    key: tuple[str, ...]
    message: str
    warning: bool = False


def _series(machine_type: str) -> GpuSeries | None:
    return next((s for s in GPU_SERIES if machine_type.startswith(s.prefix)), None)


def _size(series: GpuSeries, machine_type: str) -> tuple[int | None, str]:
    """``(size, suffix)`` of a name of ``series``: ``a4-highgpu-8g-lowmem`` -> ``(8, "-lowmem")``; None when
    the name has no size where the series puts it."""
    m = re.fullmatch(r"(\d+)(-[a-z0-9-]+)?" if series.by_vcpus else r"(\d+)g(-[a-z0-9-]+)?", machine_type[len(series.prefix):])
    return (int(m.group(1)), m.group(2) or "") if m else (None, "")


def fixed_gpus(machine_type: str) -> tuple[str, int | None] | None:
    """``(accelerator type, GPUs or None)`` an accelerator-optimized machine type comes with, or None when its
    series is not in :data:`GPU_SERIES` (N1, unknown series). The count is None for a size the table lacks."""
    series = _series(machine_type)
    if series is None:
        return None
    size, _ = _size(series, machine_type)
    return series.accelerator, series.sizes.get(size) if size is not None else None


#: Machine families of Arm GPU machines, for a type whose series the table lacks (A4X: NVIDIA Grace,
#: https://cloud.google.com/compute/docs/accelerator-optimized-machines#a4x-series).
_ARM_FAMILIES = ("a4x",)


def machine_arch(machine_type: str) -> str:
    """``arm64`` for a series of Arm machines (A4X: NVIDIA Grace), ``amd64`` otherwise."""
    series = _series(machine_type)
    if series is not None:
        return series.arch
    return "arm64" if machine_type.split("-", 1)[0] in _ARM_FAMILIES else "amd64"


def machine_problems(machine_type: str, accelerator: str, count: int) -> list[MachineProblem]:
    """What Compute Engine refuses about ``machine_type`` with ``count`` x ``accelerator`` (errors), and what
    this table cannot judge (warnings), each with its source and the fix.

    Rules: a machine type of a tabled accelerator-optimized series must be one of its sizes (when the
    series' sizes are complete) and carries its series' GPU model and count; an N1 machine type takes a T4,
    P4, P100 or V100, in the counts the model allows, and at most that count's vCPUs; the series of
    :data:`NO_GPU_SERIES` take no GPU; any other series is not judged (a warning, never a silent accept).
    """
    series = _series(machine_type)
    if series is not None:
        return _series_problems(series, machine_type, accelerator, count)
    family = machine_type.split("-", 1)[0]
    if family == "n1":
        return _n1_problems(machine_type, accelerator, count)
    if family in NO_GPU_SERIES:
        return [MachineProblem(("machineType",), (
            f"{machine_type!r}: GPUs cannot be attached to the {family.upper()} series (GPUs come with the A and G "
            "series or attach to N1: https://cloud.google.com/compute/docs/gpus); use n1-* with a T4/V100/P100/P4, "
            "or a GPU machine type (g2-standard-* for L4, a2/a3/a4 for A100/H100/H200/B200)"))]
    known = ", ".join(s.prefix + "*" for s in GPU_SERIES)
    return [MachineProblem(("machineType",), (
        f"{machine_type!r} is of a machine series the component's table does not list (it knows n1-* and {known}: "
        "backends/gke/machines.py, from https://cloud.google.com/compute/docs/gpus), so whether it takes "
        f"{count} x {accelerator} is not judged; Compute Engine refuses the node pool if it does not"), warning=True)]


def _series_problems(series: GpuSeries, machine_type: str, accelerator: str, count: int) -> list[MachineProblem]:
    size, suffix = _size(series, machine_type)
    sizes = ", ".join(series.size_name(n) for n in series.sizes)
    if size is None or size not in series.sizes:
        if series.complete:
            return [MachineProblem(("machineType",), (
                f"{machine_type!r} does not exist: {series.label} comes as {sizes} ({series.source}); "
                "pick one of those"))]
        out = [MachineProblem(("machineType",), (
            f"{machine_type!r}: the component's table lists {series.label} as {sizes} only ({series.source}), so this "
            f"size and its GPU count are not judged; Compute Engine refuses the node pool if it does not exist"),
            warning=True)]
        return out + _accelerator_problem(series, machine_type, accelerator)
    problems = _accelerator_problem(series, machine_type, accelerator)
    gpus = series.sizes[size]
    if not problems and count != gpus:
        problems.append(MachineProblem(("accelerator", "count"), (
            f"{count}: machine type {machine_type} comes with {gpus} x {series.accelerator} ({series.source}); "
            f"set accelerator.count: {gpus}")))
    if (suffix or not series.plain) and suffix not in series.variants:
        what = (f"the variant {suffix!r} of {series.size_name(size)} is not in the component's table" if suffix else
                f"the component's table has {series.label} only as {series.size_name(size)}")
        problems.append(MachineProblem(("machineType",), (
            f"{machine_type!r}: {what} ({series.source}; known variants: {', '.join(series.variants) or 'none'}), so "
            "it is not judged; Compute Engine refuses the node pool if it does not exist"), warning=True))
    return problems


def _accelerator_problem(series: GpuSeries, machine_type: str, accelerator: str) -> list[MachineProblem]:
    if accelerator == series.accelerator:
        return []
    arm = ", Arm: NVIDIA Grace" if series.arch == "arm64" else ""
    return [MachineProblem(("accelerator", "type"), (
        f"{accelerator!r}: machine type {machine_type} ({series.label}{arm}) comes with {series.accelerator} "
        f"({series.source}); set accelerator.type: {series.accelerator} or pick another machine type"))]


def _n1_problems(machine_type: str, accelerator: str, count: int) -> list[MachineProblem]:
    limits = N1_GPU_MAX_VCPUS.get(accelerator)
    if limits is None:
        return [MachineProblem(("accelerator", "type"), (
            f"{accelerator!r} cannot be attached to {machine_type}: N1 machines take {', '.join(N1_GPU_MAX_VCPUS)} "
            f"({_N1}); other GPUs come with their machine type (L4: g2-standard-*, A100: a2-*, H100/H200: a3-*, "
            "B200: a4-*)"))]
    if count not in limits:
        counts = list(limits)
        return [MachineProblem(("accelerator", "count"), (
            f"{count}: an N1 VM takes {', '.join(map(str, counts[:-1]))} or {counts[-1]} x {accelerator} ({_N1}); "
            "set accelerator.count to one of them"))]
    m = _N1_PREDEFINED.fullmatch(machine_type)
    if m is None:
        return [MachineProblem(("machineType",), (
            f"{machine_type!r}: the vCPUs of this N1 machine type are not read by the component (it reads "
            f"n1-standard-*, n1-highmem-*, n1-highcpu-*), so the limit of {limits[count]} vCPUs with {count} x "
            f"{accelerator} is not judged ({_N1})"), warning=True)]
    vcpus = int(m.group(1))
    if vcpus > limits[count]:
        more = [n for n, v in limits.items() if v >= vcpus]
        also = f", or accelerator.count: {more[0]}" if more else ""
        return [MachineProblem(("machineType",), (
            f"{machine_type!r} has {vcpus} vCPUs, but an N1 VM with {count} x {accelerator} has at most "
            f"{limits[count]} ({_N1}); pick an N1 machine type of {limits[count]} vCPUs or fewer{also}"))]
    return []
