"""A live DaemonSet of the name the stack gives one of its own, that the stack did not create.

The stack's DaemonSets (:attr:`.declared.Declared.daemonsets`) carry the labels the stack writes on them
(``metadata.labels``: GKE's installer ``k8s-app: nvidia-driver-installer``, written by
``gpu_agents/gke_driver_installer/values.py``; a chart's ``app.kubernetes.io/*``). Pulumi's Kubernetes provider adds
no label of its own (it writes what the program declares), so a live object of the same namespace and name that
lacks one of those labels, or carries another value, was not created by this stack's program: a ``kubectl apply``
of Google's manifest, say, which carries no label the stack does not write either way. Only then is it told apart;
a live object with every such label is taken as the stack's (judged in its ``(stack)`` row).

Such an object blocks the stack: since pulumi-kubernetes 4.29.0 a create is a client-side create, and the API server
answers ``AlreadyExists`` for an object that exists, which fails ``pulumi up`` unless the provider sets
``upsertExistingObjects`` (pulumi/pulumi-kubernetes CHANGELOG 4.29.0, #2926; ``provider/pkg/await/await.go``); before
4.29.0 a server-side apply took the object over. Finding ``stack-name-taken`` (mandatory): the object, the labels it
lacks, what ``pulumi up`` does, and the fix: delete it before ``pulumi up``, or, for GKE's driver installer, turn the
stack's off (``gpu-node-pools:gpuAgents: {gkeDriverInstaller: {enabled: false}}``, README "GPU agents").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..gpu_agents.gke_driver_installer.values import NAME as GKE_INSTALLER
from ..gpu_agents.gke_driver_installer.values import NAMESPACE as GKE_NAMESPACE
from ..gpu_agents.gke_driver_installer.values import UBUNTU_NAME
from ..policies.daemonset_nodes import DaemonSet
from ..text.terminal import shown
from .findings import Finding

__all__ = ["stack_labels", "not_the_stacks", "name_taken_finding"]


def stack_labels(declared: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], dict[str, str]]:
    """``(namespace, name) -> metadata.labels`` of each DaemonSet object the stack declares (string labels only)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for obj in declared:
        meta = obj.get("metadata") if isinstance(obj, Mapping) else None
        if not isinstance(meta, Mapping):
            continue
        labels = meta.get("labels")
        key = (str(meta.get("namespace") or "default"), str(meta.get("name") or ""))
        out[key] = {str(k): v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, Mapping) else {}
    return out


def not_the_stacks(ds: DaemonSet, labels: Mapping[str, str]) -> list[str]:
    """The labels of ``labels`` (the stack's object's) that the live ``ds`` lacks or carries with another value, as
    ``key=value``; ``[]`` when it carries them all (or the stack writes none: nothing tells it apart)."""
    return [f"{key}={value}" for key, value in sorted(labels.items()) if ds.labels.get(key) != value]


def name_taken_finding(ds: DaemonSet, missing: list[str], stack: str) -> Finding:
    """``stack-name-taken`` (module docstring) of the live ``ds``, which lacks the stack's labels ``missing``."""
    where = f"-n {ds.namespace} delete daemonset {ds.name}"
    installer = ds.namespace == GKE_NAMESPACE and ds.name in (GKE_INSTALLER, UBUNTU_NAME)
    fix = f"delete it before `pulumi up` (kubectl {where})"
    if installer:
        fix += (f", or turn the stack's installer off (gpu-node-pools:gpuAgents: {{gkeDriverInstaller: {{enabled: false}}}} "
                f"in stack {stack}), keeping this one")
    else:
        fix += ", or rename or remove the stack's DaemonSet in its program"
    carries = ", ".join(f"{k}={shown(v)}" for k, v in sorted(ds.labels.items())) or "no labels"
    return Finding(
        "mandatory", "stack-name-taken", f"DaemonSet {ds.display}",
        f"the stack deploys a DaemonSet of this name, and this one is not the stack's: it lacks the labels the stack "
        f"writes ({', '.join(missing)}; it carries {carries}). `pulumi up` fails to create the stack's: the API server "
        "answers AlreadyExists (pulumi-kubernetes 4.29.0 and later, unless the provider sets upsertExistingObjects; "
        "pulumi/pulumi-kubernetes#2926); so its what-if rows are judged as the cluster's object",
        fix)
