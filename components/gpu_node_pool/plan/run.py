"""Offline plan, the run: the real program under Pulumi mocks, record every resource, report.

``gpupool plan --stack dev`` loads ``stacks/Pulumi.dev.yaml``, validates it, runs the
project's ``__main__.py`` with ``pulumi.runtime.set_mocks`` in preview mode (outputs the
cloud would compute stay unknown), records each registered resource with its inputs, and
reads taints, labels, tags and tolerations *back from those inputs* with the same readers
the policies use. No cloud API and no Kubernetes API is called.

Exit codes (:meth:`PlanResult.exit_code_at`, by :func:`gpu_node_pool.sdk.outcome.exit_code`): 0 clean,
1 a finding at or above ``--fail-on`` (default: a mandatory policy failed, or the device plugin
misses a pool taint), 2 the stack config is invalid.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import runpy
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import backends
from ..config import PROJECT, ConfigError, ConfigIssue
from ..k8s.wellknown import DAEMONSET, GPU_NODE_POOL_TYPE, HELM_CHART_V4, SECRET, UNKNOWN
from ..sdk.outcome import exit_code
from ..sdk.record import Resource as Recorded
from . import expand as expansion
from .locate import split_by_resource
from .plain import plain, plain_record
from .program_errors import DuplicateUrnError, ProgramError, ProgramExit, duplicate_urns, placed_issue, program_issue
from .stack_file import StackFile, locate_findings, missing_program_issue, read_project_file, read_stack

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["DuplicateUrnError", "Recorded", "PlanResult", "finding_levels", "ProgramError", "ProgramExit", "program_issue", "find_project", "program_run_dir", "load_stack_file", "record_program", "record", "plan_stack"]

#: What the offline plan's mocks answer for an SSM AMI parameter (no AWS call is made).
FAKE_AMI_ID = "ami-0123456789abcdef0"


def finding_levels(violations: list[dict[str, Any]], coverage: list[dict[str, Any]]) -> list[str]:
    """The level of every finding of a plan or check: each violation's ``enforcement``
    (``advisory``, ``mandatory``, ``remediate``) and ``mandatory`` for each pool taint the device
    plugin does not tolerate (``coverage``: ``[{"pool", "taint", "tolerated": bool}]``)."""
    return [str(v.get("enforcement")) for v in violations] + ["mandatory" for c in coverage if not c["tolerated"]]


@dataclass
class PlanResult:
    """What a plan found; :meth:`exit_code_at` is the exit code it gives under ``--fail-on``."""

    stack: str
    resources: list[Recorded] = field(default_factory=list)
    config: StackConfig | None = None
    config_issues: list[ConfigIssue] = field(default_factory=list)
    config_source: str = ""
    #: How many resources the program registered before a config error it raised (0: none, or no such error).
    registered_before_error: int = 0
    pools: list[dict[str, Any]] = field(default_factory=list)
    device_plugin: dict[str, Any] | None = None
    violations: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    #: Valid but risky config (:func:`gpu_node_pool.config.stack_warnings`); never changes the exit code.
    warnings: list[ConfigIssue] = field(default_factory=list)
    not_judged: list[dict[str, str]] = field(default_factory=list)  # from plan/expand.py
    #: The pool model each entry of ``pools`` summarises, in the same order: a ``GpuNodePool`` the program constructed.
    pool_models: list[Any] = field(default_factory=list)
    #: The stack config's pools (``pools[i].name``) no ``GpuNodePool`` of the program was constructed from.
    unregistered: list[str] = field(default_factory=list)
    #: The Kubernetes version (``"1.33"``) Helm rendered the stack's charts with (``helm template --kube-version``,
    #: :func:`gpu_node_pool.plan.expand.chart_kube_version`), which ``gpupool render`` writes in each chart's command;
    #: None when it rendered none (no chart, no Helm, or none reachable offline).
    chart_kube_version: str | None = None

    def exit_code_at(self, fail_on: str = "mandatory") -> int:
        """0 clean, 1 a finding at or above ``fail_on`` (``advisory``, ``mandatory``, ``none``), 2 a config error."""
        coverage = (self.device_plugin or {}).get("coverage", [])
        return exit_code(finding_levels(self.violations, coverage), fail_on, invalid_input=bool(self.config_issues))

    @property
    def exit_code(self) -> int:
        """:meth:`exit_code_at` the default ``--fail-on mandatory``."""
        return self.exit_code_at("mandatory")


def find_project(start: str | os.PathLike[str] | None = None) -> Path:
    """The directory holding ``Pulumi.yaml``, searching upwards from ``start`` (default: cwd).

    Raises:
        NotADirectoryError: ``start`` names a file (``--project-dir README.md``).
        FileNotFoundError: ``start`` does not exist, or no ``Pulumi.yaml`` is found.
    """
    here = Path(start or os.getcwd()).resolve()
    if start is not None and here.exists() and not here.is_dir():
        raise NotADirectoryError(f"{start} is a file, not the project directory; pass the directory holding Pulumi.yaml")
    if start is not None and not here.exists():
        raise FileNotFoundError(f"{start} does not exist; pass the directory holding Pulumi.yaml")
    for d in (here, *here.parents):
        if (d / "Pulumi.yaml").is_file():
            return d
    odd = next((d / "Pulumi.yaml" for d in (here, *here.parents) if (d / "Pulumi.yaml").exists()), None)
    if odd is not None:  # a directory, FIFO or device named Pulumi.yaml: Pulumi reads the project file as a file
        raise FileNotFoundError(f"{odd} is {'a directory' if odd.is_dir() else 'not a regular file'}, not the project "
                                "file; Pulumi.yaml must be a file holding name: and runtime: "
                                "(https://www.pulumi.com/docs/iac/concepts/projects/project-file/)")
    raise FileNotFoundError(f"no Pulumi.yaml in {here} or above; run from the project directory or pass --project-dir")


def program_run_dir(project_dir: Path, main: Any = None) -> tuple[Path, Path]:
    """``(run directory, program file)`` of the project in ``project_dir`` whose ``Pulumi.yaml`` has ``main``.

    The run directory is where Pulumi runs the program and starts its providers, so the directory the
    program's relative paths (chart paths, ``FileAsset`` s, YAML manifest files) are read from: ``project_dir``
    when ``main`` is empty; ``main`` (relative to ``project_dir``, or absolute) when it is a directory, whose
    ``__main__.py`` is the program; else the parent directory of the file ``main`` names, which is the program
    (pulumi/pulumi ``pkg/engine/project.go@v3.259.0``, ``getPwdMain``; the engine passes that ``pwd`` to
    ``plugin.NewContextWithRoot``, ``pkg/engine/deployment.go@v3.259.0``, and plugins start with
    ``cmd.Dir = pwd``, ``sdk/go/common/resource/plugin/plugin.go@v3.259.0``). A ``main`` that does not exist
    gives the paths it names (Pulumi refuses it: "project 'main' could not be read"); the caller checks.
    """
    if not main:
        return project_dir, project_dir / "__main__.py"
    target = project_dir / str(main)
    if target.is_dir():
        return target, target / "__main__.py"
    return target.parent, target


def load_stack_file(project_dir: Path, stack: str) -> tuple[dict[str, Any], list[str], Path]:
    """Read ``<stackConfigDir>/Pulumi.<stack>.yaml``; returns the runtime config, secret keys and path
    (:func:`gpu_node_pool.plan.stack_file.read_stack`, which also keeps where each key is)."""
    found = read_stack(project_dir, stack)
    return found.config, found.secrets, found.path


def _reraise(err: BaseException) -> Any:
    raise err


def record_program(
    program: Path,
    config: Mapping[str, Any],
    secret_keys: list[str] | None = None,
    *,
    stack: str = "dev",
    preview: bool = True,
    sink: list[Recorded] | None = None,
    project: str = PROJECT,
    warnings: list[tuple[str, ConfigIssue]] | None = None,
    pools: dict[str, Any] | None = None,
) -> tuple[list[Recorded], dict[str, Any]]:
    """Run a Pulumi Python program file under mocks and return ``(resources, stack outputs)``;
    ``warnings`` and ``pools``, if given, receive the components' config warnings and the pool models of the
    ``GpuNodePool`` s the program constructed (as :func:`record`).

    Raises whatever the program raises (``pulumi.RunError`` wrapping :class:`ConfigError`
    for a config mistake).
    """
    program_dir = str(program.parent)
    sys.path.insert(0, program_dir)

    def run_program() -> None:
        try:
            runpy.run_path(str(program), run_name="__main__")
        except SystemExit as done:  # sys.exit(N) in the program must not end gpupool with N
            raise ProgramExit(done.code) from done

    from ..sdk.registration_sites import registration_sites

    try:
        with registration_sites(program.parent) as sites:
            resources, outputs = record(
                run_program,
                config,
                secret_keys,
                stack=stack,
                preview=preview,
                sink=sink,
                project=project,
                warnings=warnings,
                pools=pools,
            )
        return [dataclasses.replace(r, source=sites.get((r.type, r.name))) if not r.synthesized else r
                for r in resources], outputs
    except DuplicateUrnError as err:
        err.place(sites, program.parent)
        raise
    finally:
        sys.path.remove(program_dir)


def record(
    program: Any,
    config: Mapping[str, Any] | None = None,
    secret_keys: list[str] | None = None,
    *,
    stack: str = "dev",
    preview: bool = True,
    sink: list[Recorded] | None = None,
    project: str = PROJECT,
    warnings: list[tuple[str, ConfigIssue]] | None = None,
    pools: dict[str, Any] | None = None,
) -> tuple[list[Recorded], dict[str, Any]]:
    """Run ``program()`` (a callable that declares resources) under Pulumi mocks (``project``: the
    project name ``pulumi.get_project()`` and ``pulumi.Config()`` see).

    Returns ``(resources, stack outputs)``: every registered resource in registration
    order with its inputs as plain values (unknowns as :data:`UNKNOWN`). ``sink``, if
    given, receives each resource as it registers, so a caller can see what was registered
    even when the program raises. ``warnings``, if given, receives ``(component name, warning)`` for each
    config warning a ``GpuNodePool`` of the program gave (:func:`gpu_node_pool.gpu_agents.once.run_warnings`).
    ``pools``, if given, receives ``{URN of a GpuNodePool the program constructed: its pool model (spec)}``
    (kept by :func:`_keep_pools`). What the program prints goes to stderr
    (:func:`gpu_node_pool.sdk.program_log.printed_to_stderr`).
    What the program logs with ``pulumi.log`` (info, warning, error) is shown on stderr, labelled as the program's,
    except this package's own messages, which the report gives (:mod:`gpu_node_pool.sdk.program_log`).
    """
    import pulumi
    from pulumi.runtime import stack as rt_stack
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.sync_await import _ensure_event_loop, _sync_await

    from ..sdk.interrupts import raised_from_the_loop
    from ..sdk.mock_stack_traces import without_stack_traces
    from ..sdk.monitor_order import monitor_calls_in_order

    recorded: list[Recorded] = sink if sink is not None else []
    registering = threading.local()

    class _Monitor(MockMonitor):
        # Keeps what the engine would tell a stack policy (URN, parent, dependencies);
        # MockResourceArgs does not carry it. new_resource runs on this same thread.
        def RegisterResource(self, request):
            registering.meta = (
                self.make_urn(request.parent, request.type, request.name),
                request.parent,
                list(request.dependencies),
                {k: list(v.urns) for k, v in request.propertyDependencies.items()},
            )
            return super().RegisterResource(request)

    class _Mocks(pulumi.runtime.Mocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs):
            urn, parent, deps, prop_deps = getattr(registering, "meta", ("", "", [], {}))
            record = Recorded(args.typ, args.name, dict(args.inputs), bool(args.custom), urn, parent, deps, prop_deps)
            recorded.append(record)
            child = _chart_child(record)
            if child is not None:
                recorded.append(child)
            return [f"{args.name}-id", dict(args.inputs)]

        def call(self, args: pulumi.runtime.MockCallArgs):
            if args.token == "aws:ssm/getParameter:getParameter":
                # Self-managed pools resolve their AMI from SSM; offline, any well-formed id will do.
                return {"name": args.args.get("name"), "type": "String", "value": FAKE_AMI_ID}
            return expansion.answer_invoke(args.token, args.args) or {}  # v1 yaml: kubernetes:yaml:decode

    pulumi.runtime.set_all_config(dict(config or {}), list(secret_keys or []))
    # A fresh root stack per run, so several plans can run in one process.
    from pulumi.runtime import settings

    settings.ROOT.set(None)
    mocks = _Mocks()
    with without_stack_traces():  # the root stack registers here; its stack trace would read every frame's source
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=preview, monitor=_Monitor(mocks))
    from ..sdk.program_log import printed_to_stderr, show_program_log

    show_program_log()
    settings.SETTINGS.rpc_manager.clear()
    settings.SETTINGS.outputs.clear()
    kept: list[tuple[str, str, Any]] = []
    if pools is not None:
        pulumi.runtime.register_stack_transformation(_keep_pools(kept))
    monitor_calls_in_order(_ensure_event_loop())  # resources recorded in the program's order, every run
    # What exists before the program (the provider SDKs' modules: hundreds of thousands of
    # objects) is left out of the collector's full passes while the program runs; a 100-pool
    # plan spent about a quarter of its time walking them.
    gc.freeze()
    try:
        # what the program prints goes to stderr: stdout is the report's (one document under --json)
        with printed_to_stderr():
            with without_stack_traces():  # the mock monitor never reads them
                _sync_await(rt_stack.run_pulumi_func(raised_from_the_loop(program)))  # an interrupt: out at once
            if warnings is not None:
                from ..gpu_agents.once import run_warnings

                warnings.extend(run_warnings())
            root = pulumi.runtime.get_root_resource()
            if pools is not None:  # each GpuNodePool's model by its URN (its spec is set after it registered)
                pools.update({f"urn:pulumi:{stack}::{project}::{qualified}::{name}": component.spec
                              for qualified, name, component in kept if getattr(component, "spec", None) is not None})
            exported = list((getattr(root, "outputs", None) or {}).items())

            async def values() -> list[Any]:  # one turn of the event loop for all of them, in order
                return [await _output_value(out) for _, out in exported]

            # an apply callback the program gave runs here, and may print too
            outputs = dict(zip((key for key, _ in exported), _sync_await(values()) if exported else [], strict=True))
    finally:
        gc.unfreeze()
    dups = duplicate_urns(recorded)
    if dups:
        keys = {r.urn: (r.type, r.name) for r in recorded}
        raise DuplicateUrnError(dups, [keys[u] for u in dups])
    return [plain_record(r) for r in recorded], outputs


def _keep_pools(kept: list[tuple[str, str, Any]]) -> Any:
    """A stack transformation (``pulumi.runtime.register_stack_transformation``: it runs in the constructor of every
    resource the program constructs, pulumi/pulumi ``sdk/python/lib/pulumi/resource.py@v3.272.0``) that changes
    nothing and appends ``(qualified type, name, component)`` to ``kept`` for each ``GpuNodePool`` (type token
    :data:`GPU_NODE_POOL_TYPE`); the qualified type is the parent's own type (the root stack's for none) ``$`` the
    component's, as ``MockMonitor.make_urn`` writes it in the URN (``sdk/python/lib/pulumi/runtime/mocks.py@v3.272.0``)."""
    import pulumi

    def keep(args: Any) -> None:
        if args.type_ == GPU_NODE_POOL_TYPE:
            parent = getattr(args.opts, "parent", None) or pulumi.runtime.get_root_resource()
            kept.append((f"{getattr(parent, '_type', '')}${args.type_}", args.name, args.resource))

    return keep


