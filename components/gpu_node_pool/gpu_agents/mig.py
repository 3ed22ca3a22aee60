"""MIG: accepted only where something partitions the GPUs; the resource the autoscaler must expect.

Setting ``migStrategy`` or the ``nvidia.com/mig.config`` label partitions nothing by itself:
the standalone device plugin only discovers MIG devices that already exist. Partitioners:

* the GPU Operator's MIG manager (``devicePlugin.provider: gpu-operator``; it applies the layout named
  by the ``nvidia.com/mig.config`` node label, which the pool models set: ``PoolBase.mig_by_operator``);
* a Bottlerocket NVIDIA AMI, with its own MIG settings in the node's user data (``single`` only);
* GKE, through ``gpu_partition_size`` (``single`` only: pods request ``nvidia.com/gpu`` and
  pick the size by node selector ``cloud.google.com/gke-gpu-partition-size``;
  https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi).

Exposed resources (NVIDIA/k8s-device-plugin@v0.20.0 ``internal/rm/rm.go``, README.md ``--mig-strategy``): ``single`` exposes MIG devices as
``nvidia.com/gpu``; ``mixed`` exposes ``nvidia.com/mig-<profile>`` (``+`` becomes ``.``).

Which GPUs are MIG-capable comes from the instance catalog (``components/gpu_node_pool/catalog``,
:func:`mig_gpu`); which profiles a GPU runs and how many instances of each fit come from the per-GPU
tables of :mod:`.mig_profiles` (A30 and A100 from NVIDIA's MIG User Guide; H100 80GB, H200 141GB and
B200 from the GPU Operator's default MIG layouts, NVIDIA/gpu-operator
``assets/state-mig-manager/0400_configmap.yaml``@v26.7.0; GKE pools from GKE's own partitioner, whose
set is smaller). A GPU without a table (B300, GB200) is not judged: a warning, never a refusal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .mig_profiles import AWS_MODELS, GKE_MODELS, GKE_PARTITION_SIZES, MIG_PROFILES, MigTable
from .pools import AgentPool, Problem

__all__ = [
    "MIG_PROFILES",
    "GKE_PARTITION_SIZES",
    "GKE_MIG_ACCELERATORS",
    "mig_gpu",
    "GPU_RESOURCE",
    "partitioner",
    "bottlerocket_settings",
    "mig_problems",
    "mixed_gpus",
    "mig_resource_name",
    "autoscaler_resource",
    "gke_partition_size",
    "MIG_GUIDE_GPUS",
    "no_mig_message",
    "gpus_without_mig",
    "tabled_aws_gpus",
]

GPU_RESOURCE = "nvidia.com/gpu"

#: The GPUs that support MIG, as every refusal of MIG on another GPU cites them (NVIDIA MIG User Guide, Supported
#: GPUs: https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html); the instance catalog's
#: ``mig_capable`` (``catalog/_families.py``) is read from the same page.
MIG_GUIDE_GPUS = "NVIDIA MIG User Guide, Supported GPUs: A30, A100, H100, H200, B200 and later"

#: GKE accelerator types that support MIG partitions (GKE "Running multi-instance GPUs": A100 40GB and
#: 80GB, H100 80GB, H200, B200: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi).
GKE_MIG_ACCELERATORS = (
    "nvidia-tesla-a100", "nvidia-a100-80gb", "nvidia-h100-80gb", "nvidia-h100-mega-80gb", "nvidia-h200-141gb",
    "nvidia-b200",
)  # fmt: skip


def mig_gpu(pool: Any) -> tuple[bool | None, str | None, MigTable | None]:
    """``(MIG-capable, GPU model, profile table)`` of a pool config model, from the instance catalog.

    AWS pools: every instance type's catalog entry (``InstanceType.mig_capable``, source the MIG
    guide's "Supported GPUs"): False if any type lacks MIG, None if any is unconfirmed or unknown,
    or the pool names no types (a model's ``candidate_instance_types``, what a Karpenter NodePool can launch,
    when given, else its ``instance_types``). The GPU model is the :data:`MIG_PROFILES` key
    of the catalog's GPU name and memory per GPU (``p5.48xlarge`` -> ``H100-80GB``) when one model covers
    every type, else the catalog's GPU names; the table is that model's, or None (not judged).
    A pool whose model names its GPU (``PoolBase.gpu_model``: a GKE accelerator type, e.g.
    ``nvidia-h100-80gb``): MIG-capable when GKE lists the type (:data:`GKE_MIG_ACCELERATORS`), and the
    table is GKE's partition sizes for it (:data:`GKE_PARTITION_SIZES`), which GKE's partitioner can create.
    """
    accel = getattr(pool, "gpu_model", None)
    if accel is not None:  # the pool names its GPU (GKE: the accelerator type)
        return accel in GKE_MIG_ACCELERATORS, GKE_MODELS.get(accel), GKE_PARTITION_SIZES.get(accel)
    from .. import catalog

    types = list(getattr(pool, "candidate_instance_types", None) or getattr(pool, "instance_types", None) or [])
    if not types:
        return None, None, None
    found = [catalog.find(t) for t in types]
    if any(f is None for f in found):
        return None, None, None
    capable = {f.mig_capable for f in found}
    verdict = False if False in capable else (None if None in capable else True)
    models = {AWS_MODELS.get((f.gpu.gpu_name, f.gpu_memory_mib)) if f.gpu and f.gpu.gpu_name else None for f in found}
    model = models.pop() if len(models) == 1 else None
    gpu_names = {f.gpu.model for f in found if f.gpu}
    display = model or (", ".join(sorted(gpu_names)) or None)
    return verdict, display, MIG_PROFILES.get(model or "")


def no_mig_message(gpus: str | Mapping[str, Sequence[str]], *, capable_types: bool = False) -> str:
    """The refusal of ``mig`` on GPUs that do not support MIG, the one wording of every backend.

    ``gpus``: the pool's one GPU (``"NVIDIA L40S"``): ``the GPU of this pool (NVIDIA L40S) does not support MIG
    (<MIG_GUIDE_GPUS>); remove mig or use a MIG-capable GPU``; or ``{GPU: [instance types]}`` for a pool whose
    types the catalog evaluates (a Karpenter NodePool): ``the GPUs of this pool (NVIDIA L4 on g6.xlarge; NVIDIA
    L40S on g6e.xlarge) do not support MIG (...)``, every type named, and the MIG-capable EC2 GPUs with a
    profile table (:func:`tabled_aws_gpus`) in the fix. ``capable_types``: some of the pool's types do carry a
    MIG-capable GPU, so the fix is to leave the others out.
    """
    if isinstance(gpus, str):
        return (f"the GPU of this pool ({gpus}) does not support MIG ({MIG_GUIDE_GPUS}); remove mig or use a "
                "MIG-capable GPU")
    named = "; ".join(f"{gpu} on {', '.join(types)}" for gpu, types in sorted(gpus.items()))
    verb = "GPUs of this pool ({}) do not" if len(gpus) > 1 else "GPU of this pool ({}) does not"
    fix = ("leave those types out, keeping the types of one MIG-capable GPU" if capable_types else
           f"remove mig or use a MIG-capable GPU (with a MIG profile table: {tabled_aws_gpus()})")
    return f"the {verb.format(named)} support MIG ({MIG_GUIDE_GPUS}); {fix}"


def gpus_without_mig(types: Sequence[str]) -> tuple[dict[str, list[str]], bool]:
    """``({GPU model: [types]}, some capable)`` of the instance types (sorted) whose GPU does not support MIG
    per the instance catalog (``InstanceType.mig_capable`` False, source :data:`MIG_GUIDE_GPUS`); types the catalog
    lacks or whose GPU is unconfirmed are not judged. ``some capable``: another of the types carries a
    MIG-capable GPU."""
    from .. import catalog

    out: dict[str, list[str]] = {}
    capable = False
    for name in sorted(types):
        found = catalog.find(name)
        if found is None or found.gpu is None:
            continue
        if found.mig_capable is False:
            out.setdefault(found.gpu.model, []).append(name)
        elif found.mig_capable:
            capable = True
    return out, capable


def tabled_aws_gpus() -> str:
    """The EC2 GPUs with a MIG profile table, each with its instance families, in :data:`MIG_PROFILES` order:
    ``A100-40GB (p4d), A100-80GB (p4de), H100-80GB (p5), ...`` (:data:`AWS_MODELS` over the instance catalog's
    NVIDIA families). A table no EC2 family reaches (A30) is left out, as README.md's MIG table leaves it out."""
    from .. import catalog

    families: dict[str, list[str]] = {}
    for family in sorted(catalog.nvidia_families()):
        gpu = catalog.family_gpu(family)
        model = AWS_MODELS.get((gpu.gpu_name, gpu.gpu_memory_mib)) if gpu and gpu.gpu_name and gpu.gpu_memory_mib else None
        if model is not None:
            families.setdefault(model, []).append(family)
    return ", ".join(f"{model} ({', '.join(families[model])})" for model in MIG_PROFILES if model in families)


