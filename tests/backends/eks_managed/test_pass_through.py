"""eks-managed pass-through taints and labels (``kubelet.flags`` ``--register-with-taints``/``--node-labels``,
``kubelet.config.registerWithTaints``, ``bottlerocket.settings.kubernetes.node-taints``/``node-labels``): merged
with the pool's own on the node group, seen by the policies, not written again in user data, and refused
when they disagree with the pool."""

from __future__ import annotations

import base64

import pytest
from builders import EXISTS_GPU, config_errors, daemonset, run
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.backends._shared import user_data
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.plan import record
from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.pools import find_gpu_pools
from gpu_node_pool.policies.runner import policy_resources

LT = "aws:ec2/launchTemplate:LaunchTemplate"
NG = "aws:eks/nodeGroup:NodeGroup"
TAG = "aws:autoscaling/tag:Tag"
BR = "BOTTLEROCKET_x86_64_NVIDIA"

#: (field, pool settings that set the taint dedicated=ml:NoSchedule through it)
TAINT_FIELDS = {
    "kubelet.flags": {"kubelet": {"flags": ["--register-with-taints=dedicated=ml:NoSchedule", "--v=2"]}},
    "kubelet.config.registerWithTaints": {
        "kubelet": {"config": {"maxPods": 110, "registerWithTaints": [{"key": "dedicated", "value": "ml", "effect": "NoSchedule"}]}}},
    "bottlerocket.settings.kubernetes.node-taints": {
        "amiType": BR, "bottlerocket": {"settings": {"kubernetes": {"max-pods": 110, "node-taints": {"dedicated": "ml:NoSchedule"}}}}},
}
#: (field, pool settings that set the label team=ml through it)
LABEL_FIELDS = {
    "kubelet.flags": {"kubelet": {"flags": ["--node-labels=team=ml"]}},
    "bottlerocket.settings.kubernetes.node-labels": {
        "amiType": BR, "bottlerocket": {"settings": {"kubernetes": {"node-labels": {"team": "ml"}}}}},
}


def declare(**pool):
    cfg = base()
    cfg["pools"][0] |= pool
    stack = validate_stack_config(cfg)
    resources, _ = record(lambda: [GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=stack.cluster)) for p in stack.pools])
    return resources


def _user_data(resources):
    texts = [base64.b64decode(r.inputs["userData"]).decode() for r in resources if r.type == LT and r.inputs.get("userData")]
    return texts[0] if texts else None


@pytest.mark.parametrize("field", TAINT_FIELDS)
def test_a_pass_through_taint_is_on_the_node_group_and_the_policies_see_it(field):
    resources = declare(**TAINT_FIELDS[field])
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert {"key": "dedicated", "value": "ml", "effect": "NO_SCHEDULE"} in ng["taints"]
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in ng["taints"]
    # a DaemonSet tolerating only the GPU taint now misses the pass-through one
    agent = daemonset(tolerations=[EXISTS_GPU])
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [*resources, agent])
    assert "dedicated=ml:NoSchedule not tolerated" in found["message"]
    # the control: the same pool without the pass-through taint is clean
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [*declare(), agent]) == []
    # scale from zero: the autoscaler is told the merged taints
    tags = {r.inputs["tag"]["key"]: r.inputs["tag"]["value"] for r in resources if r.type == TAG}
    assert tags["k8s.io/cluster-autoscaler/node-template/taint/dedicated"] == "ml:NoSchedule"
    # written once, on the node group: the user data registers nothing of its own
    text = _user_data(resources)
    assert text is not None and "dedicated" not in text
    assert user_data.read_registration(text).taints == ()


@pytest.mark.parametrize("field", LABEL_FIELDS)
def test_a_pass_through_label_is_on_the_node_group_and_the_policies_see_it(field):
    resources = declare(**LABEL_FIELDS[field])
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert ng["labels"]["team"] == "ml"
    # a DaemonSet kept off team=ml nodes by a required affinity needs no toleration there: only if the label is seen
    keep_off = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["ml"]}]}]}}}
    agent = daemonset(affinity=keep_off, tolerations=[])
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [*resources, agent]) == []
    control = declare(**{k: v for k, v in LABEL_FIELDS[field].items() if k == "amiType"})
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [*control, agent])
    assert "nvidia.com/gpu=present:NoSchedule not tolerated" in found["message"]
    (pool,) = find_gpu_pools(policy_resources(resources))
    assert pool.labels["team"] == "ml"
    tags = {r.inputs["tag"]["key"]: r.inputs["tag"]["value"] for r in resources if r.type == TAG}
    assert tags["k8s.io/cluster-autoscaler/node-template/label/team"] == "ml"
    text = _user_data(resources)
    assert text is None or not user_data.read_registration(text).labels


