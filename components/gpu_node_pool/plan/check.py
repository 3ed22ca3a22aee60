"""``gpupool check``: the policy pack on ANY Pulumi Python program, run offline under mocks.

``plan`` runs this project's own stacks (and insists on its config keys); ``check`` runs a
platform team's program with that program's own stack config (``Pulumi.<stack>.yaml`` next to
its ``Pulumi.yaml``; keys without a namespace get the project's ``name:``, as the Pulumi CLI
does), records what it registers, and then:

* finds the GPU pools among the recorded resources with the pack's own detection
  (:func:`gpu_node_pool.policies.pools.find_gpu_pools`): hand-written node groups, NodePools,
  launch templates + Auto Scaling groups, GKE node pools; a pool declared by our
  ``GpuNodePool`` (type token :data:`~gpu_node_pool.k8s.wellknown.GPU_NODE_POOL_TYPE`) is named
  after that component;
* reports which pool taints the NVIDIA device plugin(s) it finds (DaemonSets running the
  plugin image, or the chart's DaemonSet derived from its values) tolerate;
* evaluates every policy of the pack as a preview would.

Nothing calls a cloud or Kubernetes API. A program that raises is invalid input (exit 2) with
one line naming the exception and where the program raised it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..component.program import STACK_CONFIG_SOURCE
from ..config import ConfigError, ConfigIssue
from ..config.errors import issues_json
from ..expand.result import NotJudged
from ..k8s.wellknown import GPU_NODE_POOL_TYPE
from ..sdk.outcome import exit_code
from ..sdk.record import Resource as Recorded
from ..text.terminal import terminal_text
from .expand import ExpandOptions, expand_plan, finish_plan
from .interpreter import DEFAULT_PROGRAM_TIMEOUT, Interpreter, choose_interpreter, record_in_child
from .locate import duplicates_of_not_judged, locate_in_program, not_judged_lines, split_by_resource
from .registered import RegisteredPool
from .stack_file import missing_program_issue, read_project_file

__all__ = ["CheckResult", "check_project", "project_name", "to_json"]


@dataclass
class CheckResult:
    """What ``check`` found; ``pools`` and ``coverage`` as in :func:`to_json`."""

    stack: str
    project: str = ""
    resources: list[Recorded] = field(default_factory=list)
    config_issues: list[ConfigIssue] = field(default_factory=list)
    #: How many resources the program registered before the config error it raised (0: none, or no such error).
    registered_before_error: int = 0
    #: The config warnings of the program's ``GpuNodePool`` s, at the program's lines; never change the exit code.
    warnings: list[ConfigIssue] = field(default_factory=list)
    #: What the program logged with ``pulumi.log`` (``[{"severity", "message", "resource"?}]``,
    #: :mod:`gpu_node_pool.sdk.program_log`): shown on stderr as it ran; never changes the exit code.
    program_log: list[dict[str, str]] = field(default_factory=list)
    pools: list[dict[str, Any]] = field(default_factory=list)
    device_plugins: list[str] = field(default_factory=list)
    coverage: list[dict[str, Any]] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)
    #: Per item of ``undecided``: its resource, why, and whether a rule could not judge it for a reason of its own
    #: (it carries a fix: :func:`gpu_node_pool.sdk.props.not_judged`) rather than a value unknown at preview.
    undecided_items: list[tuple[str, str, bool]] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    #: What no policy judged (``[{"resource", "type", "reason", "fix"}]``), as the plan reports it.
    not_judged: list[dict[str, str]] = field(default_factory=list)
    #: The Python the program ran in (:meth:`.interpreter.Interpreter.to_dict`); None before it was chosen.
    interpreter: dict[str, Any] | None = None
    #: A foreign program has no stack config of this project (what the plan's page and expansion read).
    config: None = None
    #: Each ``GpuNodePool`` the program registered, in registration order, named after its component (what the page
    #: draws of a pool the pack cannot find among the resources; the plan's ``pool_models`` alike).
    pool_models: list[RegisteredPool] = field(default_factory=list)

    def exit_code_at(self, fail_on: str = "mandatory") -> int:
        """0 clean, 1 a finding at or above ``fail_on`` (``advisory``, ``mandatory``, ``none``), 2 the
        program or its config failed (:func:`gpu_node_pool.sdk.outcome.exit_code`)."""
        from .run import finding_levels  # plan.run loads the backends; check imports it when it runs

        levels = finding_levels(self.violations, self.coverage)
        return exit_code(levels, fail_on, invalid_input=bool(self.config_issues))


def _program_path(project_dir: Path) -> tuple[str, Path, Path, dict[str, Any]]:
    """``(project name, program file, run directory, parsed Pulumi.yaml)`` from ``Pulumi.yaml`` (``name``,
    ``runtime``, ``main``); the run directory is where Pulumi runs the program and its providers
    (:func:`.run.program_run_dir`).

    Raises:
        ConfigError: not a Python project, or the program file is missing.
    """
    source = str(project_dir / "Pulumi.yaml")
    doc = read_project_file(project_dir)
    runtime = doc.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime_name != "python":
        raise ConfigError(
            [ConfigIssue(f"{source}: runtime", f"is {runtime_name!r}; gpupool check runs Pulumi Python programs only "
                         "(for other languages, run the pack with pulumi preview --policy-pack)")],
            source,
        )
    from .run import program_run_dir

    run_dir, program = program_run_dir(project_dir, doc.get("main"))
    if not program.is_file():  # the plan's issue alike (:func:`.stack_file.missing_program_issue`)
        raise ConfigError([missing_program_issue(project_dir, doc.get("main"), program)], source)
    return project_name(project_dir, doc), program, run_dir, doc


def project_name(project_dir: Path, doc: dict[str, Any]) -> str:
    """The project's name: ``Pulumi.yaml``'s ``name``, else the project directory's name."""
    return str(doc.get("name") or project_dir.name)


