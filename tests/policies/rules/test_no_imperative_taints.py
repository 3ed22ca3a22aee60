"""Policy no-imperative-taints: node taints set by commands, node patches or boot scripts are refused
(the autoscaler never sees them); declarative taints and unrelated commands pass; an unknown command
is reported as not judged."""

from __future__ import annotations

import pytest
from builders import (
    IMPERATIVE_TAINTS,
    b64,
    cannot_run,
    command,
    job,
    run,
)
from pulumi_policy import PolicyCustomTimeouts, PolicyResourceOptions, ResourceValidationArgs
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d


@pytest.mark.parametrize(
    "resource",
    IMPERATIVE_TAINTS,
    ids=lambda r: f"{r.type}:{r.name}",
)
def test_imperative_taints_are_refused_and_the_message_says_where_to_declare(resource):
    (found,) = run(d.no_imperative_taints.POLICY, [resource])
    assert found["enforcement"] == "mandatory"
    assert "GpuNodePool `taints`" in found["message"] and "autoscaler" in found["message"]


@pytest.mark.parametrize(
    "resource",
    [
        command("kubectl get nodes -o wide"),
        command("# kubectl taint nodes x a=b:NoSchedule (do not do this)\necho done"),
        command("kubectl label nodes gpu-1 team=ml"),
        StackResource("kubernetes:core/v1:NodePatch", "n", {"spec": {"taints": []}}),
        StackResource("kubernetes:core/v1:Node", "n", {"metadata": {"labels": {"a": "b"}}}),
        StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"userData": b64(
            "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--register-with-taints=nvidia.com/gpu=present:NoSchedule'\n")}),
        job(command=["python", "train.py", "--taint-aware"]),
    ],
    ids=lambda r: f"{r.type}:{r.name}",
)
def test_declarative_taints_and_unrelated_commands_pass(resource):
    assert run(d.no_imperative_taints.POLICY, [resource]) == []


def test_an_unknown_command_cannot_be_judged_and_the_sdk_says_so():
    args = ResourceValidationArgs(
        "command:local:Command", unknown_checking_proxy({"create": UNKNOWN}), "urn:x", "cmd",
        PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), []), None,
    )
    with pytest.raises(UnknownValueError):
        d.no_imperative_taints.POLICY.validate(args, lambda message, urn=None: pytest.fail(message))
    (note,) = cannot_run(d.no_imperative_taints.POLICY, [command(UNKNOWN)])
    assert note["enforcement"] == "advisory" and ".create" in note["message"]


def _kubectl_job(image: str, args: list[str], command: list[str] | None = None) -> StackResource:
    resource = job(image=image, command=command)
    resource.inputs["spec"]["template"]["spec"]["containers"][0]["args"] = args
    return resource


@pytest.mark.parametrize("image", [
    "bitnami/kubectl:1.31", "docker.io/bitnami/kubectl@sha256:" + "0" * 64, "registry.k8s.io/kubectl:v1.31.0",
    "rancher/kubectl:v1.31.0", "public.ecr.aws/bitnami/kubectl:1.30", "mirror.example.com/registry.k8s.io/kubectl:v1.31.0",
])
def test_a_kubectl_image_whose_args_alone_taint_nodes_is_refused(image):
    # the image's entrypoint is kubectl: args [taint, nodes, ...] run `kubectl taint nodes ...`
    (found,) = run(d.no_imperative_taints.POLICY, [_kubectl_job(image, ["taint", "nodes", "-l", "gpu=true",
                                                                        "nvidia.com/gpu=present:NoSchedule"])])
    assert found["enforcement"] == "mandatory"
    assert "runs: kubectl taint nodes -l gpu=true nvidia.com/gpu=present:NoSchedule" in found["message"]


@pytest.mark.parametrize("resource", [
    _kubectl_job("busybox", ["taint", "nodes", "x", "a=b:NoSchedule"]),  # busybox's entrypoint is no kubectl
    _kubectl_job("bitnami/kubectl:1.31", ["taint", "nodes", "x", "a=b:NoSchedule"], command=["echo"]),
    _kubectl_job("bitnami/kubectl:1.31", ["get", "nodes", "-l", "taint=ok"]),
])
def test_args_that_do_not_reach_kubectl_taint_pass(resource):
    assert run(d.no_imperative_taints.POLICY, [resource]) == []


def test_a_command_that_applies_a_tainted_node_manifest_from_a_here_document_is_refused():
    script = ("kubectl apply -f - <<EOF\napiVersion: v1\nkind: Node\nmetadata: {name: gpu-1}\n"
              "spec:\n  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\nEOF\n")
    (found,) = run(d.no_imperative_taints.POLICY, [command(script)])
    assert "create: kubectl apply -f - <<EOF (a Node manifest with spec.taints)" in found["message"]
