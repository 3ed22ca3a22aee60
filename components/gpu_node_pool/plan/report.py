"""The plan's report: the JSON form (``--json``) and the text a person reads.

Each pool's backend-specific lines come from its backend (``report`` in the registry record);
this module draws what every pool has (taints, labels, the device plugin) and the rest.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from .. import backends
from ..config import ConfigError
from ..config.errors import issues_json
from ..k8s.selection import expression_text
from ..sdk.outcome import envelope
from ..text.terminal import escape_control, shown, terminal_text
from ..text.wrap import WIDTH, wrap_text
from .locate import not_judged_lines
from .masking import masked_document, masked_text
from .order import causal_order
from .run import PlanResult


def to_json(result: PlanResult, fail_on: str = "mandatory") -> dict[str, Any]:
    """The machine-readable plan, ``gpupool plan --json``'s report (schema: ``cli/report.schema.json``):
    the envelope (``schemaVersion``, ``command: "plan"``, ``exitCode`` judged at ``fail_on``,
    ``cloudApiCalled: false``), ``failOn``, then the plan's keys."""
    return masked_document(envelope(
        "plan", result.exit_code_at(fail_on), failOn=fail_on,
        stack=result.stack,
        configErrors=issues_json(result.config_issues),
        warnings=[i.to_json() for i in result.warnings],
        pools=result.pools,
        devicePlugin=result.device_plugin,
        violations=result.violations,
        notJudged=result.not_judged,
        resources=[{"type": r.type, "name": r.name, "inputs": r.inputs, **synthesized_of(r)}
                   for r in causal_order(result.resources)],
        outputs=result.outputs,
    ), result.resources)


def synthesized_of(resource: Any) -> dict[str, str]:
    """``{"synthesized": <label>}`` for a record the plan or check made up (the device plugin chart's stand-in, its
    label as :func:`stand_in_lines` prints it), else ``{}``: the key every ``--json`` report's ``resources[]`` item
    carries beside ``type`` and ``name`` (``cli/report.schema.json``)."""
    return {"synthesized": resource.synthesized} if resource.synthesized else {}


