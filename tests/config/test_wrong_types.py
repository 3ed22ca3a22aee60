"""A value of the wrong JSON type anywhere in the stack schema exits 2 with its path, never 70.

For every field the stack schema (``gpupool schema``) declares for the cluster, each backend's
pool, the device plugin, the GPU agents and the limits, a value of a JSON type the field does
not take is put in one of the shipped stacks and ``gpupool validate`` is run on it.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import yaml
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config.json_schema import stack_file_schema

SCHEMA = stack_file_schema()
DEFS = SCHEMA["$defs"]
STACKS = {p.stem.removeprefix("Pulumi."): yaml.safe_load(p.read_text()) for p in sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))}
#: One JSON value of each type; a field gets those of the types it does not take.
SAMPLES = {"string": "x", "integer": 7, "number": 1.5, "boolean": True, "array": [1], "object": {"k": "v"}, "null": None}


def _resolve(schema: dict) -> dict:
    return DEFS[schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else schema


def _types(schema: dict) -> set[str]:
    schema = _resolve(schema)
    if "type" in schema:
        kinds = {schema["type"]} if isinstance(schema["type"], str) else set(schema["type"])
    elif any(k in schema for k in ("anyOf", "oneOf", "allOf")):
        kinds = set().union(*(_types(s) for k in ("anyOf", "oneOf", "allOf") for s in schema.get(k, [])))
    elif "const" in schema or "enum" in schema:
        kinds = {type(v).__name__.replace("str", "string").replace("int", "integer").replace("bool", "boolean")
                 for v in schema.get("enum", [schema.get("const")])}
    else:
        kinds = set(SAMPLES)  # no type: anything goes
    return kinds | ({"integer"} if "number" in kinds else set())


def _cases() -> list[tuple[str, tuple, str, object]]:
    """(stack, path of keys into its config, shown path, wrong value) for every field."""
    cases = []
    seen_backends = set()
    for stack, doc in STACKS.items():
        config = doc["config"]
        for key in ("cluster", "devicePlugin", "gpuAgents", "limits", "pools"):
            full = f"gpu-node-pools:{key}"
            if full not in config and key != "pools":
                continue
            if key == "pools":
                fresh = [(i, p) for i, p in enumerate(config[full]) if p["backend"] not in seen_backends]
                if not fresh:
                    continue
                index, pool = fresh[0]
                seen_backends.add(pool["backend"])
                title = {"eks-managed": "EksManagedPool", "gke": "GkePool", "self-managed": "SelfManagedPool",
                         "karpenter": "KarpenterPool", "eks-auto": "EksAutoPool"}[pool["backend"]]
                props, where, shown = DEFS[title]["properties"], (full, index), f"pools[{index}]"
            else:
                props = _resolve(SCHEMA["properties"]["config"]["properties"][full])["properties"]
                where, shown = (full,), key
            for field, schema in props.items():
                for kind in sorted(set(SAMPLES) - _types(schema)):
                    cases.append((stack, (*where, field), f"{shown}.{field}", SAMPLES[kind]))
    return cases


CASES = _cases()


def test_the_cases_cover_every_backend_and_the_cluster():
    shown = {c[2].split(".")[0] for c in CASES}
    assert {"cluster", "pools[0]", "devicePlugin"} <= shown
    assert {c[0] for c in CASES if c[2].startswith("pools[")} == {"dev", "gke-dev", "onprem", "auto", "prod"}
    assert ("prod", ("gpu-node-pools:pools", 2, "backend"), "pools[2].backend", {"k": "v"}) in CASES
    assert len(CASES) > 300


def _validate(stack: str, where: tuple, value: object) -> tuple[int, str, str]:
    doc = yaml.safe_load(yaml.safe_dump(STACKS[stack]))
    target = doc["config"]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "stacks").mkdir()
        (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
        (project / "stacks" / "Pulumi.mine.yaml").write_text(yaml.safe_dump(doc))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["validate", "--stack", "mine", "--project-dir", str(project)])
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=300)
@given(case=st.sampled_from(CASES))
def test_a_wrong_json_type_exits_2_with_the_path(case):
    stack, where, shown, value = case
    code, out, err = _validate(stack, where, value)
    text = out + err
    assert code == 2, f"{shown} = {value!r}: exit {code}\n{text}"
    assert shown in text, f"{shown} = {value!r}: the path is not named\n{text}"
    assert "Traceback" not in text and "internal error" not in text
