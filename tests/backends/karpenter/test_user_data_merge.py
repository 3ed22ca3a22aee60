"""Karpenter ``nodeClass.userData``: the taints and labels it registers are merged into the NodePool.

Karpenter schedules from the NodePool and writes the NodePool's taints and labels into the bootstrap,
where they win over userData's (https://karpenter.sh/docs/concepts/nodeclasses/, spec.userData): a taint
only userData sets is unknown to Karpenter's simulation until the NodePool carries it. So it is merged
(and the policies see it), and refused where it contradicts the pool.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import EXISTS_GPU, config_issues, daemonset, run
from conftest import base
from karpenter_crd import crd_errors

from gpu_node_pool.backends.karpenter.render import nodepool_manifest
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.policies import StackResource
from gpu_node_pool.policies import rules as d

TOML_TAINT = '[settings.kubernetes.node-taints]\n"dedicated.example.com/team" = ["ml:NoSchedule"]\n'
TOML_LABEL = '[settings.kubernetes.node-labels]\n"team" = "ml"\n'
NODEADM = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    config:
      registerWithTaints:
        - {key: dedicated.example.com/team, value: ml, effect: NoSchedule}
--//--
"""


def stack(user_data: str, alias: str = "bottlerocket@latest", **pool: Any) -> dict[str, Any]:
    cfg = base()
    cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceTypes": ["g6e.12xlarge"],
                     "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 16},
                     "nodeClass": {"amiAlias": alias, "userData": user_data}, **pool}]
    return cfg


def rendered(cfg: dict[str, Any]) -> dict[str, Any]:
    validated = validate_stack_config(cfg)
    return nodepool_manifest(validated.pools[0], validated.cluster)


@pytest.mark.parametrize(("user_data", "alias"), [(TOML_TAINT, "bottlerocket@latest"), (NODEADM, "al2023@latest")],
                         ids=["bottlerocket-toml", "nodeadm-nodeconfig"])
def test_a_taint_set_only_in_user_data_is_in_the_rendered_nodepool(user_data, alias):
    manifest = rendered(stack(user_data, alias))
    assert manifest["spec"]["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
        {"key": "dedicated.example.com/team", "value": "ml", "effect": "NoSchedule"},
    ]
    assert crd_errors(manifest) == []


def test_a_label_set_only_in_user_data_is_in_the_nodepool_template():
    labels = rendered(stack(TOML_LABEL))["spec"]["template"]["metadata"]["labels"]
    assert labels["team"] == "ml"


def test_a_daemonset_that_does_not_tolerate_the_user_data_taint_is_a_policy_finding():
    manifest = rendered(stack(TOML_TAINT))
    nodepool = StackResource("kubernetes:karpenter.sh/v1:NodePool", "train-nodepool", manifest,
                             urn="urn:pulumi:s::p::kubernetes:karpenter.sh/v1:NodePool::train-nodepool")
    agent = daemonset("node-exporter", "monitoring", tolerations=[EXISTS_GPU])
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [nodepool, agent])
    assert "dedicated.example.com/team=ml:NoSchedule" in found["message"]
    tolerant = daemonset("node-exporter", "monitoring", tolerations=[
        EXISTS_GPU, {"key": "dedicated.example.com/team", "operator": "Exists", "effect": "NoSchedule"}])
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [nodepool, tolerant]) == []


def test_the_device_plugin_derived_from_the_pool_tolerates_the_merged_taint():
    from gpu_node_pool.gpu_agents.pools import agent_pool

    pool = validate_stack_config(stack(TOML_TAINT)).pools[0]
    assert "dedicated.example.com/team=ml:NoSchedule" in [str(t) for t in agent_pool(pool).taints]


def test_a_taint_declared_in_both_places_with_one_value_is_kept_once():
    same = '[settings.kubernetes.node-taints]\n"nvidia.com/gpu" = ["present:NoSchedule"]\n'
    taints = rendered(stack(same))["spec"]["template"]["spec"]["taints"]
    assert taints == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]


def test_one_key_and_effect_with_another_value_is_refused_naming_both_paths():
    other = '[settings.kubernetes.node-taints]\n"nvidia.com/gpu" = ["other:NoSchedule"]\n'
    ((path, message),) = config_issues(stack(other))
    assert path == "pools[0].nodeClass"
    assert "taints[0] (nvidia.com/gpu=present:NoSchedule)" in message
    assert "nodeClass.userData (nvidia.com/gpu=other:NoSchedule)" in message


def test_a_user_data_taint_that_is_a_startup_taint_is_refused():
    boot = '[settings.kubernetes.node-taints]\n"node.cilium.io/agent-not-ready" = ["true:NoExecute"]\n'
    ((_, message),) = config_issues(stack(boot, startupTaints=["node.cilium.io/agent-not-ready=true:NoExecute"]))
    assert "startupTaints[0]" in message and "duplicate taint Key/Effect pair" in message


@pytest.mark.parametrize(("user_data", "needle"), [
    ('[settings.kubernetes.node-labels]\n"team" = "cv"\n', "labels['team'] ('ml') and nodeClass.userData (team=cv)"),
    ('[settings.kubernetes.node-labels]\n"karpenter.sh/team" = "x"\n', "karpenter.sh"),
], ids=["other-value", "restricted-domain"])
def test_user_data_labels_are_judged_by_the_nodepool_label_rules(user_data, needle):
    ((_, message),) = config_issues(stack(user_data, labels={"team": "ml"}))
    assert "nodeClass.userData" in message and needle in message


