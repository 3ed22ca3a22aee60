"""The values a chart resource gives Helm, read offline as the Kubernetes provider reads them.

A ``helm.v4.Chart`` or ``helm.v3.Release`` takes ``valueYamlFiles`` (a list of assets) and ``values`` (a map);
:func:`values_documents` turns them into the YAML documents :class:`~gpu_node_pool.expand.helm.HelmRenderer`
passes with ``-f``, value files first. Assets come as Pulumi SDK objects (the plan, in-process) or in Pulumi's
wire form (``gpupool check``'s child, :mod:`gpu_node_pool.sdk.record`); both read alike:

- a ``StringAsset``: its text; a ``FileAsset``: the file, its path relative to ``base_dir`` (the directory
  ``pulumi`` runs the program and its providers in: the project directory, or the directory of ``Pulumi.yaml``'s
  ``main``; pulumi/pulumi ``getPwdMain`` and ``execPlugin``, ``cmd.Dir = pwd``), read by
  :func:`gpu_node_pool.sdk.files.read_input_text` (regular files only); a ``RemoteAsset`` is not fetched.
- an asset inside ``values`` of a ``helm.v4.Chart`` is replaced by its text, as Helm's ``--set-file``; an archive
  there is refused by the provider (pulumi/pulumi-kubernetes ``provider/pkg/helm/values.go@v4.32.0``,
  ``marshalValue``: "Archive values are not supported as a Helm value").
- an asset or archive inside ``values`` of a ``helm.v3.Release`` is not its text to the provider: ``decodeRelease``
  (pulumi/pulumi-kubernetes ``provider/pkg/provider/helm_release.go@v4.32.0``) copies the inputs with
  ``PropertyMap.MapRepl``, which keeps an asset as the Go object ``*asset.Asset`` (pulumi/pulumi
  ``sdk/go/common/resource/properties.go@v3.243.0``, ``MapRepl``: ``v.IsAsset()`` -> ``v.AssetValue()``),
  ``mapstructure.Decode`` puts that object into ``Release.Values`` as it is, and ``getValues`` hands those values to
  Helm. What a chart's templates make of that object (a struct of signature, hash and path or text: pulumi/pulumi
  ``sdk/go/common/resource/asset/asset.go@v3.243.0``) depends on each template, so the Release is reported as not
  judged, never rendered without it (:data:`_RELEASE_ASSET`). Only ``valueYamlFiles`` are read as text there.
  A file or archive path that does not exist fails a real preview before the provider sees it: the engine hashes
  every asset and archive a resource registers (pulumi/pulumi ``pkg/resource/deploy/source_eval.go@v3.243.0``,
  ``RegisterResource`` with ``ComputeAssetHashes``; ``sdk/go/common/resource/plugin/rpc.go@v3.243.0``: "failed to
  compute asset hash"), so it is refused.
- a ``FileAsset`` whose file does not exist fails a real preview: the provider reads every values file when it
  renders the chart (``values.go`` ``readAsset``: "failed to read file"; a Release in ``Check``), so it is refused
  (:class:`ValuesProblem` with ``refused``), with the nearest existing file when one looks like it.
- a values file whose YAML the provider cannot read as a map of values fails a real preview: the ``helm.v4.Chart``
  provider reads each file with ``sigs.k8s.io/yaml``'s ``Unmarshal`` into a ``map[string]interface{}`` when it
  renders the chart and returns its error (pulumi/pulumi-kubernetes ``provider/pkg/helm/values.go@v4.32.0``,
  ``ValueOpts.MergeValues``), and a ``helm.v3.Release``'s ``Check`` unmarshals each file into its values map the same
  way (``provider/pkg/provider/helm_release.go@v4.32.0``, ``decodeRelease``). So the document the provider reads
  (:func:`first_document`) is parsed before helm sees it, and one that is no YAML (a tab indenting a line, an
  unclosed bracket or quote, an alias with no anchor, a list as a key) or holds a list or a scalar instead of a
  map is refused (:class:`ValuesProblem` with ``refused``) at the user's file, line and column, never at the
  temporary copy helm reads. A problem PyYAML reports where Go's YAML readers may read the file (an unknown tag, a
  repeated anchor, aliases past :data:`gpu_node_pool.sdk.yaml_bounded.MAX_EXPANDED_VALUES`) is left to helm.
- a values file holding several YAML documents (``---``) gives the provider its first document only: both chart
  types read each file with ``sigs.k8s.io/yaml``'s ``Unmarshal`` (pulumi/pulumi-kubernetes
  ``provider/pkg/helm/values.go@v4.32.0``, ``ValueOpts.MergeValues``; ``provider/pkg/provider/helm_release.go@v4.32.0``,
  ``decodeRelease``), which converts the YAML with ``go.yaml.in/yaml/v2``'s ``Unmarshal`` (kubernetes-sigs/yaml
  ``yaml.go@v1.6.0``), and that "decodes the first document found" (yaml.v2 ``yaml.go``). ``helm template -f`` of
  Helm v4 merges every document of the file instead (helm/helm ``pkg/cli/values/options.go@v4.1.4``,
  ``loader.LoadValues``; Helm v3's ``-f`` read the first only, ``pkg/cli/values/options.go@v3.20.2``). So each file
  is cut to its first document (:func:`first_document`) before helm sees it, and a note says which documents were
  left out: the plan judges, and ``gpupool render`` writes, the values ``pulumi up`` installs.

:func:`merged_values` merges those same documents into the one map Helm renders with (what ``gpupool render`` writes
as a chart's ``values.yaml``): Helm's ``MergeMaps``, each document over the ones before it, the inline ``values``
last, with the highest precedence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..sdk.files import read_input_text
from ..sdk.record import asset_parts
from ..sdk.yaml_bounded import load_all_bounded, with_tab_cause
from .result import similar_path

__all__ = ["SyntaxProblem", "ValuesProblem", "first_document", "merge_maps", "merged_values", "values_documents"]

_CHART = "kubernetes:helm.sh/v4:Chart"
#: Where the provider reads a chart's values files at preview, per chart type.
_READ_SOURCE = {
    _CHART: "pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0, readAsset: \"failed to read file\", as "
            "Construct renders the chart at preview",
    "kubernetes:helm.sh/v3:Release": "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0, "
                                     "decodeRelease in Check",
}

#: Why a ``helm.v3.Release`` with an asset in ``values`` is not judged (module docstring).
_RELEASE_ASSET = (
    "{where} is a Pulumi {kind}, and a helm.v3.Release hands Helm the asset object itself as that value, not the "
    "file's text (pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0, decodeRelease: the "
    "inputs copied with MapRepl, which keeps an asset as *asset.Asset, pulumi/pulumi "
    "sdk/go/common/resource/properties.go@v3.243.0; getValues passes it to Helm); what the chart's templates "
    "render from that object is not judged offline")
_RELEASE_ASSET_FIX = ("give the value itself: read the file in the program (e.g. Path('file').read_text()), or "
                      "list the values file in valueYamlFiles, which the Release reads as YAML; a helm.v4.Chart "
                      "takes an asset in values as its text")
#: Why the documents after a values file's first are left out (module docstring).
_FIRST_ONLY = (
    "{where} holds more than one YAML document; the Kubernetes provider reads only the first of a values file "
    "(pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0 ValueOpts.MergeValues and "
    "provider/pkg/provider/helm_release.go@v4.32.0 decodeRelease read it with sigs.k8s.io/yaml Unmarshal, which "
    "decodes the first document only, yaml.go@v1.6.0 with go.yaml.in/yaml/v2), so `pulumi up` installs the chart "
    "without the documents from line {line} on, and the plan judges it so (helm template -f of Helm v4 would merge "
    "them: helm/helm pkg/cli/values/options.go@v4.1.4, loader.LoadValues). Write the values in one document, or "
    "give each document as a file of its own in valueYamlFiles")
#: A plain scalar that is a document with no values (YAML's null), which adds nothing whoever reads it.
_EMPTY = ("", "~", "null", "Null", "NULL")
#: A line that starts or ends a YAML document (``---``, ``...``) at its first column: without one, a text is one
#: document and needs no parsing.
_MARKER = re.compile(r"^(?:---|\.\.\.)(?:[ \t\r\n]|$)", re.MULTILINE)
#: Where the provider reads each values file as a map of values, per chart type (module docstring).
_PARSE_SOURCE = {
    _CHART: "pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0, ValueOpts.MergeValues: each file read "
            "with sigs.k8s.io/yaml Unmarshal into a map, as Construct renders the chart at preview",
    "kubernetes:helm.sh/v3:Release": "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0, "
                                     "decodeRelease in Check: each file unmarshalled into the values map",
}
#: PyYAML problems Go's YAML readers share (module docstring): the values file is refused. Every other PyYAML
#: error is left to helm, which names it (as not judged).
_SYNTAX_ERRORS = (yaml.scanner.ScannerError, yaml.parser.ParserError)
_SHARED_PROBLEMS = ("found undefined alias", "found unhashable key")
#: What a values document holds instead of a map, by the Python type PyYAML builds: (in YAML's words, in Go's
#: ``encoding/json`` words of its error).
_KINDS = {"list": ("list", "array"), "str": ("string", "string"), "int": ("number", "number"),
          "float": ("number", "number"), "bool": ("boolean", "bool")}
#: A YAML syntax error's words, place first: ``(error, name) -> "<name>:<line>:<column>: <what is wrong>; <fix>"``.
SyntaxProblem = Callable[[Exception, str], str]
_HASH_SOURCE = ("pulumi/pulumi pkg/resource/deploy/source_eval.go@v3.243.0, RegisterResource with ComputeAssetHashes; "
                "sdk/go/common/resource/plugin/rpc.go@v3.243.0: \"failed to compute asset hash\"")


@dataclass(frozen=True)
class ValuesProblem:
    """Why a chart's values cannot be given to helm, at ``input`` (``valueYamlFiles[0]``, ``values.a.b``).

    Attributes:
        input: the input's path.
        reason: why (a not-judged record's reason); when ``refused``, the whole error: value, rule, source, fix.
        fix: what to do (empty when ``refused``).
        refused: the provider fails a real ``pulumi preview`` on it, so it is an error, not an unjudged item.
    """

    input: str
    reason: str
    fix: str = ""
    refused: bool = False


def values_documents(type_token: str, inputs: Mapping[str, Any], base_dir: Path,
                     notes: list[str], syntax_problem: SyntaxProblem | None = None) -> list[str] | ValuesProblem:
    """The YAML documents to pass with ``-f``: the first YAML document of each ``valueYamlFiles`` asset's text (the
    one the provider reads: :func:`first_document`), then ``values`` as JSON (which is YAML, and keeps types exact);
    or the first problem. A file that is not UTF-8, or one with values in a document after its first, adds a note
    to ``notes``.

    A document the provider cannot read as a map of values is refused (module docstring) at
    ``valueYamlFiles[i]``, its message beginning with ``<file>:<line>:<column>: `` (the file as the program names
    it, or ``valueYamlFiles[i]`` for a ``StringAsset``): ``syntax_problem``'s words for a YAML syntax error (the
    plan passes the stack file reader's, :func:`gpu_node_pool.config.yaml_errors.yaml_syntax_problem`, which this
    room cannot import), else PyYAML's problem and its context; then a tab where the error is found, the rule with
    its source, and the fix."""
    docs: list[str] = []
    files = inputs.get("valueYamlFiles") or []
    for i, asset in enumerate(files if isinstance(files, list) else [files]):
        where = f"valueYamlFiles[{i}]"
        text = _asset_text(type_token, where, asset, base_dir, notes)
        if isinstance(text, ValuesProblem):
            return text
        text, later = first_document(text)
        unread = _unreadable(type_token, where, _asset_name(asset, where), text, syntax_problem)
        if unread is not None:
            return unread
        if later is not None:
            notes.append(_FIRST_ONLY.format(where=where, line=later))
        docs.append(text)
    values = inputs.get("values")
    if values:
        values = _with_file_texts(type_token, values, "values", base_dir, notes)
        if isinstance(values, ValuesProblem):
            return values
        try:
            docs.append(json.dumps(values, sort_keys=True))
        except (TypeError, ValueError) as e:
            return ValuesProblem("values", f"values cannot be written for helm ({e})",
                                 "give values as maps, lists, strings, numbers and booleans")
    return docs


def _asset_name(asset: Any, where: str) -> str:
    """How a values file's messages name it: its path as the program wrote it, or ``where`` for a text asset."""
    parts = asset_parts(asset)
    return parts[2] if parts is not None and parts[1] == "path" and isinstance(parts[2], str) else where


