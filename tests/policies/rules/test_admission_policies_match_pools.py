"""Policy admission-policies-match-pools (mandatory): the admission objects a stack installs were rendered from
its declared pools and not edited since (both engines)."""

from __future__ import annotations

import copy
import dataclasses
from functools import cache

import pytest
from conftest import base

from gpu_node_pool.component.program import build
from gpu_node_pool.config.loading import validate_stack_config
from gpu_node_pool.plan.run import record
from gpu_node_pool.policies import evaluate
from gpu_node_pool.policies import rules as d

POLICY = d.admission_policies_match_pools.POLICY
ENGINES = ["validating-admission-policy", "gatekeeper"]


@cache
def recorded(engine: str, taint: str = "nvidia.com/gpu=present:NoSchedule"):
    raw = base()
    raw["cluster"]["kubernetesVersion"] = "1.31"
    raw["pools"][0]["taints"] = [taint]
    raw["admission"] = {"enabled": True, "engine": engine, "action": "deny"}
    stack = validate_stack_config(raw)
    return tuple(record(lambda: build(stack))[0])


def is_admission(r) -> bool:
    return "admissionregistration" in r.type or "gatekeeper.sh" in r.type


def findings(resources) -> list[str]:
    return [f["message"] for f in evaluate(list(resources), policies=[POLICY])]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_objects_the_program_renders_match_its_pools(engine):
    assert findings(recorded(engine)) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_hand_edited_object_is_reported(engine):
    resources = list(recorded(engine))
    i = next(i for i, r in enumerate(resources) if is_admission(r) and "spec" in r.inputs
             and ("validations" in r.inputs["spec"] or "parameters" in r.inputs["spec"]))
    inputs = copy.deepcopy(resources[i].inputs)
    if "validations" in inputs["spec"]:
        inputs["spec"]["validations"] = inputs["spec"]["validations"][:1]
    else:
        inputs["spec"]["parameters"]["pools"] = []
    resources[i] = dataclasses.replace(resources[i], inputs=inputs)
    (msg,) = findings(resources)
    assert "edited by hand after rendering" in msg and inputs["metadata"]["name"] in msg


@pytest.mark.parametrize("engine", ENGINES)
def test_objects_rendered_from_an_older_taint_are_stale(engine):
    """The pool's taint changed in the stack, the admission objects are the old render (copied, not re-rendered)."""
    old = [r for r in recorded(engine) if is_admission(r)]
    new = [r for r in recorded(engine, "dedicated=gpu:NoSchedule") if not is_admission(r)]
    found = findings([*new, *old])
    assert found and all("rendered from other pools than the declared ones" in m for m in found)
    assert "pool inference: admission has [nvidia.com/gpu=present:NoSchedule], declared [dedicated=gpu:NoSchedule]" in found[0]


def test_an_object_without_its_model_is_not_judged_and_says_so():
    resources = list(recorded("validating-admission-policy"))
    i = next(i for i, r in enumerate(resources) if is_admission(r))
    inputs = copy.deepcopy(resources[i].inputs)
    del inputs["metadata"]["annotations"]
    resources[i] = dataclasses.replace(resources[i], inputs=inputs)
    (msg,) = findings(resources)
    assert "no gpu-node-pools/derived-from annotation; cannot tell whether it matches the pools" in msg


def test_a_stack_without_admission_objects_is_not_its_business():
    raw = base()
    stack = validate_stack_config(raw)
    assert findings(record(lambda: build(stack))[0]) == []
