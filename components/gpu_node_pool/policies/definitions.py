"""The CrossGuard policies of gpu-node-pools: ids, descriptions, levels, config, remediation.

Each policy is a module-level ``pulumi_policy`` object built from module-level validator
functions, so tests call ``policy.validate(args, report_violation)`` directly and the pack
(``policy/__main__.py``) only lists them. Taints and tolerations are matched with
:mod:`gpu_node_pool.taints`; pools are read back with the per-backend readers (see
:mod:`gpu_node_pool.policies.pools`).

Unknown values: resource policies let ``UnknownValueError`` propagate (the SDK reports an
advisory "can't run policy ... during preview"); stack policies judge every resource they
can, report the violations, then raise one ``UnknownValueError`` naming what stayed
undecided (:class:`~gpu_node_pool.policies.props.Undecided`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE

from ..config import DEFAULT_TAINT
from ..labels import DEFAULT_GPU_LABEL
from ..taints import Taint, TaintEffect, TaintError, Toleration, tolerates, untolerated_taints
from .imperative import imperative_taint_commands, user_data_texts
from .pools import (
    AUTOSCALING_TAG,
    CHART_TYPES,
    EC2_INSTANCE,
    GKE_NO_DEFAULT_PLUGIN_LABEL,
    LAUNCH_TEMPLATE,
    GpuPool,
    find_gpu_pools,
    gpu_pool_of,
)
from .props import Undecided, UnknownValueError, derived, dig, items, mapping, plain, text
from .quantity import parse_quantity
from .workloads import (
    NodeSelection,
    Workload,
    containers,
    kind_of,
    read_tolerations,
    selects_any_of,
    stay_on,
    workload_of,
)

__all__ = [
    "PACK_NAME",
    "POLICIES",
    "CONFIG_DEFAULTS",
    "no_imperative_taints",
    "gpu_pool_declares_taint",
    "daemonsets_tolerate_gpu_taints",
    "device_plugin_covers_gpu_pools",
    "gpu_toleration_allowlist",
    "gpu_workloads_select_gpu_nodes",
    "gpu_limits_well_formed",
    "noexecute_gpu_taint",
    "scale_from_zero_hints",
]

PACK_NAME = "gpu-node-pools"
GPU_RESOURCE = "nvidia.com/gpu"
_NS, _NE = TaintEffect.NO_SCHEDULE.value, TaintEffect.NO_EXECUTE.value
_EFFECTS = "|".join(e.value for e in TaintEffect)
#: JSON-schema pattern of a taint in kubelet form (``key[=value]:Effect``).
TAINT_PATTERN = rf"^[^=:\s]+(=[^:\s]*)?:({_EFFECTS})$"
_TAINT_LIST = {"type": "array", "items": {"type": "string", "pattern": TAINT_PATTERN}}
_DECLARE = (
    "Declare taints in the pool definition, where they survive node replacement: GpuNodePool `taints` "
    "(aws.eks.NodeGroup taints, gcp.container.NodePool node_config.taints, Karpenter NodePool "
    "spec.template.spec.taints, or kubelet registerWithTaints in self-managed user data)."
)

#: Config defaults per policy (also the JSON-schema ``default`` of each property).
CONFIG_DEFAULTS: dict[str, dict[str, Any]] = {
    "daemonsets-tolerate-gpu-taints": {
        "exemptions": [],
        "extraTaints": [],
        "extraPoolLabels": {DEFAULT_GPU_LABEL[0]: DEFAULT_GPU_LABEL[1]},
    },
    "gpu-toleration-allowlist": {
        "allowedNamespaces": ["kube-system", "nvidia-device-plugin", "gpu-operator"],
        "extraTaints": [str(DEFAULT_TAINT)],
    },
    "gpu-workloads-select-gpu-nodes": {
        "extraTaints": [str(DEFAULT_TAINT)],
        "gpuLabels": [f"{DEFAULT_GPU_LABEL[0]}={DEFAULT_GPU_LABEL[1]}"],
    },
    "gpu-limits-well-formed": {"resourceNames": [GPU_RESOURCE]},
}


def _config(args: Any, policy: str) -> dict[str, Any]:
    config = dict(CONFIG_DEFAULTS.get(policy, {}))
    config.update({k: v for k, v in dict(args.get_config() or {}).items() if v is not None})
    return config


def _parse_taints(values: Iterable[Any]) -> list[Taint]:
    out = []
    for value in values or []:
        try:
            out.append(Taint.parse(value))
        except TaintError:
            continue  # the config schema rejects these before a policy runs
    return out


def _stack_pools(args: StackValidationArgs, undecided: Undecided) -> list[GpuPool]:
    """:func:`find_gpu_pools` over the stack's resources; found once per evaluation when the
    runner gives the stack policies a shared cache (``args.derived``, see
    :func:`gpu_node_pool.policies.props.derived`), which the SDK does not: then each policy
    finds them. Policies only read the pools."""
    cache = derived(args)
    if cache is None:
        return find_gpu_pools(args.resources, undecided)
    found = cache.get("gpu_pools")
    if found is None:
        seen = Undecided()
        found = cache["gpu_pools"] = (find_gpu_pools(args.resources, seen), list(seen.items))
    pools, unknowns = found
    for what, err in unknowns:
        undecided.add(what, err)
    return list(pools)


def _resource(res: Any) -> str:
    return f"{res.resource_type} {res.name}"


def _fmt(taints: Iterable[Taint]) -> str:
    return ", ".join(str(t) for t in taints)


def _describe_tolerations(tolerations: Sequence[Toleration]) -> str:
    return "[" + ", ".join(str(t) for t in tolerations) + "]" if tolerations else "none"


# --- 1. no-imperative-taints ------------------------------------------------------------

_NODE_TYPES = ("kubernetes:core/v1:Node", "kubernetes:core/v1:NodePatch")
_NODE_LIST = "kubernetes:core/v1:NodeList"
_COMMANDS = ("command:local:Command", "command:remote:Command")
_GCE_STARTUP = (
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
    "gcp:compute/instance:Instance",
)


def _node_taints(spec_taints: Any) -> list[str]:
    shown = []
    for item in items(spec_taints):
        try:
            shown.append(str(Taint.from_k8s(plain(item))))
        except TaintError:
            shown.append(repr(plain(item)))
    return shown


def validate_no_imperative_taints(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """Flag node taints set outside the pool definition (Node/NodePatch, commands, user data, containers)."""
    t, props = args.resource_type, args.props
    found: list[str] = []
    if t in _NODE_TYPES:
        taints = _node_taints(dig(props, "spec", "taints"))
        if taints:
            found.append(f"spec.taints = [{', '.join(taints)}] on Node {text(dig(props, 'metadata', 'name')) or args.name!r}")
    elif t == _NODE_LIST:
        for i, node in enumerate(items(dig(props, "items"))):
            taints = _node_taints(dig(node, "spec", "taints"))
            if taints:
                found.append(f"items[{i}].spec.taints = [{', '.join(taints)}]")
    elif t in _COMMANDS:
        for field in ("create", "update", "delete"):
            for line in imperative_taint_commands(text(dig(props, field)) or ""):
                found.append(f"{field}: {line}")
    elif t in (LAUNCH_TEMPLATE, EC2_INSTANCE):
        for field in ("userData", "userDataBase64"):
            for body in user_data_texts(dig(props, field)):
                found += [f"{field}: {line}" for line in imperative_taint_commands(body)]
    elif t in _GCE_STARTUP:
        sources = {"metadataStartupScript": dig(props, "metadataStartupScript")}
        for key in ("startup-script", "user-data"):
            sources[f"metadata.{key}"] = dig(props, "metadata", key)
        for field, value in sources.items():
            for body in user_data_texts(value):
                found += [f"{field}: {line}" for line in imperative_taint_commands(body)]
    else:
        workload = workload_of(t, props, args.name)
        if workload is not None:
            for path, container in containers(workload.pod_spec):
                words = [str(w) for w in items(dig(container, "command"))] + [str(w) for w in items(dig(container, "args"))]
                for line in imperative_taint_commands(" ".join(words)):
                    found.append(f"{path} ({text(dig(container, 'name')) or '?'}) runs: {line}")
    found = list(dict.fromkeys(found))
    if found:
        report(
            f"{t} {args.name!r} sets node taints imperatively ({'; '.join(found)}). Nodes that an autoscaler "
            f"creates later come up without these taints. {_DECLARE}",
            None,
        )


no_imperative_taints = ResourceValidationPolicy(
    name="no-imperative-taints",
    description="Node taints are declared in the pool definition, never set with kubectl taint, Node patches or boot scripts.",
    validate=validate_no_imperative_taints,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Remove the kubectl taint / Node patch / user-data step and declare the taint on the pool: GpuNodePool "
        "`taints` (EKS NodeGroup.taints, GKE node_config.taints, Karpenter NodePool spec.template.spec.taints, "
        "self-managed kubelet registerWithTaints)."
    ),
)


# --- 2. gpu-pool-declares-taint ---------------------------------------------------------


def validate_gpu_pool_declares_taint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """A GPU pool declares at least one repelling taint (``TaintEffect.repels``)."""
    pool = gpu_pool_of(args.resource_type, args.props, args.name, args.urn)
    if pool is None:
        return
    if pool.extra.get("unreadable"):
        args.not_applicable(f"cannot read self-managed user data taints: {pool.problem}")
    if pool.problem:
        report(f"{pool.display}: its taints cannot be read ({pool.problem}); fix them in {pool.where}.", None)
        return
    if any(t.effect.repels for t in pool.taints):
        return
    soft = [t for t in pool.taints if not t.effect.repels]
    has = f"only {_fmt(soft)}, a scheduling preference, not a rule" if soft else "no taint"
    report(
        f"{pool.display} declares {has}: ordinary pods will be scheduled on its GPU nodes. Declare a "
        f"{TaintEffect.NO_SCHEDULE.value} taint such as {DEFAULT_TAINT} in {pool.where}.",
        None,
    )


gpu_pool_declares_taint = ResourceValidationPolicy(
    name="gpu-pool-declares-taint",
    description=(
        "Every GPU pool (EKS node group, GKE node pool, Karpenter NodePool, self-managed launch template) "
        f"declares a {_NS} or {_NE} taint."
    ),
    validate=validate_gpu_pool_declares_taint,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        f"Add a repelling taint to the pool, e.g. {DEFAULT_TAINT} (GpuNodePool `taints`); "
        f"{TaintEffect.PREFER_NO_SCHEDULE.value} alone only lowers a score."
    ),
)


# --- 3. daemonsets-tolerate-gpu-taints --------------------------------------------------


def _exempt(workload: Workload, exemptions: Iterable[Any]) -> bool:
    for ex in exemptions or []:
        if not isinstance(ex, Mapping) or ex.get("namespace") != workload.namespace:
            continue
        if ex.get("name") in (None, "", "*", workload.name):
            return True
    return False


def _outside_pool(taints: list[Taint], labels: Mapping[str, Any], source: str) -> GpuPool:
    return GpuPool(
        backend="outside this stack",
        resource_type="policy config",
        name=source,
        urn="",
        taints=taints,
        labels={str(k): str(v) for k, v in (labels or {}).items()},
        where="the pool's own definition",
    )


@dataclass
class _PoolChecks:
    """The pools a DaemonSet is judged against, prepared once per stack.

    ``taints``: the distinct repelling taints of all pools; ``groups``: the distinct sets of
    repelling taints (positions in ``taints``, each pool's order); ``pools``: ``(pool, its group,
    its display)``.
    """

    taints: list[Taint]
    groups: list[tuple[int, ...]]
    pools: list[tuple[GpuPool, int, str]]
    labels_known: bool = True  # no pool's node labels are unknown at preview
    _projections: dict[tuple[Any, ...], Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, pools: list[GpuPool]) -> _PoolChecks:
        taints: dict[Taint, int] = {}
        groups: dict[tuple[int, ...], int] = {}
        checks = []
        for pool in pools:
            group = tuple(taints.setdefault(t, len(taints)) for t in pool.taints if t.effect.repels)
            checks.append((pool, groups.setdefault(group, len(groups)), pool.display))
        return cls(list(taints), list(groups), checks, all(pool.labels is not None for pool in pools))

    def projection(self, keys: tuple[Any, ...]) -> tuple[list[tuple[Any, ...]], dict[tuple[Any, ...], Mapping[str, str]]]:
        """Per pool, its values of the label ``keys`` (:data:`_ABSENT` when missing), and the labels of
        one pool per distinct such values; made once per distinct ``keys``."""
        out = self._projections.get(keys)
        if out is None:
            values = [tuple([(pool.labels or {}).get(k, _ABSENT) for k in keys]) for pool, _, _ in self.pools]
            labels = {}
            for (pool, _, _), value in zip(self.pools, values, strict=True):
                if pool.labels is not None:
                    labels.setdefault(value, pool.labels)
            out = self._projections[keys] = (values, labels)
        return out


def _daemonset_failures(workload: Workload, tolerations: list[Toleration], checks: _PoolChecks,
                        undecided: Undecided) -> list[str]:
    """``"<pool>: <why>"`` for every pool whose nodes the DaemonSet would not run on and does not keep off.

    Tolerations are matched once per distinct taint and judged once per distinct set of pool
    taints, never per pool: a DaemonSet that tolerates them all costs nothing per pool. The pod
    spec's node selection is read once, and judged only for pools with a taint it does not
    tolerate, once per distinct value of the labels it looks at.
    """
    stays = [stay_on(tolerations, t) for t in checks.taints]
    bad = [None if stay.ok else stay.describe() for stay in stays]
    why_by_group = ["; ".join([bad[i] for i in group if bad[i] is not None]) for group in checks.groups]
    if not any(why_by_group):
        return []
    if checks.labels_known:
        try:
            read = NodeSelection.of(workload.pod_spec)
        except UnknownValueError:
            pass  # each pool it concerns is undecided: below
        else:
            # The verdict on a pool depends only on its values of the label keys the selection
            # reads: judge each distinct one once.
            projection, labels_of = checks.projection(read.keys)
            keeps_off = {key for key, labels in labels_of.items() if read.on(labels) is False}
            return [
                f"{display}: {why}"
                for (_, group, display), key in zip(checks.pools, projection, strict=True)
                if (why := why_by_group[group]) and key not in keeps_off
            ]
    selection: NodeSelection | UnknownValueError | None = None
    projection: list[tuple[Any, ...]] = []
    on_labels: dict[tuple[Any, ...], bool | None] = {}
    failures: list[str] = []
    rows = checks.pools
    for i in range(len(rows)):
        pool, group, display = rows[i]
        why = why_by_group[group]
        if not why:
            continue  # every repelling taint of the pool tolerated for good
        labels = pool.labels
        if labels is None:
            undecided.add(f"{workload.display} on {display}", UnknownValueError(UNKNOWN_STRING_VALUE, [pool.name, "labels"]))
            continue
        if selection is None:
            try:
                selection = NodeSelection.of(workload.pod_spec)
                projection = checks.projection(selection.keys)[0]
            except UnknownValueError as err:
                selection = err
        if isinstance(selection, UnknownValueError):
            undecided.add(f"{workload.display} on {display}", selection)
            continue
        # The verdict depends only on the pool's values of the label keys the selection reads.
        key = projection[i]
        selected = on_labels.get(key, _ABSENT)
        if selected is _ABSENT:
            selected = on_labels[key] = selection.on(labels)
        if selected is False:
            continue  # keeps off the pool's nodes
        failures.append(f"{display}: {why}")
    return failures


_ABSENT: Any = object()


def validate_daemonsets_tolerate_gpu_taints(args: StackValidationArgs, report: ReportViolation) -> None:
    """Every DaemonSet tolerates every taint of every GPU pool, or keeps off GPU nodes."""
    config = _config(args, "daemonsets-tolerate-gpu-taints")
    undecided = Undecided()
    pools = [p for p in _stack_pools(args, undecided) if not p.problem]
    extra = _parse_taints(config.get("extraTaints"))
    if extra:
        pools.append(_outside_pool(extra, config.get("extraPoolLabels") or {}, "extraTaints (policy config)"))
    if not pools:
        undecided.raise_if_any()
        return
    checks = _PoolChecks.of(pools)
    exemptions = config.get("exemptions")
    for res in args.resources:
        if kind_of(res.resource_type) != "DaemonSet":
            continue
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            assert workload is not None
            if _exempt(workload, exemptions):
                continue
            tolerations, problems = read_tolerations(workload.pod_spec)
        except UnknownValueError as err:
            undecided.add(f"{_resource(res)}", err)
            continue
        failures = _daemonset_failures(workload, tolerations, checks, undecided)
        if failures:
            note = f" ({'; '.join(problems)})" if problems else ""
            report(
                f"DaemonSet {workload.namespace}/{workload.name} will not run on GPU nodes and does not keep off "
                f"them: {' | '.join(failures)}. Its tolerations: {_describe_tolerations(tolerations)}{note}. "
                "Tolerate each taint (operator Exists with the taint's key and effect) or keep the DaemonSet off "
                f"GPU nodes with a required node affinity ({DEFAULT_GPU_LABEL[0]} NotIn [{DEFAULT_GPU_LABEL[1]}]).",
                res.urn,
            )
    undecided.raise_if_any()


daemonsets_tolerate_gpu_taints = StackValidationPolicy(
    name="daemonsets-tolerate-gpu-taints",
    description="Every DaemonSet tolerates every taint of every GPU pool, or keeps off GPU nodes through nodeSelector or required node affinity.",
    validate=validate_daemonsets_tolerate_gpu_taints,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "exemptions": {
                "type": "array",
                "description": "DaemonSets not checked: {namespace, name}; without name (or '*') the whole namespace.",
                "items": {
                    "type": "object",
                    "properties": {"namespace": {"type": "string"}, "name": {"type": "string"}},
                    "required": ["namespace"],
                    "additionalProperties": False,
                },
                "default": CONFIG_DEFAULTS["daemonsets-tolerate-gpu-taints"]["exemptions"],
            },
            "extraTaints": {
                **_TAINT_LIST,
                "description": "Taints of GPU pools outside this stack, kubelet form key=value:Effect.",
                "default": CONFIG_DEFAULTS["daemonsets-tolerate-gpu-taints"]["extraTaints"],
            },
            "extraPoolLabels": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "Node labels of those outside pools (a DaemonSet that cannot match them keeps off).",
                "default": CONFIG_DEFAULTS["daemonsets-tolerate-gpu-taints"]["extraPoolLabels"],
            },
        }
    ),
    remediation_steps=(
        "Give the DaemonSet a toleration per GPU pool taint ({key, operator: Exists, effect}) or a catch-all "
        f"if it is a node agent; or keep it off GPU nodes with a required node affinity on {DEFAULT_GPU_LABEL[0]}. "
        f"A {_NE} toleration with tolerationSeconds only delays eviction."
    ),
)


# --- 4. device-plugin-covers-gpu-pools --------------------------------------------------


def _is_plugin_image(image: Any) -> bool:
    return isinstance(image, str) and "k8s-device-plugin" in image


def _plugin_daemonsets(resources: Sequence[Any], undecided: Undecided) -> list[tuple[str, Mapping[str, Any]]]:
    """``(display, pod spec)`` of every NVIDIA device plugin: DaemonSets running its image, else chart values."""
    from ..device_plugin.chart import chart_daemonset

    found: list[tuple[str, Mapping[str, Any]]] = []
    for res in resources:
        if kind_of(res.resource_type) != "DaemonSet":
            continue
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            assert workload is not None
            if any(_is_plugin_image(dig(c, "image")) for _, c in containers(workload.pod_spec)):
                found.append((f"DaemonSet {workload.namespace}/{workload.name}", workload.pod_spec))
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
    if found:
        return found
    for res in resources:  # no child visible (helm.v3.Release, or chart values unknown at preview)
        if res.resource_type not in CHART_TYPES:
            continue
        try:
            chart = text(dig(res.props, "chart")) or ""
            if "nvidia-device-plugin" not in chart:
                continue
            values = plain(mapping(dig(res.props, "values")))
            namespace = text(dig(res.props, "namespace")) or "default"
            release = text(dig(res.props, "name")) or res.name
            ds = chart_daemonset(values, namespace, release)
            if ds is not None:
                found.append((f"chart {chart} {res.name!r} (its DaemonSet from the chart values)", ds["spec"]["template"]["spec"]))
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
    return found


def _read_plugins(
    plugins: list[tuple[str, Mapping[str, Any]]],
) -> list[tuple[str, list[Toleration], NodeSelection | UnknownValueError]]:
    """Each plugin's tolerations and node selection, read once for every pool: ``(display, tolerations,
    selection)``, the selection being the ``UnknownValueError`` met while reading either."""
    out: list[tuple[str, list[Toleration], NodeSelection | UnknownValueError]] = []
    for display, pod_spec in plugins:
        try:
            tolerations, _ = read_tolerations(pod_spec)
            node_selection: NodeSelection | UnknownValueError = NodeSelection.of(pod_spec)
        except UnknownValueError as err:
            tolerations, node_selection = [], err
        out.append((display, tolerations, node_selection))
    return out


def validate_device_plugin_covers_gpu_pools(args: StackValidationArgs, report: ReportViolation) -> None:
    """GPU pools that need NVIDIA's device plugin have one that tolerates their taints and selects their nodes."""
    undecided = Undecided()
    pools = [p for p in _stack_pools(args, undecided) if not p.problem]
    needing = [p for p in pools if p.needs_nvidia_device_plugin]
    plugins = _plugin_daemonsets(args.resources, undecided) if pools else []
    if needing and not plugins:
        names = ", ".join(p.display for p in needing)
        report(
            f"No NVIDIA device plugin in this stack, but these pools need one: {names}. Without it their nodes advertise no "
            f"{GPU_RESOURCE} and GPU pods stay Pending. Add NvidiaDevicePlugin (the nvidia-device-plugin chart) "
            "with tolerations and node affinity derived from the pools.",
            None,
        )
    read: list[tuple[str, list[Toleration], NodeSelection | UnknownValueError]] | None = None
    for pool in needing if plugins else []:
        if pool.labels is None:
            undecided.add(pool.display, UnknownValueError(UNKNOWN_STRING_VALUE, [pool.name, "labels"]))
            continue
        reasons = []
        covered = False
        read = read if read is not None else _read_plugins(plugins)
        for display, tolerations, node_selection in read:
            if isinstance(node_selection, UnknownValueError):
                undecided.add(f"{display} on {pool.display}", node_selection)
                continue
            selected = node_selection.on(pool.labels)
            missing = [stay_on(tolerations, t) for t in pool.taints if t.effect.repels]
            missing = [s for s in missing if not s.ok]
            if selected is True and not missing:
                covered = True
                break
            why = []
            if selected is not True:
                why.append(
                    "its nodeSelector/required node affinity "
                    + ("excludes" if selected is False else "does not surely match")
                    + f" the pool's node labels {dict(sorted(pool.labels.items()))}"
                )
            if missing:
                why.append("; ".join(s.describe() for s in missing))
            reasons.append(f"{display}: {', and '.join(why)}")
        if not covered and reasons:
            report(
                f"The NVIDIA device plugin does not cover {pool.display}: {' | '.join(reasons)}. Its nodes would "
                f"advertise no {GPU_RESOURCE}. Derive the plugin's tolerations (one Exists toleration per pool taint) "
                "and node affinity (the pool's GPU label) from the pools (NvidiaDevicePlugin does).",
                pool.urn or None,
            )
    for pool in pools:  # two plugins on one GKE node fight over nvidia.com/gpu
        if not pool.gke_managed_plugin or pool.labels is None:
            continue
        read = read if read is not None else _read_plugins(plugins)
        for display, tolerations, node_selection in read:
            if isinstance(node_selection, UnknownValueError):
                undecided.add(f"{display} on {pool.display}", node_selection)
                continue
            on_pool = node_selection.on(pool.labels) is True and not untolerated_taints(
                tolerations, [t for t in pool.taints if t.effect.repels]
            )
            if on_pool:
                report(
                    f"{display} would run on {pool.display}, where GKE already runs its own device plugin: both "
                    f"advertise {GPU_RESOURCE} and allocations fail intermittently. Label the pool "
                    f"{GKE_NO_DEFAULT_PLUGIN_LABEL}=true with gpu_driver_version INSTALLATION_DISABLED, or keep "
                    "NVIDIA's plugin off it.",
                    pool.urn or None,
                )
    undecided.raise_if_any()