def mixed_gpus(pool: Any) -> list[str]:
    """The GPU models of a pool whose instance types (catalog entries, as :func:`mig_gpu` reads them) carry more
    than one, sorted (``["NVIDIA A100 40GB", "NVIDIA H100"]``); ``[]`` when they carry one, or are not all known.

    GPUs are told apart by name and memory per GPU when the catalog gives every type's memory, else by name
    alone: a memory not sourced (None) is not another GPU (``p3.2xlarge`` and ``p3dn.24xlarge`` both carry
    the V100). Two GPUs of one name are listed with their memory (``NVIDIA L4 (fraction) 2861 MiB``), never as
    one name."""
    from .. import catalog

    if getattr(pool, "gpu_model", None) is not None:
        return []
    types = list(getattr(pool, "candidate_instance_types", None) or getattr(pool, "instance_types", None) or [])
    found = [catalog.find(t) for t in types]
    if not found or any(f is None or f.gpu is None for f in found):
        return []
    by_memory = all(f.gpu_memory_mib is not None for f in found)
    kinds = {(f.gpu.gpu_name, f.gpu_memory_mib if by_memory else None) for f in found}
    if len(kinds) < 2:
        return []
    names = sorted({f.gpu.model for f in found})
    if len(names) > 1:
        return names
    memories = sorted({f.gpu_memory_mib for f in found if f.gpu_memory_mib is not None})
    return [f"{names[0]} {m} MiB" for m in memories] if len(memories) > 1 else sorted({f.gpu.gpu_name for f in found})


