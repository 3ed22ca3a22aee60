"""A GKE pool's machine type is judged by one table: what ``validate`` refuses and what it warns about a pool's
machine type are that table's sentences, each shown once at the field it is about (``pools[0].machineType``,
``pools[0].accelerator.type``)."""

from __future__ import annotations

import pytest
from builders import config_issues

from gpu_node_pool.backends.gke.machines import machine_problems
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings


def stack(machine: str, accelerator: str = "nvidia-l4") -> dict:
    return {"cluster": {"name": "ml-gke-dev", "project": "acme-ml-dev", "location": "us-central1"},
            "pools": [{"name": "l4", "backend": "gke", "machineType": machine,
                       "accelerator": {"type": accelerator, "count": 1}, "autoscaling": {"minSize": 0, "maxSize": 2}}]}


def machine_warnings(raw: dict) -> list[tuple[str, str]]:
    return [(w.path, w.message) for w in stack_warnings(validate_stack_config(raw))
            if w.path.startswith(("pools[0].machineType", "pools[0].accelerator"))]


@pytest.mark.parametrize(("machine", "accelerator", "errors", "warnings"), [
    ("z9-unknown-8", "nvidia-l4", [], [("pools[0].machineType", "so whether it takes 1 x nvidia-l4 is not judged")]),
    ("g4-standard-1000", "nvidia-rtx-pro-6000", [], [("pools[0].machineType", "this size and its GPU count are not judged")]),
    ("e2-standard-8", "nvidia-l4", [("pools[0].machineType", "GPUs cannot be attached to the E2 series")], []),
    ("g4-standard-1000", "nvidia-l4", [("pools[0].accelerator.type", "comes with nvidia-rtx-pro-6000")], []),
    ("g2-standard-8", "nvidia-l4", [], []),
])
def test_the_error_and_the_warning_of_a_machine_type_are_the_tables_each_once_at_its_field(machine, accelerator,
                                                                                            errors, warnings):
    judged = machine_problems(machine, accelerator, 1)
    raw = stack(machine, accelerator)
    if errors:  # refused: the table's errors, each at its field, and nothing else
        got = config_issues(raw)
        assert got == [(f"pools[0].{'.'.join(p.key)}", p.message) for p in judged if not p.warning], got
        assert len(got) == len(errors) and all(g[0] == e[0] and e[1] in g[1] for g, e in zip(got, errors, strict=True))
    else:  # accepted: the table's warnings, each once at its field
        got = machine_warnings(raw)
        assert got == [(f"pools[0].{'.'.join(p.key)}", p.message) for p in judged if p.warning], got
        assert len(got) == len(warnings) and all(g[0] == w[0] and w[1] in g[1] for g, w in zip(got, warnings, strict=True))