def render_text(result: PlanResult, fail_on: str = "mandatory", warnings: bool = True, command: str = "plan") -> str:
    """The human-readable plan; its last line is :func:`exit_line` (the exit code judged at ``fail_on``).

    ``warnings=False`` leaves the config warnings' text out (``gpupool`` prints :func:`warning_lines` on
    stderr) and keeps one line counting them. ``command``: the ``gpupool`` command the text reports
    (``plan``, or ``render``, which plans first), named in the first line and in the fix of a config error."""
    lines = [f"gpu-node-pools {command} for stack {result.stack!r} (offline: Pulumi mocks, no cloud API was called)"]
    if result.config_issues:
        lines.append("")
        lines += ConfigError(result.config_issues, result.config_source or f"stack {result.stack!r}").lines(
            not_done(len(result.resources) or result.registered_before_error))
        lines.append("")
        fix = "the program" if any(i.location is not None and i.location.file.endswith(".py")
                                   for i in result.config_issues) else "the stack config"
        lines.append(f"exit 2: fix {fix} and run the {command} again")
        return masked_text(terminal_text(lines), result.resources)
    lines.append(f"{len(result.resources)} resources would be registered")
    if result.warnings:
        lines.append("")
        lines += warning_lines(result.warnings) if warnings else [
            f"{len(result.warnings)} config warning(s), on stderr (the plan goes on; nothing there is refused)"]
    for pool in result.pools:
        lines.append("")
        lines.append(f"pool {pool['name']} ({pool['backend']})")
        head, body = _backend_lines(pool)
        lines += head
        lines.append(f"  taints          {', '.join(pool.get('taints', [])) or '(none)'}")
        if pool.get("providerTaints"):
            shown = ", ".join(f"{t['key']}={t.get('value', '')}:{t['effect']}" for t in pool["providerTaints"])
            lines.append(f"  {pool['providerField']:<15} {shown}")
        lines.append("  labels          " + ", ".join(f"{k}={v}" for k, v in pool.get("labels", {}).items()))
        lines += body
        lines.append(f"  device plugin   {pool['devicePlugin']}")
        if pool.get("gpus"):
            from ..gpu_agents.promise import promise_lines  # the stack is validated: config's models are loaded

            lines += promise_lines(pool["gpus"])
    if result.unregistered:
        lines.append("")
        own = "; the pools above are the GpuNodePools it declares itself" if result.pools else ""
        lines.append(f"not planned: the stack config's pool(s) {', '.join(result.unregistered)} (the program constructs "
                     f"no GpuNodePool from them{own})")
    dp = result.device_plugin
    lines.append("")
    if dp:
        lines.append(f"device plugin {dp['chart']} {dp['version']} from {dp['repository']} in namespace {dp['namespace']}")
        lines.append("  tolerations (derived):")
        for t in dp["tolerations"]:
            lines.append(
                "    " + ", ".join(f"{k}: {v}" for k, v in t.items())
            )
        terms = dp["affinity"].get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", {})
        lines.append("  required node affinity (terms ORed):")
        for term in terms.get("nodeSelectorTerms", []):
            exprs = " AND ".join(expression_text(e["key"], e["operator"], e.get("values")) for e in term["matchExpressions"])
            lines.append(f"    {exprs}")
        lines.append(f"  priorityClassName: {dp['priorityClassName']}")
        lines.append("  coverage of pool taints:")
        for c in dp["coverage"]:
            lines.append(f"    {'ok  ' if c['tolerated'] else 'MISS'} {c['pool']}: {c['taint']}")
    else:
        lines += operator_plugin_lines(result.resources)
    lines += stand_in_lines(result.resources, command)
    lines += admission_lines(result.resources)
    lines += output_lines(result.outputs, result.resources)
    lines.append("")
    if result.violations:
        lines.append(f"policy pack gpu-node-pools: {len(result.violations)} violation(s), as a preview would report them:")
        lines += violation_lines(result.violations, result.resources)
    else:
        lines.append("policy pack gpu-node-pools: 0 violations from the enabled policies")
    lines += agent_lines(result.config)
    lines += quota_lines(result.resources)
    lines += not_judged_lines(result)
    lines.append("")
    lines.append(exit_line(result, fail_on))
    return masked_text(terminal_text(lines), result.resources)


#: Most stack outputs the text report shows (``--json``'s ``outputs`` has them all), and most characters of each value.
MAX_OUTPUTS, MAX_OUTPUT_TEXT = 40, 200


def output_lines(outputs: Mapping[str, Any], resources: Iterable[Any] = ()) -> list[str]:
    """The stack outputs the program exported (``pulumi.export``), as the plan knows them: a title line, then
    ``  <key>  <value>`` each in export order, the value as compact JSON (a string as it is), cut of the program's
    secrets (:func:`gpu_node_pool.plan.masking.masked_document`; a secret output is ``[secret]``, one the cloud
    computes ``(known after apply)``) before it is cut at :data:`MAX_OUTPUT_TEXT` characters
    (:func:`gpu_node_pool.text.terminal.shown`); at most :data:`MAX_OUTPUTS` lines, then how many more there are.
    Nothing when there are none."""
    if not outputs:
        return []
    masked = masked_document(dict(outputs), resources)
    lines = ["", f"stack outputs ({len(masked)}; pulumi stack output shows them after an update):"]
    for key, value in list(masked.items())[:MAX_OUTPUTS]:
        text = value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "), default=str)
        lines.append(f"  {key}  {shown(text, quote=False, limit=MAX_OUTPUT_TEXT)}")
    if len(masked) > MAX_OUTPUTS:
        lines.append(f"  ... {len(masked) - MAX_OUTPUTS} more: gpupool plan --json has them all (outputs)")
    return lines