def check_project(
    stack: str,
    project_dir: str | os.PathLike[str] | None = None,
    policy_config: Any = None,
    expand: ExpandOptions | None = None,
    python: str | None = None,
    program_timeout: float = DEFAULT_PROGRAM_TIMEOUT,
) -> CheckResult:
    """Run the project's program for ``stack`` under mocks; open its charts and YAML; find its GPU pools; judge it.

    The same steps as ``gpupool plan`` after its config check: record the program
    (:func:`.run.record_program`, v1 YAML answered offline), expand charts, Releases, YAML components
    and EKS add-ons (:func:`.expand.expand_plan` with ``expand``: ``--helm``, ``--fetch-charts``,
    ``--render-timeout``, ``--strict``), evaluate the pack, and report what was not judged
    (:func:`.expand.finish_plan`, ``resources-judged``). The program runs, and its relative chart, values and
    manifest paths are read, in the directory Pulumi runs it in (:func:`.run.program_run_dir`: ``Pulumi.yaml``'s
    ``main`` when that is a directory); reported places stay relative to the project directory. It runs in a
    child process of the interpreter of :func:`.interpreter.choose_interpreter` (``python``: ``--python``),
    stopped after ``program_timeout`` seconds (``--program-timeout``).

    Raises:
        FileNotFoundError: no ``Pulumi.yaml`` or stack file.
        gpu_node_pool.policies.PolicyConfigError: ``policy_config`` is invalid.
    """
    from .run import find_project
    from .stack_file import StackFile, read_stack

    project = find_project(project_dir)
    result = CheckResult(stack=stack)
    found: StackFile | None = None
    doc: dict[str, Any] = {}
    try:
        result.project, program, run_dir, doc = _program_path(project)
        interpreter = choose_interpreter(project, doc, python)
        result.interpreter = interpreter.to_dict()
        found = read_stack(project, stack)
        config, secrets = found.config, found.secrets
        result.resources, collected, warnings, result.pool_models = _record(
            interpreter, program, project, run_dir, config, secrets, stack, result.project, program_timeout,
            result.program_log)
    except ConfigError as err:  # the stack config's issues get their place in the stack file; the rest keep their own
        result.registered_before_error = err.registered
        if not result.project:  # Pulumi.yaml read but its program missing: the report still names the project
            try:
                result.project = project_name(project, read_project_file(project))
            except ConfigError:  # Pulumi.yaml itself is the error: the project is named by its directory
                result.project = project.name
        about_stack = found is not None and err.source.startswith(STACK_CONFIG_SOURCE)
        located = found.locate([i for i in err.issues if i.location is None]) if about_stack else []
        result.config_issues = [located.pop(0) if about_stack and i.location is None else i for i in err.issues]
        if doc:  # a key the program requires that the stack file misspells: named, with its place
            from .locate_keys import name_near_misses, stack_file_of

            result.config_issues = name_near_misses(result.config_issues, *stack_file_of(project, doc, stack),
                                                    result.project)
        return result
    result.warnings = _warnings_in_program(warnings, result.resources, project, found)
    expanded = expand_plan(result, project, expand, collected, run_dir)  # charts, yaml, releases, add-ons
    _find_pools(result)
    from ..policies import evaluate

    result.violations = evaluate(result.resources, policy_config, stack=stack, project=result.project)
    finish_plan(result, expanded, expand, policy_config)
    split_by_resource(result)  # one finding and one not-judged item per resource a stack policy could not decide
    locate_in_program(result, project)
    return result


