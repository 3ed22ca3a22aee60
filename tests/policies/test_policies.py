"""Each policy of the pack: passing cases, failing cases, malformed props, unknown values.

Policies run through ``gpu_node_pool.policies.evaluate`` (props wrapped with the SDK's
``unknown_checking_proxy``, the SDK's unknown sentinel where a value is unknown), and a few
directly through ``policy.validate`` as the SDK's own tests do.
"""

from __future__ import annotations

import base64

import pytest
from pulumi_policy import PolicyCustomTimeouts, PolicyResourceOptions, ResourceValidationArgs
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE as UNKNOWN
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

from gpu_node_pool.k8s.taints import Taint
from gpu_node_pool.policies import POLICIES, PolicyConfigError, StackResource, evaluate, resolve_config
from gpu_node_pool.policies import rules as d

GPU = "nvidia.com/gpu=present:NoSchedule"
GPU_LABELS = {"nvidia.com/gpu.present": "true"}
EXISTS_GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


# --- builders -----------------------------------------------------------------------------


def node_group(name="gpu", taints=(GPU,), labels=None, min_size=1, ami="AL2023_x86_64_NVIDIA", types=("g6.xlarge",)):
    return StackResource(
        "aws:eks/nodeGroup:NodeGroup",
        name,
        {"amiType": ami, "instanceTypes": list(types), "scalingConfig": {"minSize": min_size, "maxSize": 3},
         "taints": [Taint.parse(t).to_provider() for t in taints], "labels": dict(GPU_LABELS if labels is None else labels)},
        urn=f"urn:pulumi:s::p::aws:eks/nodeGroup:NodeGroup::{name}",
    )


def pod_spec(tolerations=None, node_selector=None, affinity=None, image="busybox", resources=None, command=None):
    spec = {"containers": [{"name": "main", "image": image}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if affinity is not None:
        spec["affinity"] = affinity
    if resources is not None:
        spec["containers"][0]["resources"] = resources
    if command is not None:
        spec["containers"][0]["command"] = command
    return spec


def daemonset(name="agent", namespace="kube-system", **kw):
    return StackResource("kubernetes:apps/v1:DaemonSet", name, {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
        "spec": {"template": {"spec": pod_spec(**kw)}}})


def deployment(name="web", namespace="web", **kw):
    return StackResource("kubernetes:apps/v1:Deployment", name, {
        "metadata": {"name": name, "namespace": namespace}, "spec": {"template": {"spec": pod_spec(**kw)}}})


def job(name="train", namespace="kube-system", **kw):
    return StackResource("kubernetes:batch/v1:Job", name, {
        "metadata": {"name": name, "namespace": namespace}, "spec": {"template": {"spec": pod_spec(**kw)}}})


def plugin(tolerations, affinity_label=("nvidia.com/gpu.present", "true"), namespace="nvidia-device-plugin"):
    key, value = affinity_label
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}}
    return daemonset("nvidia-device-plugin", namespace, tolerations=tolerations, affinity=affinity,
                     image="nvcr.io/nvidia/k8s-device-plugin:v0.20.0")


def run(policy, resources, config=None):
    """Mandatory/advisory violations (not "can't run" notes) of one policy."""
    return [f for f in evaluate(resources, config, policies=[policy]) if "can't run policy" not in f["message"]]


def cannot_run(policy, resources, config=None):
    return [f for f in evaluate(resources, config, policies=[policy]) if "can't run policy" in f["message"]]


# --- the pack ---------------------------------------------------------------------------


def test_the_pack_has_the_policies_of_the_issues_with_their_levels():
    levels = {p.name: p.enforcement_level.value for p in POLICIES}
    assert levels == {
        "no-imperative-taints": "mandatory",
        "gpu-pool-declares-taint": "mandatory",
        "daemonsets-tolerate-gpu-taints": "mandatory",
        "device-plugin-covers-gpu-pools": "mandatory",
        "gpu-toleration-allowlist": "mandatory",
        "gpu-workloads-select-gpu-nodes": "advisory",
        "gpu-limits-well-formed": "mandatory",
        "noexecute-gpu-taint": "advisory",
        "resources-judged": "advisory",
        "registration-taints-visible": "mandatory",
        "karpenter-startup-taints": "advisory",
        "gpu-workloads-tolerate-their-pool": "advisory",
        "scale-from-zero-hints": "advisory",
        "gpu-agents-cover-gpu-pools": "mandatory",
    }
    assert all(p.description and p.remediation_steps for p in POLICIES)