NODEADM_ROLE_LABEL = ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n"
                      "      - --node-labels=node-role.kubernetes.io/gpu=true\n")


@pytest.mark.parametrize(("user_data", "alias"), [
    ('[settings.kubernetes.node-labels]\n"node-role.kubernetes.io/gpu" = "true"\n', "bottlerocket@latest"),
    (NODEADM_ROLE_LABEL, "al2023@latest"),
], ids=["bottlerocket-toml", "nodeadm-flag"])
def test_a_user_data_label_the_kubelet_may_not_set_on_itself_is_refused(user_data, alias):
    # The NodePool may carry node-role.kubernetes.io/gpu (Karpenter applies it after registration and keeps
    # it out of the kubelet's flags), but userData hands it to the kubelet, which refuses to start with it.
    ((path, message),) = config_issues(stack(user_data, alias))
    assert path == "pools[0].nodeClass"
    assert "nodeClass.userData registers the label node-role.kubernetes.io/gpu=true" in message
    assert "NodeRestriction" in message and "example.com/" in message


@pytest.mark.parametrize(("user_data", "needle"), [
    ('[settings.kubernetes.node-labels]\n"gpu-node-pools/pool" = "other"\n',
     "gpu-node-pools/pool='other' but the component's own label gives it 'train'"),
    ('[settings.kubernetes.node-labels]\n"nvidia.com/gpu.present" = "false"\n',
     "nvidia.com/gpu.present='false' but gpuLabel gives it 'true'"),
], ids=["pool-label", "gpu-label"])
def test_a_user_data_label_against_a_label_the_component_sets_is_refused(user_data, needle):
    # Karpenter's NodePool value wins on the node, so userData's would be dropped without a word
    ((path, message),) = config_issues(stack(user_data))
    assert path == "pools[0]" and "nodeClass.userData" in message and needle in message


def test_a_kubelet_flag_that_lists_every_pool_taint_is_merged():
    flag = "--register-with-taints=nvidia.com/gpu=present:NoSchedule,dedicated.example.com/team=ml:NoSchedule"
    user_data = f"#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '{flag}'\n"
    taints = rendered(stack(user_data, "al2023@latest"))["spec"]["template"]["spec"]["taints"]
    assert {"key": "dedicated.example.com/team", "value": "ml", "effect": "NoSchedule"} in taints


def test_the_plan_says_which_taints_came_from_user_data():
    from types import SimpleNamespace

    from gpu_node_pool.backends.karpenter import BACKEND
    from gpu_node_pool.backends.karpenter.summary import report, summarise

    validated = validate_stack_config(stack(TOML_TAINT))
    pool = validated.pools[0]
    recorded = SimpleNamespace(inputs=nodepool_manifest(pool, validated.cluster))
    index = {(BACKEND.child_type("nodepool"), BACKEND.child_name("nodepool", pool.name)): recorded}
    entry: dict[str, Any] = {}
    summarise(pool, entry, index, {}, {})
    assert "dedicated.example.com/team=ml:NoSchedule" in entry["taints"]  # read back from the NodePool
    assert entry["fromUserData"] == {"taints": ["dedicated.example.com/team=ml:NoSchedule"], "labels": {}}
    _, lines = report(entry)
    assert any("from userData" in line and "dedicated.example.com/team=ml:NoSchedule" in line for line in lines)


def test_user_data_more_than_ec2s_16_kb_is_refused():
    script = "#!/bin/bash\n" + "echo 'a line of a long boot script'\n" * 600  # ~22 KB
    ((path, message),) = config_issues(stack(script, "al2023@latest"))
    assert path == "pools[0].nodeClass.userData"
    assert "bytes of user data" in message and "16384" in message and "Karpenter" in message


@pytest.mark.parametrize(("user_data", "alias", "needles"), [
    (NODEADM, "bottlerocket@latest", ["does not parse as TOML", "bottlerocket.go", "invalid UserData"]),
    (TOML_LABEL, "al2023@latest", ["Bottlerocket TOML settings", "shell script", "nodeadm.go"]),
], ids=["nodeadm-on-bottlerocket", "toml-on-al2023"])
def test_user_data_of_the_other_image_family_is_refused(user_data, alias, needles):
    ((path, message),) = config_issues(stack(user_data, alias))
    assert path == "pools[0].nodeClass" and all(n in message for n in needles), message


@pytest.mark.parametrize("bad", ["!!int abc", "!!float x"])
def test_a_user_data_value_its_explicit_yaml_tag_cannot_read_is_a_config_issue(bad):
    tagged = NODEADM.replace("      registerWithTaints:", f"      maxPods: {bad}\n      registerWithTaints:")
    issues = config_issues(stack(tagged, "al2023@latest"))
    assert issues, "a NodeConfig that PyYAML cannot construct must be refused, not read as nothing"
    ((path, message),) = issues
    assert path.startswith("pools[0].nodeClass") and "explicit YAML tag" in message and bad.split()[1] in message
    assert "cannot be read" in message and "taints or labels" not in message  # maxPods is neither
