"""The minimal RBAC for ``gpupool audit`` against a live cluster: get/list, nothing else.

Resources follow :data:`gpu_node_pool.audit.sources.LISTS` (the only calls the audit makes).
"""

from __future__ import annotations

import yaml

from .sources import LISTS

__all__ = ["cluster_role", "print_rbac"]

#: The admission guard's objects (ValidatingAdmissionPolicies and bindings; Gatekeeper templates and every
#: Constraint kind, which Gatekeeper creates per template).
_ADMISSION = (("admissionregistration.k8s.io", ("validatingadmissionpolicies", "validatingadmissionpolicybindings")),
              ("templates.gatekeeper.sh", ("constrainttemplates",)), ("constraints.gatekeeper.sh", ("*",)))
_GROUPS = {"Node": ("", "nodes"), "DaemonSet": ("apps", "daemonsets"), "Pod": ("", "pods"), "Event": ("", "events")}


def cluster_role(name: str = "gpupool-audit") -> dict:
    """A ``ClusterRole`` granting ``get``/``list`` on exactly what the audit lists, plus its binding."""
    rules: dict[str, list[str]] = {}
    for kind in LISTS:
        group, resource = _GROUPS[kind]
        rules.setdefault(group, []).append(resource)
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name},
        "rules": [{"apiGroups": [g], "resources": sorted(r), "verbs": ["get", "list"]} for g, r in rules.items()]
        + [{"apiGroups": [g], "resources": list(r), "verbs": ["get", "list"]} for g, r in _ADMISSION],
    }


def print_rbac() -> str:
    """YAML of the ClusterRole and a ClusterRoleBinding to a group ``gpupool-auditors``."""
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "gpupool-audit"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gpupool-audit"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "gpupool-auditors"}],
    }
    head = "# gpupool audit: read-only (get/list) on what it reads; bind it to your user, group or service account\n"
    return head + yaml.safe_dump_all([cluster_role(), binding], sort_keys=False)