def stand_in_lines(resources: list[Any], command: str = "plan") -> list[str]:
    """The label of every record the plan or check made up (``synthesized``, by :func:`.expand.expand_plan`: the
    objects of a rendered chart, a parsed manifest or an add-on with how each was read, and the device plugin
    chart's stand-in DaemonSet and its RBAC objects with the fallback, the chart version its template was read from,
    why the real chart did not render and the fix), under a heading of their own, so that no such object reads as
    part of the section before it (the device plugins ``gpupool check`` lists): an empty line, the heading
    ``objects the <command> made from what the program declares (N), and how each was read:``, then per record
    ``  <Kind> <name>:`` (each by its own kind, :func:`kind_of`) and the label wrapped under it (:func:`titled_lines`).
    ``[]`` when there is none. Each label is cut of the secrets of ``resources`` before it is wrapped: a secret split
    across two lines is found by no later cut. ``gpupool plan`` and ``gpupool check`` print these lines; ``--json``
    carries each label as the resource's ``synthesized``."""
    stand_ins = [r for r in resources if r.synthesized]
    if not stand_ins:
        return []
    whys = masked_document([r.synthesized for r in stand_ins], resources)
    return ["", f"objects the {command} made from what the program declares ({len(stand_ins)}), and how each was read:",
            *(line for r, why in zip(stand_ins, whys, strict=True)
              for line in titled_lines(f"  {kind_of(r.type)} {r.name}:", why, "    "))]


def warning_lines(warnings: Iterable[Any]) -> list[str]:
    """The config warnings' text: a count line, then ``  warning: <file>:<line>:<column>: <path>: <message>``
    per warning (``[]`` for none)."""
    warnings = list(warnings)
    if not warnings:
        return []
    return [f"{len(warnings)} config warning(s) (the plan goes on; nothing here is refused):",
            *(f"  warning: {w}" for w in warnings)]


def kind_of(type_token: str) -> str:
    """The kind a Pulumi type token names: its last part (``kubernetes:rbac.authorization.k8s.io/v1:RoleBinding``
    -> ``RoleBinding``, ``aws:eks/nodeGroup:NodeGroup`` -> ``NodeGroup``)."""
    return type_token.rsplit(":", 1)[-1]


#: The indent of a finding's wrapped message and of its ``urn:`` line.
_DETAIL = "      "


def violation_lines(violations: Iterable[dict[str, Any]], resources: Iterable[Any], width: int = WIDTH) -> list[str]:
    """The text of the findings: ``  [<enforcement>] <policy> <type> <name>: <message>``, preceded by
    ``<file>:<line>:<column>: `` when the finding has a ``location`` (a pool in the stack file), and
    followed by ``      urn: <URN>`` when it has a ``urn``.

    ``resources``: the plan's or check's records (``()`` for none); every finding is cut of their secrets
    (:func:`gpu_node_pool.plan.masking.masked_document`) before its message is wrapped, for a secret with
    spaces may be split across two lines, where the cut of the whole text would no longer find it.

    A finding whose line would be longer than ``width`` columns ends that line after ``<name>:`` and puts its
    message below, indented six spaces and wrapped at ``width`` (:func:`gpu_node_pool.text.wrap.wrap_text`:
    broken at spaces only, never inside a URN, a path, a quoted value or a YAML snippet; joining the lines with
    one space gives the message back). ``--json`` and SARIF keep the message on one line."""
    lines = []
    for v in masked_document(list(violations), resources):
        where = v.get("location")
        at = f"{where['file']}:{where['line']}:{where['column']}: " if where else ""
        lines += titled_lines(f"  {at}[{v['enforcement']}] {v['policy']} {v.get('resource', '')}:", v["message"],
                              _DETAIL, width)
        if v.get("urn"):
            lines.append(f"{_DETAIL}urn: {v['urn']}")
    return lines


def titled_lines(head: str, text: str, indent: str, width: int = WIDTH) -> list[str]:
    """``[f"{head} {text}"]`` when that fits in ``width`` columns; else ``head``, then ``text`` below it wrapped at
    ``width`` with ``indent`` (:func:`gpu_node_pool.text.wrap.wrap_text`). ``text`` is escaped for a terminal
    first (:func:`gpu_node_pool.text.terminal.escape_control`), so a control character in it breaks no line."""
    text = escape_control(text)
    if len(escape_control(head)) + 1 + len(text) <= width:
        return [f"{head} {text}"]
    return [head, *wrap_text(text, width, indent)]


