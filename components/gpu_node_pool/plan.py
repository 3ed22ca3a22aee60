"""Offline plan: run the real program under Pulumi mocks, record every resource, report.

``gpupool plan --stack dev`` loads ``stacks/Pulumi.dev.yaml``, validates it, runs the
project's ``__main__.py`` with ``pulumi.runtime.set_mocks`` in preview mode (outputs the
cloud would compute stay unknown), records each registered resource with its inputs, and
reads taints, labels, tags and tolerations *back from those inputs* with the same readers
the policies use. No cloud API and no Kubernetes API is called.

Exit codes: 0 clean, 1 a mandatory policy failed (or the device plugin misses a pool
taint), 2 the stack config is invalid.
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
from typing import Any

import yaml

from .config import (
    PROJECT,
    ConfigError,
    ConfigIssue,
    StackConfig,
    load_stack_config,
    read_stack_file,
)

__all__ = ["Recorded", "PlanResult", "find_project", "load_stack_file", "record_program", "plan_stack", "UNKNOWN"]

#: How a value unknown at preview is shown (and stored) in the plan.
UNKNOWN = "(known after apply)"
#: How a Pulumi secret input is shown in the plan (the value itself never is).
SECRET = "[secret]"
#: What the offline plan's mocks answer for an SSM AMI parameter (no AWS call is made).
FAKE_AMI_ID = "ami-0123456789abcdef0"


@dataclass
class Recorded:
    """One resource the program registered: Pulumi type token, name and inputs (camelCase)."""

    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool = True
    #: URN, parent URN and the URNs it depends on (all and per input key), as the engine
    #: would pass them to a stack policy.
    urn: str = ""
    parent: str = ""
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    #: Non-empty for a record the plan made up rather than one the program registered.
    synthesized: str = ""


@dataclass
class PlanResult:
    """What a plan found. ``exit_code``: 0 clean, 1 policy failure, 2 config error."""

    stack: str
    resources: list[Recorded] = field(default_factory=list)
    config: StackConfig | None = None
    config_issues: list[ConfigIssue] = field(default_factory=list)
    config_source: str = ""
    pools: list[dict[str, Any]] = field(default_factory=list)
    device_plugin: dict[str, Any] | None = None
    violations: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        if self.config_issues:
            return 2
        if any(v.get("enforcement") == "mandatory" for v in self.violations):
            return 1
        if self.device_plugin and not all(c["tolerated"] for c in self.device_plugin["coverage"]):
            return 1
        return 0


def find_project(start: str | os.PathLike[str] | None = None) -> Path:
    """The directory holding ``Pulumi.yaml``, searching upwards from ``start`` (default: cwd)."""
    here = Path(start or os.getcwd()).resolve()
    for d in (here, *here.parents):
        if (d / "Pulumi.yaml").is_file():
            return d
    raise FileNotFoundError(f"no Pulumi.yaml in {here} or above; run from the project directory or pass --project-dir")


def load_stack_file(project_dir: Path, stack: str) -> tuple[dict[str, Any], list[str], Path]:
    """Read ``<stackConfigDir>/Pulumi.<stack>.yaml``; returns the runtime config, secret keys and path."""
    project = yaml.safe_load((project_dir / "Pulumi.yaml").read_text()) or {}
    config_dir = project_dir / project.get("stackConfigDir", ".")
    path = config_dir / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        available = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in config_dir.glob("Pulumi.*.yaml"))
        raise FileNotFoundError(f"no stack file {path}; stacks here: {', '.join(available) or 'none'}")
    config, secrets = read_stack_file(path.read_bytes(), path.name)
    return config, secrets, path


def _plain(value: Any) -> Any:
    """Mock inputs -> JSON-able plain values; preview unknowns become :data:`UNKNOWN`."""
    from pulumi.output import Unknown
    from pulumi.runtime import rpc

    if isinstance(value, Unknown):
        return UNKNOWN
    if isinstance(value, Mapping):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return SECRET  # a Pulumi secret: never shown, never stored in the plan
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def record_program(
    program: Path,
    config: Mapping[str, Any],
    secret_keys: list[str] | None = None,
    *,
    stack: str = "dev",
    preview: bool = True,
    sink: list[Recorded] | None = None,
) -> tuple[list[Recorded], dict[str, Any]]:
    """Run a Pulumi Python program file under mocks and return ``(resources, stack outputs)``.

    Raises whatever the program raises (``pulumi.RunError`` wrapping :class:`ConfigError`
    for a config mistake).
    """
    program_dir = str(program.parent)
    sys.path.insert(0, program_dir)
    try:
        return record(
            lambda: runpy.run_path(str(program), run_name="__main__"),
            config,
            secret_keys,
            stack=stack,
            preview=preview,
            sink=sink,
        )
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
) -> tuple[list[Recorded], dict[str, Any]]:
    """Run ``program()`` (a callable that declares resources) under Pulumi mocks.

    Returns ``(resources, stack outputs)``: every registered resource in registration
    order with its inputs as plain values (unknowns as :data:`UNKNOWN`). ``sink``, if
    given, receives each resource as it registers, so a caller can see what was registered
    even when the program raises.
    """
    import pulumi
    from pulumi.runtime import stack as rt_stack
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.sync_await import _sync_await

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
            return {}

    pulumi.runtime.set_all_config(dict(config or {}), list(secret_keys or []))
    # A fresh root stack per run, so several plans can run in one process.
    from pulumi.runtime import settings

    settings.ROOT.set(None)
    mocks = _Mocks()
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=preview, monitor=_Monitor(mocks))
    settings.SETTINGS.rpc_manager.clear()
    settings.SETTINGS.outputs.clear()
    # What exists before the program (the provider SDKs' modules: hundreds of thousands of
    # objects) is left out of the collector's full passes while the program runs; a 100-pool
    # plan spent about a quarter of its time walking them.
    gc.freeze()
    try:
        _sync_await(rt_stack.run_pulumi_func(program))
        root = pulumi.runtime.get_root_resource()
        exported = list((getattr(root, "outputs", None) or {}).items())

        async def values() -> list[Any]:  # one turn of the event loop for all of them, in order
            return [await _output_value(out) for _, out in exported]

        outputs = dict(zip((key for key, _ in exported), _sync_await(values()) if exported else [], strict=True))
    finally:
        gc.unfreeze()
    return [dataclasses.replace(r, inputs=_plain(r.inputs)) for r in recorded], outputs


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
    from .render import device_plugin as dp

    if chart.type != "kubernetes:helm.sh/v4:Chart" or chart.inputs.get("chart") != dp.CHART:
        return None
    inputs = _plain(chart.inputs)
    if UNKNOWN in json.dumps(inputs):
        return None
    namespace = inputs.get("namespace") or "default"
    release = inputs.get("name") or chart.name
    ds = dp.chart_daemonset(inputs.get("values") or {}, namespace, release)
    if ds is None:
        return None
    prefix = inputs.get("resourcePrefix", chart.name)
    name = f"{ds['metadata']['namespace']}/{ds['metadata']['name']}"
    name = f"{prefix}:{name}" if prefix else name
    ds_type = "kubernetes:apps/v1:DaemonSet"
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
        return _plain(await out.future())
    return _plain(out)


def plan_stack(
    stack: str,
    project_dir: str | os.PathLike[str] | None = None,
    policy_config: Mapping[str, Any] | None = None,
) -> PlanResult:
    """Validate and run the stack offline; returns a :class:`PlanResult` (never calls a cloud API).

    Every policy of the pack (:mod:`gpu_node_pool.policies`) is then evaluated over the
    recorded resources as a preview would; ``policy_config`` is a ``--policy-pack-config``
    mapping (``{"all": level, "<policy>": level | {"enforcementLevel": ..., <props>}}``).

    Raises:
        gpu_node_pool.policies.PolicyConfigError: ``policy_config`` is invalid.
    """
    import pulumi

    project = find_project(project_dir)
    result = PlanResult(stack=stack)
    try:
        config, secrets, path = load_stack_file(project, stack)
        result.config = load_stack_config(config, path.name, set(secrets).__contains__)
    except ConfigError as err:
        result.config_issues = err.issues
        result.config_source = err.source
        return result
    try:
        result.resources, result.outputs = record_program(project / "__main__.py", config, secrets, stack=stack)
    except pulumi.RunError as err:
        if isinstance(err.__cause__, ConfigError):
            result.config_issues = err.__cause__.issues
            result.config_source = err.__cause__.source
            return result
        raise
    _summarise(result)
    _check_policies(result, policy_config)
    return result


def _check_policies(result: PlanResult, policy_config: Mapping[str, Any] | None) -> None:
    """Fill ``result.violations``: every policy of the pack over the recorded resources."""
    from .policies import evaluate

    result.violations = evaluate(result.resources, policy_config, stack=result.stack, project=PROJECT)


def _by_name(resources: list[Recorded]) -> dict[tuple[str, str], Recorded]:
    return {(r.type, r.name): r for r in resources}


def _summarise(result: PlanResult) -> None:
    from .render import device_plugin as dp

    assert result.config is not None
    index = _by_name(result.resources)
    for pool in result.config.pools:
        entry: dict[str, Any] = {"name": pool.name, "backend": pool.backend}
        summarise = _BACKEND_SUMMARIES.get(pool.backend)
        if summarise is not None:
            summarise(pool, entry, index, result.resources)
        if f"{pool.name}.bootstrap" in result.outputs:  # rendered only, no cloud resources (provider none)
            _summarise_bootstrap_output(pool, entry, result.outputs[f"{pool.name}.bootstrap"])
        # A backend's summary may say who serves the pool instead (GKE: "managed by GKE").
        entry.setdefault(
            "device_plugin", "nvidia-device-plugin chart" if pool.uses_nvidia_device_plugin else "ships its own"
        )
        result.pools.append(entry)

    chart = next((r for r in result.resources if r.type == "kubernetes:helm.sh/v4:Chart"), None)
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
                for c in dp.coverage(values, result.config.pools)
            ],
        }


def _summarise_eks_managed(pool: Any, entry: dict[str, Any], index: dict[tuple[str, str], Recorded],
                           resources: list[Recorded]) -> None:
    """Read an eks-managed pool back from its recorded NodeGroup and ASG Tag inputs."""
    from .render import eks

    node_group = index.get(("aws:eks/nodeGroup:NodeGroup", f"{pool.name}-node-group"))
    if node_group is None:
        return
    taints = eks.read_node_group_taints(node_group.inputs)
    entry["taints"] = [str(t) for t in taints]
    entry["provider_taints"] = node_group.inputs.get("taints", [])
    entry["provider_field"] = "aws.eks.NodeGroup.taints"
    entry["labels"] = dict(sorted((node_group.inputs.get("labels") or {}).items()))
    entry["instance_types"] = node_group.inputs.get("instanceTypes", [])
    entry["ami_type"] = node_group.inputs.get("amiType")
    entry["scaling"] = node_group.inputs.get("scalingConfig", {})
    tags = {
        r.inputs["tag"]["key"]: r.inputs["tag"]["value"]
        for r in resources
        if r.type == "aws:autoscaling/tag:Tag" and r.name.startswith(f"{pool.name}-ca-")
    }
    entry["scale_from_zero_tags"] = dict(sorted(tags.items()))
    if tags:
        ca_taints, ca_labels = eks.read_ca_node_template_tags(tags)
        entry["scale_from_zero_matches"] = (
            sorted(map(str, ca_taints)) == sorted(map(str, taints)) and ca_labels == entry["labels"]
        )


def _summarise_gke(pool: Any, entry: dict[str, Any], index: dict[tuple[str, str], Recorded],
                   resources: list[Recorded]) -> None:
    """Read a gke pool back from its recorded ``gcp:container/nodePool:NodePool`` inputs."""
    from .render import gke

    node_pool = index.get(("gcp:container/nodePool:NodePool", f"{pool.name}-node-pool"))
    if node_pool is None:
        return
    node_config = node_pool.inputs.get("nodeConfig") or {}
    entry["taints"] = [str(t) for t in gke.read_node_pool_taints(node_pool.inputs)]
    entry["provider_taints"] = node_config.get("taints", [])
    entry["provider_field"] = gke.PROVIDER_FIELD
    entry["labels"] = dict(sorted(gke.read_node_pool_labels(node_pool.inputs).items()))
    entry["machine_type"] = node_config.get("machineType")
    entry["accelerators"] = gke.read_node_pool_accelerators(node_pool.inputs)
    entry["spot"] = node_config.get("spot", False)
    entry["node_locations"] = node_pool.inputs.get("nodeLocations", [])
    entry["autoscaling"] = node_pool.inputs.get("autoscaling", {})
    if not pool.uses_nvidia_device_plugin:
        entry["device_plugin"] = "managed by GKE (its nvidia-gpu-device-plugin DaemonSet in kube-system)"
    else:
        entry["device_plugin"] = "nvidia-device-plugin chart (GKE's plugin and driver install are off)"


def _summarise_karpenter(pool: Any, entry: dict[str, Any], index: dict[tuple[str, str], Recorded],
                         resources: list[Recorded]) -> None:
    """Read a karpenter pool back from its recorded NodePool (and EC2NodeClass) CustomResource inputs."""
    from .render import karpenter

    nodepool = index.get((f"kubernetes:{karpenter.NODEPOOL_API_VERSION}:NodePool", f"{pool.name}-nodepool"))
    if nodepool is None:
        return
    taints = karpenter.read_nodepool_taints(nodepool.inputs)
    entry["taints"] = [str(t) for t in taints]
    entry["provider_taints"] = [t.to_k8s() for t in taints]
    entry["provider_field"] = "NodePool spec.template.spec.taints"
    entry["startup_taints"] = [str(t) for t in karpenter.read_nodepool_startup_taints(nodepool.inputs)]
    entry["labels"] = dict(sorted(karpenter.read_nodepool_labels(nodepool.inputs).items()))
    entry["requirements"] = karpenter.read_nodepool_requirements(nodepool.inputs)
    entry["limits"] = karpenter.read_nodepool_limits(nodepool.inputs)
    entry["disruption"] = (nodepool.inputs.get("spec") or {}).get("disruption", {})
    ref = karpenter.read_nodepool_node_class_ref(nodepool.inputs)
    node_class = index.get((f"kubernetes:{karpenter.EC2NODECLASS_API_VERSION}:EC2NodeClass", f"{pool.name}-ec2nodeclass"))
    entry["node_class"] = {
        "kind": ref.get("kind"),
        "name": ref.get("name"),
        "created": node_class is not None,
        "ami_alias": karpenter.read_ec2nodeclass_ami_alias(node_class.inputs) if node_class is not None else None,
    }
    if not pool.uses_nvidia_device_plugin:
        entry["device_plugin"] = "ships its own (Bottlerocket NVIDIA AMI includes NVIDIA's device plugin)"


def _registration_entry(entry: dict[str, Any], fmt: str, files: Mapping[str, str], source: str) -> None:
    """Fill ``taints``, ``labels`` and ``registration`` of a plan entry from bootstrap texts, read back."""
    from .render import kubelet

    regs = {name: kubelet.read_registration(text) for name, text in files.items()}
    taints = next((r.taints for r in regs.values() if r.taints), ())
    labels: dict[str, str] = {}
    for reg in regs.values():
        labels.update(reg.labels)
    entry["taints"] = [str(t) for t in taints]
    entry["labels"] = dict(sorted(labels.items()))
    spec = kubelet.FORMATS[fmt]
    snippet = kubelet.registration_snippet(fmt, kubelet.Registration(taints, labels))
    entry["registration"] = {
        "format": fmt,
        "source": source,
        "taints_field": spec.taints_field,
        "labels_field": spec.labels_field,
        "files": {name: [str(t) for t in reg.taints] for name, reg in regs.items()},
        "snippet": snippet,
    }
    if spec.ships_device_plugin:
        entry["device_plugin"] = "ships its own (Bottlerocket NVIDIA variants include NVIDIA's device plugin)"


def _summarise_self_managed(pool: Any, entry: dict[str, Any], index: dict[tuple[str, str], Recorded],
                            resources: list[Recorded]) -> None:
    """Read a self-managed pool back from its recorded LaunchTemplate user data and Auto Scaling group tags."""
    from .render import eks, kubelet

    template = index.get(("aws:ec2/launchTemplate:LaunchTemplate", f"{pool.name}-launch-template"))
    if template is None:
        return  # provider none: read from the exported bootstrap instead
    user_data = template.inputs.get("userData")
    fmt = kubelet.detect_format(user_data) or pool.format
    _registration_entry(entry, fmt, {"userData": user_data}, "aws.ec2.LaunchTemplate userData (base64)")
    group = index.get(("aws:autoscaling/group:Group", f"{pool.name}-asg"))
    image = template.inputs.get("imageId", UNKNOWN)
    entry["ami_type"] = image if pool.ami_id else f"{image} ({pool.format} NVIDIA {pool.arch}, resolved from SSM)"
    entry["imds"] = template.inputs.get("metadataOptions", {})
    if group is None:
        return
    mixed = (group.inputs.get("mixedInstancesPolicy") or {}).get("launchTemplate") or {}
    entry["instance_types"] = (
        [o.get("instanceType") for o in mixed.get("overrides", [])] if mixed else [template.inputs.get("instanceType")]
    )
    entry["scaling"] = {"minSize": group.inputs.get("minSize"), "maxSize": group.inputs.get("maxSize")}
    tags = {
        t["key"]: t["value"]
        for t in group.inputs.get("tags") or []
        if t.get("key", "").startswith(kubelet.CA_CLUSTER_TAG_PREFIX)
    }
    entry["scale_from_zero_tags"] = dict(sorted(tags.items()))
    ca_taints, ca_labels = eks.read_ca_node_template_tags(tags)
    entry["scale_from_zero_matches"] = (
        sorted(map(str, ca_taints)) == sorted(entry["taints"]) and ca_labels == entry["labels"]
    )
    entry["scale_from_zero_subject"] = "the kubelet registration's"


def _summarise_bootstrap_output(pool: Any, entry: dict[str, Any], files: Any) -> None:
    """Read a ``provider: none`` self-managed pool back from its exported bootstrap files."""
    if not isinstance(files, Mapping):
        return
    fmt = getattr(pool, "format", None) or "kubelet"
    _registration_entry(entry, fmt, files, f"stack output {pool.name}.bootstrap ({', '.join(files)})")


#: backend -> function(pool, entry, index, resources) that fills the plan entry of a pool
#: from the recorded resources. Each backend adds its own.
_BACKEND_SUMMARIES: dict[str, Any] = {
    "eks-managed": _summarise_eks_managed,
    "gke": _summarise_gke,
    "karpenter": _summarise_karpenter,
    "self-managed": _summarise_self_managed,
}


# --- output -----------------------------------------------------------------------------


def to_json(result: PlanResult) -> dict[str, Any]:
    """The machine-readable plan (``--json``)."""
    return {
        "stack": result.stack,
        "exitCode": result.exit_code,
        "cloudApiCalled": False,
        "configErrors": [{"path": i.path, "message": i.message} for i in result.config_issues],
        "pools": result.pools,
        "devicePlugin": result.device_plugin,
        "violations": result.violations,
        "resources": [
            {"type": r.type, "name": r.name, "inputs": r.inputs, **({"synthesized": r.synthesized} if r.synthesized else {})}
            for r in result.resources
        ],
        "outputs": result.outputs,
    }


def render_text(result: PlanResult) -> str:
    """The human-readable plan."""
    lines = [f"gpu-node-pools plan for stack {result.stack!r} (offline: Pulumi mocks, no cloud API was called)"]
    if result.config_issues:
        lines.append("")
        lines.append(str(ConfigError(result.config_issues, result.config_source or f"stack {result.stack!r}")))
        lines.append("")
        lines.append("exit 2: fix the stack config and run the plan again")
        return "\n".join(lines)
    lines.append(f"{len(result.resources)} resources would be registered")
    for pool in result.pools:
        lines.append("")
        lines.append(f"pool {pool['name']} ({pool['backend']})")
        if "instance_types" in pool:
            sc = pool.get("scaling", {})
            lines.append(
                f"  instances       {', '.join(pool['instance_types'])}  ami {pool.get('ami_type')}  "
                f"size {sc.get('minSize')}..{sc.get('maxSize')}"
            )
        if "machine_type" in pool:
            sc = pool.get("autoscaling", {})
            gpus = ", ".join(
                f"{a.get('count')}x {a.get('type')} driver "
                f"{(a.get('gpuDriverInstallationConfig') or {}).get('gpuDriverVersion', 'unspecified')}"
                for a in pool.get("accelerators", [])
            )
            lines.append(
                f"  machine         {pool['machine_type']}{' (spot)' if pool.get('spot') else ''}  {gpus}  "
                f"total size {sc.get('totalMinNodeCount')}..{sc.get('totalMaxNodeCount')}  "
                f"zones {', '.join(pool.get('node_locations') or []) or '(cluster default)'}"
            )
        lines.append(f"  taints          {', '.join(pool.get('taints', [])) or '(none)'}")
        if pool.get("provider_taints"):
            shown = ", ".join(f"{t['key']}={t.get('value', '')}:{t['effect']}" for t in pool["provider_taints"])
            lines.append(f"  {pool['provider_field']:<15} {shown}")
        lines.append("  labels          " + ", ".join(f"{k}={v}" for k, v in pool.get("labels", {}).items()))
        if pool.get("registration"):
            reg = pool["registration"]
            lines.append(f"  registration    {reg['format']}: taints in {reg['taints_field']}")
            lines.append(f"                  read back from {reg['source']}")
            lines += [f"    {line}" for line in reg["snippet"]]
        if pool.get("imds"):
            lines.append("  instance metadata " + ", ".join(f"{k}={v}" for k, v in pool["imds"].items()))
        if "startup_taints" in pool:
            shown = ", ".join(pool["startup_taints"])
            note = "  (removed by an agent at boot; never tolerated by the plugin)" if shown else ""
            lines.append(f"  startup taints  {shown or '(none)'}{note}")
        for i, req in enumerate(pool.get("requirements", [])):
            values = f" [{', '.join(req['values'])}]" if req.get("values") else ""
            min_values = f" minValues {req['minValues']}" if "minValues" in req else ""
            lines.append(f"  {'requirements' if i == 0 else '':<15} {req['key']} {req['operator']}{values}{min_values}")
        if "node_class" in pool:
            nc = pool["node_class"]
            how = f"created, ami alias {nc['ami_alias']}" if nc["created"] else "existing, not managed by this stack"
            lines.append(f"  node class      {nc['kind']} {nc['name']} ({how})")
        if pool.get("limits"):
            lines.append("  limits          " + ", ".join(f"{k}={v}" for k, v in pool["limits"].items()))
        if pool.get("disruption"):
            d = pool["disruption"]
            budgets = "; ".join(
                "nodes " + b.get("nodes", "") + (f" from '{b['schedule']}' for {b['duration']}" if "schedule" in b else "")
                + (f" ({', '.join(b['reasons'])})" if b.get("reasons") else "")
                for b in d.get("budgets", [])
            )
            lines.append(
                f"  disruption      {d.get('consolidationPolicy')} after {d.get('consolidateAfter')}"
                + (f"; budgets: {budgets}" if budgets else "")
            )
        tags = pool.get("scale_from_zero_tags") or {}
        if tags:
            lines.append("  scale-from-zero ASG tags (Cluster Autoscaler):")
            lines += [f"    {k} = {v}" for k, v in tags.items()]
            ok = pool.get("scale_from_zero_matches")
            subject = pool.get("scale_from_zero_subject", "the node group's")
            lines.append(f"    {'match' if ok else 'DO NOT match'} {subject} taints and labels")
        lines.append(f"  device plugin   {pool['device_plugin']}")
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
            exprs = " AND ".join(f"{e['key']} {e['operator']} {e.get('values', [])}" for e in term["matchExpressions"])
            lines.append(f"    {exprs}")
        lines.append(f"  priorityClassName: {dp['priorityClassName']}")
        lines.append("  coverage of pool taints:")
        for c in dp["coverage"]:
            lines.append(f"    {'ok  ' if c['tolerated'] else 'MISS'} {c['pool']}: {c['taint']}")
    else:
        lines.append("device plugin: not installed by this stack")
    for r in result.resources:
        if r.synthesized:
            lines.append(f"  DaemonSet {r.name}: {r.synthesized}")
    lines.append("")
    if result.violations:
        lines.append(f"policy pack gpu-node-pools: {len(result.violations)} violation(s), as a preview would report them:")
        for v in result.violations:
            lines.append(f"  [{v['enforcement']}] {v['policy']} {v.get('resource', '')}: {v['message']}")
    else:
        lines.append("policy pack gpu-node-pools: 0 violations from the enabled policies")
    lines.append("")
    verdict = {
        0: "clean" if not result.violations else "no mandatory violation (advisory findings above)",
        1: "FAILED (mandatory policy violation or uncovered taint)",
        2: "config error",
    }
    lines.append(f"exit {result.exit_code}: {verdict[result.exit_code]}")
    return "\n".join(lines)


def print_result(result: PlanResult, as_json: bool = False, stream: Any = None) -> None:
    stream = stream or sys.stdout
    if as_json:
        json.dump(to_json(result), stream, indent=2, sort_keys=False, default=str)
        stream.write("\n")
    else:
        stream.write(render_text(result) + "\n")
