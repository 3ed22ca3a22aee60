"""Parse the manifests of ``kubernetes.yaml`` components in-process into Kubernetes objects.

Inputs, as Pulumi registers them (pulumi-kubernetes 4.34.2, the version this project pins; its Python SDK is
pulumi/pulumi-kubernetes ``sdk/python/pulumi_kubernetes/...@v4.34.2``):

- ``kubernetes:yaml/v2:ConfigGroup``: ``files`` (paths and/or URLs; glob patterns), ``yaml``
  (one string of YAML, possibly multi-document), ``objs`` (objects), ``resourcePrefix``.
  (``yaml/v2/ConfigGroup.py``; the SDK also accepts a list for ``yaml``, so both are read.)
- ``kubernetes:yaml/v2:ConfigFile``: ``file`` (a path or URL).
- v1 ``kubernetes:yaml:ConfigGroup`` / ``kubernetes:yaml:ConfigFile``: a Python component that
  registers **no inputs** (``yaml/yaml.py``); its constructor arguments (``files``, ``yaml``
  as a list of strings, ``file``, ``transformations``, ``resource_prefix``) stay in the
  program, so the caller passes them in snake_case. v1 expands ``files`` with Python's
  ``glob`` and runs each transformation as ``t(obj, opts)`` or ``t(obj)`` by its arity;
  :func:`apply_v1_transformations` does the same. Under the provider's ``kubernetes:yaml:decode``
  invoke the SDK decodes the text; :func:`decode` is that invoke's offline answer.

Files and globs are read relative to ``base_dir``. Remote URLs (``http://``, ``https://``) are
not fetched: the resource is :class:`NotJudged`. Order of objects: v2 ``files`` (each glob's
matches sorted), then ``yaml``, then ``objs``; ``*List`` kinds are flattened.

A v2 component's path that is no glob pattern (no unescaped ``*``, ``?`` or ``[``) and names no file is a
:class:`RefusedInput`: the provider reads it with ``os.ReadFile`` when it expands the component at preview and
returns the error (pulumi/pulumi-kubernetes ``provider/pkg/provider/yaml/v2/yaml.go@v4.32.0``, ``Parse``: "reading
YAML file from disk"; ``ConfigFile``'s ``file`` is never a glob, ``provider/pkg/provider/yaml/v2/configfile.go@v4.32.0``),
and ``Construct`` fails on it (pulumi/pulumi ``sdk/go/pulumi/provider.go@v3.272.0``, ``construct``: "marshaling
properties"), so a real preview fails.
A glob pattern that matches nothing is no error there (``filepath.Glob``): the component creates nothing from it,
and it is not judged here, since what it was meant to apply is not known. A malformed glob pattern (``[bad``: a
character class never closed, empty, or a range without its end; a trailing ``\\``) is a :class:`RefusedInput`:
``filepath.Glob`` checks the whole pattern first and returns ``ErrBadPattern`` ("syntax error in pattern"; Go 1.16+,
go.googlesource.com/go commit b5ddc42b465dd5b9532ee336d98343d81a6d35b2, golang/go#28614,
``src/path/filepath/match.go``), which ``Parse`` returns ("expanding glob"), so a real preview fails.
So is, for a v2 component, a manifest that cannot be read (``os.ReadFile``; read here through
:func:`gpu_node_pool.sdk.files.open_input`, so one that is no regular file, such as a FIFO, is refused at once, never
waited on, as the provider's read would wait), one that does not decode (each document
is decoded into an object, ``yamlDecode``, and an error returned: "decoding YAML"; the place and cause are given as
the stack file reader gives them, through ``syntax_problem``), and an object whose kind or API version no API server
serves (:mod:`.manifest_api`: ``kind: Daemonset``, ``apiVersion: extensions/v1beta1``). A v1 component's manifest is decoded in the program, by the
provider's ``kubernetes:yaml:decode`` invoke, which fails on a manifest that does not decode, so the program and a
real preview fail: :func:`v1_decode_problem` says why, and the plan makes it an error, as it makes an object no API
server serves as the program registers it (:mod:`gpu_node_pool.plan.v1_manifests`). A component that opens to no
object at all (an empty manifest) is :class:`NotJudged`: the provider skips empty documents, so it creates no
child, which the pack's ``resources-judged`` rule reports in a real preview.

Relative paths are relative to ``base_dir``, the directory Pulumi runs the program and the provider in
(:func:`gpu_node_pool.plan.run.program_run_dir`).
"""

