"""PyYAML syntax errors as one line with file, line and column (instead of PyYAML's own dump).

PyYAML's ``str(MarkedYAMLError)`` spans several lines and names the stream
``"<unicode string>"``; a user needs the file and the place, as editors and compilers print them.
"""

from __future__ import annotations

import yaml

__all__ = ["yaml_syntax_problem"]


def yaml_syntax_problem(err: yaml.YAMLError, name: str) -> tuple[str, str]:
    """``(where, message)`` for a YAML syntax error in the file ``name``.

    ``where`` is ``<name>:<line>:<column>`` (both counted from 1, as editors show them) when
    PyYAML knows the place, else ``name``; ``message`` is one line:
    ``is not valid YAML: <problem> (<context> on line N); fix the syntax there``.
    """
    mark = getattr(err, "problem_mark", None)
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
    problem = getattr(err, "problem", None) or (str(err).splitlines() or [type(err).__name__])[0]
    context, context_mark = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and context_mark is not None:
        problem += f" ({context} on line {context_mark.line + 1})"
    return where, f"is not valid YAML: {problem}; fix the syntax there"
