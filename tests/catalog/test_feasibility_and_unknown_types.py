"""Instance types the catalog lacks, Karpenter pools that can never get a GPU node, and the config
warnings channel (plan text, ``--json`` ``warnings``).

Rules: Cluster Autoscaler's AWS README (node-template tags), kubernetes-sigs/karpenter scheduling
(requirements ANDed, types above the limits dropped), Karpenter's ODCR task page.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from builders import config_errors
from conftest import ROOT, base

from gpu_node_pool.config import stack_warnings, validate_stack_config
from gpu_node_pool.plan import plan_stack, render_text, to_json

SCHEMA = json.loads((ROOT / "components" / "gpu_node_pool" / "cli" / "report.schema.json").read_text())


def karpenter(**pool) -> dict:
    cfg = base()
    cfg["pools"] = [{
        "name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "nodeClass": {},
        "limits": {"nvidia.com/gpu": 32}, **pool,
    }]
    return cfg


# --- unknown instance types ----------------------------------------------------------------


def test_an_instance_type_that_does_not_exist_is_refused_with_did_you_mean_on_every_aws_backend():
    eks = base()
    eks["pools"][0]["instanceTypes"] = ["g6.3xlarge"]
    (err,) = config_errors(eks)
    # at the type itself, so that its file:line is the instanceTypes line, not the pool's
    assert err.startswith("pools[0].instanceTypes[0]: instance type 'g6.3xlarge' is not in the instance catalog")
    assert "did you mean g6.2xlarge, g6.4xlarge" in err and "allowUnknownInstanceTypes: true" in err
    eks["pools"][0]["scaling"] = {"minSize": 0, "maxSize": 2}
    (err,) = config_errors(eks)  # a typo gets "did you mean", not the scale-from-zero gpusPerNode advice too
    assert "did you mean g6.2xlarge" in err and "set gpusPerNode" not in err

    (err,) = config_errors(karpenter(instanceFamilies=None, instanceTypes=["g6.3xlarge"]))
    assert "did you mean g6.2xlarge" in err

    sm = base()
    sm["cluster"] |= {"apiServerEndpoint": "https://10.0.0.10", "serviceCidr": "10.100.0.0/16",
                      "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "kubernetesVersion": "1.33"}
    sm["pools"] = [{"name": "batch", "backend": "self-managed", "format": "al2023", "instanceTypes": ["g6.3xlarge"],
                    "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": ["sg-0a1b2c3d4e5f60718"]}]
    (err,) = config_errors(sm)
    assert err.startswith("pools[0].instanceTypes[0]: instance type 'g6.3xlarge' is not in the instance catalog")


def test_allow_unknown_instance_types_accepts_a_newer_type_with_a_warning():
    cfg = base()
    cfg["pools"][0] |= {"instanceTypes": ["g6.3xlarge"], "allowUnknownInstanceTypes": True, "gpusPerNode": 1}
    stack = validate_stack_config(cfg)
    (warning,) = [w for w in stack_warnings(stack) if "g6.3xlarge" in w.message]
    assert warning.path == "pools[0].instanceTypes" and "allowUnknownInstanceTypes is set" in warning.message
    # at minSize 0 the autoscaler tag needs a GPU count the catalog cannot give (Cluster Autoscaler's AWS README)
    del cfg["pools"][0]["gpusPerNode"]
    (err,) = config_errors(cfg)
    assert "set gpusPerNode" in err


# --- Karpenter feasibility -----------------------------------------------------------------


def test_g6f_karpenter_pool_fails_config_because_karpenter_gives_it_no_gpu_capacity():
    # aws/karpenter-provider-aws#8368: types.go gives g6f instance-gpu-manufacturer=nvidia and
    # instance-gpu-count=0, so the pool is not empty: it only has types no GPU pod can use.
    (err,) = config_errors(karpenter(instanceFamilies=["g6f"]))
    assert err.startswith("pools[0]: pool 'burst': every candidate type (g6f.2xlarge, g6f.4xlarge, g6f.large, g6f.xlarge (4 types))")
    assert "0 nvidia.com/gpu capacity" in err and "issues/8368" in err
    assert "karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia]: allows" in err


def test_limits_below_one_node_fail_config_naming_karpenters_message():
    # karpenter scheduler.go: one p5.48xlarge is 8 GPUs; limits 4 drops every type
    (err,) = config_errors(karpenter(instanceFamilies=None, instanceTypes=["p5.48xlarge"], limits={"nvidia.com/gpu": 4}))
    assert "the NodePool launches no GPU node while limits nvidia.com/gpu is 4" in err
    assert "raise limits nvidia.com/gpu to the GPUs the pool may run" in err
    assert "all available instance types exceed limits for nodepool" in err and "p5.48xlarge (nvidia.com/gpu 8 > 4)" in err


def test_requirements_with_an_empty_intersection_list_each_requirement_and_what_it_left():
    # karpenter requirements.go: requirements are ANDed; no g6e size has 3 GPUs
    (err,) = config_errors(karpenter(gpuCounts=[3]))
    assert "requirements[0] karpenter.k8s.aws/instance-family In [g6e]: allows" in err
    assert "karpenter.k8s.aws/instance-gpu-count In [3]: allows" in err and "0 left after it" in err
    cpu = karpenter(requirements=[{"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["4"]}])
    (err,) = config_errors(cpu)
    assert "karpenter.k8s.aws/instance-cpu Lt [4]" in err and "0 left after it" in err


def test_reserved_capacity_without_selector_terms_is_refused_and_rendered_with_them():
    # karpenter.sh/docs/tasks/odcrs: Karpenter never matches reservations on its own
    (err,) = config_errors(karpenter(capacityTypes=["reserved"]))
    assert "capacityReservationSelectorTerms is empty" in err and "karpenter.sh/docs/tasks/odcrs" in err
    ok = karpenter(capacityTypes=["reserved", "on-demand"],
                   nodeClass={"capacityReservationSelectorTerms": [{"id": "cr-0123456789abcdef0"}]})
    pool = validate_stack_config(ok).pools[0]
    from gpu_node_pool.backends.karpenter.render import ec2nodeclass_manifest

    spec = ec2nodeclass_manifest(pool, validate_stack_config(ok).cluster)["spec"]
    assert spec["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    bad = karpenter(capacityTypes=["reserved"],
                    nodeClass={"capacityReservationSelectorTerms": [{"id": "cr-01", "instanceMatchCriteria": "open"}]})
    assert any("mutually exclusive" in e for e in config_errors(bad))


def test_known_risks_of_candidate_types_are_warnings_not_refusals():
    stack = validate_stack_config(karpenter(instanceFamilies=["p5"]))
    assert any("p5.4xlarge" in w.message and "8368" in w.message for w in stack_warnings(stack))


# --- the warnings channel: plan text and --json ---------------------------------------------

STACK = """\
config:
  gpu-node-pools:cluster: {name: ml-dev, nodeRoleArn: "arn:aws:iam::111122223333:role/n", subnetIds: [subnet-0a1b2c3d4e5f60718]}
  gpu-node-pools:pools:
    - {name: newer, backend: eks-managed, instanceTypes: [g6.3xlarge], allowUnknownInstanceTypes: true, gpusPerNode: 1,
       scaling: {minSize: 0, maxSize: 2}}
"""


def test_the_plan_prints_config_warnings_and_json_carries_them(temp_project):
    project: Path = temp_project("dev", STACK)
    result = plan_stack("dev", project)
    assert result.exit_code == 0
    text = render_text(result)
    # a warning names its key's place in the stack file, as a config error does
    assert "config warning(s)" in text
    assert "warning: stacks/Pulumi.dev.yaml:4:43: pools[0].instanceTypes: instance type 'g6.3xlarge'" in text
    doc = to_json(result)
    assert doc["warnings"][0]["path"] == "pools[0].instanceTypes"
    assert doc["warnings"][0]["location"] == {"file": "stacks/Pulumi.dev.yaml", "line": 4, "column": 43}
    report = {"schemaVersion": 1, "command": "plan", "failOn": "mandatory", **doc}
    jsonschema.validate(report, SCHEMA)