def test_policy_pack_config_levels_and_defaults_resolve_like_the_cli():
    settings = resolve_config({"all": "advisory", "gpu-limits-well-formed": {"enforcementLevel": "disabled"}})
    assert settings["no-imperative-taints"][0].value == "advisory"
    assert settings["gpu-limits-well-formed"][0].value == "disabled"
    assert settings["gpu-toleration-allowlist"][1]["allowedNamespaces"] == ["kube-system", "nvidia-device-plugin", "gpu-operator"]


@pytest.mark.parametrize(
    "config",
    [
        {"no-such-policy": "advisory"},
        {"all": "loud"},
        {"gpu-toleration-allowlist": {"allowedNamespaces": "web"}},
        {"daemonsets-tolerate-gpu-taints": {"extraTaints": ["dedicated=gpu:NO_SCHEDULE"]}},
        {"scale-from-zero-hints": {"anything": 1}},
    ],
)
def test_an_invalid_policy_pack_config_is_refused_with_the_reason(config):
    with pytest.raises(PolicyConfigError, match=next(iter(config)) if "all" not in config else "all"):
        resolve_config(config)


def test_a_disabled_policy_does_not_run():
    assert evaluate([node_group(taints=())], {"gpu-pool-declares-taint": "disabled"}, policies=[d.gpu_pool_declares_taint.POLICY]) == []


# --- 1. no-imperative-taints ------------------------------------------------------------


def command(create, typ="command:local:Command", field="create"):
    return StackResource(typ, "cmd", {field: create})


def b64(text):
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "resource",
    [
        command("kubectl taint nodes -l pool=gpu nvidia.com/gpu=present:NoSchedule"),
        command("set -e\nkubectl --context prod taint node gpu-1 dedicated=gpu:NoSchedule --overwrite"),
        command("kubectl patch node gpu-1 -p '{\"spec\":{\"taints\":[]}}'", "command:remote:Command", "update"),
        command("oc adm taint nodes gpu-1 dedicated=gpu:NoSchedule", field="delete"),
        StackResource("kubernetes:core/v1:NodePatch", "n", {"metadata": {"name": "gpu-1"},
                      "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}}),
        StackResource("kubernetes:core/v1:Node", "n", {"spec": {"taints": [{"key": "x", "effect": "NoExecute"}]}}),
        StackResource("kubernetes:core/v1:NodeList", "n", {"items": [{"spec": {"taints": [{"key": "x", "effect": "NoSchedule"}]}}]}),
        StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt",
                      {"userData": b64("#!/bin/bash\n/etc/eks/bootstrap.sh ml\nkubectl taint nodes $(hostname) a=b:NoSchedule\n")}),
        StackResource("aws:ec2/instance:Instance", "i", {"userData": "#!/bin/bash\nkubectl taint node $(hostname) a=b:NoSchedule"}),
        StackResource("gcp:compute/instanceTemplate:InstanceTemplate", "t",
                      {"metadataStartupScript": "kubectl taint nodes $(hostname) a=b:NoSchedule"}),
        StackResource("gcp:compute/instance:Instance", "t", {"metadata": {"startup-script": "kubectl taint no x a=b:NoSchedule"}}),
        job(command=["kubectl", "taint", "nodes", "--all", "a=b:NoSchedule"]),
        StackResource("kubernetes:batch/v1:CronJob", "c", {"spec": {"jobTemplate": {"spec": {"template": {"spec": {
            "containers": [{"name": "c", "command": ["/bin/sh", "-c"], "args": ["kubectl taint nodes -l x=y a=b:NoSchedule"]}]}}}}}}),
    ],
    ids=lambda r: f"{r.type}:{r.name}",
)
def test_imperative_taints_are_refused_and_the_message_says_where_to_declare(resource):
    (found,) = run(d.no_imperative_taints.POLICY, [resource])
    assert found["enforcement"] == "mandatory"
    assert "GpuNodePool `taints`" in found["message"] and "autoscaler" in found["message"]


