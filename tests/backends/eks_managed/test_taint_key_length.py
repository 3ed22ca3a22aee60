"""A taint key or value longer than the EKS API takes is refused at the taint that has it, as the self-managed
pool's taint keys are: each item its own path and line, with the rule's source and the fix."""

from __future__ import annotations

from builders import config_issues
from conftest import base

from gpu_node_pool.cli.commands import main

LONG_KEY = "example.com/" + "k" * 60  # 72 characters: a valid Kubernetes key, longer than EKS's 63
SOURCE = "https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html"


def test_each_too_long_taint_key_is_refused_at_its_own_item():
    cfg = base()
    cfg["pools"][0]["taints"] = ["nvidia.com/gpu=present:NoSchedule", f"{LONG_KEY}=x:NoSchedule",
                                 {"key": LONG_KEY + "z", "value": "y", "effect": "NoSchedule"}]
    issues = dict(config_issues(cfg))
    assert set(issues) == {"pools[0].taints[1]", "pools[0].taints[2]"}, issues
    assert issues["pools[0].taints[1]"] == (
        f"taint key '{LONG_KEY}' (72 characters) is longer than an EKS managed node group takes: the EKS API caps "
        f"taint keys at 63 characters, prefix included (EKS API Taint, {SOURCE}); shorten it to at most 63")
    assert "(73 characters)" in issues["pools[0].taints[2]"]


def test_a_very_long_key_is_shown_cut_with_its_length_once():
    cfg = base()
    key = "a" * 200 + "/n"
    cfg["pools"][0]["taints"] = [f"{key}=v:NoSchedule"]
    [(path, message)] = config_issues(cfg)
    assert path == "pools[0].taints[0]"
    assert message.count("(202 characters)") == 1 and key not in message


def test_a_too_long_pass_through_taint_key_is_refused_at_its_setting():
    cfg = base()
    cfg["pools"][0]["scaling"] = {"minSize": 1, "maxSize": 4}
    cfg["pools"][0]["kubelet"] = {"flags": ["--v=2", f"--register-with-taints={LONG_KEY}=x:NoSchedule"]}
    [(path, message)] = config_issues(cfg)
    assert path == "pools[0].kubelet.flags[1]"
    assert message.startswith(f"kubelet.flags[1]: taint key '{LONG_KEY}' (72 characters) is longer than")
    assert SOURCE in message


def test_the_plan_places_a_too_long_taint_key_on_the_line_of_its_item(temp_project, capsys):
    text = f"""config:
  gpu-node-pools:cluster:
    name: ml-dev
    nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node
    subnetIds: [subnet-0a1b2c3d4e5f60718]
  gpu-node-pools:pools:
  - name: training
    backend: eks-managed
    instanceTypes: [g6.xlarge]
    scaling: {{minSize: 0, maxSize: 4}}
    taints:
    - nvidia.com/gpu=present:NoSchedule
    - key: {LONG_KEY}
      value: v
      effect: NoSchedule
"""
    project = temp_project("longkey", text)
    code = main(["plan", "--stack", "longkey", "--project-dir", str(project)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"stacks/Pulumi.longkey.yaml:13:7: pools[0].taints[1]: taint key '{LONG_KEY}'" in err
    assert "pools[0].taints: " not in err
