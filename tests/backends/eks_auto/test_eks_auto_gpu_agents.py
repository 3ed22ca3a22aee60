"""EKS Auto Mode and the GPU agents through ``gpupool plan``: Auto Mode runs NVIDIA's driver and device
plugin itself, so gpuSharing, mig and the GPU Operator are refused as config errors (exit 2) that say
what Auto Mode does, and the DCGM exporter (an ordinary DaemonSet reading the driver) plans clean."""

from __future__ import annotations

import json

import pytest
import yaml

from gpu_node_pool.cli.commands import main as cli_main

AUTO_DOCS = "https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html"


def _stack(pool_extra: dict | None = None, **stack_keys: dict) -> str:
    pool = {"name": "inference", "backend": "eks-auto", "instanceTypes": ["p4d.24xlarge"],
            "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 16}, **(pool_extra or {})}
    config = {
        "gpu-node-pools:cluster": {"name": "ml-auto", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-auto-node",
                                   "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
        "gpu-node-pools:pools": [pool],
        **{f"gpu-node-pools:{key}": value for key, value in stack_keys.items()},
    }
    return yaml.safe_dump({"config": config})


def _plan(temp_project, capsys, text: str) -> tuple[int, dict]:
    project = temp_project("auto-agents", text)
    code = cli_main(["plan", "--stack", "auto-agents", "--project-dir", str(project), "--json"])
    return code, json.loads(capsys.readouterr().out)


def _messages(report: dict) -> list[str]:
    return [f"{i['path']}: {i['message']}" for i in report.get("configErrors") or []]


@pytest.mark.parametrize(
    ("pool_extra", "stack_keys", "path", "needle"),
    [
        ({"gpuSharing": {"strategy": "timeSlicing", "replicas": 4}}, {}, "pools[0].gpuSharing",
         "cannot give it time-slicing or MPS configs"),
        ({"gpuSharing": {"strategy": "mps", "replicas": 2}}, {}, "pools[0].gpuSharing",
         "cannot give it time-slicing or MPS configs"),
        ({"mig": {"strategy": "single", "profile": "1g.5gb"}}, {}, "pools[0].mig",
         "nothing the component configures partitions the GPUs"),
        ({}, {"devicePlugin": {"provider": "gpu-operator"}}, "pools[0]", "EKS Auto Mode already includes and manages"),
        ({}, {"devicePlugin": {"provider": "gpu-operator"}, "gpuAgents": {"dcgmExporter": {"enabled": True}}},
         "pools[0]", "gpuAgents.dcgmExporter still gives GPU metrics"),
    ],
)
def test_what_auto_mode_does_itself_is_a_config_error_naming_it(temp_project, capsys, pool_extra, stack_keys, path, needle):
    code, report = _plan(temp_project, capsys, _stack(pool_extra, **stack_keys))
    messages = _messages(report)
    assert code == 2, messages
    (message,) = [m for m in messages if m.startswith(f"{path}: ")]
    assert needle in message and AUTO_DOCS in message and "EKS Auto Mode" in message
    assert len(messages) == 1, messages  # said once, by the backend, not again by the agent rules


def test_sharing_and_mig_together_get_one_error_each(temp_project, capsys):
    code, report = _plan(temp_project, capsys, _stack({"gpuSharing": {"strategy": "timeSlicing", "replicas": 2},
                                                       "mig": {"strategy": "mixed", "profile": "1g.5gb"}}))
    assert code == 2
    assert sorted(m.split(": ")[0] for m in _messages(report)) == ["pools[0].gpuSharing", "pools[0].mig"]


def test_the_dcgm_exporter_on_auto_mode_plans_clean(temp_project, capsys):
    code, report = _plan(temp_project, capsys, _stack(gpuAgents={"dcgmExporter": {"enabled": True}}))
    assert code == 0, _messages(report)
    text = json.dumps(report)
    assert "dcgm-exporter" in text
