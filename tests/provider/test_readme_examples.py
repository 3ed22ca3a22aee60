"""The README's Pulumi YAML example constructs, and its TypeScript example names only schema properties."""

from __future__ import annotations

import re

import pytest
import yaml
from conftest import ROOT
from typescript_inputs import wire

from gpu_node_pool.plan.run import record

SECTION = (ROOT / "README.md").read_text().split("### Every Pulumi language", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def provider():
    from gpu_node_pool.provider.host import GpuNodePoolsProvider

    return GpuNodePoolsProvider()


def test_the_yaml_example_constructs_the_pool_and_its_node_group(provider):
    (block,) = re.findall(r"```yaml\n(.*?)```", SECTION, flags=re.S)
    program = yaml.safe_load(block)
    results: dict = {}

    def construct() -> None:
        for name, resource in program["resources"].items():
            results[name] = provider.construct(name, resource["type"], wire(resource["properties"]), None)

    resources, _ = record(construct)
    assert any(r.type == "aws:eks/nodeGroup:NodeGroup" and r.name == "inference-node-group" for r in resources)
    for expression in program["outputs"].values():
        resource, prop = re.fullmatch(r"\$\{(\w+)\.(\w+)\}", expression).groups()
        assert prop in results[resource].state, expression


def test_the_typescript_example_uses_schema_properties(provider):
    import json

    schema = json.loads(provider.schema)
    (block,) = re.findall(r"```typescript\n(.*?)```", SECTION, flags=re.S)
    props: set[str] = set()
    for spec in [*schema["types"].values(), *schema["resources"].values()]:
        props |= set(spec.get("properties", {})) | set(spec.get("inputProperties", {}))
    used = set(re.findall(r"\b(\w+):\s", block)) | set(re.findall(r"inference\.(\w+)", block))
    assert used - {"name"} <= props, sorted(used - props)
    for component in re.findall(r"new gpu\.(\w+)\(", block):
        assert f"gpu-node-pools:index:{component}" in schema["resources"]