device_plugin_covers_gpu_pools = StackValidationPolicy(
    name="device-plugin-covers-gpu-pools",
    description="GPU pools that need NVIDIA's device plugin (EKS, Karpenter, self-managed, GKE opted out) have one that tolerates every pool taint and whose node affinity matches the pools' labels.",
    validate=validate_device_plugin_covers_gpu_pools,
    enforcement_level=EnforcementLevel.MANDATORY,
    remediation_steps=(
        "Install NvidiaDevicePlugin once per cluster with all its GPU pools: it derives one Exists toleration per "
        "pool taint (plus CriticalAddonsOnly) and a required node affinity on the pools' GPU label. Pools on "
        "Bottlerocket NVIDIA AMIs and GKE-managed pools bring their own plugin."
    ),
)


# --- 5. gpu-toleration-allowlist --------------------------------------------------------


def _stack_gpu_taints(args: StackValidationArgs, config: Mapping[str, Any], undecided: Undecided) -> list[Taint]:
    return _gpu_taints(_stack_pools(args, undecided), config)


def _gpu_taints(pools: Iterable[GpuPool], config: Mapping[str, Any]) -> list[Taint]:
    """The distinct taints of ``pools`` and of the policy's ``extraTaints``, in order."""
    taints: list[Taint] = []
    for pool in pools:
        taints += [t for t in pool.taints if t not in taints]
    taints += [t for t in _parse_taints(config.get("extraTaints")) if t not in taints]
    return taints


