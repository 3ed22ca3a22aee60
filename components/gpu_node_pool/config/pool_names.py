"""The pool ``name`` rule: a lower-case DNS label of at most 63 characters, fewer on a backend whose cloud derives a
tighter name from it (the registry's ``pool_name``: eks-managed 44, gke 22), with each limit's reason and source.

Every pool model's ``name`` validator (``PoolBase``) calls :func:`check_pool_name`; :func:`pool_name_schema` gives
each backend's pool model its own ``maxLength`` in ``gpupool schema``.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args, get_origin

from ..k8s.names import DNS1123_LABEL_RE, LABEL_VALUE_MAX, LABEL_VALUE_SOURCE
from ..k8s.patterns import full_match
from ..k8s.wellknown import POOL_LABEL_KEY
from ..text.terminal import MAX_SHOWN, shown
from .errors import fail

__all__ = ["check_pool_name", "pool_name_limit", "pool_name_schema"]

#: A lower-case RFC 1123 label, as Kubernetes checks object names (``dns1123LabelFmt``).
_POOL_NAME_RE = DNS1123_LABEL_RE
_POOL_NAME_SOURCE = "IsDNS1123Label in k8s.io/apimachinery pkg/util/validation/validation.go"
#: Why no pool name is longer than 63 characters on any backend: it is the value of the pool label its nodes carry.
_POOL_NAME_WHY = (f"it is the value of the node label {POOL_LABEL_KEY}, and a label value is at most {LABEL_VALUE_MAX} "
                  f"characters ({LABEL_VALUE_SOURCE.split(';')[0]})")


def _model_backend(model: type) -> str | None:
    """The backend name a pool model's ``backend: Literal[...]`` holds, or None (``PoolBase`` itself)."""
    field = getattr(model, "model_fields", {}).get("backend")
    literal = get_args(field.annotation) if field is not None and get_origin(field.annotation) is Literal else ()
    return literal[0] if len(literal) == 1 else None


def pool_name_limit(model: type) -> tuple[int, str]:
    """``(longest, why)``: the longest ``name`` the pool model ``model`` takes and the sentence saying why, with its
    source: its backend's registry ``pool_name`` (:class:`~gpu_node_pool.registry.PoolNameLimit`) when the backend
    derives a tighter name from it, else the 63 characters of a label value."""
    from ..registry import find

    name = _model_backend(model)
    backend = find(name) if name is not None else None
    limit = backend.pool_name if backend is not None else None
    if limit is None or limit.longest >= LABEL_VALUE_MAX:
        return LABEL_VALUE_MAX, _POOL_NAME_WHY
    return limit.longest, limit.why


def _example(name: str, longest: int) -> str:
    """A valid pool name made from the refused ``name`` (lower case, '-' for other characters, cut to ``longest``)."""
    made = re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]", "-", name.lower())).strip("-")[:longest].strip("-")
    return made or "gpu-inference"


def check_pool_name(model: type, name: str) -> str:
    """``name`` when the pool model ``model`` takes it.

    Raises:
        PydanticCustomError: (:func:`.errors.fail`) not a lower-case DNS label, or longer than :func:`pool_name_limit`: the message gives
            the rule, its source and a name to write instead.
    """
    longest, why = pool_name_limit(model)
    example = _example(name, longest)
    if not full_match(_POOL_NAME_RE, name):
        raise fail(
            f"{shown(name)} must be a lower-case DNS label: letters, digits and '-', starting and ending with a letter or "
            f"digit (the pool name is the value of the node label {POOL_LABEL_KEY} and names the pool's Kubernetes "
            f"and cloud objects; {_POOL_NAME_SOURCE}); write e.g. {example!r}"
        )
    if len(name) > longest:
        backend = _model_backend(model)
        owner = f"backend {backend} takes" if backend is not None else "a pool name has"
        size = f" is {len(name)} characters" if len(name) <= MAX_SHOWN else ""  # else shown() says it
        raise fail(f"{shown(name)}{size}; {owner} at most {longest}: {why}; write e.g. {example!r}")
    return name


def pool_name_schema(schema: dict[str, Any], model: type) -> None:
    """The ``name`` property of a backend's pool model in its JSON schema (``gpupool schema``): the DNS-label
    pattern and the backend's own ``maxLength``, with the reason in its description."""
    prop = schema.get("properties", {}).get("name")
    if isinstance(prop, dict) and _model_backend(model) is not None:
        longest, why = pool_name_limit(model)
        prop.update(maxLength=longest, pattern=_POOL_NAME_RE.pattern,
                    description=f"Pool name: a lower-case DNS label of at most {longest} characters ({why}).")
