"""Compatibility: the property readers live in :mod:`gpu_node_pool.props` (backends use them too)."""

from __future__ import annotations

from ..props import *  # noqa: F403
from ..props import UnknownValueError, dig, items, mapping, number, text  # noqa: F401
