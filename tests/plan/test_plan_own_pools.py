"""The plan summarises the pools the program registered (what will run): a program that declares its own
``GpuNodePool`` beside a stack file with other pools gets its own pool summarised, read back from its children, and a
line saying the stack file's pools are not planned."""

from __future__ import annotations

import json
import textwrap

from conftest import ROOT, shipped_project

from gpu_node_pool.cli import commands as cli

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()  # one stack pool: inference
OWN_POOL = textwrap.dedent("""\
    import pulumi
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs

    cluster = {"name": "ml-team", "nodeRoleArn": "arn:aws:iam::444455556666:role/x",
               "subnetIds": ["subnet-07a1c2e3f4a5b6c7d"], "kubernetesVersion": "1.33"}
    vision = GpuNodePool("gpu-a", GpuNodePoolArgs(cluster=cluster, pool={
        "name": "vision", "backend": "eks-managed", "instanceTypes": ["g6.2xlarge"],
        "scaling": {"minSize": 1, "maxSize": 6},
        "taints": ["nvidia.com/gpu=present:NoSchedule", "team=vision:NoSchedule"],
        "labels": {"example.com/team": "vision"}}))
    NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(cluster_name="ml-team", pools=[vision.spec]))
""")


def own_project(tmp_path, program: str = OWN_POOL):
    root = shipped_project(tmp_path / "p", {"dev": DEV})
    (root / "__main__.py").write_text(program)
    return root


def test_plan_summarises_the_pools_the_program_constructed_not_the_stack_files(capsys, tmp_path):
    root = own_project(tmp_path)
    cli.main(["plan", "--json", "--project-dir", str(root), "--stack", "dev"])
    doc = json.loads(capsys.readouterr().out)
    # named after the component (its children are), read back from its node group
    assert [(p["name"], p["taints"]) for p in doc["pools"]] == [
        ("gpu-a", ["nvidia.com/gpu=present:NoSchedule", "team=vision:NoSchedule"])]
    assert doc["pools"][0]["labels"]["gpu-node-pools/pool"] == "vision"
    assert [(c["pool"], c["taint"]) for c in doc["devicePlugin"]["coverage"]] == [
        ("gpu-a", "nvidia.com/gpu=present:NoSchedule"), ("gpu-a", "team=vision:NoSchedule")]
    cli.main(["plan", "--project-dir", str(root), "--stack", "dev"])
    text = capsys.readouterr().out
    assert "pool gpu-a (eks-managed)" in text
    assert "  taints          nvidia.com/gpu=present:NoSchedule, team=vision:NoSchedule" in text
    assert "pool inference" not in text and "inference:" not in text  # the stack file's pool was never built
    assert "not planned: the stack config's pool(s) inference (the program constructs no GpuNodePool from them; " \
           "the pools above are the GpuNodePools it declares itself)" in text


def test_the_shipped_program_summarises_the_stack_files_pools(capsys, tmp_path):
    root = own_project(tmp_path, (ROOT / "__main__.py").read_text())
    cli.main(["plan", "--project-dir", str(root), "--stack", "dev"])
    text = capsys.readouterr().out
    assert "pool inference (eks-managed)" in text and "  taints          nvidia.com/gpu=present:NoSchedule" in text
    assert "    ok   inference: nvidia.com/gpu=present:NoSchedule" in text
    assert "not planned" not in text


def test_a_finding_about_the_programs_own_pool_is_placed_in_the_program_not_at_the_stack_pool_of_its_name(capsys, tmp_path):
    # the program's own pool "inference" (its device plugin, derived from another pool, misses the team taint: a
    # finding on its node group) is not the stack file's pools[0] "inference"
    program = OWN_POOL.replace('GpuNodePool("gpu-a"', 'GpuNodePool("inference"').replace(
        "pools=[vision.spec]", 'pools=[GpuNodePoolArgs(cluster=cluster, pool={"name": "other", "backend": "eks-managed", '
        '"instanceTypes": ["g6.2xlarge"], "scaling": {"minSize": 1, "maxSize": 2}}).validated()[0]]')
    root = own_project(tmp_path, program)
    cli.main(["plan", "--json", "--project-dir", str(root), "--stack", "dev"])
    doc = json.loads(capsys.readouterr().out)
    about = [v for v in doc["violations"] if "inference" in v.get("urn", "")]
    assert about, doc["violations"]
    assert {v["location"]["file"] for v in about} == {"__main__.py"}