@pytest.mark.parametrize(
    "resource",
    [
        command("kubectl get nodes -o wide"),
        command("# kubectl taint nodes x a=b:NoSchedule (do not do this)\necho done"),
        command("kubectl label nodes gpu-1 team=ml"),
        StackResource("kubernetes:core/v1:NodePatch", "n", {"spec": {"taints": []}}),
        StackResource("kubernetes:core/v1:Node", "n", {"metadata": {"labels": {"a": "b"}}}),
        StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"userData": b64(
            "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--register-with-taints=nvidia.com/gpu=present:NoSchedule'\n")}),
        job(command=["python", "train.py", "--taint-aware"]),
    ],
    ids=lambda r: f"{r.type}:{r.name}",
)
def test_declarative_taints_and_unrelated_commands_pass(resource):
    assert run(d.no_imperative_taints.POLICY, [resource]) == []


def test_an_unknown_command_cannot_be_judged_and_the_sdk_says_so():
    args = ResourceValidationArgs(
        "command:local:Command", unknown_checking_proxy({"create": UNKNOWN}), "urn:x", "cmd",
        PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), []), None,
    )
    with pytest.raises(UnknownValueError):
        d.no_imperative_taints.POLICY.validate(args, lambda message, urn=None: pytest.fail(message))
    (note,) = cannot_run(d.no_imperative_taints.POLICY, [command(UNKNOWN)])
    assert note["enforcement"] == "advisory" and ".create" in note["message"]


# --- 2. gpu-pool-declares-taint ---------------------------------------------------------


def gke_pool(taints=(), labels=None, accelerators=({"type": "nvidia-l4", "count": 1},), machine="g2-standard-8"):
    return StackResource("gcp:container/nodePool:NodePool", "gke", {"nodeConfig": {
        "machineType": machine, "guestAccelerators": list(accelerators),
        "taints": [Taint.parse(t).to_provider() for t in taints], "labels": dict(GPU_LABELS if labels is None else labels)}},
        urn="urn:pulumi:s::p::gcp:container/nodePool:NodePool::gke")


def karpenter_pool(taints=(), requirements=None, limits=None, class_name="default"):
    return StackResource("kubernetes:karpenter.sh/v1:NodePool", "karp", {
        "metadata": {"name": "gpu"},
        "spec": {"limits": limits or {}, "template": {"metadata": {"labels": dict(GPU_LABELS)}, "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class_name},
            "requirements": requirements if requirements is not None else [
                {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}],
            "taints": [Taint.parse(t).to_k8s() for t in taints]}}}},
        urn="urn:pulumi:s::p::kubernetes:karpenter.sh/v1:NodePool::karp")


def nodeadm_launch_template(taints=(), instance_type="g6e.2xlarge"):
    flags = f"\n      flags:\n        - --register-with-taints={','.join(taints)}" if taints else ""
    user_data = (
        "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\n"
        "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: ml\n"
        "    apiServerEndpoint: https://example.eks.amazonaws.com\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n"
        f"  kubelet:{flags if flags else ' {}'}\n\n--B--\n"
    )
    return StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt",
                         {"instanceType": instance_type, "userData": b64(user_data)},
                         urn="urn:pulumi:s::p::aws:ec2/launchTemplate:LaunchTemplate::lt")