#: Why the plan shows a DaemonSet the program did not register itself.
SYNTHESIZED_CHART_CHILD = (
    "synthesized stand-in for the nvidia-device-plugin chart's DaemonSet, built from the chart values "
    "(helm.v4.Chart is a remote component: under mocks it registers no children; a real pulumi preview "
    "renders the chart and sees the real child)"
)


def _chart_child(chart: Recorded) -> Recorded | None:
    """The device-plugin DaemonSet a ``kubernetes:helm.sh/v4:Chart`` of the nvidia-device-plugin chart renders.

    None for other resources, a disabled device plugin, or chart inputs unknown at preview
    (then Chart v4 registers no children in a real preview either).
    """
    from ..gpu_agents.device_plugin import chart as dp

    if chart.type != HELM_CHART_V4 or chart.inputs.get("chart") != dp.CHART:
        return None
    inputs = plain(chart.inputs)
    if UNKNOWN in json.dumps(inputs):
        return None
    namespace = inputs.get("namespace") or "default"
    release = inputs.get("name") or chart.name
    try:
        ds = dp.chart_daemonset(inputs.get("values") or {}, namespace, release)
    except ValueError:  # values the chart cannot render: no child (device-plugin-covers-gpu-pools says why)
        return None
    if ds is None:
        return None
    prefix = inputs.get("resourcePrefix", chart.name)
    name = f"{ds['metadata']['namespace']}/{ds['metadata']['name']}"
    name = f"{prefix}:{name}" if prefix else name
    ds_type = DAEMONSET
    urn = ""
    if chart.urn:
        parent_type = chart.urn.split("::")[2]
        urn = "::".join(chart.urn.split("::")[:2] + [f"{parent_type}${ds_type}", name])
    return Recorded(ds_type, name, ds, True, urn, chart.urn, [], {}, SYNTHESIZED_CHART_CHILD)


