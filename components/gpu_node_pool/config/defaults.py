"""The config's constants that modules outside it need at import (pure: no pydantic).

Re-exported by :mod:`.common` and the ``config`` package under their old names; they live here
so that the CLI, the program and the policies can import them without loading the models.
"""

from __future__ import annotations

from ..k8s.taints import Taint, TaintEffect
from ..k8s.wellknown import GPU_OPERATOR_NAMESPACE, NVIDIA_GPU_RESOURCE

__all__ = ["DEFAULT_TAINT", "GPU_TOLERATION_ALLOWED_NAMESPACES", "PROJECT"]

PROJECT = "gpu-node-pools"
#: The taint a pool gets when its config declares none: the convention GKE and NVIDIA's
#: tools know; it has a value because Cluster Autoscaler drops value-less EKS taints.
DEFAULT_TAINT = Taint(NVIDIA_GPU_RESOURCE, "present", TaintEffect.NO_SCHEDULE)
#: Namespaces whose pods may tolerate GPU taints without requesting a GPU (node agents, the
#: device plugin, the GPU Operator): the default of the pack's ``gpu-toleration-allowlist`` and of
#: the admission policy rendered from it (:mod:`gpu_node_pool.admission.render`).
GPU_TOLERATION_ALLOWED_NAMESPACES = ("kube-system", "nvidia-device-plugin", GPU_OPERATOR_NAMESPACE)