def _unreadable(type_token: str, where: str, name: str, text: str,
                syntax_problem: SyntaxProblem | None) -> ValuesProblem | None:
    """The refusal of the values document ``text`` (of the file ``name`` at ``where``) when the provider cannot read
    it as a map of values (module docstring), else None."""
    try:
        doc = next(iter(load_all_bounded(text)), None)
    except yaml.YAMLError as err:
        problem = str(getattr(err, "problem", "") or "")
        if not isinstance(err, _SYNTAX_ERRORS) and not problem.startswith(_SHARED_PROBLEMS):
            return None  # Go's readers may take it: helm says what it makes of it
        said = with_tab_cause(syntax_problem(err, name) if syntax_problem is not None else _plain_syntax(err, name),
                              err, text)
        return ValuesProblem(where, (
            f"{said}. The provider reads each values file as a YAML map of values at preview "
            f"({_PARSE_SOURCE.get(type_token, _PARSE_SOURCE[_CHART])}) and fails on a file it cannot read, so a real "
            f"`pulumi preview` fails on it"), refused=True)
    if doc is None or isinstance(doc, Mapping):
        return None
    kind, go_kind = _KINDS.get(type(doc).__name__, (type(doc).__name__, type(doc).__name__))
    return ValuesProblem(where, (
        f"{name}: holds a YAML {kind} where a map of values (key: value) belongs: the provider reads each values file "
        f"into a map at preview ({_PARSE_SOURCE.get(type_token, _PARSE_SOURCE[_CHART])}) and fails "
        f"on any other value (\"cannot unmarshal {go_kind} into Go value of type "
        "map[string]interface {}\"), so a real `pulumi preview` fails on it. Write the values as a map, one "
        "key: value per line"), refused=True)


