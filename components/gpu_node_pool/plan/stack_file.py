"""A project's stack file read for the plan: its runtime config, and where each of its keys is.

:func:`read_stack` reads ``<stackConfigDir>/Pulumi.<stack>.yaml`` (the directory from ``Pulumi.yaml``,
as the Pulumi CLI does) and keeps the ``line:column`` of every key under ``config:``, so that every
config error, warning and finding about a pool names the place in the file
(:class:`gpu_node_pool.config.locations.FileMarks`: the node tree the config was read from, walked
when a place is first asked for). The stack file and ``Pulumi.yaml`` are read through
:func:`gpu_node_pool.sdk.files.open_input` only (regular files; a FIFO in their place is refused, never waited on).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..config import PROJECT, ConfigError, ConfigIssue
from ..config.errors import Location
from ..config.pulumi_yaml import load_pulumi_yaml
from ..k8s.wellknown import GPU_NODE_POOL_TYPE
from ..sdk.files import NotRegularFileError, open_input
from ..sdk.yaml_bounded import AliasExpansionError, TagValueError, with_tab_cause
from ..text.suggest import closest

__all__ = ["EMPTY_PROJECT_FILE", "StackFile", "missing_program_issue", "read_project_file", "read_stack", "read_stack_path", "locate_findings"]

#: Where Pulumi's project file reference defines ``main`` (the program's path relative to ``Pulumi.yaml``).
PROJECT_FILE_DOCS = "https://www.pulumi.com/docs/iac/concepts/projects/project-file/"


def read_project_file(project_dir: Path) -> dict[str, Any]:
    """``Pulumi.yaml`` of the project in ``project_dir``, checked for what gpupool reads of it: a mapping
    whose ``name`` (if given) is a non-empty string and whose ``stackConfigDir`` (if given) is a string
    (Pulumi's project schema, https://www.pulumi.com/docs/iac/concepts/projects/project-file/); a
    ``config:`` string, the old spelling of ``stackConfigDir``, is returned as ``stackConfigDir``.

    Raises:
        ConfigError: the file is empty (:data:`EMPTY_PROJECT_FILE`: what it needs), not YAML (with its
            ``line:column``, and a tab there named as the cause), not a mapping, or one of those keys has another
            type; the issue names the key, the value and the fix.
    """
    source = "Pulumi.yaml"
    text = ""
    try:
        text = _read_project_text(project_dir)
        doc = load_pulumi_yaml(text)
    except AliasExpansionError as err:
        raise ConfigError([ConfigIssue(source, f"line {err.line}: {err.message}", Location(source, err.line, 1))],
                          source) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = Location(source, mark.line + 1, mark.column + 1) if mark is not None else None
        raise ConfigError([ConfigIssue(source, _syntax_message(err, text), where)], source) from None
    except UnicodeDecodeError:
        raise ConfigError([ConfigIssue(source, "is not UTF-8; save it as UTF-8")], source) from None
    if doc is None:
        raise ConfigError([ConfigIssue(source, EMPTY_PROJECT_FILE, Location(source, 1, 1))], source)
    if not isinstance(doc, dict):
        raise ConfigError([ConfigIssue(source, "must be a YAML mapping with name: and runtime:")], source)
    problems = []
    name = doc.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        problems.append(ConfigIssue(f"{source}: name", f"{name!r} must be the project's name, a non-empty string"))
    config_dir = doc.get("stackConfigDir")
    if config_dir is not None and (not isinstance(config_dir, str) or not config_dir.strip()):
        problems.append(ConfigIssue(f"{source}: stackConfigDir", f"{config_dir!r} must be a directory path, e.g. stacks"))
    if isinstance(doc.get("config"), str):  # the old spelling of stackConfigDir, which pulumi/pulumi sdk/go/common/workspace/project.go moves there
        if config_dir is not None:
            problems.append(ConfigIssue(f"{source}: config", "must not be a directory when stackConfigDir is given: "
                                        "use only stackConfigDir"))
        else:
            doc = {**doc, "stackConfigDir": doc["config"], "config": None}
    if problems:
        raise ConfigError(problems, source)
    return doc


#: What an empty ``Pulumi.yaml`` (no text, or only comments) is told: the Pulumi CLI refuses such a project, as its
#: schema requires ``name`` and ``runtime`` (pulumi/pulumi sdk/go/common/workspace/project.json, ``required``).
EMPTY_PROJECT_FILE = (
    "is empty: a Pulumi project file needs at least name: <project> and runtime: python (pulumi/pulumi "
    "sdk/go/common/workspace/project.json requires both, and the Pulumi CLI refuses the project without them); write "
    f"them, e.g. 'name: gpu-pools' and 'runtime: python' on two lines ({PROJECT_FILE_DOCS})")
#: Why a tab where YAML found an error is the cause (YAML 1.2.2, 6.1 Indentation Spaces).


def _syntax_message(err: yaml.YAMLError, text: str) -> str:
    """What is wrong with ``Pulumi.yaml`` (whose ``text`` it is) as YAML: a bad explicit tag's own words, else
    :func:`gpu_node_pool.config.yaml_errors.yaml_syntax_problem`'s ``is not valid YAML: <problem> (<context>); fix the
    syntax there`` (PyYAML's own problem for what that function words in a stack file's terms), with a tab where the
    error is found named as its cause."""
    from ..config.yaml_errors import yaml_syntax_problem

    problem = str(getattr(err, "problem", "") or err).splitlines()[0]
    if isinstance(err, TagValueError):
        return problem
    _, message = yaml_syntax_problem(err, "Pulumi.yaml")
    if not message.startswith("is not valid YAML"):  # said of a stack file, which Pulumi.yaml is not
        message = f"is not valid YAML: {problem}; fix the syntax there"
    return with_tab_cause(message, err, text)


def _read_project_text(project_dir: Path) -> str:
    """The text of the project's ``Pulumi.yaml``, opened by :func:`gpu_node_pool.sdk.files.open_input` (regular files
    only: the file opened is the one judged, so a FIFO put in its place is refused at once, never waited on).

    Raises:
        NotRegularFileError: it is a directory, FIFO, socket or device (the message names it and the fix).
        OSError: it cannot be opened or read. UnicodeDecodeError: it is not UTF-8.
    """
    with open_input(project_dir / "Pulumi.yaml", fix="make Pulumi.yaml the project's YAML file (name:, runtime:), "
                    "as https://www.pulumi.com/docs/iac/concepts/projects/project-file/ describes it") as fh:
        return fh.read().decode("utf-8")


def _top_key_location(project_dir: Path, key: str) -> Location | None:
    """Where the top-level ``key:`` of the project's ``Pulumi.yaml`` is (``Pulumi.yaml:<line>:<column>``), or None."""
    try:
        node = yaml.compose(_read_project_text(project_dir), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    for name, _ in node.value:
        if isinstance(name, yaml.ScalarNode) and name.value == key:
            return Location("Pulumi.yaml", name.start_mark.line + 1, name.start_mark.column + 1)
    return None


def _near_program(project_dir: Path, main: str) -> str | None:
    """The entry beside the path ``main`` names (a directory, shown ``src/``, or a ``.py`` file) whose name is
    nearest to it, as ``main:`` would be written; None when none is near
    (:func:`~gpu_node_pool.text.suggest.closest`)."""
    written = Path(main)
    parent = project_dir / written.parent
    try:
        entries = {e.name + ("/" if e.is_dir() else ""): e for e in parent.iterdir()
                   if not e.name.startswith((".", "__pycache__")) and (e.is_dir() or e.suffix == ".py")}
    except OSError:
        return None
    wanted = written.name + ("/" if main.endswith("/") else "")
    near = closest(wanted, entries) or closest(written.name, [n.rstrip("/") for n in entries])
    if not near:
        return None
    name = near if near in entries else near + "/"
    return (written.parent / name).as_posix().removeprefix("./") + ("/" if name.endswith("/") else "")


def missing_program_issue(project_dir: Path, main: Any, program: Path) -> ConfigIssue:
    """The issue of a ``Pulumi.yaml`` whose ``main`` (None: not given) names no program file ``program``: path
    ``main``, at the ``main:`` line of ``Pulumi.yaml`` (None when ``main`` is not given), naming what is missing, the
    entry of a near name (``main: sr`` -> ``src/``) and the fix. Pulumi refuses such a project too ("project 'main'
    could not be read"); ``main`` is the program's file or directory relative to ``Pulumi.yaml``
    (:data:`PROJECT_FILE_DOCS`)."""
    if not main:
        return ConfigIssue("main", f"no program at {program}: a Python project without main: runs __main__.py of the "
                                   f"project directory; add it there, or write main: as the program file or its "
                                   f"directory ({PROJECT_FILE_DOCS})")
    target = project_dir / str(main)
    if target.is_dir():
        what = f"the directory {target} holds no __main__.py, the program Pulumi runs there"
    elif not os.path.lexists(target):
        what = f"there is no file or directory {target}"
        near = _near_program(project_dir, str(main))
        if near is not None:
            what += f"; did you mean main: {near}?"
    else:
        what = f"{target} is not a regular file"
    return ConfigIssue("main", f"{str(main)!r} names no program ({what}); write main: as the program file or its "
                               f"directory, relative to Pulumi.yaml, or remove it for __main__.py ({PROJECT_FILE_DOCS})",
                       _top_key_location(project_dir, "main"))


@dataclass
class StackFile:
    """A stack file read: ``config`` (runtime form, ``{"gpu-node-pools:pools": "<json>"}``), the
    ``secrets`` keys, its ``path``, ``file`` (relative to the project directory, POSIX), the
    project's name and the ``marks`` of its keys."""

    path: Path
    file: str
    project: str
    config: dict[str, Any] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)
    marks: Mapping[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict)
    #: The config keys (``"<ns>:<key>"``) whose value came from ``Pulumi.yaml``'s ``config:``, not this file.
    from_project: frozenset[str] = frozenset()
    #: The project directory (``Pulumi.yaml``'s), which program places are written relative to; None: ``path``'s.
    project_dir: Path | None = None

    def locate(self, issues: Iterable[ConfigIssue]) -> list[ConfigIssue]:
        """``issues`` each with the :class:`Location` of its path in this file; one about a key whose value came
        from ``Pulumi.yaml`` is said to be there instead (``Pulumi.yaml: config.<path>``, no line)."""
        from ..config.locations import locate_issues, path_segments

        out = []
        for issue in issues:
            top = path_segments(issue.path)[:1]  # an issue's path is in the component's namespace
            key = (top[0] if ":" in str(top[0]) else f"{PROJECT}:{top[0]}") if top else ""
            if issue.location is None and key in self.from_project:
                out.append(replace(issue, path=f"Pulumi.yaml: config.{issue.path.removeprefix(PROJECT + ':')}"))
            else:
                out += locate_issues([issue], self.marks, self.file)
        return out

    def pool_location(self, index: int) -> Location | None:
        """Where ``pools[index]`` starts in this file (its ``- name:`` item), or None."""
        found = self.marks.get(("pools", index))
        return Location(self.file, *found) if found is not None else None


