"""Kubernetes name syntax: qualified names (taint, label and resource keys) and label values, as
``k8s.io/apimachinery/pkg/util/validation`` checks them (``IsQualifiedName``, ``IsValidLabelValue``;
the formats ``qualifiedNameFmt``, ``dns1123SubdomainFmt``, ``labelValueFmt``). Part of
:mod:`gpu_node_pool.k8s.taints`, which re-exports it."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..text.terminal import shown
from .patterns import full_match

__all__ = [
    "DNS1123_SUBDOMAIN_MAX",
    "DNS1123_SUBDOMAIN_RE",
    "LABEL_VALUE_MAX",
    "QUALIFIED_NAME_MAX",
    "label_value_problem",
    "qualified_name_problem",
]

# k8s.io/apimachinery/pkg/util/validation: qualifiedNameFmt, dns1123SubdomainFmt, labelValueFmt
_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
QUALIFIED_NAME_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
#: Keys and values judged, remembered (a stack repeats the same few thousands of times over its pools);
#: only those short enough to be valid (a prefix, '/', a name), so a huge one is not kept.
_MEMO, _MEMO_LENGTH = 4096, DNS1123_SUBDOMAIN_MAX + 1 + QUALIFIED_NAME_MAX


def qualified_name_problem(key: Any) -> str | None:
    """Return why ``key`` is not a Kubernetes qualified name, or None when it is one.

    A qualified name is ``[prefix/]name``: the optional prefix is a DNS-1123 subdomain of at
    most 253 characters, followed by exactly one ``/``; the name is 1-63 characters,
    alphanumeric at both ends, with ``-``, ``_`` and ``.`` inside. Taint keys and label keys
    both follow it (``IsQualifiedName``).
    """
    if not isinstance(key, str):
        return f"must be a string, got {type(key).__name__}"
    return _qualified_name_problem(key) if len(key) <= _MEMO_LENGTH else _qualified_name_problem.__wrapped__(key)


@lru_cache(maxsize=_MEMO)
def _qualified_name_problem(key: str) -> str | None:
    if key == "":
        return "must not be empty"
    parts = key.split("/")
    if len(parts) > 2:
        return (
            "must be a qualified name with at most one '/' (an optional DNS-subdomain prefix, "
            "'/', then a name), e.g. 'nvidia.com/gpu'"
        )
    if len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "has an empty prefix before '/'"
        if len(prefix) > DNS1123_SUBDOMAIN_MAX:
            return f"prefix is {len(prefix)} characters; a DNS subdomain has at most {DNS1123_SUBDOMAIN_MAX}"
        if not full_match(DNS1123_SUBDOMAIN_RE, prefix):
            return (
                f"prefix {shown(prefix)} is not a DNS subdomain (lower-case letters, digits, '-' and '.', "
                "alphanumeric at both ends)"
            )
    else:
        name = parts[0]
    if not name:
        return "has an empty name after '/'"
    if len(name) > QUALIFIED_NAME_MAX:
        return f"name part is {len(name)} characters; at most {QUALIFIED_NAME_MAX} are allowed"
    if not full_match(_NAME_RE, name):
        return (
            f"name part {shown(name)} must start and end with a letter or digit and contain only "
            "letters, digits, '-', '_' and '.'"
        )
    return None


def label_value_problem(value: Any) -> str | None:
    """Return why ``value`` is not a valid label (and taint) value, or None when it is valid.

    A label value is empty, or at most 63 characters, alphanumeric at both ends, with
    ``-``, ``_`` and ``.`` inside (``IsValidLabelValue``).
    """
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__} (quote it in YAML)"
    return _label_value_problem(value) if len(value) <= _MEMO_LENGTH else _label_value_problem.__wrapped__(value)


@lru_cache(maxsize=_MEMO)
def _label_value_problem(value: str) -> str | None:
    if len(value) > LABEL_VALUE_MAX:
        return f"is {len(value)} characters; at most {LABEL_VALUE_MAX} are allowed"
    if not full_match(_LABEL_VALUE_RE, value):
        return (
            "must be empty or start and end with a letter or digit and contain only letters, "
            "digits, '-', '_' and '.'"
        )
    return None
