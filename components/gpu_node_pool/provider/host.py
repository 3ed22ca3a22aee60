"""The provider process ``pulumi package add`` launches: the SDK's component provider, two things added.

* The schema's property descriptions of the types built from the config models (:mod:`.types`
  builds them at run time, so the analyzer cannot read their docstrings from source): each
  model field's ``Field(description=...)``.
* A property the schema does not have (``diskSise``; the SDK would drop it unread) is refused with
  the closest name, as an input properties error at its path.
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
from ..text.suggest import closest
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
            InputPropertiesError: the arguments are invalid (an unknown property, or a config
                mistake): ``errors`` holds each issue's argument path and message; nothing was registered.
        """
        component = self._component_defs.get(resource_type.rsplit(":", 1)[-1])
        if component is not None:
            errors = self._unknown(inputs, component.inputs, "", set(component.outputs))
            if errors:
                raise InputPropertiesError(
                    f"{len(errors)} error(s) in the arguments of {component.name} {name!r}; no resource was registered:"
                    + "".join(f"\n  {e['property_path']}: {e['reason']}" for e in errors), errors)
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as err:
            if isinstance(err.inner, ConfigError):
                raise InputPropertiesError(
                    str(err.inner), [{"property_path": i.path, "reason": i.message} for i in err.inner.issues]
                ) from None
            raise


    def _unknown(self, value: Any, props: dict[str, Any], path: str, allowed: set[str] = frozenset()) -> list[Any]:
        """``{property_path, reason}`` per key of ``value`` (a dict of inputs) the schema has not; a null
        value, and at the top an output's name (some SDKs send outputs as null inputs), pass."""
        if not isinstance(value, dict):
            return []
        errors: list[Any] = []
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            prop = props.get(key)
            if prop is None:
                if item is None or key in allowed:
                    continue
                close = closest(key, props)
                hint = f"did you mean {close!r}?" if close else f"expected one of {', '.join(sorted(props))}"
                errors.append({"property_path": where, "reason": f"{key!r} is no property here; {hint}"})
                continue
            errors += self._unknown_in(item, prop, where)
        return errors

    def _unknown_in(self, item: Any, prop: Any, where: str) -> list[Any]:
        if prop.ref:
            found = self.get_type_definition(prop)
            if found is None or found.enum:
                return []
            type_name = prop.ref.rsplit(":", 1)[-1]
            if isinstance(item, str):  # a taint's "key=value:Effect": an object type given a string
                return [{"property_path": where, "reason": _string_for_object(item, type_name)}]
            if type_name == "PoolArgs" and isinstance(item, dict):  # the wrong backend's block, before its own fields
                blocks = _wrong_blocks(item, where)
                if blocks:
                    return blocks
            return self._unknown(item, found.properties, where)
        if prop.items is not None and isinstance(item, list):
            return [e for i, v in enumerate(item) for e in self._unknown_in(v, prop.items, f"{where}[{i}]")]
        if prop.additional_properties is not None and isinstance(item, dict):
            return [e for k, v in item.items() for e in self._unknown_in(v, prop.additional_properties, f"{where}.{k}")]
        return []


def _string_for_object(value: str, type_name: str) -> str:
    """Why a string given for the object type ``type_name`` is refused, with the object to write (a taint string
    ``key=value:Effect`` turned into its ``{key, value, effect}``)."""
    from ..config.defaults import DEFAULT_TAINT
    from ..k8s.taints import TaintError, split_kubelet_form
    from ..text.terminal import shown

    if type_name != "TaintArgs":
        return f"{shown(value)} is a string; {type_name.removesuffix('Args')} is an object here: write its fields"
    try:
        key, val, effect = split_kubelet_form(value)
    except TaintError:
        key, val, effect = DEFAULT_TAINT.key, DEFAULT_TAINT.value, DEFAULT_TAINT.effect.value
    fields = ", ".join(f"{k}: {v}" for k, v in (("key", key), ("value", val), ("effect", effect)) if v or k != "value")
    return (f"{shown(value)}: the string form key=value:Effect of a taint is taken only by Python (GpuNodePoolArgs) "
            f"and the stack file (README, 'Every Pulumi language'); the package takes the object {{key, value, effect}}: "
            f"write {{{fields}}}")


def _wrong_blocks(pool: dict[str, Any], where: str) -> list[Any]:
    """``{property_path, reason}`` per block of another backend than the pool's ``backend`` (camelCase inputs)."""
    from .inputs import wrong_blocks
    from .types import BLOCKS, camel

    backend = pool.get("backend")
    if backend not in BLOCKS.values():
        return []  # not a backend: the SDK names the enum's values
    given = [block for block in BLOCKS if pool.get(camel(block)) is not None]
    return [{"property_path": i.path, "reason": i.message} for i in wrong_blocks(backend, given, where)]


def schema() -> dict[str, Any]:
    """The package schema as Pulumi's tooling receives it (``GetSchema``): a JSON object."""
    return json.loads(GpuNodePoolsProvider().schema or "{}")


def main(argv: list[str] | None = None) -> None:
    """Serve the provider: ``argv`` is the engine address and the flags the language host passes."""
    from pulumi.provider import main as serve

    serve(GpuNodePoolsProvider(), sys.argv[1:] if argv is None else argv)
