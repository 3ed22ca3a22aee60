"""GPU sharing by Bottlerocket NVIDIA's own device plugin: the settings that make a node advertise what the plan promises.

A Bottlerocket NVIDIA node runs NVIDIA's k8s-device-plugin from the image; it reads no chart ConfigMap but a config
file the OS renders from ``settings.kubelet-device-plugins.nvidia`` (the template
``packages/nvidia-k8s-device-plugin/nvidia-k8s-device-plugin-conf`` of bottlerocket-os/bottlerocket-core-kit, written
to ``/etc/nvidia-k8s-device-plugin/settings.yaml``: bottlerocket-os/bottlerocket@v1.26.0
``sources/shared-defaults/nvidia-k8s-device-plugin.toml``). The settings and what the template makes of them:

* ``device-sharing-strategy``: ``none`` (the default, shared-defaults above), ``time-slicing`` or ``mps``.
* ``time-slicing.replicas`` / ``rename-by-default`` / ``fail-requests-greater-than-one`` become
  ``sharing.timeSlicing.resources[{name: nvidia.com/gpu, replicas}]``, ``renameByDefault`` and
  ``failRequestsGreaterThanOne``; unset, the template writes ``replicas: 2``, ``renameByDefault: true`` and
  ``failRequestsGreaterThanOne: true`` (bottlerocket-os/bottlerocket-core-kit@v3.1.1
  ``packages/nvidia-k8s-device-plugin/nvidia-k8s-device-plugin-conf``). Since Bottlerocket 1.25.0
  (bottlerocket-os/bottlerocket#4230; bottlerocket-os/bottlerocket@v1.25.0
  ``sources/settings-migrations/v1.25.0/kubelet-device-plugins-time-slicing-settings/src/main.rs`` adds the four settings;
  bottlerocket-core-kit v2.9.0, #169). Bottlerocket refuses ``replicas`` outside 2..2147483647
  (bottlerocket-os/bottlerocket-settings-sdk ``bottlerocket-settings-models/modeled-types/src/kubernetes.rs``@25e4241f
  ``TIME_SLICING_REPLICAS_MIN``/``MAX``).
* ``mps.replicas`` / ``mps.rename-by-default`` become ``sharing.mps.resources[{name: nvidia.com/gpu, replicas}]`` and
  ``renameByDefault`` (unset: 2 and ``true``), with ``flags.mpsRoot: /run/nvidia/mps`` and the image's own MPS control
  daemon (bottlerocket-os/bottlerocket-core-kit ``packages/nvidia-k8s-device-plugin/nvidia-k8s-device-plugin-conf.in``
  @b41cc9ae2ca3 and ``nvidia-mps-control-daemon-exec-start-conf``; core-kit v12.3.0, #789). Since Bottlerocket 1.54.0
  (release notes: "Add NVIDIA Multi-Process Service (MPS) support", bottlerocket-os/bottlerocket#4744;
  bottlerocket-settings-models 0.20.0, bottlerocket-os/bottlerocket-settings-sdk#107). Bottlerocket refuses MPS together
  with ``device-partitioning-strategy = "mig"`` (``MpsMigConflict``, bottlerocket-settings-sdk
  ``bottlerocket-settings-models/settings-extensions/kubelet-device-plugins/src/lib.rs``).

With ``renameByDefault: true`` NVIDIA's plugin advertises ``nvidia.com/gpu.shared`` instead of ``nvidia.com/gpu``
(NVIDIA/k8s-device-plugin@v0.20.0 README.md L402-403, L433-451), so Bottlerocket's defaults would advertise another
resource than the chart path does. The component therefore writes ``rename-by-default = false``: the node advertises
GPUs x replicas ``nvidia.com/gpu``, the figure :func:`.sharing.advertised_gpus` gives the plan, the Cluster Autoscaler tags
and the policies for the chart path too. For time-slicing it also writes ``fail-requests-greater-than-one = false``,
the chart path's behaviour (unset in the chart's config, NVIDIA's plugin fails no request: ``internal/rm/rm.go``
L94-99@v0.20.0); that key changes what a pod may request, not what the node advertises, so a pool's own
``bottlerocket.settings`` may set it. For MPS NVIDIA's plugin fails requests above one either way (``api/config/v1/config.go``
L73-75@v0.20.0). Pure, no Pulumi.
"""

