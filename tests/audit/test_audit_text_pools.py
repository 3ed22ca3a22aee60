"""The audit text at fleet size: a pool of 500 nodes is one line with its counts, and the nodes that
differ from the rest (a taint gone, no allocatable GPU) are listed by name under it."""

from __future__ import annotations

import json

from audit_cluster import as_list, eks_node

from gpu_node_pool.audit.report import run_audit
from gpu_node_pool.audit.sources import load_dump
from gpu_node_pool.cli.commands import main

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def _dump(tmp_path, nodes: int = 500):
    objects = []
    for i in range(nodes):
        name = f"ip-10-0-{i // 250}-{i % 250}.us-west-2.compute.internal"
        taints = [] if i == 17 else [GPU_TAINT]  # someone removed node 17's taint by hand
        gpus = 0 if i == 301 else 8  # node 301's GPUs are gone from allocatable
        objects.append(eks_node(name, pool="training", nodegroup="training", instance="p5.48xlarge", gpus=gpus,
                                taints=taints))
    objects.append(eks_node("ip-10-0-9-1.us-west-2.compute.internal", pool="inference", nodegroup="inference",
                            instance="g6.xlarge", gpus=1, taints=[GPU_TAINT]))
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(as_list(objects)))
    return path


def _pool_section(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("GPU pools:") + 1
    return lines[start:lines.index("", start)]


def test_a_500_node_pool_is_one_line_with_its_exceptions(tmp_path):
    text = run_audit(load_dump(_dump(tmp_path))).to_text()
    section = _pool_section(text)
    assert len(section) == 4
    assert section[0] == ("  GpuNodePool inference: 1 node(s), all alike: taints [nvidia.com/gpu=present:NoSchedule] "
                          "allocatable nvidia.com/gpu=1")
    assert section[1] == ("  GpuNodePool training: 500 node(s), 498 alike: taints [nvidia.com/gpu=present:NoSchedule]"
                          " allocatable nvidia.com/gpu=8; 1 starved")
    assert section[2] == "    exception ip-10-0-0-17.us-west-2.compute.internal: taints [] allocatable nvidia.com/gpu=8"
    assert section[3] == ("    exception ip-10-0-1-51.us-west-2.compute.internal: taints [nvidia.com/gpu=present"
                          ":NoSchedule] allocatable nvidia.com/gpu=0 STARVED")


def test_json_still_lists_every_node(tmp_path, capsys):
    assert main(["audit", "--cluster-dump", str(_dump(tmp_path)), "--json", "--fail-on", "none"]) == 0
    pools = {p["id"]: p for p in json.loads(capsys.readouterr().out)["gpuPools"]}
    assert len(pools["GpuNodePool training"]["nodes"]) == 500


def test_exceptions_beyond_twenty_are_counted(tmp_path):
    objects = [eks_node(f"n{i}", pool="mixed", nodegroup="mixed", instance="g6.xlarge", gpus=1,
                        taints=[GPU_TAINT] if i < 30 else []) for i in range(55)]
    path = tmp_path / "d.json"
    path.write_text(json.dumps(as_list(objects)))
    section = _pool_section(run_audit(load_dump(path)).to_text())
    assert section[0].startswith("  GpuNodePool mixed: 55 node(s), 30 alike")
    assert len(section) == 1 + 20 + 1 and section[-1] == "    and 5 more exception(s) (--json lists every node)"
