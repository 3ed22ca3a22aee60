"""The zones of a NodePool pool (karpenter, eks-auto) must be zones of the stack's ``aws:region``.

Karpenter and EKS Auto Mode offer capacity only in the zones of the region they run in; a pool pinned
to another region's zone validated and planned fine and never got a node. Without ``aws:region`` (or
with a secret one) the zones are not placed: nothing is guessed.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import base

from gpu_node_pool.config import ConfigError, validate_stack_config

POOLS = {
    "karpenter": {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"],
                  "taints": ["nvidia.com/gpu=present:NoSchedule"], "nodeClass": {}, "limits": {"nvidia.com/gpu": 8}},
    "eks-auto": {"name": "burst", "backend": "eks-auto", "instanceFamilies": ["g6e"],
                 "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 8}},
}
BACKENDS = list(POOLS)


def stack(backend: str, zones: list[str]) -> dict[str, Any]:
    cfg = base()
    cfg["pools"] = [{**POOLS[backend], "zones": zones}]
    return cfg


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_zone_of_another_region_is_refused_at_the_zone(backend):
    with pytest.raises(ConfigError) as err:
        validate_stack_config(stack(backend, ["us-east-1a", "us-west-2a"]), aws_region="us-east-1")
    ((path, message),) = [(i.path, i.message) for i in err.value.issues]
    assert path == "pools[0].zones[1]"
    for words in ("'us-west-2a' is not a zone of the stack's region us-east-1 (aws:region)",
                  "its region and a letter", "aws-availability-zones.html", "would never get a node",
                  "write zones of us-east-1, or fix aws:region"):
        assert words in message, message


@pytest.mark.parametrize("backend", BACKENDS)
def test_several_zones_of_another_region_are_refused_together(backend):
    with pytest.raises(ConfigError) as err:
        validate_stack_config(stack(backend, ["us-west-2a", "eu-west-1b"]), aws_region="us-east-1")
    ((path, message),) = [(i.path, i.message) for i in err.value.issues]
    assert path == "pools[0].zones" and "'us-west-2a', 'eu-west-1b' are not zones of the stack's region" in message


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("zones", "region"),
    [
        (["us-east-1a", "us-east-1f"], "us-east-1"),
        (["us-east-1-bos-1a"], "us-east-1"),  # a Local Zone
        (["us-east-1-wl1-bos-wlz-1"], "us-east-1"),  # a Wavelength Zone
        (["us-gov-west-1a"], "us-gov-west-1"),
        (["us-west-2a"], None),  # aws:region not set: not guessed
        (["us-west-2a"], "[secret]"),  # a secret's placeholder is no region
    ],
)
def test_zones_of_the_region_or_an_unknown_region_are_accepted(backend, zones, region):
    validate_stack_config(stack(backend, zones), aws_region=region)


def test_a_zone_named_like_a_longer_region_is_not_in_the_shorter_one():
    with pytest.raises(ConfigError) as err:
        validate_stack_config(stack("karpenter", ["us-east-10a"]), aws_region="us-east-1")
    assert [i.path for i in err.value.issues] == ["pools[0].zones[0]"]


STACK = """config:
%s  gpu-node-pools:cluster:
    name: ml-prod
    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
  gpu-node-pools:pools:
    - name: burst
      backend: %s
      instanceFamilies: [g6e]
      taints: ["nvidia.com/gpu=present:NoSchedule"]
      zones: [us-west-2a]
      limits: {nvidia.com/gpu: 8}
%s"""


def _run(capsys, temp_project, backend: str, region_line: str) -> tuple[int, str]:
    from gpu_node_pool.cli.commands import main

    node_class = "      nodeClass: {}\n" if backend == "karpenter" else ""
    project = temp_project("dev", STACK % (region_line, backend, node_class))
    code = main(["validate", "--stack", "dev", "--project-dir", str(project)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
def test_gpupool_validate_exits_2_for_a_zone_outside_aws_region(capsys, temp_project, backend):
    code, err = _run(capsys, temp_project, backend, "  aws:region: us-east-1\n")
    assert code == 2, err
    (line,) = [x for x in err.splitlines() if ": pools[0].zones[0]: " in x]
    assert line.lstrip().startswith("stacks/Pulumi.dev.yaml:")
    assert "'us-west-2a' is not a zone of the stack's region us-east-1 (aws:region)" in line
    assert "aws-availability-zones.html" in line and "fix aws:region" in line


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("region_line", ["", "  aws:region:\n    secure: AAABAKy3fK8tSzd8\n"], ids=["no region", "secret"])
def test_gpupool_validate_places_no_zone_without_a_plain_aws_region(capsys, temp_project, backend, region_line):
    code, err = _run(capsys, temp_project, backend, region_line)
    assert code == 0, err


@pytest.mark.parametrize("backend", BACKENDS)
def test_only_a_zone_requirement_with_not_in_is_warned_for_values_outside_the_region(backend):
    cfg = base()
    cfg["pools"] = [dict(POOLS[backend])]
    cfg["pools"][0]["requirements"] = [
        {"key": "example.com/rack", "operator": "NotIn", "values": ["eu-west-1a"]},
        {"key": "topology.kubernetes.io/zone", "operator": "NotIn", "values": ["us-east-1b", "eu-west-1a"]},
    ]
    [pool] = validate_stack_config(cfg, aws_region="us-east-1").pools
    [(path, message)] = pool.zone_warnings()
    assert path == "requirements[1].values" and "eu-west-1a" in message and "us-east-1b" not in message