@pytest.mark.parametrize(
    "resource",
    [
        node_group(taints=()),
        node_group(taints=("nvidia.com/gpu=present:PreferNoSchedule",)),
        node_group(taints=(), ami="AL2023_x86_64_STANDARD", types=("p5.48xlarge",)),
        gke_pool(taints=()),
        gke_pool(taints=(), accelerators=(), machine="a3-highgpu-8g"),
        karpenter_pool(taints=()),
        karpenter_pool(taints=(), requirements=[], limits={"nvidia.com/gpu": 8}),
        karpenter_pool(taints=(), requirements=[{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "g6e"]}]),
    ],
    ids=lambda r: f"{r.type}:{r.inputs.get('amiType', '')}",
)
def test_a_gpu_pool_without_a_repelling_taint_fails(resource):
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [resource])
    assert "NoSchedule" in found["message"] and found["enforcement"] == "mandatory"


@pytest.mark.parametrize(
    "resource",
    [
        node_group(),
        node_group(taints=("dedicated=gpu:NoExecute",)),
        node_group(taints=(), ami="AL2023_x86_64_STANDARD", types=("m7i.large",)),
        gke_pool(taints=(GPU,)),
        gke_pool(taints=(), accelerators=(), machine="n2-standard-8"),
        karpenter_pool(taints=(GPU,)),
        karpenter_pool(taints=(), requirements=[{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m7i", "g6"]}]),
    ],
    ids=lambda r: r.type,
)
def test_a_tainted_gpu_pool_or_a_cpu_pool_passes(resource):
    assert run(d.gpu_pool_declares_taint.POLICY, [resource]) == []


def test_a_self_managed_launch_template_is_judged_by_its_kubelet_registration():
    assert run(d.gpu_pool_declares_taint.POLICY, [nodeadm_launch_template(taints=(GPU,))]) == []
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [nodeadm_launch_template()])
    assert "self-managed" in found["message"] and "registerWithTaints" in found["message"]


def test_unreadable_pool_taints_are_reported_not_raised():
    bad = node_group()
    bad.inputs["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]  # Kubernetes spelling on EKS
    (found,) = run(d.gpu_pool_declares_taint.POLICY, [bad])
    assert "cannot be read" in found["message"]


def test_unknown_pool_taints_cannot_be_judged():
    pool = node_group()
    pool.inputs["taints"] = UNKNOWN
    assert run(d.gpu_pool_declares_taint.POLICY, [pool]) == []
    assert cannot_run(d.gpu_pool_declares_taint.POLICY, [pool])


# --- 3. daemonsets-tolerate-gpu-taints (reported cases a-c) -------------------------------


def test_case_a_device_plugin_tolerating_only_the_gpu_key_fails_on_a_dedicated_pool():
    stack = [node_group(taints=("dedicated=gpu:NoSchedule",)), plugin([EXISTS_GPU])]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "dedicated=gpu:NoSchedule not tolerated" in found["message"] and "GPU pool 'gpu'" in found["message"]
    (covered,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "dedicated=gpu:NoSchedule" in covered["message"]


def test_case_b_value_mismatch_fails_for_nfd_and_exists_passes_for_the_plugin():
    pool = node_group(taints=("nvidia.com/gpu=true:NoSchedule",))
    nfd = daemonset("nfd-worker", "node-feature-discovery", tolerations=[
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}])
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [pool, nfd])
    assert "node-feature-discovery/nfd-worker" in found["message"]
    assert "nvidia.com/gpu=true:NoSchedule not tolerated" in found["message"]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [pool, plugin([EXISTS_GPU])]) == []
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [pool, plugin([EXISTS_GPU])]) == []


def test_case_c_two_taints_fail_naming_the_arch_taint():
    stack = [node_group(taints=("kubernetes.io/arch=arm64:NoSchedule", "nvidia.com/gpu:NoSchedule")), plugin([EXISTS_GPU])]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "kubernetes.io/arch=arm64:NoSchedule not tolerated" in found["message"]
    assert "nvidia.com/gpu:NoSchedule not tolerated" not in found["message"]
    (covered,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "kubernetes.io/arch=arm64:NoSchedule" in covered["message"]


def test_a_noexecute_toleration_with_seconds_is_reported_as_eviction_not_a_pass():
    stack = [node_group(taints=("nvidia.com/gpu=present:NoExecute",)),
             daemonset(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300.0}])]
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, stack)
    assert "tolerated for 300 s, then evicted" in found["message"]


