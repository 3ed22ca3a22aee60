"""The device plugin chart's stand-in (a chart not rendered offline, judged with the stand-in built from chart
0.20.0's templates) is labelled alike by ``plan`` and ``check``: in their text, and in their ``--json`` as the
stand-in resource's ``synthesized``, which the report schema allows in both."""

from __future__ import annotations

import json
import textwrap

import jsonschema
import pytest
from conftest import ROOT, shipped_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema

PROGRAM = textwrap.dedent("""\
    import pulumi_kubernetes as k8s
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
    cluster = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes",
               "subnetIds": ["subnet-0a1b2c3d4e5f60718"], "kubernetesVersion": "1.33"}
    GpuNodePool("gpu", GpuNodePoolArgs(cluster=cluster, pool={
        "name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
        "taints": ["nvidia.com/gpu=present:NoSchedule"]}))
    k8s.helm.v4.Chart("nvidia-device-plugin", chart="nvidia-device-plugin", version="VERSION", namespace="kube-system",
        repository_opts={"repo": "https://nvidia.github.io/k8s-device-plugin"},
        values={"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]})
""")
DS = "kubernetes:apps/v1:DaemonSet"


def run(capsys, command: str, root, *extra: str) -> tuple[dict, str]:
    """``gpupool <command>`` of stack dev as JSON (validated against the report schema) and as text."""
    argv = [command, "--project-dir", str(root), "--stack", "dev", *extra]
    main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    main(argv)
    return doc, capsys.readouterr().out


@pytest.mark.parametrize(("version", "says"), [
    ("0.20.0", "it renders the templates of chart version 0.20.0"),
    ("0.9.0", "the program asks for version 0.9.0, whose DaemonSet this stand-in need not match")])
def test_plan_and_check_label_the_stand_in_alike_in_text_and_json(capsys, tmp_path, version, says):
    root = shipped_project(tmp_path / "p", {"dev": (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()})
    (root / "__main__.py").write_text(PROGRAM.replace("VERSION", version))
    labels, blocks = {}, {}
    for command in ("plan", "check"):
        doc, text = run(capsys, command, root)
        [stand_in] = [r for r in doc["resources"] if r["type"] == DS]
        labels[command] = stand_in["synthesized"]
        blocks[command] = stand_in_block(text, f"  DaemonSet {stand_in['name']}:")
        assert " ".join(blocks[command]).split()[2:] == labels[command].split()  # the JSON's label, as printed
    assert labels["plan"] == labels["check"]
    assert labels["check"].startswith("fallback stand-in for the nvidia-device-plugin chart's DaemonSet")
    assert says in " ".join(labels["check"].split())
    assert blocks["plan"] == blocks["check"]  # one printer: the same wrapped lines


def stand_in_block(text: str, head: str) -> list[str]:
    """The lines of ``text`` from ``head`` through the label indented under it."""
    lines = text.splitlines()
    start = end = lines.index(head)
    while end + 1 < len(lines) and lines[end + 1].startswith("    "):
        end += 1
    return lines[start:end + 1]


def test_check_json_of_a_program_without_a_stand_in_has_no_synthesized_key(capsys, tmp_path):
    root = shipped_project(tmp_path / "p", {"dev": (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()})
    (root / "__main__.py").write_text(PROGRAM.split("k8s.helm.v4.Chart")[0])
    doc, _ = run(capsys, "check", root)
    assert doc["resources"] and not any("synthesized" in r for r in doc["resources"])
