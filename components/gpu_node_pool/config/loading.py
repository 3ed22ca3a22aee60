"""Loading a stack: a stack file into Pulumi's runtime config form (its YAML read by :mod:`.stack_yaml`), and
validation with pydantic's errors as :class:`ConfigIssue`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Literal, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    ValidationError,
)

from ..k8s.patterns import full_match
from ..registry import all_backends
from ..registry import names as backend_names
from ..sdk.yaml_bounded import TAG_ERRORS, with_tab_cause
from ..text.listing import listed
from ..text.suggest import closest
from ..text.terminal import MAX_SHOWN
from .beside_scalars import model_issues_beside
from .bounds import API_WIDTHS, BOUND_WORDS, api_of, beyond_bound, beyond_width, bound_of, past_range
from .common import PoolBase, TaintConfig
from .defaults import PROJECT
from .errors import ConfigError, ConfigIssue, Location
from .locations import FileMarks
from .messages import field_at, model_keys, not_a_string, pattern_rule, sections_with_key, show, value_kind
from .pulumi_scalars import QUOTE_A_NUMBER
from .stack import (
    AGENTS_APART,
    AWS_REGION,
    IDENTITY_INPUTS,
    StackConfig,
    partial_stack_issues,
    stack_issues,
    stack_model,
    used_backends,
)
from .stack_yaml import (
    MAX_NESTING,
    AliasExpansionError,
    _nesting_depth,
    _python_parser_error,
    _StrictLoader,
    _yaml_type_problems,
)
from .yaml_errors import yaml_syntax_problem

#: A document marker at the end of a file with only blank or comment lines after it: an empty last document.
_EMPTY_LAST_DOCUMENT = re.compile(r"\n---[ \t]*(?:#[^\n]*)?(?:\n[ \t]*(?:#[^\n]*)?)*\Z")


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, str) and (part in backend_names() or part.startswith("function-") or part == "[key]"):
            continue  # discriminated-union tag, or pydantic's marker of a key: not part of the user's path
        out = _step(out, part)
    return out


def _step(out: str, part: Any) -> str:
    """``out`` followed by one key or list index, as the user's path spells it."""
    if isinstance(part, int):
        return out + f"[{part}]"
    if out and (not str(part) or any(c in str(part) for c in "./")):
        return out + f"[{str(part)!r}]"  # a map key such as a label: labels['example.com/gpu'], or an empty one: ['']
    return out + ("." if out else "") + str(part)


def _key_list(keys: list[str], most: int = 6) -> str:
    return ", ".join(keys[:most]) + (", ..." if len(keys) > most else "")