def bottlerocket_settings(pool: Any) -> dict[str, Any]:
    """The Bottlerocket settings a pool config model's nodes need for its ``mig`` or ``gpuSharing`` (``{}`` for
    neither), to merge under ``[settings]`` of the node's TOML user data. Only for a pool on a Bottlerocket NVIDIA
    image whose backend writes its settings (``writes_bottlerocket_settings``).

    ``mig``: ``{"kubelet-device-plugins": {"nvidia": {"device-partitioning-strategy": "mig", "mig": {"profile":
    {"<gpu>": "<profile>"}}}}}`` (:func:`.mig_partitioners.bottlerocket_mig_settings`; sources there).
    ``gpuSharing``: ``{"kubelet-device-plugins": {"nvidia": {"device-sharing-strategy": "time-slicing" | "mps",
    "<strategy>": {"replicas": N, "rename-by-default": false, ...}}}}``
    (:func:`.bottlerocket_sharing.bottlerocket_sharing_settings`; sources there). The stack rules refuse both together,
    so at most one applies (``mig`` when a refused config reaches here).

    Raises:
        ValueError: the GPU or profile is not in Bottlerocket's table (the config rules refuse it first).
    """
    from .bottlerocket_sharing import bottlerocket_sharing_settings, writes_nvidia_settings
    from .mig_partitioners import bottlerocket_mig_settings

    if not writes_nvidia_settings(pool):
        return {}
    mig = getattr(pool, "mig", None)
    if mig is None:
        return bottlerocket_sharing_settings(pool)
    _, model, _ = mig_gpu(pool)
    return bottlerocket_mig_settings(mig.profile, model)


