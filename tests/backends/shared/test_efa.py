"""EFA and placement for multi-node training on eks-managed, self-managed and Karpenter pools.

Each test names the public rule it implements (EKS user guide node-efa and launch-templates,
terraform-aws-eks's EFA pattern, EC2 placement groups and EFA security groups); rendered inputs are
asserted as the Pulumi mocks record them.
"""

from __future__ import annotations

from builders import config_error_text
from conftest import base

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.config import stack_warnings, validate_stack_config
from gpu_node_pool.plan import record

SG = "sg-0a1b2c3d4e5f60718"
EFA = {"enabled": True, "securityGroupIds": [SG]}
LT = "aws:ec2/launchTemplate:LaunchTemplate"
PG = "aws:ec2/placementGroup:PlacementGroup"
ING = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGR = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
NG = "aws:eks/nodeGroup:NodeGroup"
ASG = "aws:autoscaling/group:Group"


def declare(cfg: dict) -> dict:
    """Register the pools under Pulumi mocks: ``{type: [inputs, ...]}``."""

    def program():
        s = validate_stack_config(cfg)
        for p in s.pools:
            GpuNodePool(p.name, GpuNodePoolArgs(pool=p, cluster=s.cluster))

    resources, _ = record(program)
    out: dict[str, list[dict]] = {}
    for r in resources:
        out.setdefault(r.type, []).append(r.inputs)
    return out


def eks(**kw) -> dict:
    cfg = base()
    cfg["pools"][0] |= {"instanceTypes": ["p5.48xlarge"], "efa": EFA} | kw
    return cfg


def self_managed(**kw) -> dict:
    cfg = base()
    cfg["cluster"] |= {"apiServerEndpoint": "https://10.0.0.10", "serviceCidr": "10.100.0.0/16", "kubernetesVersion": "1.33",
                       "certificateAuthority": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}
    cfg["pools"] = [{"name": "train", "backend": "self-managed", "format": "al2023", "instanceTypes": ["p4d.24xlarge"],
                     "scaling": {"minSize": 0, "maxSize": 2}, "securityGroupIds": [SG], "efa": {"enabled": True}} | kw]
    return cfg


def test_eks_managed_efa_renders_one_efa_interface_per_network_card_of_p5_48xlarge():
    # p5.48xlarge: 32 EFA; terraform-aws-eks pattern (card i, device 0 on card 0 else 1, type efa)
    res = declare(eks())
    (lt,) = res[LT]
    nics = lt["networkInterfaces"]
    assert len(nics) == 32
    assert [n["networkCardIndex"] for n in nics] == list(range(32))
    assert nics[0]["deviceIndex"] == 0 and {n["deviceIndex"] for n in nics[1:]} == {1}
    assert {n["interfaceType"] for n in nics} == {"efa"}
    assert all(n["securityGroups"] == [SG] and n["deleteOnTermination"] == "true" for n in nics)
    assert "vpcSecurityGroupIds" not in lt and all("subnetId" not in n for n in nics)  # EKS launch-templates


def test_eks_managed_efa_pool_gets_a_cluster_placement_group_in_its_launch_template():
    # terraform-aws-eks: EFA node groups get a cluster placement group
    res = declare(eks())
    (pg,) = res[PG]
    assert pg["strategy"] == "cluster"
    (lt,) = res[LT]
    assert "groupName" in lt["placement"]
    (ng,) = res[NG]
    assert "launchTemplate" in ng and ng["instanceTypes"] == ["p5.48xlarge"]


def test_efa_adds_self_referencing_all_traffic_rules_on_the_named_group():
    # EC2 efa-start: ingress + egress, all protocols, self
    res = declare(eks())
    for kind in (ING, EGR):
        (rule,) = res[kind]
        assert rule["securityGroupId"] == SG and rule["referencedSecurityGroupId"] == SG
        assert rule["ipProtocol"] == "-1"
    res = declare(eks(efa=EFA | {"addSelfRules": False}))  # the group has both rules already
    assert ING not in res and EGR not in res


def test_efa_on_the_eks_cluster_security_group_adds_only_the_egress_rule():
    # EKS sec-group-reqs: the cluster security group allows all inbound traffic from itself; EC2 refuses a duplicate
    cfg = eks()
    warned = [(w.path, w.message) for w in stack_warnings(validate_stack_config(cfg))]
    assert any(p == "pools[0].efa.addSelfRules" and "cluster.clusterSecurityGroupId" in m and "sec-group-reqs" in m
               for p, m in warned)
    cfg["cluster"]["clusterSecurityGroupId"] = SG
    assert not any("addSelfRules" in w.path for w in stack_warnings(validate_stack_config(cfg)))
    res = declare(cfg)
    assert ING not in res
    (egress,) = res[EGR]
    assert egress["securityGroupId"] == SG and egress["referencedSecurityGroupId"] == SG
    # another first group still gets both rules
    cfg["cluster"]["clusterSecurityGroupId"] = "sg-0ffffffffffffffff"
    res = declare(cfg)
    assert len(res[ING]) == 1 and len(res[EGR]) == 1


