"""Kubernetes name syntax: qualified names (taint, label and resource keys) and label values, as
``k8s.io/apimachinery/pkg/util/validation`` checks them (``IsQualifiedName``, ``IsValidLabelValue``;
the formats ``qualifiedNameFmt``, ``dns1123SubdomainFmt``, ``labelValueFmt``). Part of
:mod:`gpu_node_pool.k8s.taints`, which re-exports it.

Every sentence returned here names the rule's public source (:data:`QUALIFIED_NAME_SOURCE`,
:data:`LABEL_VALUE_SOURCE`) and ends with the fix, a valid value to write (made from the refused
one where it can be, else one of the examples Kubernetes' own messages give), so every caller
(config validation, taint parsing, tolerations, node selectors, audits) tells the same rule, source
and fix."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from ..text.terminal import MAX_SHOWN, shown
from .patterns import full_match

__all__ = [
    "DNS1123_LABEL_MAX",
    "DNS1123_LABEL_RE",
    "DNS1123_LABEL_RULE",
    "DNS1123_SUBDOMAIN_MAX",
    "DNS1123_SUBDOMAIN_RE",
    "LABEL_VALUE_MAX",
    "LABEL_VALUE_SOURCE",
    "QUALIFIED_NAME_MAX",
    "RESERVED_LABEL_DOMAINS",
    "QUALIFIED_NAME_SOURCE",
    "in_domain",
    "label_domain",
    "label_value_problem",
    "qualified_name_problem",
    "reserved_label_domain",
]

# k8s.io/apimachinery/pkg/util/validation: qualifiedNameFmt, dns1123LabelFmt, dns1123SubdomainFmt, labelValueFmt
_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
DNS1123_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
QUALIFIED_NAME_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
DNS1123_LABEL_MAX = 63
LABEL_VALUE_MAX = 63
#: What a DNS-1123 label is, in a message's words (``IsDNS1123Label`` in k8s.io/apimachinery
#: pkg/util/validation/validation.go): the form of a namespace's name.
DNS1123_LABEL_RULE = (f"a DNS-1123 label (lower-case letters, digits and '-', a letter or digit at each end; at most "
                      f"{DNS1123_LABEL_MAX} characters)")
#: Keys and values judged, remembered (a stack repeats the same few thousands of times over its pools);
#: only those short enough to be valid (a prefix, '/', a name), so a huge one is not kept.
_MEMO, _MEMO_LENGTH = 4096, DNS1123_SUBDOMAIN_MAX + 1 + QUALIFIED_NAME_MAX

_VALIDATION_GO = "k8s.io/apimachinery pkg/util/validation/validation.go"
_SYNTAX_DOC = "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set"
#: The public source of the qualified-name rule (taint keys, label keys), as the messages cite it.
QUALIFIED_NAME_SOURCE = f"IsQualifiedName in {_VALIDATION_GO}; {_SYNTAX_DOC}"
#: The public source of the label-value rule (label values, taint values), as the messages cite it.
LABEL_VALUE_SOURCE = f"IsValidLabelValue in {_VALIDATION_GO}; {_SYNTAX_DOC}"
#: Valid values to offer when none can be made from the refused one (the examples of
#: ``IsQualifiedName``'s and ``IsValidLabelValue``'s own messages, with a prefix for the key).
_NAME_EXAMPLE, _KEY_EXAMPLE, _VALUE_EXAMPLE = "my-name", "example.com/my-name", "my_value"
#: Label-key domains Kubernetes or a platform keeps for itself, with who keeps them and the public source: a key in
#: one of them or a subdomain is refused on a node pool's labels by some backend (or by the kubelet), so a
#: suggested key never lands there. Only what a pool takes in these domains is not offered
#: (:data:`_TAKEN_IN_RESERVED`); the rules that refuse such keys are the backends' own.
RESERVED_LABEL_DOMAINS: dict[str, tuple[str, str]] = {
    "kubernetes.io": ("Kubernetes reserves for its core components", _SYNTAX_DOC),
    "k8s.io": ("Kubernetes reserves for its core components", _SYNTAX_DOC),
    "karpenter.sh": ("Karpenter reserves",
                     "kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml: label domain \"karpenter.sh\" is restricted"),
    "karpenter.k8s.aws": ("Karpenter's AWS provider reserves",
                          "aws/karpenter-provider-aws pkg/apis/crds/karpenter.sh_nodepools.yaml: label domain "
                          "\"karpenter.k8s.aws\" is restricted"),
    "eks.amazonaws.com": ("EKS reserves", "aws/containers-roadmap#1451"),
    "cloud.google.com": ("GKE manages", "hashicorp/terraform-provider-google#19677"),
}
#: The one key in a reserved domain a node pool takes as a label (GKE's custom ComputeClass label, documented for
#: node pools created by hand: gpu_node_pool.k8s.labels.GKE_COMPUTE_CLASS_LABEL), so a misspelling of it is fixed
#: in place.
_TAKEN_IN_RESERVED = frozenset({"cloud.google.com/compute-class"})
_OWN_DOMAIN = "example.com"
_NOT_NAME_CHARS = re.compile(r"[^-A-Za-z0-9_.]+")
_NOT_PREFIX_CHARS = re.compile(r"[^-a-z0-9.]+")
_EDGE = "-_."


def _ascii_letters(text: str) -> str:
    """``text`` with accented letters written without their accents (``présent`` -> ``present``: Unicode
    compatibility decomposition, combining marks dropped), so that an example keeps the word meant."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _name_like(text: str, limit: int) -> str:
    """``text`` with accents dropped, each run of characters a name may not hold made one ``-``, cut to
    ``limit`` characters and trimmed to a letter or digit at both ends (``""`` when nothing is left)."""
    return _NOT_NAME_CHARS.sub("-", _ascii_letters(text)[:limit]).strip(_EDGE)