def validate_gpu_toleration_allowlist(args: StackValidationArgs, report: ReportViolation) -> None:
    """Only allow-listed namespaces carry tolerations of GPU pool taints, or catch-all tolerations."""
    config = _config(args, "gpu-toleration-allowlist")
    allowed = set(config.get("allowedNamespaces") or [])
    undecided = Undecided()
    gpu_taints = _stack_gpu_taints(args, config, undecided)
    for res in args.resources:
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            if workload is None or workload.namespace in allowed:
                continue
            tolerations, _ = read_tolerations(workload.pod_spec)
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
            continue
        offending = []
        for tol in tolerations:
            if tol.is_catch_all:
                offending.append(f"catch-all toleration {tol}")
                continue
            hit = [t for t in gpu_taints if tolerates(tol, t)]
            if hit:
                offending.append(f"toleration {tol} (tolerates {_fmt(hit)})")
        if offending:
            report(
                f"{workload.display} carries {'; '.join(offending)}, but namespace {workload.namespace!r} is not "
                f"allowed to tolerate GPU taints (allowedNamespaces: {sorted(allowed)}). A toleration only permits; "
                "remove it, or add the namespace to allowedNamespaces if it runs GPU work or node agents.",
                res.urn,
            )
    undecided.raise_if_any()