def read_stack(project_dir: Path, stack: str) -> StackFile:
    """Read ``Pulumi.<stack>.yaml`` of the project in ``project_dir``, with what the ``config:`` block of its
    ``Pulumi.yaml`` gives the keys it does not set (:mod:`.project_config`, as the Pulumi CLI merges them).

    The file is read through :func:`gpu_node_pool.sdk.files.open_input`: what is opened is what is judged, so a
    FIFO, device or directory in its place, even one swapped in a moment before, is refused at once, never waited on.

    Raises:
        FileNotFoundError: there is no such stack file, it is a directory, or a symbolic link to nothing (the
            message lists the stacks there).
        NotRegularFileError: it is a FIFO, socket or device (option ``--stack``; the message says what it is, that
            nothing was read, and lists the stacks there).
        ConfigError: the file is not a stack file :func:`gpu_node_pool.config.loading.read_stack_file`
            accepts (each issue carries its :class:`Location`), or it leaves out a key ``Pulumi.yaml`` requires,
            sets a key declared secret in plain text, or ``Pulumi.yaml``'s ``config:`` is malformed.
    """
    project = read_project_file(project_dir)
    config_dir = project_dir / project.get("stackConfigDir", ".")
    path = config_dir / f"Pulumi.{stack}.yaml"

    def here() -> str:
        available = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in config_dir.glob("Pulumi.*.yaml")
                           if p.is_file())
        return f"stacks here: {', '.join(available) or 'none'}"

    try:
        data = _read_stack_bytes(path, "--stack", f"the stack file of --stack {stack} must be a regular YAML file: "
                                 "put the stack's config there, or give another stack")
    except (NotRegularFileError, IsADirectoryError) as err:
        if isinstance(err, IsADirectoryError) or str(err.strerror).startswith("is a directory"):
            raise FileNotFoundError(f"{path} is a directory, not a stack file; {here()}") from None
        raise NotRegularFileError(err.errno, f"{err.strerror} ({here()})", str(err.filename), "--stack") from None
    except FileNotFoundError:
        what = (f"{path} is a symbolic link to nothing (a broken symbolic link), not a stack file"
                if os.path.lexists(path) else f"no stack file {path}")
        raise FileNotFoundError(f"{what}; {here()}") from None
    return _stack_from_bytes(project_dir, path, data, project)


