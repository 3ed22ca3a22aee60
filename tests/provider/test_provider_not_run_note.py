"""A component served by the provider keeps the note that stack rules were not run a note: listed after the
mistakes it refers to as ``not checked:``, left out of their count, flagged ``not_judged``, exactly as the Python
``GpuNodePool`` says it. A self-managed pool whose ``format`` is no format is the case: the self-managed stack
rules read the format (the cluster keys its bootstrap needs), so they are not run."""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.config import ConfigError
from gpu_node_pool.plan.run import load_stack_file, record

CLUSTER = {"name": "onprem-gpu", "kubernetes_version": "1.33", "api_server_endpoint": "https://10.20.0.10:6443"}
STACK_CLUSTER = {"name": "onprem-gpu", "kubernetesVersion": "1.33", "apiServerEndpoint": "https://10.20.0.10:6443"}


def _error(build) -> ConfigError:
    config, _, _ = load_stack_file(ROOT, "onprem")
    registered: list = []
    with pytest.raises(ConfigError) as err:
        record(build, config, sink=registered)
    assert [r for r in registered if r.name == "f"] == []  # refused before anything registered
    return err.value


def _provider_error() -> ConfigError:
    from gpu_node_pool.provider.components import GpuNodePool

    # what the provider hands the component: Python names, the backend's block (format is a plain value here,
    # as no SDK enum check stands between a caller of the component class and its validation)
    pool = {"name": "f", "backend": "self-managed", "self_managed": {"format": "AL2023", "provider": "none"}}
    return _error(lambda: GpuNodePool("f", {"pool": pool, "cluster": CLUSTER}))


def test_the_note_stays_a_note_after_the_mistakes():
    err = _provider_error()
    notes = [i for i in err.issues if i.not_judged]
    mistakes = [i for i in err.issues if not i.not_judged]
    assert len(notes) == 1 and mistakes, err.issues
    assert "the self-managed stack rules" in notes[0].message and "were not run" in notes[0].message
    assert notes[0].to_json().get("notJudged") is True
    lines = str(err).splitlines()
    assert lines[0].startswith(f"{len(mistakes)} error{'' if len(mistakes) == 1 else 's'} in the GpuNodePool 'f'"), lines[0]
    assert lines[-1].startswith("  not checked: pools: the self-managed stack rules"), lines
    assert [line for line in lines if "not checked:" in line] == [lines[-1]]
    assert any(i.path == "pool.selfManaged.format" for i in mistakes), mistakes


def test_the_provider_component_says_what_the_python_component_says():
    from gpu_node_pool.component.pool import GpuNodePool, GpuNodePoolArgs

    python = _error(lambda: GpuNodePool("f", GpuNodePoolArgs(
        pool={"name": "f", "backend": "self-managed", "format": "AL2023", "provider": "none"}, cluster=STACK_CLUSTER)))
    provider = _provider_error()
    assert [i.not_judged for i in provider.issues] == [i.not_judged for i in python.issues]
    assert [i.message for i in provider.issues] == [i.message for i in python.issues]