async def _output_value(out: Any) -> Any:
    import pulumi

    if isinstance(out, pulumi.Output):
        if not await out.is_known():
            return UNKNOWN
        if await out.is_secret():
            return SECRET
        return plain(await out.future())
    return plain(out)


def plan_stack(
    stack: str,
    project_dir: str | os.PathLike[str] | None = None,
    policy_config: Mapping[str, Any] | None = None,
    expand: expansion.ExpandOptions | None = None,
) -> PlanResult:
    """Validate and run the stack offline; returns a :class:`PlanResult` (never calls a cloud API).

    Every policy of the pack (:mod:`gpu_node_pool.policies`) is then evaluated over the
    recorded resources as a preview would; ``policy_config`` is a ``--policy-pack-config``
    mapping (``{"all": level, "<policy>": level | {"enforcementLevel": ..., <props>}}``). Each finding and
    each not-judged item gets the ``location`` ``gpupool check`` gives it (:func:`.stack_file.locate_findings`), a
    stack policy's "can't run" note split into one per resource first (:func:`.locate.split_by_resource`).

    Raises:
        gpu_node_pool.policies.PolicyConfigError: ``policy_config`` is invalid.
    """
    import pulumi

    from ..component.program import validated_by_the_plan
    from ..config.loading import load_stack_config
    from ..config.warnings import stack_warnings

    project = find_project(project_dir)
    result = PlanResult(stack=stack)
    found: StackFile | None = None
    try:
        found = read_stack(project, stack)
        config, secrets = found.config, found.secrets
        result.config = load_stack_config(config, found.path.name, set(secrets).__contains__)
        result.warnings = found.locate(stack_warnings(result.config))
    except ConfigError as err:
        result.config_issues = found.locate(err.issues) if found is not None else err.issues
        result.config_source = err.source
        return result
    main = read_project_file(project).get("main")
    run_dir, program = program_run_dir(project, main)
    if not program.is_file():  # Pulumi refuses it too: "project 'main' could not be read"
        result.config_issues = [missing_program_issue(project, main, program)]
        result.config_source = "Pulumi.yaml"
        return result
    constructed: dict[str, Any] = {}
    registered: list[Recorded] = []
    try:
        with expansion.offline_yaml() as collected, validated_by_the_plan(config, result.config):
            result.resources, result.outputs = record_program(program, config, secrets, stack=stack,
                                                              project=found.project, pools=constructed,
                                                              sink=registered)
    except DuplicateUrnError as err:  # placed at the program's line that registers the name again
        raise ProgramError(placed_issue(ConfigIssue(str(program), str(err)), program, project)) from None
    except (ConfigError, pulumi.RunError) as err:  # a component refused its arguments, now or in an apply
        cause = err if isinstance(err, ConfigError) else err.__cause__
        if not isinstance(cause, ConfigError):
            raise ProgramError(program_issue(err, program, project) or _reraise(err)) from None
        from .check_child import in_program_placed

        placed = in_program_placed(cause, err, program, project)
        result.config_issues = found.locate(placed.issues)  # the stack config's own: placed in the stack file
        result.config_source = placed.source
        result.registered_before_error = len(registered)
        return result
    except Exception as err:  # noqa: BLE001 - the user's program failing is invalid input; our own bug re-raises
        raise ProgramError(program_issue(err, program, project) or _reraise(err)) from None
    expanded = expansion.expand_plan(result, project, expand, collected, run_dir=run_dir)  # charts, yaml, add-ons
    result.chart_kube_version = expanded.kube_version.version if expanded.kube_version is not None else None
    _summarise(result, constructed)
    _check_policies(result, policy_config, found.project)
    expansion.finish_plan(result, expanded, expand, policy_config)
    split_by_resource(result)  # one finding and one not-judged item per resource a stack policy could not decide
    from_stack = [p.name if p.name not in result.unregistered else "" for p in result.config.pools]
    locate_findings(result.violations, result.resources, from_stack, found, result.not_judged)
    return result