def _record(interpreter: Interpreter, program: Path, project: Path, run_dir: Path, config: dict[str, Any],
            secrets: list[str], stack: str, name: str, timeout: float,
            program_log: list[dict[str, str]],
            ) -> tuple[list[Recorded], list[NotJudged], list[dict[str, str]], list[RegisteredPool]]:
    """``(resources, not judged while it ran, its GpuNodePools' config warnings, the GpuNodePools it registered)`` of
    the program, run in a child of the interpreter that changes to ``run_dir`` before the program runs
    (:func:`.interpreter.record_in_child`, stopped after ``timeout`` seconds; issues placed relative to ``project``).
    What the program logged (the child's ``programLog``) is appended to ``program_log``, also when it then failed.

    Raises:
        ConfigError: the program raised, ended its Python early or hung, or its config is wrong (one
            line), or the child cannot import us; its ``source`` is the child's (``config of stack 'dev'``
            for the stack config the program read).
    """
    answer = record_in_child(interpreter, {"program": str(program), "config": config, "secrets": secrets,
                                           "stack": stack, "project": name, "cwd": str(run_dir)}, project, timeout)
    program_log += answer.get("programLog") or []
    if "configIssues" in answer:
        raise ConfigError([_child_issue(i, program, project) for i in answer["configIssues"]],
                          answer.get("configSource") or str(program), int(answer.get("registered") or 0))
    return ([Recorded(**r) for r in answer["resources"]], [NotJudged(**n) for n in answer["notJudged"]],
            answer.get("warnings") or [], [RegisteredPool.from_json(p) for p in answer["pools"]])


def _child_issue(issue: dict[str, Any], program: Path, project: Path) -> ConfigIssue:
    """The child's ``{"path", "message", "location"?}`` as an issue placed in the project: its ``location`` relative
    to the project directory; the program's own failure (its ``path`` the failing file, or the program file with
    ``(at __main__.py:27; ...)`` in its message) named by that place, ``__main__.py:27:1: ...``
    (:func:`.program_errors.placed_issue`)."""
    from .program_errors import placed_issue

    where = _program_location(issue.get("location"), project)
    path = issue["path"]
    if where is not None and (issue.get("location") or {}).get("file") == path:
        path = where.file
    return placed_issue(ConfigIssue(path, issue["message"], where, bool(issue.get("notJudged"))), program, project)


def _warnings_in_program(warnings: list[dict[str, str]], resources: list[Recorded], project: Path,
                         stack_file: Any) -> list[ConfigIssue]:
    """The child's config warnings (``{"component", "path", "message"}``) as issues named by their component
    (``GpuNodePool 'vision' pool.instanceTypes``), each at the program line that constructed it; the stack config's
    own (``component`` empty: a program that reads this project's stack config) at their place in ``stack_file``."""
    sites = {r.name: r.source for r in resources if r.type == GPU_NODE_POOL_TYPE and r.source}
    out = []
    for w in warnings:
        if not w["component"]:
            out += stack_file.locate([ConfigIssue(w["path"], w["message"])])
            continue
        site = sites.get(w["component"])
        where = _program_location({"file": site[0], "line": site[1], "column": site[2]}, project) if site else None
        out.append(ConfigIssue(f"GpuNodePool {w['component']!r} {w['path']}", w["message"], where))
    return out


def _program_location(where: dict[str, Any] | None, project: Path) -> Any:
    """The child's ``location`` (an absolute program file) as a :class:`~gpu_node_pool.config.errors.Location`
    relative to the project directory, or None."""
    from ..config.errors import Location

    if not where:
        return None
    path = Path(where["file"])
    try:
        path = path.resolve().relative_to(project.resolve())
    except ValueError:
        pass
    return Location(path.as_posix(), where["line"], where["column"])


def _own_secret_texts(resource: Any, resources: list[Recorded]) -> tuple[str, ...]:
    """Every text of ``resource``'s own secrets of 4 characters or more: its summary shows its own values (a
    pool's taints and labels), so a shorter secret than a finding's cut is cut there too
    (:func:`gpu_node_pool.sdk.secrets.secret_texts`)."""
    if resource is None or resource.secret_inputs is None:
        return ()
    from ..sdk.secrets import secret_texts

    return secret_texts([resource], shortest=4, public=resources)