def _one_of(names: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


#: What a stack file's ``secure:`` value of a top-level key is offline: it cannot be decrypted
#: (:func:`stack_file_config`).
_SECRET_PLACEHOLDER = "[secret]"

#: Why a setting given as a stack-file secret (``secure: ...``) is refused.
_SECRET_VALUE = ("is a Pulumi secret (secure: ...); this setting reaches the nodes and the plan's policies as plain "
                 "text (labels, taints, names are never secret), and the plan cannot decrypt it offline: write the "
                 "plain value (pulumi config set without --secret)")


def _secure_mapping_at(err: dict[str, Any]) -> tuple[Any, ...] | None:
    """Where a ``{secure: ...}`` mapping stands for a model (a taint written as a secret): its required keys are
    missing and ``secure`` is unknown there, one mistake the user made once; None for any other error."""
    loc, value = tuple(err["loc"]), err.get("input")
    if err["type"] == "missing" and isinstance(value, Mapping) and set(value) == {"secure"}:
        return loc[:-1]
    if err["type"] == "extra_forbidden" and loc and loc[-1] == "secure":
        return loc[:-1]
    return None


def _issue_from_pydantic(err: dict[str, Any]) -> list[ConfigIssue]:
    loc = tuple(err["loc"])
    path = _path(loc)
    kind = err["type"]
    value = err.get("input")
    shown = show(value)
    if kind == "gpu_node_pools":
        for part in (err.get("ctx") or {}).get("at") or ():  # inside the field's value (errors.fail)
            path = _step(path, part)
        msg = err["msg"]
        if isinstance(value, str) and len(value) > MAX_SHOWN:  # a rule's message quoting a huge value
            msg = msg.replace(repr(value), shown).replace(value, shown)
        return [ConfigIssue(path, msg)]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        model, _ = field_at(stack_model(), loc[:-1])  # only the keys of the model at this path
        is_model = isinstance(model, type) and issubclass(model, BaseModel)
        refused = getattr(model, "refused_keys", {}) if is_model else {}
        if key in refused:  # a key the model has no place for, with its own sentence (Model.refused_keys)
            return [ConfigIssue(path, refused[key])]
        sections = sections_with_key(model, key) if is_model else []
        if sections:  # written one level too high (minSize beside scaling:), not misspelt
            owners = [section.rsplit(".", 1)[0] for section in sections]
            return [ConfigIssue(path, f"unknown key {show(key)}: it belongs under {_one_of(owners)} ({', '.join(sections)})")]
        backend = next((part for part in loc if part in backend_names()), None)
        if backend is not None and len(loc) == 4:  # a top-level key of a pool
            owners = [b.name for b in all_backends() if key in {f.alias for f in b.model().model_fields.values()}]
            if owners:
                return [ConfigIssue(path, f"{key!r} is not a key of {backend} pools (it belongs to {', '.join(owners)} pools); "
                                          f"remove it or change the backend")]
        keys = model_keys(model) if is_model else []
        close = closest(key, [k for k in keys if k != key])
        if close:
            hint = f"; did you mean {close!r}?"
        elif keys:
            hint = f"; remove it (keys here: {_key_list(keys)})"
        else:
            hint = "; remove it"
        return [ConfigIssue(path, f"unknown key {show(key)}{hint}")]
    if isinstance(value, Mapping) and set(value) == {"secure"} and kind != "missing":
        return [ConfigIssue(path, _SECRET_VALUE)]
    if type(value).__name__ == "Output" and type(value).__module__.startswith("pulumi"):
        return [ConfigIssue(path, "is a Pulumi Output (another resource's output, or a secret from "
                                  "Config.get_secret/require_secret); pool and cluster settings must be plain values "
                                  "known at preview (policies judge taints and labels then, and they reach the nodes "
                                  "as plain text): read it with Config.get/require, or write the value")]
    if kind == "missing":
        if len(loc) == 1:
            return [ConfigIssue(f"{PROJECT}:{loc[0]}", "required key is missing from the stack config")]
        _, missing = field_at(stack_model(), loc)
        about = (missing.description or "") if missing is not None else ""
        example = f"; add it, e.g. {loc[-1]}: {about[about.index('e.g.') + 5:].rstrip('.')}" if "e.g." in about else ""
        return [ConfigIssue(path, "required key is missing" + example)]
    if kind == "union_tag_invalid" or kind == "union_tag_not_found":
        if not isinstance(value, Mapping):
            return [ConfigIssue(path, f"{shown} must be a mapping with name, backend and the backend's keys")]
        got = value.get("backend")
        if got is None:
            return [ConfigIssue(path + ".backend", f"required key is missing; use one of {', '.join(backend_names())}")]
        what = show(got) if isinstance(got, str) else f"{show(got)} (a {type(got).__name__}, not a name)"
        close = closest(got, backend_names()) if isinstance(got, str) else None
        hint = f"did you mean {close!r}? (backends: {', '.join(backend_names())})" if close else \
            f"use one of {', '.join(backend_names())}"
        others = sorted(k for k in value if k not in ("name", "backend"))
        note = ([ConfigIssue(path, f"its other keys ({listed(others, 6)}): the keys a pool takes and "
                                   "their rules are its backend's; run again after fixing backend", not_judged=True)]
                if others else [])
        return [ConfigIssue(path + ".backend", f"{what} is not a backend; {hint}"), *note]
    model, field = field_at(stack_model(), loc)
    ctx = err.get("ctx") or {}
    if kind == "model_type" or kind == "model_attributes_type" or kind == "dict_type":
        if isinstance(model, type) and issubclass(model, BaseModel):
            msg = f"must be a mapping with keys {_key_list(model_keys(model))}"
            if issubclass(model, TaintConfig):
                msg = "must be a taint string key=value:Effect or a " + msg.removeprefix("must be a ")
            example = getattr(model, "yaml_example", "")
            msg += f", e.g. {example}" if example else ""
        else:
            msg = "must be a mapping of key: value"
    elif kind == "string_pattern_mismatch":
        msg = pattern_rule(str(ctx.get("pattern", "")), field)
    elif kind in ("too_short", "too_long"):
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        count = ctx.get("actual_length")
        about = (field.description or "") if field is not None else ""
        example = about[about.index("e.g."):].rstrip(".") if "e.g." in about else ""
        item, _ = field_at(stack_model(), (*loc, 0))
        if not example and getattr(item, "yaml_example", ""):
            example = f"e.g. [{item.yaml_example}]"
        if kind == "too_short":
            msg = f"{'is empty' if not count else f'has {count} item(s)'}; list at least {bound} item(s)"
        else:
            msg = f"has {count} items; at most {bound} are allowed"
        msg += f" ({example})" if example else ""
        return [ConfigIssue(path, msg)]
    elif kind in ("less_than_equal", "greater_than_equal") and API_WIDTHS.get(abs(bound_of(ctx))) and isinstance(value, int):
        msg = beyond_width(bound_of(ctx), field)
    elif kind in BOUND_WORDS and isinstance(ctx.get(BOUND_WORDS[kind][1]), int | float):
        msg = beyond_bound(kind, ctx[BOUND_WORDS[kind][1]], field)
    elif kind == "list_type":
        about = (field.description or "") if field is not None else ""
        msg = "must be a list, " + (about[about.index("e.g."):].rstrip(".") if "e.g. [" in about else "e.g. [a, b]")
    elif kind in ("int_type", "int_from_float") and (beyond := past_range(value, field)):
        msg = beyond  # a whole number as a float (yaml.v3 reads one past 2^64 - 1 as a float64)
    elif kind in ("int_type", "int_from_float") and value is not None and not isinstance(value, dict | list):
        # strict: "4" and 4.0 are no integers here (common.py), so the fix says how to write one
        digits = isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value) is not None
        if digits and len(value.strip().lstrip("0")) > 20:  # text past 2^64 - 1: quoted, or past the float range
            # gopkg.in/yaml.v3 resolve.go reads a plain number as int64, else uint64, else float64, else as text
            return [ConfigIssue(path, f"text of {len(value.strip())} digits, not a number: Pulumi's YAML reader "
                                      "(gopkg.in/yaml.v3) keeps a quoted number as text, reads a plain one up to "
                                      "2^64 - 1 as a whole number, a longer one as a float and one past the float "
                                      "range as text; write the whole number the setting needs, unquoted")]
        quoted = digits and (len(value.strip().lstrip("0")) < 20 or int(value) < 2**64)
        written = f"write {value.strip()}" if quoted else "e.g. 4"
        where = (field.description or "") if field is not None else ""
        if "e.g." in where:
            written = where[where.index("e.g."):].rstrip(".")
        api = api_of(field)
        msg = f"must be a whole number{', unquoted' if quoted else ''} ({written})" + (f"; it is {api}" if api else "")
    else:
        told = not_a_string(value, stack_model(), loc) if kind == "string_type" else None
        if told is not None:  # a list or a mapping where a string belongs
            return [ConfigIssue(path, told)]
        msg = err["msg"].replace("Input should be", "must be")
        if kind == "literal_error" and isinstance(value, str):  # case alone counts too: on_demand -> ON_DEMAND
            literals = [model, *get_args(model)]  # the field's Literal, or the Literal inside its Optional
            choices = [str(c) for t in literals if get_origin(t) is Literal for c in get_args(t)]
            close = closest(value, choices)
            msg += f"; did you mean {close}?" if close else ""
        if kind in ("string_type", "int_type", "bool_type") and isinstance(value, bool | int | float):
            msg += QUOTE_A_NUMBER if kind == "string_type" else ""  # with the text as written: number_as_written
        if kind == "bool_type" and isinstance(value, str) and value.lower() in ("yes", "no", "on", "off", "y", "n"):
            msg += (f"; write {'true' if value.lower() in ('yes', 'on', 'y') else 'false'}: Pulumi reads {value} as a "
                    "string (its YAML reader, gopkg.in/yaml.v3, takes only true and false as booleans)")
        if value is None and kind.endswith("_type"):
            msg += "; set a value or remove the key" if field is not None and not field.is_required() else "; set a value"
    return [ConfigIssue(path, f"{shown}: {msg}" if not isinstance(value, dict | list) else msg)]


