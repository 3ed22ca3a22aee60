"""A Pulumi program that breaks the gpu-node-pools policy pack on purpose.

    gpupool plan --project-dir examples/violating --stack demo      # exits 1

It builds the stack-config pools with the component (``gpu_node_pool.component.program.main``), then
declares what the pack exists to stop, each commented with the policy it trips:

* a GPU node group written by hand with no taint, scaling from zero without Cluster
  Autoscaler tags, that the derived device plugin does not surely reach;
* ``kubectl taint`` in a ``command:local:Command``;
* a log agent DaemonSet without tolerations, and a node exporter DaemonSet tolerating everything;
* a web Deployment that tolerates the GPU taint and selects nothing;
* a Job with ``nvidia.com/gpu`` limits 3 and requests 1;
* a managed node group whose launch template registers a taint the node group does not declare;
* a Karpenter GPU NodePool without the startup taint of the Istio CNI the stack installs, whose
  EC2NodeClass's userData registers a taint the NodePool does not declare;
* an inference Deployment pinned to a pool whose second taint it tolerates with the wrong value;
* GPU Feature Discovery whose NFD worker keeps the chart's default tolerations (Equal present);
* an EKS add-on whose DaemonSets the add-on facts sheet does not confirm (not judged, never passed);
* a ValidatingAdmissionPolicy copied from an older render of the pools (stale).

Taints and tolerations are spelled through ``gpu_node_pool.k8s.taints``, like everywhere else.
"""

import base64

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_node_pool.component.program import main
from gpu_node_pool.k8s.taints import Taint, Toleration

GPU_TAINT = Taint("nvidia.com/gpu", "present")

main()

# gpu-pool-declares-taint, device-plugin-covers-gpu-pools, scale-from-zero-hints:
# a GPU node group outside the component, untainted, minSize 0, no node-template tags.
aws.eks.NodeGroup(
    "legacy-gpu",
    cluster_name="ml-demo",
    node_role_arn="arn:aws:iam::111122223333:role/ml-demo-gpu-node",
    subnet_ids=["subnet-0a1b2c3d4e5f60718"],
    instance_types=["g5.xlarge"],
    ami_type="AL2023_x86_64_NVIDIA",
    scaling_config={"min_size": 0, "max_size": 2, "desired_size": 0},
    labels={"team": "legacy"},
)

# registration-taints-visible: the launch template's user data registers dedicated=gpu:NoSchedule,
# which the node group does not declare (EKS and Cluster Autoscaler never see it).
hidden_lt = aws.ec2.LaunchTemplate(
    "hidden-taint-lt",
    name="hidden-taint-lt",
    user_data=base64.b64encode(
        b"#!/bin/bash\n/etc/eks/bootstrap.sh ml-demo --kubelet-extra-args '--register-with-taints=dedicated=gpu:NoSchedule'\n"
    ).decode(),
)
aws.eks.NodeGroup(
    "hidden-taint-gpu",
    cluster_name="ml-demo",
    node_role_arn="arn:aws:iam::111122223333:role/ml-demo-gpu-node",
    subnet_ids=["subnet-0a1b2c3d4e5f60718"],
    instance_types=["g5.xlarge"],
    ami_type="AL2023_x86_64_NVIDIA",
    scaling_config={"min_size": 1, "max_size": 2, "desired_size": 1},
    taints=[GPU_TAINT.to_provider()],
    launch_template={"name": hidden_lt.name, "version": "1"},
)

