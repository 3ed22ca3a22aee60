"""Loading a stack: the strict YAML reader, Pulumi's runtime config form and pydantic errors as :class:`ConfigIssue`."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any, get_args

import yaml
from pydantic import (
    BaseModel,
    ValidationError,
)

from .. import registry
from ..registry import all_backends
from ..registry import names as backend_names
from .common import PROJECT
from .errors import ConfigError, ConfigIssue
from .stack import StackConfig, partial_stack_issues, stack_issues, stack_model
from .yaml_errors import yaml_syntax_problem


def _models_below(model: Any, seen: set[Any]) -> None:
    """Every pydantic model reachable from ``model``'s field annotations (nested configs)."""
    if model in seen:
        return
    seen.add(model)
    for field in model.model_fields.values():
        stack = [field.annotation]
        while stack:
            ann = stack.pop()
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                _models_below(ann, seen)
            stack.extend(get_args(ann))


_KNOWN: tuple[int, set[str]] | None = None


def _known_keys() -> set[str]:
    """Every config key of every registered backend (for "did you mean" hints)."""
    global _KNOWN
    if _KNOWN is None or _KNOWN[0] != registry.version():
        models: set[Any] = set()
        _models_below(stack_model(), models)
        for backend in all_backends():
            _models_below(backend.config_model, models)
        _KNOWN = (registry.version(), {f.alias or n for m in models for n, f in m.model_fields.items()})
    return _KNOWN[1]


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in backend_names() or part.startswith("function-"):
            continue  # discriminated-union tag, not part of the user's path
        elif part == "[key]":
            continue
        elif out and any(c in str(part) for c in "./"):
            out += f"[{str(part)!r}]"  # a map key such as a label: labels['example.com/gpu']
        else:
            out += ("." if out else "") + str(part)
    return out


def _issue_from_pydantic(err: dict[str, Any]) -> list[ConfigIssue]:
    loc = tuple(err["loc"])
    path = _path(loc)
    kind = err["type"]
    value = err.get("input")
    if kind == "gpu_node_pools":
        return [ConfigIssue(path, err["msg"])]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        backend = next((part for part in loc if part in backend_names()), None)
        if backend is not None and len(loc) == 4:  # a top-level key of a pool
            owners = [b.name for b in all_backends() if key in {f.alias for f in b.config_model.model_fields.values()}]
            if owners:
                return [ConfigIssue(path, f"{key!r} is not a key of {backend} pools (it belongs to {', '.join(owners)} pools); "
                                          f"remove it or change the backend")]
        close = difflib.get_close_matches(key, sorted(_known_keys() - {key}), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else "; remove it"
        return [ConfigIssue(path, f"unknown key {key!r}{hint}")]
    if type(value).__name__ == "Output" and type(value).__module__.startswith("pulumi"):
        return [ConfigIssue(path, "is a Pulumi Output; pool and cluster settings must be plain values known at "
                                  "preview (policies judge taints and labels then), e.g. a name from config, not "
                                  "another resource's output")]
    if kind == "missing":
        if len(loc) == 1:
            return [ConfigIssue(f"{PROJECT}:{loc[0]}", "required key is missing from the stack config")]
        return [ConfigIssue(path, "required key is missing")]
    if kind == "union_tag_invalid" or kind == "union_tag_not_found":
        if not isinstance(value, Mapping):
            return [ConfigIssue(path, f"{value!r} must be a mapping with name, backend and the backend's keys")]
        got = value.get("backend")
        return [ConfigIssue(_path(loc) + ".backend", f"{got!r} is not a backend; use one of {', '.join(backend_names())}")]
    msg = err["msg"]
    if kind in ("string_type", "int_type", "bool_type") and isinstance(value, bool | int | float):
        msg += " (quote it in YAML: yes/no/on/off and numbers are not strings)" if kind == "string_type" else ""
    if kind == "literal_error":
        msg = msg.replace("Input should be", "must be")
    return [ConfigIssue(path, f"{value!r}: {msg}" if not isinstance(value, dict | list) else msg)]


def validate_stack_config(raw: Mapping[str, Any], source: str = "stack config") -> StackConfig:
    """Validate a stack config given as a plain mapping with keys ``cluster``, ``pools``, ``devicePlugin``.

    Raises:
        ConfigError: every mistake found, each with its config path.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError([ConfigIssue("", f"the config must be a mapping, got {type(raw).__name__}")], source)
    try:
        stack = stack_model().model_validate(raw)
    except ValidationError as exc:
        issues: list[ConfigIssue] = []
        for err in exc.errors(include_url=False):
            for issue in _issue_from_pydantic(err):
                if issue not in issues:
                    issues.append(issue)
        # every mistake in one run: the stack rules that can still run (cluster keys the pools need...)
        issues += [i for i in partial_stack_issues(raw) if i not in issues]
        raise ConfigError(issues, source) from None
    issues = stack_issues(stack)
    if issues:
        raise ConfigError(issues, source)
    return stack


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when built with it
    """PyYAML's safe loader (libyaml's C parser when available), recording duplicate mapping keys instead of
    keeping the last silently. YAML 1.1 surprises (yes/no/on/off keys, dates) are refused after loading."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            try:
                key = self.construct_object(key_node, deep=True)
                hash(key)
            except Exception:  # noqa: BLE001 - unhashable keys are PyYAML's own error below
                continue
            line = key_node.start_mark.line + 1
            if key in seen:
                self.duplicates.append(
                    f"line {line}: key {key!r} appears again (first on line {seen[key]}); "
                    "YAML keeps only the last one, so remove one of them"
                )
            else:
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _python_parser_error(text: str) -> yaml.YAMLError | None:
    """The pure-Python parser's error for ``text`` (its wording is clearer than libyaml's "did not find
    expected ..."); only called once a file has already failed to parse, so the fast path keeps libyaml."""
    try:
        yaml.load(text, Loader=yaml.SafeLoader)  # noqa: S506 - the safe loader
    except yaml.YAMLError as err:
        return err
    return None