def _plain_syntax(err: Exception, name: str) -> str:
    """A YAML error's place, problem and fix when the caller gives no wording: ``<name>:<line>:<column>: is not
    valid YAML: <problem> (<context> on line N); fix the syntax there``."""
    mark = getattr(err, "problem_mark", None)
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
    problem = getattr(err, "problem", None) or (str(err).splitlines() or [type(err).__name__])[0]
    context, context_mark = getattr(err, "context", None), getattr(err, "context_mark", None)
    if context and context_mark is not None:
        problem += f" ({context} on line {context_mark.line + 1})"
    return f"{where}: is not valid YAML: {problem}; fix the syntax there"


def first_document(text: str) -> tuple[str, int | None]:
    """The text of ``text``'s first YAML document, as the Kubernetes provider reads a values file (module
    docstring), and the line (1-based) of the ``---`` of the first later document with values in it, or None when
    there is none (a later document that is empty or ``null`` adds nothing, whoever reads it).

    The text is cut where the first document ends (before the ``---`` that starts the next, or after its ``...``),
    so helm reads exactly that document. A text with no ``---`` or ``...`` line is one document and is returned
    whole, as is one whose first document the parser cannot read (helm then fails on it as the provider does); a
    later document the parser cannot read is left out as the provider leaves it."""
    if not _MARKER.search(text):
        return text, None
    end: int | None = None
    line: int | None = None
    try:
        for event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if end is None:
                if isinstance(event, yaml.DocumentEndEvent):
                    end = event.end_mark.index
            elif isinstance(event, yaml.DocumentStartEvent):
                line = event.start_mark.line + 1
            elif isinstance(event, yaml.StreamEndEvent):
                return text[:end], None
            elif not (isinstance(event, yaml.DocumentEndEvent) or (
                    isinstance(event, yaml.ScalarEvent) and event.implicit[0] and event.value in _EMPTY
                    and not event.anchor and not event.tag)):
                return text[:end], line
    except yaml.YAMLError as e:
        if end is not None:
            mark = getattr(e, "problem_mark", None)
            return text[:end], line or (mark.line + 1 if mark else None)
    return text if end is None else text[:end], None