gpu_toleration_allowlist = StackValidationPolicy(
    name="gpu-toleration-allowlist",
    description="Only allow-listed namespaces may carry tolerations for GPU pool taints, or a catch-all toleration (empty key with Exists).",
    validate=validate_gpu_toleration_allowlist,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "allowedNamespaces": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Namespaces whose pods may tolerate GPU taints (GPU workloads, node agents).",
                "default": CONFIG_DEFAULTS["gpu-toleration-allowlist"]["allowedNamespaces"],
            },
            "extraTaints": {
                **_TAINT_LIST,
                "description": "GPU taints of pools outside this stack, kubelet form key=value:Effect.",
                "default": CONFIG_DEFAULTS["gpu-toleration-allowlist"]["extraTaints"],
            },
        }
    ),
    remediation_steps=(
        "Remove the GPU toleration from ordinary workloads, or list the namespace in the policy's "
        "allowedNamespaces (policy pack config) when it hosts GPU workloads or node agents."
    ),
)


# --- 6. gpu-workloads-select-gpu-nodes --------------------------------------------------


def _requests_gpu(pod_spec: Mapping[str, Any], resource: str = GPU_RESOURCE) -> bool:
    for _, container in containers(pod_spec):
        for field in ("limits", "requests"):
            qty = parse_quantity(dig(container, "resources", field, resource))
            if qty is not None and qty > 0:
                return True
    return False


