"""Render a ``helm.v4.Chart`` or ``helm.v3.Release`` offline with a real Helm, as the provider would.

Given a chart resource's inputs as Pulumi registers them (camelCase: ``chart``, ``version``,
``name``, ``namespace``, ``values``, ``valueYamlFiles``, ``repositoryOpts.repo``, ``skipCrds``,
``includeHooks``, ``postRenderer``, ``devel``, ``dependencyUpdate``; see pulumi/pulumi-kubernetes
``sdk/python/pulumi_kubernetes/helm/v4/Chart.py@v4.34.2`` and ``sdk/python/pulumi_kubernetes/helm/v3/Release.py@v4.34.2``,
the version this project pins), :meth:`HelmRenderer.render` runs::

    helm template <release> <chart> --namespace <ns> [--version V] [--repo URL] [--devel]
         --kube-version <k8s version> --no-hooks [--include-crds | --skip-crds]
         -f <each valueYamlFiles asset> -f <values>

and parses the manifests (PyYAML, libyaml loader) into plain dicts. Rules and their source:

- Release name: ``name``, else the resource name (Chart v4 uses the resource name; a v3
  Release auto-names with a random suffix, which a template render cannot know).
- Namespace: ``namespace``, else ``default`` (the provider's default namespace, which its kubeconfig may change).
- Values: the ``valueYamlFiles`` in order, then ``values``; later files win, as with Helm's
  repeated ``-f`` (provider docs: "Content is read and merged with values"). Assets are read as the
  provider reads them (:mod:`.helm_values`): a values file that does not exist is a :class:`RefusedInput`.
- Hooks: omitted (``--no-hooks``), also with ``includeHooks``. A Chart v4 that deploys never registers a
  ``helm.sh/hook`` object: through v4.32.0 it renders with Helm's ``DisableHooks`` always, and from
  pulumi/pulumi-kubernetes#4426 (``provider/pkg/provider/helm/v4/chart.go``, ``manifestWithHooks``) it adds
  hooks (test hooks never) only when the provider has ``renderYamlToDirectory``, which deploys nothing, and
  otherwise warns "Helm hooks will be ignored" (the SDK's ``include_hooks`` docs,
  ``sdk/python/pulumi_kubernetes/helm/v4/Chart.py@v4.34.2``: "no effect outside of render mode"). A Release runs hooks as Jobs, not objects a DaemonSet
  policy judges.
- CRDs: included unless ``skipCrds`` (``--include-crds`` / ``--skip-crds``).
- ``postRenderer`` set: not judged (the post-renderer's output is not known offline).
- A rendered object whose kind or API version no API server serves (``kind: Daemonset``,
  ``apiVersion: extensions/v1beta1``: :mod:`.manifest_api`): a :class:`RefusedInput` at ``chart`` naming the
  template from Helm's ``# Source:`` comment. ``helm template`` asks no API server, so it renders such an object;
  a ``helm.v4.Chart``'s preview and a ``helm.v3.Release``'s install fail on it.

Where the chart comes from (in this order): a local chart directory or packaged ``.tgz``
(relative paths against ``base_dir``); a ``<chart>-<version>.tgz`` in one of ``chart_dirs``
(e.g. Helm's repository cache, where ``helm pull``/``helm install --repo`` keep downloads);
with ``fetch=True`` its repository (``repositoryOpts.repo``) or OCI registry (``oci://``).
Otherwise the chart is not reachable and the resource is :class:`NotJudged`. An existing local path that holds no
chart Helm can load (no ``Chart.yaml``, a file that is no gzipped archive, a ``Chart.yaml`` that is not YAML or that
``Metadata.Validate`` refuses: :mod:`.chart_load`) is a :class:`RefusedInput`: the provider loads the chart at preview
(``provider/pkg/helm/tool.go@v4.32.0`` ``runInstall``: ``loader.Load``, "unable to load the chart"). A chart written as a path
(absolute, or beginning with ``.``) where nothing is is a :class:`RefusedInput` instead: Helm reads such a chart
from that path only (``helm/helm pkg/action/install.go@v4.1.4``, ``LocateChart``: "path %q not found"), and the
provider fails a real preview on it: a ``helm.v4.Chart`` in ``Construct``, which runs ``helm template`` at preview
(``pulumi/pulumi-kubernetes provider/pkg/provider/helm/v4/chart.go@v4.32.0``; ``provider/pkg/helm/tool.go@v4.32.0``
``runInstall``: "unable to locate the chart"), a ``helm.v3.Release`` in ``Check``, as a check failure on ``chart``
(``provider/pkg/provider/helm_release.go@v4.32.0``, ``locateChart``). Any other name that is no path here is read
by Helm as ``<repository>/<chart>`` (``LocateChart``), so it stays not judged offline; when a local chart of a
similar name exists (``charts/logshp`` beside ``charts/logship``), the reason says so and the fix names it.

Helm runs with ``HELM_CACHE_HOME``, ``HELM_CONFIG_HOME`` and ``HELM_DATA_HOME`` in a private
temporary directory per renderer (every other ``HELM_*`` variable removed), so a user's repos,
plugins and registry logins never change a result. A render is killed after ``timeout``
seconds (default 30), with every process it started in its group, and stopped after
:data:`MAX_MANIFEST_BYTES` of output (:func:`.run_bounded.run_bounded`). Renders are cached per renderer by every argument that reaches Helm
(chart, version, repository, values digest, release name, namespace, Kubernetes version, CRDs).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..k8s.wellknown import is_namespaced_kind
from ..sdk.files import read_input_text
from ..sdk.yaml_bounded import load_all_bounded, load_bounded
from .chart_load import CHART_FILE_RULE, SyntaxProblem, chart_load_problem
from .helm_values import ValuesProblem, values_documents
from .manifest_api import api_problem, find_api_problem, list_items
from .render_failure import render_failure
from .result import SECRET_FIX, Expanded, NotJudged, RefusedInput, similar_path, unknown_input
from .run_bounded import run_bounded

__all__ = ["HelmRenderer", "CHART_TYPES", "DEFAULT_TIMEOUT", "MAX_MANIFEST_BYTES", "parse_manifests", "helm_error_line",
           "find_helm"]

#: Most bytes of manifests one ``helm template`` may print; a larger output is stopped and not judged.
MAX_MANIFEST_BYTES = 64 << 20

CHART_TYPES = ("kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Release")
DEFAULT_TIMEOUT = 30.0
_RELEASE = "kubernetes:helm.sh/v3:Release"


#: The fix for a local chart path that holds no chart.
_NOT_A_CHART_FIX = "point chart at a chart directory (with its Chart.yaml) or a packaged chart .tgz"
#: Where the provider fails a preview on a chart path where nothing is, per chart type (see the module's docstring).
_MISSING_PATH_SOURCE = {
    "kubernetes:helm.sh/v4:Chart": "pulumi/pulumi-kubernetes provider/pkg/provider/helm/v4/chart.go@v4.32.0 "
                                   "(Construct runs helm template at preview: \"unable to locate the chart\")",
    "kubernetes:helm.sh/v3:Release": "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0 "
                                     "(Check: a check failure on chart)",
}


#: Where the provider loads a local chart at preview, per chart type (a chart Helm cannot load fails there).
_LOAD_SOURCE = {
    "kubernetes:helm.sh/v4:Chart": "pulumi/pulumi-kubernetes provider/pkg/helm/tool.go@v4.32.0, runInstall, which "
                                   "Construct runs: loader.Load, \"unable to load the chart\"",
    "kubernetes:helm.sh/v3:Release": "pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0, Check: "
                                     "helmLoad, getChart's loader.Load, a check failure on chart",
}


def find_helm(helm: str | os.PathLike[str] | None = None) -> str | None:
    """The helm executable: ``helm`` as given (a path, or a name looked up on ``PATH``), default ``helm``."""
    return shutil.which(str(helm or "helm"))


def helm_error_line(stderr: str) -> str:
    """Helm's first error line, made readable.

    The line starting with ``Error:`` (else the first non-empty line). When that line is only
    a location or ends with ``:``, Helm continues the message below it (a chart's ``fail``
    text, or a Go template call chain ending in the root cause); the continuation is followed
    while lines end with ``:`` or are bare locations, and its last line is appended (after
    `` … `` when lines were skipped).
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "helm failed with no message"
    start = next((i for i, line in enumerate(lines) if line.startswith("Error:")), 0)

    def continues(line: str) -> bool:
        return line.endswith(":") or " " not in line.removeprefix("Error: ")

    end = start
    while end + 1 < len(lines) and continues(lines[end]):
        end += 1
    if end == start:
        return lines[start]
    joiner = " " if end == start + 1 else " … "
    return f"{lines[start]}{joiner}{lines[end]}"