from __future__ import annotations

from typing import Any

from ..k8s.integers import INT32_MAX

__all__ = [
    "DEVICE_PLUGINS_REFERENCE",
    "BOTTLEROCKET_STRATEGY",
    "USER_CHOICES",
    "REPLICAS_MAX",
    "sharing_settings",
    "bottlerocket_sharing_settings",
    "shares_on_bottlerocket",
    "writes_nvidia_settings",
    "image_plugin_problem",
    "carried_by",
]

#: Bottlerocket's reference of ``settings.kubelet-device-plugins``, sharing and MIG alike: the address every message
#: about those settings cites, the GPU agents' and the eks-managed backend's.
DEVICE_PLUGINS_REFERENCE = "https://bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins/"
#: ``gpuSharing.strategy`` -> Bottlerocket's ``device-sharing-strategy`` (and the name of its table).
BOTTLEROCKET_STRATEGY = {"timeSlicing": "time-slicing", "mps": "mps"}
#: The largest ``replicas`` Bottlerocket takes (``BoundedI32``, Rust's i32::MAX: the int32 maximum).
REPLICAS_MAX = INT32_MAX
#: Leaves under ``settings.kubelet-device-plugins.nvidia`` the component writes but a pool's own settings may choose:
#: they change what a pod may request, not what the node advertises.
USER_CHOICES: tuple[tuple[str, ...], ...] = (("time-slicing", "fail-requests-greater-than-one"),)

def sharing_settings(strategy: str, replicas: int) -> dict[str, Any]:
    """Bottlerocket's settings for ``gpuSharing: {strategy, replicas}``, to merge under ``[settings]`` of the TOML.

    Shape: ``{"kubelet-device-plugins": {"nvidia": {"device-sharing-strategy": "time-slicing", "time-slicing":
    {"replicas": N, "rename-by-default": False, "fail-requests-greater-than-one": False}}}}``; for ``mps``:
    ``{"device-sharing-strategy": "mps", "mps": {"replicas": N, "rename-by-default": False}}``.

    Raises:
        ValueError: ``strategy`` is not ``timeSlicing`` or ``mps``.
    """
    if strategy not in BOTTLEROCKET_STRATEGY:
        raise ValueError(f"{strategy!r} is not a sharing strategy; use timeSlicing or mps")
    name = BOTTLEROCKET_STRATEGY[strategy]
    table: dict[str, Any] = {"replicas": replicas, "rename-by-default": False}
    if strategy == "timeSlicing":
        table["fail-requests-greater-than-one"] = False
    return {"kubelet-device-plugins": {"nvidia": {"device-sharing-strategy": name, name: table}}}


def _writes(pool: Any) -> bool:
    """Whether the backend writes the pool's Bottlerocket settings: a pool config model's
    ``writes_bottlerocket_settings``, an :class:`~.pools.AgentPool`'s ``bottlerocket_settings``."""
    flag = getattr(pool, "writes_bottlerocket_settings", None)
    return bool(getattr(pool, "bottlerocket_settings", False) if flag is None else flag)


def _sharing(pool: Any) -> Any:
    """The pool's ``gpuSharing``: a pool config model's ``gpu_sharing``, an :class:`~.pools.AgentPool`'s ``sharing``."""
    return getattr(pool, "gpu_sharing", None) or getattr(pool, "sharing", None)


def writes_nvidia_settings(pool: Any) -> bool:
    """True when the component writes ``settings.kubelet-device-plugins.nvidia`` for the pool's nodes (its MIG or
    sharing settings): a Bottlerocket NVIDIA image (``image_family``) whose backend writes its settings. Takes a pool
    config model or an :class:`~.pools.AgentPool`."""
    return getattr(pool, "image_family", None) == "bottlerocket-nvidia" and _writes(pool)