def merge_maps(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` merged onto a copy of ``base`` as Helm merges values: a key in both whose values are both maps is
    merged the same way, key by key; any other value of ``over`` (a list, a scalar, null) replaces ``base``'s
    (helm/helm ``pkg/chart/v2/loader/load.go@v4.1.4``, ``MergeMaps``; the provider's copy,
    pulumi/pulumi-kubernetes ``provider/pkg/helm/upstream.go@v4.32.0``)."""
    out = dict(base)
    for key, value in over.items():
        below = out.get(key)
        out[key] = (merge_maps(below, value) if isinstance(value, Mapping) and isinstance(below, Mapping)
                    else value)
    return out


def merged_values(type_token: str, inputs: Mapping[str, Any], base_dir: Path,
                  notes: list[str], syntax_problem: SyntaxProblem | None = None) -> dict[str, Any] | ValuesProblem:
    """The values Helm renders a chart resource with: the documents :func:`values_documents` gives the judging's
    ``helm template`` (the first YAML document of each ``valueYamlFiles`` file in order, then ``values``) merged by
    :func:`merge_maps`, each over the ones before, so ``values`` wins, then the last file. That is Helm's order for
    repeated ``-f`` (https://helm.sh/docs/helm/helm_install/, helm/helm ``pkg/cmd/install.go@v4.1.4``: "The
    priority will be given to the last (right-most) file specified"; ``pkg/cli/values/options.go@v4.1.4``,
    ``MergeValues``) and the provider's (pulumi/pulumi-kubernetes ``provider/pkg/helm/values.go@v4.32.0``,
    ``ValueOpts.MergeValues``: the files, then ``values``; the ``helm.v4.Chart`` docs: ``values`` "with highest
    precedence"); of a file with several documents only the first counts, as the provider reads it (module
    docstring).

    Keys that YAML reads as no string (``1:``, ``true:``) are written as the strings Helm makes of them. Returns
    the merged map, or the first problem: :func:`values_documents`'s (with ``syntax_problem``), or a document
    PyYAML cannot load that it leaves to helm (an unknown tag).
    """
    docs = values_documents(type_token, inputs, base_dir, notes, syntax_problem)
    if isinstance(docs, ValuesProblem):
        return docs
    files = inputs.get("valueYamlFiles") or []
    count = len(files) if isinstance(files, list) else 1
    merged: dict[str, Any] = {}
    for i, text in enumerate(docs):
        where = f"valueYamlFiles[{i}]" if i < count else "values"
        try:  # values is JSON (values_documents): read as JSON, which a YAML 1.1 reader is not exactly ("1e+26")
            loaded = [json.loads(text)] if where == "values" else list(load_all_bounded(text))
        except (yaml.YAMLError, ValueError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            return ValuesProblem(where, f"{where} is not YAML Helm can read ({first})", "fix the values file")
        for doc in loaded:
            if doc is None:
                continue
            if not isinstance(doc, Mapping):
                return ValuesProblem(where, (f"{where} holds a YAML {type(doc).__name__}, not a map of values, and "
                                             "Helm fails on it (helm/helm pkg/chart/v2/loader/load.go@v4.1.4, "
                                             "LoadValues)"), "write the values file as a map (key: value)")
            merged = merge_maps(merged, _string_keys(doc))
    return merged


def _string_keys(value: Any) -> Any:
    """``value`` with every map key a string, as Helm reads values (JSON objects: ``true:`` is ``"true"``)."""
    if isinstance(value, Mapping):
        return {(str(k).lower() if isinstance(k, bool) else "null" if k is None else str(k)): _string_keys(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_string_keys(v) for v in value]
    return value


def _with_file_texts(type_token: str, value: Any, where: str, base_dir: Path, notes: list[str]) -> Any:
    """``value`` with each asset in it replaced by its text (a v4 Chart's ``--set-file``), or the first problem."""
    parts = asset_parts(value)
    if parts is not None:
        if type_token != _CHART:
            return _release_asset(where, parts, base_dir)
        if parts[0] == "Archive":
            return ValuesProblem(where, f"{where} is a Pulumi archive, and the provider takes no archive as a Helm "
                                        "value (pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0, "
                                        "marshalValue: \"Archive values are not supported as a Helm value\"), so a "
                                        "real `pulumi preview` fails on it. Give a FileAsset or StringAsset, or the "
                                        "value itself", refused=True)
        return _asset_text(type_token, where, value, base_dir, notes)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[key] = _with_file_texts(type_token, item, f"{where}.{key}", base_dir, notes)
            if isinstance(out[key], ValuesProblem):
                return out[key]
        return out
    if isinstance(value, list):
        items = [_with_file_texts(type_token, item, f"{where}[{i}]", base_dir, notes) for i, item in enumerate(value)]
        return next((item for item in items if isinstance(item, ValuesProblem)), items)
    return value


def _release_asset(where: str, parts: tuple[str, str, Any], base_dir: Path) -> ValuesProblem:
    """An asset or archive in a ``helm.v3.Release``'s values: refused when its path names nothing (the engine's
    hash fails the preview), else not judged (module docstring)."""
    kind, attr, value = parts
    if attr == "path" and isinstance(value, str) and value and "\0" not in value:
        path = Path(value) if Path(value).is_absolute() else base_dir / value
        if not path.exists():
            return _no_such_file(where, value, path, similar_path(base_dir, value, Path.exists), (
                f"Pulumi hashes every {kind.lower()} a resource registers, reading it relative to the directory it "
                f"runs the program in ({base_dir}; {_HASH_SOURCE}), so a real `pulumi preview` fails on it. Give the "
                "path relative to that directory, or create the file"))
    return ValuesProblem(where, _RELEASE_ASSET.format(where=where, kind=kind.lower()), _RELEASE_ASSET_FIX)


def _asset_text(type_token: str, where: str, asset: Any, base_dir: Path, notes: list[str]) -> str | ValuesProblem:
    """The text of the ``StringAsset`` or ``FileAsset`` at ``where``, or why it cannot be read (module docstring)."""
    parts = asset_parts(asset)
    if parts is None or parts[0] != "Asset":
        what = "a Pulumi archive" if parts else f"no Pulumi asset ({type(asset).__name__} {str(asset)[:60]!r})"
        return ValuesProblem(where, f"{where} is {what}, so the values cannot be read",
                             "give each values file as pulumi.FileAsset(path) or pulumi.StringAsset(text)")
    _, attr, value = parts
    if attr == "text" and isinstance(value, str):
        return value
    if attr == "uri":
        return ValuesProblem(where, f"{where} is a RemoteAsset ({value}), which the offline plan does not fetch",
                             "keep the file in the project and give it as a FileAsset, or put the values in values")
    if attr != "path" or not isinstance(value, str):
        return ValuesProblem(where, f"{where} is an asset with no path or text ({attr or 'empty'})",
                             "give it as pulumi.FileAsset(path) or pulumi.StringAsset(text)")
    if "\0" in value:
        return ValuesProblem(where, (
            f"cannot read {value!r}: a file path cannot hold a NUL character (\\x00): the operating system refuses "
            "it (Go's os.ReadFile fails with EINVAL, https://pkg.go.dev/syscall#ByteSliceFromString; "
            f"{_READ_SOURCE.get(type_token, 'the provider reads each values file')}), so a real `pulumi preview` "
            "fails on it. Give the path of the values file without the NUL character"), refused=True)
    path = Path(value) if Path(value).is_absolute() else base_dir / value
    try:
        text, not_utf8 = read_input_text(path)
    except FileNotFoundError:
        return _no_such_file(where, value, path, similar_path(base_dir, value, Path.is_file), (
            f"The provider reads each values file when it renders the chart ({_READ_SOURCE.get(type_token, '')}), "
            f"relative to the directory Pulumi runs the program in ({base_dir}), so a real `pulumi preview` fails on "
            "it. Give the path of the values file relative to that directory, or create the file"))
    except OSError as e:  # a directory, a FIFO, no permission: the provider cannot read it either
        return ValuesProblem(where, (
            f"cannot read {e.filename or path}: {e.strerror or e}. The provider reads each values file when it "
            f"renders the chart ({_READ_SOURCE.get(type_token, '')}), so a real `pulumi preview` fails on it. Point it "
            "at a regular file the user who runs pulumi can read"), refused=True)
    except ValueError as e:  # a path the operating system cannot take (os.stat's "embedded null byte")
        return ValuesProblem(where, f"{where}: cannot read {value!r}: {e}",
                             "give the path of a regular file the program's user can read")
    if not_utf8:
        notes.append(f"{where}: {not_utf8}")
    return text


def _no_such_file(where: str, value: str, path: Path, near: str | None, why: str) -> ValuesProblem:
    """The refusal of a file a chart's values name that is not there: ``value`` as written, ``path`` as resolved,
    the nearest existing path (``near``) when one looks like it, then ``why`` (which reader fails on it, its source,
    the fix)."""
    return ValuesProblem(where, (f"cannot read {value} ({path}): no such file"
                                 + (f"; did you mean {near!r}? " if near else ". ") + why), refused=True)
