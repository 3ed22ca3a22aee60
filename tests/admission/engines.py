"""The admission engines the differential tests run, on one stack config: the ValidatingAdmissionPolicies
the real program installs (evaluated with cel-python and with cel-expr-python) and the Gatekeeper
templates and Constraints the same program installs with ``engine: gatekeeper`` (evaluated with regopy)."""

from __future__ import annotations

import copy
from functools import cache

from cel_admission import admit
from conftest import base
from rego_admission import review

from gpu_node_pool.component.program import build
from gpu_node_pool.config.loading import validate_stack_config
from gpu_node_pool.plan.run import record

ENGINES = ("cel-python", "cel-expr-python", "gatekeeper")
VAP = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
BINDING = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
TOLERATION = "gpu-node-pools-gpu-toleration-allowlist"
NODES = "gpu-node-pools-no-imperative-taints"
DAEMONSETS = "gpu-node-pools-daemonsets-tolerate-gpu-taints"
REACH = "gpu-node-pools-gpu-workloads-reach-their-pool"

RESOURCES = {"Pod": ("", "v1", "pods"), "Deployment": ("apps", "v1", "deployments"), "DaemonSet": ("apps", "v1", "daemonsets"),
             "Job": ("batch", "v1", "jobs"), "CronJob": ("batch", "v1", "cronjobs"), "Node": ("", "v1", "nodes"),
             "StatefulSet": ("apps", "v1", "statefulsets"), "ReplicaSet": ("apps", "v1", "replicasets")}


def stack_config(action: str = "deny", taints=("nvidia.com/gpu=present:NoSchedule",), engine: str = "validating-admission-policy") -> dict:
    raw = base()
    raw["cluster"]["kubernetesVersion"] = "1.35"  # Gt/Lt tolerations exist there (alpha), so both sides judge them
    raw["pools"][0]["taints"] = list(taints)
    second = copy.deepcopy(raw["pools"][0])
    second.update(name="training", taints=["nvidia.com/gpu=present:NoSchedule", "team=ml:NoExecute"])
    raw["pools"].append(second)
    raw["admission"] = {"enabled": True, "action": action, "engine": engine,
                        "exempt": {"users": ["ops-bot"], "groups": ["node-admins"]}}
    return raw


@cache
def recorded(action: str = "deny", taints=("nvidia.com/gpu=present:NoSchedule",), engine: str = "validating-admission-policy"):
    """Every resource of one run of the real program on :func:`stack_config`."""
    stack = validate_stack_config(stack_config(action, taints, engine))
    resources, _ = record(lambda: build(stack))
    return tuple(resources)


def vap_objects(resources) -> tuple[dict, dict]:
    policies = {r.inputs["metadata"]["name"]: {"kind": "ValidatingAdmissionPolicy", **r.inputs} for r in resources if r.type == VAP}
    bindings = {r.inputs["spec"]["policyName"]: r.inputs for r in resources if r.type == BINDING}
    return policies, bindings


def gatekeeper_objects(resources) -> dict[str, tuple[dict, dict]]:
    templates = {r.inputs["spec"]["crd"]["spec"]["names"]["kind"]: r.inputs for r in resources
                 if r.type == "kubernetes:templates.gatekeeper.sh/v1:ConstraintTemplate"}
    return {r.inputs["metadata"]["name"]: (templates[r.inputs["kind"]], r.inputs) for r in resources
            if r.type.startswith("kubernetes:constraints.gatekeeper.sh/")}


def request(obj: dict, *, operation: str = "CREATE", user: str = "alice", groups=("system:authenticated",),
            old: dict | None = None) -> dict:
    """An AdmissionRequest for ``obj`` (Gatekeeper's ``input.review`` has the same shape)."""
    group, version, resource = RESOURCES[obj["kind"]]
    return {"operation": operation, "namespace": obj["metadata"].get("namespace", ""),
            "resource": {"group": group, "version": version, "resource": resource},
            "kind": {"group": group, "version": version, "kind": obj["kind"]},
            "userInfo": {"username": user, "groups": list(groups)}, "object": obj, "oldObject": old}


def judge(engine: str, rule: str, req: dict, action: str = "deny", taints=("nvidia.com/gpu=present:NoSchedule",)) -> list[str]:
    """The messages ``rule`` gives ``req`` under ``engine`` (empty: admitted or not applicable)."""
    if engine == "gatekeeper":
        template, constraint = gatekeeper_objects(recorded(action, taints, "gatekeeper"))[rule]
        return review(template, constraint, req) or []
    policies, bindings = vap_objects(recorded(action, taints))
    return admit(policies[rule], req, bindings[rule], runtime_name=engine) or []