from __future__ import annotations

import copy
import glob
import re
from collections.abc import Callable, Mapping, Sequence
from inspect import getfullargspec, ismethod
from pathlib import Path
from typing import Any

import yaml

from ..sdk.files import NotRegularFileError, open_input
from ..sdk.yaml_bounded import load_all_bounded, with_tab_cause
from .helm import parse_manifests
from .manifest_api import api_problem, document_place, find_api_problem, first_api_problem, list_items
from .result import SECRET_FIX, Expanded, NotJudged, RefusedInput, similar_path, unknown_input

__all__ = ["RUN_DIR_WORDS", "YAML_TYPES", "expand_yaml", "decode", "apply_v1_transformations", "go_glob_error",
           "placed_api_problem", "v1_decode_problem"]

V2_GROUP = "kubernetes:yaml/v2:ConfigGroup"
V2_FILE = "kubernetes:yaml/v2:ConfigFile"
V1_GROUP = "kubernetes:yaml:ConfigGroup"
V1_FILE = "kubernetes:yaml:ConfigFile"
YAML_TYPES = (V2_GROUP, V2_FILE, V1_GROUP, V1_FILE)

_FIX_REMOTE = "download the manifest into the repository and point the component at the local file"
#: A v2 path the provider expands as a glob (yaml.go ``globPatternRegexp``).
_V2_GLOB = re.compile(r"(?:^|[^\\])[*?\[]")
_GLOB_SOURCE = ("pulumi/pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go@v4.32.0, Parse: \"expanding glob\"; "
                "Go path/filepath.Glob returns ErrBadPattern for a malformed pattern, src/path/filepath/match.go "
                "since Go 1.16, golang/go#28614")
#: Where relative paths are read from, as every message says it.
RUN_DIR_WORDS = "the directory Pulumi runs the program in"
_V2_SOURCE = ("pulumi/pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go@v4.32.0, Parse: \"reading YAML file "
              "from disk\"; a failed Construct fails the preview, pulumi/pulumi sdk/go/pulumi/provider.go@v3.272.0")


def _is_url(path: str) -> bool:
    # The SDK's own test (yaml/yaml.py _is_url).
    return path.startswith(("http://", "https://"))


def decode(text: str) -> list[dict[str, Any]]:
    """The objects in a YAML stream, as the provider's ``kubernetes:yaml:decode`` invoke returns them.

    Raises:
        yaml.YAMLError: not YAML.
        ValueError: a document is not a Kubernetes object (no ``apiVersion``/``kind``).
    """
    return parse_manifests(text)


def apply_v1_transformations(
    objects: Sequence[dict[str, Any]], transformations: Sequence[Callable[..., Any]], opts: Any = None
) -> list[dict[str, Any]]:
    """Run v1 ``transformations`` over each object in place, as ``pulumi_kubernetes.yaml`` does.

    Each callable gets ``(obj, opts)`` when it takes two positional parameters (three for a
    bound method), else ``(obj)``; it mutates ``obj`` (the SDK ignores return values). A
    transformation may turn an object into ``{"apiVersion": "v1", "kind": "List", "items": []}``
    to omit it (the SDK's documented idiom); ``*List`` results are flattened afterwards.
    ``opts`` defaults to an empty dict (what the SDK passes when no options were given).

    Raises:
        whatever a transformation raises (it is the user's code; the caller reports it).
    """
    out: list[dict[str, Any]] = []
    for obj in objects:
        for t in transformations:
            if len(getfullargspec(t)[0]) == (2 if not ismethod(t) else 3):
                t(obj, copy.copy(opts) if opts is not None else {})
            else:
                t(obj)
        out += _flatten(obj)
    return out


def _flatten(obj: Any) -> list[dict[str, Any]]:
    """The objects of ``obj`` (:func:`.manifest_api.list_items`), an empty one left out."""
    return [o for o in list_items(obj) if o]