def test_eks_managed_efa_requires_the_security_groups_of_the_interfaces():
    # EKS launch-templates: groups go on the interfaces; which one EKS adds there is undocumented
    msg = config_error_text(eks(efa={"enabled": True}))
    assert "pools[0]" in msg and "efa.securityGroupIds: required on eks-managed" in msg


def test_efa_refused_on_a_type_without_efa():
    # g6.xlarge (smaller g6: 0), g6f.* 0
    msg = config_error_text(eks(instanceTypes=["g6.xlarge"]))
    assert "'g6.xlarge' has 0 EFA interfaces" in msg and "MaximumEfaInterfaces > 0" in msg
    assert "'g6e.4xlarge' has 0 EFA interfaces" in config_error_text(self_managed(instanceTypes=["g6e.4xlarge"]))


def test_efa_refused_when_types_have_different_interface_counts():
    # p5.48xlarge 32, p5en.48xlarge 16; one EFA per network card (EKS node-efa)
    msg = config_error_text(eks(instanceTypes=["p5.48xlarge", "p5en.48xlarge"]))
    assert "different EFA interface counts" in msg and "userguide/node-efa.html" in msg


def test_efa_pool_needs_exactly_one_subnet():
    # a cluster placement group is in one AZ (EC2 placement-strategies)
    cfg = eks(subnetIds=["subnet-0a1b2c3d4e5f60718", "subnet-0b1b2c3d4e5f60718"])
    assert "pools[0].subnetIds" in config_error_text(cfg) and "placement-strategies" in config_error_text(cfg)
    sm = self_managed()
    sm["cluster"]["subnetIds"] = ["subnet-0a1b2c3d4e5f60718", "subnet-0b1b2c3d4e5f60718"]
    msg = config_error_text(sm)
    assert "pools[0].subnetIds" in msg and "(from cluster.subnetIds)" in msg and "placement-strategies" in msg


def test_self_managed_efa_moves_the_pool_groups_onto_four_p4d_interfaces_and_the_placement_group():
    # p4d.24xlarge: 4 EFA; groups on the interfaces, placement group, self rules
    res = declare(self_managed())
    (lt,) = res[LT]
    assert "vpcSecurityGroupIds" not in lt
    assert [(n["networkCardIndex"], n["deviceIndex"], n["interfaceType"]) for n in lt["networkInterfaces"]] == [
        (0, 0, "efa"), (1, 1, "efa"), (2, 1, "efa"), (3, 1, "efa")]
    assert all(n["securityGroups"] == [SG] for n in lt["networkInterfaces"])
    assert res[PG][0]["strategy"] == "cluster" and "groupName" in lt["placement"]
    assert res[ING][0]["securityGroupId"] == SG
    assert ASG in res


def test_self_managed_efa_on_provider_none_is_refused():
    cfg = self_managed()
    cfg["pools"][0] = {"name": "train", "backend": "self-managed", "format": "kubeadm", "provider": "none", "efa": {"enabled": True}}
    cfg["cluster"]["caCertHashes"] = ["sha256:" + "0" * 64]
    assert "efa: provider none creates no cloud resources" in config_error_text(cfg)


def test_pools_without_efa_render_no_interfaces_or_placement_group():
    cfg = base()
    res = declare(cfg)
    assert PG not in res and ING not in res


# --- Karpenter: EC2NodeClass networkInterfaces and placementGroupSelector ----------------------------

KEFA = {"enabled": True, "placementGroup": {"name": "ml-train-cluster"}}


def karpenter(**kw) -> dict:
    cfg = base()
    cfg["pools"] = [{"name": "train", "backend": "karpenter", "instanceTypes": ["p5.48xlarge"], "nodeClass": {},
                     "zones": ["us-east-1a"], "limits": {"nvidia.com/gpu": 64}, "efa": KEFA} | kw]
    return cfg


def node_class(cfg: dict) -> dict:
    from gpu_node_pool.backends.karpenter.render import ec2nodeclass_manifest

    stack = validate_stack_config(cfg)
    return ec2nodeclass_manifest(stack.pools[0], stack.cluster)