def test_exemptions_and_extra_taints_come_from_the_config():
    stack = [node_group(), daemonset("fluent-bit", "logging")]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, stack, {"daemonsets-tolerate-gpu-taints": {
        "exemptions": [{"namespace": "logging", "name": "fluent-bit"}]}}) == []
    outside = {"daemonsets-tolerate-gpu-taints": {"extraTaints": ["dedicated=gpu:NoSchedule"]}}
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [daemonset(tolerations=[EXISTS_GPU])], outside)
    assert "outside this stack" in found["message"] and "dedicated=gpu:NoSchedule" in found["message"]


def test_a_daemonset_pinned_to_another_pool_keeps_off_this_one():
    stack = [node_group(labels={"nvidia.com/gpu.present": "true", "gpu-node-pools/pool": "training"}),
             daemonset(node_selector={"gpu-node-pools/pool": "inference"})]
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, stack) == []


def test_unknown_tolerations_leave_the_daemonset_undecided_but_others_judged():
    unknown = daemonset("mystery")
    unknown.inputs["spec"]["template"]["spec"]["tolerations"] = UNKNOWN
    stack = [node_group(), unknown, daemonset("fluent-bit", "logging")]
    findings = evaluate(stack, policies=[d.daemonsets_tolerate_gpu_taints.POLICY])
    assert [f["enforcement"] for f in findings] == ["mandatory", "advisory"]
    assert "logging/fluent-bit" in findings[0]["message"]
    assert "DaemonSet mystery" in findings[1]["message"] and ".spec.template.spec.tolerations" in findings[1]["message"]


# --- 4. device-plugin-covers-gpu-pools --------------------------------------------------


def test_pools_that_need_nvidias_plugin_fail_without_one():
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group()])
    assert "No NVIDIA device plugin" in found["message"]


@pytest.mark.parametrize(
    "pool",
    [node_group(ami="BOTTLEROCKET_x86_64_NVIDIA"), gke_pool(taints=(GPU,)), node_group(taints=(), types=("m7i.large",), ami="AL2023_x86_64_STANDARD")],
    ids=["bottlerocket", "gke-managed", "cpu"],
)
def test_pools_that_bring_their_own_plugin_need_none(pool):
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [pool]) == []


def test_a_plugin_whose_affinity_misses_the_pool_labels_fails():
    stack = [node_group(labels={"team": "ml"}), plugin([EXISTS_GPU])]
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "does not surely match" in found["message"]


def test_nvidias_plugin_on_a_gke_managed_pool_is_a_conflict():
    stack = [gke_pool(taints=(GPU,)), plugin([EXISTS_GPU])]
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, stack)
    assert "gke-no-default-nvidia-gpu-device-plugin=true" in found["message"]
    opted_out = gke_pool(taints=(GPU,), labels={**GPU_LABELS, "gke-no-default-nvidia-gpu-device-plugin": "true"})
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [opted_out, plugin([EXISTS_GPU])]) == []


def test_a_helm_release_is_judged_from_its_values_and_chart_defaults():
    release = StackResource("kubernetes:helm.sh/v3:Release", "nvdp", {
        "chart": "nvidia-device-plugin", "namespace": "nvidia-device-plugin", "values": {}})
    # chart defaults: tolerate nvidia.com/gpu NoSchedule, affinity includes nvidia.com/gpu.present In [true]
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), release]) == []
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(taints=("dedicated=gpu:NoSchedule",)), release])
    assert "chart nvidia-device-plugin" in found["message"]
    release.inputs["values"] = UNKNOWN
    assert cannot_run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), release])


# --- 5. gpu-toleration-allowlist --------------------------------------------------------


def test_gpu_tolerations_outside_allowed_namespaces_fail():
    (found,) = run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[EXISTS_GPU])])
    assert "namespace 'web'" in found["message"]
    (catch_all,) = run(d.gpu_toleration_allowlist.POLICY, [daemonset("fluent-bit", "logging", tolerations=[{"operator": "Exists"}])])
    assert "catch-all" in catch_all["message"]
    (defaulted,) = run(d.gpu_toleration_allowlist.POLICY, [StackResource("kubernetes:core/v1:Pod", "p", {
        "spec": {"tolerations": [EXISTS_GPU], "containers": []}})])
    assert "namespace 'default'" in defaulted["message"]


