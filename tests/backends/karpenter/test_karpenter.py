"""Karpenter backend: NodePools and EC2NodeClasses that Karpenter's own CRD accepts.

One case table drives two enforcement points: every input Karpenter refuses is refused by
our config validation (with our message and its config path), and the same input, put into
a known-good rendered object, is refused by the v1.14.1 CRD itself (schema or CEL rule,
loaded from tests/data/karpenter-crds/ as they are). Inputs only Karpenter's Go validation
refuses (the CRD lets them through) are marked, and the test shows the CRD accepting them.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import config_issues
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from karpenter_crd import CRD_DIR, CRD_FILES, K8S_EXTENSIONS, STANDARD_CEL, crd_errors, load_crds, rule_holds
from strategies import label_values, names, taint_lists

from gpu_node_pool.backends._shared.nodepool_detect import nodepool_taint_lists
from gpu_node_pool.backends.karpenter import read as karpenter_read
from gpu_node_pool.backends.karpenter import render as karpenter_render
from gpu_node_pool.backends.karpenter.config import KarpenterPool
from gpu_node_pool.component.pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.config import (
    POOL_LABEL_KEY,
    ConfigError,
    StackConfig,
    load_stack_config,
    stack_file_config,
    validate_stack_config,
)
from gpu_node_pool.gpu_agents.device_plugin import values as dp
from gpu_node_pool.k8s.taints import Taint, TaintEffect

CLUSTER = {"name": "ml-prod", "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node"}


def good_pool(**changes: Any) -> dict[str, Any]:
    """A known-good Karpenter pool as the stack YAML writes it; ``changes`` replace keys."""
    pool: dict[str, Any] = {
        "name": "burst",
        "backend": "karpenter",
        "instanceFamilies": ["g6e", "g6"],
        "capacityTypes": ["spot", "on-demand"],
        "taints": ["nvidia.com/gpu=present:NoSchedule"],
        "startupTaints": ["node.cilium.io/agent-not-ready=true:NoExecute"],
        "labels": {"workload": "inference"},
        "nodeClass": {},
        "limits": {"nvidia.com/gpu": 32},
    }
    pool.update(changes)
    return pool


def stack_of(*pools: dict[str, Any]) -> StackConfig:
    return validate_stack_config({"cluster": CLUSTER, "pools": list(pools)})


def manifests(pool: KarpenterPool, cluster: Any) -> list[dict[str, Any]]:
    out = [karpenter_render.nodepool_manifest(pool, cluster)]
    if pool.node_class is not None:
        out.append(karpenter_render.ec2nodeclass_manifest(pool, cluster))
    return out


@pytest.fixture(scope="session")
def karpenter_crd_dir() -> Path:
    """The CRD copies the tests load: tests/data/karpenter-crds (CI clones lack ../shared)."""
    return CRD_DIR


# --- the CRD copies and the validator ----------------------------------------------------


def test_the_crd_copies_match_the_checksums_in_their_source_note(karpenter_crd_dir):
    source = (karpenter_crd_dir / "SOURCE.md").read_text()
    for name in CRD_FILES:
        digest = hashlib.sha256((karpenter_crd_dir / name).read_bytes()).hexdigest()
        assert f"{digest}  {name}" in source, name


def test_the_crd_copies_equal_the_shared_schemas_when_those_are_present(karpenter_crd_dir):
    shared = ROOT.parent / "shared" / "schemas"
    if not shared.is_dir():
        pytest.skip("../shared/schemas is not part of a clean clone")
    # the shared copy predates the NodeOverlay CRD: compare the files it has (its SOURCE.md lists two)
    for name in (n for n in CRD_FILES if (shared / n).is_file()):
        assert (shared / name).read_bytes() == (karpenter_crd_dir / name).read_bytes(), name


def test_every_cel_rule_compiles_and_uses_only_functions_we_evaluate(karpenter_crd_dir):
    known = STANDARD_CEL | set(K8S_EXTENSIONS)
    for crd in load_crds(karpenter_crd_dir).values():
        for rule in crd.rules():
            used = set(re.findall(r"([A-Za-z_]\w*)\s*\(", re.sub(r"'[^']*'|\"[^\"]*\"", "''", rule)))
            assert used <= known, (rule, used - known)
            rule_holds(rule, {})  # compiles (raises on a syntax error)


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        ('self.find("^([^/]+)") == "karpenter.sh"', "karpenter.sh/team", True),
        ('self.find("^([^/]+)") == "workload"', "workload", True),
        ('self.find("[0-9]+") == ""', "abc", True),
        ("self.split('@')[0] == 'al2023'", "al2023@latest", True),
        ("self.split('@').size() == 1", "al2023", True),
        ("self.split('@', 0).size() == 0", "a@b@c", True),
        ("self.split('@', 2) == ['a', 'b@c']", "a@b@c", True),
        ("self.findAll('[a-z]') == ['a', 'b']", "a1b", True),
        ("int(self) >= 0", "abc", False),  # an evaluation error fails the rule
    ],
)
def test_kubernetes_cel_extensions_follow_kubernetes_semantics(rule, value, expected):
    assert rule_holds(rule, value) is expected


def test_the_validator_catches_unknown_fields_and_wrong_enums():
    np = karpenter_render.nodepool_manifest(stack_of(good_pool()).pools[0], stack_of(good_pool()).cluster)
    np["spec"]["template"]["spec"]["startupTaint"] = []
    np["spec"]["template"]["spec"]["taints"][0]["effect"] = TaintEffect.NO_SCHEDULE.provider_spelling
    errors = crd_errors(np)
    assert any("'startupTaint' was unexpected" in e for e in errors), errors
    assert any("is not one of" in e for e in errors), errors


# --- positive cases: rendered objects pass the CRD -------------------------------------

POSITIVE: dict[str, dict[str, Any]] = {
    "the minimal pool with the default node class": good_pool(startupTaints=[], labels={}),
    "every optional field": good_pool(
        instanceFamilies=None,
        instanceTypes=["g5g.xlarge", "g5g.2xlarge"],
        architecture="arm64",
        gpuCounts=[1, 2],
        gpuNames=["t4g"],
        zones=["us-east-1a", "us-east-1b"],
        capacityTypes=["on-demand", "reserved"],
        taints=["nvidia.com/gpu=present:NoSchedule", "example.com/dedicated=ml:NoExecute", "soft:PreferNoSchedule"],
        startupTaints=[{"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"},
                       "example.com/warming:NoSchedule"],
        labels={"example.com/team": "ml", "karpenter.k8s.aws/instance-hypervisor": "nitro", "plain": ""},
        gpuLabel={"key": "example.com/gpu", "value": "nvidia"},
        requirements=[
            {"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gte", "values": ["16384"]},
            {"key": "karpenter.k8s.aws/instance-size", "operator": "In", "values": ["xlarge", "2xlarge"],
             "minValues": 2},
            {"key": "example.com/no-such-label", "operator": "DoesNotExist"},
            {"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": ["4"]},
        ],
        nodeClass={
            "name": "gpu-bottlerocket",
            "amiAlias": "bottlerocket@v1.30.0",
            "role": "KarpenterNodeRole-ml-prod",
            "subnetSelectorTags": {"example.com/tier": "private", "karpenter.sh/discovery": "ml-prod"},
            "securityGroupSelectorTags": {"aws:eks:cluster-name": "ml-prod"},
            "tags": {"team": "ml", "cost-center": "4410"},
            # capacityTypes has reserved: Karpenter needs the reservations selected (karpenter.sh/docs/tasks/odcrs)
            "capacityReservationSelectorTerms": [
                {"id": "cr-0123456789abcdef0"},
                {"tags": {"team": "ml", "purpose": "*"}, "ownerID": "111122223333", "instanceMatchCriteria": "targeted"},
            ],
        },
        limits={"nvidia.com/gpu": "8", "cpu": 1000, "memory": "4000Gi"},
        disruption={
            "consolidationPolicy": "Balanced",
            "consolidateAfter": "1h30m",
            "budgets": [
                {"nodes": 1},
                {"nodes": "0", "schedule": "@daily", "duration": "1h30m", "reasons": ["Drifted", "Underutilized"]},
            ],
        },
        weight=100,
        expireAfter="Never",
        terminationGracePeriod="48h",
    ),
    "an existing node class and no taints": good_pool(
        nodeClass=None, nodeClassRef={"name": "gpu-al2023"}, taints=[], startupTaints=[]
    ),
}


@pytest.mark.parametrize("case", list(POSITIVE))
def test_rendered_objects_pass_the_crd_schema_and_cel_rules(case):
    stack = stack_of({k: v for k, v in POSITIVE[case].items() if v is not None})
    for obj in manifests(stack.pools[0], stack.cluster):
        assert crd_errors(obj) == [], (obj["kind"], crd_errors(obj))


def _shipped_karpenter_pools() -> list[tuple[str, KarpenterPool, Any]]:
    found = []
    for path in sorted((ROOT / "stacks").glob("Pulumi.*.yaml")):
        config, secrets = stack_file_config(yaml.safe_load(path.read_text()) or {})
        stack = load_stack_config(config, path.name)
        found += [(path.name, p, stack.cluster) for p in stack.pools if isinstance(p, KarpenterPool)]
    return found


def test_every_shipped_stack_renders_karpenter_objects_the_crd_accepts():
    pools = _shipped_karpenter_pools()
    assert any(name == "Pulumi.prod.yaml" for name, _, _ in pools), "prod declares a Karpenter pool"
    for name, pool, cluster in pools:
        for obj in manifests(pool, cluster):
            assert crd_errors(obj) == [], (name, pool.name, obj["kind"], crd_errors(obj))


def test_the_prod_karpenter_pool_is_g6e_g6_inference_on_spot_and_on_demand_with_32_gpus():
    (_, pool, cluster), *_ = [p for p in _shipped_karpenter_pools() if p[0] == "Pulumi.prod.yaml"]
    np = karpenter_render.nodepool_manifest(pool, cluster)
    reqs = {r["key"]: r for r in karpenter_read.read_nodepool_requirements(np)}
    assert reqs["karpenter.k8s.aws/instance-family"]["values"] == ["g6e", "g6"]
    assert reqs["karpenter.k8s.aws/instance-gpu-manufacturer"]["values"] == ["nvidia"]
    assert set(reqs["karpenter.sh/capacity-type"]["values"]) == {"spot", "on-demand"}
    assert karpenter_read.read_nodepool_limits(np) == {"nvidia.com/gpu": 32}


# --- rendering details -------------------------------------------------------------------


def test_the_nodepool_carries_taints_startup_taints_and_labels_where_karpenter_reads_them():
    stack = stack_of(good_pool())
    pool = stack.pools[0]
    np = karpenter_render.nodepool_manifest(pool, stack.cluster)
    tpl = np["spec"]["template"]
    assert (np["apiVersion"], np["kind"], np["metadata"]["name"]) == ("karpenter.sh/v1", "NodePool", "burst")
    assert tpl["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert tpl["spec"]["startupTaints"] == [
        {"key": "node.cilium.io/agent-not-ready", "value": "true", "effect": "NoExecute"}
    ]
    assert tpl["spec"]["nodeClassRef"] == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "burst"}
    assert tpl["metadata"]["labels"][POOL_LABEL_KEY] == "burst"
    assert tpl["metadata"]["labels"]["nvidia.com/gpu.present"] == "true"
    assert np["spec"]["disruption"] == {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"}


def test_the_created_node_class_uses_the_alias_role_name_and_discovery_tags():
    stack = stack_of(good_pool())
    nc = karpenter_render.ec2nodeclass_manifest(stack.pools[0], stack.cluster)
    assert nc["spec"]["amiSelectorTerms"] == [{"alias": "al2023@latest"}]
    assert nc["spec"]["role"] == "ml-prod-gpu-node"
    assert nc["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "ml-prod"}}]
    assert nc["spec"]["securityGroupSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "ml-prod"}}]
    assert "amiFamily" not in nc["spec"]


def test_a_pool_that_references_a_node_class_creates_none():
    stack = stack_of(good_pool(nodeClass=None, nodeClassRef={"name": "shared-gpu"}))
    with pytest.raises(ValueError, match="creates none"):
        karpenter_render.ec2nodeclass_manifest(stack.pools[0], stack.cluster)


def test_rendering_twice_gives_identical_objects_with_identical_key_order():
    stack = stack_of(good_pool())
    first = manifests(stack.pools[0], stack.cluster)
    second = manifests(stack_of(good_pool()).pools[0], stack.cluster)
    assert yaml.safe_dump(first, sort_keys=False) == yaml.safe_dump(second, sort_keys=False)


def test_startup_taints_are_never_pool_taints_nor_tolerated_by_the_device_plugin():
    pool = stack_of(good_pool()).pools[0]
    startup = Taint.parse("node.cilium.io/agent-not-ready=true:NoExecute")
    assert pool.startup_taint_list == [startup]
    assert startup not in pool.taint_list
    tolerations = dp.derived_tolerations([pool])
    assert all(t.key != startup.key for t in tolerations)
    assert all(c.tolerated for c in dp.coverage(dp.chart_values([pool], _plugin_config()), [pool]))


def _plugin_config():
    from gpu_node_pool.config import DevicePluginConfig

    return DevicePluginConfig()


@pytest.mark.parametrize(
    ("node_class", "uses_plugin"),
    [
        ({"nodeClass": {}}, True),
        ({"nodeClass": {"amiAlias": "bottlerocket@latest"}}, False),
        ({"nodeClass": None, "nodeClassRef": {"name": "x"}}, True),
        ({"nodeClass": None, "nodeClassRef": {"name": "x", "amiFamily": "Bottlerocket"}}, False),
    ],
)
def test_bottlerocket_pools_are_served_by_the_device_plugin_in_their_ami(node_class, uses_plugin):
    pool = stack_of({k: v for k, v in good_pool(**node_class).items() if v is not None}).pools[0]
    assert pool.uses_nvidia_device_plugin is uses_plugin
    values = dp.chart_values([pool], _plugin_config())
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert bool(terms) is uses_plugin


@settings(max_examples=20)
@given(
    taints=taint_lists(max_size=4),
    startup=taint_lists(max_size=3),
    labels=st.dictionaries(st.builds(lambda n: f"example.com/{n}", names()), label_values, max_size=5),
)
def test_taints_startup_taints_and_labels_read_back_and_pass_the_crd(taints, startup, labels):
    startup = [t for t in startup if t.identity not in {x.identity for x in taints}]
    raw = good_pool(
        taints=[t.to_k8s() for t in taints], startupTaints=[t.to_k8s() for t in startup], labels=labels
    )
    stack = stack_of(raw)
    pool = stack.pools[0]
    np = karpenter_render.nodepool_manifest(pool, stack.cluster)
    lists = nodepool_taint_lists(np)
    assert lists.taints == taints and lists.startup_taints == startup and lists.problem is None
    assert karpenter_read.read_nodepool_labels(np) == pool.node_labels
    assert karpenter_read.read_nodepool_requirements(np) == pool.requirement_list
    assert crd_errors(np) == []


# --- the component under Pulumi mocks ----------------------------------------------------


def test_the_component_registers_the_rendered_objects_as_custom_resources():
    from gpu_node_pool.plan import record

    stack = stack_of(good_pool())
    pool, cluster = stack.pools[0], stack.cluster
    seen: dict[str, Any] = {}

    def program() -> None:
        component = GpuNodePool("burst", GpuNodePoolArgs(pool=pool, cluster=cluster))
        seen["nodepool_name"] = component.nodepool_name

    resources, _ = record(program)
    by_name = {r.name: r for r in resources}
    np, nc = by_name["burst-nodepool"], by_name["burst-ec2nodeclass"]
    assert np.type == "kubernetes:karpenter.sh/v1:NodePool"
    assert nc.type == "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
    assert np.inputs == karpenter_render.nodepool_manifest(pool, cluster)
    assert nc.inputs == karpenter_render.ec2nodeclass_manifest(pool, cluster)
    assert nodepool_taint_lists(np.inputs).startup_taints == pool.startup_taint_list
    assert seen["nodepool_name"] == "burst"


def test_the_component_accepts_the_pool_as_a_camel_case_mapping():
    validated, cluster = GpuNodePoolArgs(pool=good_pool(), cluster=CLUSTER).validated()
    assert isinstance(validated, KarpenterPool)
    # a validated model dumped to camelCase validates back to the same model
    again, _ = GpuNodePoolArgs(pool=validated.model_dump(by_alias=True), cluster=cluster).validated()
    assert again == validated


# --- negative cases: one table, two enforcement points --------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _labels(m: dict[str, Any]) -> dict[str, Any]:
    return m["spec"]["template"]["metadata"]["labels"]


def _tspec(m: dict[str, Any]) -> dict[str, Any]:
    return m["spec"]["template"]["spec"]


def _add_req(req: dict[str, Any]) -> Mutation:
    return lambda m: _tspec(m)["requirements"].append(req)


CASES: list[tuple[str, dict[str, Any], str, str, str, Mutation, str | None]] = [
    # (case, pool changes, config path, our message fragment, CRD kind, same input in the object, CRD message)
    ("a label in the karpenter.sh domain",
     {"labels": {"karpenter.sh/team": "x"}}, "pools[0].labels['karpenter.sh/team']", "is in the karpenter.sh domain",
     "NodePool", lambda m: _labels(m).update({"karpenter.sh/team": "x"}), 'label domain "karpenter.sh" is restricted'),
    ("a label whose domain merely ends with karpenter.sh",
     {"labels": {"mykarpenter.sh/team": "x"}}, "pools[0].labels['mykarpenter.sh/team']", "karpenter.sh domain",
     "NodePool", lambda m: _labels(m).update({"mykarpenter.sh/team": "x"}), 'label domain "karpenter.sh" is restricted'),
    ("the karpenter.sh/nodepool label",
     {"labels": {"karpenter.sh/nodepool": "x"}}, "pools[0].labels['karpenter.sh/nodepool']", "set by Karpenter to the NodePool name",
     "NodePool", lambda m: _labels(m).update({"karpenter.sh/nodepool": "x"}), 'label "karpenter.sh/nodepool" is restricted'),
    ("the kubernetes.io/hostname label",
     {"labels": {"kubernetes.io/hostname": "x"}}, "pools[0].labels['kubernetes.io/hostname']", "kubernetes.io/hostname",
     "NodePool", lambda m: _labels(m).update({"kubernetes.io/hostname": "x"}), 'label "kubernetes.io/hostname" is restricted'),
    ("a label in the karpenter.k8s.aws domain that is not well known",
     {"labels": {"karpenter.k8s.aws/team": "x"}}, "pools[0].labels['karpenter.k8s.aws/team']", "karpenter.k8s.aws domain",
     "NodePool", lambda m: _labels(m).update({"karpenter.k8s.aws/team": "x"}),
     'label domain "karpenter.k8s.aws" is restricted'),
    ("a GPU label in the karpenter.sh domain",
     {"gpuLabel": {"key": "karpenter.sh/gpu", "value": "true"}}, "pools[0]", "gpuLabel: 'karpenter.sh/gpu'",
     "NodePool", lambda m: _labels(m).update({"karpenter.sh/gpu": "true"}), 'label domain "karpenter.sh" is restricted'),
    ("a label value longer than 63 characters",
     {"labels": {"example.com/x": "a" * 64}}, "pools[0].labels['example.com/x']", "at most 63",
     "NodePool", lambda m: _labels(m).update({"example.com/x": "a" * 64}), "is too long"),
    ("more than 100 labels",
     {"labels": {f"example.com/l{i}": "v" for i in range(99)}}, "pools[0]", "a NodePool takes at most 100",
     "NodePool", lambda m: _labels(m).update({f"example.com/l{i}": "v" for i in range(99)}), "has too many properties"),
    ("a requirement In without values",
     {"requirements": [{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "In"}]},
     "pools[0].requirements[0]", "operator In needs at least one value",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "In", "values": []}),
     "requirements with operator 'In' must have a value defined"),
    ("a requirement Gt with a non-integer value",
     {"requirements": [{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gt", "values": ["lots"]}]},
     "pools[0].requirements[0]", "needs exactly one non-negative integer",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gt", "values": ["lots"]}),
     "must have a single positive integer value"),
    ("a requirement Gte with a negative value",
     {"requirements": [{"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gte", "values": ["-1"]}]},
     "pools[0].requirements[0]", "needs exactly one non-negative integer",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gte", "values": ["-1"]}),
     "must have a single positive integer value"),
    ("a requirement Lt with two values",
     {"requirements": [{"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["1", "2"]}]},
     "pools[0].requirements[0]", "needs exactly one non-negative integer",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lt", "values": ["1", "2"]}),
     "must have a single positive integer value"),
    ("minValues above the number of values",
     {"requirements": [{"key": "karpenter.k8s.aws/instance-size", "operator": "In", "values": ["xlarge"],
                        "minValues": 2}]},
     "pools[0].requirements[0]", "minValues 2 is more than the 1 value(s)",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/instance-size", "operator": "In", "values": ["xlarge"],
                           "minValues": 2}),
     "must have at least that many values"),
    ("minValues above 50",
     {"requirements": [{"key": "karpenter.k8s.aws/instance-size", "operator": "Exists", "minValues": 51}]},
     "pools[0].requirements[0]", "minValues 51 must be between 1 and 50",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/instance-size", "operator": "Exists", "minValues": 51}),
     "greater than the maximum of 50"),
    ("an unknown requirement operator",
     {"requirements": [{"key": "example.com/x", "operator": "Equals", "values": ["a"]}]},
     "pools[0].requirements[0]", "operator 'Equals' is not one of",
     "NodePool", _add_req({"key": "example.com/x", "operator": "Equals", "values": ["a"]}), "is not one of"),
    ("a requirement key in the karpenter.sh domain",
     {"requirements": [{"key": "karpenter.sh/team", "operator": "Exists"}]},
     "pools[0].requirements[0]", "key 'karpenter.sh/team' is in the karpenter.sh domain",
     "NodePool", _add_req({"key": "karpenter.sh/team", "operator": "Exists"}), 'label domain "karpenter.sh" is restricted'),
    ("a requirement on kubernetes.io/hostname",
     {"requirements": [{"key": "kubernetes.io/hostname", "operator": "Exists"}]},
     "pools[0].requirements[0]", "kubernetes.io/hostname",
     "NodePool", _add_req({"key": "kubernetes.io/hostname", "operator": "Exists"}),
     'label "kubernetes.io/hostname" is restricted'),
    ("a requirement key that is not a qualified name",
     {"requirements": [{"key": "a/b/c", "operator": "Exists"}]},
     "pools[0].requirements[0]", "qualified name",
     "NodePool", _add_req({"key": "a/b/c", "operator": "Exists"}), "does not match"),
    ("more than 100 requirements",
     {"requirements": [{"key": f"example.com/r{i}", "operator": "Exists"} for i in range(97)]},
     "pools[0]", "a NodePool takes at most 100",
     "NodePool", lambda m: _tspec(m)["requirements"].extend(
         {"key": f"example.com/r{i}", "operator": "Exists"} for i in range(97)), "is too long"),
    ("a taint effect in the EKS spelling",
     {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]},
     "pools[0].taints[0].effect", "is the EKS/GKE API spelling",
     "NodePool", lambda m: _tspec(m)["taints"][0].update(effect="NO_SCHEDULE"), "is not one of"),
    ("a startup taint key with two slashes",
     {"startupTaints": [{"key": "a/b/c", "effect": "NoExecute"}]},
     "pools[0].startupTaints[0].key", "at most one '/'",
     "NodePool", lambda m: _tspec(m)["startupTaints"][0].update(key="a/b/c"), "does not match"),
    ("weight 0",
     {"weight": 0}, "pools[0].weight", "outside 1..100",
     "NodePool", lambda m: m["spec"].update(weight=0), "less than the minimum of 1"),
    ("weight 101",
     {"weight": 101}, "pools[0].weight", "outside 1..100",
     "NodePool", lambda m: m["spec"].update(weight=101), "greater than the maximum of 100"),
    ("expireAfter in days",
     {"expireAfter": "30d"}, "pools[0].expireAfter", "not a Karpenter duration",
     "NodePool", lambda m: _tspec(m).update(expireAfter="30d"), "does not match"),
    ("terminationGracePeriod Never",
     {"terminationGracePeriod": "Never"}, "pools[0].terminationGracePeriod", "not a Karpenter duration",
     "NodePool", lambda m: _tspec(m).update(terminationGracePeriod="Never"), "does not match"),
    ("consolidateAfter with a space",
     {"disruption": {"consolidateAfter": "5 m"}}, "pools[0].disruption.consolidateAfter", "not a Karpenter duration",
     "NodePool", lambda m: m["spec"]["disruption"].update(consolidateAfter="5 m"), "does not match"),
    ("the v1beta1 consolidation policy name",
     {"disruption": {"consolidationPolicy": "WhenUnderutilized"}}, "pools[0].disruption.consolidationPolicy",
     "Karpenter v1 calls it WhenEmptyOrUnderutilized",
     "NodePool", lambda m: m["spec"]["disruption"].update(consolidationPolicy="WhenUnderutilized"), "is not one of"),
    ("a budget schedule without a duration",
     {"disruption": {"budgets": [{"nodes": "0", "schedule": "@daily"}]}}, "pools[0].disruption.budgets[0]",
     "set schedule and duration together",
     "NodePool", lambda m: m["spec"]["disruption"].update(budgets=[{"nodes": "0", "schedule": "@daily"}]),
     "'schedule' must be set with 'duration'"),
    ("a budget of 110% of the nodes",
     {"disruption": {"budgets": [{"nodes": "110%"}]}}, "pools[0].disruption.budgets[0].nodes", "percentage from 0%",
     "NodePool", lambda m: m["spec"]["disruption"].update(budgets=[{"nodes": "110%"}]), "does not match"),
    ("a budget duration in seconds",
     {"disruption": {"budgets": [{"nodes": "0", "schedule": "@daily", "duration": "90s"}]}},
     "pools[0].disruption.budgets[0].duration", "cron has no seconds",
     "NodePool", lambda m: m["spec"]["disruption"].update(
         budgets=[{"nodes": "0", "schedule": "@daily", "duration": "90s"}]), "does not match"),
    ("a budget reason that does not exist",
     {"disruption": {"budgets": [{"nodes": "1", "reasons": ["Expired"]}]}},
     "pools[0].disruption.budgets[0].reasons", "are not disruption reasons",
     "NodePool", lambda m: m["spec"]["disruption"].update(budgets=[{"nodes": "1", "reasons": ["Expired"]}]),
     "is not one of"),
    ("more than 50 budgets",
     {"disruption": {"budgets": [{"nodes": "1"}] * 51}}, "pools[0].disruption.budgets", "at most 50",
     "NodePool", lambda m: m["spec"]["disruption"].update(budgets=[{"nodes": "1"}] * 51), "is too long"),
    ("a limit that is not a quantity",
     {"limits": {"nvidia.com/gpu": 32, "memory": "lots"}}, "pools[0].limits", "is not a Kubernetes quantity",
     "NodePool", lambda m: m["spec"]["limits"].update(memory="lots"), "does not match"),
    ("an empty nodeClassRef name",
     {"nodeClass": None, "nodeClassRef": {"name": ""}}, "pools[0].nodeClassRef.name", "not a Kubernetes object name",
     "NodePool", lambda m: _tspec(m)["nodeClassRef"].update(name=""), "name may not be empty"),
    ("an AMI alias without a version",
     {"nodeClass": {"amiAlias": "al2023"}}, "pools[0].nodeClass.amiAlias", "must be family@version",
     "EC2NodeClass", lambda m: m["spec"].update(amiSelectorTerms=[{"alias": "al2023"}]),
     "'alias' is improperly formatted"),
    ("an AMI alias of an unknown family",
     {"nodeClass": {"amiAlias": "ubuntu@latest"}}, "pools[0].nodeClass.amiAlias", "has no NVIDIA AMI",
     "EC2NodeClass", lambda m: m["spec"].update(amiSelectorTerms=[{"alias": "ubuntu@latest"}]),
     "family is not supported"),
    ("an AMI alias longer than 30 characters",
     {"nodeClass": {"amiAlias": "al2023@v20250505-with-a-long-suffix"}}, "pools[0].nodeClass.amiAlias",
     "at most 30",
     "EC2NodeClass", lambda m: m["spec"].update(amiSelectorTerms=[{"alias": "al2023@v20250505-with-a-long-suffix"}]),
     "is too long"),
    ("an empty node role",
     {"nodeClass": {"role": ""}}, "pools[0].nodeClass.role", "is not an IAM role name",
     "EC2NodeClass", lambda m: m["spec"].update(role=""), "role cannot be empty"),
    ("an EC2 tag that EKS reserves",
     {"nodeClass": {"tags": {"kubernetes.io/cluster/ml-prod": "owned"}}}, "pools[0].nodeClass.tags",
     "is set by EKS or Karpenter",
     "EC2NodeClass", lambda m: m["spec"]["tags"].update({"kubernetes.io/cluster/ml-prod": "owned"}),
     "tag contains a restricted tag matching kubernetes.io/cluster/"),
    ("an EC2 tag that Karpenter reserves",
     {"nodeClass": {"tags": {"karpenter.sh/nodeclaim": "x"}}}, "pools[0].nodeClass.tags", "is set by EKS or Karpenter",
     "EC2NodeClass", lambda m: m["spec"]["tags"].update({"karpenter.sh/nodeclaim": "x"}),
     "tag contains a restricted tag matching karpenter.sh/nodeclaim"),
    ("a subnet selector tag with an empty value",
     {"nodeClass": {"subnetSelectorTags": {"karpenter.sh/discovery": ""}}}, "pools[0].nodeClass.subnetSelectorTags",
     "has an empty key or value",
     "EC2NodeClass", lambda m: m["spec"].update(subnetSelectorTerms=[{"tags": {"karpenter.sh/discovery": ""}}]),
     "empty tag keys or values aren't supported"),
    ("more than 20 security group selector tags",
     {"nodeClass": {"securityGroupSelectorTags": {f"t{i}": "v" for i in range(21)}}},
     "pools[0].nodeClass.securityGroupSelectorTags", "at most 20",
     "EC2NodeClass", lambda m: m["spec"].update(securityGroupSelectorTerms=[{"tags": {f"t{i}": "v" for i in range(21)}}]),
     "has too many properties"),
    ("an image GC high threshold not above the low one",
     {"nodeClass": {"kubelet": {"imageGCHighThresholdPercent": 50, "imageGCLowThresholdPercent": 60}}},
     "pools[0].nodeClass.kubelet.imageGCHighThresholdPercent", "imageGCHighThresholdPercent 50 is not above",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"imageGCHighThresholdPercent": 50, "imageGCLowThresholdPercent": 60}),
     "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"),
    ("an evictionSoft threshold without a grace period",
     {"nodeClass": {"kubelet": {"evictionSoft": {"memory.available": "10%"}}}},
     "pools[0].nodeClass.kubelet.evictionSoft['memory.available']", "has no evictionSoftGracePeriod['memory.available']",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"evictionSoft": {"memory.available": "10%"}}),
     "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod"),
    ("an evictionSoftGracePeriod without a soft threshold",
     {"nodeClass": {"kubelet": {"evictionSoft": {"memory.available": "10%"},
                                "evictionSoftGracePeriod": {"memory.available": "1m", "nodefs.available": "1m"}}}},
     "pools[0].nodeClass.kubelet.evictionSoftGracePeriod['nodefs.available']", "has no evictionSoft['nodefs.available']",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={
         "evictionSoft": {"memory.available": "10%"},
         "evictionSoftGracePeriod": {"memory.available": "1m", "nodefs.available": "1m"}}),
     "evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft"),
    ("an evictionHard key that is no eviction signal",
     {"nodeClass": {"kubelet": {"evictionHard": {"memory.avail": "10%"}}}},
     "pools[0].nodeClass.kubelet.evictionHard['memory.avail']", "did you mean memory.available?",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"evictionHard": {"memory.avail": "10%"}}),
     "valid keys for evictionHard are"),
    ("an evictionSoft key that is no eviction signal",
     {"nodeClass": {"kubelet": {"evictionSoft": {"gpu.available": "10%"}, "evictionSoftGracePeriod": {"gpu.available": "1m"}}}},
     "pools[0].nodeClass.kubelet.evictionSoft['gpu.available']", "is not an eviction signal evictionSoft takes",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"evictionSoft": {"gpu.available": "10%"},
                                                         "evictionSoftGracePeriod": {"gpu.available": "1m"}}),
     "valid keys for evictionSoft are"),
    ("an evictionSoftGracePeriod key that is no eviction signal",
     {"nodeClass": {"kubelet": {"evictionSoft": {"gpu.available": "10%"}, "evictionSoftGracePeriod": {"gpu.available": "1m"}}}},
     "pools[0].nodeClass.kubelet.evictionSoftGracePeriod['gpu.available']",
     "is not an eviction signal evictionSoftGracePeriod takes",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"evictionSoft": {"gpu.available": "10%"},
                                                         "evictionSoftGracePeriod": {"gpu.available": "1m"}}),
     "valid keys for evictionSoftGracePeriod are"),
    ("an evictionHard value that is neither a percentage nor a quantity",
     {"nodeClass": {"kubelet": {"evictionHard": {"memory.available": "10 percent"}}}},
     "pools[0].nodeClass.kubelet.evictionHard['memory.available']", "is neither a percentage nor a quantity",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"evictionHard": {"memory.available": "10 percent"}}),
     "does not match"),
    ("an evictionSoft percentage above 100",
     {"nodeClass": {"kubelet": {"evictionSoft": {"nodefs.available": "150%"},
                                "evictionSoftGracePeriod": {"nodefs.available": "1m"}}}},
     "pools[0].nodeClass.kubelet.evictionSoft['nodefs.available']", "is neither a percentage nor a quantity",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"evictionSoft": {"nodefs.available": "150%"},
                                                         "evictionSoftGracePeriod": {"nodefs.available": "1m"}}),
     "does not match"),
    ("a kubeReserved resource the CRD does not list",
     {"nodeClass": {"kubelet": {"kubeReserved": {"nvidia.com/gpu": "1"}}}},
     "pools[0].nodeClass.kubelet.kubeReserved['nvidia.com/gpu']", "is not a resource kubeReserved takes",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"kubeReserved": {"nvidia.com/gpu": "1"}}),
     "valid keys for kubeReserved are"),
    ("a systemReserved resource the CRD does not list",
     {"nodeClass": {"kubelet": {"systemReserved": {"storage": "1Gi"}}}},
     "pools[0].nodeClass.kubelet.systemReserved.storage", "is not a resource systemReserved takes",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"systemReserved": {"storage": "1Gi"}}),
     "valid keys for systemReserved are"),
    ("a kubeReserved value that is not a quantity",
     {"nodeClass": {"kubelet": {"kubeReserved": {"memory": "1 GB"}}}},
     "pools[0].nodeClass.kubelet.kubeReserved.memory", "is not a Kubernetes quantity",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"kubeReserved": {"memory": "1 GB"}}), "does not match"),
    ("a negative kubeReserved value",
     {"nodeClass": {"kubelet": {"kubeReserved": {"cpu": "-500m"}}}},
     "pools[0].nodeClass.kubelet.kubeReserved.cpu", "'-500m' is negative",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"kubeReserved": {"cpu": "-500m"}}),
     "kubeReserved value cannot be a negative resource quantity"),
    ("a negative systemReserved value",
     {"nodeClass": {"kubelet": {"systemReserved": {"memory": "-1Gi"}}}},
     "pools[0].nodeClass.kubelet.systemReserved.memory", "'-1Gi' is negative",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"systemReserved": {"memory": "-1Gi"}}),
     "systemReserved value cannot be a negative resource quantity"),
    ("a negative maxPods",
     {"nodeClass": {"kubelet": {"maxPods": -1}}}, "pools[0].nodeClass.kubelet.maxPods", "maxPods -1 is outside 0..2147483647",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"maxPods": -1}), "less than the minimum of 0"),
    ("an image GC threshold above 100",
     {"nodeClass": {"kubelet": {"imageGCLowThresholdPercent": 101}}},
     "pools[0].nodeClass.kubelet.imageGCLowThresholdPercent", "imageGCLowThresholdPercent 101 is outside 0..100",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"imageGCLowThresholdPercent": 101}),
     "greater than the maximum of 100"),
    ("a maxPods given as a string",
     {"nodeClass": {"kubelet": {"maxPods": "110"}}}, "pools[0].nodeClass.kubelet.maxPods", "must be a whole number, unquoted (write 110)",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"maxPods": "110"}), "is not of type 'integer'"),
    ("cpuCFSQuota given as a string",
     {"nodeClass": {"kubelet": {"cpuCFSQuota": "false"}}}, "pools[0].nodeClass.kubelet.cpuCFSQuota", "must be a valid boolean",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"cpuCFSQuota": "false"}), "is not of type 'boolean'"),
    # Refused only by Karpenter's Go validation, or by our stricter rules: the CRD lets them in.
    ("a maxPods beyond int32 (the CRD's format: int32; Karpenter's Go type is an *int32)",
     {"nodeClass": {"kubelet": {"maxPods": 2**40}}}, "pools[0].nodeClass.kubelet.maxPods",
     "maxPods 1099511627776 is outside 0..2147483647",
     "EC2NodeClass", lambda m: m["spec"].update(kubelet={"maxPods": 2**40}), None),
    ("the same key and effect in taints and startupTaints",
     {"startupTaints": ["nvidia.com/gpu=booting:NoSchedule"]}, "pools[0].startupTaints",
     "Karpenter rejects a key+effect in both lists (duplicate taint Key/Effect pair)",
     "NodePool", lambda m: _tspec(m)["startupTaints"].append(
         {"key": "nvidia.com/gpu", "value": "booting", "effect": "NoSchedule"}), None),
    ("a requirement value longer than 63 characters (the CRD puts maxLength on the list, not its items)",
     {"requirements": [{"key": "example.com/x", "operator": "In", "values": ["a" * 64]}]},
     "pools[0].requirements[0]", "at most 63",
     "NodePool", _add_req({"key": "example.com/x", "operator": "In", "values": ["a" * 64]}), None),
    ("values with the Exists operator (the CRD only says so in its description)",
     {"requirements": [{"key": "example.com/x", "operator": "Exists", "values": ["a"]}]},
     "pools[0].requirements[0]", "operator Exists takes no values",
     "NodePool", _add_req({"key": "example.com/x", "operator": "Exists", "values": ["a"]}), None),
    ("the karpenter.k8s.aws/ec2nodeclass label (the CEL rule lets it in; Karpenter's IsRestrictedLabel does not)",
     {"labels": {"karpenter.k8s.aws/ec2nodeclass": "other"}}, "pools[0].labels['karpenter.k8s.aws/ec2nodeclass']",
     "Karpenter's runtime validation refuses it",
     "NodePool", lambda m: _labels(m).update({"karpenter.k8s.aws/ec2nodeclass": "other"}), None),
    ("a requirement on karpenter.k8s.aws/ec2nodeclass (refused by IsRestrictedLabel, not by the CRD)",
     {"requirements": [{"key": "karpenter.k8s.aws/ec2nodeclass", "operator": "In", "values": ["other"]}]},
     "pools[0].requirements[0]", "key 'karpenter.k8s.aws/ec2nodeclass' is set by Karpenter",
     "NodePool", _add_req({"key": "karpenter.k8s.aws/ec2nodeclass", "operator": "In", "values": ["other"]}), None),
    ("a GPU pool without a GPU limit (our rule: GPUs must be capped)",
     {"limits": {"cpu": 1000}}, "pools[0].limits", "missing nvidia.com/gpu",
     "NodePool", lambda m: m["spec"].update(limits={"cpu": 1000}), None),
]


@pytest.mark.parametrize(
    ("changes", "path", "fragment"),
    [pytest.param(c[1], c[2], c[3], id=c[0]) for c in CASES],
)
def test_config_validation_refuses_with_our_message_and_path(changes, path, fragment):
    raw = {k: v for k, v in good_pool(**changes).items() if v is not None}
    with pytest.raises(ConfigError) as err:
        stack_of(raw)
    issues = [(i.path, i.message) for i in err.value.issues]
    assert any(p == path and fragment in m for p, m in issues), issues


KUBELET_SIGNALS = ("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available",
                   "imagefs.inodesFree", "pid.available")


@pytest.fixture(scope="module")
def good_kubelet_node_class() -> dict[str, Any]:
    """The known-good pool's EC2NodeClass, for a kubelet to be put in."""
    stack = stack_of(good_pool())
    return karpenter_render.ec2nodeclass_manifest(stack.pools[0], stack.cluster)


