"""``gpupool schema``: the stack file's JSON Schema for editors, generated from the config models."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml
from conftest import ROOT

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.config.json_schema import stack_file_schema

STACKS = sorted(ROOT.glob("stacks/Pulumi.*.yaml")) + sorted(ROOT.glob("examples/*/Pulumi.*.yaml"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = stack_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", STACKS, ids=[p.name for p in STACKS])
def test_every_shipped_stack_file_validates_against_the_schema(validator, path):
    doc = yaml.safe_load(path.read_text())
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(doc)]
    assert not errors


def _dev() -> dict:
    return yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["config"]["gpu-node-pools:pools"][0].update(backend="eks-manged"), "config/gpu-node-pools:pools/0"),
        (lambda d: d["config"]["gpu-node-pools:pools"][0].update(instanceType=["g6.xlarge"]), "config/gpu-node-pools:pools/0"),
        (lambda d: d["config"]["gpu-node-pools:cluster"].pop("name"), "config/gpu-node-pools:cluster"),
        (lambda d: d["config"].pop("gpu-node-pools:pools"), "config"),
        (lambda d: d["config"]["gpu-node-pools:pools"][0].update(taints=[{"key": "a"}]), "config/gpu-node-pools:pools/0"),
    ],
    ids=["backend typo", "unknown key", "cluster without name", "no pools", "taint without effect"],
)
def test_an_invalid_stack_is_rejected_where_the_mistake_is(validator, change, where):
    doc = _dev()
    change(doc)
    errors = list(validator.iter_errors(doc))
    assert errors
    assert any("/".join(map(str, e.absolute_path)).startswith(where) for e in errors)


def test_a_new_backend_appears_in_the_schema_through_the_registry():
    names = {d.get("properties", {}).get("backend", {}).get("const") for d in stack_file_schema()["$defs"].values()}
    assert {"eks-managed", "gke", "karpenter", "self-managed"} <= names


def test_gpupool_schema_prints_it_and_writes_it(capsys, tmp_path):
    assert cli.main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == stack_file_schema()
    out = tmp_path / "stack.schema.json"
    assert cli.main(["schema", "--out", str(out)]) == 0
    assert "yaml-language-server: $schema=" in capsys.readouterr().out
    assert json.loads(out.read_text()) == stack_file_schema()


def test_the_readme_shows_the_editor_line():
    assert "# yaml-language-server: $schema=" in (ROOT / "README.md").read_text()
