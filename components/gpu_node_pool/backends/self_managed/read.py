"""Read a self-managed pool back from what it registered: the bootstrap in a launch template's
user data (format, kubelet registration taints and labels) and the plan entry of a rendered
bootstrap. The inverse of :mod:`.render` and :mod:`.bootstrap`; the format readers themselves are
shared with other backends' launch templates (:mod:`gpu_node_pool.backends._shared.user_data`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...k8s.taints import TaintError
from .._shared.registration import Registration
from .._shared.user_data import detect_format, read_registration

__all__ = ["looks_like_node_bootstrap", "bootstrap_format", "registrations", "registration_entry"]


def looks_like_node_bootstrap(user_data: str) -> bool:
    """True when user data joins a Kubernetes node (nodeadm, bootstrap.sh, kubeadm, Bottlerocket, kubelet flags)."""
    try:
        return detect_format(user_data) not in (None, "shell")
    except (TaintError, ValueError, TypeError):
        return True  # a bootstrap, though a malformed one: the taint reader will say what is wrong


def bootstrap_format(user_data: str) -> str | None:
    """The bootstrap format of decoded user data (``al2023``, ``bottlerocket``, ``kubeadm``...), or None when unreadable."""
    try:
        return detect_format(user_data)
    except (TaintError, ValueError, TypeError):
        return None



def registrations(files: Mapping[str, str]) -> dict[str, Registration]:
    """``{file name: the kubelet registration read back from its text}`` (user data or bootstrap files).

    Raises:
        TaintError: a registration taint in a file is malformed.
    """
    return {name: read_registration(text) for name, text in files.items()}


def registration_entry(entry: dict[str, Any], fmt: str, files: Mapping[str, str], source: str) -> None:
    """Fill ``taints``, ``labels`` and ``registration`` of a plan entry from bootstrap texts, read back."""
    from . import bootstrap

    regs = registrations(files)
    taints = next((r.taints for r in regs.values() if r.taints), ())
    labels: dict[str, str] = {}
    for reg in regs.values():
        labels.update(reg.labels)
    entry["taints"] = [str(t) for t in taints]
    entry["labels"] = dict(sorted(labels.items()))
    spec = bootstrap.FORMATS[fmt]
    snippet = bootstrap.registration_snippet(fmt, bootstrap.Registration(taints, labels), *_kubeadm_api(fmt, files))
    entry["registration"] = {
        "format": fmt,
        "source": source,
        "taintsField": spec.taints_field,
        "labelsField": spec.labels_field,
        "files": {name: [str(t) for t in reg.taints] for name, reg in regs.items()},
        "snippet": snippet,
    }
    if spec.ships_device_plugin:
        entry["devicePlugin"] = "ships its own (Bottlerocket NVIDIA variants include NVIDIA's device plugin)"


def _kubeadm_api(fmt: str, files: Mapping[str, str]) -> tuple[str, ...]:
    """``(apiVersion,)`` of the rendered kubeadm JoinConfiguration among ``files``, or ``()`` (the default)."""
    if fmt != "kubeadm":
        return ()
    for text in files.values():
        for line in str(text).splitlines():
            if line.startswith("apiVersion: kubeadm.k8s.io/"):
                return (line.partition(": ")[2].strip(),)
    return ()
