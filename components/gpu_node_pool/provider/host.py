"""The provider process ``pulumi package add`` launches: the SDK's component provider, two things added.

* The schema's property descriptions of the types built from the config models (:mod:`.types`
  builds them at run time, so the analyzer cannot read their docstrings from source): each
  model field's ``Field(description=...)``.
* A config mistake is the construct request's *input properties* error: one entry per issue,
  ``{property_path: "pool.taints[0].key", reason: <the Python path's message>}``, no traceback.
  The SDK's ``component_provider_host`` reports any exception from a component's ``__init__`` as
  the exception text followed by the Python stack, which is right for a bug and wrong for a typo,
  so :func:`main` serves :class:`GpuNodePoolsProvider` through ``pulumi.provider.main``, which is
  what ``component_provider_host`` does with the SDK's own ``ComponentProvider``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pulumi.errors import InputPropertiesError
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError

from .._version import __version__
from ..config import ConfigError
from . import PACKAGE

__all__ = ["GpuNodePoolsProvider", "main", "schema"]


def _describe(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each built type's properties described from its model's fields (given ones kept)."""
    from .types import FIELD_DOCS, camel

    for token, spec in schema.get("types", {}).items():
        docs = FIELD_DOCS.get(token.rsplit(":", 1)[-1], {})
        for py_name, text in docs.items():
            prop = spec.get("properties", {}).get(camel(py_name))
            if prop is not None and not prop.get("description"):
                prop["description"] = text
    return schema


class GpuNodePoolsProvider(ComponentProvider):
    """The ``gpu-node-pools`` package: every component of :data:`.components.COMPONENTS`, version ``_version.py``'s."""

    def __init__(self) -> None:
        from .components import COMPONENTS

        super().__init__(COMPONENTS, PACKAGE, None, __version__)
        self.schema = json.dumps(_describe(json.loads(self.schema or "{}")), sort_keys=True)

    def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> Any:
        """The SDK's construct; a :class:`ConfigError` from the component becomes an input properties error.

        Raises:
            InputPropertiesError: the arguments are invalid: ``errors`` holds each issue's argument
                path and message; nothing was registered.
        """
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as err:
            if isinstance(err.inner, ConfigError):
                raise InputPropertiesError(
                    str(err.inner), [{"property_path": i.path, "reason": i.message} for i in err.inner.issues]
                ) from None
            raise


def schema() -> dict[str, Any]:
    """The package schema as Pulumi's tooling receives it (``GetSchema``): a JSON object."""
    return json.loads(GpuNodePoolsProvider().schema or "{}")


def main(argv: list[str] | None = None) -> None:
    """Serve the provider: ``argv`` is the engine address and the flags the language host passes."""
    from pulumi.provider import main as serve

    serve(GpuNodePoolsProvider(), sys.argv[1:] if argv is None else argv)