def expand_yaml(
    type_token: str,
    name: str,
    inputs: Mapping[str, Any],
    *,
    resource: str = "",
    base_dir: str | Path | None = None,
    unknown_markers: Sequence[Any] = (),
    syntax_problem: Callable[[Exception, str], str] | None = None,
) -> Expanded | NotJudged | RefusedInput:
    """The objects a yaml component creates, or why they are not judged.

    Args:
        type_token: one of :data:`YAML_TYPES`.
        name: the resource name (for the report when ``resource`` is empty).
        inputs: v2: the registered inputs (camelCase ``files``, ``file``, ``yaml``, ``objs``).
            v1: the constructor arguments (``files``, ``file``, ``yaml``, ``transformations``,
            optional ``opts`` for the transformations).
        resource: the URN for the report.
        base_dir: the program's directory, for relative paths and globs (default: cwd).
        unknown_markers: values meaning "unknown at preview" (e.g. ``"(known after apply)"``).
        syntax_problem: ``(error, name) -> "<name>:<line>:<column>: <what is wrong>; <fix>"`` for a YAML error
            (the stack file reader's, :func:`gpu_node_pool.config.yaml_errors.yaml_syntax_problem`, which the plan
            passes: this room cannot import ``config``); default: the error's first line.

    Returns:
        :class:`Expanded` (``source`` ``"yaml"``, at least one object); :class:`RefusedInput` (input ``files[i]``,
        ``file``, ``yaml`` or ``objs[i]``) for what a real preview of a v2 component fails on: a path that is no glob
        and names no file, a manifest that cannot be read or does not decode (a document that is no Kubernetes
        object), a kind or API version no API server serves (:mod:`.manifest_api`); or :class:`NotJudged` for an
        unknown input, a remote URL, a v1 file that is missing, a glob with no match, v1 YAML that does not parse,
        a transformation that raised, or no object at all (an empty manifest). Never raises for user input.
    """
    who = resource or name

    def not_judged(reason: str, fix: str) -> NotJudged:
        return NotJudged(who, type_token, reason, fix)

    if type_token not in YAML_TYPES:
        return not_judged(f"{type_token} is not a yaml component", "expand it with the matching expander")
    plain = {k: v for k, v in inputs.items() if k not in ("transformations", "opts")}
    unknown = unknown_input(plain, tuple(unknown_markers))
    if unknown is not None:
        path, words = unknown
        return not_judged(
            f"input {path} {words}, so the manifests cannot be read",
            SECRET_FIX if "secret" in words else "make the file names and YAML plain values (not outputs of other resources)",
        )
    base = Path(base_dir) if base_dir else Path.cwd()
    files = [(f"files[{i}]", pattern) for i, pattern in enumerate(inputs.get("files") or [])]
    if inputs.get("file"):
        files.append(("file", inputs["file"]))
    texts = inputs.get("yaml") or []
    if isinstance(texts, str):
        texts = [texts]
    objects: list[dict[str, Any]] = []
    v2 = type_token in (V2_GROUP, V2_FILE)

    def unparsable(where: str, name: str, err: Exception, text: str = "") -> NotJudged | RefusedInput:
        said = _syntax(err, name, syntax_problem, text)
        if v2:  # the provider decodes it at preview and fails on it
            return RefusedInput(who, type_token, where, f"{said}. {_DECODE_RULE}")
        return not_judged(said, "fix the manifest so kubectl apply would accept it")

    for where, pattern in files:
        if not isinstance(pattern, str):
            return not_judged(f"file {pattern!r} is not a path", "give file paths as strings")
        if _is_url(pattern):
            return not_judged(f"manifest {pattern} is a remote URL, which the offline plan does not fetch", _FIX_REMOTE)
        literal = type_token == V2_FILE or not _V2_GLOB.search(pattern)
        if type_token == V2_GROUP and not literal and (bad := go_glob_error(pattern)) is not None:
            return RefusedInput(who, type_token, where, _bad_glob_message(pattern, bad))
        matches = _expand(pattern, base, single=type_token in (V2_FILE, V1_FILE))
        if not matches and type_token in (V2_GROUP, V2_FILE) and literal:
            return RefusedInput(who, type_token, where, _missing_file_message(pattern, base))
        if not matches:
            near = similar_path(base, pattern, Path.is_file) if literal else None
            glob_note = "" if literal else ", and a v2 component creates nothing from a glob that matches nothing"
            return not_judged(f"file {pattern!r} matches no file (relative to {RUN_DIR_WORDS}, {base}){glob_note}"
                              + (f"; did you mean {near!r}?" if near else ""), "fix the path or glob pattern")
        for path in matches:
            name = pattern if literal else _shown_path(path, base)
            try:
                with open_input(path) as fh:  # a FIFO or device is refused, never waited on
                    raw = fh.read()
            except OSError as e:
                if v2:
                    return RefusedInput(who, type_token, where, _unreadable_message(name, path, e, base))
                return not_judged(f"cannot read {path}: {e.strerror}", "fix the path or the file's permissions")
            try:
                text = raw.decode("utf-8")
                found = decode(text)
            except (yaml.YAMLError, ValueError) as e:  # UnicodeDecodeError is a ValueError
                return unparsable(where, name, e, text if isinstance(e, yaml.YAMLError) else "")
            if v2 and (problem := _api_problem_in(found, text, repr(name))) is not None:
                return RefusedInput(who, type_token, where, problem)
            objects += found
    for i, text in enumerate(texts):
        where = "yaml" if isinstance(inputs.get("yaml"), str) else f"yaml[{i}]"
        try:
            found = decode(str(text))
        except (yaml.YAMLError, ValueError) as e:
            if v2:
                return unparsable(where, where, e, str(text))
            return not_judged(f"{where}: {_first_line(e)}", "fix the YAML text")
        if v2 and (problem := _api_problem_in(found, str(text), where)) is not None:
            return RefusedInput(who, type_token, where, problem)
        objects += found
    for i, obj in enumerate(inputs.get("objs") or []):
        flat = _flatten(copy.deepcopy(obj))
        problem = next((p for o in flat if isinstance(o, dict) and (p := api_problem(o)) is not None), None)
        if v2 and problem is not None:
            return RefusedInput(who, type_token, f"objs[{i}]", problem[1])
        objects += flat
    notes: list[str] = []
    transformations = inputs.get("transformations") or []
    if transformations:
        if type_token in (V2_GROUP, V2_FILE):
            return not_judged("v2 yaml components take no transformations argument", "use resource transforms")
        try:
            objects = apply_v1_transformations(objects, transformations, inputs.get("opts"))
        except Exception as e:  # the user's callable: report, never crash the plan
            return not_judged(
                f"a transformation raised {type(e).__name__}: {_first_line(e)}",
                "fix the transformation so it runs on every object of the manifest",
            )
        notes.append(f"{len(transformations)} v1 transformation(s) applied in-process")
    bad = next((o for o in objects if not isinstance(o, dict) or "kind" not in o or "apiVersion" not in o), None)
    if bad is not None:
        return not_judged(f"an object has no apiVersion/kind: {str(bad)[:120]}", "give every object apiVersion and kind")
    if not objects:
        return not_judged(_nothing_in(files, texts, inputs), _NOTHING_FIX)
    return Expanded(who, type_token, objects, "yaml", notes)


