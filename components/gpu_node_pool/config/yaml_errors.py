"""PyYAML syntax errors as one line with file, line and column (instead of PyYAML's own dump).

PyYAML's ``str(MarkedYAMLError)`` spans several lines and names the stream
``"<unicode string>"``; a user needs the file and the place, as editors and compilers print them.
"""

from __future__ import annotations

import yaml

__all__ = ["yaml_syntax_problem"]

#: PyYAML problems a stack file's author would not recognise, said in the file's terms, each with its rule and fix.
_IN_WORDS = {
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


def yaml_syntax_problem(err: yaml.YAMLError, name: str) -> tuple[str, str]:
    """``(where, message)`` for a YAML syntax error in the file ``name``.

    ``where`` is ``<name>:<line>:<column>`` (both counted from 1, as editors show them) when
    PyYAML knows the place, else ``name``; ``message`` is one line:
    ``is not valid YAML: <problem> (<context> on line N); fix the syntax there``, or, for a problem PyYAML words in its
    own terms (a second document, a key that is a list), what it means for a stack file and the fix.
    """
    mark = getattr(err, "problem_mark", None)
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
    problem = getattr(err, "problem", None) or (str(err).splitlines() or [type(err).__name__])[0]
    if problem in _IN_WORDS:
        return where, _IN_WORDS[problem]
    context, context_mark = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and context_mark is not None:
        problem += f" ({context} on line {context_mark.line + 1})"
    return where, f"is not valid YAML: {problem}; fix the syntax there"
