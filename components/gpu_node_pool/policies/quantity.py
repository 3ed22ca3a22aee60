"""Compatibility: Kubernetes quantities are parsed in :mod:`gpu_node_pool.quantity` (the catalog uses them too)."""

from __future__ import annotations

from ..quantity import parse_quantity  # noqa: F401