#: The fix for a yaml component that creates no object.
_NOTHING_FIX = "give the manifest the objects the component should create, or remove the component"


def _nothing_in(files: Sequence[tuple[str, Any]], texts: Sequence[Any], inputs: Mapping[str, Any]) -> str:
    """Why a yaml component that opened creates nothing: what it was given, and what a real preview makes of it."""
    given = [repr(pattern) for _, pattern in files] + (["its yaml text"] if texts else []) + (
        ["its objs"] if inputs.get("objs") is not None else [])
    what = ", ".join(given) if given else "no files, yaml or objs"
    return (f"{what} holds no Kubernetes object (empty, or only comments and '---'), so the component creates no "
            "child; in a real preview the pack's resources-judged rule reports a yaml component with no child "
            "resource as not judged (the provider skips empty documents: pulumi/pulumi-kubernetes "
            "provider/pkg/provider/yaml/v2/yaml.go@v4.32.0, yamlDecode)")


#: Why a v2 manifest that does not decode is an error: the provider decodes every document at preview.
_DECODE_RULE = ("The provider decodes each document of a manifest into an object when it expands the component at "
                "preview and fails on one that does not decode or has no apiVersion or kind "
                "(pulumi/pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go@v4.32.0, Parse: "
                "\"decoding YAML\"; Normalize: \"Kubernetes resources require a kind and apiVersion\"; a "
                "failed Construct fails the preview, pulumi/pulumi sdk/go/pulumi/provider.go@v3.272.0), so a real "
                "`pulumi preview` fails on it")


#: Why a v1 manifest that does not decode is an error: the program sends it to the provider's decode invoke.
_V1_DECODE_RULE = ("A v1 ConfigFile or ConfigGroup sends each manifest's text to the provider's kubernetes:yaml:decode "
                   "invoke while the program runs, and the provider decodes each document into an object and fails "
                   "on one that does not decode (pulumi/pulumi-kubernetes provider/pkg/provider/invoke_decode_yaml.go@v4.32.0, "
                   "decodeYaml); a failed invoke raises in the program (\"invoke of kubernetes:yaml:decode failed\", "
                   "pulumi/pulumi sdk/python/lib/pulumi/runtime/invoke.py@v3.272.0, awaited by _invoke_yaml_decode_async in "
                   "pulumi/pulumi-kubernetes sdk/python/pulumi_kubernetes/yaml/yaml.py@v4.34.2), so "
                   "a real `pulumi preview` fails on it")