def validate_gpu_workloads_select_gpu_nodes(args: StackValidationArgs, report: ReportViolation) -> None:
    """A pod template that tolerates a GPU taint also selects GPU nodes or requests nvidia.com/gpu."""
    config = _config(args, "gpu-workloads-select-gpu-nodes")
    undecided = Undecided()
    pools = _stack_pools(args, undecided)
    gpu_taints = _gpu_taints(pools, config)
    pairs = {(k, v) for p in pools if p.labels for k, v in p.labels.items()}
    for label in config.get("gpuLabels") or []:
        key, _, value = str(label).partition("=")
        pairs.add((key, value))
    for res in args.resources:
        try:
            workload = workload_of(res.resource_type, res.props, res.name)
            if workload is None or workload.kind == "DaemonSet":  # node agents tolerate to run everywhere
                continue
            tolerations, _ = read_tolerations(workload.pod_spec)
            targeted = [t for t in gpu_taints if any(not tol.is_catch_all and tolerates(tol, t) for tol in tolerations)]
            if not targeted:
                continue
            if _requests_gpu(workload.pod_spec) or selects_any_of(workload.pod_spec, pairs):
                continue
        except UnknownValueError as err:
            undecided.add(_resource(res), err)
            continue
        report(
            f"{workload.display} tolerates GPU taint(s) {_fmt(targeted)} but neither selects GPU nodes nor requests "
            f"{GPU_RESOURCE}: a toleration permits, it never attracts, so it may land on any node, and takes GPU "
            f"node room when it does. Add a nodeSelector on the pool's GPU label (e.g. "
            f"{DEFAULT_GPU_LABEL[0]}: \"{DEFAULT_GPU_LABEL[1]}\"), or request {GPU_RESOURCE} in limits, or drop "
            "the toleration.",
            res.urn,
        )
    undecided.raise_if_any()


