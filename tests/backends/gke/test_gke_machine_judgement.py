"""A GKE pool's machine type is judged once: the same judgement gives the pool's errors and its warnings."""

from __future__ import annotations

from gpu_node_pool.backends.gke import config as gke_config
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings


def stack(machine: str) -> dict:
    return {"cluster": {"name": "ml-gke-dev", "project": "acme-ml-dev", "location": "us-central1"},
            "pools": [{"name": "l4", "backend": "gke", "machineType": machine,
                       "accelerator": {"type": "nvidia-l4", "count": 1}, "autoscaling": {"minSize": 0, "maxSize": 2}}]}


def test_the_machine_table_is_read_once_per_pool_for_errors_and_warnings(monkeypatch):
    calls = []
    judge = gke_config.machine_problems

    def counted(*args):
        calls.append(args)
        return judge(*args)

    monkeypatch.setattr(gke_config, "machine_problems", counted)
    validated = validate_stack_config(stack("z9-unknown-8"))  # a series the table does not list: a warning
    warnings = stack_warnings(validated)
    assert [(w.path, "is not judged" in w.message) for w in warnings if w.path.startswith("pools[0].machineType")] == [
        ("pools[0].machineType", True)]
    assert calls == [("z9-unknown-8", "nvidia-l4", 1)]