def _component_of(res: Any) -> str | None:
    """The name of the ``GpuNodePool`` component ``res`` belongs to, if any."""
    parent = getattr(res, "parent", None)
    while parent is not None:
        if parent.resource_type == GPU_NODE_POOL_TYPE:
            return parent.name
        parent = parent.parent
    return None


def _find_pools(result: CheckResult) -> None:
    from ..k8s.taints import tolerations_tolerate_taint
    from ..policies.pools import find_gpu_pools
    from ..policies.rules.device_plugin_covers_gpu_pools import _plugin_daemonsets, _read_plugins
    from ..policies.runner import policy_resources
    from ..sdk.props import Undecided
    from ..sdk.secrets import mask_tree

    resources = policy_resources(result.resources, stack=result.stack, project=result.project)
    by_urn = {r.urn: r for r in resources}
    recorded = {r.urn: r for r in result.resources if r.urn}
    undecided = Undecided()
    pools = find_gpu_pools(resources, undecided)
    plugins = _read_plugins(_plugin_daemonsets(resources, undecided))
    result.device_plugins = [display for display, _, _ in plugins]
    for pool in pools:
        res = by_urn.get(pool.urn)
        component = _component_of(res) if res is not None else None
        if pool.gke_managed_plugin:
            served = "managed by GKE"
        elif pool.ships_own_device_plugin:
            served = "ships its own"
        else:
            served = "nvidia-device-plugin"
        entry: dict[str, Any] = {
            "name": component or pool.name,
            "backend": pool.backend,
            "resourceType": pool.resource_type,
            "resource": pool.name,
            "component": component,
            "taints": [str(t) for t in pool.taints],
            "labels": pool.labels,
            "minSize": pool.min_size,
            "devicePlugin": served,
        }
        if "startup_taints" in pool.extra:  # a backend whose pools declare boot taints (registry startup_taints)
            unread = pool.extra.get("startup_taints_unread")  # refused by the API server: see the problem
            entry["startupTaints"] = None if unread else [str(t) for t in pool.extra["startup_taints"]]
        if pool.extra.get("taints_unread"):
            entry["taintsUnread"] = True
        if pool.problem:
            entry["problem"] = pool.problem
        if pool.extra.get("launches_no_gpu_node"):  # a hand-written NodePool whose limits or requirements admit none
            entry["launchesNoGpuNode"] = pool.extra["launches_no_gpu_node"]
        own = _own_secret_texts(recorded.get(pool.urn), result.resources)
        result.pools.append(mask_tree(entry, own))
        if not pool.needs_nvidia_device_plugin or pool.problem:
            continue
        for taint in pool.taints:
            if taint.effect.repels:
                tolerated = any(tolerations_tolerate_taint(tolerations, taint) for _, tolerations, _ in plugins)
                result.coverage.append(mask_tree({"pool": entry["name"], "taint": str(taint), "tolerated": tolerated}, own))
    result.undecided = [f"{what}: {err.message}" for what, err in undecided.items]
    result.undecided_items = [(what, err.message, getattr(err, "fix", None) is not None) for what, err in undecided.items]


def to_json(result: CheckResult) -> dict[str, Any]:
    """The fields of the ``check`` report (the envelope is :func:`gpu_node_pool.cli.contract.report`), cut of the
    program's secrets (:mod:`.masking`)."""
    from .masking import masked_document
    from .report import synthesized_of

    return masked_document({
        "stack": result.stack,
        "project": result.project,
        "configErrors": issues_json(result.config_issues),
        "warnings": [w.to_json() for w in result.warnings],
        "programLog": result.program_log,
        "pools": result.pools,
        "devicePlugins": result.device_plugins,
        "coverage": result.coverage,
        "undecided": result.undecided,
        "violations": result.violations,
        "notJudged": result.not_judged,
        "interpreter": result.interpreter,
        "resources": [{"type": r.type, "name": r.name, **synthesized_of(r)} for r in result.resources],
    }, result.resources)


def _interpreter_lines(interpreter: dict[str, Any] | None) -> list[str]:
    if not interpreter:
        return []
    lines = [f"program ran in {interpreter['python']} ({interpreter['from']}; a child process)"]
    if interpreter["note"]:
        lines.append(f"  note: {interpreter['note']}")
    return lines


