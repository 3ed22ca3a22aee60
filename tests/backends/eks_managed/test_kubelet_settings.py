"""eks-managed ``kubelet`` settings: one nodeadm NodeConfig part in the launch template's user data,
which EKS merges with its own (EKS user guide launch-templates); taints and labels stay the node group's."""

from __future__ import annotations

import base64

import yaml
from builders import config_errors, config_issues
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.backends._shared import user_data
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.plan import record
from gpu_node_pool.policies import StackResource, evaluate
from gpu_node_pool.policies import rules as d

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
KUBELET = {"config": {"maxPods": 110, "systemReserved": {"memory": "2Gi"}}, "flags": ["--v=2"]}


def declare(**pool):
    cfg = base()
    cfg["pools"][0] |= pool
    stack = validate_stack_config(cfg)
    resources, _ = record(lambda: [GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=stack.cluster)) for p in stack.pools])
    return resources


def test_kubelet_settings_reach_the_nodes_as_a_nodeconfig_part_in_the_launch_template():
    resources = declare(kubelet=KUBELET)
    (lt,) = [r.inputs for r in resources if r.type == LT]
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert "launchTemplate" in ng and ng["taints"]  # the taints stay on the node group
    text = base64.b64decode(lt["userData"]).decode()
    assert user_data.detect_format(text) == "al2023"
    (part,) = [body for ctype, body in user_data.mime_parts(text) if ctype == "application/node.eks.aws"]
    doc = yaml.safe_load(part)
    assert doc["kind"] == "NodeConfig" and doc["spec"] == {"kubelet": KUBELET}
    # read back as the policies read it: it registers no taint or label of its own
    assert user_data.read_registration(text).taints == () and not user_data.read_registration(text).labels


def test_the_pack_sees_the_same_pool_with_and_without_kubelet_settings():
    # registration-taints-visible reads the launch template's user data: nothing hidden there
    resources = declare(kubelet=KUBELET)
    stack = [StackResource(r.type, r.name, r.inputs, urn=r.urn) for r in resources]
    found = [f for f in evaluate(stack, None, policies=[d.registration_taints_visible.POLICY])
             if "can't run policy" not in f["message"]]
    assert found == []


def test_registration_flags_in_kubelet_settings_go_to_the_node_group_not_the_nodeconfig():
    # merged with the pool's own (test_pass_through.py); the NodeConfig part keeps only the rest
    resources = declare(kubelet={"config": {"maxPods": 110, "registerWithTaints": [{"key": "a", "value": "b", "effect": "NoSchedule"}]},
                                 "flags": ["--v=2", "--node-labels=team=ml"]})
    (lt,) = [r.inputs for r in resources if r.type == LT]
    (part,) = [body for ctype, body in user_data.mime_parts(base64.b64decode(lt["userData"]).decode())
               if ctype == "application/node.eks.aws"]
    assert yaml.safe_load(part)["spec"] == {"kubelet": {"config": {"maxPods": 110}, "flags": ["--v=2"]}}
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert {"key": "a", "value": "b", "effect": "NO_SCHEDULE"} in ng["taints"] and ng["labels"]["team"] == "ml"


def test_a_flag_that_is_not_one_kubelet_flag_is_refused():
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"flags": ["v=2"]}
    assert any(e.startswith("pools[0].kubelet") and "is not one kubelet flag" in e for e in config_errors(cfg))


def test_kubelet_settings_are_refused_on_bottlerocket_and_with_disk_size():
    cfg = base()
    cfg["pools"][0] |= {"kubelet": KUBELET, "amiType": "BOTTLEROCKET_x86_64_NVIDIA"}
    assert any("Bottlerocket TOML settings" in e and "use bottlerocket: {settings" in e for e in config_errors(cfg))
    cfg = base()
    cfg["pools"][0] |= {"kubelet": KUBELET, "diskSize": 200}
    assert any("diskSize cannot be set" in e for e in config_errors(cfg))


