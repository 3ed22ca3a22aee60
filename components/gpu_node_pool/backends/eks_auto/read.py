"""Read an Auto Mode NodePool back from its object or recorded CustomResource inputs (camelCase)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...k8s.taints import Taint


def _template(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec") or {}
    template = spec.get("template") if isinstance(spec, Mapping) else None
    return template if isinstance(template, Mapping) else {}


def _template_spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = _template(obj).get("spec") or {}
    return spec if isinstance(spec, Mapping) else {}


def read_taints(obj: Mapping[str, Any]) -> list[Taint]:
    """``spec.template.spec.taints``. Raises TaintError on an invalid item."""
    return [Taint.from_k8s(t) for t in (_template_spec(obj).get("taints") or [])]


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