def _check_policies(result: PlanResult, policy_config: Mapping[str, Any] | None, project: str) -> None:
    """Fill ``result.violations``: every policy of the pack over the recorded resources, as a preview of the Pulumi
    project named ``project`` (its ``Pulumi.yaml`` ``name``, which every URN carries).

    The stack's ``cluster.admissionPlugins`` becomes the ``admissionPlugins`` of the policies that
    take it, unless the pack config sets it.
    """
    from ..policies import evaluate

    plugins = result.config.cluster.admission_plugins if result.config is not None else None
    if plugins:
        policy_config = dict(policy_config or {})
        entry = policy_config.get("gpu-workloads-tolerate-their-pool")
        if not isinstance(entry, Mapping):
            entry = {"enforcementLevel": entry} if isinstance(entry, str) else {}
        policy_config["gpu-workloads-tolerate-their-pool"] = {"admissionPlugins": list(plugins), **entry}

    result.violations = evaluate(result.resources, policy_config, stack=result.stack, project=project)


def _by_name(resources: list[Recorded]) -> dict[tuple[str, str], Recorded]:
    return {(r.type, r.name): r for r in resources}


class _RecordsByType(dict[str, list[Recorded]]):
    """``{type token: [record, ...]}``, which also gives a type's records under one parent
    (:meth:`children`). Built once per plan and only read after."""

    def __init__(self) -> None:
        super().__init__()
        self._by_parent: dict[str, dict[str, list[Recorded]]] = {}

    def children(self, type_token: str, parent: str) -> list[Recorded]:
        """The records of ``type_token`` whose parent is ``parent`` (a URN), in recording order: the type's
        records grouped by parent on the first ask, so that a summary per pool does not scan every pool's."""
        groups = self._by_parent.get(type_token)
        if groups is None:
            groups = self._by_parent[type_token] = {}
            for r in self.get(type_token, ()):
                groups.setdefault(r.parent, []).append(r)
        return groups.get(parent, [])