def test_a_users_own_launch_template_is_used_as_given_and_its_user_data_is_not_judged():
    from gpu_node_pool.config import stack_warnings

    resources = declare(launchTemplate={"id": "lt-0123456789abcdef0", "version": "3"})
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert ng["launchTemplate"] == {"id": "lt-0123456789abcdef0", "version": "3"}
    assert not [r for r in resources if r.type == LT]
    cfg = base()
    cfg["pools"][0]["launchTemplate"] = {"id": "lt-0123456789abcdef0", "version": "3"}
    assert any(w.path == "pools[0].launchTemplate" and "not judged" in w.message
               for w in stack_warnings(validate_stack_config(cfg)))
    # one template per managed node group: never merged with the component's
    cfg["pools"][0]["kubelet"] = KUBELET
    assert any("a managed node group takes one template" in e for e in config_errors(cfg))


def test_kubelet_values_no_kubelet_takes_are_refused_with_their_path():
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"config": {"maxPods": 99999999999999999999}}
    assert any("config.maxPods" in e and "int32" in e for e in config_errors(cfg))
    cfg["pools"][0]["kubelet"] = {"config": {"evictionHard": {"memory.available": "\n"}}}
    assert any("config.evictionHard['memory.available']: '\\n' holds" in e and "control character" in e for e in config_errors(cfg))


def test_taints_or_labels_under_a_config_key_the_kubelet_does_not_have_are_refused():
    # Neither key is a KubeletConfiguration field: the taints or labels would not reach the node group
    # the way registerWithTaints and --node-labels do, and the plan would promise nothing about them.
    cfg = base()
    for key, needle in (("RegisterWithTaints", "registerWithTaints"), ("register-with-taints", "registerWithTaints"),
                        ("nodeLabels", "--node-labels")):
        cfg["pools"][0]["kubelet"] = {"config": {key: [{"key": "a", "value": "b", "effect": "NoSchedule"}]}}
        errors = config_errors(cfg)
        assert any(e.startswith("pools[0].kubelet.config") and f"config.{key}" in e and needle in e
                   and "kubelet-config.v1beta1" in e for e in errors), (key, errors)


def test_a_flag_with_a_newline_or_other_control_character_is_refused_at_its_own_path():
    # One item is one argument: a newline would smuggle a second flag (here a taint the node group
    # does not declare) past the flag's own checks into the NodeConfig.
    cfg = base()
    for flag, shown in (("--max-pods=110\n--register-with-taints=a=b:NoSchedule", "\\n"), ("--v=2\r", "\\r"),
                        ("--v=\t2", "\\t"), ("--node-labels=a=b\x00", "\\x00"), ("--v=2\x7f", "\\x7f")):
        cfg["pools"][0]["kubelet"] = {"flags": ["--v=2", flag]}
        issues = config_issues(cfg)
        assert [path for path, _ in issues] == ["pools[0].kubelet.flags[1]"], (flag, issues)
        (message,) = [m for _, m in issues]
        assert "control character" in message and shown in message and "one flag per item" in message, message
        assert "kubelet" in message and "command-line-tools-reference/kubelet" in message
        assert "{}" not in message and "beside the node group" not in message


def test_a_flag_that_registers_a_taint_from_inside_another_flag_is_refused_at_that_flag():
    # The readers the policies use find the taint in the rendered NodeConfig; the node group would not declare it.
    cfg = base()
    cfg["pools"][0]["kubelet"] = {"flags": ["--v=2", "--kubelet-extra-args=--register-with-taints=a=b:NoSchedule"]}
    (issue,) = config_issues(cfg)
    path, message = issue
    assert path == "pools[0].kubelet.flags[1]", issue
    assert "taints a=b:NoSchedule from" in message and "{}" not in message and "labels {" not in message
    assert "node group" in message and "launch-templates.html" in message
    assert "--register-with-taints=a=b:NoSchedule" in message and "the pool's taints" in message