def _prefix_like(text: str) -> str:
    """``text`` made a DNS-1123 subdomain: lower case, other characters ``-``, empty labels dropped,
    each label alphanumeric at both ends, at most 253 characters (``""`` when nothing is left)."""
    text = _ascii_letters(text)[:DNS1123_SUBDOMAIN_MAX].lower()
    labels = [part.strip("-") for part in _NOT_PREFIX_CHARS.sub("-", text).split(".")]
    return ".".join(part for part in labels if part)[:DNS1123_SUBDOMAIN_MAX].strip("-.")


def _key_example(key: str) -> str:
    """A valid qualified name made from the refused ``key`` (its first segment the prefix when it has a
    ``/``, the rest the name), or :data:`_KEY_EXAMPLE`."""
    prefix, sep, name = key.partition("/")
    if not sep:
        prefix, name = "", key
    name = _name_like(name.replace("/", "-"), QUALIFIED_NAME_MAX)
    prefix = _prefix_like(prefix) if sep else ""
    if sep and not prefix:
        prefix = "example.com"
    example = f"{prefix}/{name}" if prefix else name
    if len(example) > MAX_SHOWN and sep:
        example = f"example.com/{name}"
    if not name or _qualified_name_rule(example) is not None:
        return _KEY_EXAMPLE if sep or not name else _NAME_EXAMPLE
    return example


def label_domain(key: str) -> str:
    """The prefix of ``key`` before ``/``, or ``""`` for an unprefixed key."""
    prefix, sep, _ = key.partition("/")
    return prefix if sep else ""


def in_domain(key: str, domain: str) -> bool:
    """True when ``key``'s prefix is ``domain`` or a subdomain of it (``node-role.kubernetes.io`` is in ``kubernetes.io``).

    Compared as written, as the kubelet's ``IsKubeletLabel`` and Karpenter compare label domains: a prefix is a
    DNS-1123 subdomain, lower case (``IsQualifiedName``), so a valid key needs no folding, and an invalid one is
    refused for its syntax first."""
    prefix = label_domain(key)
    return prefix == domain or prefix.endswith("." + domain)


def reserved_label_domain(key: str) -> str | None:
    """The domain of :data:`RESERVED_LABEL_DOMAINS` ``key``'s prefix is in (:func:`in_domain`: equal to it or a
    subdomain), or None: ``reserved_label_domain("node-role.kubernetes.io/gpu") == "kubernetes.io"``."""
    return next((d for d in RESERVED_LABEL_DOMAINS if in_domain(key, d)), None)


def _own_domain_fix(example: str) -> str | None:
    """Why ``example`` (a valid key) is not offered as a node label and the key offered instead, worded to follow
    the rule's source: ``node-role.kubernetes.io is in kubernetes.io, a domain Kubernetes reserves ...; use your
    own domain, e.g. 'example.com/gpu'``; None when ``example`` is in no reserved domain."""
    domain = reserved_label_domain(example)
    if domain is None or example in _TAKEN_IN_RESERVED:
        return None
    prefix, _, name = example.partition("/")
    who, source = RESERVED_LABEL_DOMAINS[domain]
    where = f"{domain} is a domain" if prefix == domain else f"{prefix} is in {domain}, a domain"
    return f"{where} {who} ({source}); use your own domain, e.g. {shown(f'{_OWN_DOMAIN}/{name}')}"


