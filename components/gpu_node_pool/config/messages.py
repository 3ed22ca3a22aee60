"""Pydantic's error kinds in words a platform engineer reads: the model at a config path, its keys, the
rule behind a regular expression, values shown as YAML shows them (``null``, ``true``) and cut short.

Pure helpers for :mod:`.loading`; no regular expression, class name or Python literal reaches a user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import NoneType, UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..k8s.names import DNS1123_LABEL_RE, DNS1123_LABEL_RULE
from ..registry import all_backends
from ..sdk.yaml_bounded import STR_TAG
from ..text.terminal import MAX_SHOWN, shown
from .pulumi_scalars import plain_kind
from .pulumi_yaml import load_pulumi_yaml

#: The rule behind each ``pattern=`` of the config models, in words, with a valid example (source of
#: each rule in the comment). Keyed by the pattern itself so a model anywhere can use it.
PATTERN_RULES: dict[str, str] = {
    # IAM ARN format (AWS IAM User Guide, "IAM ARNs")
    r"^arn:aws[a-z-]*:iam::[0-9]{12}:role/[!-~]+$": "must be an IAM role ARN arn:aws:iam::<12-digit account>:role/<name>, "
    "e.g. arn:aws:iam::111122223333:role/ml-dev-gpu-node",
    r"^arn:aws[a-z-]*:iam::[0-9]{12}:instance-profile/[!-~]+$": "must be an IAM instance profile ARN "
    "arn:aws:iam::<12-digit account>:instance-profile/<name>, e.g. arn:aws:iam::111122223333:instance-profile/gpu-nodes",
    r"^arn:aws[a-z-]*:resource-groups:[a-z0-9-]+:[0-9]{12}:group/[a-zA-Z0-9_.-]{1,300}$": "must be a resource group ARN, e.g. "
    "arn:aws:resource-groups:us-west-2:111122223333:group/gpu-reservations",
    # EKS CreateCluster name constraint
    r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$": "must be 1-100 letters, digits, '-' or '_', starting with a letter or "
    "digit (the EKS cluster name rule), e.g. ml-dev",
    r"^1\.[0-9]{2}$": "must be a Kubernetes minor version 1.NN written as a quoted string, e.g. \"1.33\"",
    # Google Cloud project ID rules (Resource Manager: 6-30 characters)
    r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$": "must be a Google Cloud project ID: 6-30 lower-case letters, digits or '-', "
    "starting with a letter and not ending with '-', e.g. ml-platform-dev",
    r"^[a-z]+-[a-z]+[0-9]+(-[a-z])?$": "must be a Google Cloud region or zone, e.g. us-central1 or us-central1-a",
    # Kubernetes namespace names are DNS labels (RFC 1123)
    DNS1123_LABEL_RE.pattern: f"must be {DNS1123_LABEL_RULE}, e.g. nvidia-device-plugin",
    r"^sha256:[0-9a-f]{64}$": "must be 'sha256:' and 64 lower-case hex digits, e.g. sha256:" + "0" * 64,
    r"^cr-[0-9a-f]+$": "must be a capacity reservation ID cr-<hex>, e.g. cr-0123456789abcdef0",
    r"^cr-[0-9a-z]+$": "must be a capacity reservation ID cr-<id>, e.g. cr-0123456789abcdef0",
    r"^[0-9]{12}$": "must be a 12-digit AWS account ID, e.g. 111122223333",
    r"^ami-[0-9a-f]{8,17}$": "must be an AMI ID ami-<8-17 hex digits>, e.g. ami-0123456789abcdef0",
    r"^nvidia-[a-z0-9]+(-[a-z0-9]+)*$": "must be a GKE accelerator type, e.g. nvidia-l4 or nvidia-h100-80gb",
    r"^[a-z][a-z0-9]*-[a-z0-9-]+$": "must be a Compute Engine machine type, e.g. g2-standard-8",
    r"^[a-z0-9][a-z0-9._-]*@[a-z0-9-]+(\.[a-z0-9-]+)+$": "must be a service account e-mail, "
    "e.g. gpu-nodes@ml-platform-dev.iam.gserviceaccount.com",
    # EKS NodeGroup releaseVersion: the AMI release, <Kubernetes version>-<date> (AL2023, awslabs/amazon-eks-ami
    # releases) or <Bottlerocket version>-<commit> (bottlerocket-os/bottlerocket releases)
    r"^[0-9]+\.[0-9]+\.[0-9]+-[0-9a-f]{8}$": "must be an EKS optimized AMI release <major.minor.patch>-<8 digits or "
    "hex>: <Kubernetes version>-<YYYYMMDD> for AL2023, e.g. 1.33.0-20250610, or <Bottlerocket version>-<commit> "
    "for Bottlerocket, e.g. 1.40.0-25e1f1a4 (NodeGroup releaseVersion, "
    "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html)",
}


def show(value: Any, python: bool = False) -> str:
    """``value`` as YAML shows it (``null``, ``true``, ``'text'``; with ``python``, as Python does: ``None``),
    cut after :data:`~gpu_node_pool.text.terminal.MAX_SHOWN` characters with its length said
    (:func:`~gpu_node_pool.text.terminal.shown`: a pasted 1 MB certificate is not echoed back)."""
    if value is None and not python:
        return "null"
    if isinstance(value, bool) and not python:
        return "true" if value else "false"
    return shown(value)


def _unwrap(ann: Any) -> list[Any]:
    """The alternatives of an annotation: ``Annotated`` and ``Optional`` removed, unions split."""
    if get_origin(ann) is Annotated:
        return _unwrap(get_args(ann)[0])
    if get_origin(ann) in (Union, UnionType):
        return [a for arg in get_args(ann) if arg is not NoneType for a in _unwrap(arg)]
    return [ann]


def _field(model: type[BaseModel], key: Any) -> FieldInfo | None:
    return next((f for n, f in model.model_fields.items() if key in (f.alias, n)), None)


def field_at(root: type[BaseModel], loc: tuple[Any, ...]) -> tuple[Any, FieldInfo | None]:
    """Walk the model ``root`` along a pydantic error ``loc``: ``(annotation, field)`` of the last step
    (``annotation`` is the model, list, dict or scalar type there), or ``(None, None)`` when lost."""
    current: list[Any] = [root]
    field: FieldInfo | None = None
    backends = {b.name: b.model() for b in all_backends()}
    for part in loc:
        nxt: list[Any] = []
        for ann in current:
            for alt in _unwrap(ann):
                origin = get_origin(alt)
                if isinstance(alt, type) and issubclass(alt, BaseModel):
                    if part in backends and backends[part] is not None:
                        nxt.append(backends[part])  # discriminated-union tag
                    elif (f := _field(alt, part)) is not None:
                        field = f
                        nxt.append(f.annotation)
                elif origin in (list, tuple) and isinstance(part, int):
                    nxt.append(get_args(alt)[0])
                elif origin is dict or (isinstance(origin, type) and issubclass(origin, Mapping)):
                    if part != "[key]":
                        nxt.append(get_args(alt)[1])
                    else:
                        nxt.append(get_args(alt)[0])
                elif isinstance(part, str) and part in backends:
                    nxt.append(backends[part])
        if not nxt:
            if isinstance(part, str) and (part in backends or part.startswith("function-")):
                continue
            return None, None
        current = nxt
    models = [a for ann in current for a in _unwrap(ann) if isinstance(a, type) and issubclass(a, BaseModel)]
    return (models[0] if models else current[0]), field


def model_keys(model: type[BaseModel]) -> list[str]:
    """The config keys (camelCase aliases) of ``model``, required first."""
    fields = list(model.model_fields.items())
    return [f.alias or n for n, f in fields if f.is_required()] + [f.alias or n for n, f in fields if not f.is_required()]


def _models_of(ann: Any) -> list[type[BaseModel]]:
    return [a for a in _unwrap(ann) if isinstance(a, type) and issubclass(a, BaseModel)]


def sections_with_key(model: type[BaseModel], key: str, depth: int = 3) -> list[str]:
    """Where ``key`` (a config key, by its camelCase alias) is a field of a section nested in ``model``: the
    dotted paths from ``model`` (``["scaling.minSize"]`` for a pool's ``minSize``), the shallowest only, sections
    in the model's field order; sections are fields whose value is a model (not lists or maps of them), searched
    ``depth`` levels down. Empty when no section has it.

    A key written one level too high (``minSize`` beside ``scaling:`` instead of under it) is then placed, not
    taken for a misspelling of a key that is there (pydantic's ``extra_forbidden`` names only the key)."""
    level: list[tuple[str, type[BaseModel]]] = [("", model)]
    for _ in range(depth):
        below: list[tuple[str, type[BaseModel]]] = []
        for prefix, current in level:
            for name, field in current.model_fields.items():
                for section in _models_of(field.annotation):
                    below.append((f"{prefix}{field.alias or name}.", section))
        found = [f"{prefix}{key}" for prefix, section in below
                 if any(key == (f.alias or n) for n, f in section.model_fields.items())]
        if found or not below:
            return list(dict.fromkeys(found))
        level = below
    return []


def value_kind(ann: Any) -> str | None:
    """What a scalar of annotation ``ann`` holds, as a fix for a value is worded: ``"text"`` (``str``, literals of
    strings), ``"number"`` (``int``, ``float``), ``"bool"``, or None (a model, a list, a map, ``Any``, a union of
    kinds: no one fix fits)."""
    kinds = set()
    for alt in _unwrap(ann):
        args = get_args(alt) if get_origin(alt) is Literal else (alt,)
        for arg in args:
            kind = arg if isinstance(arg, type) else type(arg)
            kinds.add("bool" if kind is bool else "number" if kind in (int, float) else "text" if kind is str else None)
    return kinds.pop() if len(kinds) == 1 else None


def pattern_rule(pattern: str, field: FieldInfo | None) -> str:
    """The rule of ``pattern`` in words (:data:`PATTERN_RULES`), else the field's description."""
    if pattern in PATTERN_RULES:
        return PATTERN_RULES[pattern]
    about = (field.description or "").rstrip(".") if field is not None else ""
    return f"has the wrong form; expected: {about}" if about else "has the wrong form"


#: A mapping key YAML reads as plain text when written unquoted (a label key, a setting name); any other is quoted.
_PLAIN_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


#: A tag no plain scalar is read with: what :class:`_PulumiDumper` detects for a string Pulumi reads as no string.
_NO_STRING = "!not-a-string-to-pulumi"


class _PulumiDumper(yaml.SafeDumper):
    """PyYAML's safe dumper that writes a string plain only when Pulumi's YAML reader (gopkg.in/yaml.v3) reads that
    plain text back as a string (:func:`.pulumi_scalars.plain_kind`), and quotes it otherwise: ``'1e3'`` (a float to
    Pulumi), ``'0o17'`` (an int), ``'true'``, ``'null'``, ``'12'``, ``'2024-01-02'``; ``yes`` and ``ml-dev`` stay
    plain. PyYAML's emitter still quotes what a plain scalar cannot hold (``': '``, a leading ``[``, ``#``)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """The tag a plain scalar's ``value`` is read with (``implicit[0]``): ``str`` when Pulumi reads it as a string,
        else PyYAML's tag for it, or :data:`_NO_STRING` where PyYAML's YAML 1.1 resolver would call it a string; the
        serializer writes a node plain only when its own tag is the one returned here."""
        tag = super().resolve(kind, value, implicit)
        if kind is not yaml.ScalarNode or not implicit[0]:
            return tag
        if plain_kind(value) == "str":
            return STR_TAG
        return _NO_STRING if tag == STR_TAG else tag


def _yaml_text(value: Any) -> str | None:
    """``value`` as YAML writes it on one line (``[a, b]``, ``{x: 1}``), a string quoted where Pulumi's YAML reader
    would read it unquoted as no string (``'1.33'``, ``'1e3'``, ``'0o17'``, ``'true'``: :class:`_PulumiDumper`), or None
    when it is not plain data or longer than :data:`~gpu_node_pool.text.terminal.MAX_SHOWN`."""
    if shown(value).endswith((" items", " characters)")):  # cut: too long to write back
        return None
    try:
        text = yaml.dump(value, Dumper=_PulumiDumper, default_flow_style=True, width=10**9, allow_unicode=True)
    except yaml.YAMLError:
        return None
    text = text.strip().removesuffix("...").strip()
    return text if "\n" not in text and len(text) <= MAX_SHOWN else None


def _pulumi_read(text: str) -> Any:
    """``text`` as Pulumi's YAML reader reads it (:func:`.pulumi_yaml.load_pulumi_yaml`: ``1e3`` a number, ``yes`` a
    string), or None when it is no YAML."""
    try:
        return load_pulumi_yaml(text)
    except yaml.YAMLError:
        return None


def _example_token(description: str) -> Any:
    """The first example of a field's ``description`` (``e.g. 1g.10gb (...)``, ``e.g. [subnet-0a1b...]``) as Pulumi's
    YAML reader reads it (:func:`_pulumi_read`), or None when it has none."""
    if "e.g. " not in description:
        return None
    after = description[description.index("e.g. ") + 5:]
    found = re.match(r"\[[^\]]*\]|\{[^}]*\}|[^\s,;]+", after)
    token = found.group(0).rstrip(".)") if found else ""
    return _pulumi_read(token) if token else None


def _string_example(root: type[BaseModel], loc: tuple[Any, ...]) -> str | None:
    """A valid string for the setting at the pydantic error ``loc`` of ``root``: its value in the ``yaml_example`` of
    the model holding it, else its field's default, else the first example of its field's description (the item of a
    list's example, the value of a map's), or None. Examples are read as Pulumi reads them (:func:`_pulumi_read`)."""
    last = loc[-1] if loc else None
    parent, field = field_at(root, loc[:-1])
    if isinstance(parent, type) and issubclass(parent, BaseModel) and isinstance(last, str):
        own = _field(parent, last)
        doc = _pulumi_read(getattr(parent, "yaml_example", "") or "null")
        if isinstance(doc, Mapping) and isinstance(doc.get(last), str):
            return doc[last]
        if own is not None and isinstance(own.default, str) and own.default:
            return own.default
        example = _example_token((own.description or "") if own is not None else "")
    else:  # an item of a list or a value of a map: the field holding them is the one field_at last passed
        example = _example_token((field.description or "") if field is not None else "")
        if isinstance(example, list):
            example = example[0] if example else None
        elif isinstance(example, Mapping):
            example = example.get(last, next(iter(example.values()), None))
    return example if isinstance(example, str) else None


def not_a_string(value: Any, root: type[BaseModel], loc: tuple[Any, ...]) -> str | None:
    """The message for ``value``, a list or a mapping, given at the pydantic error ``loc`` of ``root`` where a string
    belongs: the value as YAML writes it, what it is, and the fix, one string (the list's one item, else an example of
    the setting: :func:`_string_example`) or the text quoted when YAML read a flow sequence or mapping out of it
    (``[a]: must be a valid string; it is a list: write one string, e.g. team: a, or quote it (team: "[a]") if the
    brackets are part of the text``). None for any other value: a number or a boolean is worded by the loader
    (:data:`.pulumi_scalars.QUOTE_A_NUMBER`, then :func:`.pulumi_scalars.number_as_written`), null too.

    YAML reads ``[...]`` and ``{...}`` as a flow sequence and mapping (YAML 1.2.2, section 7.4, which gopkg.in/yaml.v3,
    Pulumi's reader, follows) and a plain scalar ends at ``': '`` (section 7.3.3), so a text holding them is quoted."""
    if not isinstance(value, list | dict):
        return None
    if len(loc) > 1 and loc[-1] == "str" and field_at(root, loc) == (None, None):
        loc = loc[:-1]  # pydantic's tag of the str member of a union (int | str), not a key of the config
    written = _yaml_text(value)
    kind, marks = ("a list", "brackets") if isinstance(value, list) else ("a mapping", "braces or ': '")
    last = loc[-1] if loc else None
    key = (last if _PLAIN_KEY.fullmatch(last) else json.dumps(last)) + ": " if isinstance(last, str) else ""
    one = value[0] if isinstance(value, list) and len(value) == 1 else None
    example = str(one).lower() if isinstance(one, bool) else str(one) if isinstance(one, str | int | float) else None
    example = example if example is not None else _string_example(root, loc)
    fixes = [f"write one string, e.g. {key}{_yaml_text(example) or example}" if example is not None else "write one string"]
    if written is not None and value:  # an empty [] or {} is no text anyone meant
        fixes.append(f"quote it ({key}{json.dumps(written, ensure_ascii=False)}) if the {marks} are part of the text")
    if isinstance(value, dict):
        fixes.reverse()  # a mapping where text belongs is most often text with ': ' or braces in it
    return f"{written or shown(value)}: must be a valid string; it is {kind}: {', or '.join(fixes)}"