def test_allowed_namespaces_and_non_gpu_tolerations_pass():
    assert run(d.gpu_toleration_allowlist.POLICY, [daemonset(tolerations=[{"operator": "Exists"}])]) == []
    assert run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}])]) == []
    config = {"gpu-toleration-allowlist": {"allowedNamespaces": ["web"]}}
    assert run(d.gpu_toleration_allowlist.POLICY, [deployment(tolerations=[EXISTS_GPU])], config) == []


def test_the_stacks_own_pool_taints_count_as_gpu_taints():
    stack = [node_group(taints=("dedicated=gpu:NoSchedule",)), deployment(tolerations=[
        {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}])]
    (found,) = run(d.gpu_toleration_allowlist.POLICY, stack)
    assert "dedicated=gpu:NoSchedule" in found["message"]


# --- 6. gpu-workloads-select-gpu-nodes --------------------------------------------------


def test_a_gpu_toleration_without_selection_or_gpu_request_is_advised_against():
    (found,) = run(d.gpu_workloads_select_gpu_nodes.POLICY, [deployment(tolerations=[EXISTS_GPU])])
    assert found["enforcement"] == "advisory" and "never attracts" in found["message"]


@pytest.mark.parametrize(
    "resource",
    [
        deployment(tolerations=[EXISTS_GPU], node_selector={"nvidia.com/gpu.present": "true"}),
        deployment(tolerations=[EXISTS_GPU], resources={"limits": {"nvidia.com/gpu": 1}}),
        deployment(tolerations=[EXISTS_GPU], affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]}]}}}),
        daemonset(tolerations=[EXISTS_GPU]),
        deployment(tolerations=[{"operator": "Exists"}]),
        deployment(tolerations=[]),
    ],
    ids=["nodeSelector", "gpu-limit", "affinity", "daemonset", "catch-all", "no-toleration"],
)
def test_gpu_workloads_that_select_or_request_gpus_pass(resource):
    assert run(d.gpu_workloads_select_gpu_nodes.POLICY, [resource]) == []


def test_selecting_a_stack_pool_label_counts():
    stack = [node_group(labels={"gpu-node-pools/pool": "training"}),
             deployment(tolerations=[EXISTS_GPU], node_selector={"gpu-node-pools/pool": "training"})]
    assert run(d.gpu_workloads_select_gpu_nodes.POLICY, stack) == []


# --- 7. gpu-limits-well-formed (reported case d) ------------------------------------------


def test_case_d_job_with_limits_3_and_requests_1_fails():
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources={"limits": {"nvidia.com/gpu": 3}, "requests": {"nvidia.com/gpu": 1}})])
    assert "differs from limits" in found["message"] and found["enforcement"] == "mandatory"


@pytest.mark.parametrize(
    "resources, fragment",
    [
        ({"requests": {"nvidia.com/gpu": 1}}, "not in limits"),
        ({"limits": {"nvidia.com/gpu": "500m"}}, "whole number"),
        ({"limits": {"nvidia.com/gpu": 0.5}}, "whole number"),
        ({"limits": {"nvidia.com/gpu": "two"}}, "whole number"),
        ({"limits": {"nvidia.com/gpu": -1}}, "whole number"),
    ],
)
def test_malformed_gpu_quantities_fail(resources, fragment):
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources=resources)])
    assert fragment in found["message"]


@pytest.mark.parametrize(
    "resources",
    [
        {"limits": {"nvidia.com/gpu": 1}},
        {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": 2.0}},
        {"limits": {"cpu": "500m"}},
        None,
        {"limits": None, "requests": None},
    ],
)
def test_well_formed_or_absent_gpu_quantities_pass(resources):
    assert run(d.gpu_limits_well_formed.POLICY, [job(resources=resources)]) == []


def test_mig_resources_are_checked_when_configured():
    config = {"gpu-limits-well-formed": {"resourceNames": ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]}}
    (found,) = run(d.gpu_limits_well_formed.POLICY, [job(resources={"requests": {"nvidia.com/mig-1g.10gb": 1}})], config)
    assert "nvidia.com/mig-1g.10gb" in found["message"]