def v1_decode_problem(text: str, name: str, syntax_problem: Callable[[Exception, str], str] | None = None) -> str | None:
    """Why the provider's ``kubernetes:yaml:decode`` invoke fails on the v1 manifest ``text`` (named ``name``: its
    path, or ``yaml[i]``), so that a real preview fails: it is no YAML (the place and cause as ``syntax_problem``
    words them, see :func:`expand_yaml`), or a document is a list or a scalar, which does not decode into an object;
    with the rule and its sources. None when it decodes (a mapping without ``apiVersion`` or ``kind`` decodes: the
    invoke skips it)."""
    try:
        docs = list(load_all_bounded(text))
    except yaml.YAMLError as e:
        return f"{_syntax(e, name, syntax_problem, text)}. {_V1_DECODE_RULE}"
    for i, doc in enumerate(docs):
        if doc is not None and not isinstance(doc, dict):
            what = "a list" if isinstance(doc, list) else f"the scalar {str(doc)[:60]!r}"
            return (f"{document_place(name, i)} is {what}, not an object: every document of a manifest is one "
                    f"Kubernetes object (a mapping with apiVersion and kind). {_V1_DECODE_RULE}")
    return None


def placed_api_problem(message: str, texts: Sequence[tuple[str, str]]) -> tuple[int, str] | None:
    """``(i, "<name> document <n> (line <l>): <message>")`` (:func:`.manifest_api.document_place`) for the first of
    ``texts`` (``(name, text)`` pairs, the manifests a v1 component decoded) whose first object refused by
    :mod:`.manifest_api` is refused with ``message`` (:func:`.manifest_api.api_problem`'s, of an object as the program
    registers it); None when none is (a v1 transformation made the object so)."""
    for i, (name, text) in enumerate(texts):
        try:
            found = find_api_problem(text)
        except yaml.YAMLError:
            continue
        if found is not None and found[3] == message:
            index, line, _, _ = found
            return i, f"{document_place(name, index, line)}: {message}"
    return None


def _api_problem_in(found: Sequence[Any], text: str, name: str) -> str | None:
    """The message of the first object of ``found`` (decoded from ``text``) whose kind or API version no API server
    serves, placed in ``name`` by document and line (:func:`.manifest_api.first_api_problem`); None when none is."""
    if not any(isinstance(o, dict) and api_problem(o) is not None for o in found):
        return None  # read again only to place a problem
    problem = first_api_problem(text, name)
    return problem[1] if problem is not None else None


def _syntax(err: Exception, name: str, syntax_problem: Callable[[Exception, str], str] | None, text: str = "") -> str:
    """What is wrong with the YAML ``name`` (whose ``text`` it is): ``syntax_problem``'s words
    (``<name>:<line>:<column>: ...``) for a YAML error when the caller gives one, else ``<name>: <the error's first
    line>``; a tab where the error is found is named as the cause (YAML indents with spaces only: YAML 1.2.2, 6.1
    Indentation Spaces, https://yaml.org/spec/1.2.2/#61-indentation-spaces)."""
    if isinstance(err, yaml.YAMLError) and syntax_problem is not None:
        return with_tab_cause(syntax_problem(err, name), err, text)
    if isinstance(err, UnicodeDecodeError):
        return f"{name}: is not UTF-8 text ({_first_line(err)}); save it as UTF-8"
    return f"{name}: {_first_line(err)}"