@pytest.fixture(scope="module")
def good_objects() -> dict[str, dict[str, Any]]:
    """The known-good pool's NodePool and EC2NodeClass, checked once against the CRD."""
    stack = stack_of(good_pool())
    objects = {o["kind"]: o for o in manifests(stack.pools[0], stack.cluster)}
    for obj in objects.values():
        assert crd_errors(obj) == [], obj["kind"]
    return objects


@pytest.mark.parametrize(
    ("kind", "mutate", "crd_message"),
    [pytest.param(c[4], c[5], c[6], id=c[0]) for c in CASES],
)
def test_the_same_input_is_refused_by_karpenters_own_crd(good_objects, kind, mutate, crd_message):
    bad = copy.deepcopy(good_objects[kind])
    mutate(bad)
    errors = crd_errors(bad)
    if crd_message is None:
        # Only Karpenter's Go validation (or our own rule) refuses this; the CRD accepts it,
        # which is why config validation must catch it.
        assert errors == [], errors
    else:
        assert any(crd_message in e for e in errors), errors


def test_every_karpenter_label_rule_of_the_crd_has_a_negative_case():
    crd = load_crds()["NodePool"]
    label_rules = crd.schema["properties"]["spec"]["properties"]["template"]["properties"]["metadata"][
        "properties"]["labels"]["x-kubernetes-validations"]
    covered = {c[6] for c in CASES}
    for rule in label_rules:
        assert rule["message"] in covered, rule["message"]


