"""How Go's YAML readers and JSON writer spell a float, defined once: which plain YAML scalar Go's YAML readers take
as a float (:func:`yaml_float`, and its exponent-form variant :func:`yaml_exponent_float`), and from what size Go's
``encoding/json`` writes a float64 with an exponent (:data:`JSON_EXPONENT_FROM`).

Go's YAML readers are the ones that read what this package judges: the Pulumi CLI reads stack files with
``gopkg.in/yaml.v3``; the API server, ``kubectl`` and Helm read manifests and values with ``sigs.k8s.io/yaml``,
which converts through ``yaml.v2`` (its fork ``goyaml.v2/resolve.go``@v1.4.0, ``go.yaml.in/yaml/v2`` from v1.5.0).
Both resolve a float alike (go-yaml/yaml ``resolve.go``@v3.0.1, commit f6f7691b1fdeb513f56608cd2c32c51f8194bf51,
and ``resolve.go``@v2.4.0, commit 7649d4548cb53a614db133b2a8ac1f31859dda8c, function ``resolve``):

* a plain scalar whose first character is a digit or a sign (resolve table hint ``'D'``/``'S'``) has every ``_``
  dropped; when ``strconv.ParseInt``/``ParseUint`` (base 0) do not read it as an integer, it is a float if it
  matches ``yamlStyleFloat`` (:data:`YAML_FLOAT`, the YAML 1.2 core schema's float,
  https://yaml.org/spec/1.2.2/#10214-floating-point) and ``strconv.ParseFloat`` reads it without a range error;
* a plain scalar starting with ``.`` (hint ``'.'``), not one of the ``.inf``/``.nan`` words of the resolve map, is
  a float if ``strconv.ParseFloat`` reads it as written, ``_`` kept: :data:`YAML_DOT_FLOAT` is what ParseFloat reads
  there (https://pkg.go.dev/strconv#ParseFloat: ``_`` only after a base prefix);
* a float that overflows float64 (``1e400``; ParseFloat's ``ErrRange``) stays a string.

So ``1e3``, ``5e3`` and ``1e+26`` are floats to Go, while PyYAML's YAML 1.1 resolver, which wants a ``.`` and a
signed exponent, keeps them strings. Imports nothing of the package.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["JSON_EXPONENT_FROM", "YAML_DOT_FLOAT", "YAML_FLOAT", "YAML_FLOAT_FIRST", "yaml_exponent_float", "yaml_float"]

#: ``yamlStyleFloat`` of gopkg.in/yaml.v2 and v3 ``resolve.go`` (``^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$``),
#: matched against a scalar's text once every ``_`` is dropped; ``\Z`` ends it so that ``match`` (PyYAML's resolvers)
#: and ``fullmatch`` both take the whole text, as Go's ``$`` does.
YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
#: A plain scalar that starts with ``.``: Go's YAML readers hand it to ``strconv.ParseFloat`` unchanged (no
#: ``yamlStyleFloat``, no ``_`` dropped), which reads a fraction and an optional exponent there.
YAML_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?\Z")
#: Go's ``encoding/json`` writes a float64 of this magnitude or more with an exponent (``1e+21``), as ES6 number to
#: string does (go ``src/encoding/json/encode.go``, ``floatEncoder.encode``: ``abs < 1e-6 || abs >= 1e21``). Pulumi
#: stores a stack file's config so (pulumi/pulumi ``sdk/go/common/resource/config/object.go``), and Helm's ``toYaml``
#: writes a values number so (helm/helm ``pkg/engine/funcs.go``, through sigs.k8s.io/yaml's ``json.Marshal``).
JSON_EXPONENT_FROM = 1e21
#: The characters a plain scalar :func:`yaml_float` may read starts with (the resolve table's ``'D'``, ``'S'``, ``'.'``).
YAML_FLOAT_FIRST = "-+0123456789."
#: Longest text read here: a float64 needs fewer than 30 characters; longer texts are no number anyone wrote.
_MOST_CHARS = 400


def yaml_float(text: Any) -> float | None:
    """The float Go's YAML readers make of the plain scalar ``text`` (module docstring), or None when they make no
    float of it, or ``text`` is no string. Integers are resolved first there: callers that have not ruled them out
    (``12``, ``0x1F``, ``010``) get ``12.0`` etc. for those. ``yaml_float("1e3") == 1000.0``, ``yaml_float("1_0.5")
    == 10.5``, ``yaml_float(".5") == 0.5``; None for ``"1e"``, ``"._5"``, ``"1e400"``, ``".inf"``, ``"abc"``."""
    if not isinstance(text, str) or not text or len(text) > _MOST_CHARS or text[0] not in YAML_FLOAT_FIRST:
        return None
    if text[0] == ".":
        plain, rule = text, YAML_DOT_FLOAT
    else:
        plain, rule = text.replace("_", ""), YAML_FLOAT
    if rule.match(plain) is None:
        return None
    value = float(plain)
    return None if math.isinf(value) else value


def yaml_exponent_float(text: Any) -> float | None:
    """:func:`yaml_float` of a ``text`` in exponent form only (``"1e+26"``, ``"1.5E3"``: the form Go's
    ``encoding/json`` writes from :data:`JSON_EXPONENT_FROM`), else None. Such a text is never an integer to Go
    (``ParseInt`` reads no ``e`` in a decimal, and :data:`YAML_FLOAT` no hex digits), so it needs no integer check:
    the variant for a string that would be a number were it written unquoted (``tolerationSeconds: "1e+26"``)."""
    if not isinstance(text, str) or ("e" not in text and "E" not in text):
        return None
    return yaml_float(text)
