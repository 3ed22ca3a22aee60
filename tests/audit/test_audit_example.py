"""The README's offline audit example, examples/audit/cluster.json (written by bench/clusters.py
``write_dump(path, 3, pods_per_node=2, daemonsets=5)``), stays what the README says: it runs, and its
findings are the ones a reader is shown."""

from __future__ import annotations

import sys

from conftest import ROOT

from gpu_node_pool.cli.commands import main

EXAMPLE = ROOT / "examples" / "audit" / "cluster.json"


def test_the_readme_audit_example_exits_1_with_the_datadog_finding(capsys):
    assert "gpupool audit --cluster-dump examples/audit/cluster.json" in (ROOT / "README.md").read_text()
    assert main(["audit", "--cluster-dump", str(EXAMPLE)]) == 1
    out = capsys.readouterr().out
    assert "[mandatory] DaemonSet datadog/datadog: in GpuNodePool inference: does not run" in out
    assert "no NVIDIA device plugin DaemonSet is in the cluster" in out


def test_the_example_is_what_the_bench_generator_writes(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import clusters
    finally:
        sys.path.remove(str(ROOT / "bench"))
    fresh = clusters.write_dump(tmp_path / "cluster.json", 3, pods_per_node=2, daemonsets=5)
    assert fresh.read_text() == EXAMPLE.read_text()
