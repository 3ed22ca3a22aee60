"""The backend registry is the only list of backends: a fake backend registered here, with no edit
outside its folder (tests/data/fake_backend/fakecloud), is validated, wired, summarised, reported
and detected like the built-in ones, and gets every GPU-agent rule (gpuSharing, mig, the GPU
Operator, the DCGM exporter) from its registry record and pool model."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest
from conftest import DATA

from gpu_node_pool import registry
from gpu_node_pool.config import ConfigError, validate_stack_config
from gpu_node_pool.plan import plan_stack, render_text
from gpu_node_pool.policies.pools import find_gpu_pools
from gpu_node_pool.sdk.policy_props import to_policy_props

STACK = """
config:
  gpu-node-pools:cluster:
    name: ml-fake
    location: fake-north1
  gpu-node-pools:pools:
    - name: vision
      backend: fakecloud
      flavor: gpu-a100
      machines: 2
      taints: ["nvidia.com/gpu=present:NoSchedule", "example.com/team=vision:NoSchedule"]
  gpu-node-pools:devicePlugin:
    enabled: false
"""


@pytest.fixture
def fakecloud():
    sys.path.insert(0, str(DATA / "fake_backend"))
    try:
        import fakecloud

        registry.register(fakecloud.BACKEND)
        yield fakecloud
    finally:
        registry.unregister("fakecloud")
        sys.path.remove(str(DATA / "fake_backend"))


def test_built_in_backends_are_registered_in_order():
    assert registry.names() == ("eks-managed", "gke", "self-managed", "karpenter", "eks-auto")


def test_an_unregistered_backend_is_refused_with_the_registered_names():
    with pytest.raises(ConfigError) as err:
        validate_stack_config({"cluster": {"name": "c"}, "pools": [{"name": "p", "backend": "fakecloud"}]})
    assert "'fakecloud' is not a backend; use one of eks-managed, gke, self-managed, karpenter, eks-auto" in str(err.value)


def test_a_registered_backend_is_validated_with_its_model_and_stack_checks(fakecloud):
    stack = validate_stack_config(
        {"cluster": {"name": "c"}, "pools": [{"name": "p", "backend": "fakecloud", "flavor": "gpu-a100", "machines": 1}]}
    )
    assert type(stack.pools[0]).__name__ == "FakePool"
    with pytest.raises(ConfigError) as err:
        validate_stack_config({"cluster": {"name": "c"}, "pools": [
            {"name": "p", "backend": "fakecloud", "flavor": "gpu-unavailable", "machines": 11, "flavr": 1}]})
    text = str(err.value)
    assert "pools[0].machines" in text and "unknown key 'flavr'; did you mean 'flavor'?" in text
    with pytest.raises(ConfigError) as err:
        validate_stack_config({"cluster": {"name": "c"}, "pools": [
            {"name": "p", "backend": "fakecloud", "flavor": "gpu-unavailable", "machines": 1}]})
    assert [(i.path, i.message) for i in err.value.issues] == [
        ("pools[0].flavor", "'gpu-unavailable' is not offered in region None")]


def test_the_pool_model_is_imported_on_first_use_or_given_as_the_class(fakecloud):
    """``config_model`` is a ``"module:Name"`` reference imported when a stack is validated; a
    backend may also give the model class itself."""
    assert fakecloud.BACKEND.config_model == "config:FakePool"
    model = fakecloud.BACKEND.model()
    assert model.__name__ == "FakePool" and model.__module__ == "fakecloud.config"
    registry.register(dataclasses.replace(fakecloud.BACKEND, config_model=model))
    stack = validate_stack_config(
        {"cluster": {"name": "c"}, "pools": [{"name": "p", "backend": "fakecloud", "flavor": "gpu-a100", "machines": 1}]}
    )
    assert type(stack.pools[0]) is model


def test_a_registered_backend_is_wired_summarised_reported_and_detected(fakecloud, temp_project):
    project = temp_project("fake", STACK)
    result = plan_stack("fake", project)
    assert result.config_issues == []
    child = next(r for r in result.resources if r.type == fakecloud.TYPE)
    assert child.name == "vision-fake-pool" and child.parent.endswith("gpu-node-pools:index:GpuNodePool::vision")
    (entry,) = result.pools
    assert entry["backend"] == "fakecloud" and entry["flavor"] == "gpu-a100"
    assert entry["taints"] == ["nvidia.com/gpu=present:NoSchedule", "example.com/team=vision:NoSchedule"]
    assert "  flavor          gpu-a100" in render_text(result)

    class Res:  # what a policy sees
        resource_type, name, urn = child.type, child.name, child.urn
        props = to_policy_props(child.inputs)

    (pool,) = find_gpu_pools([Res()])
    assert pool.backend == "fakecloud" and [str(t) for t in pool.taints] == entry["taints"]


@pytest.mark.parametrize("backend", ["eks-managed", "gke", "self-managed", "karpenter"])
def test_the_component_names_its_children_from_the_registry_templates(backend, monkeypatch):
    """Renaming a child template in the backend record renames what the component registers: the
    wiring and the plan's readers share one spelling of each child name."""
    record = registry.get(backend)
    for role, (token, template) in list(record.children.items()):
        monkeypatch.setitem(record.children, role, (token, template + "-x"))
    renamed = record.children
    stack = {"eks-managed": "dev", "gke": "gke-dev", "self-managed": "prod", "karpenter": "prod"}[backend]
    result = plan_stack(stack, DATA.parent.parent)
    names = {r.name for r in result.resources if any(r.type == token for token, _ in renamed.values())}
    assert names, f"stack {stack} registered no {backend} children"
    assert all("-x" in name for name in names), sorted(names)
    # the summaries find the renamed children: every pool of the backend is still read back
    entries = [e for e in result.pools if e["backend"] == backend]
    assert entries and all(e["taints"] for e in entries), entries


