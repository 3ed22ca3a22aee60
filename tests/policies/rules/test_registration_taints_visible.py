"""Policy registration-taints-visible: taints a managed node group's launch template registers through the kubelet, but
the node group does not declare, are reported and count as pool taints for every other policy."""

from __future__ import annotations

import base64

import pytest
from builders import EXISTS_GPU, cannot_run, daemonset, node_group, run

from gpu_node_pool.backends._shared.registration import ClusterInfo, Registration
from gpu_node_pool.backends.self_managed.bootstrap import render_bootstrap
from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

CLUSTER = ClusterInfo(name="ml-prod", api_server_endpoint="https://ABC.gr7.us-west-2.eks.amazonaws.com",
                      certificate_authority=base64.b64encode(b"-----BEGIN CERTIFICATE-----\nx\n").decode(),
                      service_cidr="10.100.0.0/16")
AL2_FLAGS = "#!/bin/bash\n/etc/eks/bootstrap.sh ml-prod --kubelet-extra-args '--register-with-taints=dedicated=gpu:NoSchedule'\n"


def nodeadm_mime(*taints: str) -> str:
    (text,) = render_bootstrap("al2023", Registration(tuple(Taint.parse(t) for t in taints), {}), CLUSTER).values()
    return text


def launch_template(user_data: str, name: str = "gpu-lt") -> StackResource:
    return StackResource("aws:ec2/launchTemplate:LaunchTemplate", name,
                         {"name": name, "userData": base64.b64encode(user_data.encode()).decode()},
                         urn=f"urn:pulumi:s::p::aws:ec2/launchTemplate:LaunchTemplate::{name}")


def managed(lt_name: str = "gpu-lt", taints=("nvidia.com/gpu=present:NoSchedule",)) -> StackResource:
    ng = node_group(taints=taints)
    ng.inputs["launchTemplate"] = {"name": lt_name, "version": "1"}
    return ng


@pytest.mark.parametrize("user_data", [AL2_FLAGS, nodeadm_mime("dedicated=gpu:NoSchedule")], ids=["al2-flags", "nodeadm-mime"])
def test_an_undeclared_registration_taint_is_reported(user_data):
    (found,) = run(d.registration_taints_visible.POLICY, [managed(), launch_template(user_data)])
    assert "registers the taint dedicated=gpu:NoSchedule" in found["message"]
    assert "launch template 'gpu-lt'" in found["message"] and found["enforcement"] == "mandatory"


def test_a_declared_registration_taint_is_fine_and_an_unlinked_template_is_ignored():
    declared = managed(taints=("nvidia.com/gpu=present:NoSchedule", "dedicated=gpu:NoSchedule"))
    assert run(d.registration_taints_visible.POLICY, [declared, launch_template(AL2_FLAGS)]) == []
    assert run(d.registration_taints_visible.POLICY, [managed("other-lt"), launch_template(AL2_FLAGS)]) == []


def test_other_policies_see_the_hidden_taint():
    agent = daemonset("node-exporter", "monitoring", tolerations=[EXISTS_GPU])
    stack = [managed(), launch_template(nodeadm_mime("dedicated=gpu:NoSchedule")), agent]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "dedicated=gpu:NoSchedule" in found["message"]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [managed(), agent]) == []


SED_INJECTION = (
    "#!/bin/bash\nset -ex\n"
    "sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=dedicated=gpu:NoSchedule\"' "
    "/etc/eks/bootstrap.sh\n/etc/eks/bootstrap.sh ml-prod\n"
)


def test_a_sed_into_kubelet_extra_args_is_reported_as_not_readable_never_passed():
    assert run(d.registration_taints_visible.POLICY, [managed(), launch_template(SED_INJECTION)]) == []
    (found,) = cannot_run(d.registration_taints_visible.POLICY, [managed(), launch_template(SED_INJECTION)])
    assert found["enforcement"] == "advisory"
    assert "registration taints in user data not readable" in found["message"]
    assert "sed -i" in found["message"] and "launch template 'gpu-lt'" in found["message"]


def test_a_mention_in_a_comment_or_a_read_flag_is_no_finding():
    commented = "#!/bin/bash\n# we used to pass --register-with-taints here\n/etc/eks/bootstrap.sh ml-prod\n"
    for stack in ([managed(), launch_template(commented)],
                  [managed(taints=("nvidia.com/gpu=present:NoSchedule", "dedicated=gpu:NoSchedule")), launch_template(AL2_FLAGS)],
                  [managed(), launch_template(nodeadm_mime())]):
        assert run(d.registration_taints_visible.POLICY, stack) == [] == cannot_run(d.registration_taints_visible.POLICY, stack)


def test_a_registration_taint_the_reader_cannot_parse_is_reported_as_not_readable():
    bad = "#!/bin/bash\n/etc/eks/bootstrap.sh ml-prod --kubelet-extra-args '--register-with-taints=dedicated=gpu:NO_SCHEDULE'\n"
    (found,) = cannot_run(d.registration_taints_visible.POLICY, [managed(), launch_template(bad)])
    assert found["enforcement"] == "advisory" and "the reader failed" in found["message"]
    assert "NO_SCHEDULE" in found["message"]