# --- 8. noexecute-gpu-taint -------------------------------------------------------------


def test_a_noexecute_gpu_taint_is_advised_against():
    (found,) = run(d.noexecute_gpu_taint.POLICY, [node_group(taints=(GPU, "workload=training:NoExecute"))])
    assert found["enforcement"] == "advisory" and "Prefer workload=training:NoSchedule" in found["message"]
    assert run(d.noexecute_gpu_taint.POLICY, [node_group()]) == []
    assert run(d.noexecute_gpu_taint.POLICY, [node_group(taints=("x=y:NoExecute",), types=("m7i.large",), ami="AL2023_x86_64_STANDARD")]) == []


# --- 9. scale-from-zero-hints -----------------------------------------------------------


def ca_tags(pool, tags):
    return [
        StackResource("aws:autoscaling/tag:Tag", f"tag-{i}", {"autoscalingGroupName": "(known after apply)",
                      "tag": {"key": k, "value": v, "propagateAtLaunch": False}}, dependencies=[pool.urn])
        for i, (k, v) in enumerate(tags.items())
    ]


CA = "k8s.io/cluster-autoscaler/node-template/"


def test_matching_node_template_tags_pass_and_mismatches_are_named():
    pool = node_group(min_size=0)
    good = {CA + "label/nvidia.com/gpu.present": "true", CA + "taint/nvidia.com/gpu": "present:NoSchedule"}
    assert run(d.scale_from_zero_hints.POLICY, [pool, *ca_tags(pool, good)]) == []
    wrong = {CA + "label/nvidia.com/gpu.present": "true", CA + "taint/nvidia.com/gpu": "present:NoExecute"}
    (found,) = run(d.scale_from_zero_hints.POLICY, [pool, *ca_tags(pool, wrong)])
    assert "missing ['nvidia.com/gpu=present:NoSchedule']" in found["message"] and found["enforcement"] == "advisory"
    (none,) = run(d.scale_from_zero_hints.POLICY, [pool])
    assert "no Cluster Autoscaler node-template tags" in none["message"]


def test_pools_that_do_not_scale_from_zero_need_no_tags():
    assert run(d.scale_from_zero_hints.POLICY, [node_group(min_size=1)]) == []


def test_a_self_managed_group_is_compared_with_its_launch_template_registration():
    lt = nodeadm_launch_template(taints=(GPU,), instance_type=None)
    del lt.inputs["instanceType"]
    asg = StackResource("aws:autoscaling/group:Group", "asg", {
        "minSize": 0, "maxSize": 2,
        "mixedInstancesPolicy": {"launchTemplate": {"overrides": [{"instanceType": "g6e.2xlarge"}]}},
        "tags": [{"key": CA + "taint/nvidia.com/gpu", "value": "present:NoExecute", "propagateAtLaunch": False}]},
        dependencies=[lt.urn])
    (found,) = run(d.scale_from_zero_hints.POLICY, [lt, asg])
    assert "self-managed" in found["message"]
    assert "missing ['nvidia.com/gpu=present:NoSchedule'], not on the nodes ['nvidia.com/gpu=present:NoExecute']" in found["message"]
    (untainted,) = run(d.gpu_pool_declares_taint.POLICY, [nodeadm_launch_template()])
    assert "self-managed" in untainted["message"]


# --- malformed and unknown props never crash a policy -----------------------------------

