"""Karpenter renderer and readers: ``NodePool`` (``karpenter.sh/v1``) and ``EC2NodeClass``.

Karpenter uses the Kubernetes Taint shape and spelling (``spec.template.spec.taints`` and
``startupTaints``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..taints import Taint

__all__ = ["read_nodepool_taints", "read_nodepool_startup_taints", "read_nodepool_labels"]


def _template(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec") or {}
    template = spec.get("template") if isinstance(spec, Mapping) else None
    return template if isinstance(template, Mapping) else {}


def read_nodepool_taints(obj: Mapping[str, Any]) -> list[Taint]:
    """``spec.template.spec.taints`` of a NodePool object (or CustomResource inputs)."""
    spec = _template(obj).get("spec") or {}
    return [Taint.from_k8s(t) for t in (spec.get("taints") or [])]


def read_nodepool_startup_taints(obj: Mapping[str, Any]) -> list[Taint]:
    """``spec.template.spec.startupTaints``: applied at boot, removed by an agent; never tolerated by the plugin."""
    spec = _template(obj).get("spec") or {}
    return [Taint.from_k8s(t) for t in (spec.get("startupTaints") or [])]


def read_nodepool_labels(obj: Mapping[str, Any]) -> dict[str, str]:
    """``spec.template.metadata.labels``."""
    meta = _template(obj).get("metadata") or {}
    return dict(meta.get("labels") or {})