@pytest.mark.parametrize("key", ["foo.kubernetes.io/x", "bar.k8s.io/x", "node.kubernetes.io/role", "kops.k8s.io/x"])
def test_labels_in_the_kubernetes_io_and_k8s_io_domains_are_karpenters_to_accept(key, good_objects):
    # kubernetes-sigs/karpenter v1.10.0 (37f5de7a) dropped kubernetes.io and k8s.io from RestrictedLabelDomains and
    # from the NodePool CEL rules; the pinned v1.14.1 accepts them and applies them to the Node itself (the AWS
    # provider keeps them out of the kubelet's --node-labels: RejectForbiddenLabels). Refusing them would be ours alone.
    stack_of(good_pool(labels={key: "x"}))
    np = copy.deepcopy(good_objects["NodePool"])
    _labels(np)[key] = "x"
    assert crd_errors(np) == []


def _kubelet_schema() -> dict[str, Any]:
    return load_crds()["EC2NodeClass"].schema["properties"]["spec"]["properties"]["kubelet"]


def test_every_kubelet_rule_of_the_crd_has_a_negative_case():
    kubelet = _kubelet_schema()
    rules = [r["message"] for r in kubelet["x-kubernetes-validations"]]
    rules += [r["message"] for field in kubelet["properties"].values() for r in field.get("x-kubernetes-validations", ())]
    covered = [c[6] for c in CASES if c[6]]
    for message in rules:
        assert any(message.startswith(c) for c in covered), message