def test_karpenter_efa_renders_network_interfaces_and_placement_group_selector_valid_for_the_crd():
    # p5.48xlarge: 32 EFA, one per network card, card 0 included (EKS user guide device-management-efa:
    # ENA primary on card 0 device 0, efa-only on card 0 device 1, then efa-only on device 0 of each further card);
    # shapes and CEL rules of the EC2NodeClass v1 CRD
    spec = node_class(karpenter(instanceTypes=["p5.48xlarge"]))["spec"]
    nics = spec["networkInterfaces"]
    assert nics[0] == {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}
    assert nics[1] == {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"}
    efa = [n for n in nics if n["interfaceType"] == "efa-only"]
    assert len(efa) == 32 and sorted(n["networkCardIndex"] for n in efa) == list(range(32))
    assert all(n["deviceIndex"] == 0 for n in efa if n["networkCardIndex"] > 0)
    assert spec["placementGroupSelector"] == {"name": "ml-train-cluster"}
    from karpenter_crd import crd_errors

    assert crd_errors(node_class(karpenter())) == []  # openAPI schema + x-kubernetes-validations (CEL)


def test_karpenter_efa_on_g6e_48xlarge_gets_four_cards_and_the_efa_only_warning():
    # g6e.48xlarge: 4 EFA; efa-only needs VPC CNI >= 1.18.5 (EKS node-efa)
    cfg = karpenter(instanceTypes=["g6e.48xlarge"], efa={"enabled": True, "placementGroup": {"id": "pg-0123abcd"}})
    spec = node_class(cfg)["spec"]
    efa = [n["networkCardIndex"] for n in spec["networkInterfaces"] if n["interfaceType"] == "efa-only"]
    assert efa == [0, 1, 2, 3]
    assert spec["placementGroupSelector"] == {"id": "pg-0123abcd"}
    warnings = [w.message for w in stack_warnings(validate_stack_config(cfg))]
    assert any("1.18.5" in w and "userguide/node-efa.html" in w and "vpc.amazonaws.com/efa: 4 per node" in w for w in warnings)


def test_karpenter_efa_on_a_one_efa_type_still_gets_its_efa_device():
    # g6.8xlarge: one EFA interface; it goes on card 0 (device 1), so Karpenter counts 1 vpc.amazonaws.com/efa, not 0
    nics = node_class(karpenter(instanceTypes=["g6.8xlarge"]))["spec"]["networkInterfaces"]
    assert nics == [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"},
                    {"networkCardIndex": 0, "deviceIndex": 1, "interfaceType": "efa-only"}]
    from karpenter_crd import crd_errors

    assert crd_errors(node_class(karpenter(instanceTypes=["g6.8xlarge"]))) == []


def test_karpenter_efa_needs_karpenter_1_11_stated_or_warned():
    # EC2NodeClass spec.networkInterfaces came with Karpenter v1.11 (EKS user guide device-management-efa)
    cfg = karpenter()
    warnings = [(w.path, w.message) for w in stack_warnings(validate_stack_config(cfg))]
    assert any(p == "pools[0].efa" and "v1.11" in m and "cluster.karpenterVersion" in m for p, m in warnings)
    cfg["cluster"]["karpenterVersion"] = "1.10.3"
    msg = config_error_text(cfg)
    assert "pools[0].efa" in msg and "'1.10.3'" in msg and "upgrade Karpenter to v1.11" in msg
    cfg["cluster"]["karpenterVersion"] = "v1.11.0"
    stack = validate_stack_config(cfg)
    assert not any("karpenterVersion" in w.message for w in stack_warnings(stack))


def test_karpenter_efa_refused_when_the_nodepool_can_launch_types_without_efa():
    # g6e.xlarge/2xlarge/4xlarge have 0 EFA
    msg = config_error_text(karpenter(instanceTypes=None, instanceFamilies=["g6e"]))
    assert "0 or no sourced EFA interfaces" in msg and "g6e.xlarge" in msg and "MaximumEfaInterfaces" in msg


def test_karpenter_efa_refused_on_mixed_counts_without_placement_group_or_one_zone():
    # one EFA per network card; a cluster placement group in one zone
    assert "different EFA interface counts" in config_error_text(karpenter(instanceTypes=["p5.48xlarge", "p5en.48xlarge"]))
    assert "efa.placementGroup: required" in config_error_text(karpenter(efa={"enabled": True}))
    assert "one Availability Zone" in config_error_text(karpenter(zones=["us-east-1a", "us-east-1b"]))
    assert "'name' and 'id' are mutually exclusive" in config_error_text(
        karpenter(efa={"enabled": True, "placementGroup": {"name": "x", "id": "pg-1"}}))


# --- aws-efa-k8s-device-plugin values ----------------------------------------------------------------


def test_efa_device_plugin_values_tolerate_the_efa_pools_taints():
    # aws/eks-charts aws-efa-k8s-device-plugin: the chart tolerates only CriticalAddonsOnly; values.tolerations are added after it
    from gpu_node_pool.gpu_agents.efa_device_plugin.values import efa_plugin_values, unsupported_types

    cfg = eks(taints=["nvidia.com/gpu=present:NoSchedule", "example.com/train=yes:NoExecute"])
    cfg["pools"].append(base()["pools"][0] | {"name": "other", "taints": ["other.example.com/x=1:NoSchedule"]})
    pools = validate_stack_config(cfg).pools
    tolerations = efa_plugin_values(pools)["tolerations"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tolerations
    assert {"key": "example.com/train", "operator": "Exists", "effect": "NoExecute"} in tolerations
    assert all(t["key"] not in ("CriticalAddonsOnly", "other.example.com/x") for t in tolerations)
    assert unsupported_types(pools) == {}  # p5.48xlarge is in the chart's supportedInstanceLabels