MALFORMED = [
    StackResource("kubernetes:apps/v1:DaemonSet", "no-spec", {"metadata": {"name": "x"}}),
    StackResource("kubernetes:apps/v1:DaemonSet", "null-tolerations", {"spec": {"template": {"spec": {"tolerations": None}}}}),
    StackResource("kubernetes:apps/v1:DaemonSet", "bad-tolerations", {"spec": {"template": {"spec": {
        "tolerations": ["x", {"operator": "Sometimes"}, {"key": "a", "tolerationSeconds": "soon", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [None, {}]}}},
        "nodeSelector": ["not", "a", "map"], "containers": None}}}}),
    StackResource("kubernetes:apps/v1:Deployment", "spec-none", {"spec": None, "metadata": None}),
    StackResource("kubernetes:batch/v1:Job", "containers-junk", {"spec": {"template": {"spec": {"containers": [None, 3, {"resources": "x"}]}}}}),
    StackResource("kubernetes:batch/v1:CronJob", "cron", {"spec": {"jobTemplate": None}}),
    StackResource("kubernetes:core/v1:Pod", "pod", {}),
    StackResource("aws:eks/nodeGroup:NodeGroup", "ng-none", {"amiType": None, "instanceTypes": None, "taints": None}),
    StackResource("aws:eks/nodeGroup:NodeGroup", "ng-junk", {"amiType": "AL2023_x86_64_NVIDIA", "taints": [None, "x"], "labels": "x",
                                                            "scalingConfig": {"minSize": "zero"}}),
    StackResource("gcp:container/nodePool:NodePool", "np", {"nodeConfig": {"guestAccelerators": [{"type": None}], "taints": None}}),
    StackResource("kubernetes:karpenter.sh/v1:NodePool", "kp", {"spec": {"limits": {"nvidia.com/gpu": 1}, "template": None}}),
    StackResource("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"instanceType": "g6.xlarge", "userData": 42}),
    StackResource("aws:autoscaling/group:Group", "asg", {"minSize": 0, "tags": None, "mixedInstancesPolicy": {"launchTemplate": None}}),
    StackResource("aws:autoscaling/tag:Tag", "tag", {"tag": None}),
    StackResource("command:local:Command", "cmd", {"create": None, "update": 3}),
    StackResource("kubernetes:core/v1:NodePatch", "np", {"spec": {"taints": [None, {"effect": "Bogus"}]}}),
    StackResource("kubernetes:helm.sh/v3:Release", "rel", {"chart": "nvidia-device-plugin", "values": None}),
]

UNKNOWNS = [
    StackResource("kubernetes:apps/v1:DaemonSet", "unknown-spec", {"metadata": {"name": "u"}, "spec": UNKNOWN}),
    StackResource("kubernetes:apps/v1:DaemonSet", "unknown-ns", {"metadata": {"namespace": UNKNOWN}, "spec": {"template": {"spec": {}}}}),
    StackResource("kubernetes:batch/v1:Job", "unknown-limit", {"spec": {"template": {"spec": {"containers": [
        {"resources": {"limits": {"nvidia.com/gpu": UNKNOWN}}}]}}}}),
    StackResource("aws:eks/nodeGroup:NodeGroup", "unknown-ami", {"amiType": UNKNOWN, "taints": UNKNOWN}),
    StackResource("gcp:container/nodePool:NodePool", "unknown-config", {"nodeConfig": UNKNOWN}),
    StackResource("aws:ec2/launchTemplate:LaunchTemplate", "unknown-ud", {"instanceType": "g6.xlarge", "userData": UNKNOWN}),
    StackResource("command:remote:Command", "unknown-cmd", {"create": UNKNOWN}),
    StackResource("kubernetes:helm.sh/v4:Chart", "unknown-values", {"chart": "nvidia-device-plugin", "values": UNKNOWN}),
]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_malformed_props_never_raise(policy):
    for resource in MALFORMED:
        evaluate([resource], policies=[policy])
    evaluate(MALFORMED + [node_group(), plugin([EXISTS_GPU])], policies=[policy])


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_unknown_values_never_raise_and_only_yield_cant_run_notes_or_verdicts(policy):
    for resource in UNKNOWNS:
        for finding in evaluate([resource, node_group(min_size=2)], policies=[policy]):
            assert finding["policy"] == policy.name
    notes = [f for f in evaluate(UNKNOWNS + [node_group()], policies=[policy]) if "can't run" in f["message"]]
    assert all(f["enforcement"] == "advisory" for f in notes)