# karpenter-startup-taints: Istio's CNI agent runs in the stack, but the Karpenter GPU NodePool does
# not declare cni.istio.io/not-ready in startupTaints, so pods race the CNI on every new node.
k8s.apiextensions.CustomResource(
    "burst-gpu",
    api_version="karpenter.sh/v1",
    kind="NodePool",
    metadata={"name": "burst-gpu"},
    spec={
        "limits": {"nvidia.com/gpu": 8},
        "template": {
            "metadata": {"labels": {"nvidia.com/gpu.present": "true"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [
                    {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}
                ],
                "taints": [GPU_TAINT.to_k8s()],
            },
        },
    },
)
# registration-taints-visible: the NodePool's EC2NodeClass passes the kubelet --register-with-taints in a
# nodeadm NodeConfig part; the flag overrides the config file Karpenter writes its taints into, so the
# nodes carry dedicated=burst:NoSchedule, which Karpenter's scheduling simulation does not know.
k8s.apiextensions.CustomResource(
    "burst-gpu-class",
    api_version="karpenter.k8s.aws/v1",
    kind="EC2NodeClass",
    metadata={"name": "default"},
    spec={
        "role": "KarpenterNodeRole-ml-demo",
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml-demo"}}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "ml-demo"}}],
        "userData": (
            'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n--//\n'
            "Content-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
            f"spec:\n  kubelet:\n    flags:\n      - --register-with-taints={GPU_TAINT},dedicated=burst:NoSchedule\n"
            "--//--\n"
        ),
    },
)
istio_labels = {"k8s-app": "istio-cni-node"}
k8s.apps.v1.DaemonSet(
    "istio-cni-node",
    metadata={"name": "istio-cni-node", "namespace": "kube-system"},
    spec={
        "selector": {"match_labels": istio_labels},
        "template": {
            "metadata": {"labels": istio_labels},
            "spec": {
                "containers": [{"name": "install-cni", "image": "docker.io/istio/install-cni:1.30.3"}],
                "tolerations": [Toleration(operator="Exists").to_k8s()],
            },
        },
    },
)

# gpu-workloads-tolerate-their-pool: pinned to the training pool (taint workload=training:NoExecute),
# but tolerating workload=train: with Equal the values must match, so its pods stay Pending.
vllm_labels = {"app": "vllm"}
k8s.apps.v1.Deployment(
    "vllm",
    metadata={"name": "vllm", "namespace": "ml"},
    spec={
        "selector": {"match_labels": vllm_labels},
        "template": {
            "metadata": {"labels": vllm_labels},
            "spec": {
                "node_selector": {"gpu-node-pools/pool": "training"},
                "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                                "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                "tolerations": [Toleration("workload", "Equal", "train", "NoExecute").to_k8s()],
            },
        },
    },
)

# no-imperative-taints: the taint lives only on the nodes that exist when this runs.
# (command:local:Command of the pulumi-command provider, declared raw so the example needs no
# extra package; a real preview would load the command provider plugin.)
pulumi.CustomResource(
    "command:local:Command",
    "taint-gpu-nodes",
    {"create": f"kubectl taint nodes -l team=legacy {GPU_TAINT} --overwrite"},
)

# daemonsets-tolerate-gpu-taints: no toleration, no node affinity: never runs on GPU nodes.
labels = {"app": "log-agent"}
k8s.apps.v1.DaemonSet(
    "log-agent",
    metadata={"name": "log-agent", "namespace": "logging"},
    spec={
        "selector": {"match_labels": labels},
        "template": {
            "metadata": {"labels": labels},
            "spec": {"containers": [{"name": "agent", "image": "cr.fluentbit.io/fluent/fluent-bit:5.1.1"}]},
        },
    },
)

# daemonsets-tolerate-exactly (advisory): a node agent tolerating every taint, outside the allowed namespaces;
# gpu-toleration-allowlist leaves DaemonSets alone, this says to tolerate the pool taints by key instead.
exporter = {"app": "node-exporter"}
k8s.apps.v1.DaemonSet(
    "node-exporter",
    metadata={"name": "node-exporter", "namespace": "monitoring"},
    spec={
        "selector": {"match_labels": exporter},
        "template": {
            "metadata": {"labels": exporter},
            "spec": {
                "tolerations": [Toleration(operator="Exists").to_k8s()],
                "containers": [{"name": "exporter", "image": "quay.io/prometheus/node-exporter:v1.9.1"}],
            },
        },
    },
)

# gpu-toleration-allowlist, gpu-workloads-select-gpu-nodes: an ordinary workload with a GPU
# toleration; it permits GPU nodes, never attracts to them.
web = {"app": "web"}
k8s.apps.v1.Deployment(
    "web",
    metadata={"name": "web", "namespace": "web"},
    spec={
        "selector": {"match_labels": web},
        "template": {
            "metadata": {"labels": web},
            "spec": {
                "tolerations": [Toleration(key=GPU_TAINT.key, operator="Exists").to_k8s()],
                "containers": [{"name": "web", "image": "nginx:1.29"}],
            },
        },
    },
)

# gpu-limits-well-formed: requests differ from limits (reported case (d)).
k8s.batch.v1.Job(
    "train",
    metadata={"name": "train", "namespace": "ml"},
    spec={
        "template": {
            "spec": {
                "restart_policy": "Never",
                "node_selector": {"nvidia.com/gpu.present": "true"},
                "tolerations": [Toleration.for_taint(GPU_TAINT).to_k8s()],
                "containers": [
                    {
                        "name": "train",
                        "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                        "resources": {"limits": {"nvidia.com/gpu": "3"}, "requests": {"nvidia.com/gpu": "1"}},
                    }
                ],
            }
        }
    },
)

# gpu-agents-cover-gpu-pools: GPU Feature Discovery from the device-plugin chart (plugin off, GFD on) with
# the chart's NFD worker tolerations, which tolerate only nvidia.com/gpu=present (Equal): the training
# pool's workload=training:NoExecute taint keeps the NFD worker off its nodes.
k8s.helm.v3.Release(
    "gfd",
    chart="nvidia-device-plugin",
    version="0.20.0",
    namespace="nvidia-device-plugin",
    repository_opts={"repo": "https://nvidia.github.io/k8s-device-plugin"},
    values={"devicePlugin": {"enabled": False}, "gfd": {"enabled": True}},
)

# resources-judged: the facts sheet marks aws-guardduty-agent's DaemonSet tolerations UNCONFIRMED, so
# its DaemonSets are not judged, and the plan says so instead of passing them.
aws.eks.Addon("guardduty", cluster_name="ml-demo", addon_name="aws-guardduty-agent")

# admission-policies-match-pools: a ValidatingAdmissionPolicy copied from an older render, made when the
# training pool was tainted dedicated=gpu:NoSchedule; the pool's taints changed since, the copy did not.
from gpu_node_pool.admission.model import AdmissionModel, PoolFacts  # noqa: E402
from gpu_node_pool.admission.render import admission_objects  # noqa: E402

_old = AdmissionModel(pools=(PoolFacts("training", (Taint.parse("dedicated=gpu:NoSchedule"),),
                                       {"gpu-node-pools/pool": "training"}),), action="deny")
_copied = next(o for o in admission_objects(_old) if o.kind == "ValidatingAdmissionPolicy"
               and o.name == "gpu-node-pools-no-imperative-taints")
k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
    "copied-node-taints-guard", metadata=_copied.body["metadata"], spec=_copied.body["spec"]
)