def test_the_kubelet_rules_mirrored_in_code_are_the_crds():
    # The product cannot read tests/data at run time: limits.py mirrors spec.kubelet, checked here against the CRD.
    from gpu_node_pool.backends.karpenter import limits

    fields = _kubelet_schema()["properties"]

    def listed(field: str) -> list[str]:
        (rule,) = [r["rule"] for r in fields[field]["x-kubernetes-validations"] if "valid keys" in r["message"]]
        return re.findall(r"'([^']+)'", rule)

    for field in ("evictionHard", "evictionSoft", "evictionSoftGracePeriod"):
        assert listed(field) == list(limits.KARPENTER_EVICTION_SIGNALS), field
    for field in ("kubeReserved", "systemReserved"):
        assert listed(field) == list(limits.KARPENTER_RESERVED_RESOURCES), field
        assert fields[field]["additionalProperties"]["pattern"] == limits.KARPENTER_RESERVED_VALUE_RE.pattern
    for field in ("evictionHard", "evictionSoft"):
        assert fields[field]["additionalProperties"]["pattern"] == limits.KARPENTER_EVICTION_VALUE_RE.pattern
    assert "pattern" not in fields["evictionSoftGracePeriod"]["additionalProperties"]
    integers = {name: f for name, f in fields.items() if f["type"] == "integer"}
    assert set(integers) == set(limits.KARPENTER_KUBELET_INTS)
    for name, field in integers.items():
        assert field["format"] == "int32", name
        low, high = limits.KARPENTER_KUBELET_INTS[name]
        assert (field.get("minimum", -(2**31)), field.get("maximum", 2**31 - 1)) == (low, high), name
    # every field of the CRD's kubelet is a key of the model, and no other
    from gpu_node_pool.backends.karpenter.node_class_extras import KarpenterKubelet

    assert {f.alias for f in KarpenterKubelet.model_fields.values()} == set(fields)


