"""A manifest's ``apiVersion`` and ``kind`` that no API server serves, so applying the manifest fails.

Two mistakes the policies would otherwise judge as if the object were created:

* **a kind in the wrong case** (``kind: Daemonset``): kinds are case-sensitive CamelCase (Kubernetes API
  conventions, https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#types-kinds),
  and a group serves no two kinds that differ only in case (each maps to one lower-case resource), so the API server
  has no such kind: ``kubectl apply`` fails with ``no matches for kind "Daemonset" in version "apps/v1"``
  (kubernetes/apimachinery ``pkg/api/meta/errors.go@v0.36.2``, ``NoKindMatchError``) and so does Pulumi's
  Kubernetes provider, which maps every object it creates through the same discovery. Only the built-in kinds of
  :data:`~gpu_node_pool.k8s.wellknown.NAMESPACED_KINDS` are compared, ignoring case: a custom resource's kinds are
  its CRD's, not known here.
* **an API version Kubernetes 1.16 stopped serving** (:data:`REMOVED_APIS`, every one the deprecation guide lists for
  1.16, https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16: DaemonSet in extensions/v1beta1 and
  apps/v1beta2; Deployment and ReplicaSet in extensions/v1beta1, apps/v1beta1 and apps/v1beta2; StatefulSet in
  apps/v1beta1 and apps/v1beta2; NetworkPolicy and PodSecurityPolicy in extensions/v1beta1): no API server since
  serves it, so the object is never created (``no matches for kind``; the provider warns at preview that the API was
  removed: pulumi/pulumi-kubernetes ``provider/pkg/kinds/deprecated.go@v4.32.0``, ``RemovedAPIVersion``, called from
  the provider's ``Check``), and every Kubernetes release a cloud still supports is later than 1.16.

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
from ..sdk.yaml_bounded import GoSafeLoader, load_all_bounded
from ..text.suggest import closest

__all__ = ["REMOVED_APIS", "api_problem", "document_place", "find_api_problem", "first_api_problem", "list_items"]

_GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"
_REMOVED_IN = "1.16"
#: The API versions of a kind that Kubernetes 1.16 stopped serving, each with the version that replaces it (None: no
#: version of the kind is served any more), as the deprecation guide lists them
#: (https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16: "DaemonSet in the extensions/v1beta1
#: and apps/v1beta2 API versions is no longer served"; Deployment and ReplicaSet in extensions/v1beta1, apps/v1beta1
#: and apps/v1beta2; StatefulSet in apps/v1beta1 and apps/v1beta2, all replaced by apps/v1; NetworkPolicy in
#: extensions/v1beta1, replaced by networking.k8s.io/v1; PodSecurityPolicy in extensions/v1beta1, whose replacement
#: policy/v1beta1 is itself no longer served as of 1.25, #v1-25 of the same guide).
REMOVED_APIS: dict[tuple[str, str], str | None] = {
    **{(api, kind): "apps/v1" for api, kinds in (
        ("extensions/v1beta1", ("DaemonSet", "Deployment", "ReplicaSet")),
        ("apps/v1beta1", ("Deployment", "StatefulSet", "ReplicaSet")),
        ("apps/v1beta2", ("DaemonSet", "Deployment", "StatefulSet", "ReplicaSet")),
    ) for kind in kinds},
    ("extensions/v1beta1", "NetworkPolicy"): "networking.k8s.io/v1",
    ("extensions/v1beta1", "PodSecurityPolicy"): None,
}


def _kinds_of(group: str) -> list[str]:
    return sorted(kind for g, kind in NAMESPACED_KINDS if g == group)


def _removed_fix(kind: str, replacement: str | None) -> str:
    """What to write instead of a removed API version of ``kind``."""
    if replacement is None:
        return (f"No API version of {kind} is served since Kubernetes 1.25 ({_GUIDE}#v1-25): remove the object, and "
                "enforce pod security with Pod Security Admission "
                "(https://kubernetes.io/docs/concepts/security/pod-security-admission/)")
    needs = f" (an {replacement} {kind} needs spec.selector matching its pod template's labels)" if (
        replacement == "apps/v1") else ""
    return f"Write `apiVersion: {replacement}`{needs}"


def api_problem(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(field, message)`` when no API server serves ``obj``'s ``apiVersion`` and ``kind`` (module docstring), else
    None. ``field`` is ``kind`` or ``apiVersion``; ``message`` names the value, the rule with its public source, and
    the fix (``kind: DaemonSet``, ``apiVersion: apps/v1``). An object whose ``apiVersion`` or ``kind`` is no string
    is None here (the caller reports it)."""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return None
    if (api, kind) in REMOVED_APIS:
        return "apiVersion", (
            f"apiVersion {api!r} of kind {kind!r} was removed in Kubernetes {_REMOVED_IN} ({_GUIDE}#v1-16): no API "
            f"server since serves it, so the object is never created (kubectl apply: no matches for kind \"{kind}\" in "
            f"version \"{api}\"; pulumi-kubernetes warns at preview that the API was removed, pulumi/pulumi-kubernetes "
            f"provider/pkg/kinds/deprecated.go@v4.32.0 RemovedAPIVersion, and fails to create it). "
            + _removed_fix(kind, REMOVED_APIS[(api, kind)]))
    known = _kinds_of(api.rpartition("/")[0])
    if kind in known or kind.lower() not in {k.lower() for k in known}:
        return None
    near = closest(kind, known) or next(k for k in known if k.lower() == kind.lower())
    return "kind", (
        f"kind {kind!r} is no kind of {api}; did you mean {near!r}? Kinds are case-sensitive (Kubernetes API "
        "conventions: https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/"
        f"api-conventions.md#types-kinds), so the API server has no {kind!r} (kubectl apply: no matches for kind "
        f"\"{kind}\" in version \"{api}\", kubernetes/apimachinery pkg/api/meta/errors.go@v0.36.2 NoKindMatchError) and "
        f"Pulumi's Kubernetes provider fails to create it. Write `kind: {near}`")