def _read_stack_bytes(path: Path, option: str | None, fix: str) -> bytes:
    """The bytes of the stack file at ``path``, opened by :func:`gpu_node_pool.sdk.files.open_input` (regular files
    only; ``option`` and ``fix`` are for its refusal). Raises as ``open_input``."""
    with open_input(path, option, fix) as fh:
        return fh.read()


def read_stack_path(project_dir: Path, path: Path, project: Mapping[str, Any] | None = None) -> StackFile:
    """Read the stack file at ``path`` (``Pulumi.<stack>.yaml``) of the project in ``project_dir``, whose
    ``Pulumi.yaml`` read is ``project`` (default: read here): its ``name:`` is the namespace of keys written
    without one, and its ``config:`` block gives what the file leaves out. The file is read as :func:`read_stack`
    reads it (regular files only). Raises as :func:`read_stack`; a missing file raises ``FileNotFoundError`` with
    the path as ``filename``."""
    if project is None:
        project = read_project_file(project_dir)
    data = _read_stack_bytes(path, None, "give the path of a Pulumi.<stack>.yaml")
    return _stack_from_bytes(project_dir, path, data, project)


def _stack_from_bytes(project_dir: Path, path: Path, data: bytes, project: Mapping[str, Any]) -> StackFile:
    """The stack file at ``path`` read from ``data``, its bytes, as :func:`read_stack_path` says."""
    name = str(project.get("name") or PROJECT)
    from ..config.loading import read_stack_file  # the config is loaded when a stack is read, not at import
    from ..config.locations import FileMarks

    try:
        file = path.resolve().relative_to(project_dir.resolve()).as_posix()
    except ValueError:  # a stackConfigDir outside the project
        file = path.resolve().as_posix()
    out = StackFile(path=path, file=file, project=name, marks=FileMarks(name), project_dir=project_dir)
    try:
        out.config, out.secrets = read_stack_file(data, path.name, name, file=file, marks=out.marks)
    except ConfigError as err:
        raise ConfigError(out.locate(err.issues), err.source) from None
    from .project_config import apply_project_config

    stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    out.from_project = frozenset(apply_project_config(out.config, out.secrets, project, name, stack))
    return out