_BINDING = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"


def agent_lines(stack: Any) -> list[str]:
    """One line naming the namespaces of the agents this stack installs, which the allow-list rules allow on top
    of their ``allowedNamespaces``; and, for EFA pools of instance types outside the EFA plugin chart's list, why
    the plugin will not run there. Empty without a validated stack or agents."""
    if stack is None:
        return []
    from ..gpu_agents.efa_device_plugin.values import unsupported_types
    from ..gpu_agents.installed import installed_agents

    agents = installed_agents(stack)
    lines = []
    if agents:
        lines.append("agent namespaces allowed by gpu-toleration-allowlist and daemonsets-tolerate-exactly: "
                     + ", ".join(f"{a.namespace} ({a.title})" for a in agents))
    if any(a.key == "efa_device_plugin" for a in agents):
        for pool, types in unsupported_types(stack.pools).items():
            lines.append(f"EFA device plugin: pool {pool} types {', '.join(types)} are outside the chart's "
                         "supportedInstanceLabels (aws-efa-k8s-device-plugin 0.5.30 values.yaml); its node affinity "
                         "keeps the plugin off those nodes")
    return lines


def operator_plugin_lines(resources: Iterable[Any]) -> list[str]:
    """The device plugin summary of a stack without the standalone chart: the GPU Operator's ``devicePlugin``
    operand when the stack's ``GpuOperator`` chart enables it (its chart, version, repository and namespace, and
    the operands' derived ``daemonsets.tolerations``), else ``device plugin: not installed by this stack``."""
    from ..k8s.wellknown import CHART_TYPES, GPU_OPERATOR_TYPE

    resources = list(resources)
    operators = {r.urn for r in resources if r.type == GPU_OPERATOR_TYPE and r.urn}
    chart = next((r for r in resources if r.type in CHART_TYPES and r.parent in operators), None)
    values = (chart.inputs.get("values") or {}) if chart is not None else {}
    if chart is None or not (values.get("devicePlugin") or {}).get("enabled", True):
        off = " (the GPU Operator's devicePlugin operand is off: every pool's node image runs its own)" if chart else ""
        return [f"device plugin: not installed by this stack{off}"]
    inputs = chart.inputs
    lines = [f"device plugin: the GPU Operator's, chart {inputs.get('chart')} {inputs.get('version')} "
             f"from {(inputs.get('repositoryOpts') or {}).get('repo')} in namespace {inputs.get('namespace')}",
             "  operand tolerations (derived, daemonsets.tolerations):"]
    for t in (values.get("daemonsets") or {}).get("tolerations") or []:
        lines.append("    " + ", ".join(f"{k}: {v}" for k, v in t.items()))
    return lines


_QUOTA = "kubernetes:core/v1:ResourceQuota"


def quota_lines(resources: Iterable[Any]) -> list[str]:
    """The ResourceQuotas the agents' components register for priority classes (on GKE the critical classes are
    admitted outside ``kube-system`` only with one: :mod:`gpu_node_pool.gpu_agents.critical_quota`): a title line,
    then ``  <namespace>/<name>  PriorityClass In [<classes>]  pods <hard.pods>`` each; nothing when there are none."""
    from ..k8s.wellknown import AGENT_COMPONENT_TYPES

    resources = list(resources)
    agents = {r.urn for r in resources if r.type in AGENT_COMPONENT_TYPES and r.urn}
    lines = []
    for r in resources:
        if r.type != _QUOTA or r.parent not in agents:
            continue
        meta, spec = r.inputs.get("metadata") or {}, r.inputs.get("spec") or {}
        scopes = [e for e in (spec.get("scopeSelector") or {}).get("matchExpressions") or []
                  if e.get("scopeName") == "PriorityClass"]
        if not scopes:
            continue
        shown = "; ".join(f"PriorityClass {e.get('operator')} [{', '.join(e.get('values') or [])}]" for e in scopes)
        lines.append(f"  {meta.get('namespace')}/{meta.get('name')}  {shown}  pods {(spec.get('hard') or {}).get('pods')}")
    if lines:
        lines.insert(0, "priority-class quotas of the agents (on GKE a critical-class pod outside kube-system needs one):")
    return lines


