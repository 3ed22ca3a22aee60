"""A manifest's ``apiVersion`` and ``kind`` that no API server serves, so applying the manifest fails.

Two mistakes the policies would otherwise judge as if the object were created:

* **a kind in the wrong case** (``kind: Daemonset``): kinds are case-sensitive CamelCase (Kubernetes API
  conventions, https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#types-kinds),
  and a group serves no two kinds that differ only in case (each maps to one lower-case resource), so the API server
  has no such kind: ``kubectl apply`` fails with ``no matches for kind "Daemonset" in version "apps/v1"``
  (``k8s.io/apimachinery pkg/api/meta/errors.go``, ``NoKindMatchError``) and so does Pulumi's Kubernetes provider,
  which maps every object it creates through the same discovery. Only the built-in kinds of
  :data:`~gpu_node_pool.k8s.wellknown.NAMESPACED_KINDS` are compared, ignoring case: a custom resource's kinds are
  its CRD's, not known here.
* **a workload API version removed in Kubernetes 1.16** (``extensions/v1beta1``, ``apps/v1beta1``,
  ``apps/v1beta2`` DaemonSet, Deployment, StatefulSet, ReplicaSet: the deprecation guide,
  https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16): no API server since serves it, so the
  object is never created (``no matches for kind``; the provider warns at preview that the API was removed:
  pulumi/pulumi-kubernetes ``provider/pkg/kinds/deprecated.go``, ``RemovedAPIVersion``, called from the provider's
  ``Check``), and every Kubernetes release a cloud still supports is later than 1.16.

:func:`api_problem` judges one object; :func:`find_api_problem` finds the first such object of a YAML stream, with
its document and line, and :func:`first_api_problem` says where it is. Every reader of manifests applies this one
rule where it reads its objects: a v2 yaml component's files, text and objects
(:func:`gpu_node_pool.expand.yaml_manifests.expand_yaml`), a v1 yaml component's objects as the program registers
them (:func:`gpu_node_pool.plan.expand.offline_yaml`), and the objects a Helm chart renders
(:class:`gpu_node_pool.expand.helm.HelmRenderer`, placed in the template Helm names in its ``# Source:`` comment).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from ..k8s.wellknown import NAMESPACED_KINDS
from ..sdk.yaml_bounded import load_all_bounded
from ..text.suggest import closest

__all__ = ["REMOVED_WORKLOAD_APIS", "api_problem", "find_api_problem", "first_api_problem"]

#: The workload kinds whose API versions Kubernetes 1.16 stopped serving, with the version that replaces them
#: (https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16: "DaemonSet in the extensions/v1beta1
#: and apps/v1beta2 API versions is no longer served"; likewise Deployment, StatefulSet and ReplicaSet, in
#: extensions/v1beta1, apps/v1beta1 and apps/v1beta2).
REMOVED_WORKLOAD_APIS: dict[tuple[str, str], str] = {
    (api, kind): "apps/v1"
    for api, kinds in (
        ("extensions/v1beta1", ("DaemonSet", "Deployment", "ReplicaSet")),
        ("apps/v1beta1", ("Deployment", "StatefulSet")),
        ("apps/v1beta2", ("DaemonSet", "Deployment", "StatefulSet", "ReplicaSet")),
    )
    for kind in kinds
}
_REMOVED_IN = "1.16"
_GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16"


def _kinds_of(group: str) -> list[str]:
    return sorted(kind for g, kind in NAMESPACED_KINDS if g == group)


def api_problem(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(field, message)`` when no API server serves ``obj``'s ``apiVersion`` and ``kind`` (module docstring), else
    None. ``field`` is ``kind`` or ``apiVersion``; ``message`` names the value, the rule with its public source, and
    the fix (``kind: DaemonSet``, ``apiVersion: apps/v1``). An object whose ``apiVersion`` or ``kind`` is no string
    is None here (the caller reports it)."""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return None
    replacement = REMOVED_WORKLOAD_APIS.get((api, kind))
    if replacement is not None:
        return "apiVersion", (
            f"apiVersion {api!r} of kind {kind!r} was removed in Kubernetes {_REMOVED_IN} ({_GUIDE}): no API server "
            f"since serves it, so the object is never created (kubectl apply: no matches for kind \"{kind}\" in version "
            f"\"{api}\"; pulumi-kubernetes warns at preview that the API was removed, provider/pkg/kinds/deprecated.go "
            f"RemovedAPIVersion, and fails to create it). Write `apiVersion: {replacement}` (an {replacement} "
            f"{kind} needs spec.selector matching its pod template's labels)")
    known = _kinds_of(api.rpartition("/")[0])
    if kind in known or kind.lower() not in {k.lower() for k in known}:
        return None
    near = closest(kind, known) or next(k for k in known if k.lower() == kind.lower())
    return "kind", (
        f"kind {kind!r} is no kind of {api}; did you mean {near!r}? Kinds are case-sensitive (Kubernetes API "
        "conventions: https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/"
        f"api-conventions.md#types-kinds), so the API server has no {kind!r} (kubectl apply: no matches for kind "
        f"\"{kind}\" in version \"{api}\", k8s.io/apimachinery pkg/api/meta NoKindMatchError) and Pulumi's "
        f"Kubernetes provider fails to create it. Write `kind: {near}`")


def _objects(doc: Any) -> list[Mapping[str, Any]]:
    """The objects of one document, ``*List`` kinds flattened (as :func:`gpu_node_pool.expand.helm.parse_manifests`)."""
    if not isinstance(doc, Mapping):
        return []
    if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
        return [o for item in doc["items"] for o in _objects(item)]
    return [doc]


def _line_of(text: str, index: int, field: str) -> int | None:
    """The line (from 1) of ``field``'s value in the ``index``-th document of ``text`` (its start for an object
    inside a ``List``), or None. Composing builds no alias expansion: it is linear in the text."""
    try:
        for i, node in enumerate(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))):
            if i < index:
                continue
            if node is None:
                return None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == field:
                        return value.start_mark.line + 1
            return node.start_mark.line + 1
    except yaml.YAMLError:
        return None
    return None


def find_api_problem(text: str) -> tuple[int, int | None, str, str] | None:
    """``(document, line, field, message)`` for the first object of the YAML stream ``text`` that :func:`api_problem`
    refuses: its document's index (from 0), the line (from 1) of ``field``'s value in ``text`` (None when it cannot be
    placed), and :func:`api_problem`'s ``field`` and ``message``; None when there is none.

    Raises:
        yaml.YAMLError: ``text`` is not YAML (parse it first: this re-reads a stream that parsed).
    """
    for index, doc in enumerate(load_all_bounded(text)):
        for obj in _objects(doc):
            problem = api_problem(obj)
            if problem is not None:
                field, message = problem
                return index, _line_of(text, index, field), field, message
    return None


def first_api_problem(text: str, name: str) -> tuple[str, str] | None:
    """``(field, message)`` for the first object of the YAML stream ``text`` that :func:`api_problem` refuses, its
    message beginning ``<name> document <n> (line <l>): ``; None when there is none.

    Raises:
        yaml.YAMLError: ``text`` is not YAML (parse it first: this re-reads a stream that parsed).
    """
    found = find_api_problem(text)
    if found is None:
        return None
    index, line, field, message = found
    where = f"{name} document {index + 1}" + (f" (line {line})" if line is not None else "")
    return field, f"{where}: {message}"
