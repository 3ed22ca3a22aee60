"""Read an Auto Mode NodePool back from its object or recorded CustomResource inputs (camelCase).

A NodePool's two taint lists have one reader, for every backend that writes a NodePool:
:func:`~gpu_node_pool.backends._shared.nodepool_detect.nodepool_taint_lists`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _template(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec") or {}
    template = spec.get("template") if isinstance(spec, Mapping) else None
    return template if isinstance(template, Mapping) else {}


def _template_spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = _template(obj).get("spec") or {}
    return spec if isinstance(spec, Mapping) else {}


def read_labels(obj: Mapping[str, Any]) -> dict[str, str]:
    """``spec.template.metadata.labels``."""
    meta = _template(obj).get("metadata") or {}
    return dict(meta.get("labels") or {}) if isinstance(meta, Mapping) else {}


def read_requirements(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``spec.template.spec.requirements`` as written."""
    return [dict(r) for r in (_template_spec(obj).get("requirements") or []) if isinstance(r, Mapping)]


def read_node_class_ref(obj: Mapping[str, Any]) -> dict[str, str]:
    """``spec.template.spec.nodeClassRef``: ``{group, kind, name}`` (empty when missing)."""
    ref = _template_spec(obj).get("nodeClassRef") or {}
    return dict(ref) if isinstance(ref, Mapping) else {}


def read_limits(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``spec.limits``: resource -> quantity."""
    spec = obj.get("spec") or {}
    limits = spec.get("limits") if isinstance(spec, Mapping) else None
    return dict(limits) if isinstance(limits, Mapping) else {}
