"""The child side of ``gpupool check`` in the project's own interpreter: record the program, write JSON.

``gpupool check`` always runs the program in a child process: of the Python ``Pulumi.yaml`` names
(``runtime.options.virtualenv``, where its dependencies are installed), of ``--python``, or of
gpupool's own; so the program's ``os._exit``, hang or output never reaches gpupool's process. The parent (:mod:`gpu_node_pool.plan.interpreter`) starts
``<python> -c BOOT REQUEST ANSWER``; this module reads the request, runs the program under the same
Pulumi mocks as the plan (:func:`gpu_node_pool.plan.run.record_program` inside
:func:`gpu_node_pool.plan.expand.offline_yaml`) and writes the answer. The parent expands charts and
YAML and judges, with its own policy pack: the child only records.

Request (JSON object): ``protocol`` (:data:`PROTOCOL`), ``program`` (path of the program file),
``config`` (``{"<ns>:<key>": value}``), ``secrets`` (list of secret keys), ``stack``, ``project``, and ``cwd``
(optional: the directory Pulumi runs the program in, :func:`gpu_node_pool.plan.run.program_run_dir`; the child
changes to it before the program runs, as Pulumi's language host starts the program there).

Answer (JSON object): ``protocol``, ``version`` (the child's gpu-node-pool version), ``prefix`` and
``executable`` (the child's ``sys.prefix`` / ``sys.executable``), and either ``configIssues``
(``[{"path", "message", "location"?}]``: the program raised, or its config is wrong, ``location`` the
program's line that constructed a component which refused its arguments; exit 2 in the parent) with
``configSource`` (what was wrong: ``config of stack 'dev'`` for the stack config a program read, else the
program or the component, ``GpuNodePool 'vision'``), or ``resources`` (each
:class:`~gpu_node_pool.sdk.record.Resource` as a dict of its fields,
:meth:`~gpu_node_pool.sdk.record.Resource.to_json`: a Pulumi asset or archive in its inputs as Pulumi's wire form,
so the parent reads a ``valueYamlFiles`` ``FileAsset``'s path and a ``StringAsset``'s text), ``notJudged``
(``[{"resource", "type", "reason", "fix", "input"?}]``: remote v1 manifests, v1 YAML the mocks' decode refuses; with
``input``, a v1 manifest a real preview fails on, an error at that input of the component, ``reason`` its message:
:meth:`gpu_node_pool.expand.result.NotJudged.refused`, :class:`gpu_node_pool.plan.v1_manifests.V1Manifests`) and
``warnings``
(``[{"component", "path", "message"}]``: the config warnings of the program's ``GpuNodePool`` s) and ``pools``
(each ``GpuNodePool`` the program registered, in registration order, named after its component:
:meth:`gpu_node_pool.plan.registered.RegisteredPool.to_json`); in either case
``programLog`` (``[{"severity", "message", "resource"?}]``: what the program logged with ``pulumi.log``, already
shown on the child's stderr, :func:`gpu_node_pool.sdk.program_log.collecting`).
A bug of this package in the child is not answered: the child exits non-zero with its traceback.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["BOOT", "PROTOCOL", "answer", "main", "record_here"]

#: Version of the request/answer shapes above; the parent refuses an answer of another version.
PROTOCOL = 7
#: Exit code of :data:`BOOT` when ``gpu_node_pool`` (or what it imports) is not importable in the child.
NOT_IMPORTABLE = 3
#: What the parent passes to ``python -c``: import this module, or say on stderr which module is missing.
BOOT = (
    "import sys\n"
    "try:\n"
    "    from gpu_node_pool.plan import check_child\n"
    "except ModuleNotFoundError as err:\n"
    "    sys.stderr.write(f'No module named {err.name!r}\\n')\n"
    f"    sys.exit({NOT_IMPORTABLE})\n"
    "sys.exit(check_child.main(sys.argv[1:]))\n"
)


def record_here(program: Path, config: dict[str, Any], secrets: list[str], stack: str, project: str,
                pools: list[Any] | None = None) -> tuple[list[Any], list[Any], list[tuple[str, Any]]]:
    """``(resources, not-judged items, (component, config warning) pairs)`` of ``program`` run under the plan's
    mocks in this process; ``pools``, if given, receives the pool model of each ``GpuNodePool`` it registered, in
    registration order, named after its component (as the plan's ``pool_models``).

    Raises:
        ConfigError: the program raised, exited or compiled badly (one line: :func:`.run.program_issue`),
            or its config is wrong. A bug of gpu-node-pool re-raises as it is.
    """
    import pulumi

    from ..config import ConfigError, ConfigIssue
    from .expand import offline_yaml
    from .run import DuplicateUrnError, _registered_pools, program_issue, record_program

    def failure(err: BaseException) -> ConfigError:
        issue = program_issue(err, program)
        if issue is None:
            raise err
        return ConfigError([issue], str(program))

    warnings: list[tuple[str, Any]] = []
    constructed: dict[str, Any] = {}
    registered: list[Any] = []

    def counted(err: ConfigError) -> ConfigError:
        err.registered = len(registered)  # what the program registered before it: the report's header says so
        return err

    try:
        with offline_yaml() as collected:
            resources, _ = record_program(program, config, secrets, stack=stack, project=project, warnings=warnings,
                                          pools=constructed, sink=registered)
    except DuplicateUrnError as err:
        raise counted(ConfigError([ConfigIssue(str(program), str(err))], str(program))) from None
    except ConfigError as err:  # a component the program constructs refused its arguments
        raise counted(in_program(err, err, program)) from None
    except pulumi.RunError as err:
        if isinstance(err.__cause__, ConfigError):
            raise counted(in_program(err.__cause__, err, program)) from None
        raise counted(failure(err)) from None
    except Exception as err:  # noqa: BLE001 - the user's program failing is invalid input, not our bug
        raise counted(failure(err)) from None
    if pools is not None:
        pools += _registered_pools(resources, constructed)
    return resources, collected, warnings


def in_program(err: Any, raised: BaseException, program: Path) -> Any:
    """``err`` (a component's :class:`~gpu_node_pool.config.ConfigError`, ``GpuNodePool 'vision'``, or its
    arguments', ``NvidiaDevicePluginArgs``) with each issue placed at the program's line that constructed the
    component (the innermost frame of ``raised``'s tracebacks in the program's directory; absolute file, made
    relative by the parent) and its path prefixed with the component, so the report reads
    ``__main__.py:12:5: GpuNodePool 'vision' pool.taints[0]: ...``. Unchanged when no frame is the program's
    or the error is about the stack config the program read
    (:data:`gpu_node_pool.component.program.STACK_CONFIG_SOURCE`)."""
    import traceback

    from ..component.program import STACK_CONFIG_SOURCE
    from ..config import ConfigError
    from ..config.errors import Location

    if err.source.startswith(STACK_CONFIG_SOURCE):  # the stack config the program read: placed in the stack file
        return err
    home = program.parent.resolve()
    frames = [*traceback.extract_tb(raised.__traceback__)]
    for extra in (raised.__cause__, raised.__context__):
        if extra is not None:
            frames += traceback.extract_tb(extra.__traceback__)
    mine = [f for f in frames if not f.filename.startswith("<") and Path(f.filename).resolve().is_relative_to(home)]
    if not mine or mine[-1].lineno is None:
        return err
    frame = mine[-1]
    where = Location(str(Path(frame.filename).resolve()), frame.lineno, (getattr(frame, "colno", None) or 0) + 1)
    return ConfigError([dataclasses.replace(i, path=f"{err.source} {i.path}".strip(), location=i.location or where)
                        for i in err.issues], err.source)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Run ``request["program"]`` under the mocks in this process (:func:`record_here`); the answer above.

    Raises:
        Exception: a bug of gpu-node-pool (the program's own failures are answered as ``configIssues``).
    """
    from .._version import __version__
    from ..config import ConfigError
    from ..sdk.program_log import collecting
    from .registered import RegisteredPool

    out: dict[str, Any] = {"protocol": PROTOCOL, "version": __version__, "prefix": sys.prefix,
                           "executable": sys.executable}
    pools: list[Any] = []
    try:
        with collecting() as out["programLog"]:
            resources, collected, warnings = record_here(Path(request["program"]), request.get("config") or {},
                                                         request.get("secrets") or [], request["stack"],
                                                         request["project"], pools)
    except ConfigError as err:
        out["configIssues"] = [i.to_json() for i in err.issues]
        out["configSource"] = err.source
        out["registered"] = err.registered
        return out
    out["resources"] = [r.to_json() for r in resources]
    out["notJudged"] = [nj.to_dict() for nj in collected]
    out["warnings"] = [{"component": name, "path": w.path, "message": w.message} for name, w in warnings]
    out["pools"] = [RegisteredPool.of(p).to_json() for p in pools]
    return out


def _quiet_loop_teardown(unraisable: Any, default: Any = sys.unraisablehook) -> None:
    """``sys.unraisablehook`` of the child: the Pulumi SDK leaves its event loop to the garbage
    collector, whose ``BaseEventLoop.__del__`` at interpreter exit can meet an already closed selector
    (``ValueError: Invalid file descriptor: -1``). That is teardown noise after the answer is written,
    not the program's output, so it is not forwarded to the user's stderr; anything else is."""
    obj = getattr(unraisable, "object", None)
    if isinstance(unraisable.exc_value, ValueError) and getattr(obj, "__qualname__", "") == "BaseEventLoop.__del__":
        return
    default(unraisable)


def main(argv: list[str]) -> int:
    """``REQUEST ANSWER``: read the request file, write the answer file (UTF-8 JSON); 0 when answered."""
    sys.unraisablehook = _quiet_loop_teardown
    request_path, answer_path = argv
    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    if request.get("protocol") != PROTOCOL:
        sys.stderr.write(f"gpupool check: request protocol {request.get('protocol')!r}, this child speaks {PROTOCOL}\n")
        return 2
    if request.get("cwd"):  # relative paths of the program (open(), FileAsset) as under `pulumi preview`
        os.chdir(request["cwd"])
    Path(answer_path).write_text(json.dumps(answer(request), default=str), encoding="utf-8")
    return 0


def in_program_placed(err: Any, raised: BaseException, program: Path, project: Path) -> Any:
    """``err`` of a component the program constructed, each issue placed at the program's line that constructed it
    (:func:`in_program`) with its file relative to ``project``, as ``gpupool check`` places it; an error
    about the stack config the program read is returned unchanged (the stack file places it)."""
    from ..config import ConfigError
    from ..config.errors import Location

    placed = in_program(err, raised, program)
    if placed is err:
        return err

    def relative(where: Location | None) -> Location | None:
        if where is None:
            return None
        try:
            return Location(Path(where.file).resolve().relative_to(project.resolve()).as_posix(), where.line, where.column)
        except ValueError:
            return where

    return ConfigError([dataclasses.replace(i, location=relative(i.location)) for i in placed.issues], placed.source,
                       placed.registered)