def test_a_reference_to_nothing_names_the_backend_and_the_reference():
    typo = dataclasses.replace(registry.get("eks-managed"), config_model="config:EksManagedPooll")
    with pytest.raises(LookupError, match=r"backend 'eks-managed': the reference 'config:EksManagedPooll' names nothing"):
        typo.model()
    with pytest.raises(LookupError, match=r"'nosuchmodule:wire'"):
        dataclasses.replace(typo, wire="nosuchmodule:wire").fn("wire")


def _fake_plan(temp_project, capsys, pool_extra: str = "", stack_extra: str = "") -> tuple[int, dict]:
    """``gpupool plan --json`` of the fake stack with ``pool_extra`` lines under its pool and ``stack_extra``
    config keys: every agent derivation asks the registry and the pool model, so none may end in exit 70."""
    from gpu_node_pool.cli import main

    text = STACK.replace("  gpu-node-pools:devicePlugin:\n    enabled: false\n", "") + pool_extra + stack_extra
    project = temp_project("fake", text)
    code = main(["plan", "--stack", "fake", "--project-dir", str(project), "--json"])
    return code, json.loads(capsys.readouterr().out)


def _errors(report: dict) -> list[str]:
    return [f"{e['path']}: {e['message']}" for e in report["configErrors"]]


def test_a_registered_backend_gets_the_gpu_sharing_rules(fakecloud, temp_project, capsys):
    code, report = _fake_plan(temp_project, capsys, "      gpuSharing: {strategy: timeSlicing, replicas: 4}\n")
    # the fake image ships its own device plugin (FakePool.uses_nvidia_device_plugin), which reads no chart config
    assert code == 2
    assert _errors(report) == [
        "pools[0].gpuSharing: this pool's nodes run the device plugin of their image (e.g. Bottlerocket NVIDIA), which "
        "does not read the nvidia-device-plugin chart's configs, so gpuSharing would do nothing; use an AL2023 NVIDIA "
        "image or remove gpuSharing"]


def test_a_registered_backend_gets_the_mig_rules(fakecloud, temp_project, capsys):
    code, report = _fake_plan(temp_project, capsys, "      mig: {strategy: single, profile: 1g.10gb}\n")
    assert code == 2
    (error,) = _errors(report)
    assert error.startswith("pools[0].mig: nothing partitions this pool's GPUs into MIG devices") and "gpu-operator" in error


@pytest.mark.parametrize(
    ("stack_extra", "chart"),
    [
        ("  gpu-node-pools:devicePlugin:\n    provider: gpu-operator\n", "gpu-operator"),
        ("  gpu-node-pools:devicePlugin:\n    enabled: false\n  gpu-node-pools:gpuAgents:\n"
         "    dcgmExporter: {enabled: true}\n", "dcgm-exporter"),
        ("  gpu-node-pools:devicePlugin:\n    provider: gpu-operator\n  gpu-node-pools:gpuAgents:\n"
         "    dcgmExporter: {enabled: true}\n", "gpu-operator"),
    ],
)
def test_a_registered_backend_plans_with_the_gpu_operator_or_the_dcgm_exporter(fakecloud, temp_project, capsys,
                                                                                stack_extra, chart):
    code, report = _fake_plan(temp_project, capsys, stack_extra=stack_extra)
    assert code == 0, (_errors(report), [v["message"] for v in report["violations"]])
    charts = [r for r in report["resources"] if chart in json.dumps(r.get("inputs", {}))]
    assert charts, f"no {chart} resource in the plan"
    assert report["pools"][0]["backend"] == "fakecloud"


def test_the_config_package_names_no_backend_and_no_agent():
    """config/ sits below backends/ and gpu_agents/: it reaches them only through the registry
    (the pool models, ``stack_checks``, ``STACK_RULES``), never by import, not even by a module name."""
    import re

    from conftest import ROOT

    named = re.compile(r"""(from \.\.(backends|gpu_agents)\b|["']gpu_node_pool\.(backends|gpu_agents)\b)""")
    hits = [f"{path.name}:{n}" for path in sorted((ROOT / "components/gpu_node_pool/config").glob("*.py"))
            for n, line in enumerate(path.read_text().splitlines(), 1) if named.search(line)]
    assert hits == []
    assert registry.STACK_RULES == ("gpu_node_pool.gpu_agents.validate:stack_issues",)
