"""Backends: one folder each, registered in :mod:`.registry` (the only list of backends).

Importing this package registers the built-in backends, in this order (the order of the
``backend:`` choices in messages and schemas).
"""
# isort: skip_file

from __future__ import annotations

from . import eks_managed  # noqa: F401 - each backend registers itself on import
from . import gke  # noqa: F401
from . import self_managed  # noqa: F401
from . import karpenter  # noqa: F401
from . import eks_auto  # noqa: F401
from .. import registry as _registry
from ..registry import Backend, all_backends, by_detected_type, get, names, register, unregister

__all__ = ["Backend", "all_backends", "by_detected_type", "get", "names", "register", "unregister"]

_registry._loaded = True
