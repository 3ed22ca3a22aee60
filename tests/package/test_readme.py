"""The README's Python snippets run as written (under Pulumi mocks), and its commands exist."""

from __future__ import annotations

import re

from conftest import ROOT

from gpu_node_pool.plan import record

README = (ROOT / "README.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_the_two_commands_and_ci_runs_the_test_one():
    assert "make plan STACK=dev" in README
    assert "make test" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "\nmake test\n" in ci


def test_component_snippet_registers_the_pool_and_the_plugin():
    assert len(SNIPPETS) >= 2
    resources, outputs = record(lambda: exec(SNIPPETS[0], {"__name__": "__main__"}))
    types = {(r.type, r.name) for r in resources}
    assert ("aws:eks/nodeGroup:NodeGroup", "vision-node-group") in types
    assert ("kubernetes:helm.sh/v4:Chart", "nvidia-device-plugin-chart") in types
    assert outputs["vision.tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "vision", "effect": "NoSchedule"},
    ]


def test_taint_snippet_runs():
    exec(SNIPPETS[1], {"__name__": "__main__"})