_SIGNAL = st.sampled_from([*KUBELET_SIGNALS, "memory.avail", "gpu.available"])
_EVICTION_VALUE = st.sampled_from(["10%", "5.5%", "100%", "100.00%", "150%", "1.234%", "500Mi", "1Gi", "", "-1", "lots",
                                   "10 %", "1e3"])
_RESERVED = st.dictionaries(st.sampled_from(["cpu", "memory", "ephemeral-storage", "pid", "gpu", "nvidia.com/gpu"]),
                            st.sampled_from(["500m", "1Gi", "-1", "+2", "0", "1 GB", ".5", "1e3", "1.5Ki"]), max_size=3)
_KUBELET = st.fixed_dictionaries({}, optional={
    "maxPods": st.integers(-2, 300),
    "podsPerCore": st.integers(-2, 20),
    "evictionMaxPodGracePeriod": st.integers(-60, 600),
    "imageGCHighThresholdPercent": st.integers(-1, 101),
    "imageGCLowThresholdPercent": st.integers(-1, 101),
    "evictionHard": st.dictionaries(_SIGNAL, _EVICTION_VALUE, max_size=3),
    "evictionSoft": st.dictionaries(_SIGNAL, _EVICTION_VALUE, max_size=3),
    "evictionSoftGracePeriod": st.dictionaries(_SIGNAL, st.sampled_from(["1m", "30s", "1m30s"]), max_size=3),
    "kubeReserved": _RESERVED,
    "systemReserved": _RESERVED,
    "cpuCFSQuota": st.booleans(),
    "clusterDNS": st.lists(st.sampled_from(["10.100.0.10", "169.254.20.10"]), max_size=2),
})