def parse_manifests(text: str) -> list[dict[str, Any]]:
    """Kubernetes objects from a multi-document YAML stream; empty documents (and ``{}``) dropped, as the provider's
    decoder skips them (pulumi/pulumi-kubernetes ``provider/pkg/provider/yaml/v2/yaml.go@v4.32.0``, ``yamlDecode``),
    ``*List`` kinds flattened.

    Raises:
        yaml.YAMLError: the stream is not YAML, or a document's aliases expand past
            :data:`gpu_node_pool.sdk.yaml_bounded.MAX_EXPANDED_VALUES` values.
        ValueError: an object (a document, or an item of a ``*List``: :func:`.manifest_api.list_items`) is not a
            mapping with ``apiVersion`` and ``kind``.
    """
    out: list[dict[str, Any]] = []
    for doc in load_all_bounded(text):
        for obj in list_items(doc):
            if obj is None or (isinstance(obj, dict) and not obj):  # empty, or `{}`: skipped, as the provider does
                continue
            if not isinstance(obj, dict) or "kind" not in obj or "apiVersion" not in obj:
                raise ValueError(
                    f"not a Kubernetes object (needs apiVersion and kind): {json.dumps(obj, default=str)[:120]}")
            out.append(obj)
    return out


@dataclass(frozen=True)
class _Source:
    """Where helm finds the chart: ``ref`` (a path, name or ``oci://`` reference) and an optional ``--repo``."""

    ref: str
    repo: str = ""
    local: bool = False