def test_taints_and_labels_alone_need_no_launch_template():
    # they go on the node group: no user data is left, so diskSize stays allowed
    resources = declare(kubelet={"flags": ["--register-with-taints=dedicated=ml:NoSchedule", "--node-labels=team=ml"]}, diskSize=200)
    assert not [r for r in resources if r.type == LT]
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert ng["diskSize"] == 200 and ng["labels"]["team"] == "ml"


def test_the_same_taint_given_twice_is_declared_once():
    resources = declare(kubelet={"flags": ["--register-with-taints=nvidia.com/gpu=present:NoSchedule"]})
    (ng,) = [r.inputs for r in resources if r.type == NG]
    assert ng["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]


@pytest.mark.parametrize(
    ("pool", "needles"),
    [
        ({"kubelet": {"flags": ["--register-with-taints=nvidia.com/gpu=true:NoSchedule"]}},
         ["kubelet.flags[0]", "'nvidia.com/gpu=true:NoSchedule'", "taints[0]", "'nvidia.com/gpu=present:NoSchedule'"]),
        ({"kubelet": {"config": {"registerWithTaints": [{"key": "nvidia.com/gpu", "value": "x", "effect": "NoSchedule"}]}}},
         ["kubelet.config.registerWithTaints[0]", "taints[0]"]),
        ({"amiType": BR, "bottlerocket": {"settings": {"kubernetes": {"node-taints": {"nvidia.com/gpu": "x:NoSchedule"}}}}},
         ["bottlerocket.settings.kubernetes.node-taints.nvidia.com/gpu", "taints[0]"]),
        ({"kubelet": {"flags": ["--node-labels=example.com/team=infra"]}},
         ["kubelet.flags[0]", "example.com/team='infra'", "labels.example.com/team", "'ml'"]),
        ({"amiType": BR, "bottlerocket": {"settings": {"kubernetes": {"node-labels": {"nvidia.com/gpu.present": "no"}}}}},
         ["bottlerocket.settings.kubernetes.node-labels.nvidia.com/gpu.present", "gpuLabel"]),
    ],
)
def test_a_disagreeing_pass_through_value_is_refused_naming_both_paths_and_values(pool, needles):
    cfg = base()
    cfg["pools"][0] |= pool
    errors = config_errors(cfg)
    assert any(all(n in e for n in needles) for e in errors), errors


@pytest.mark.parametrize(
    ("kubelet", "needle"),
    [
        ({"flags": ["--register-with-taints"]}, "write the value in the same item"),
        ({"flags": ["--register-with-taints=a=b:NO_SCHEDULE"]}, "flags[0]"),
        ({"flags": ["--node-labels=team"]}, "is not key=value"),
        ({"config": {"registerWithTaints": "a=b:NoSchedule"}}, "not a list of taints"),
        ({"flags": ["--node-labels=kubernetes.io/role=gpu"]}, "kubernetes.io"),
    ],
)
def test_pass_through_taints_and_labels_that_do_not_parse_or_eks_refuses_are_refused(kubelet, needle):
    cfg = base()
    cfg["pools"][0]["kubelet"] = kubelet
    errors = config_errors(cfg)
    assert any(e.startswith("pools[0]") and needle in e for e in errors), errors


def test_the_eks_taint_limit_holds_for_the_merged_set():
    cfg = base()
    cfg["pools"][0]["taints"] = [f"t{i}=v:NoSchedule" for i in range(45)]
    cfg["pools"][0]["scaling"] = {"minSize": 1, "maxSize": 4}
    cfg["pools"][0]["kubelet"] = {"flags": ["--register-with-taints=" + ",".join(f"p{i}=v:NoSchedule" for i in range(6))]}
    assert any("51 taints" in e and "at most 50" in e for e in config_errors(cfg))


def test_a_disagreeing_pass_through_taint_is_exit_2_in_the_plan(temp_project, capsys):
    from gpu_node_pool.cli.commands import main

    text = (
        "config:\n  aws:region: us-west-2\n  gpu-node-pools:cluster:\n    name: ml-dev\n"
        "    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node\n    subnetIds: [subnet-0a1b2c3d4e5f60718]\n"
        "  gpu-node-pools:pools:\n    - name: gpu\n      backend: eks-managed\n      instanceTypes: [g6.xlarge]\n"
        "      scaling: {minSize: 0, maxSize: 2}\n      taints: ['nvidia.com/gpu=present:NoSchedule']\n"
        "      kubelet: {flags: ['--register-with-taints=nvidia.com/gpu=true:NoSchedule']}\n"
    )
    project = temp_project("pt", text)
    code = main(["plan", "--stack", "pt", "--project-dir", str(project)])
    out = capsys.readouterr()
    assert code == 2
    assert "pools[0]" in out.out + out.err and "kubelet.flags[0]" in out.out + out.err


def test_the_plan_says_which_taints_and_labels_came_from_a_pass_through(temp_project, capsys):
    import json

    from gpu_node_pool.cli.commands import main

    text = (
        "config:\n  aws:region: us-west-2\n  gpu-node-pools:cluster:\n    name: ml-dev\n"
        "    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node\n    subnetIds: [subnet-0a1b2c3d4e5f60718]\n"
        "  gpu-node-pools:pools:\n    - name: gpu\n      backend: eks-managed\n      instanceTypes: [g6.xlarge]\n"
        "      scaling: {minSize: 0, maxSize: 2}\n"
        "      kubelet: {flags: ['--register-with-taints=dedicated=ml:NoSchedule', '--node-labels=team=ml']}\n"
    )
    project = temp_project("ptplan", text)
    main(["plan", "--stack", "ptplan", "--project-dir", str(project), "--json", "--fail-on", "none"])
    (pool,) = json.loads(capsys.readouterr().out)["pools"]
    assert pool["passThrough"] == {"taints": [{"taint": "dedicated=ml:NoSchedule", "from": "kubelet.flags[0]"}],
                                   "labels": [{"label": "team=ml", "from": "kubelet.flags[1]"}]}
    assert "dedicated=ml:NoSchedule" in pool["taints"] and pool["labels"]["team"] == "ml"
    main(["plan", "--stack", "ptplan", "--project-dir", str(project), "--fail-on", "none"])
    out = capsys.readouterr().out
    assert "    taint dedicated=ml:NoSchedule  from kubelet.flags[0]" in out
    assert "    label team=ml  from kubelet.flags[1]" in out


#: A kubelet setting giving the pool's GPU taint key a second effect, and where it sits under the pool.
SECOND_EFFECT = {
    "kubelet.flags[1]": "kubelet: {flags: ['--v=2', '--register-with-taints=nvidia.com/gpu=present:NoExecute']}",
    "kubelet.config.registerWithTaints[0]":
        "kubelet: {config: {registerWithTaints: [{key: nvidia.com/gpu, value: present, effect: NoExecute}]}}",
}


@pytest.mark.parametrize("where", SECOND_EFFECT)
def test_a_second_effect_from_a_kubelet_setting_is_refused_at_that_setting_naming_both_sources(temp_project, capsys, where):
    from gpu_node_pool.cli.commands import main

    text = (
        "config:\n  aws:region: us-west-2\n  gpu-node-pools:cluster:\n    name: ml-dev\n"
        "    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node\n    subnetIds: [subnet-0a1b2c3d4e5f60718]\n"
        "  gpu-node-pools:pools:\n    - name: gpu\n      backend: eks-managed\n      instanceTypes: [g6.xlarge]\n"
        "      scaling: {minSize: 0, maxSize: 2}\n      taints: ['nvidia.com/gpu=present:NoSchedule']\n"
        f"      {SECOND_EFFECT[where]}\n"
    )
    code = main(["validate", "--stack", "two", "--project-dir", str(temp_project("two", text))])
    out = capsys.readouterr()
    out = out.out + out.err
    assert code == 2, out
    assert (f"pools[0].{where}: {where} registers taint 'nvidia.com/gpu=present:NoExecute' and taints[0] has "
            "'nvidia.com/gpu=present:NoSchedule': taint key(s) nvidia.com/gpu carry several effects") in out, out
    assert f"remove the taint from {where}" in out and "Pulumi.two.yaml:13:" in out, out  # the kubelet line
    # the pool's own taints alone keep the refusal at the pool, and at minSize >= 1 a second effect is allowed
    own = text.replace(f"      {SECOND_EFFECT[where]}\n", "").replace(
        "['nvidia.com/gpu=present:NoSchedule']", "['nvidia.com/gpu=present:NoSchedule', 'nvidia.com/gpu=present:NoExecute']")
    assert main(["validate", "--stack", "own", "--project-dir", str(temp_project("own", own))]) == 2
    assert " pools[0]: taint key(s) nvidia.com/gpu carry several effects" in capsys.readouterr().err
    assert main(["validate", "--stack", "one", "--project-dir",
                 str(temp_project("one", text.replace("minSize: 0", "minSize: 1")))]) == 0