def unread_by_pulumi(found: StackFile, project_dir: Path, project: Mapping[str, Any] | None = None) -> ConfigIssue | None:
    """A warning when the Pulumi CLI would never read ``found`` as a stack's config, else None: it reads a stack's
    settings only from ``<stackConfigDir>/Pulumi.<stack>.yaml`` beside the project's ``Pulumi.yaml``
    (pulumi/pulumi ``sdk/go/common/workspace/paths.go`` ``DetectProjectStackPath``), so a file of another name
    (``dev.yaml``, ``Pulumi.dev.yml``) or in another directory configures nothing. ``project``: the project's
    ``Pulumi.yaml`` read (default: read here)."""
    if project is None:
        project = read_project_file(project_dir)
    config_dir = (project_dir / project.get("stackConfigDir", ".")).resolve()
    name = found.path.name
    stack = name[len("Pulumi."):-len(".yaml")] if name.startswith("Pulumi.") and name.endswith(".yaml") else ""
    here = found.path.resolve().parent
    if stack and here == config_dir:
        return None
    shown = config_dir.relative_to(project_dir.resolve()).as_posix() if config_dir.is_relative_to(project_dir.resolve()) \
        else config_dir.as_posix()
    guess = stack or Path(name.removeprefix("Pulumi.")).stem or "<stack>"  # dev.yaml, Pulumi.dev.yml -> dev
    expected = f"{shown}/Pulumi.{guess}.yaml".removeprefix("./")
    why = ("its name is not Pulumi.<stack>.yaml" if not stack else
           f"it is not in the project's stack directory ({shown or '.'}, stackConfigDir of Pulumi.yaml)")
    return ConfigIssue(found.file, f"pulumi never reads this file as a stack's config: {why} (the Pulumi CLI reads "
                                   f"<stackConfigDir>/Pulumi.<stack>.yaml, pulumi/pulumi "
                                   f"sdk/go/common/workspace/paths.go DetectProjectStackPath); move it to {expected}",
                       Location(found.file, 1, 1))


