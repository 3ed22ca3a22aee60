"""Offline plan, the expansion step: open charts, YAML components and EKS add-ons into the objects they create.

Under the plan's Pulumi mocks a ``helm.v4.Chart``, ``helm.v3.Release``, ``yaml.v2.ConfigGroup``
/ ``ConfigFile`` and an ``aws.eks.Addon`` register no children, so no policy would see their
DaemonSets. After :func:`~gpu_node_pool.plan.run.record_program` and before the
policies run, :func:`expand_plan` records each object they create as a child
(:class:`~gpu_node_pool.sdk.record.Resource` with ``parent`` = the component's URN, URN
``<parent type>$<child type>``, name ``<prefix>:<namespace>/<name>`` as the Kubernetes provider
names a chart's children) using the library in :mod:`gpu_node_pool.expand`:

======================================  ==========================================================
``kubernetes:helm.sh/v4:Chart``         ``helm template`` (:class:`~gpu_node_pool.expand.helm.HelmRenderer`)
``kubernetes:helm.sh/v3:Release``       ``helm template``; findings on its objects carry
                                        ``source: offline-render`` (a real preview never sees them)
``kubernetes:yaml/v2:ConfigGroup|File`` parsed in-process (:func:`~gpu_node_pool.expand.yaml_manifests.expand_yaml`)
v1 ``kubernetes:yaml:ConfigGroup|File`` the SDK itself registers the children once the mocks answer
                                        its ``kubernetes:yaml:decode`` invoke (:func:`answer_invoke`);
                                        a remote URL is not fetched (:func:`offline_yaml`); a manifest
                                        that does not decode, or an object no API server serves, is an
                                        error (:mod:`~gpu_node_pool.plan.v1_manifests`)
``aws:eks/addon:Addon``                 the add-on table (:func:`~gpu_node_pool.expand.eks_addons.expand_addon`)
an operator's custom resource           the operator table (:func:`~gpu_node_pool.expand.operator_resources.expand_custom_resource`;
                                        the ClusterPolicy is read by the pack itself)
======================================  ==========================================================

A component that already has a child (a real child, e.g. from the v1 SDK) is not expanded again.
The device plugin chart's synthesized stand-in (``plan.run._chart_child``) is replaced by the
real rendered children when the chart renders, and is otherwise kept, labelled as the fallback built from the
templates of chart version :data:`~gpu_node_pool.gpu_agents.device_plugin.values.CHART_VERSION`; a chart that asks
for another version (or pins none) is also a not-judged item, since that version's DaemonSet was not rendered.

A chart written as a path where nothing is fails a real preview, as does one Helm refuses to render whatever runs
it (:mod:`~gpu_node_pool.expand.render_failure`: a ``required`` with the program's values, a ``kubeVersion`` the
declared version fails): an error, not an unjudged item, a :class:`~gpu_node_pool.expand.result.RefusedInput` the
plan adds to ``result.config_issues`` (``configErrors``, exit 2) at ``<type> '<name>' <input>``. Whatever else cannot
be opened becomes a :class:`~gpu_node_pool.expand.result.NotJudged` item: the report's ``notJudged`` list, printed
in the text report and raised as an advisory ``resources-judged`` finding (mandatory with ``--strict`` or the pack
config ``{"resources-judged": {"strict": true}}``). The runner's "can't run policy during preview" findings join the
same list (:func:`finish_plan`).

Helm: ``--helm PATH``, else ``helm`` on ``PATH``, else the ``helm`` next to the running Python
(``make setup`` installs it in ``venv/bin``). Charts: a local path, Helm's repository cache
(:func:`helm_repository_cache`), or with ``--fetch-charts`` their repository. ``--kube-version``
(:func:`chart_kube_version`): the version the stack's ``cluster.kubernetesVersion`` and the program's own
``GpuNodePool`` s declare, the oldest when they differ, else :data:`DEFAULT_KUBE_VERSION`; which one the charts
were rendered with is :attr:`Expansion.kube_version`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import inspect
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config.chart_versions import same_chart_version
from ..expand.eks_addons import ADDON_TYPE, expand_addon
from ..expand.helm import CHART_TYPES as HELM_TYPES
from ..expand.helm import DEFAULT_TIMEOUT, HelmRenderer, find_helm
from ..expand.helm_fixes import KUBE_VERSION
from ..expand.identify import is_device_plugin_chart, is_device_plugin_component
from ..expand.operator_resources import expand_custom_resource, group_kind, known_kind
from ..expand.result import Expanded, NotJudged, RefusedInput
from ..expand.yaml_manifests import V1_FILE, V1_GROUP, V2_FILE, V2_GROUP, decode, expand_yaml
from ..k8s.wellknown import GPU_NODE_POOL_TYPE, SECRET, UNKNOWN
from ..sdk.record import Resource
from .on_import import when_imported

__all__ = [
    "DEFAULT_KUBE_VERSION",
    "FALLBACK_STAND_IN",
    "RULE",
    "ExpandOptions",
    "Expansion",
    "KubeVersion",
    "answer_invoke",
    "chart_kube_version",
    "device_plugin_chart",
    "expand_plan",
    "finish_plan",
    "helm_repository_cache",
    "locate_helm",
    "offline_yaml",
]

#: ``--kube-version`` for ``helm template`` when the stack sets no ``cluster.kubernetesVersion``.
DEFAULT_KUBE_VERSION = "1.31"
#: The policy id of the not-judged findings (:mod:`gpu_node_pool.policies.rules.resources_judged`).
RULE = "resources-judged"
#: How the label of the device plugin chart's stand-in DaemonSet begins when the real chart did not render; the
#: label goes on with why it did not (:func:`_stand_in_label`).
FALLBACK_STAND_IN = (
    "fallback stand-in for the nvidia-device-plugin chart's DaemonSet, built from the chart values and checked "
    "against the chart's real render in tolerations, node affinity and priority class"
)


def _stand_in_label(not_rendered: NotJudged, version: str, built_from: str) -> str:
    """:data:`FALLBACK_STAND_IN`, the chart version its template was read from (``built_from``), and why the real chart
    did not render offline (no Helm, not in its cache...), with the fix; when the program asks for another
    ``version`` (or pins none), that it was not judged (:func:`_other_version`)."""
    other = "" if same_chart_version(version, built_from) else (
        f"; the program asks for {_asked(version)}, whose DaemonSet this stand-in need not match: it is listed as "
        "not judged")
    return (f"{FALLBACK_STAND_IN}; it renders the templates of chart version {built_from} (the real chart was not "
            f"rendered offline: {not_rendered.reason}; {not_rendered.fix}){other}")


def _asked(version: str) -> str:
    """The chart version a program asks for, in words."""
    return f"version {version}" if version.strip() else "no version (Helm installs the repository's latest)"


def _other_version(chart: Resource, not_rendered: NotJudged, built_from: str) -> NotJudged | None:
    """The not-judged item of a device plugin chart that did not render offline and that asks for another chart
    version than the stand-in was built from (or pins none), else None: the stand-in renders version ``built_from``'s
    template, which another version's need not match in tolerations, node affinity or priority class. Which
    spellings name ``built_from`` (``X.Y.Z``, ``vX.Y.Z``) is the stack config's rule,
    :func:`~gpu_node_pool.config.chart_versions.same_chart_version`; a range or an empty version (the repository's
    latest) is not it."""
    version = str(chart.inputs.get("version") or "")
    if same_chart_version(version, built_from):
        return None
    return NotJudged(
        not_rendered.resource, not_rendered.type,
        f"the nvidia-device-plugin chart asks for {_asked(version)}, which was not rendered offline "
        f"({not_rendered.reason}); the stand-in the policies judged instead is built from the templates of chart "
        f"version {built_from}, which another version's DaemonSet need not match in tolerations, node affinity or "
        "priority class, so the chart's own DaemonSet was not judged",
        f"{not_rendered.fix}, so the real chart is rendered (or pin version {built_from}, which the stand-in renders)")
_V3_CHART = "kubernetes:helm.sh/v3:Chart"
_V1_YAML_MODULE = "pulumi_kubernetes.yaml.yaml"  # patched by offline_yaml when the program imports it
_CANT_RUN = "can't run policy '{}' during preview"
_MARKERS = (UNKNOWN, SECRET)  # a secret value is never rendered: it counts as unknown


@dataclass(frozen=True)
class ExpandOptions:
    """How the plan opens charts (the CLI's ``--helm``, ``--fetch-charts``, ``--render-timeout``, ``--strict``).

    Attributes:
        helm: the helm executable (path or name); None: :func:`locate_helm`'s default.
        fetch: download charts from their repository / OCI registry.
        timeout: seconds before one ``helm template`` is killed (default 30).
        strict: not-judged findings (and "can't run during preview") are mandatory.
        chart_dirs: directories of packaged ``<chart>-<version>.tgz``; None: Helm's repository cache.
    """

    helm: str | None = None
    fetch: bool = False
    timeout: float = DEFAULT_TIMEOUT
    strict: bool = False
    chart_dirs: tuple[str, ...] | None = None


@dataclass(frozen=True)
class KubeVersion:
    """The Kubernetes version the plan renders charts with (``helm template --kube-version``) and who declares it.

    Attributes:
        version: a minor version, ``"1.33"``: the one version declared, the oldest of several, else
            :data:`DEFAULT_KUBE_VERSION`.
        declared: ``((version, (who, ...)), ...)``, oldest first: each version declared and who declares it,
            ``"the stack config's cluster.kubernetesVersion"`` or ``"GpuNodePool 'gpu'"`` (its cluster's
            ``kubernetesVersion``, as the component registers it); empty when none is.
    """

    version: str
    declared: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def why(self) -> str:
        """Why :attr:`version`, for the default or the oldest of several (``""`` for the one version declared):
        ``the default; neither ...`` or ``the oldest of the versions declared (1.32: GpuNodePool 'a'; 1.33: ...); ...``."""
        if not self.declared:
            return ("the default; neither the stack config's cluster.kubernetesVersion nor the cluster of a GpuNodePool "
                    "of the program sets it")
        if len(self.declared) == 1:
            return ""
        from ..text.listing import listed

        each = "; ".join(f"{version}: {listed(who, 3)}" for version, who in self.declared)
        return (f"the oldest of the versions declared ({each}); which cluster a chart installs to is not read, and a "
                "chart's kubeVersion constraint must hold on each")

    @property
    def declared_by(self) -> str:
        """Who declares :attr:`version` when it is the one version declared (``"GpuNodePool 'gpu'"``), else ``""``: a
        render it fails fails on the cluster (:mod:`gpu_node_pool.expand.render_failure`); a default proves nothing."""
        from ..text.listing import listed

        return listed(self.declared[0][1], 3) if len(self.declared) == 1 else ""

    @property
    def label(self) -> str:
        """How the objects rendered with it are labelled: ``helm template (offline render, --kube-version 1.33)``,
        with :attr:`why` after the version when there is one."""
        return f"helm template (offline render, --kube-version {self.version}{': ' + self.why if self.why else ''})"


def chart_kube_version(result: Any) -> KubeVersion:
    """The Kubernetes version to render the charts of ``result`` (a :class:`~gpu_node_pool.plan.run.PlanResult` or
    :class:`~gpu_node_pool.plan.check.CheckResult`, after recording) with: what the stack config's
    ``cluster.kubernetesVersion`` (``result.config``; a checked program has none) and each ``GpuNodePool`` the program
    registered (its ``kubernetesVersion`` property, :data:`gpu_node_pool.component.pool.KUBERNETES_VERSION`)
    declare; the oldest when they differ, since a chart's ``kubeVersion`` range (Chart.yaml, Helm
    https://helm.sh/docs/topics/charts/#the-chartyaml-file) must hold on every cluster it may install to; else
    :data:`DEFAULT_KUBE_VERSION`. A value that is not a minor version (``1.NN``) is not read."""
    from ..component.pool import KUBERNETES_VERSION
    from ..config.version_calendars import parse_minor

    found: dict[str, list[str]] = {}
    stack = getattr(getattr(result.config, "cluster", None), "kubernetes_version", None)
    if isinstance(stack, str) and parse_minor(stack):
        found.setdefault(stack, []).append("the stack config's cluster.kubernetesVersion")
    for r in result.resources:
        version = r.inputs.get(KUBERNETES_VERSION) if r.type == GPU_NODE_POOL_TYPE else None
        if isinstance(version, str) and parse_minor(version):
            found.setdefault(version, []).append(f"GpuNodePool {r.name!r}")
    declared = tuple(sorted(((v, tuple(who)) for v, who in found.items()), key=lambda d: parse_minor(d[0]) or (0, 0)))
    return KubeVersion(declared[0][0] if declared else DEFAULT_KUBE_VERSION, declared)


@dataclass
class Expansion:
    """What :func:`expand_plan` did: ``not_judged`` items, ``offline_render`` (displays ``"<type> <name>"`` of
    helm.v3.Release children), ``rendered_empty`` (displays of the charts that rendered, offline, to no object at
    all: templates their values turn off; nothing in them to judge; a yaml component with no object is not judged
    instead, as the ``resources-judged`` rule reports it in a real preview), ``renders`` (how many times helm
    ran) and ``kube_version``: the :class:`KubeVersion` the charts were rendered with when Helm rendered at least one
    (None when it rendered none: no chart, no Helm, or none reachable offline)."""

    not_judged: list[NotJudged] = field(default_factory=list)
    offline_render: set[str] = field(default_factory=set)
    rendered_empty: set[str] = field(default_factory=set)
    renders: int = 0
    kube_version: KubeVersion | None = None


def helm_repository_cache() -> Path:
    """Where Helm keeps downloaded charts: ``$HELM_REPOSITORY_CACHE``, else ``<cache home>/repository`` with the
    cache home ``$HELM_CACHE_HOME``, ``$XDG_CACHE_HOME/helm``, or ``~/Library/Caches/helm`` (macOS) /
    ``~/.cache/helm`` (source: ``helm help`` environment table, Helm v3/v4)."""
    if os.environ.get("HELM_REPOSITORY_CACHE"):
        return Path(os.environ["HELM_REPOSITORY_CACHE"])
    home = os.environ.get("HELM_CACHE_HOME")
    if not home:
        xdg = os.environ.get("XDG_CACHE_HOME")
        if xdg:
            home = str(Path(xdg) / "helm")
        elif sys.platform == "darwin":
            home = str(Path.home() / "Library" / "Caches" / "helm")
        else:
            home = str(Path.home() / ".cache" / "helm")
    return Path(home) / "repository"


def locate_helm(helm: str | None = None) -> str | None:
    """``helm`` as given; else ``helm`` on ``PATH``; else ``helm`` beside the running Python (the venv's, from ``make``)."""
    if helm:
        return find_helm(helm)
    found = find_helm(None)
    if found:
        return found
    beside = Path(sys.executable).parent / "helm"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


# --- v1 yaml under the mocks -------------------------------------------------------------

_SINK: list[NotJudged] | None = None


def answer_invoke(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The mocks' answer to the provider's ``kubernetes:yaml:decode`` invoke (v1 yaml), else None.

    ``{"result": [objects]}`` as the provider returns it, so the SDK runs the user's
    transformations and registers the real children. Text that :func:`decode` refuses answers ``[]``
    and is recorded as not judged (inside :func:`offline_yaml`); under :func:`offline_yaml` a manifest the
    provider's invoke fails on never gets here: it is refused before the invoke
    (:class:`~gpu_node_pool.plan.v1_manifests.V1Manifests`).
    """
    if token != "kubernetes:yaml:decode":
        return None
    text = args.get("text")
    try:
        return {"result": decode(text if isinstance(text, str) else "")}
    except Exception as err:  # noqa: BLE001 - the user's manifest: reported, never a crash
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if _SINK is not None:
            _SINK.append(NotJudged("kubernetes:yaml:decode", V1_GROUP, f"a v1 yaml manifest does not parse: {first}",
                                   "fix the manifest so kubectl apply would accept it"))
        return {"result": []}


@contextlib.contextmanager
def offline_yaml() -> Iterator[list[NotJudged | RefusedInput]]:
    """While a program runs under the mocks: v1 ``ConfigFile`` never fetches a URL (it reads as empty) and the
    URL, like a v1 manifest that does not parse, is collected as not judged (resource: the ConfigFile's name);
    a v1 manifest the provider's decode invoke fails on, or an object no API server serves, is collected as a
    :class:`RefusedInput` (:class:`~gpu_node_pool.plan.v1_manifests.V1Manifests`), which :func:`expand_plan` makes
    an error.

    ``pulumi_kubernetes.yaml.yaml`` is patched when the program imports it (or at once if it is already
    imported), not imported here: it pulls in ``requests`` that a program without v1 yaml never needs."""
    global _SINK
    sink: list[Any] = []
    if importlib.util.find_spec("pulumi_kubernetes") is None:  # no kubernetes SDK: no v1 yaml in the program
        yield sink
        return
    patched: list[tuple[Any, Any]] = []

    def read_url(url: str) -> str:
        frame = inspect.currentframe()
        owner = frame.f_back.f_locals.get("self") if frame and frame.f_back else None
        name = getattr(owner, "_name", None) or url
        sink.append(NotJudged(name, V1_FILE, f"manifest {url} is a remote URL, which the offline plan does not fetch",
                              "download the manifest into the repository and point the ConfigFile at the local file"))
        return ""

    from .v1_manifests import V1Manifests

    manifests = V1Manifests(sink, _manifest_syntax)

    def patch(v1: Any) -> None:
        wrappers = {"_read_url": lambda _: read_url, "_read_file": manifests.read_file,
                    "_invoke_yaml_decode_async": manifests.decode, "_parse_yaml_document": manifests.parse}
        for attr, wrap in wrappers.items():
            if hasattr(v1, attr):
                patched.append((v1, attr, getattr(v1, attr)))
                setattr(v1, attr, wrap(getattr(v1, attr)))

    previous, _SINK = _SINK, sink
    try:
        with when_imported(_V1_YAML_MODULE, patch):
            yield sink
    finally:
        for v1, attr, original in reversed(patched):
            setattr(v1, attr, original)
        _SINK = previous


# --- the expansion -----------------------------------------------------------------------


def device_plugin_chart(resources: Sequence[Resource]) -> Resource | None:
    """The NVIDIA device plugin's chart resource: a chart named ``nvidia-device-plugin`` or the chart of our
    ``NvidiaDevicePlugin`` component; never just the first chart."""
    components = {r.urn for r in resources if r.urn and is_device_plugin_component(r.type)}
    charts = [r for r in resources if r.type in (*HELM_TYPES, _V3_CHART)]
    # our component's chart first, then any chart that is the plugin
    return next((r for r in charts if r.parent in components), None) or next(
        (r for r in charts if is_device_plugin_chart(r.type, r.inputs)), None
    )


def _child_type(obj: Mapping[str, Any]) -> str:
    api = str(obj.get("apiVersion", ""))
    return f"kubernetes:{api if '/' in api else 'core/' + api}:{obj.get('kind', '')}"


def _children(parent: Resource, objects: Sequence[dict[str, Any]], prefix: str, label: str) -> list[Resource]:
    """Records for ``objects`` as the provider registers a chart's children (see ``plan.run._chart_child``)."""
    out = []
    parent_type = parent.urn.split("::")[2] if parent.urn.count("::") >= 3 else parent.type
    for obj in objects:
        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace"), meta.get("name", "")
        name = f"{ns}/{name}" if ns else str(name)
        name = f"{prefix}:{name}" if prefix else name
        child_type = _child_type(obj)
        urn = "::".join(parent.urn.split("::")[:2] + [f"{parent_type}${child_type}", name]) if parent.urn else ""
        out.append(Resource(child_type, name, obj, True, urn, parent.urn, [], {}, label))
    return out


def _source_of(expanded: Expanded) -> str:
    return next((n.removeprefix("source: ") for n in expanded.notes if n.startswith("source: ")), "the EKS add-on table")


def expand_plan(result: Any, project_dir: Path, options: ExpandOptions | None = None,
                collected: Sequence[NotJudged | RefusedInput] = (), run_dir: Path | None = None) -> Expansion:
    """Expand ``result.resources`` (a :class:`~gpu_node_pool.plan.run.PlanResult`) in place; returns what was done.

    Args:
        result: the plan, after recording; the stack config's and the program's ``GpuNodePool`` s' Kubernetes
            versions give ``--kube-version`` (:func:`chart_kube_version`).
        project_dir: the directory of ``Pulumi.yaml``; a refused input's program line is given relative to it.
        options: :class:`ExpandOptions` (default: helm from ``PATH``, no fetching, 30 s).
        collected: not-judged items gathered while the program ran (:func:`offline_yaml`); a refused input among
            them (a :class:`RefusedInput`, or a :class:`NotJudged` carrying one, as ``gpupool check``'s child
            answers it: :meth:`NotJudged.refused`) is added to ``result.config_issues`` as an error.
        run_dir: the directory Pulumi runs the program and its providers in
            (:func:`~gpu_node_pool.plan.run.program_run_dir`), which relative chart, values and manifest paths
            are relative to; default ``project_dir``.
    """
    options = options or ExpandOptions()
    base_dir = run_dir or project_dir
    expansion = Expansion()
    resources: list[Resource] = result.resources
    has_child = {r.parent for r in resources if r.parent and not r.synthesized}
    stand_ins = {r.parent for r in resources if r.parent and r.synthesized}
    kube = chart_kube_version(result)
    chart_label = kube.label
    by_name = {r.name: r for r in resources}
    for nj in collected:  # v1 ConfigFiles with a remote URL, v1 manifests that do not parse
        owner = by_name.get(nj.resource)
        refused = nj if isinstance(nj, RefusedInput) else nj.refused()
        if refused is not None:  # a v1 manifest a real preview fails on (offline_yaml): an error of the program
            _refused_input(result, owner or Resource(refused.type, refused.resource, {}, False),
                           refused, project_dir)
            continue
        expansion.not_judged.append(NotJudged(owner.urn or owner.name, owner.type, nj.reason, nj.fix) if owner else nj)
    chart_dirs = options.chart_dirs if options.chart_dirs is not None else (str(helm_repository_cache()),)
    added: dict[int, list[Resource]] = {}
    dropped: set[int] = set()
    with HelmRenderer(locate_helm(options.helm) or options.helm or "helm", kube_version=kube.version,
                      kube_version_declared_by=kube.declared_by, fetch=options.fetch, timeout=options.timeout, chart_dirs=chart_dirs, base_dir=base_dir,
                      unknown_markers=_MARKERS, syntax_problem=_manifest_syntax) as renderer:
        for i, res in enumerate(resources):
            if res.synthesized or (res.urn and res.urn in has_child):
                continue
            who = res.urn or res.name
            prefix = str(res.inputs.get("resourcePrefix", res.name) or "")
            outcome: Expanded | NotJudged | RefusedInput | None = None
            label = chart_label
            if res.type in HELM_TYPES:
                outcome = renderer.render(res.type, res.name, res.inputs, resource=who)
                if res.type == HELM_TYPES[1]:
                    prefix = res.name
                    label = chart_label.replace("(offline render", "(offline render of a helm.v3.Release, which a "
                                                "real preview never sees inside")
            elif res.type in (V2_GROUP, V2_FILE):
                outcome = expand_yaml(res.type, res.name, res.inputs, resource=who, base_dir=base_dir,
                                      unknown_markers=_MARKERS, syntax_problem=_manifest_syntax)
                label = "yaml (parsed offline)"
            elif res.type == ADDON_TYPE:
                outcome = expand_addon(res.name, res.inputs, resource=who, unknown_markers=_MARKERS)
                prefix = res.name
            elif (row := known_kind(*(group_kind(res.type) or ("", "")))) is not None and not row.read_by_pack:
                outcome = expand_custom_resource(res.type, res.inputs, resource=who, unknown_markers=_MARKERS)
                prefix = res.name
                label = f"operator table: the DaemonSets {row.operator} creates from it"
            elif res.type == _V3_CHART:
                outcome = NotJudged(who, res.type, "helm.v3.Chart is not rendered by the offline plan",
                                    "use kubernetes.helm.v4.Chart (rendered offline, and seen by a real preview)")
            if outcome is None:
                continue
            if isinstance(outcome, RefusedInput):  # a real preview fails on it: an error, not an unjudged item
                _refused_input(result, res, outcome, project_dir)
                continue
            if isinstance(outcome, NotJudged):
                if kube.why and outcome.verdict == KUBE_VERSION:  # the chart's kubeVersion refused the version
                    outcome = outcome.noted(f"--kube-version {kube.version}: {kube.why}")
                if res.urn and res.urn in stand_ins:  # the device plugin: its stand-in judges it, at its version
                    from ..gpu_agents.device_plugin.values import CHART_VERSION

                    why = _stand_in_label(outcome, str(res.inputs.get("version") or ""), CHART_VERSION)
                    for j, r in enumerate(resources):
                        if r.synthesized and r.parent == res.urn:
                            resources[j] = dataclasses.replace(r, synthesized=why)
                    if (other := _other_version(res, outcome, CHART_VERSION)) is not None:
                        expansion.not_judged.append(other)
                else:
                    expansion.not_judged.append(outcome)
                continue
            if res.type == ADDON_TYPE:
                label = f"facts: {_source_of(outcome)}"
            if res.type in HELM_TYPES:
                expansion.kube_version = kube
            if not outcome.objects:
                expansion.rendered_empty.add(f"{res.type} {res.name}")
            children = _children(res, outcome.objects, prefix, label)
            if res.type == HELM_TYPES[1]:
                expansion.offline_render.update(f"{c.type} {c.name}" for c in children)
            if res.urn in stand_ins:  # the real render replaces the stand-in
                dropped.update(j for j, r in enumerate(resources) if r.synthesized and r.parent == res.urn)
            added[i] = children
        expansion.renders = renderer.runs
    if added or dropped:
        merged: list[Resource] = []
        for i, res in enumerate(resources):
            if i not in dropped:
                merged.append(res)
            merged += added.get(i, [])
        result.resources = merged
    return expansion


def _manifest_syntax(err: Exception, name: str) -> str:
    """A manifest's YAML error as the stack file reader words one, in a manifest's terms
    (:func:`gpu_node_pool.config.yaml_errors.yaml_syntax_problem` with ``reads="manifest"``):
    ``<name>:<line>:<column>: is not valid YAML: <problem> (<context>); fix the syntax there``."""
    from ..config.yaml_errors import MANIFEST, yaml_syntax_problem

    where, message = yaml_syntax_problem(err, name, MANIFEST)  # type: ignore[arg-type]
    return f"{where}: {message}"


def _refused_input(result: Any, res: Resource, refused: RefusedInput, project_dir: Path) -> None:
    """Add ``refused`` to ``result.config_issues`` (the report's ``configErrors``, exit 2) at the input it names,
    ``<type> '<name>' <input>``, placed at the program line that constructed the resource when it is known."""
    from ..config.errors import ConfigIssue, Location

    where = None
    if res.source:
        file, line, column = res.source
        path = Path(file)
        try:
            path = path.resolve().relative_to(project_dir.resolve())
        except ValueError:
            pass
        where = Location(path.as_posix(), line, column)
    issues = getattr(result, "config_issues", None)
    if issues is None:
        issues = result.config_issues = []
    issues.append(ConfigIssue(f"{res.type} {res.name!r} {refused.input}", refused.message, where))


# --- after the policies ------------------------------------------------------------------


def _joined_fix(fixes: Any) -> str:
    """The fix of a "can't run" finding: the fixes its rule carried with it (the runner's ``fixes``,
    :func:`gpu_node_pool.sdk.props.fixes_of`), distinct, "; also, " between them (the unknown-value fix when it
    carried none: :data:`gpu_node_pool.sdk.props.UNKNOWN_FIX`)."""
    from ..sdk.props import UNKNOWN_FIX

    out: list[str] = []
    for fix in fixes if isinstance(fixes, list) and fixes else [UNKNOWN_FIX]:
        text = fix if isinstance(fix, str) and fix else UNKNOWN_FIX
        if text not in out:
            out.append(text)
    return "; also, ".join(out)


def _strict(policy_config: Mapping[str, Any] | None) -> bool:
    entry = (policy_config or {}).get(RULE)
    return isinstance(entry, Mapping) and entry.get("strict") is True


def finish_plan(result: Any, expansion: Expansion, options: ExpandOptions | None = None,
                policy_config: Mapping[str, Any] | None = None) -> None:
    """Fill ``result.not_judged`` and make the findings say what was not judged.

    - every not-judged item has one ``resources-judged`` finding naming its reason and fix
      (the rule's own finding for that component, reworded; added when the rule did not see it),
      unless the policy is disabled;
    - the runner's "can't run policy ... during preview" findings become not-judged items too;
    - with ``strict`` (``--strict``, or ``{"resources-judged": {"strict": true}}``) both are mandatory;
    - findings on a helm.v3.Release's rendered objects carry ``source: offline-render``;
    - the rule's finding on a component that rendered to no object (``rendered_empty``) is dropped: it was
      opened, and holds nothing to judge (the rule, which sees no child, cannot tell that from unopened).
    """
    from ..policies import resolve_config

    strict = bool(options and options.strict) or _strict(policy_config)
    level = resolve_config(policy_config)[RULE][0].value
    display = {r.urn: f"{r.type} {r.name}" for r in result.resources if r.urn}
    urn_of = {d: u for u, d in display.items()}
    items = list(expansion.not_judged)
    pending = {display.get(nj.resource, nj.resource): nj for nj in items}
    findings: list[dict[str, Any]] = []
    for v in result.violations:
        v = dict(v)
        where = v.get("resource", "")
        if v["policy"] == RULE and where in expansion.rendered_empty and where not in pending:
            continue
        if v["policy"] == RULE and where in pending:
            nj = pending.pop(where)
            v["message"] = f"not judged: {nj.reason}. Fix: {nj.fix}"
        fixes = v.pop("fixes", None)
        if v["message"].startswith(_CANT_RUN.format(v["policy"])):
            kind = where.split(" ", 1)[0] if where != "stack" else "stack"
            items.append(NotJudged(urn_of.get(where, where), kind, v["message"], _joined_fix(fixes)))
            if strict:
                v["enforcement"] = "mandatory"
        if v["policy"] == RULE and strict:
            v["enforcement"] = "mandatory"
        if where in expansion.offline_render:
            v["source"] = "offline-render"
        findings.append(v)
    if level != "disabled":
        for where, nj in pending.items():
            findings.append({
                "policy": RULE,
                "enforcement": "mandatory" if strict or level in ("mandatory", "remediate") else "advisory",
                "resource": where,
                "urn": nj.resource if nj.resource.startswith("urn:") else urn_of.get(where, ""),
                "message": f"not judged: {nj.reason}. Fix: {nj.fix}",
            })
    result.violations = findings
    result.not_judged = [nj.to_dict() for nj in items]