@settings(max_examples=150, deadline=None)
@given(kubelet=_KUBELET)
def test_config_validation_accepts_a_kubelet_exactly_when_the_crd_does(kubelet, good_kubelet_node_class):
    bad = copy.deepcopy(good_kubelet_node_class)
    bad["spec"]["kubelet"] = kubelet
    crd = crd_errors(bad)
    try:
        stack = stack_of(good_pool(nodeClass={"kubelet": kubelet}))
    except ConfigError as err:
        assert crd, ("we refuse what the CRD accepts", kubelet, [str(i) for i in err.issues])
        assert all(i.path.startswith("pools[0].nodeClass.kubelet") for i in err.issues), err.issues
    else:
        assert not crd, ("we accept what the CRD refuses", kubelet, crd)
        rendered = karpenter_render.ec2nodeclass_manifest(stack.pools[0], stack.cluster)["spec"]["kubelet"]
        assert rendered == kubelet


def test_a_role_arn_is_refused_with_the_role_name_to_use():
    with pytest.raises(ConfigError) as err:
        stack_of(good_pool(nodeClass={"role": "arn:aws:iam::444455556666:role/KarpenterNodeRole-ml-prod"}))
    assert "give the name, e.g. 'KarpenterNodeRole-ml-prod'" in str(err.value)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"instanceFamilies": None}, "set exactly one of instanceFamilies"),
        ({"instanceTypes": ["g6e.xlarge"]}, "set exactly one of instanceFamilies"),
        ({"nodeClass": None}, "set exactly one of nodeClassRef"),
        ({"instanceFamilies": ["inf2"]}, "AWS Inferentia2 chips, not NVIDIA GPUs"),
        ({"instanceFamilies": ["g6e.xlarge"]}, "is an instance type; put it in instanceTypes"),
        ({"instanceFamilies": ["g5g"]}, "are arm64 but architecture is amd64"),
        ({"capacityTypes": ["ON_DEMAND"]}, "'ON_DEMAND' is not a capacity type"),
        ({"architecture": "x86_64"}, "Kubernetes spells x86_64 amd64"),
        ({"gpuNames": ["L40S"]}, "write 'l40s'"),
        ({"labels": {"karpenter.sh/capacity-type": "spot"}}, "is written by capacityTypes"),
        ({"requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]},
         "is written by architecture"),
        ({"limits": {"nvidia.com/gpu": "1.5"}}, "must be a whole number of GPUs"),
    ],
)
def test_karpenter_pools_refuse_ambiguous_or_unbounded_gpu_capacity(changes, fragment):
    raw = {k: v for k, v in good_pool(**changes).items() if v is not None}
    with pytest.raises(ConfigError) as err:
        stack_of(raw)
    assert fragment in str(err.value)


