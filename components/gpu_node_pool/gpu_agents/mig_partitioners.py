"""What each MIG partitioner on the node needs from a pool, and what it cannot do. Pure, no Pulumi.

Two partitioners run on EC2 nodes the component declares (GKE partitions itself, :mod:`.mig`):

* The GPU Operator's MIG manager applies the layout named by the node label
  ``nvidia.com/mig.config``; a MIG-capable node without the label is labelled ``all-disabled`` by the
  operator (NVIDIA/gpu-operator ``controllers/nodelabeling_controller.go``), so an unlabelled pool
  advertises whole GPUs. The layouts are those of the MIG manager's default config map
  ``default-mig-parted-config`` (NVIDIA/gpu-operator ``assets/state-mig-manager/0400_configmap.yaml``
  @v26.7.0): ``all-<profile>`` with ``+`` written ``.`` puts every GPU into one profile
  (:func:`gpu_node_pool.config.sharing_names.mig_layout_name`, which the pool models write into the label).
  The operator has one ``mig.strategy`` per cluster (chart ``values.yaml`` ``mig.strategy``,
  ClusterPolicy ``spec.mig.strategy``), read by its device plugin and GFD on every node.
* Bottlerocket NVIDIA's own MIG manager (``nvidia-migmanager``) reads
  ``settings.kubelet-device-plugins.nvidia.device-partitioning-strategy = "mig"`` and
  ``settings.kubelet-device-plugins.nvidia.mig.profile."<gpu>" = "<profile>"`` from the node's settings
  (https://bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins/;
  bottlerocket-os/bottlerocket ``sources/nvidia-migmanager/src/main.rs`` and ``mig_profile.rs``). Its
  device plugin runs the ``single`` strategy only (bottlerocket-os/bottlerocket#4483). A profile its
  table lacks falls back silently to the whole GPU (``#[serde(other)]`` on the 7g variant), so only the
  profiles of :data:`BOTTLEROCKET_PROFILES` are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config.sharing_names import mig_layout_name
from .bottlerocket_sharing import DEVICE_PLUGINS_REFERENCE

__all__ = [
    "OPERATOR_DEFAULT_LAYOUTS",
    "BOTTLEROCKET_GPU_KEYS",
    "BOTTLEROCKET_PROFILES",
    "operator_layout_problem",
    "bottlerocket_problem",
    "bottlerocket_mig_settings",
]

#: The single-profile layouts of the MIG manager's ``default-mig-parted-config`` (``all-disabled`` and
#: ``all-enabled`` switch MIG off/on without devices; ``all-balanced`` mixes profiles, so neither
#: gives one resource per pool and none is offered here). NVIDIA/gpu-operator
#: ``assets/state-mig-manager/0400_configmap.yaml`` @v26.7.0 (the chart version the component pins). A layout
#: partitions only the GPUs that have its profile: whether the pool's GPU has it is :mod:`.mig_profiles`'s table.
OPERATOR_DEFAULT_LAYOUTS: frozenset[str] = frozenset(
    "all-" + p
    for p in (
        "1g.5gb", "1g.5gb.me", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb",
        "1g.24gb.gfx", "1g.24gb.me.all", "1g.24gb-me", "2g.48gb", "2g.48gb.gfx", "2g.48gb.me.all", "2g.48gb-me",
        "4g.96gb", "4g.96gb.gfx",
        "1g.10gb", "1g.10gb.me", "1g.20gb", "1g.23gb", "1g.23gb.me", "1g.24gb.me", "2g.20gb", "3g.40gb", "4g.40gb",
        "7g.80gb",
        "1g.6gb", "1g.6gb.me", "2g.12gb", "2g.12gb.me", "4g.24gb",
        "1g.12gb", "1g.12gb.me", "1g.24gb", "1g.45gb", "1g.47gb", "2g.24gb", "2g.45gb", "2g.47gb", "3g.47gb",
        "4g.47gb", "7g.94gb",
        "3g.48gb", "3g.90gb", "3g.93gb", "3g.95gb", "4g.48gb", "4g.90gb", "4g.93gb", "4g.95gb", "7g.96gb",
        "7g.180gb", "7g.186gb", "7g.189gb",
        "1g.18gb", "1g.18gb.me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb",
        "1g.36gb", "2g.36gb", "3g.72gb", "4g.72gb", "7g.144gb",
        "1g.34gb", "1g.34gb.me", "1g.67gb", "2g.67gb", "3g.135gb", "4g.135gb", "7g.269gb",
        "1g.35gb.me", "1g.70gb", "2g.70gb", "3g.139gb", "4g.139gb", "7g.278gb",
    )
)  # fmt: skip

#: :data:`.mig.MIG_PROFILES` model -> the GPU key of Bottlerocket's ``mig.profile`` table
#: (bottlerocket-os/bottlerocket ``sources/nvidia-migmanager/src/main.rs``). A100 only: the newest release
#: tags of bottlerocket-os/bottlerocket (v1.26.0), bottlerocket-kernel-kit (v1.0.2) and bottlerocket-core-kit
#: (v3.1.1) that could be read hold no ``nvidia-migmanager``, so keys for H100, H200 or B200 are not
#: confirmed at a tag and those GPUs stay refused on Bottlerocket (an unknown key leaves the GPUs whole).
BOTTLEROCKET_GPU_KEYS: dict[str, str] = {"A100-40GB": "a100.40gb", "A100-80GB": "a100.80gb"}
#: Bottlerocket GPU key -> the profiles its MIG manager applies (``mig_profile.rs``).
BOTTLEROCKET_PROFILES: dict[str, tuple[str, ...]] = {
    "a100.40gb": ("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "7g.40gb"),
    "a100.80gb": ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"),
}


def operator_layout_problem(profile: str, profiles: Mapping[str, int] | None) -> str | None:
    """Why the GPU Operator's MIG manager has no default layout for ``profile``, or None.

    The message names the layouts it has for this GPU (``profiles``: the GPU's profile table, a
    :class:`.mig_profiles.MigTable` whose ``model`` the message names, or None when not known: then
    every single-profile layout).
    """
    layout = mig_layout_name(profile)
    if layout in OPERATOR_DEFAULT_LAYOUTS:
        return None
    offered = sorted(OPERATOR_DEFAULT_LAYOUTS)
    which = ""
    if profiles is not None:
        own = [x for x in (mig_layout_name(p) for p in profiles) if x in OPERATOR_DEFAULT_LAYOUTS]
        if own:
            offered = own
            model = getattr(profiles, "model", None)
            which = f" on this GPU ({model})" if model else " on this GPU"
    return (
        f"{profile!r}: the GPU Operator's MIG manager has no layout {layout!r} in its default config "
        "default-mig-parted-config (NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml@v26.7.0), so "
        f"the node label nvidia.com/mig.config={layout} would partition nothing; use a profile whose layout exists"
        f"{which}: {', '.join(offered)}"
    )


def bottlerocket_problem(strategy: str, profile: str, model: str | None, *, writes_settings: bool) -> str | None:
    """Why Bottlerocket cannot partition a pool's GPUs as asked, or None.

    Args:
        strategy: the pool's ``mig.strategy``.
        profile: the pool's ``mig.profile``.
        model: the :data:`.mig.MIG_PROFILES` model of the pool's GPU, or None when not known.
        writes_settings: whether the pool's backend writes the node's Bottlerocket settings (user data).

    Rules: ``mixed`` is refused (Bottlerocket runs ``single`` only, bottlerocket-os/bottlerocket#4483);
    a backend that does not write the settings is refused (nothing would turn MIG on); instance types of
    several GPUs (``model`` lists them, comma-separated) are refused (one profile key is written); an unknown GPU or
    a profile outside :data:`BOTTLEROCKET_PROFILES` is refused (the MIG manager would silently give the
    whole GPU).
    """
    if strategy == "mixed":
        return (
            "'mixed': Bottlerocket's NVIDIA device plugin exposes MIG devices with the single strategy only "
            "(bottlerocket-os/bottlerocket#4483), so nodes would advertise nvidia.com/gpu, not nvidia.com/mig-*; "
            "use strategy: single, or an AL2023 NVIDIA image with devicePlugin.provider: gpu-operator"
        )
    if not writes_settings:
        return (
            "this backend writes no Bottlerocket settings for the pool's nodes (no user data), so nothing sets "
            "settings.kubelet-device-plugins.nvidia.device-partitioning-strategy = \"mig\" and the GPUs stay whole "
            f"({DEVICE_PLUGINS_REFERENCE}); use a self-managed pool with format: bottlerocket or an eks-managed pool with a "
            "BOTTLEROCKET_* amiType (the component writes their TOML), or an AL2023 NVIDIA image with "
            "devicePlugin.provider: gpu-operator"
        )
    key = BOTTLEROCKET_GPU_KEYS.get(model or "")
    if key is None and model and ", " in model:  # :func:`.mig.mig_gpu` joins the GPU names of a mixed pool
        return (
            f"the pool's instance types carry different GPUs ({model}), and the component writes the MIG profile of "
            f"one GPU into settings.kubelet-device-plugins.nvidia.mig.profile ({DEVICE_PLUGINS_REFERENCE}), so the other GPUs "
            "would stay whole and the pool's nodes advertise different counts; use instance types of one GPU"
        )
    if key is None:
        return (
            f"Bottlerocket's MIG profiles for this GPU ({model or 'unknown model'}) are not in the component's table "
            f"(known: {', '.join(sorted(BOTTLEROCKET_GPU_KEYS))}; bottlerocket-os/bottlerocket "
            "sources/nvidia-migmanager/src/mig_profile.rs; other GPU keys are not confirmed at a Bottlerocket release "
            "tag), so the profile it would apply is not known; use an A100 instance type, or devicePlugin.provider: "
            "gpu-operator on an AL2023 NVIDIA image"
        )
    if profile not in BOTTLEROCKET_PROFILES[key]:
        return (
            f"{profile!r} is not a profile Bottlerocket's MIG manager applies to {key} (allowed: "
            f"{', '.join(BOTTLEROCKET_PROFILES[key])}; bottlerocket-os/bottlerocket sources/nvidia-migmanager/src/"
            "mig_profile.rs); another value silently leaves each GPU whole; use one of those"
        )
    return None


def bottlerocket_mig_settings(profile: str, model: str | None) -> dict[str, object]:
    """The Bottlerocket settings that partition every GPU of the node into ``profile``.

    Shape: ``{"kubelet-device-plugins": {"nvidia": {"device-partitioning-strategy": "mig", "mig":
    {"profile": {"<gpu key>": "<profile>"}}}}}``, merged under ``[settings]`` of the node's TOML
    (the keys of :data:`.bottlerocket_sharing.DEVICE_PLUGINS_REFERENCE`).

    Raises:
        ValueError: the GPU has no Bottlerocket key or the profile is not one it applies
            (:func:`bottlerocket_problem` refuses such pools in the config first).
    """
    key = BOTTLEROCKET_GPU_KEYS.get(model or "")
    if key is None or profile not in BOTTLEROCKET_PROFILES[key]:
        raise ValueError(f"Bottlerocket has no MIG profile {profile!r} for GPU {model!r}")
    return {
        "kubelet-device-plugins": {
            "nvidia": {"device-partitioning-strategy": "mig", "mig": {"profile": {key: profile}}}
        }
    }