def _by_type(resources: list[Recorded]) -> dict[str, list[Recorded]]:
    """``{type token: [record, ...]}``: the types in the order first recorded, each one's records in recording order
    (also offering :meth:`_RecordsByType.children`)."""
    out = _RecordsByType()
    for r in resources:
        group = out.get(r.type)
        if group is None:
            out[r.type] = group = []
        group.append(r)
    return out


def _tagged_resources(entry: dict[str, Any]) -> dict[str, int] | None:
    """``{resource: quantity}`` of the pool's recorded ``node-template/resources/`` tags; None when its backend
    records no Auto Scaling group tags (the entry has no ``scaleFromZeroTags``)."""
    from ..backends._shared.cluster_autoscaler import CA_RESOURCE_PREFIX

    tags = entry.get("scaleFromZeroTags")
    if tags is None:
        return None
    return {
        k[len(CA_RESOURCE_PREFIX):]: int(v) for k, v in tags.items()
        if k.startswith(CA_RESOURCE_PREFIX) and isinstance(v, str) and v.isdigit()
    }


def _registered_pools(resources: list[Recorded], constructed: Mapping[str, Any]) -> list[Any]:
    """The pool model of each ``GpuNodePool`` the program registered, in registration order (``constructed``: the
    models by the component's URN, :func:`record`'s ``pools``), named after the component (the name its children
    are named after; a copy of the model when the program gave the pool another ``name``)."""
    out = []
    for r in resources:
        spec = constructed.get(r.urn) if r.type == GPU_NODE_POOL_TYPE else None
        if spec is not None:
            out.append(spec if spec.name == r.name else spec.model_copy(update={"name": r.name}))
    return out


