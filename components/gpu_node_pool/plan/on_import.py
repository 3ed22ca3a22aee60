"""Run a callback on a module when (and only if) it is imported: :func:`when_imported`.

The offline plan patches ``pulumi_kubernetes.yaml.yaml`` so a v1 ``ConfigFile`` never fetches a URL
(:func:`gpu_node_pool.plan.expand.offline_yaml`). Importing that module only to patch it costs
every plan ``requests``, urllib3, ``http`` and ``email`` (~30 ms) even when the program never uses
v1 yaml; so the patch is applied at once if the module is already imported, else by a
``sys.meta_path`` finder the moment the program imports it, and the finder is removed on exit.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
from collections.abc import Callable, Iterator
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

__all__ = ["when_imported"]


class _ThenCall(importlib.abc.Loader):
    """Delegates to the real loader, then calls ``then(module)``; the module keeps the real loader."""

    def __init__(self, loader: Any, then: Callable[[ModuleType], None]) -> None:
        self._loader, self._then = loader, then

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._then(module)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _ThenCall(spec.loader, self.then)
                return spec
        return None


@contextlib.contextmanager
def when_imported(name: str, then: Callable[[ModuleType], None]) -> Iterator[None]:
    """Within the block, call ``then(module)`` once module ``name`` is imported: now if it already is,
    else right after it is executed on its first import. Importing nothing itself."""
    module = sys.modules.get(name)
    if module is not None:
        then(module)
        yield
        return
    finder = _Finder(name, then)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