def list_items(obj: Any) -> list[Any]:
    """The objects ``obj`` stands for: the items of a ``*List`` kind (``kind`` ending in ``List``, with an ``items``
    list), lists inside it flattened too, else ``[obj]`` (whatever it is: the callers judge each item). The provider
    registers a list's items, never the list (pulumi/pulumi-kubernetes ``provider/pkg/provider/yaml/v2/yaml.go@v4.32.0``,
    ``expand``); every manifest reader of this package flattens with this one function."""
    if isinstance(obj, Mapping) and str(obj.get("kind", "")).endswith("List") and isinstance(obj.get("items"), list):
        return [o for item in obj["items"] for o in list_items(item)]
    return [obj]


def document_place(name: str, index: int, line: int | None = None) -> str:
    """Where an object of a YAML stream is, as every manifest message begins: ``"<name> document <n>"`` (``n`` =
    ``index`` + 1), then `` (line <l>)`` when ``line`` is known."""
    return f"{name} document {index + 1}" + (f" (line {line})" if line is not None else "")


def _line_of(text: str, index: int, field: str) -> int | None:
    """The line (from 1) of ``field``'s value in the ``index``-th document of ``text`` (its start for an object
    inside a ``List``), or None. Composed with the loader every manifest is read with (:class:`GoSafeLoader`);
    composing builds no alias expansion: it is linear in the text."""
    try:
        for i, node in enumerate(yaml.compose_all(text, Loader=GoSafeLoader)):
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
        for obj in list_items(doc):
            problem = api_problem(obj) if isinstance(obj, Mapping) else None
            if problem is not None:
                field, message = problem
                return index, _line_of(text, index, field), field, message
    return None


def first_api_problem(text: str, name: str) -> tuple[str, str] | None:
    """``(field, message)`` for the first object of the YAML stream ``text`` that :func:`api_problem` refuses, its
    message beginning ``<name> document <n> (line <l>): `` (:func:`document_place`); None when there is none.

    Raises:
        yaml.YAMLError: ``text`` is not YAML (parse it first: this re-reads a stream that parsed).
    """
    found = find_api_problem(text)
    if found is None:
        return None
    index, line, field, message = found
    return field, f"{document_place(name, index, line)}: {message}"