def _summarise(result: PlanResult, constructed: Mapping[str, Any]) -> None:
    """Fill ``result.pools`` (one entry per ``GpuNodePool`` the program registered, :func:`_registered_pools`: what
    will run, whether the program built it from the stack config or declared it itself), ``result.pool_models``,
    ``result.unregistered`` (the stack config's pools the program built none from) and ``result.device_plugin``."""
    from ..gpu_agents.device_plugin import values as dp
    from ..gpu_agents.installed import pool_device_plugin
    from ..gpu_agents.promise import pool_promise

    assert result.config is not None
    index = _by_name(result.resources)
    by_type = _by_type(result.resources)
    result.pool_models = _registered_pools(result.resources, constructed)
    same = {id(m) for m in result.pool_models}  # the stack's own models, as the shipped program builds them
    result.unregistered = [p.name for p in result.config.pools if id(p) not in same and p not in result.pool_models]
    for pool in result.pool_models:
        entry: dict[str, Any] = {"name": pool.name, "backend": pool.backend}
        summarise = backends.get(pool.backend).fn("summarise")
        if summarise is not None:
            summarise(pool, entry, index, by_type, result.outputs)
        # who serves the pool: the stack's plugin or operator, or what the backend's summary said (GKE: "managed by GKE")
        entry["devicePlugin"] = pool_device_plugin(pool, result.config, entry.get("devicePlugin"))
        entry["gpus"] = pool_promise(pool, result.config.device_plugin.provider, _tagged_resources(entry),
                                     entry.get("karpenterCapacity"))
        result.pools.append(entry)

    chart = expansion.device_plugin_chart(result.resources)  # by what it is, not the first chart
    if chart is not None:
        values = chart.inputs.get("values", {})
        result.device_plugin = {
            "chart": chart.inputs.get("chart"),
            "version": chart.inputs.get("version"),
            "repository": (chart.inputs.get("repositoryOpts") or {}).get("repo"),
            "namespace": chart.inputs.get("namespace"),
            "tolerations": values.get("tolerations", []),
            "affinity": values.get("affinity", {}),
            "priorityClassName": values.get("priorityClassName"),
            "coverage": [
                {"pool": c.pool, "taint": str(c.taint), "tolerated": c.tolerated}
                for c in dp.coverage(values, result.pool_models)
            ],
        }


