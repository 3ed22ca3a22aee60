"""One definition of each field: the component schema and the pydantic config models have the same
fields, the same required ones and the same closed sets. A config field without a counterpart in the
schema fails here, and so does a schema property no model has."""

from __future__ import annotations

import typing
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from gpu_node_pool.config.common import PoolBase
from gpu_node_pool.registry import all_backends

PACKAGE = "gpu-node-pools:index:"
#: Hand-written output types (what the components return), not stand-ins of a model.
OUTPUT_TYPES = {"Toleration"}


@pytest.fixture(scope="module")
def schema():
    from gpu_node_pool.provider.host import schema

    return schema()


def _literal(annotation: Any) -> tuple[Any, ...] | None:
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) is typing.Literal:
        return get_args(annotation)
    for arg in get_args(annotation):
        found = _literal(arg)
        if found:
            return found
    return None


def model_problems(schema: dict, name: str, model: type[BaseModel], fields: dict[str, Any],
                   extra: set[str] = frozenset()) -> list[str]:
    """How type ``name`` of ``schema`` and ``model``'s ``fields`` differ (``extra``: schema-only keys)."""
    spec = schema["types"].get(PACKAGE + name)
    if spec is None:
        return [f"{model.__name__} has no type {name} in the schema"]
    props = spec.get("properties", {})
    want = {(f.alias or k): f for k, f in fields.items()}
    problems = [f"{model.__name__}.{k} has no property in {name}" for k in sorted(want.keys() - props.keys())]
    problems += [f"{name}.{k} is no field of {model.__name__}" for k in sorted(props.keys() - want.keys() - extra)]
    required = {k for k, f in want.items() if f.is_required()} | (set(spec.get("required", [])) & extra)
    if set(spec.get("required", [])) != required:
        problems.append(f"{name} requires {sorted(spec.get('required', []))}, {model.__name__} {sorted(required)}")
    for key, field in want.items():
        values = _literal(field.annotation)
        if values and key in props and "$ref" in props[key]:
            enum = schema["types"][props[key]["$ref"].removeprefix("#/types/")].get("enum", [])
            if [e["value"] for e in enum] != list(values):
                problems.append(f"{name}.{key}: enum {[e['value'] for e in enum]}, {model.__name__} {list(values)}")
    return problems


def all_problems(schema: dict) -> list[str]:
    from gpu_node_pool.provider.types import BLOCKS, MODEL_OF, camel

    problems: list[str] = []
    blocks = {camel(b) for b in BLOCKS}
    problems += model_problems(schema, "PoolArgs", PoolBase, dict(PoolBase.model_fields), {"backend", *blocks})
    for backend in all_backends():
        model = backend.model()
        own = {k: f for k, f in model.model_fields.items() if k not in PoolBase.model_fields and k != "backend"}
        problems += model_problems(schema, model.__name__ + "Args", model, own)
    seen_models = {"PoolArgs"} | {b.model().__name__ + "Args" for b in all_backends()}
    for name, model in MODEL_OF.items():
        if name not in seen_models:
            problems += model_problems(schema, name, model, dict(model.model_fields))
    for token, spec in schema["types"].items():
        name = token.removeprefix(PACKAGE)
        if "enum" not in spec and name not in MODEL_OF and name not in OUTPUT_TYPES:
            problems.append(f"schema type {name} stands for no config model")
    return problems


def test_the_schema_and_the_config_models_have_the_same_fields(schema):
    assert all_problems(schema) == []


def test_every_model_the_stack_config_reaches_has_its_type():
    from gpu_node_pool.config.stack import StackConfig
    from gpu_node_pool.provider.types import MODEL_OF

    reached: set[type[BaseModel]] = set()

    def walk(annotation: Any) -> None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation not in reached:
                reached.add(annotation)
                for f in annotation.model_fields.values():
                    walk(f.annotation)
        for arg in get_args(annotation):
            walk(arg)

    for name in ("cluster", "device_plugin", "gpu_agents", "admission"):
        walk(StackConfig.model_fields[name].annotation)
    for backend in all_backends():
        walk(backend.model())
    # the pool models themselves are PoolArgs plus a block each; every other model is one type
    missing = {m.__name__ for m in reached} - {m.__name__ for m in MODEL_OF.values()}
    assert missing == set(), missing


def test_the_check_can_fail(schema):
    import copy

    broken = copy.deepcopy(schema)
    scaling = broken["types"][PACKAGE + "ScalingArgs"]
    del scaling["properties"]["maxSize"]
    scaling["properties"]["maxNodes"] = {"type": "integer"}
    broken["types"][PACKAGE + "Stray"] = {"type": "object", "properties": {}}
    capacity = broken["types"][PACKAGE + "EksManagedPoolCapacityType"]
    capacity["enum"] = capacity["enum"][:1]
    problems = all_problems(broken)
    assert any("ScalingConfig.maxSize has no property" in p for p in problems), problems
    assert any("ScalingArgs.maxNodes is no field" in p for p in problems), problems
    assert any("Stray stands for no config model" in p for p in problems), problems
    assert any("capacityType: enum" in p for p in problems), problems