gpu_workloads_select_gpu_nodes = StackValidationPolicy(
    name="gpu-workloads-select-gpu-nodes",
    description="A pod template that tolerates a GPU taint also selects GPU nodes (nodeSelector or required node affinity on the pool label) or requests nvidia.com/gpu.",
    validate=validate_gpu_workloads_select_gpu_nodes,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "extraTaints": {
                **_TAINT_LIST,
                "description": "GPU taints of pools outside this stack, kubelet form key=value:Effect.",
                "default": CONFIG_DEFAULTS["gpu-workloads-select-gpu-nodes"]["extraTaints"],
            },
            "gpuLabels": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[^=]+=.*$"},
                "description": "key=value node labels that mean 'a GPU node' besides the stack's pool labels.",
                "default": CONFIG_DEFAULTS["gpu-workloads-select-gpu-nodes"]["gpuLabels"],
            },
        }
    ),
    remediation_steps=(
        "Add nodeSelector (or required node affinity) on the GPU pool's label, or request nvidia.com/gpu in "
        "limits; a toleration alone lets the pod anywhere."
    ),
)


# --- 7. gpu-limits-well-formed ----------------------------------------------------------


def _quantity_problem(resource: str, limits: Any, requests: Any, has_limit: bool, has_request: bool) -> str | None:
    if not has_limit:
        return f"{resource} is in requests ({requests!r}) but not in limits; extended resources are set in limits"
    limit = parse_quantity(limits)
    if limit is None or limit.denominator != 1 or limit < 0:
        return f"limits {resource} = {limits!r} is not a whole number of GPUs"
    if has_request:
        request = parse_quantity(requests)
        if request != limit:
            return f"requests {resource} = {requests!r} differs from limits {limits!r}; set requests equal to limits or drop them"
    return None