def partitioner(pool: AgentPool, provider: str | None) -> str | None:
    """What partitions ``pool``'s GPUs into MIG devices, or None when nothing does.

    ``platform`` (the platform partitions: GKE ``gpu_partition_size``; ``pool.mig_by``),
    ``bottlerocket`` (the AMI's MIG settings), ``gpu-operator`` (its MIG manager). Bottlerocket
    wins over the operator: the operator's ``migManager`` is turned off there (see :mod:`.gpu_operator.values`).
    """
    if pool.mig_by == "platform":
        return "platform"
    if pool.image_family == "bottlerocket-nvidia":
        return "bottlerocket"
    if provider == "gpu-operator":
        return "gpu-operator"
    return None


def mig_problems(
    pool: AgentPool,
    path: str,
    *,
    provider: str | None,
    mig_capable: bool | None,
    profiles: Mapping[str, int] | None,
) -> list[Problem]:
    """Problems with ``pool``'s ``mig`` setting (``path`` is where it sits, e.g. ``pools[0].mig``).

    Args:
        pool: the pool; ``pool.mig`` None means nothing to check.
        provider: the stack's ``devicePlugin.provider`` (``nvidia-device-plugin`` | ``gpu-operator``), or None
            when the agent that serves the pool is a component declared apart, which judges what partitions the
            pool when it is declared (:func:`gpu_node_pool.gpu_agents.validate.served_pool_issues`).
        mig_capable: whether the pool's GPU supports MIG (from the instance catalog); None when
            not known, which is a warning (not judged), never a refusal.
        profiles: the GPU's profile table (:data:`MIG_PROFILES` of its model, GKE's
            :data:`GKE_PARTITION_SIZES` of its accelerator type), or None when not known (not judged).

    Rules (sources in the module docstring): a partitioner is required; ``mixed`` is refused on
    a platform that partitions itself (GKE); a GPU without MIG is refused; an unknown profile is refused when the table is known;
    what the partitioner cannot do is refused (:mod:`.mig_partitioners`: the GPU Operator's MIG manager needs a default
    layout for the profile; Bottlerocket needs ``single``, a backend that writes its settings and a profile of its table).
    """
    mig = pool.mig
    if mig is None:
        return []
    problems: list[Problem] = []
    if mig.strategy not in ("single", "mixed"):
        problems.append(Problem(f"{path}.strategy", f"{mig.strategy!r} is not a MIG strategy; use single or mixed"))
    if mig_capable is False:  # what would partition a GPU without MIG is moot: one refusal, the one that helps
        problems.append(
            Problem(path, no_mig_message(pool.gpu_model or "per the instance catalog"))
        )
        return problems
    where = partitioner(pool, provider)
    if where is None and provider is not None:  # None: the agent that serves the pool judges it (agents_apart)
        problems.append(
            Problem(
                path,
                f"nothing partitions this pool's GPUs into MIG devices: the standalone device plugin ({provider}) only "
                "discovers MIG devices that already exist (k8s-device-plugin README, migStrategy), so the nodes would "
                "advertise whole GPUs. Set devicePlugin.provider: gpu-operator (its MIG manager partitions; in a "
                "program, serve the pool with GpuOperator instead of NvidiaDevicePlugin), use a "
                "Bottlerocket NVIDIA image whose settings the backend writes (self-managed format: bottlerocket, "
                "eks-managed amiType BOTTLEROCKET_*), or "
                "remove mig",
            )
        )
    problems += _partitioner_problems(pool, path, where, profiles)
    if where == "platform" and mig.strategy == "mixed":
        problems.append(
            Problem(
                f"{path}.strategy",
                "'mixed': GKE partitions with gpu_partition_size and exposes the partitions as nvidia.com/gpu (the single "
                "strategy: https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi); use strategy: single",
            )
        )
    if mig_capable is None:
        problems.append(
            Problem(path, "whether this pool's GPU supports MIG is not known (no catalog entry); not judged", warning=True)
        )
    if profiles is not None and mig.profile not in profiles:
        problems.append(Problem(f"{path}.profile", _not_in_table(mig.profile, profiles)))
    return problems