#: The did-you-mean of an unknown key (:func:`_issue_from_pydantic`), giving the key meant.
_MEANT = re.compile(r"^unknown key .*; did you mean '([^']+)'\?$")


def _one_per_misspelt_key(issues: list[ConfigIssue]) -> list[ConfigIssue]:
    """``issues`` with a misspelt required key told once: pydantic refuses ``maxsize`` as unknown and reports
    ``maxSize`` as missing, one mistake; the missing key is dropped where the unknown one beside it names it as the
    key meant, which then says it is required."""
    missing = {i.path for i in issues if i.message.startswith("required key is missing")}
    meant_at: dict[str, str] = {}  # path of a misspelling -> the key it meant, which is missing
    for issue in issues:
        meant = _MEANT.match(issue.message)
        parent = issue.path.rpartition(".")[0]
        if meant and ".".join(filter(None, (parent, meant.group(1)))) in missing:
            meant_at[issue.path] = meant.group(1)
    told = {".".join(filter(None, (p.rpartition(".")[0], key))) for p, key in meant_at.items()}
    return [replace(i, message=f"{i.message} ({meant_at[i.path]} is required)") if i.path in meant_at else i
            for i in issues if not (i.path in told and i.message.startswith("required key is missing"))]


def _names_of_untyped_pools(raw: Mapping[str, Any]) -> list[ConfigIssue]:
    """The ``name`` of each pool whose ``backend`` is missing or no registered backend, judged by the rule every
    pool's name follows (:class:`.common.PoolBase`): pydantic judges no other key of a pool it cannot give a model."""
    pools = raw.get("pools")
    issues: list[ConfigIssue] = []
    for i, pool in enumerate(pools if isinstance(pools, list) else ()):
        if not isinstance(pool, Mapping) or pool.get("backend") in backend_names():
            continue
        try:
            PoolBase.model_validate({"name": pool["name"]} if "name" in pool else {})
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                issues += _issue_from_pydantic({**err, "loc": ("pools", i, *err["loc"])})
    return issues


