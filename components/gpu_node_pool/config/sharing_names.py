"""The names the GPU agents and the pool models share for a pool's GPU sharing and MIG settings: the device plugin's
named configs (``timeslicing-<N>``, ``mps-<N>``, ``mig-single``/``mig-mixed``), which are also the values of the node
label ``nvidia.com/device-plugin.config``, and the GPU Operator MIG manager's layouts (``all-<profile>``). Pure."""

from __future__ import annotations

__all__ = ["mig_config_name", "mig_layout_name", "sharing_config_name"]

_SHARING_NAME_PART = {"timeSlicing": "timeslicing", "mps": "mps"}


def sharing_config_name(strategy: str, replicas: int) -> str:
    """The named device-plugin config of one sharing setting: ``timeslicing-<N>`` or ``mps-<N>``.

    Also the value of the node label ``nvidia.com/device-plugin.config`` that selects it, so it is a
    valid label value and config-map key (lower case, digits, ``-``).
    """
    return f"{_SHARING_NAME_PART[strategy]}-{replicas}"


def mig_config_name(strategy: str) -> str:
    """The named device-plugin config of a MIG pool: ``mig-single`` or ``mig-mixed``, carrying the pool's
    ``flags.migStrategy`` (NVIDIA/k8s-device-plugin@v0.20.0 ``deployments/helm/nvidia-device-plugin/values.yaml``
    L1-19, the ``mig-single``/``mig-mixed`` example). Also the value of the node label
    ``nvidia.com/device-plugin.config`` that selects it on the pool's nodes."""
    return f"mig-{strategy}"


def mig_layout_name(profile: str) -> str:
    """The GPU Operator MIG manager's layout that puts every GPU of a node into ``profile``: ``all-<profile>``
    with ``+`` written ``.`` (e.g. ``all-1g.10gb``, ``all-1g.5gb.me``), the naming of its default config map
    ``default-mig-parted-config`` (NVIDIA/gpu-operator ``assets/state-mig-manager/0400_configmap.yaml``).
    Also the value of the node label ``nvidia.com/mig.config``; whether the layout exists is judged by
    :func:`gpu_node_pool.gpu_agents.mig.mig_problems`."""
    return "all-" + profile.replace("+", ".")
