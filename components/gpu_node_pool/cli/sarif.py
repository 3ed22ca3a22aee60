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
- ``results``: one per config error (level ``error``; ``note`` for rules not run until the errors are fixed,
  ``notJudged``) and one per finding; the level is the
  finding's enforcement level: ``mandatory`` (and ``remediate``) -> ``error``, ``advisory`` ->
  ``warning``.
- locations: every result has one ``physicalLocation``, for GitHub code scanning rejects a whole upload
  when a result has none or only a ``logicalLocations`` entry (``locationFromSarifResult: expected at least
  one location`` / ``expected artifact location``: https://github.com/github/codeql-action/issues/1738,
  https://github.com/github/codeql-action/issues/2456, https://github.com/github/codeql-action/issues/2459; the
  SARIF validator's GitHub ingestion rule GH1001, "each result location must provide the property
  'physicalLocation.artifactLocation.uri'", https://github.com/microsoft/sarif-sdk/issues/2694). It is the place the result
  carries: the stack file place of a config error or of a finding about a declared pool (``gpupool plan``), the
  program line that constructed any other finding's resource (``gpupool plan`` and ``gpupool check``); else, approximately, line 1 of the program file
  ``Pulumi.yaml`` names (``main``, default ``__main__.py``), or of ``Pulumi.yaml`` itself, and the message
  then says the place is approximate. ``artifactLocation.uri`` is relative to the project directory with
  ``uriBaseId: PROJECTROOT`` (``run.originalUriBaseIds`` gives that directory's ``file://`` URI, the current
  directory when no project directory is given; a file outside it is an absolute ``file://`` URI without
  ``uriBaseId``) and ``region.startLine``/``startColumn`` count from 1; a
  finding's resource URN is also a ``logicalLocations`` entry (kind ``resource``).
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

__all__ = ["SARIF_SCHEMA", "CONFIG_RULE", "DOCS_LABELS", "LEVELS", "docs_url", "fallback_file", "sarif_log", "rules"]

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


def fallback_file(project_dir: str | Path) -> str:
    """The file a result without a place of its own is shown at (line 1), relative to ``project_dir``: the program
    file its ``Pulumi.yaml`` names for a Python project (``main``: a file, or a directory holding
    ``__main__.py``; default the project directory's ``__main__.py``) when it exists, else ``Pulumi.yaml``."""
    project = Path(project_dir)
    try:
        from ..plan.stack_file import read_project_file

        main = project / str(read_project_file(project).get("main") or ".")
    except (OSError, ValueError):  # no or a broken Pulumi.yaml: its own error says so
        main = project
    program = main / "__main__.py" if main.is_dir() else main
    try:
        if program.is_file():
            return program.resolve().relative_to(project.resolve()).as_posix()
    except ValueError:  # a main outside the project directory
        pass
    return "Pulumi.yaml"


def _location(where: Mapping[str, Any] | None, urn: str, fallback: str) -> list[dict[str, Any]]:
    """The result's one location: ``where`` (``{"file", "line", "column"}``), else line 1 of ``fallback``; a
    relative file is relative to ``PROJECTROOT``, an absolute one (outside the project directory) is its own
    ``file://`` URI without ``uriBaseId``: with ``uriBaseId`` present the ``uri`` must be relative (the SARIF
    validator's SARIF1004 UriBaseIdRequiresRelativeUri, https://github.com/microsoft/sarif-sdk/pull/1967)."""
    where = where or {"file": fallback, "line": 1, "column": 1}
    file = Path(str(where["file"]))
    artifact = {"uri": file.as_uri()} if file.is_absolute() else {"uri": where["file"], "uriBaseId": _BASE}
    location: dict[str, Any] = {"physicalLocation": {
        "artifactLocation": artifact,
        "region": {"startLine": where["line"], "startColumn": where["column"]},
    }}
    if urn:
        location["logicalLocations"] = [{"fullyQualifiedName": urn, "kind": "resource"}]
    return [location]


def _approximate(text: str, where: Mapping[str, Any] | None, fallback: str) -> str:
    """``text``, saying where it is placed when it has no place of its own."""
    return text if where else f"{text} (approximate place: {fallback} line 1; this result names no line of its own)"


def sarif_log(exit_code: int, config_errors: Iterable[Mapping[str, Any]] = (),
              violations: Iterable[Mapping[str, Any]] = (), project_dir: str | Path | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of one run.

    Args:
        exit_code: the command's exit code (``invocations[0].exitCode``).
        config_errors: ``configErrors`` entries of the JSON report (``{"path", "message", "location"?, "notJudged"?}``).
        violations: ``violations`` entries (``{"policy", "enforcement", "resource", "message", "urn"?, "location"?}``).
        project_dir: the project directory the artifact URIs are relative to (``originalUriBaseIds``); default the
            current directory. A result without a place is shown at line 1 of its :func:`fallback_file`.
    """
    table = rules()
    index = {rule["id"]: i for i, rule in enumerate(table)}
    base = Path(project_dir) if project_dir is not None else Path.cwd()
    fallback = fallback_file(base)
    results: list[dict[str, Any]] = []
    for issue in config_errors:
        text = f"{issue['path']}: {issue['message']}" if issue.get("path") else issue["message"]
        where = issue.get("location")
        results.append({"ruleId": CONFIG_RULE, "ruleIndex": 0, "level": "note" if issue.get("notJudged") else "error",
                        "message": {"text": _approximate(text, where, fallback)},
                        "locations": _location(where, "", fallback)})
    for v in violations:
        where = v.get("location")
        text = _approximate(f"{v.get('resource') or 'stack'}: {v['message']}", where, fallback)
        result: dict[str, Any] = {"ruleId": v["policy"], "level": LEVELS.get(str(v["enforcement"]), "warning"),
                                  "message": {"text": text},
                                  "locations": _location(where, str(v.get("urn") or ""), fallback)}
        if v["policy"] in index:
            result["ruleIndex"] = index[v["policy"]]
        results.append(result)
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "gpupool", "version": __version__, "rules": table}},
        "invocations": [{"executionSuccessful": exit_code in (0, 1), "exitCode": exit_code}],
        "results": results,
    }
    run["originalUriBaseIds"] = {_BASE: {"uri": base.resolve().as_uri() + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