def validate_stack_config(
    raw: Mapping[str, Any], source: str = "stack config", identity_inputs: Iterable[str] = (),
    aws_region: str | None = None, agents_apart: bool = False,
) -> StackConfig:
    """Validate a stack config given as a plain mapping with keys ``cluster``, ``pools``, ``devicePlugin``.

    ``identity_inputs``: cluster identity fields (snake_case, ``gpu_node_pool.sdk.cluster_inputs.IDENTITY_FIELDS``)
    a program gives as Pulumi Inputs: not judged, ``None`` in the result and named in its
    ``cluster.not_judged``; the rules that read them test only that they are given.
    ``aws_region``: the stack's ``aws:region``, which the AWS NodePool backends' zones must be in;
    None (not set, or a secret) leaves zones unplaced.
    ``agents_apart``: the pools' GPU agents are components declared apart (a program's ``GpuNodePool``):
    what needs the device plugin's provider (what partitions a MIG pool) is judged by the agent's component.

    Raises:
        ConfigError: every mistake found, each with its config path.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError([ConfigIssue("", f"the config must be a mapping, got {type(raw).__name__}")], source)
    context: dict[str, Any] = {}
    if identity_inputs:
        context[IDENTITY_INPUTS] = frozenset(identity_inputs)
    if aws_region:
        context[AWS_REGION] = aws_region
    if agents_apart:
        context[AGENTS_APART] = True
    try:
        stack = stack_model(used_backends(raw)).model_validate(raw, context=context or None)
    except ValidationError as exc:
        issues: list[ConfigIssue] = []
        secrets: set[tuple[Any, ...]] = set()  # where a `secure:` mapping stands for a value: said once, there
        for err in exc.errors(include_url=False):
            at = _secure_mapping_at(err)
            if at is not None:
                if at not in secrets:
                    secrets.add(at)
                    issues.append(ConfigIssue(_path(at), _SECRET_VALUE))
                continue
            for issue in _issue_from_pydantic(err):
                if issue not in issues:
                    issues.append(issue)
        issues += [i for i in _names_of_untyped_pools(raw) if i not in issues]
        issues = _one_per_misspelt_key(issues)
        # every mistake in one run: the stack rules that can still run (cluster keys the pools need...), but
        # not a second issue on a field whose value was already refused (a rule sees it as missing)
        refused = {i.path for i in issues if not i.path.endswith("]")}
        # nor a pool told to set what the cluster set wrongly ("missing; set it here or in cluster.nodeRoleArn")
        cluster_refused = tuple(p for p in refused if p.startswith("cluster."))
        issues += [i for i in partial_stack_issues(raw, context or None) if i not in issues and i.path not in refused
                   and not any(p in i.message for p in cluster_refused)]
        raise ConfigError(issues, source) from None
    issues = stack_issues(stack)
    if issues:
        raise ConfigError(issues, source)
    return stack


def component_section(value: Any, key: str, argument: str, source: str, *, example: str,
                      defaults: Mapping[str, Any] | None = None) -> Any:
    """A section of the stack config that a component takes as one argument (``NvidiaDevicePluginArgs.config``
    is the stack's ``devicePlugin``, ``GpuOperatorArgs.agents`` its ``gpuAgents``): the section's model as given,
    or validated from its camelCase mapping as the stack config writes it, as a ``GpuNodePool`` validates its pool.

    Args:
        value: what the program passed.
        key: the section's key in the stack config (``devicePlugin``, ``gpuAgents``).
        argument: the argument's name, which each issue's path starts with (``config``).
        source: the arguments' class (``NvidiaDevicePluginArgs``), named by the error.
        example: a valid mapping in Python, offered when ``value`` is neither a model nor a mapping.
        defaults: keys a mapping leaves out, filled in before it is validated (the GPU Operator's
            ``{"provider": "gpu-operator"}``).

    Raises:
        ConfigError: ``value`` is neither the section's model nor a mapping (one issue at ``argument``), or
            the mapping's mistakes, each at ``<argument>.<key>`` with the stack config's message.
    """
    model = next(f.annotation for f in StackConfig.model_fields.values() if f.alias == key)
    if isinstance(value, model):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError([ConfigIssue(argument, (
            f"got {show(value, python=True)} ({type(value).__name__}); expected a {model.__name__} or its camelCase "
            f"mapping as the stack config's {key} takes it, e.g. {argument}={example}"))], source)
    try:
        return model.model_validate({**(defaults or {}), **value})
    except ValidationError as exc:
        issues: list[ConfigIssue] = []
        for err in exc.errors(include_url=False):
            for issue in _issue_from_pydantic({**err, "loc": (key, *err["loc"])}):
                path = argument + issue.path[len(key):] if issue.path.startswith(key) else issue.path
                if ConfigIssue(path, issue.message) not in issues:
                    issues.append(ConfigIssue(path, issue.message))
        raise ConfigError(issues, source) from None


def read_stack_file(data: bytes, name: str, project: str = PROJECT, file: str | None = None,
                    marks: FileMarks | None = None) -> tuple[dict[str, Any], list[str]]:
    """Parse a ``Pulumi.<stack>.yaml`` into Pulumi's runtime config form (see :func:`stack_file_config`).

    ``project`` is the namespace of keys written without one (the ``name:`` of ``Pulumi.yaml``);
    ``file`` (default ``name``) is the file as a :class:`~gpu_node_pool.config.errors.Location`
    names it (relative to the project directory). ``marks``, when given, keeps the document as
    composed (the same node tree the data is built from), so that a config path can be given its
    ``line:column`` in the file later (:class:`gpu_node_pool.config.locations.FileMarks`); it stays
    empty when the file does not parse.

    Plain scalars are read as Pulumi's YAML reader reads them (:mod:`.pulumi_scalars`). Refuses, with one
    :class:`ConfigIssue` each: bytes that are not UTF-8, invalid YAML, a document or ``config:`` that is not a
    mapping, duplicate keys (which Pulumi refuses: :func:`.stack_yaml.duplicate_key_problem`), keys that are no
    strings (``true:``, ``10:``), dates (the program would get Go's text of a time), values JSON has no form for
    (``.inf``, ``!!set``), explicit tags on values of another type, and numbers written in other forms than plain
    decimals (``010`` octal, ``0x10``, ``1_0``), each with the fix its setting takes (:func:`_setting_kind`).

    Raises:
        ConfigError: every problem found, with the config path where there is one.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        column = err.start - data.rfind(b"\n", 0, err.start)
        raise ConfigError([ConfigIssue(name, f"line {line} is not UTF-8; save the file as UTF-8",
                                       Location(file or name, line, column))], name) from None
    trailing = _EMPTY_LAST_DOCUMENT.search(text)
    if trailing is not None:  # a '---' with nothing after it: Pulumi (yaml.v3 Unmarshal) reads the first document
        text = text[: trailing.start() + 1]
    loader = _StrictLoader(text)
    loader.duplicates = []
    loader.marks = marks
    loader.anchorless = "&" not in text
    try:
        doc = loader.get_single_data()
    except AliasExpansionError as err:
        raise ConfigError([ConfigIssue(name, f"line {err.line}: {err.message}", Location(file or name, err.line, 1))],
                          name) from None
    except yaml.YAMLError as err:
        syntax = _python_parser_error(text) or err
        mark = getattr(syntax, "problem_mark", None)
        where = Location(file or name, mark.line + 1, mark.column + 1) if mark is not None else None
        if isinstance(syntax, yaml.reader.ReaderError) and isinstance(syntax.position, int):  # a character, no mark
            before = text[: syntax.position]
            where = Location(file or name, before.count("\n") + 1, syntax.position - before.rfind("\n"))
        at, message = yaml_syntax_problem(syntax, name)
        raise ConfigError([ConfigIssue(at, with_tab_cause(message, syntax, text), where)], name) from None
    except TAG_ERRORS:
        if "!!" not in text:  # no explicit tag: not the file's mistake
            raise
        # PyYAML's constructor of an explicit tag met a text it cannot read (`!!int abc`, `!!map a`): at the value
        # construction stopped on, else (a mapping's contents, read after its node) the first tagged line
        lines = text.splitlines()
        line, column, tag = loader.tag_error or next((i, row.index("!!") + 1, "") for i, row in enumerate(lines, 1)
                                                     if "!!" in row)
        written = lines[line - 1].strip()
        short = " " + tag.replace("tag:yaml.org,2002:", "!!") if tag else ""
        raise ConfigError([ConfigIssue(
            name, f"{show(written)}: the value does not fit its explicit YAML tag{short}; a stack config needs no "
            "tags: remove it and write the plain value (Pulumi's YAML reader, gopkg.in/yaml.v3, refuses a tag of "
            "another type than its value's)",
            Location(file or name, line, column),
        )], name) from None
    finally:
        loader.dispose()
    issues = [ConfigIssue(name, d, Location(file or name, line, column)) for d, line, column in loader.duplicates]
    # the tree's depth is the document's unless a duplicate key dropped a value
    depth = loader.depth if loader.depth is not None and not loader.duplicates else _nesting_depth(doc)
    if depth > MAX_NESTING:  # the checks below and pydantic recurse per level
        raise ConfigError([ConfigIssue(name, f"nests mappings/lists more than {MAX_NESTING} levels deep; "
                                             "a stack config needs a handful: flatten that value")], name)
    if doc is None:
        doc = {}
    if not isinstance(doc, Mapping):
        raise ConfigError(issues + [ConfigIssue(name, "must be a YAML mapping with a 'config:' key")], name)
    config_map = doc.get("config") or {}
    if not isinstance(config_map, Mapping):
        from ..k8s.refusals import json_kind
        from .pulumi_scalars import AsWritten

        got = config_map.problem() if isinstance(config_map, AsWritten) else f"got {json_kind(config_map)}"
        raise ConfigError(issues + [ConfigIssue(f"{name}: config", f"must be a mapping of config keys; {got}")], name)
    for key, value in config_map.items():
        if not isinstance(key, str):
            issues.append(ConfigIssue(f"{name}: config", f"key {key!r} is not a string; config keys look like {PROJECT}:pools"))
            continue
        if loader.odd_numbers is not False:  # False: built by _construct_tree, with no such number to report
            issues += _yaml_type_problems(value, key, takes=_setting_kind(config_map, project))
    if issues and not loader.duplicates:  # the models' mistakes elsewhere too: every mistake in one run
        issues += model_issues_beside(doc, project, issues)
    if issues:
        raise ConfigError(issues, name)
    return stack_file_config(doc, project)


def _setting_kind(config_map: Mapping[Any, Any], project: str) -> Callable[[str, tuple[Any, ...]], str | None]:
    """What the setting at a config path of the stack file ``config_map`` holds, by the stack's models
    (:func:`.messages.value_kind`: ``"text"``, ``"number"``, ``"bool"``), or None when no one kind is known: a
    key not under this project's namespace, not in the models, or a pool whose backends' models differ there
    (a pool is judged by its ``backend``'s model; a missing or unknown backend by every one's)."""

    def kind(top: str, rest: tuple[Any, ...]) -> str | None:
        ns, _, key = (top if ":" in top else f"{project}:{top}").rpartition(":")
        if ns != PROJECT:
            return None
        locs = [(key, *rest)]
        if key == "pools" and rest and isinstance(rest[0], int):
            pools = config_map.get(top)
            pool = pools[rest[0]] if isinstance(pools, list) else None
            named = pool.get("backend") if isinstance(pool, Mapping) else None
            backends = [named] if isinstance(named, str) and named in backend_names() else backend_names()
            locs = [(key, rest[0], backend, *rest[1:]) for backend in backends]
        found = [field_at(stack_model(), loc)[0] for loc in locs]
        kinds = {value_kind(ann) for ann in found if ann is not None}
        return kinds.pop() if len(kinds) == 1 else None

    return kind


def stack_file_config(doc: Mapping[str, Any], project: str = PROJECT) -> tuple[dict[str, Any], list[str]]:
    """Turn the ``config:`` map of a ``Pulumi.<stack>.yaml`` into Pulumi's runtime config form.

    Keys without a namespace get the project's (as the Pulumi CLI does); structured values are
    JSON-encoded strings. Returns ``(config, secret_keys)``; ``secure:`` values cannot be
    decrypted offline and become the placeholder ``"[secret]"`` (listed in ``secret_keys``).
    Use :func:`read_stack_file` for a file: it refuses what this function cannot encode.
    """
    config: dict[str, Any] = {}
    secrets: list[str] = []
    for key, value in (doc.get("config") or {}).items():
        full = key if ":" in key else f"{project}:{key}"
        if isinstance(value, Mapping) and set(value) == {"secure"}:
            config[full] = _SECRET_PLACEHOLDER
            secrets.append(full)
        elif isinstance(value, str):
            config[full] = value
        else:
            config[full] = json.dumps(value)
    return config, secrets


# Keys under the project namespace that are not part of the validated model.
_SIDE_KEYS = {"kubeconfig"}


#: The form of an AWS Region code (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html):
#: ``us-west-2``, ``ap-southeast-1``, ``us-gov-west-1``, ``eusc-de-east-1``. Only the form is judged: whether a
#: Region of that code exists (``us-west-9``) is the provider's to say.
_AWS_REGION_CODE = r"[a-z]{2,4}(?:-[a-z]+)+-[0-9]+"
_AWS_REGIONS = "https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html"


def load_stack_config(
    config: Mapping[str, str],
    source: str = "stack config",
    is_secret: Any = None,
) -> StackConfig:
    """Validate the project's keys of a Pulumi runtime config map (``{"gpu-node-pools:pools": "<json>"}``).

    Unknown keys under ``gpu-node-pools:`` are errors too. ``is_secret(full_key)``, when
    given, tells whether a key is a Pulumi secret: credentials (``kubeconfig``) must be, and a setting of
    the model (``pools``, ``cluster``...) that is one a stack file could not give offline (its value is
    :func:`stack_file_config`'s placeholder) is refused as a secret, as a ``secure:`` value inside one is.

    Raises:
        ConfigError: every mistake found.
    """
    raw: dict[str, Any] = {}
    issues: list[ConfigIssue] = []
    misspelt: set[str] = set()
    secret: set[str] = set()  # a setting given as a secret: refused once, not also as missing
    allowed = {f.alias for f in StackConfig.model_fields.values()} | _SIDE_KEYS
    for full, text in config.items():
        ns, _, key = full.partition(":")
        if ns != PROJECT:
            if key in allowed and closest(ns, [PROJECT], cutoff=0.8):
                issues.append(ConfigIssue(full, f"unknown namespace {ns!r}; did you mean {PROJECT}:{key}?"))
                misspelt.add(key)
            continue
        if key not in allowed:
            close = closest(key, sorted(allowed))
            hint = f"; did you mean {PROJECT}:{close}?" if close else f"; allowed: {', '.join(sorted(allowed))}"
            issues.append(ConfigIssue(full, f"unknown config key{hint}"))
            continue
        if key in _SIDE_KEYS:
            if is_secret is not None and not is_secret(full):
                issues.append(
                    ConfigIssue(
                        full,
                        f"is stored in plain text; a credential must be a Pulumi secret: run "
                        f"`pulumi config set --secret {key} ...` (it stays encrypted in the stack file)",
                    )
                )
            continue
        if text == _SECRET_PLACEHOLDER and is_secret is not None and is_secret(full):
            issues.append(ConfigIssue(key, _SECRET_VALUE))  # not "must be a list" about the placeholder's text
            secret.add(key)
            continue
        try:
            raw[key] = json.loads(text) if isinstance(text, str) else text
        except json.JSONDecodeError:
            raw[key] = text  # a plain string (cluster: ml-dev): the model reports what it must be, once
    region = config.get(AWS_REGION)  # the AWS provider's region; a secret's placeholder is no region
    plain_region = region if isinstance(region, str) and not (is_secret is not None and is_secret(AWS_REGION)) else None
    if plain_region is not None and not full_match(_AWS_REGION_CODE, plain_region):
        issues.append(ConfigIssue(AWS_REGION, f"{plain_region!r} is no AWS Region code: a code is an area, words and a "
                                  f"number joined by '-' (us-west-2, ap-southeast-1, us-gov-west-1; {_AWS_REGIONS}), "
                                  "and a value of another form is no Region's, so nothing of the stack can be created "
                                  "there; write the Region's code (only the form is judged here: whether a Region of "
                                  "that code exists is the provider's to say)"))
        plain_region = None
    try:
        stack = validate_stack_config(raw, source, aws_region=plain_region)
    except ConfigError as exc:
        missing = {f"{PROJECT}:{key}" for key in misspelt | secret}  # already reported: a misspelt namespace, a secret
        raise ConfigError(issues + [i for i in exc.issues if i.path not in missing], source) from None
    if issues:
        raise ConfigError(issues, source)
    return stack
