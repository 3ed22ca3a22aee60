"""``--format sarif``: config errors and policy findings as a SARIF 2.1.0 log, plain JSON from the stdlib.

SARIF is OASIS's Static Analysis Results Interchange Format, version 2.1.0
(https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html; JSON schema
``sarif-2.1/schema/sarif-schema-2.1.0.json`` in github.com/oasis-tcs/sarif-spec). One log, one
run, tool ``gpupool``:

- ``tool.driver.rules``: one rule per policy of the pack (``id`` the policy name, ``shortDescription``
  its first sentence, ``defaultConfiguration.level`` from its default enforcement level) and
  ``config-error`` (the stack config is invalid). ``helpUri`` is the rule's place in the README
  (``#policy-<name>``, its row of the policy table; ``#stack-config``) on the project's public page,
  ``<url>#<anchor>``, where ``<url>`` is the installed distribution's Homepage or Repository URL
  (:func:`docs_url`). SARIF 2.1.0 (section 3.49.12, reportingDescriptor.helpUri) allows only an absolute
  URI [RFC3986] there, so without such a URL (no ``[project.urls]`` in ``pyproject.toml``, or a
  source tree that is not installed) ``helpUri`` is left out, never written relative.
- ``results``: one per config error (level ``error``) and one per finding; the level is the
  finding's enforcement level: ``mandatory`` (and ``remediate``) -> ``error``, ``advisory`` ->
  ``warning``.
- locations: the stack file place of a config error or of a finding about a pool, as
  ``artifactLocation.uri`` relative to the project directory with ``uriBaseId: PROJECTROOT``
  (``run.originalUriBaseIds`` gives that directory's ``file://`` URI) and ``region.startLine``/
  ``startColumn`` from 1; a finding's resource URN as a ``logicalLocations`` entry (kind ``resource``).
- ``invocations[0]``: ``exitCode`` the process's exit code, ``executionSuccessful`` true when the
  command judged the stack (exit 0 or 1).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._version import __version__

if TYPE_CHECKING:
    from importlib.metadata import PackageMetadata

__all__ = ["SARIF_SCHEMA", "CONFIG_RULE", "DOCS_LABELS", "LEVELS", "docs_url", "sarif_log", "rules"]

#: The ``$schema`` a SARIF 2.1.0 log names (the OASIS errata 01 schema).
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: The rule of every config error.
CONFIG_RULE = "config-error"
#: Enforcement level -> SARIF ``level``.
LEVELS = {"mandatory": "error", "remediate": "error", "advisory": "warning", "disabled": "none"}
_BASE = "PROJECTROOT"
#: ``Project-URL`` labels whose page shows the README, in the order tried, as PEP 753 normalises
#: them (https://peps.python.org/pep-0753/: lower case, no punctuation or whitespace; ``repository``
#: and ``sourcecode`` are its aliases of ``source``); pyproject's ``[project.urls]`` writes them.
DOCS_LABELS = ("homepage", "repository", "source", "sourcecode")


def _label(label: str) -> str:
    """A ``Project-URL`` label normalised as PEP 753 says (``Source Code`` -> ``sourcecode``)."""
    return "".join(c for c in label if c not in string.punctuation and not c.isspace()).lower()


@functools.cache
def _installed_metadata() -> PackageMetadata | None:
    """The core metadata of the installed ``gpu-node-pool`` distribution, None when it is not installed."""
    from importlib import metadata

    from ..policies.policy_pack import DISTRIBUTION

    try:
        return metadata.metadata(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def docs_url(meta: PackageMetadata | None = None) -> str | None:
    """The absolute ``http(s)`` URL whose page shows the README, for ``helpUri``; None when there is none.

    ``meta``: core metadata (default: the installed distribution's, read with ``importlib.metadata``).
    Tried in order: the ``Project-URL`` entries labelled as in :data:`DOCS_LABELS` (``Homepage``
    first), then the legacy ``Home-page`` field; an entry that is not an absolute ``http``/``https``
    URL with a host is skipped, and a fragment is dropped (the anchor is added per rule).
    """
    meta = _installed_metadata() if meta is None else meta
    if meta is None:
        return None
    urls: dict[str, str] = {}
    for entry in meta.get_all("Project-URL") or ():
        label, _, url = str(entry).partition(",")
        urls.setdefault(_label(label), url.strip())
    candidates = [urls.get(label) for label in DOCS_LABELS]
    candidates.insert(1, meta.get("Home-page"))
    for url in candidates:
        parts = urlsplit(str(url or "").strip())
        if parts.scheme in ("http", "https") and parts.netloc:
            return parts._replace(fragment="").geturl()
    return None


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def rules() -> list[dict[str, Any]]:
    """The ``reportingDescriptor`` of ``config-error`` and of every policy of the pack, in pack order;
    each with ``helpUri`` ``<docs_url()>#<README anchor>``, or none when :func:`docs_url` is None."""
    from ..policies import POLICIES

    docs = docs_url()

    def help_uri(anchor: str) -> dict[str, str]:
        return {"helpUri": f"{docs}#{anchor}"} if docs else {}

    out = [{
        "id": CONFIG_RULE,
        "name": "StackConfigError",
        "shortDescription": {"text": "The stack config is invalid: nothing would be deployed."},
        **help_uri("stack-config"),
        "defaultConfiguration": {"level": "error"},
    }]
    for policy in POLICIES:
        level = getattr(policy.enforcement_level, "value", str(policy.enforcement_level))
        out.append({
            "id": policy.name,
            "shortDescription": {"text": _first_sentence(policy.description)},
            "fullDescription": {"text": " ".join(policy.description.split())},
            **help_uri(f"policy-{policy.name}"),
            "defaultConfiguration": {"level": LEVELS.get(level, "warning")},
        })
    return out


def _location(where: Mapping[str, Any] | None, urn: str = "") -> list[dict[str, Any]]:
    location: dict[str, Any] = {}
    if where:
        location["physicalLocation"] = {
            "artifactLocation": {"uri": where["file"], "uriBaseId": _BASE},
            "region": {"startLine": where["line"], "startColumn": where["column"]},
        }
    if urn:
        location["logicalLocations"] = [{"fullyQualifiedName": urn, "kind": "resource"}]
    return [location] if location else []


def sarif_log(exit_code: int, config_errors: Iterable[Mapping[str, Any]] = (),
              violations: Iterable[Mapping[str, Any]] = (), project_dir: str | Path | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of one run.

    Args:
        exit_code: the command's exit code (``invocations[0].exitCode``).
        config_errors: ``configErrors`` entries of the JSON report (``{"path", "message", "location"?}``).
        violations: ``violations`` entries (``{"policy", "enforcement", "resource", "message", "urn"?, "location"?}``).
        project_dir: the project directory the artifact URIs are relative to (``originalUriBaseIds``).
    """
    table = rules()
    index = {rule["id"]: i for i, rule in enumerate(table)}
    results: list[dict[str, Any]] = []
    for issue in config_errors:
        text = f"{issue['path']}: {issue['message']}" if issue.get("path") else issue["message"]
        results.append({"ruleId": CONFIG_RULE, "ruleIndex": 0, "level": "error", "message": {"text": text},
                        "locations": _location(issue.get("location"))})
    for v in violations:
        result: dict[str, Any] = {"ruleId": v["policy"], "level": LEVELS.get(str(v["enforcement"]), "warning"),
                                  "message": {"text": f"{v.get('resource') or 'stack'}: {v['message']}"},
                                  "locations": _location(v.get("location"), str(v.get("urn") or ""))}
        if v["policy"] in index:
            result["ruleIndex"] = index[v["policy"]]
        results.append(result)
    for result in results:
        if not result["locations"]:
            del result["locations"]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "gpupool", "version": __version__, "rules": table}},
        "invocations": [{"executionSuccessful": exit_code in (0, 1), "exitCode": exit_code}],
        "results": results,
    }
    if project_dir is not None:
        run["originalUriBaseIds"] = {_BASE: {"uri": Path(project_dir).resolve().as_uri() + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