def validate_gpu_limits_well_formed(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """``nvidia.com/gpu`` is in limits; requests, if present, equal limits; a whole number."""
    workload = workload_of(args.resource_type, args.props, args.name)
    if workload is None:
        return
    names = _config(args, "gpu-limits-well-formed").get("resourceNames") or [GPU_RESOURCE]
    problems = []
    for path, container in containers(workload.pod_spec):
        limits = mapping(dig(container, "resources", "limits"))
        requests = mapping(dig(container, "resources", "requests"))
        for resource in names:
            missing = object()
            limit = dig(limits, resource, default=missing)
            request = dig(requests, resource, default=missing)
            if limit is missing and request is missing:
                continue
            problem = _quantity_problem(resource, limit, request, limit is not missing, request is not missing)
            if problem:
                problems.append(f"{path} ({text(dig(container, 'name')) or '?'}): {problem}")
    if problems:
        report(
            f"{workload.display}: {'; '.join(problems)}. The API server rejects these pods or they never fit: GPUs "
            f"are requested as a whole number in limits (requests, if set, equal).",
            None,
        )


gpu_limits_well_formed = ResourceValidationPolicy(
    name="gpu-limits-well-formed",
    description="nvidia.com/gpu is set in limits; requests, if present, equal limits; the value is a whole number.",
    validate=validate_gpu_limits_well_formed,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "resourceNames": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Extended resources checked (e.g. add MIG resources nvidia.com/mig-1g.10gb).",
                "default": CONFIG_DEFAULTS["gpu-limits-well-formed"]["resourceNames"],
            }
        }
    ),
    remediation_steps="Write resources.limits[\"nvidia.com/gpu\"]: N (a whole number); drop requests or set them equal.",
)


# --- 8. noexecute-gpu-taint -------------------------------------------------------------


