"""PyYAML syntax errors as one line with file, line and column (instead of PyYAML's own dump).

PyYAML's ``str(MarkedYAMLError)`` spans several lines and names the stream
``"<unicode string>"``; a user needs the file and the place, as editors and compilers print them.
A problem PyYAML words in its own terms is said in the terms of the file it reads: a stack file
(:data:`STACK_FILE`) or a Kubernetes manifest (:data:`MANIFEST`).
"""

from __future__ import annotations

from typing import Literal

import yaml

__all__ = ["MANIFEST", "STACK_FILE", "yaml_syntax_problem"]

#: What :func:`yaml_syntax_problem` reads: a Pulumi stack file (``Pulumi.<stack>.yaml``).
STACK_FILE = "stack file"
#: What :func:`yaml_syntax_problem` reads: a Kubernetes manifest (a yaml component's file or text).
MANIFEST = "manifest"
FileKind = Literal["stack file", "manifest"]

#: PyYAML problems a stack file's author would not recognise, said in the file's terms, each with its rule and fix.
_IN_STACK_FILE_WORDS = {
    # PyYAML composes one document per file here; Pulumi reads a stack file with gopkg.in/yaml.v3's Unmarshal,
    # which "decodes the first document found" (yaml.v3 yaml.go) and drops the rest without a word.
    "but found another document": (
        "starts a second YAML document ('---'): Pulumi reads only the first document of a stack file (it decodes "
        "it with gopkg.in/yaml.v3 Unmarshal, which takes the first document and ignores the rest), so nothing from "
        "here on would reach the program; remove this '---' line and keep every key under the first config:"),
    # a mapping key that is itself a list or mapping (``? [a, b]``): Python cannot hash it, and a Pulumi config key
    # is a string (``namespace:key``, https://www.pulumi.com/docs/iac/concepts/config/)
    "found unhashable key": (
        "has a key that is a list or mapping (a YAML complex key, '? [a, b]'): a stack file's keys are strings "
        "(Pulumi config keys, namespace:key: https://www.pulumi.com/docs/iac/concepts/config/); write the key as text"),
}
#: The same for a Kubernetes manifest, whose documents are read with ``load_all`` (a second document is no problem).
_IN_MANIFEST_WORDS = {
    # Kubernetes objects are JSON objects: the provider and kubectl decode each YAML document with
    # k8s.io/apimachinery pkg/util/yaml (YAMLOrJSONDecoder), which converts it to JSON with sigs.k8s.io/yaml
    # (kubernetes-sigs/yaml yaml.go, convertToJSONableObject: "Unsupported map key of type"), so a key that is a
    # list or mapping fails the decoding.
    "found unhashable key": (
        "has a key that is a list or mapping (a YAML complex key, '? [a, b]'): a Kubernetes manifest's keys are "
        "strings (field names, label and annotation keys: each document is decoded as a JSON object, whose keys are "
        "strings; k8s.io/apimachinery pkg/util/yaml converts it with sigs.k8s.io/yaml, which fails with "
        "\"Unsupported map key of type\", kubernetes-sigs/yaml yaml.go), so kubectl apply and Pulumi's Kubernetes "
        "provider refuse the manifest; write the key as text (quote it, \"key\": value)"),
}
_IN_WORDS: dict[str, dict[str, str]] = {STACK_FILE: _IN_STACK_FILE_WORDS, MANIFEST: _IN_MANIFEST_WORDS}


def yaml_syntax_problem(err: yaml.YAMLError, name: str, reads: FileKind = STACK_FILE) -> tuple[str, str]:
    """``(where, message)`` for a YAML syntax error in the file ``name``, which is a ``reads``
    (:data:`STACK_FILE`, the default, or :data:`MANIFEST`).

    ``where`` is ``<name>:<line>:<column>`` (both counted from 1, as editors show them) when
    PyYAML knows the place, else ``name``; ``message`` is one line:
    ``is not valid YAML: <problem> (<context> on line N); fix the syntax there``, or, for a problem PyYAML words in its
    own terms, what it means for that kind of file and the fix: in a stack file a second document or a key that is a
    list; in a manifest a key that is a list.

    Raises:
        ValueError: ``reads`` is neither kind of file.
    """
    if reads not in _IN_WORDS:
        raise ValueError(f"reads: {reads!r} is no kind of file this reads; give {STACK_FILE!r} or {MANIFEST!r}")
    mark = getattr(err, "problem_mark", None)
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
    problem = getattr(err, "problem", None) or (str(err).splitlines() or [type(err).__name__])[0]
    if problem in _IN_WORDS[reads]:
        return where, _IN_WORDS[reads][problem]
    context, context_mark = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and context_mark is not None:
        problem += f" ({context} on line {context_mark.line + 1})"
    return where, f"is not valid YAML: {problem}; fix the syntax there"