def shares_on_bottlerocket(pool: Any) -> bool:
    """True when Bottlerocket's own plugin shares the pool's GPUs from settings the component writes: ``gpuSharing``
    where :func:`writes_nvidia_settings`, without ``mig`` (the sharing rules refuse both together). Takes a pool
    config model or an :class:`~.pools.AgentPool`."""
    return _sharing(pool) is not None and getattr(pool, "mig", None) is None and writes_nvidia_settings(pool)


def bottlerocket_sharing_settings(pool: Any) -> dict[str, Any]:
    """:func:`sharing_settings` of a pool config model's ``gpuSharing`` where :func:`shares_on_bottlerocket`, else ``{}``."""
    if not shares_on_bottlerocket(pool):
        return {}
    sharing = _sharing(pool)
    return sharing_settings(sharing.strategy, sharing.replicas)


def image_plugin_problem(pool: Any) -> tuple[str, str] | None:
    """Where under ``gpuSharing`` (``""`` for the whole, ``"replicas"``) and why the image's own device plugin cannot
    share ``pool``'s GPUs as ``gpuSharing`` asks, or None.

    For a pool whose nodes run their image's plugin (``device_plugin == "image"``, an :class:`~.pools.AgentPool`).
    Refused: a Bottlerocket NVIDIA pool whose backend writes no Bottlerocket settings (nothing would set them);
    an image that is not known to be Bottlerocket NVIDIA (its plugin's settings are not known); ``replicas`` above
    :data:`REPLICAS_MAX` (Bottlerocket refuses the setting). ``mig`` with sharing is judged by the sharing rules.
    """
    sharing = pool.sharing
    if pool.image_family == "bottlerocket-nvidia" and not _writes(pool):
        return "", (
            "this pool's nodes run Bottlerocket NVIDIA's own device plugin, which shares GPUs only from "
            "settings.kubelet-device-plugins.nvidia.device-sharing-strategy with time-slicing.replicas or mps.replicas "
            f"({DEVICE_PLUGINS_REFERENCE}), and this backend writes no Bottlerocket settings for the pool's nodes, so "
            "gpuSharing would do nothing; use an eks-managed pool with a BOTTLEROCKET_* amiType or a self-managed pool "
            "with format: bottlerocket (the component writes their TOML), an AL2023 NVIDIA image, or remove gpuSharing"
        )
    if pool.image_family != "bottlerocket-nvidia":
        return "", (
            "this pool's nodes run the device plugin of their image (e.g. Bottlerocket NVIDIA), which does not read "
            "the nvidia-device-plugin chart's configs, and the image is not known to be a Bottlerocket NVIDIA image "
            "whose settings.kubelet-device-plugins.nvidia the component writes (device-sharing-strategy with "
            f"time-slicing.replicas or mps.replicas: {DEVICE_PLUGINS_REFERENCE}; written for eks-managed BOTTLEROCKET_* "
            "amiTypes and self-managed format: bottlerocket on the EKS-optimized image), so gpuSharing would do "
            "nothing; use an AL2023 NVIDIA image or remove gpuSharing"
        )
    if sharing is not None and isinstance(sharing.replicas, int) and sharing.replicas > REPLICAS_MAX:
        return "replicas", (
            f"{sharing.replicas} replicas: Bottlerocket takes {BOTTLEROCKET_STRATEGY.get(sharing.strategy, 'its')}.replicas "
            f"up to {REPLICAS_MAX} (bottlerocket-os/bottlerocket-settings-sdk bottlerocket-settings-models/modeled-types/"
            f"src/kubernetes.rs, BoundedI32) and refuses the node's settings above it; use {REPLICAS_MAX} or fewer"
        )
    return None


def carried_by(pool: Any) -> str:
    """The plan's words for who shares the pool's GPUs: Bottlerocket's plugin and the settings the component writes."""
    sharing = _sharing(pool)
    name = BOTTLEROCKET_STRATEGY[sharing.strategy]
    return (f"Bottlerocket's device plugin (settings.kubelet-device-plugins.nvidia device-sharing-strategy={name}, "
            f"{name}.replicas={sharing.replicas}, rename-by-default=false; TOML user data)")
