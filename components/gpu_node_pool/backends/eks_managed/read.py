"""Read an EKS managed node group back from its ``aws:eks/nodeGroup:NodeGroup`` inputs (camelCase, as policies see them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...k8s.taints import Taint


def read_node_group_taints(props: Mapping[str, Any]) -> list[Taint]:
    """Taints from ``aws:eks/nodeGroup:NodeGroup`` inputs (``props["taints"]``, EKS spelling).

    Raises:
        TaintError: a taint item is malformed.
    """
    return [Taint.from_provider(item) for item in (props.get("taints") or [])]