def _config_path(top: str, rest: tuple[Any, ...]) -> str:
    ns, _, key = top.rpartition(":")
    out = key if ns in ("", PROJECT) else top
    for part in rest:
        out += f"[{part}]" if isinstance(part, int) else (f"[{part!r}]" if any(c in str(part) for c in "./:") else f".{part}")
    return out


def _yaml_type_problems(value: Any, top: str, rest: tuple[Any, ...] = ()) -> list[ConfigIssue]:
    """Keys and values that YAML 1.1 reads as something other than JSON (dates, booleans as keys...)."""
    problems = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                problems.append(
                    ConfigIssue(
                        _config_path(top, rest),
                        f"key {k!r} is read by YAML as a {type(k).__name__}, not a string "
                        f"(yes/no/on/off, numbers and dates are not strings); quote it",
                    )
                )
                continue
            problems += _yaml_type_problems(v, top, (*rest, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            problems += _yaml_type_problems(v, top, (*rest, i))
    elif not isinstance(value, str | int | float | bool | type(None)):
        problems.append(
            ConfigIssue(
                _config_path(top, rest),
                f"{value!s} is read by YAML as a {type(value).__name__}, not a string; quote it (\"{value!s}\")",
            )
        )
    return problems


def read_stack_file(data: bytes, name: str, project: str = PROJECT) -> tuple[dict[str, Any], list[str]]:
    """Parse a ``Pulumi.<stack>.yaml`` into Pulumi's runtime config form (see :func:`stack_file_config`).

    ``project`` is the namespace of keys written without one (the ``name:`` of ``Pulumi.yaml``).

    Refuses, with one :class:`ConfigIssue` each: bytes that are not UTF-8, invalid YAML, a
    document or ``config:`` that is not a mapping, duplicate keys, keys YAML reads as
    booleans/numbers/dates (``on:``), and values it reads as dates or other non-JSON types.

    Raises:
        ConfigError: every problem found, with the config path where there is one.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ConfigError([ConfigIssue(name, f"line {line} is not UTF-8; save the file as UTF-8")], name) from None
    loader = _StrictLoader(text)
    loader.duplicates = []
    try:
        doc = loader.get_single_data()
    except yaml.YAMLError as err:
        raise ConfigError([ConfigIssue(*yaml_syntax_problem(_python_parser_error(text) or err, name))], name) from None
    finally:
        loader.dispose()
    issues = [ConfigIssue(name, d) for d in loader.duplicates]
    if doc is None:
        doc = {}
    if not isinstance(doc, Mapping):
        raise ConfigError(issues + [ConfigIssue(name, "must be a YAML mapping with a 'config:' key")], name)
    config_map = doc.get("config") or {}
    if not isinstance(config_map, Mapping):
        raise ConfigError(
            issues + [ConfigIssue(f"{name}: config", f"must be a mapping of config keys, got {type(config_map).__name__}")],
            name,
        )
    for key, value in config_map.items():
        if not isinstance(key, str):
            issues.append(ConfigIssue(f"{name}: config", f"key {key!r} is not a string; config keys look like {PROJECT}:pools"))
            continue
        issues += _yaml_type_problems(value, key)
    if issues:
        raise ConfigError(issues, name)
    return stack_file_config(doc, project)


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
            config[full] = "[secret]"
            secrets.append(full)
        elif isinstance(value, str):
            config[full] = value
        else:
            config[full] = json.dumps(value)
    return config, secrets


# Keys under the project namespace that are not part of the validated model.
_SIDE_KEYS = {"kubeconfig"}


def load_stack_config(
    config: Mapping[str, str],
    source: str = "stack config",
    is_secret: Any = None,
) -> StackConfig:
    """Validate the project's keys of a Pulumi runtime config map (``{"gpu-node-pools:pools": "<json>"}``).

    Unknown keys under ``gpu-node-pools:`` are errors too. ``is_secret(full_key)``, when
    given, tells whether a key is a Pulumi secret: credentials (``kubeconfig``) must be.

    Raises:
        ConfigError: every mistake found.
    """
    raw: dict[str, Any] = {}
    issues: list[ConfigIssue] = []
    allowed = {f.alias for f in StackConfig.model_fields.values()} | _SIDE_KEYS
    for full, text in config.items():
        ns, _, key = full.partition(":")
        if ns != PROJECT:
            continue
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f"; did you mean {PROJECT}:{close[0]}?" if close else f"; allowed: {', '.join(sorted(allowed))}"
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
        try:
            raw[key] = json.loads(text) if isinstance(text, str) else text
        except json.JSONDecodeError:
            issues.append(ConfigIssue(key, f"{text!r} must be a structured value (a YAML mapping or list)"))
    try:
        stack = validate_stack_config(raw, source)
    except ConfigError as exc:
        raise ConfigError(issues + exc.issues, source) from None
    if issues:
        raise ConfigError(issues, source)
    return stack