def _shown_path(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is below it, else as it is."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _unreadable_message(name: str, path: Path, err: OSError, base: Path) -> str:
    """The error for a v2 manifest that is there but cannot be read: the value, why (what it is, when it is no regular
    file: :func:`gpu_node_pool.sdk.files.open_input`), the rule and its source, the fix."""
    if isinstance(err, NotRegularFileError):
        return (f"{name!r} ({path}) {err.strerror}. The provider reads each manifest whole when it expands the "
                f"component at preview (Go's os.ReadFile, {_V2_SOURCE}), which waits on a FIFO or a device until it "
                "ends and fails on a directory or a socket, so a real `pulumi preview` hangs or fails on it. Give the "
                f"path of the manifest's regular file, relative to {RUN_DIR_WORDS} ({base})")
    return (f"{name!r} cannot be read ({path}): {err.strerror}: the provider reads each manifest when it expands the "
            f"component at preview and fails on one it cannot read ({_V2_SOURCE}), so a real `pulumi preview` fails on "
            f"it. Make it a regular file the user who runs pulumi can read, relative to {RUN_DIR_WORDS} ({base})")


def _missing_file_message(pattern: str, base: Path) -> str:
    """The error for a v2 path that names no file: the value, the rule and its source, and the fix."""
    path = Path(pattern) if Path(pattern).is_absolute() else base / pattern
    what = "is a directory, not a file" if path.is_dir() else "names no file"
    near = similar_path(base, pattern, Path.is_file)
    return (f"{pattern!r} {what} ({path})" + (f"; did you mean {near!r}?" if near else "") +
            f": the provider reads each path that is no glob pattern when it expands the component at preview, "
            f"relative to {RUN_DIR_WORDS}, and fails on one it cannot read ({_V2_SOURCE}), "
            f"so a real `pulumi preview` fails on it. Give the manifest's path relative to {RUN_DIR_WORDS} ({base})")


def _bad_glob_message(pattern: str, problem: str) -> str:
    """The error for a v2 ``files`` entry that is a malformed glob pattern: the value, the rule and its source, the fix."""
    return (f"{pattern!r} is a malformed glob pattern ({problem}): the provider expands each path holding an unescaped "
            f"*, ? or [ with Go's filepath.Glob, which fails with \"syntax error in pattern\" ({_GLOB_SOURCE}), so a "
            "real `pulumi preview` fails on it. Close the character class ([a-z]), or escape a literal *, ? or [ "
            "with a backslash (\\[)")


def go_glob_error(pattern: str) -> str | None:
    """Why Go's ``filepath.Glob`` refuses ``pattern`` with ``ErrBadPattern`` on Linux, or None when it is well formed.

    Go checks the whole pattern before it reads a directory (``Match(pattern, "")``), chunk by chunk
    (golang/go ``src/path/filepath/match.go``, ``scanChunk``/``matchChunk``/``getEsc``, Go 1.16+): a ``\\`` must
    escape a character; a ``[`` class needs at least one range and its ``]``; a range's ends may not be ``-`` or
    ``]`` unescaped, nor missing. Returns a short reason naming the offending part.
    """
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                return "a trailing backslash escapes nothing"
            i += 2
        elif c == "[":
            start = i
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            ranges = 0
            while True:
                if i < n and pattern[i] == "]" and ranges > 0:
                    i += 1
                    break
                i, bad = _class_char(pattern, i)
                if bad:
                    return f"the character class at {pattern[start:]!r} {bad}"
                if pattern[i] == "-":
                    i, bad = _class_char(pattern, i + 1)
                    if bad:
                        return f"the character class at {pattern[start:]!r} {bad}"
                ranges += 1
        else:
            i += 1
    return None


def _class_char(pattern: str, i: int) -> tuple[int, str]:
    """Go's ``getEsc`` at ``pattern[i]``: the index after one (possibly escaped) class character, and why it is
    malformed ("" when it is not); like Go, a character that ends the pattern is malformed (no closing ``]``)."""
    n = len(pattern)
    if i >= n:
        return i, "is never closed with ]"
    if pattern[i] in "-]":
        return i, f"has {pattern[i]!r} where a character is expected (escape it: \\{pattern[i]})"
    if pattern[i] == "\\":
        i += 1
        if i >= n:
            return i, "is never closed with ]"
    i += 1
    return i, "" if i < n else "is never closed with ]"


def _expand(pattern: str, base: Path, *, single: bool) -> list[Path]:
    """The paths ``pattern`` names (relative to ``base``): itself, or a glob's matches, sorted; directories and
    nothing left out. Whatever else is there (a FIFO, a device) is kept, for the reader to refuse."""
    path = Path(pattern) if Path(pattern).is_absolute() else base / pattern
    if single or not glob.has_magic(pattern):
        return [path] if _is_there(path) else []
    return [Path(p) for p in sorted(glob.glob(str(path))) if _is_there(Path(p))]


def _is_there(path: Path) -> bool:
    """Something that is no directory is at ``path`` (a symbolic link to nothing is nothing)."""
    return path.exists() and not path.is_dir()


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