def test_two_pools_cannot_create_the_same_node_class():
    with pytest.raises(ConfigError) as err:
        stack_of(good_pool(), good_pool(name="other", nodeClass={"name": "burst"}))
    assert "pools[1].nodeClass.name: EC2NodeClass 'burst' is already created by pools[0]" in str(err.value)


def test_a_created_node_class_needs_a_role():
    with pytest.raises(ConfigError) as err:
        validate_stack_config({"cluster": {"name": "ml-prod"}, "pools": [good_pool()]})
    assert "pools[0].nodeClass.role: missing" in str(err.value)


# --- acceptance through the CLI ------------------------------------------------------------

KUBELET_STACK = """config:
  gpu-node-pools:cluster:
    name: ml-prod
    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
  gpu-node-pools:pools:
    - name: burst
      backend: karpenter
      instanceFamilies: [g6e]
      taints: ["nvidia.com/gpu=present:NoSchedule"]
      nodeClass:
        kubelet: %s
      limits: {nvidia.com/gpu: 32}
"""


@pytest.mark.parametrize(
    ("kubelet", "path", "words"),
    [
        pytest.param("{imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60}",
                     "pools[0].nodeClass.kubelet.imageGCHighThresholdPercent",
                     ["50 is not above imageGCLowThresholdPercent 60", "must be greater than", "ec2nodeclasses.yaml",
                      "v1.14.1", "raise the high threshold"], id="image GC thresholds"),
        pytest.param("{evictionSoft: {memory.available: 10%}}", "pools[0].nodeClass.kubelet.evictionSoft['memory.available']",
                     ["has no evictionSoftGracePeriod['memory.available']", "OwnerKey does not have a matching",
                      "ec2nodeclasses.yaml", "add evictionSoftGracePeriod"], id="evictionSoft without a grace period"),
        pytest.param("{evictionHard: {memory.avail: 10%}}", "pools[0].nodeClass.kubelet.evictionHard['memory.avail']",
                     ["'memory.avail' is not an eviction signal", "valid keys for evictionHard", "did you mean memory.available?"],
                     id="an unknown eviction signal"),
        pytest.param("{kubeReserved: {nvidia.com/gpu: '1'}}", "pools[0].nodeClass.kubelet.kubeReserved['nvidia.com/gpu']",
                     ["is not a resource kubeReserved takes", "cpu, memory, ephemeral-storage, pid"], id="an unknown reserved resource"),
        pytest.param("{maxPods: 4294967296}", "pools[0].nodeClass.kubelet.maxPods",
                     ["maxPods 4294967296 is outside 0..2147483647", "an int32", "write a number in that range"],
                     id="maxPods beyond int32"),
    ],
)
def test_gpupool_validate_refuses_a_kubelet_the_ec2nodeclass_crd_refuses(capsys, temp_project, kubelet, path, words):
    from gpu_node_pool.cli.commands import main

    project = temp_project("bad", KUBELET_STACK % kubelet)
    code = main(["validate", "--stack", "bad", "--project-dir", str(project)])
    err = capsys.readouterr().err
    assert code == 2, err
    (line,) = [x for x in err.splitlines() if f": {path}: " in x]
    assert all(w in line for w in words), line


