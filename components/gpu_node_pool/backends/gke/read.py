"""Read a gke pool back from its recorded provider inputs (camelCase, as policies see them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...k8s.taints import Taint


def _node_config(props: Mapping[str, Any]) -> Mapping[str, Any]:
    node_config = props.get("nodeConfig") or {}
    return node_config if isinstance(node_config, Mapping) else {}


def read_node_pool_taints(props: Mapping[str, Any]) -> list[Taint]:
    """Taints from ``gcp:container/nodePool:NodePool`` inputs (``nodeConfig.taints``, GKE spelling).

    Raises:
        TaintError: a taint item is malformed.
    """
    return [Taint.from_provider(item) for item in (_node_config(props).get("taints") or [])]


def read_node_pool_labels(props: Mapping[str, Any]) -> dict[str, str]:
    """Kubernetes node labels from ``nodeConfig.labels``."""
    return dict(_node_config(props).get("labels") or {})


def read_node_pool_accelerators(props: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``nodeConfig.guestAccelerators`` (``[{type, count, gpuDriverInstallationConfig?...}]``)."""
    return list(_node_config(props).get("guestAccelerators") or [])
