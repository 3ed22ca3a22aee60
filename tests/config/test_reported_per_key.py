"""Problems found key by key (labels, a kubelet config) are one error per key, at the key's own line, so the count in
the header is the number of keys to fix and each line points where the fix goes."""

from __future__ import annotations

from conftest import ROOT, plan_stack_text

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
TEAM = "        example.com/team: ml-platform\n"
RESERVED = ("topology.kubernetes.io/zone: us-west-2a", "eks.amazonaws.com/capacityType: SPOT",
            "topology.kubernetes.io/region: us-west-2")


def test_three_reserved_labels_are_three_errors_each_at_its_key(capsys, temp_project):
    assert TEAM in DEV
    text = DEV.replace(TEAM, TEAM + "".join(f"        {label}\n" for label in RESERVED))
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 2
    assert "3 errors in Pulumi.mine.yaml" in out
    lines = text.splitlines()
    for label in RESERVED:
        key = label.split(":")[0]
        line = next(i for i, row in enumerate(lines, 1) if row.strip().startswith(key + ":"))
        assert f"Pulumi.mine.yaml:{line}:9: pools[0].labels['{key}']: label '{key}'" in out, out


def _refused(pool: dict) -> dict[str, str]:
    from gpu_node_pool.config import ConfigError, validate_stack_config

    raw = {"cluster": {"name": "ml-dev", "kubernetesVersion": "1.33",
                       "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
                       "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
           "pools": [{"name": "a", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
                      "scaling": {"minSize": 0, "maxSize": 2}, **pool}]}
    try:
        validate_stack_config(raw)
    except ConfigError as err:
        return {i.path: i.message for i in err.issues}
    raise AssertionError("the pool must be refused")


def test_a_bad_label_value_does_not_hide_the_backends_refusal_of_another_label():
    said = _refused({"labels": {"example.com/team": "ml\u2014platform", "example.com/e": ""}})
    assert "label value 'ml\u2014platform' must be empty" in said["pools[0].labels['example.com/team']"], said
    assert said["pools[0].labels['example.com/e']"].startswith("label 'example.com/e' has an empty value; EKS"), said


def test_a_controller_taint_does_not_hide_a_repeated_key_and_effect():
    said = _refused({"taints": ["nvidia.com/gpu=present:NoSchedule", "nvidia.com/gpu=other:NoSchedule",
                                "node.kubernetes.io/unschedulable:NoSchedule"]})
    assert said["pools[0].taints"].startswith("taints[0] and taints[1] both have key 'nvidia.com/gpu' and effect "
                                              "NoSchedule"), said
    assert "belongs to Kubernetes' node lifecycle controller" in said["pools[0].taints[2]"], said