BAD_STACK = """config:
  gpu-node-pools:cluster:
    name: ml-prod
    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
  gpu-node-pools:pools:
    - name: burst
      backend: karpenter
      instanceFamilies: [g6e, g6]
      capacityTypes: [spot, on-demand]
      taints: ["nvidia.com/gpu=present:NoSchedule"]
      startupTaints: [%s]
      labels: {%s}
      nodeClass: {}
      limits: {nvidia.com/gpu: 32}
"""


@pytest.mark.parametrize(
    ("startup", "labels", "expected"),
    [
        pytest.param("", "karpenter.sh/team: x", "pools[0].labels['karpenter.sh/team']: 'karpenter.sh/team' is in the karpenter.sh domain",
                     id="a karpenter.sh label"),
        pytest.param("", "karpenter.k8s.aws/ec2nodeclass: other",
                     "pools[0].labels['karpenter.k8s.aws/ec2nodeclass']: 'karpenter.k8s.aws/ec2nodeclass' is set by Karpenter "
                     "to the EC2NodeClass name", id="the ec2nodeclass label Karpenter's runtime validation refuses"),
        pytest.param("nvidia.com/gpu=booting:NoSchedule", "", "pools[0].startupTaints: startupTaints[0] "
                     "(nvidia.com/gpu=booting:NoSchedule) has the same key and effect as taints[0]",
                     id="the same key and effect in taints and startupTaints"),
    ],
)
def test_gpupool_plan_exits_2_with_a_readable_message(capsys, tmp_path, startup, labels, expected):
    from gpu_node_pool.cli.commands import main

    for name in ("Pulumi.yaml", "__main__.py"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.bad.yaml").write_text(BAD_STACK % (startup, labels))
    code = main(["plan", "--stack", "bad", "--project-dir", str(tmp_path)])
    out = capsys.readouterr().err  # a config error is on stderr
    assert code == 2, out
    assert "1 error in Pulumi.bad.yaml; no resource was registered:" in out
    assert expected in out
    assert "Traceback" not in out


# --- EC2NodeClass pass-through fields ------------------------------------------------------------


def _extras_stack(**node_class):
    from conftest import base

    cfg = base()
    cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceTypes": ["g6e.12xlarge"],
                     "taints": ["nvidia.com/gpu=present:NoSchedule"], "limits": {"nvidia.com/gpu": 16},
                     "nodeClass": node_class}]
    return cfg


def test_node_class_pass_through_fields_render_as_given_and_pass_the_crd():
    from karpenter_crd import crd_errors

    from gpu_node_pool.backends.karpenter.render import ec2nodeclass_manifest

    cfg = _extras_stack(
        blockDeviceMappings=[{"deviceName": "/dev/xvda", "rootVolume": True,
                              "ebs": {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True}}],
        kubelet={"maxPods": 110, "systemReserved": {"cpu": "500m", "memory": "1Gi"}},
        instanceStorePolicy="RAID0",
        userData="#!/bin/bash\necho warming model cache\n",
    )
    stack = validate_stack_config(cfg)
    manifest = ec2nodeclass_manifest(stack.pools[0], stack.cluster)
    spec = manifest["spec"]
    assert spec["blockDeviceMappings"] == [{"deviceName": "/dev/xvda", "rootVolume": True,
                                            "ebs": {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True}}]
    assert spec["kubelet"] == {"maxPods": 110, "systemReserved": {"cpu": "500m", "memory": "1Gi"}}
    assert spec["instanceStorePolicy"] == "RAID0" and spec["userData"].startswith("#!/bin/bash")
    assert crd_errors(manifest) == []


@pytest.mark.parametrize(
    ("user_data", "needle"),
    [
        ("#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--register-with-taints=a=b:NoSchedule'\n",
         "--register-with-taints without the NodePool's taints nvidia.com/gpu=present:NoSchedule: a kubelet flag"),
        ("#!/bin/bash\nsed -i 's/ARGS=/ARGS=--register-with-taints=$T /' /etc/kubelet.env\n", "cannot parse (not judged)"),
    ],
    ids=["bootstrap-flag-without-the-pool-taint", "sed-script"],
)
def test_user_data_whose_taints_cannot_be_merged_or_read_is_refused_naming_the_path(user_data, needle):
    # merged taints are in tests/backends/karpenter/test_user_data_merge.py; these two cannot be merged or judged
    ((path, message),) = config_issues(_extras_stack(userData=user_data))
    assert path.startswith("pools[0].nodeClass") and "nodeClass.userData" in message and needle in message


def test_bad_pass_through_values_are_refused_with_the_crd_rule():
    issues = dict(config_issues(_extras_stack(blockDeviceMappings=[{"ebs": {"volumeSize": "100GB"}}])))
    assert "100GB" in issues["pools[0].nodeClass.blockDeviceMappings[0].ebs.volumeSize"]
    issues = dict(config_issues(_extras_stack(instanceStorePolicy="RAID1")))
    assert "pools[0].nodeClass.instanceStorePolicy" in issues


def test_user_data_with_control_bytes_is_refused():
    ((path, message),) = config_issues(_extras_stack(userData="\x00\x01 not yaml: ["))
    assert path == "pools[0].nodeClass.userData" and "control character" in message


@pytest.mark.parametrize("field", ["registerWithTaints", "nodeLabels", "taints"])
def test_kubelet_pass_through_has_no_taint_or_label_field_a_policy_would_miss(field):
    # EC2NodeClass spec.kubelet has no taint or label settings (Karpenter v1 CRD); one written there
    # is refused, never rendered where no NodePool, tag or policy would see it.
    issues = dict(config_issues(_extras_stack(kubelet={field: [{"key": "team", "value": "ml", "effect": "NoSchedule"}]})))
    assert any(path.startswith("pools[0].nodeClass.kubelet") for path in issues), issues
