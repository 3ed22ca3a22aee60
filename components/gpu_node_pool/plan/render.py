"""Render a stack to files: the Kubernetes objects it declares, as YAML, for review or GitOps.

``gpupool render --stack prod --out DIR`` runs the offline plan
(:func:`gpu_node_pool.plan.plan_stack`: the real program under Pulumi mocks, no cloud or
Kubernetes API call) and, when it is clean, writes with the functions here what the program
*recorded*, never a second rendering by hand, so the files are exactly the inputs ``pulumi up``
would send:

* every recorded ``kubernetes:<group>/<version>:<Kind>`` custom resource (NodePool,
  EC2NodeClass, Namespace, ... whatever backends add later) as one object per file,
  ``DIR/<kind>-[<namespace>-]<name>.yaml``, so ``kubectl apply -f DIR`` takes them;
* every Helm chart (``kubernetes:helm.sh/*``: the device plugin) as a chart reference
  ``DIR/charts/<resource>/chart.yaml`` (chart, version, repository, namespace, release
  name) plus its values ``DIR/charts/<resource>/values.yaml``: the one map Helm renders with, its
  ``valueYamlFiles`` and inline ``values`` merged as the plan's judging gave them to Helm
  (:func:`gpu_node_pool.expand.helm_values.merged_values`); ``chart.yaml`` names, in a comment, the
  ``helm template`` command that renders the same objects, run in its own directory, with every flag the plan's
  judging gave Helm (:func:`helm_template_command`), the Kubernetes version it rendered with among them;
* any other ``kubernetes:*`` component as its inputs, ``DIR/components/<type>-<name>.yaml``.

Every file (but the verbatim bootstraps) starts with :data:`HEADER_PREFIX`; ``DIR/.gpupool-render.json``
(:data:`MANIFEST`) lists what each stack's render wrote, and a later render of the same stack
removes only files from that list it no longer writes (:func:`write_files`); the tree is never
searched. Render refuses ``/``, the home directory, a non-empty directory that is not an
earlier render (:func:`check_out_dir`), a path through a symbolic link and files another stack
rendered there; it writes atomically under a lock (:mod:`gpu_node_pool.plan.render_out`). Output is deterministic
(keys sorted, no timestamps). Values unknown at preview or secret are written as the plan's
placeholders and reported, since such a file cannot be applied as is.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import SECRET, UNKNOWN, Recorded
from .render_out import HEADER_PREFIX, LOCK, MANIFEST, RenderOutError, check_out_dir, out_path, write_texts

__all__ = [
    "HEADER_PREFIX",
    "LOCK",
    "MANIFEST",
    "RenderOutError",
    "check_out_dir",
    "out_path",
    "RenderedFile",
    "WriteReport",
    "helm_template_command",
    "kubernetes_files",
    "bootstrap_files",
    "launch_template_files",
    "write_files",
]

_HELM_MODULE = re.compile(r"^helm\.sh/v\d+$")
_UNSAFE = re.compile(r"[^a-z0-9.-]+")


@dataclass(frozen=True)
class RenderedFile:
    """One file to write.

    Attributes:
        path: relative POSIX path inside the output directory.
        document: the YAML document (plain values).
        source: ``"<resource name> (<type token>)"`` of the recorded resource it comes from.
        comments: extra header lines (without ``#``).
    """

    path: str
    document: Any
    source: str
    comments: tuple[str, ...] = ()
    #: write ``document`` (a str) exactly as is, without the header: node bootstrap files
    #: (kubelet flags, MIME user data) are consumed verbatim by the node.
    verbatim: bool = False
    #: a command (argv) that makes the same objects, run in the file's directory; written as a comment.
    command: tuple[str, ...] = ()
    #: the absolute path of the local chart ``command`` names at index 3, given relative to the file's
    #: directory when written (:func:`write_files` knows where that is).
    local_chart: str = ""


@dataclass
class WriteReport:
    """What :func:`write_files` did: files written and removed, and placeholder values found."""

    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)


def _split_type(token: str) -> tuple[str, str, str]:
    # "kubernetes:karpenter.sh/v1:NodePool" -> ("kubernetes", "karpenter.sh/v1", "NodePool")
    pkg, _, rest = token.partition(":")
    module, _, kind = rest.rpartition(":")
    return pkg, module, kind


def _api_version(module: str) -> str:
    # Pulumi's Kubernetes type tokens spell the core group "core": core/v1 -> v1.
    return module[len("core/"):] if module.startswith("core/") else module


def _slug(text: str) -> str:
    return _UNSAFE.sub("-", text.lower()).strip("-") or "unnamed"


def _object(resource: Recorded) -> dict[str, Any]:
    _, module, kind = _split_type(resource.type)
    doc = dict(resource.inputs)
    doc.setdefault("apiVersion", _api_version(module))
    doc.setdefault("kind", kind)
    return doc


def _run_dir(resource: Recorded) -> Path:
    """The directory Pulumi runs the program in, which a chart's relative paths are read from: found from the
    program line that registered ``resource`` (its project's ``Pulumi.yaml`` and ``main``,
    :func:`gpu_node_pool.plan.run.program_run_dir`); the working directory when that line is not known."""
    from .run import find_project, program_run_dir
    from .stack_file import read_project_file

    if not resource.source:
        return Path.cwd()
    try:
        project = find_project(Path(resource.source[0]).parent)
        return program_run_dir(project, read_project_file(project).get("main"))[0]
    except (OSError, ValueError):  # no Pulumi.yaml above the program line (ConfigError is a ValueError)
        return Path.cwd()


def _local_chart(chart: Any, repo: Any, base_dir: Path) -> str:
    """The absolute path of ``chart`` when Helm reads it from this machine (no repository, no URL, and a chart
    directory or ``.tgz`` there), else ``""``."""
    if repo or not isinstance(chart, str) or not chart or "://" in chart:
        return ""
    path = Path(chart) if Path(chart).is_absolute() else base_dir / chart
    return str(path.resolve()) if (path / "Chart.yaml").is_file() or path.is_file() else ""


def helm_template_command(release: str, chart: str, inputs: Mapping[str, Any], values_file: str,
                          kube_version: str | None = None) -> tuple[str, ...]:
    """The ``helm template`` argv that renders the objects the plan judged for a chart resource's ``inputs``, with
    the flags the judging gave Helm (:class:`gpu_node_pool.expand.helm.HelmRenderer`): the release and chart,
    ``--repo`` and ``--version`` only when given, ``--devel`` when ``devel`` is set and no version is (Helm ignores
    it beside a version), ``--namespace`` (``default`` when not given, the provider's default; without it Helm takes
    the kubeconfig's namespace), CRDs included unless ``skipCrds``, ``--no-hooks`` (the judging leaves hooks out,
    also with ``includeHooks``: :func:`_chart_files` says so in a comment), ``--kube-version kube_version`` when
    given (the version the plan rendered with: a chart's ``kubeVersion`` constraint and its templates'
    ``.Capabilities.KubeVersion`` read it, and without it Helm takes its own built-in version), and
    ``-f values_file``. Written with :func:`shlex.join`."""
    repo = (inputs.get("repositoryOpts") or {}).get("repo")
    version = inputs.get("version")
    argv = ["helm", "template", release, chart]
    argv += ["--repo", str(repo)] if repo else []
    argv += ["--version", str(version)] if version else []
    argv += ["--devel"] if inputs.get("devel") and not version else []
    argv += ["--namespace", str(inputs.get("namespace") or "default")]
    argv.append("--skip-crds" if inputs.get("skipCrds") else "--include-crds")
    argv.append("--no-hooks")
    argv += ["--kube-version", str(kube_version)] if kube_version else []
    return (*argv, "-f", values_file)


def _chart_files(resource: Recorded, base_dir: Path | None, kube_version: str | None) -> list[RenderedFile]:
    from ..expand.helm_values import ValuesProblem, merged_values

    inputs = resource.inputs
    base = f"charts/{_slug(resource.name)}"
    release = str(inputs.get("name") or resource.name)
    repo = (inputs.get("repositoryOpts") or {}).get("repo")
    reference = {
        "chart": inputs.get("chart"),
        "version": inputs.get("version"),
        "repository": repo,
        "namespace": inputs.get("namespace"),
        "releaseName": release,
        "valuesFile": "values.yaml",
    }
    source = f"{resource.name} ({resource.type})"
    run_dir = base_dir if base_dir is not None else _run_dir(resource)
    notes: list[str] = []
    values = merged_values(resource.type, inputs, run_dir, notes)
    comments = tuple(f"Note: {n}" for n in notes)
    if isinstance(values, ValuesProblem):
        comments += (f"Only the inline values are written: {values.reason}" + (f"; fix: {values.fix}" if values.fix
                                                                               else ""),)
        values = inputs.get("values") if isinstance(inputs.get("values"), Mapping) else {}
    if inputs.get("includeHooks"):
        comments_of_chart: tuple[str, ...] = (
            "Note: includeHooks is set; the plan rendered and judged the chart without its hooks (helm template "
            "--no-hooks), as a deploying Chart v4 registers it: the provider adds hooks only under "
            "renderYamlToDirectory, which deploys nothing (pulumi/pulumi-kubernetes "
            "sdk/python/pulumi_kubernetes/helm/v4/Chart.py@v4.34.2, include_hooks: \"no effect outside of render "
            "mode\"), and so does the command below",)
    else:
        comments_of_chart = ()
    if not kube_version:
        comments_of_chart += ("Note: the plan rendered no chart of this stack (no helm, or no chart reachable "
                              "offline), so it recorded no Kubernetes version for the command below; add "
                              "--kube-version with the cluster's version (e.g. 1.33) for a chart that reads it",)
    command = helm_template_command(release, str(reference["chart"]), inputs, "values.yaml", kube_version)
    return [
        RenderedFile(f"{base}/chart.yaml", reference, source, comments_of_chart, command=command,
                     local_chart=_local_chart(reference["chart"], repo, run_dir)),
        RenderedFile(f"{base}/values.yaml", values, source, comments),
    ]


def kubernetes_files(resources: Iterable[Recorded],
                     base_dir: str | os.PathLike[str] | None = None,
                     kube_version: str | None = None) -> list[RenderedFile]:
    """The files for every recorded ``kubernetes:*`` resource, in registration order.

    Custom resources become Kubernetes objects (``apiVersion`` and ``kind`` taken from the
    type token when the inputs lack them); ``helm.sh`` charts become a chart reference and a
    values file (the merged values, :func:`_chart_files`); other Kubernetes components are written
    as their inputs. Providers (``pulumi:providers:kubernetes``) are not Kubernetes objects and are skipped.
    ``base_dir``: the directory Pulumi runs the program in, which charts and values files are relative to
    (:func:`gpu_node_pool.plan.run.program_run_dir`); default: found from each chart's program line.
    ``kube_version``: the Kubernetes version the plan rendered the stack's charts with
    (:attr:`gpu_node_pool.plan.run.PlanResult.chart_kube_version`: one version per plan), written as
    ``--kube-version`` in each chart's ``helm template`` command; None (no chart rendered): the command has no
    ``--kube-version`` and ``chart.yaml`` says why.

    Raises:
        ValueError: two resources would be written to the same path (cannot happen for
            objects, whose paths fall back to the unique Pulumi resource name).
    """
    files: list[RenderedFile] = []
    used: set[str] = set()
    for resource in resources:
        pkg, module, kind = _split_type(resource.type)
        if pkg != "kubernetes" or getattr(resource, "synthesized", ""):
            continue  # a synthesized stand-in (the chart's DaemonSet) is the chart's to render
        source = f"{resource.name} ({resource.type})"
        if _HELM_MODULE.match(module):
            new = _chart_files(resource, Path(base_dir) if base_dir is not None else None, kube_version)
        elif resource.custom:
            doc = _object(resource)
            meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
            name = meta.get("name") if isinstance(meta.get("name"), str) and meta.get("name") != UNKNOWN else None
            ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
            stem = f"{_slug(kind)}-{_slug(ns) + '-' if ns else ''}{_slug(name or resource.name)}"
            path = f"{stem}.yaml"
            if path in used:
                path = f"{stem}-{_slug(resource.name)}.yaml"
            new = [RenderedFile(path, doc, source)]
        else:
            path = f"components/{_slug(module + '-' + kind)}-{_slug(resource.name)}.yaml"
            new = [RenderedFile(path, dict(resource.inputs), source)]
        for f in new:
            if f.path in used:
                raise ValueError(f"two resources render to {f.path}; rename one of them")
            used.add(f.path)
        files += new
    return files


def _placeholders(value: Any, where: str) -> list[str]:
    if value in (UNKNOWN, SECRET) and isinstance(value, str):
        return [f"{where}: {value}"]
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _placeholders(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _placeholders(v, f"{where}[{i}]")]
    return []


def _command_line(f: RenderedFile, out: Path) -> str:
    """``f.command`` as one shell line to run in ``f``'s directory under ``out``: a local chart named there
    relative to that directory (``./`` first, so Helm reads it as a path), every word quoted as the shell needs."""
    argv = list(f.command)
    if f.local_chart:
        here = (out / f.path).parent
        try:
            rel = os.path.relpath(f.local_chart, here)
        except ValueError:  # another drive: only the absolute path reaches it
            rel = f.local_chart
        argv[3] = rel if os.path.isabs(rel) or rel.startswith("..") else f"./{rel}"
    return shlex.join(argv)


def _text(stack: str, f: RenderedFile, out: Path) -> str:
    if f.verbatim:
        return str(f.document)
    lines = [f"{HEADER_PREFIX} --stack {stack}; do not edit, change the stack config instead.",
             f"# Source: Pulumi resource {f.source}"]
    lines += [f"# {c}" for c in f.comments]
    if f.command:
        lines.append(f"# Same objects, run in this directory: {_command_line(f, out)}")
    body = yaml.safe_dump(f.document, sort_keys=True, default_flow_style=False, allow_unicode=True)
    return "\n".join(lines) + "\n" + body


def write_files(files: list[RenderedFile], out_dir: str | os.PathLike[str], stack: str) -> WriteReport:
    """Write ``files`` under ``out_dir`` (created if missing, ``~`` expanded) for ``stack``, remove what
    the previous render of ``stack`` wrote there and this one does not, and record what was written
    in :data:`MANIFEST` (:func:`gpu_node_pool.plan.render_out.write_texts`: nothing through a
    link or outside ``out_dir``, each file atomically, the manifest last, under a lock, one
    stack's files never over another's).

    Raises:
        RenderOutError: ``out_dir`` is refused (:func:`check_out_dir`) or another render is
            writing there; nothing is written.
    """
    out = out_path(out_dir).resolve()
    texts = {f.path: _text(stack, f, out) for f in files}
    report = WriteReport()
    report.written, report.removed = write_texts(texts, out_dir, stack)
    for f in files:
        report.placeholders += _placeholders(f.document, f.path)
    return report


def bootstrap_files(outputs: Mapping[str, Any]) -> list[RenderedFile]:
    """Node bootstrap files of ``provider: none`` self-managed pools, from the ``<pool>.bootstrap`` outputs.

    Written verbatim to ``DIR/bootstrap/<pool>/<file>`` (e.g. ``join-configuration.yaml``,
    ``kubelet-flags.txt``, ``90-gpu-node-pools.conf``) for the provisioner of bare-metal nodes.
    They carry no header; a later render removes one (pool removed from the stack) only while it
    still holds the bytes the manifest's SHA-256 records.
    """
    files = []
    for key, value in sorted(outputs.items()):
        pool, _, what = key.rpartition(".")
        if what != "bootstrap" or not isinstance(value, Mapping):
            continue
        for name, text in sorted(value.items()):
            files.append(
                RenderedFile(f"bootstrap/{_slug(pool)}/{name}", str(text), f"{pool} (stack output {key})", verbatim=True)
            )
    return files


#: File extension of a user-data MIME part by content type (cloud-init and nodeadm part types).
_PART_EXTENSIONS = {
    "application/node.eks.aws": "yaml",  # nodeadm NodeConfig
    "text/x-shellscript": "sh",
    "text/cloud-config": "yaml",
    "application/toml": "toml",
}
#: File name of whole user data by the bootstrap format it is in (detect_format).
_USER_DATA_NAMES = {
    "al2023": "user-data.mime",
    "bottlerocket": "user-data.toml",
    "al2": "user-data.sh",
    "shell": "user-data.sh",
    "kubeadm": "user-data.yaml",
    "kubelet": "user-data.txt",
}


def launch_template_files(resources: Iterable[Recorded]) -> list[RenderedFile]:
    """The decoded user data of every EC2 launch template the stack creates (ours or hand-written).

    ``DIR/bootstrap/<launch template>/user-data.<ext>`` holds it verbatim (base64 and gzip
    undone; ``.mime`` for MIME multipart, ``.toml`` Bottlerocket, ``.sh`` scripts); MIME user
    data also gets each part as ``user-data.d/<n>-<content type>.<ext>`` (``01-application-
    node.eks.aws.yaml`` is the nodeadm ``NodeConfig``), so a reviewer reads what the node reads.
    A launch template without user data gets no file; user data unknown at preview is written
    as the placeholder and reported.
    """
    from ..backends._shared.user_data import decode_user_data, detect_format, mime_parts
    from ..k8s.wellknown import LAUNCH_TEMPLATE

    files: list[RenderedFile] = []
    for res in resources:
        if res.type != LAUNCH_TEMPLATE or not isinstance(res.inputs.get("userData"), str):
            continue
        text = decode_user_data(res.inputs["userData"])
        where = f"bootstrap/{_slug(res.name)}"
        source = f"{res.name} ({res.type}) userData"
        parts = mime_parts(text)
        try:
            fmt = detect_format(text)
        except ValueError:  # a malformed bootstrap is still written for review
            fmt = None
        name = "user-data.mime" if parts is not None else _USER_DATA_NAMES.get(fmt or "", "user-data.txt")
        files.append(RenderedFile(f"{where}/{name}", text, source, verbatim=True))
        for i, (content_type, body) in enumerate(parts or [], start=1):
            ext = _PART_EXTENSIONS.get(content_type, "txt")
            files.append(
                RenderedFile(f"{where}/user-data.d/{i:02d}-{_slug(content_type.replace('/', '-'))}.{ext}", body,
                             f"{source}, MIME part {i} ({content_type})", verbatim=True)
            )
    return files