def _not_in_table(profile: str, profiles: Mapping[str, int]) -> str:
    """The refusal of a profile outside the GPU's table: what, the allowed list, the source, the fix."""
    model = getattr(profiles, "model", None)
    source = getattr(profiles, "source", "NVIDIA MIG User Guide, Supported MIG Profiles")
    if model in GKE_PARTITION_SIZES:
        what = f"a gpu_partition_size that GKE's partitioner and device plugin both accept for {model}"
    else:
        what = f"a MIG profile of this GPU ({model})" if model else "a MIG profile of this GPU"
    return f"{profile!r} is not {what}; allowed: {', '.join(profiles)} ({source}); use one of those"


def _partitioner_problems(pool: AgentPool, path: str, where: str | None, profiles: Mapping[str, int] | None) -> list[Problem]:
    """What the chosen partitioner cannot do for ``pool`` (:mod:`.mig_partitioners`)."""
    from .mig_partitioners import bottlerocket_problem, operator_layout_problem

    mig = pool.mig
    assert mig is not None
    if where == "gpu-operator":
        why = operator_layout_problem(mig.profile, profiles)
        return [Problem(f"{path}.profile", why)] if why else []
    if where == "bottlerocket":
        why = bottlerocket_problem(mig.strategy, mig.profile, pool.gpu_model, writes_settings=pool.bottlerocket_settings)
        return [Problem(path, why)] if why else []
    return []


def mig_resource_name(profile: str) -> str:
    """``nvidia.com/mig-<profile>`` with ``+`` replaced by ``.`` (NVIDIA/k8s-device-plugin@v0.20.0 ``internal/rm/rm.go``)."""
    return f"nvidia.com/mig-{profile.replace('+', '.')}"


def autoscaler_resource(pool: AgentPool, profiles: Mapping[str, int]) -> tuple[str, int] | None:
    """The extended resource a MIG pool's node advertises and how many: for the Cluster Autoscaler tag.

    ``mixed``: ``(nvidia.com/mig-<profile>, instances per GPU x GPUs)``; ``single``:
    ``(nvidia.com/gpu, instances per GPU x GPUs)`` (single exposes MIG devices as nvidia.com/gpu), times the
    clients per partition where the platform time-shares its partitions (:func:`.sharing.shares_mig_partitions`:
    GKE advertises each partition ``max_shared_clients_per_gpu`` times).
    None when the pool has no MIG, the GPU count is unknown, or the profile is not in ``profiles``.
    """
    from .sharing import shares_mig_partitions

    mig = pool.mig
    if mig is None or pool.gpus_per_node is None or mig.profile not in profiles:
        return None
    count = profiles[mig.profile] * pool.gpus_per_node
    if shares_mig_partitions(pool):
        assert pool.sharing is not None
        count *= pool.sharing.replicas
    if mig.strategy == "mixed":
        return mig_resource_name(mig.profile), count
    return GPU_RESOURCE, count


def gke_partition_size(pool: AgentPool) -> str | None:
    """GKE's ``guest_accelerators[].gpu_partition_size`` for the pool (the profile), or None (no ``mig``, or
    the platform does not partition: ``pool.mig_by``)."""
    if pool.mig_by != "platform" or pool.mig is None:
        return None
    return pool.mig.profile