def admission_lines(resources: Iterable[Any]) -> list[str]:
    """The admission objects the program installs (``admission.enabled``), one line per rule with the preview
    rule it enforces again and its action (a binding's ``validationActions`` or a Gatekeeper Constraint's
    ``enforcementAction``); nothing when it installs none."""
    from ..admission.render import RULES

    lines: list[str] = []
    resources = list(resources)
    bindings = [r.inputs.get("spec", {}) for r in resources if r.type == _BINDING]
    if bindings:
        lines += ["", "admission policies (ValidatingAdmissionPolicy, enforced by the API server):"]
        for spec in bindings:
            name = spec.get("policyName")
            lines.append(f"  {name}  rule {RULES.get(name, '?')}  actions {', '.join(spec.get('validationActions') or [])}")
    constraints = [r.inputs for r in resources if r.type.startswith("kubernetes:constraints.gatekeeper.sh/")]
    if constraints:
        lines += ["", "admission constraints (Gatekeeper ConstraintTemplate + Constraint):"]
        order = list(RULES)
        constraints.sort(key=lambda b: order.index(n) if (n := (b.get("metadata") or {}).get("name")) in order else len(order))
        for body in constraints:
            name = (body.get("metadata") or {}).get("name")
            lines.append(f"  {name}  rule {RULES.get(name, '?')}  enforcementAction "
                         f"{(body.get('spec') or {}).get('enforcementAction')}")
    return lines


def exit_line(result: PlanResult, fail_on: str = "mandatory") -> str:
    """The report's last line: the exit code the command returns under ``--fail-on`` ``fail_on``
    (:meth:`PlanResult.exit_code_at`) and why, saying when the default ``mandatory`` would differ."""
    code = result.exit_code_at(fail_on)
    failing = result.exit_code_at("mandatory") == 1  # a mandatory violation or an uncovered taint
    if code == 2:
        return "exit 2: config error"
    if code == 1 and failing:
        return "exit 1: FAILED (mandatory policy violation or uncovered taint)"
    if code == 1:
        return f"exit 1 under --fail-on {fail_on}: FAILED (the advisory violation(s) above)"
    if failing:
        return (f"exit 0 under --fail-on {fail_on}: the mandatory violation(s) or uncovered taint(s) above "
                "do not fail this run (they would at the default --fail-on mandatory)")
    return "exit 0: " + ("clean" if not result.violations else "no mandatory violation (advisory findings above)")


def print_result(result: PlanResult, as_json: bool = False, stream: Any = None) -> None:
    """Write the plan to ``stream`` (default stdout): :func:`to_json` as indented JSON, or :func:`render_text`."""
    stream = stream or sys.stdout
    if as_json:
        json.dump(to_json(result), stream, indent=2, sort_keys=False, default=str)
        stream.write("\n")
    else:
        stream.write(render_text(result) + "\n")


def _backend_lines(entry: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The backend's own lines for a pool entry: ``(before the taints, after the labels)``."""
    try:
        report = backends.get(entry["backend"]).fn("report")
    except KeyError:
        return [], []
    return report(entry) if report is not None else ([], [])


def not_done(registered: int) -> str:
    """What a report's errors stopped, for the header of its error list: nothing was registered when the errors
    came before the program registered anything (the stack config, its first component's arguments); when the
    program had ``registered`` resources before them (a later component's arguments, an error the program or a
    chart, manifest or values file raised), a real ``pulumi preview`` would fail."""
    return "a real `pulumi preview` would fail" if registered else "no resource was registered"