def validate_noexecute_gpu_taint(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """A GPU pool's evicting taint (``TaintEffect.evicts``) evicts node agents that do not tolerate it."""
    pool = gpu_pool_of(args.resource_type, args.props, args.name, args.urn)
    if pool is None:
        return
    evicting = [t for t in pool.taints if t.effect.evicts]
    if evicting:
        softer = [Taint(t.key, t.value, TaintEffect.NO_SCHEDULE) for t in evicting]
        report(
            f"{pool.display} has {_fmt(evicting)}: {TaintEffect.NO_EXECUTE.value} also evicts running pods that do "
            "not tolerate it (log and metric agents, CSI node plugins, a device plugin tolerating only "
            f"{TaintEffect.NO_SCHEDULE.value}), and agents tolerating it with tolerationSeconds leave after that "
            f"time. Prefer {_fmt(softer)}.",
            None,
        )


noexecute_gpu_taint = ResourceValidationPolicy(
    name="noexecute-gpu-taint",
    description=f"A {_NE} taint on a GPU pool evicts agents that don't tolerate it; {_NS} is suggested.",
    validate=validate_noexecute_gpu_taint,
    enforcement_level=EnforcementLevel.ADVISORY,
    remediation_steps=f"Use {_NS} for GPU pool taints unless running pods must really be evicted.",
)


# --- 9. scale-from-zero-hints -----------------------------------------------------------


def _tag_map(tags: Any) -> dict[str, str]:
    out = {}
    if isinstance(tags, Mapping):
        return {str(k): v for k, v in tags.items() if isinstance(v, str)}
    for tag in items(tags):
        key, value = text(dig(tag, "key")), dig(tag, "value")
        if key is not None and isinstance(value, str):
            out[key] = value
    return out


def _compare(pool: GpuPool, tags: Mapping[str, str]) -> list[str]:
    from ..backends._cluster_autoscaler import CA_LABEL_PREFIX, CA_TAINT_PREFIX, read_ca_node_template_tags

    ca = {k: v for k, v in tags.items() if k.startswith((CA_LABEL_PREFIX, CA_TAINT_PREFIX))}
    try:
        ca_taints, ca_labels = read_ca_node_template_tags(ca)
    except TaintError as err:
        return [f"a node-template taint tag is malformed: {err}"]
    issues = []
    want = sorted(str(t) for t in pool.taints)
    have = sorted(str(t) for t in ca_taints)
    if want != have:
        missing = sorted(set(want) - set(have))
        extra = sorted(set(have) - set(want))
        detail = ", ".join(
            part for part in (f"missing {missing}" if missing else "", f"not on the nodes {extra}" if extra else "") if part
        )
        issues.append(f"taint tags differ from the pool's taints ({detail})")
    if pool.labels is not None and ca_labels != pool.labels:
        missing = sorted(f"{k}={v}" for k, v in pool.labels.items() if ca_labels.get(k) != v)
        extra = sorted(f"{k}={v}" for k, v in ca_labels.items() if pool.labels.get(k) != v)
        detail = ", ".join(
            part for part in (f"missing {missing}" if missing else "", f"not on the nodes {extra}" if extra else "") if part
        )
        issues.append(f"label tags differ from the pool's labels ({detail})")
    return issues


def _tag_index(resources: Sequence[Any]) -> tuple[dict[str, Any], dict[str, list[int]], list[Any]]:
    """``(resource by URN (the first with it), URN -> positions in the Tag list of the Tags that depend
    on it (``linked``), the aws:autoscaling/tag:Tag resources in stack order)``: built once per stack."""
    by_urn: dict[str, Any] = {}
    for res in resources:
        by_urn.setdefault(res.urn, res)
    tags = [res for res in resources if res.resource_type == AUTOSCALING_TAG]
    by_owner: dict[str, list[int]] = {}
    for i, res in enumerate(tags):
        urns = {getattr(d, "urn", None) for d in getattr(res, "dependencies", None) or []}
        for deps in (getattr(res, "property_dependencies", None) or {}).values():
            urns.update(getattr(d, "urn", None) for d in deps)
        for urn in urns:
            if urn:
                by_owner.setdefault(urn, []).append(i)
    return by_urn, by_owner, tags


def validate_scale_from_zero_hints(args: StackValidationArgs, report: ReportViolation) -> None:
    """Node groups/ASGs with min size 0 carry CA node-template tags matching their taints and labels."""
    undecided = Undecided()
    index: tuple[dict[str, Any], dict[str, list[int]], list[Any]] | None = None
    for pool in _stack_pools(args, undecided):
        if pool.min_size != 0 or pool.problem or pool.backend not in ("eks-managed", "self-managed"):
            continue
        by_urn, tags_by_owner, tag_resources = index = index or _tag_index(args.resources)
        target = by_urn.get(pool.urn)
        try:
            tags: dict[str, str] = {}
            groups = pool.extra.get("asgs", [])
            for group in groups:
                tags.update(_tag_map(dig(group.props, "tags")))
            owners = [target, *groups] if target is not None else list(groups)
            # Auto Scaling group tags that depend on the pool or one of its groups (``linked``), in stack order.
            linked_tags = sorted({i for o in owners for i in tags_by_owner.get(getattr(o, "urn", None) or "", ())})
            for res in (tag_resources[i] for i in linked_tags):
                tag = dig(res.props, "tag")
                key, value = text(dig(tag, "key")), dig(tag, "value")
                if key is not None and isinstance(value, str):
                    tags[key] = value
        except UnknownValueError as err:
            undecided.add(pool.display, err)
            continue
        issues = _compare(pool, tags) if tags else ["no Cluster Autoscaler node-template tags"]
        if issues:
            labels_note = "" if pool.labels is not None else " (labels not compared: unknown)"
            report(
                f"{pool.display} scales from zero (minSize 0) but its Auto Scaling group's tags do not describe its "
                f"nodes: {'; '.join(issues)}{labels_note}. Cluster Autoscaler builds the template node of an empty "
                "group from k8s.io/cluster-autoscaler/node-template/label/<key> = <value> and .../taint/<key> = "
                "<value>:<Effect>; a mismatch makes it scale a group whose nodes the pending pod cannot use, or none.",
                pool.urn or None,
            )
    undecided.raise_if_any()


scale_from_zero_hints = StackValidationPolicy(
    name="scale-from-zero-hints",
    description="Node groups and Auto Scaling groups with min size 0 carry Cluster Autoscaler node-template tags that match their taints and labels exactly (key, value and effect).",
    validate=validate_scale_from_zero_hints,
    enforcement_level=EnforcementLevel.ADVISORY,
    remediation_steps=(
        "Tag the Auto Scaling group with k8s.io/cluster-autoscaler/node-template/label/<key> and "
        "/taint/<key> = <value>:<Effect> for every label and taint (GpuNodePool does it for minSize 0)."
    ),
)


#: Every policy of the pack, in the order of the README table.
POLICIES: list[Any] = [
    no_imperative_taints,
    gpu_pool_declares_taint,
    daemonsets_tolerate_gpu_taints,
    device_plugin_covers_gpu_pools,
    gpu_toleration_allowlist,
    gpu_workloads_select_gpu_nodes,
    gpu_limits_well_formed,
    noexecute_gpu_taint,
    scale_from_zero_hints,
]