def locate_findings(violations: list[dict[str, Any]], resources: Iterable[Any], pools: list[str],
                    stack_file: StackFile, not_judged: Iterable[dict[str, Any]] = ()) -> None:
    """Give each finding and each not-judged item its ``location``: one about a declared pool the place of that pool
    in the stack file; any other about a resource the program line that constructed it (or its nearest ancestor the
    program constructed), as ``gpupool check`` places its findings and items (:func:`.locate.locate_in_program`).

    A finding is about pool ``pools[i]`` when its ``urn`` (an item: its ``resource``, a URN) is the pool's
    ``GpuNodePool`` component or a resource under it (the parent chain of the recorded ``resources``); ``pools``
    are the pool names in the stack config's order, ``""`` for a pool the program built no ``GpuNodePool`` from
    (a component of the program's own with that name is placed in the program). Sets ``entry["location"] = {"file", "line", "column"}``,
    ``file`` relative to the project directory (``stack_file.project_dir``); a stack-level one keeps none.
    """
    from types import SimpleNamespace

    from .locate import locate_in_program

    resources, not_judged = list(resources), list(not_judged)
    by_urn = {r.urn: r for r in resources if getattr(r, "urn", "")}
    index = {name: i for i, name in enumerate(pools)}
    entries = [(v, v.get("urn", "")) for v in violations] + [(i, i.get("resource", "")) for i in not_judged]
    for entry, urn in entries:
        res, seen = by_urn.get(urn), 0
        while res is not None and res.type != GPU_NODE_POOL_TYPE and seen < 100:  # a parent chain, bounded
            res, seen = by_urn.get(res.parent), seen + 1
        if res is None or res.type != GPU_NODE_POOL_TYPE or res.name not in index:
            continue
        where = stack_file.pool_location(index[res.name])
        if where is not None:
            entry["location"] = where.to_json()
    project = stack_file.project_dir if stack_file.project_dir is not None else stack_file.path.parent
    locate_in_program(SimpleNamespace(resources=resources, violations=violations, not_judged=not_judged), project)
