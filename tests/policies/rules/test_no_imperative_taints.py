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