def _not_judged_count(findings: list[dict[str, Any]]) -> list[str]:
    """One line per enforcement level counting the findings that repeat a not-judged item (the policy's "can't run"
    note, ``resources-judged``), which the "not judged" list above shows once each, with why and its fix."""
    levels: dict[str, list[str]] = {}
    for v in findings:
        levels.setdefault(str(v["enforcement"]), []).append(v["policy"])
    return [f"  [{level}] {len(policies)} finding(s) on what no policy could judge ({', '.join(dict.fromkeys(policies))}): "
            "each listed once under \"not judged\" above, with why and its fix" for level, policies in levels.items()]


def render_text(result: CheckResult, fail_on: str = "mandatory") -> str:
    """The human-readable check report, cut of the program's secrets (:mod:`.masking`); its last line is the
    exit code judged at ``fail_on``."""
    from .masking import masked_text
    from .report import exit_line, not_done, stand_in_lines, violation_lines

    code = result.exit_code_at(fail_on)
    lines = [f"gpupool check of project {result.project!r}, stack {result.stack!r} (offline: Pulumi mocks)"]
    if result.config_issues:
        issues = ConfigError(result.config_issues, f"project {result.project or '?'!r}")
        lines += ["", *issues.lines(not_done(len(result.resources) or result.registered_before_error)), "", f"exit {code}"]
        return masked_text(terminal_text(lines), result.resources)
    lines += _interpreter_lines(result.interpreter)
    lines.append(f"{len(result.resources)} resources registered; {len(result.pools)} GPU pool(s) found")
    for pool in result.pools:
        owner = f", GpuNodePool {pool['component']!r}" if pool["component"] else ""
        lines.append("")
        lines.append(f"pool {pool['name']} ({pool['backend']}: {pool['resourceType']} {pool['resource']}{owner})")
        unread = "could not be read (see problem)"
        lines.append(f"  taints          {unread if pool.get('taintsUnread') else ', '.join(pool['taints']) or '(none)'}")
        if "startupTaints" in pool:
            shown = unread if pool["startupTaints"] is None else ", ".join(pool["startupTaints"])
            note = "  (removed by an agent at boot; never tolerated by the plugin)" if pool["startupTaints"] else ""
            lines.append(f"  startup taints  {shown or '(none)'}{note}")
        labels = pool["labels"]
        shown = "(unknown at preview)" if labels is None else ", ".join(f"{k}={v}" for k, v in labels.items())
        lines.append(f"  labels          {shown}")
        if pool.get("problem"):
            lines.append(f"  problem         {pool['problem']}")
        if pool.get("launchesNoGpuNode"):
            lines.append(f"  no GPU node     {pool['launchesNoGpuNode']}")
        plugin = pool["devicePlugin"]  # the pool's need, not what the program installs (listed below)
        lines.append(f"  device plugin   {'needs ' + plugin + ' (its nodes run none of their own)' if plugin == 'nvidia-device-plugin' else plugin}")
    lines.append("")
    if result.device_plugins:
        lines.append("NVIDIA device plugin(s): " + "; ".join(result.device_plugins))
    else:
        lines.append("NVIDIA device plugin: none found in this program")
    if result.coverage:  # taints only: whether a plugin's node selection reaches the pool is the policy's verdict
        lines.append("  tolerations of pool taints (whether a plugin's node selection reaches each pool: "
                     "device-plugin-covers-gpu-pools below):")
        lines += [f"    {'tolerated' if c['tolerated'] else 'MISS     '} {c['pool']}: {c['taint']}" for c in result.coverage]
    for what, why, reasoned in result.undecided_items:
        lines.append(f"  not judged: {what}: {why.removeprefix('not judged: ')}" if reasoned
                     else f"  not judged (unknown at preview): {what}: {why}")
    lines += stand_in_lines(result.resources, "check")  # under their own heading: none is listed as a plugin
    lines += not_judged_lines(result)
    lines.append("")
    if result.violations:
        lines.append(f"policy pack gpu-node-pools: {len(result.violations)} violation(s), as a preview would report them:")
        repeated = duplicates_of_not_judged(result.violations, result.not_judged)
        lines += violation_lines([v for i, v in enumerate(result.violations) if i not in repeated], result.resources)
        lines += _not_judged_count([result.violations[i] for i in sorted(repeated)])
    else:
        lines.append("policy pack gpu-node-pools: 0 violations from the enabled policies")
    lines.append("")
    lines.append(exit_line(result, fail_on))  # as the plan ends: the code, and why
    return masked_text(terminal_text(lines), result.resources)