@dataclass(frozen=True)
class _Unreachable:
    """Why helm cannot have the chart (``reason``, one sentence) and what to do (``fix``): the not-judged record's
    two halves, decided where the chart is looked for. ``missing_path``: the chart is a path (absolute, or beginning
    with ``.``) where nothing is, which a real preview fails on (the path as resolved); ``unloadable``: a local path
    that holds no chart Helm can load (:func:`.chart_load.chart_load_problem`), which a real preview also fails on."""

    reason: str
    fix: str
    missing_path: str = ""
    unloadable: bool = False


def _is_chart(path: Path) -> bool:
    """A chart directory (with its ``Chart.yaml``) or a packaged chart ``.tgz``."""
    return (path / "Chart.yaml").is_file() or (path.is_file() and path.name.endswith(".tgz"))


class HelmRenderer:
    """Offline ``helm template`` of chart resources, one private Helm home per renderer.

    Use as a context manager (or call :meth:`close`) so the private Helm home is removed.

    Args:
        helm: the helm executable (path or name on ``PATH``); default ``helm`` on ``PATH``.
        kube_version: the cluster's Kubernetes version for ``--kube-version`` (``"1.31"``);
            None lets Helm use its built-in default.
        kube_version_declared_by: who declares ``kube_version`` the cluster's (``"GpuNodePool 'gpu'"``); ``""``
            when it is a default. A render it fails is then the program's error (:mod:`.render_failure`).
        fetch: allow downloading charts from their repository or OCI registry.
        timeout: seconds before a render is killed (> 0).
        chart_dirs: directories holding packaged charts named ``<chart>-<version>.tgz``.
        base_dir: what relative chart and values-file paths are relative to (the program's
            directory); default the current directory.
        unknown_markers: values that mean "unknown at preview" in the inputs (the offline plan
            stores ``"(known after apply)"``); a chart with one is not judged.
        syntax_problem: words a local chart's ``Chart.yaml`` that is not YAML, ``<file>:<line>:<column>: ...``
            (the plan passes :func:`gpu_node_pool.config.yaml_errors.yaml_syntax_problem`'s, which this room cannot
            import); None: PyYAML's problem at that place.
    """

    def __init__(
        self,
        helm: str | os.PathLike[str] | None = None,
        *,
        kube_version: str | None = None,
        kube_version_declared_by: str = "",
        fetch: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        chart_dirs: Sequence[str | os.PathLike[str]] = (),
        base_dir: str | os.PathLike[str] | None = None,
        unknown_markers: Sequence[Any] = (),
        syntax_problem: SyntaxProblem | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"timeout: {timeout!r} is not a positive number of seconds; give e.g. 30")
        self.helm_arg = str(helm) if helm else "helm"
        self.helm = find_helm(helm)
        self.kube_version = kube_version
        self.kube_version_declared_by = kube_version_declared_by
        self.fetch = fetch
        self.timeout = float(timeout)
        self.chart_dirs = [Path(d) for d in chart_dirs]
        self.base_dir = Path(base_dir) if base_dir else Path.cwd()
        self.unknown_markers = tuple(unknown_markers)
        self.syntax_problem = syntax_problem
        self._home: Path | None = None
        self._cache: dict[str, Expanded | NotJudged | RefusedInput] = {}
        #: How many times helm actually ran (cache hits do not count).
        self.runs = 0

    # --- lifecycle ---------------------------------------------------------------------
    def __enter__(self) -> HelmRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the private Helm home (cache, config, data) of this renderer."""
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None

    def _env(self) -> dict[str, str]:
        if self._home is None:
            self._home = Path(tempfile.mkdtemp(prefix="gpupool-helm-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("HELM_")}
        env.update(
            HELM_CACHE_HOME=str(self._home / "cache"),
            HELM_CONFIG_HOME=str(self._home / "config"),
            HELM_DATA_HOME=str(self._home / "data"),
            KUBECONFIG=str(self._home / "no-kubeconfig"),  # template never needs a cluster
        )
        return env

    # --- rendering ---------------------------------------------------------------------
    def render(self, type_token: str, name: str, inputs: Mapping[str, Any], *,
               resource: str = "") -> Expanded | NotJudged | RefusedInput:
        """The objects the chart resource creates, or why they cannot be judged.

        Args:
            type_token: ``kubernetes:helm.sh/v4:Chart`` or ``kubernetes:helm.sh/v3:Release``.
            name: the resource name (the release name when ``inputs`` has no ``name``).
            inputs: the resource inputs, camelCase, plain values (assets as ``pulumi.Asset``
                objects or their wire form).
            resource: the URN for the report; default ``name``.

        Returns:
            :class:`Expanded` (``source`` ``"helm template"``) with every rendered object;
            :class:`RefusedInput` (input ``chart``, ``valueYamlFiles[i]`` or ``values...``) for a chart written as a
            path where nothing is or a local path that holds no chart Helm can load (:mod:`.chart_load`), a values file that does not exist or an archive in ``values``, which a real
            preview fails on (with or without a helm: reading them needs none), and for a rendered object whose kind
            or API version no API server serves (:mod:`.manifest_api`, named by its template) or a render Helm refuses
            whatever runs it (:mod:`.render_failure`: a ``required``/``fail``, a ``kubeVersion``); or :class:`NotJudged`
            for: an unsupported type, inputs unknown at preview, no helm, a chart not reachable offline, a
            post-renderer, another render error (Helm's first error line) or a timeout. Never raises for a user's chart or values.
        """
        who = resource or name

        def not_judged(reason: str, fix: str) -> NotJudged:
            return NotJudged(who, type_token, reason, fix)

        if type_token not in CHART_TYPES:
            return not_judged(f"{type_token} is not a Helm chart resource", "expand it with the matching expander")
        unknown = unknown_input(dict(inputs), self.unknown_markers)
        if unknown is not None:
            path, words = unknown
            return not_judged(
                f"input {path} {words}, so the chart cannot be rendered",
                SECRET_FIX if "secret" in words else
                "make chart, version and values plain values (not outputs of other resources), or judge after apply",
            )
        chart = inputs.get("chart")
        if not isinstance(chart, str) or not chart:
            return not_judged(f"chart: {chart!r} is not a chart reference", "set chart to a chart name, path or oci:// reference")
        version = str(inputs.get("version") or "")
        repo = str((inputs.get("repositoryOpts") or {}).get("repo") or "")
        # looking for the chart needs no helm: a path where nothing is is refused with or without one
        source = self._locate(chart, version, repo)
        if isinstance(source, _Unreachable) and source.missing_path and type_token in _MISSING_PATH_SOURCE:
            return RefusedInput(who, type_token, "chart", self._missing_path_message(chart, source.missing_path,
                                                                                   _MISSING_PATH_SOURCE[type_token]))
        if isinstance(source, _Unreachable) and source.unloadable and type_token in _MISSING_PATH_SOURCE:
            return RefusedInput(who, type_token, "chart", (
                f"{source.reason}: {CHART_FILE_RULE}, and the provider loads it the same way, so a real `pulumi "
                f"preview` fails on it ({_LOAD_SOURCE[type_token]}). Fix: {source.fix}"))
        read_notes: list[str] = []
        values_files = values_documents(type_token, inputs, self.base_dir, read_notes)  # needs no helm either
        if isinstance(values_files, ValuesProblem):
            if values_files.refused:
                return RefusedInput(who, type_token, values_files.input, values_files.reason)
            return not_judged(values_files.reason, values_files.fix)
        if inputs.get("postRenderer") or inputs.get("postrender"):
            return not_judged(
                "a post-renderer changes the rendered objects and cannot run offline",
                "judge the post-rendered manifests (e.g. apply them with yaml.v2.ConfigGroup) or drop the post-renderer",
            )
        if self.helm is None:
            return not_judged(
                f"no helm executable ({self.helm_arg!r} not found), so the chart was not rendered",
                "install Helm v4 (make setup puts one in venv/bin) or pass --helm PATH",
            )
        if isinstance(source, _Unreachable):
            return not_judged(source.reason, source.fix)
        release = str(inputs.get("name") or name)
        namespace = str(inputs.get("namespace") or "")  # "": the provider's default namespace, rendered as default
        skip_crds = bool(inputs.get("skipCrds"))
        devel = bool(inputs.get("devel")) and not version
        key = hashlib.sha256(
            json.dumps(
                [source.ref, source.repo, version, devel, values_files, release, namespace, self.kube_version, skip_crds],
                sort_keys=True,
                default=str,
            ).encode()
        ).hexdigest()
        if key not in self._cache:
            self._cache[key] = self._run(source, version, devel, values_files, release, namespace, skip_crds, type_token, who)
        hit = self._cache[key]
        if isinstance(hit, RefusedInput):
            return RefusedInput(who, type_token, hit.input, hit.message)
        if isinstance(hit, NotJudged):
            return NotJudged(who, type_token, hit.reason, hit.fix, verdict=hit.verdict)
        return Expanded(who, type_token, copy.deepcopy(hit.objects), hit.source, [*read_notes, *hit.notes])

    def _locate(self, chart: str, version: str, repo: str) -> _Source | _Unreachable:
        """Where the chart is, or why helm cannot have it and the fix (:class:`_Unreachable`)."""
        if not repo and not chart.startswith("oci://") and "://" not in chart:
            path = (self.base_dir / chart) if not Path(chart).is_absolute() else Path(chart)
            if path.exists():  # helm reads an existing path as the chart, and loads it (chart_load's docstring)
                problem = chart_load_problem(path, chart, self.syntax_problem)
                if problem is not None:
                    return _Unreachable(*problem, unloadable=True)
                return _Source(str(path), local=True)
            if Path(chart).is_absolute() or chart.startswith("."):
                # helm reads these as paths only (helm/helm pkg/action/install.go LocateChart: "if path is absolute
                # or begins with '.', error out here"), never as a repository's chart
                return _Unreachable(f"chart {chart!r} is a local path with nothing there ({path})", _NOT_A_CHART_FIX,
                                    missing_path=str(path))
            near = similar_path(self.base_dir, chart, _is_chart)
        else:
            near = None
        base = chart.rstrip("/").rsplit("/", 1)[-1]
        if version:
            for directory in self.chart_dirs:
                packaged = directory / f"{base}-{version}.tgz"
                if packaged.is_file():
                    return _Source(str(packaged), local=True)
        if self.fetch:
            if repo or chart.startswith("oci://") or chart.startswith(("https://", "http://")):
                return _Source(chart, repo=repo)
            if "/" in chart:
                reason = f"chart {chart!r} names a repository alias, which the isolated Helm used for rendering does not have"
            else:
                reason = f"chart {chart!r} is neither a local chart nor in a repository (no repositoryOpts.repo)"
        else:
            pinned = f" {version}" if version else " (no version pinned)"
            reason = (f"chart {chart!r}{pinned} from {repo or chart} is not reachable offline (not a local path, not in "
                      "the chart cache)")
        if near:
            return self._near_chart(chart, near)
        return _Unreachable(reason, self._fix_unreachable(chart, version, repo))

    def _near_chart(self, chart: str, near: str) -> _Unreachable:
        """A chart name that is no path here but looks like the local chart ``near`` (a typo): not judged, saying so."""
        alias = chart.split("/", 1)[0]
        read_as = (f"a chart {chart.split('/', 1)[1]!r} of a Helm repository named {alias!r}" if "/" in chart
                   else "a repository's chart")
        reason = (f"no directory {chart} here ({self.base_dir / chart}); did you mean {near}? Helm reads a chart that "
                  "is not an existing path, not absolute and not beginning with '.' as " + read_as +
                  " (helm/helm pkg/action/install.go@v4.1.4, LocateChart), which fails unless that repository is "
                  "configured where pulumi runs")
        path = near if near.startswith(".") or Path(near).is_absolute() else f"./{near}"
        return _Unreachable(reason, f"write chart={path!r} (beginning with './', Helm reads it as a path only, and a "
                                    "typo fails the preview), or set repositoryOpts.repo if it is a repository's chart")

    def _missing_path_message(self, chart: str, path: str, source: str) -> str:
        """The error for a chart path where nothing is: the value, the rule with its sources, and the fix."""
        near = similar_path(self.base_dir, chart, _is_chart)
        return (f"{chart!r} is a local chart path and nothing is there ({path})"
                + (f"; did you mean {near!r}?" if near else "") + ": Helm reads a chart written as an "
                "absolute path or one beginning with '.' from that path only (helm/helm pkg/action/install.go@v4.1.4, "
                f"LocateChart: \"path not found\"), so a real `pulumi preview` fails on it ({source}). Write the "
                f"path of the chart directory or .tgz relative to the directory Pulumi runs the program in ({self.base_dir}), "
                "where it is read, or give a repository chart (its name with repositoryOpts.repo, or an oci:// "
                "reference)")

    @staticmethod
    def _fix_unreachable(chart: str, version: str, repo: str) -> str:
        if "/" in chart and not repo and "://" not in chart and not chart.startswith("."):
            return "set repositoryOpts.repo to the repository URL (and chart to the bare chart name), or point chart at a local path"
        pull = f"helm pull {chart}" + (f" --repo {repo}" if repo else "") + (f" --version {version}" if version else "")
        return f"run with --fetch-charts, or `{pull}` into a chart directory, or point chart at a local path"

    def _run(
        self,
        source: _Source,
        version: str,
        devel: bool,
        values_docs: list[str],
        release: str,
        namespace: str,
        skip_crds: bool,
        type_token: str,
        who: str,
    ) -> Expanded | NotJudged | RefusedInput:
        env = self._env()
        assert self._home is not None
        work = Path(tempfile.mkdtemp(dir=self._home, prefix="render-"))
        try:
            cmd = [self.helm or "helm", "template", release, source.ref, "--namespace", namespace or "default",
                   "--no-hooks"]
            cmd.append("--skip-crds" if skip_crds else "--include-crds")
            if version:
                cmd += ["--version", version]
            if devel:
                cmd.append("--devel")
            if source.repo:
                cmd += ["--repo", source.repo]
            if self.kube_version:
                cmd += ["--kube-version", self.kube_version]
            for i, doc in enumerate(values_docs):
                path = work / f"values-{i}.yaml"
                path.write_text(doc)
                cmd += ["-f", str(path)]
            self.runs += 1
            run = run_bounded(cmd, env, self.timeout, max_stdout=MAX_MANIFEST_BYTES)
            out_raw, err_raw = run.stdout, run.stderr
            out, err = out_raw.decode("utf-8", errors="replace"), err_raw.decode("utf-8", errors="replace")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        label = f"chart {source.ref!r}" + (f" {version}" if version else "")
        if run.too_large == "stdout":
            return NotJudged(
                who,
                type_token,
                f"helm template of {label} printed more than {MAX_MANIFEST_BYTES // (1 << 20)} MiB of manifests "
                "and was stopped",
                "check the chart's values (a loop or a huge value); render it with `helm template` to see its size",
            )
        if run.timed_out:
            return NotJudged(
                who,
                type_token,
                f"helm template of {label} did not finish within {self.timeout:g} s and was killed",
                "raise the render timeout, or check the chart renders quickly with `helm template`",
            )
        if run.code != 0:
            if not err.strip():  # helm says why a chart fails; silence is the binary's (--helm names another)
                return NotJudged(
                    who,
                    type_token,
                    f"helm template of {label}: {self.helm} exited {run.code} with no message",
                    "check that --helm (or helm on PATH) is Helm: `<helm> version` prints its version",
                )
            return render_failure(err, helm_error_line(err), who=who, type_token=type_token, label=label,
                                  chart_ref=source.ref, local=source.local, pinned=bool(version),
                                  values_docs=values_docs, kube_version=self.kube_version,
                                  declared_by=self.kube_version_declared_by, namespace_given=bool(namespace))
        try:
            objects = parse_manifests(out)
        except (yaml.YAMLError, ValueError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            return NotJudged(who, type_token, f"helm template of {label} gave unreadable manifests: {first}", "fix the chart templates")
        refused = _api_refusal(out, objects, label, type_token, who)
        if refused is not None:
            return refused
        if not objects:  # nothing to judge, if Helm said so and the chart does not read the cluster
            from .empty_render import empty_render_problem

            problem = empty_render_problem(self.helm or "helm", source.ref, source.local)
            if problem is not None:
                return NotJudged(who, type_token, f"helm template of {label}: {problem[0]}", problem[1])
        _default_namespace(objects, namespace or "default")
        notes = [f"helm template of {label} printed {what} that is not UTF-8 (read as U+FFFD)"
                 for what, raw in (("manifests", out_raw), ("errors", err_raw)) if _not_utf8(raw)]
        declared = _local_chart_version(source) if version else None
        if declared is not None and declared != version:
            notes.append(f"version {version} ignored: the local chart {source.ref} is version {declared} (Helm ignores --version for a path)")
        if type_token == _RELEASE:
            notes.append("helm.v3.Release: rendered offline only; a real pulumi preview never sees these objects")
        return Expanded(who, type_token, objects, "helm template", notes)


#: Where each chart type fails on a rendered object no API server serves, and its public source.
_API_FAILS = {
    "kubernetes:helm.sh/v4:Chart": (
        "`helm template` renders it without a word (it asks no API server), but a real `pulumi preview` fails on it: "
        "the provider registers each rendered object as a resource of its apiVersion and kind "
        "(pulumi/pulumi-kubernetes provider/pkg/provider/helm/v4/chart.go@v4.32.0) and finds no such resource type"),
    _RELEASE: (
        "`helm template` renders it without a word (it asks no API server), but the Release's `helm install` fails "
        "on it when `pulumi up` installs it: Helm maps every rendered object to the API server's resources first "
        "(helm/helm pkg/action/install.go: \"unable to build kubernetes objects from release manifest: resource "
        "mapping not found ... ensure CRDs are installed first\")"),
}


def _api_refusal(out: str, objects: Sequence[Mapping[str, Any]], label: str, type_token: str,
                 who: str) -> RefusedInput | None:
    """A :class:`RefusedInput` (input ``chart``) when a rendered object's kind or API version is one no API server
    serves (:mod:`.manifest_api`): the template it came from (Helm's ``# Source:`` comment above it), the rule, where
    a real run fails on it and the fix; None when every object is served."""
    if not any(api_problem(o) is not None for o in objects):
        return None  # read the output again only to place a problem
    try:
        found = find_api_problem(out)
    except yaml.YAMLError:  # it parsed once; never here
        found = None
    if found is None:
        return None
    index, line, _, message = found
    template = _source_comment(out, line)
    where = f"template {template}" if template else f"document {index + 1} of its rendered manifests"
    return RefusedInput(who, type_token, "chart", f"{label} renders, in {where}, an object no API server serves: "
                        f"{message}. {_API_FAILS.get(type_token, _API_FAILS[CHART_TYPES[0]])}. Make that change in the template "
                        "(or in the values that choose its apiVersion or kind)")


def _source_comment(out: str, line: int | None) -> str:
    """The template Helm names in the last ``# Source: <chart>/templates/<file>`` comment above ``line`` (from 1) of
    its output (``helm template`` writes one above each rendered document), or ``""``."""
    if line is None:
        return ""
    for text in reversed(out.splitlines()[:line]):
        if text.startswith("# Source: "):
            return text.removeprefix("# Source: ").strip()
    return ""


def _default_namespace(objects: list[dict[str, Any]], namespace: str) -> None:
    """Give each namespaced object without ``metadata.namespace`` the release's ``namespace``, as Helm and
    Pulumi's Chart create it (:data:`gpu_node_pool.k8s.wellknown.NAMESPACED_KINDS`); ``helm template`` leaves it out."""
    for obj in objects:
        if not is_namespaced_kind(obj.get("apiVersion"), obj.get("kind")):
            continue
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        if isinstance(meta, dict) and not meta.get("namespace"):
            meta["namespace"] = namespace


def _not_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _local_chart_version(source: _Source) -> str | None:
    """The ``version`` in a local chart directory's ``Chart.yaml`` (None for anything else, a ``Chart.yaml`` that is no
    regular file included: read through :func:`gpu_node_pool.sdk.files.read_input_text`, never waited on)."""
    if not (source.local and Path(source.ref).is_dir()):
        return None
    try:
        meta = load_bounded(read_input_text(Path(source.ref) / "Chart.yaml")[0]) or {}
    except (OSError, yaml.YAMLError):
        return None
    return str(meta.get("version")) if isinstance(meta, dict) and meta.get("version") is not None else None