def _value_example(value: str) -> str:
    """A valid label value made from the refused ``value``, or :data:`_VALUE_EXAMPLE`."""
    example = _name_like(value, LABEL_VALUE_MAX)
    return example if example and _label_value_rule(example) is None else _VALUE_EXAMPLE


def qualified_name_problem(key: Any, *, node_label: bool = False) -> str | None:
    """Return why ``key`` is not a Kubernetes qualified name, or None when it is one.

    A qualified name is ``[prefix/]name``: the optional prefix is a DNS-1123 subdomain of at
    most 253 characters, followed by exactly one ``/``; the name is 1-63 characters,
    alphanumeric at both ends, with ``-``, ``_`` and ``.`` inside. Taint keys and label keys
    both follow it (``IsQualifiedName``).

    The sentence follows the key in a message: the rule broken, its source
    (:data:`QUALIFIED_NAME_SOURCE`) and ``write e.g. <a valid key>``, e.g. ``name part is 64 characters;
    at most 63 are allowed (IsQualifiedName in ...); write e.g. 'kk...k'``.

    ``node_label``: the key is a label the stack sets on nodes. A fix whose prefix is in a reserved domain
    (:func:`reserved_label_domain`, e.g. ``node-role.kubernetes.io`` for ``'node-role.kubernetes.io/GPU Node'``)
    is then not offered: the sentence says which domain, who keeps it and its source, and offers the name in your
    own domain (``e.g. 'example.com/GPU-Node'``), a key that both rules take.
    """
    if not isinstance(key, str):
        return f"must be a string, got {type(key).__name__} (quote it in YAML), e.g. {_KEY_EXAMPLE!r}"
    if len(key) > _MEMO_LENGTH:
        return _qualified_name_problem.__wrapped__(key, node_label)
    return _qualified_name_problem(key, node_label)


@lru_cache(maxsize=_MEMO)
def _qualified_name_problem(key: str, node_label: bool) -> str | None:
    rule = _qualified_name_rule(key)
    if rule is None:
        return None
    example = _key_example(key)
    own = _own_domain_fix(example) if node_label else None
    if own is not None:
        return f"{rule} ({QUALIFIED_NAME_SOURCE}); {own}"
    return f"{rule} ({QUALIFIED_NAME_SOURCE}); write e.g. {shown(example)}"


def _qualified_name_rule(key: str) -> str | None:
    """The ``IsQualifiedName`` rule ``key`` breaks, worded, or None."""
    if key == "":
        return "must not be empty"
    parts = key.split("/")
    if len(parts) > 2:
        return (
            "must be a qualified name with at most one '/' (an optional DNS-subdomain prefix, "
            "'/', then a name)"
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

    The sentence follows the value in a message: the rule broken, its source
    (:data:`LABEL_VALUE_SOURCE`) and ``write e.g. <a valid value>``, e.g. for ``'Bad_Class!'``:
    ``must be empty or start and end with a letter or digit ... (IsValidLabelValue in ...); write e.g. 'Bad_Class'``.
    """
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__} (quote it in YAML), e.g. {_VALUE_EXAMPLE!r}"
    return _label_value_problem(value) if len(value) <= _MEMO_LENGTH else _label_value_problem.__wrapped__(value)


@lru_cache(maxsize=_MEMO)
def _label_value_problem(value: str) -> str | None:
    rule = _label_value_rule(value)
    if rule is None:
        return None
    return f"{rule} ({LABEL_VALUE_SOURCE}); write e.g. {shown(_value_example(value))}"


def _label_value_rule(value: str) -> str | None:
    """The ``IsValidLabelValue`` rule ``value`` breaks, worded, or None."""
    if len(value) > LABEL_VALUE_MAX:
        return f"is {len(value)} characters; at most {LABEL_VALUE_MAX} are allowed"
    if not full_match(_LABEL_VALUE_RE, value):
        return (
            "must be empty or start and end with a letter or digit and contain only letters, "
            "digits, '-', '_' and '.'"
        )
    return None
