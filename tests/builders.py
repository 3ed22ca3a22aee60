"""Builders the tests share: stack resources for the policies, and the errors of a stack config.

Policy resources are ``StackResource`` records as the runner builds them from a preview (the
provider's spelling of each input), so a test reads like the resources a program registers:
``node_group()`` is a tainted EKS GPU node group, ``plugin([...])`` NVIDIA's device plugin
DaemonSet, ``run(policy, resources)`` the policy's violations. Config helpers validate a stack
mapping and return what a user reads: one line per mistake.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import StackResource, evaluate

GPU = "nvidia.com/gpu=present:NoSchedule"
GPU_LABELS = {"nvidia.com/gpu.present": "true"}
EXISTS_GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


# --- stack resources the policies judge ----------------------------------------------------


def node_group(name="gpu", taints=(GPU,), labels=None, min_size=1, ami="AL2023_x86_64_NVIDIA", types=("g6.xlarge",)):
    return StackResource(
        "aws:eks/nodeGroup:NodeGroup",
        name,
        {"amiType": ami, "instanceTypes": list(types), "scalingConfig": {"minSize": min_size, "maxSize": 3},
         "taints": [Taint.parse(t).to_provider() for t in taints], "labels": dict(GPU_LABELS if labels is None else labels)},
        urn=f"urn:pulumi:s::p::aws:eks/nodeGroup:NodeGroup::{name}",
    )

def pod_spec(tolerations=None, node_selector=None, affinity=None, image="busybox", resources=None, command=None):
    spec = {"containers": [{"name": "main", "image": image}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if affinity is not None:
        spec["affinity"] = affinity
    if resources is not None:
        spec["containers"][0]["resources"] = resources
    if command is not None:
        spec["containers"][0]["command"] = command
    return spec

def daemonset(name="agent", namespace="kube-system", **kw):
    return StackResource("kubernetes:apps/v1:DaemonSet", name, {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
        "spec": {"template": {"spec": pod_spec(**kw)}}})

def deployment(name="web", namespace="web", **kw):
    return StackResource("kubernetes:apps/v1:Deployment", name, {
        "metadata": {"name": name, "namespace": namespace}, "spec": {"template": {"spec": pod_spec(**kw)}}})

def job(name="train", namespace="kube-system", **kw):
    return StackResource("kubernetes:batch/v1:Job", name, {
        "metadata": {"name": name, "namespace": namespace}, "spec": {"template": {"spec": pod_spec(**kw)}}})

def plugin(tolerations, affinity_label=("nvidia.com/gpu.present", "true"), namespace="nvidia-device-plugin"):
    key, value = affinity_label
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}}
    return daemonset("nvidia-device-plugin", namespace, tolerations=tolerations, affinity=affinity,
                     image="nvcr.io/nvidia/k8s-device-plugin:v0.20.0")

def b64(text):
    return base64.b64encode(text.encode()).decode()

def gke_pool(taints=(), labels=None, accelerators=({"type": "nvidia-l4", "count": 1},), machine="g2-standard-8"):
    return StackResource("gcp:container/nodePool:NodePool", "gke", {"nodeConfig": {
        "machineType": machine, "guestAccelerators": list(accelerators),
        "taints": [Taint.parse(t).to_provider() for t in taints], "labels": dict(GPU_LABELS if labels is None else labels)}},
        urn="urn:pulumi:s::p::gcp:container/nodePool:NodePool::gke")

def karpenter_pool(taints=(), requirements=None, limits=None, class_name="default"):
    return StackResource("kubernetes:karpenter.sh/v1:NodePool", "karp", {
        "metadata": {"name": "gpu"},
        "spec": {"limits": limits or {}, "template": {"metadata": {"labels": dict(GPU_LABELS)}, "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class_name},
            "requirements": requirements if requirements is not None else [
                {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}],
            "taints": [Taint.parse(t).to_k8s() for t in taints]}}}},
        urn="urn:pulumi:s::p::kubernetes:karpenter.sh/v1:NodePool::karp")

def nodeadm_launch_template(taints=(), instance_type="g6e.2xlarge"):
    flags = f"\n      flags:\n        - --register-with-taints={','.join(taints)}" if taints else ""
    user_data = (
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\n"
        "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: ml\n"
        "    apiServerEndpoint: https://example.eks.amazonaws.com\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n"
        f"  kubelet:{flags if flags else ' {}'}\n\n--B--\n"
    )
    return StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt",
                         {"instanceType": instance_type, "userData": b64(user_data)},
                         urn="urn:pulumi:s::p::aws:ec2/launchTemplate:LaunchTemplate::lt")

def command(create, typ="command:local:Command", field="create"):
    """A ``command`` provider resource whose ``field`` (create, update, delete) runs ``create``."""
    return StackResource(typ, "cmd", {field: create})


# Resources that taint nodes imperatively (commands, node objects, boot scripts, Jobs): the cases
# no-imperative-taints refuses, also used to check that every policy still reports on what it reads.
IMPERATIVE_TAINTS = [
    command("kubectl taint nodes -l pool=gpu nvidia.com/gpu=present:NoSchedule"),
    command("set -e\nkubectl --context prod taint node gpu-1 dedicated=gpu:NoSchedule --overwrite"),
    command("kubectl patch node gpu-1 -p '{\"spec\":{\"taints\":[]}}'", "command:remote:Command", "update"),
    command("oc adm taint nodes gpu-1 dedicated=gpu:NoSchedule", field="delete"),
    StackResource("kubernetes:core/v1:NodePatch", "n", {"metadata": {"name": "gpu-1"},
                  "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}}),
    StackResource("kubernetes:core/v1:Node", "n", {"spec": {"taints": [{"key": "x", "effect": "NoExecute"}]}}),
    StackResource("kubernetes:core/v1:NodeList", "n", {"items": [{"spec": {"taints": [{"key": "x", "effect": "NoSchedule"}]}}]}),
    StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt",
                  {"userData": b64("#!/bin/bash\n/etc/eks/bootstrap.sh ml\nkubectl taint nodes $(hostname) a=b:NoSchedule\n")}),
    StackResource("aws:ec2/instance:Instance", "i", {"userData": "#!/bin/bash\nkubectl taint node $(hostname) a=b:NoSchedule"}),
    StackResource("gcp:compute/instanceTemplate:InstanceTemplate", "t",
                  {"metadataStartupScript": "kubectl taint nodes $(hostname) a=b:NoSchedule"}),
    StackResource("gcp:compute/instance:Instance", "t", {"metadata": {"startup-script": "kubectl taint no x a=b:NoSchedule"}}),
    job(command=["kubectl", "taint", "nodes", "--all", "a=b:NoSchedule"]),
    StackResource("kubernetes:batch/v1:CronJob", "c", {"spec": {"jobTemplate": {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "command": ["/bin/sh", "-c"], "args": ["kubectl taint nodes -l x=y a=b:NoSchedule"]}]}}}}}}),
]


def run(policy, resources, config=None):
    """Mandatory/advisory violations (not "can't run" notes) of one policy."""
    return [f for f in evaluate(resources, config, policies=[policy]) if "can't run policy" not in f["message"]]

def cannot_run(policy, resources, config=None):
    return [f for f in evaluate(resources, config, policies=[policy]) if "can't run policy" in f["message"]]


# --- the errors of a stack config ----------------------------------------------------------


def config_error(raw: Any, validate: Callable[[Any], object] = validate_stack_config) -> ConfigError:
    """The ``ConfigError`` ``validate(raw)`` raises (the test fails if it raises none).

    ``raw`` is a stack mapping (``{"cluster": ..., "pools": [...]}``) for the default
    ``validate_stack_config``, or whatever ``validate`` takes (a pool mapping, a stack builder).
    """
    with pytest.raises(ConfigError) as info:
        validate(raw)
    return info.value


def config_errors(raw: Any, validate: Callable[[Any], object] = validate_stack_config) -> list[str]:
    """One line per mistake, as the CLI prints them: ``"<path>: <message>"``."""
    return [str(issue) for issue in config_error(raw, validate).issues]


def config_error_text(raw: Any, validate: Callable[[Any], object] = validate_stack_config) -> str:
    """The mistakes as one text, one per line, for substring checks across them."""
    return "\n".join(config_errors(raw, validate))


def config_issues(raw: Any, validate: Callable[[Any], object] = validate_stack_config) -> list[tuple[str, str]]:
    """``(path, message)`` of each mistake."""
    return [(issue.path, issue.message) for issue in config_error(raw, validate).issues]
