"""Well-known names in one place: labels and resources the whole package means, the Pulumi type
tokens it registers and reads, and the markers the plan shows for values it cannot show.

Backends list their own children (type token + name template) in their registry record
(:mod:`gpu_node_pool.registry`); the tokens below are the ones several layers share.
Nothing here imports anything of the package.
"""

from __future__ import annotations

#: Every pool's nodes carry ``gpu-node-pools/pool=<pool name>``, so the device plugin's
#: affinity and workloads can select exactly the pools they mean.
POOL_LABEL_KEY = "gpu-node-pools/pool"
#: The extended resource NVIDIA's device plugin advertises (k8s-device-plugin README).
NVIDIA_GPU_RESOURCE = "nvidia.com/gpu"
#: GPU extended resources a pod may request: the whole GPU, a time-sliced/MPS share when the
#: plugin renames shared GPUs (``renameByDefault``), and MIG devices with the ``mixed`` strategy
#: (NVIDIA k8s-device-plugin README, "Shared Access to GPUs" and "MIG support").
NVIDIA_SHARED_GPU_RESOURCE = "nvidia.com/gpu.shared"
NVIDIA_MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
#: Node label selecting NVIDIA's device plugin's named config (time-slicing / MPS), read by the
#: standalone plugin and the GPU Operator's alike (k8s-device-plugin v0.20.0 README L820-846).
DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
#: Node label naming the MIG layout the GPU Operator's MIG manager applies to the node; a MIG-capable
#: node without it is labelled ``all-disabled`` by the operator (NVIDIA/gpu-operator
#: ``controllers/nodelabeling_controller.go``, ``api/nvidia/v1/clusterpolicy_types.go`` migManager config default).
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
#: The label the MIG manager writes its progress in applying ``nvidia.com/mig.config`` to: ``pending``, ``rebooting``,
#: ``success`` or ``failed`` (NVIDIA/mig-parted ``deployments/gpu-operator/reconfigure-mig.sh``).
MIG_STATE_LABEL = MIG_CONFIG_LABEL + ".state"


def is_gpu_resource(name: object) -> bool:
    """True for ``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` and ``nvidia.com/mig-<profile>``."""
    return isinstance(name, str) and (
        name in (NVIDIA_GPU_RESOURCE, NVIDIA_SHARED_GPU_RESOURCE) or name.startswith(NVIDIA_MIG_RESOURCE_PREFIX)
    )


#: Node label that turns GKE's own device plugin DaemonSet off on a pool; NVIDIA pairs it with
#: ``gpu-driver-version=disabled`` (NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst``).
GKE_NO_DEFAULT_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
#: GKE sets it on every GPU node to the accelerator type (its driver installer DaemonSet selects on it).
GKE_ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
#: GKE sets it on a GPU node whose NVIDIA driver GKE installs (``gpuDriverVersion`` LATEST or DEFAULT); its
#: ``nvidia-driver-installer`` DaemonSet selects nodes without it (GoogleCloudPlatform/container-engine-accelerators
#: ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``).
GKE_DRIVER_VERSION_LABEL = "cloud.google.com/gke-gpu-driver-version"
#: GKE sets it on Confidential GKE Nodes (https://cloud.google.com/kubernetes-engine/docs/how-to/confidential-gke-nodes);
#: the COS driver installer keeps off them (container-engine-accelerators ships ``daemonset-confidential.yaml`` for them).
GKE_CONFIDENTIAL_NODES_LABEL = "cloud.google.com/gke-confidential-nodes-instance-type"
#: Where Google's COS driver installer puts the NVIDIA driver on a COS node's host: the ``NVIDIA_INSTALL_DIR_HOST``
#: of GoogleCloudPlatform/container-engine-accelerators ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``
#: @992db81257553607f1477945f1b3219632991829, also the ``-host-path`` default of GKE's own device plugin
#: (``cmd/nvidia_gpu/nvidia_gpu.go``), which mounts it at ``/usr/local/nvidia`` in GPU containers. COS only: Google's
#: Ubuntu manifest (``nvidia-driver-installer/ubuntu/daemonset-preloaded.yaml``, same commit) sets no
#: ``NVIDIA_INSTALL_DIR_HOST`` and runs the installer image GKE preloads on Ubuntu nodes, whose source is not public.
GKE_NVIDIA_INSTALL_DIR = "/home/kubernetes/bin/nvidia"
#: Where GKE's device plugin (and Google's COS installer, ``NVIDIA_INSTALL_DIR_CONTAINER``) mounts
#: :data:`GKE_NVIDIA_INSTALL_DIR` in containers: ``-container-path`` of ``cmd/nvidia_gpu/nvidia_gpu.go``.
GKE_NVIDIA_CONTAINER_DIR = "/usr/local/nvidia"
#: GKE Standard's Linux node images as ``node_config.image_type`` spells them, and the one a node pool that names
#: none gets (https://cloud.google.com/kubernetes-engine/docs/concepts/node-images).
GKE_COS_IMAGE = "COS_CONTAINERD"
GKE_UBUNTU_IMAGE = "UBUNTU_CONTAINERD"
GKE_DEFAULT_IMAGE = GKE_COS_IMAGE

#: Images whose entrypoint is kubectl, so that a container of one with no ``command`` runs ``kubectl <args>``:
#: bitnami/kubectl (bitnami/containers ``bitnami/kubectl/1.28/debian-12/Dockerfile``: ``ENTRYPOINT [ "kubectl" ]``)
#: the Kubernetes project's image (kubernetes/kubernetes ``build/server-image/kubectl/Dockerfile``:
#: ``ENTRYPOINT ["/bin/kubectl"]``) and Rancher's (rancher/kubectl ``package/Dockerfile``: ``ENTRYPOINT
#: ["/bin/kubectl"]``), as :func:`gpu_node_pool.k8s.images.image_repository` names them; a mirror's path
#: ending in one (``public.ecr.aws/bitnami/kubectl``) is the same image.
KUBECTL_ENTRYPOINT_IMAGES = frozenset({"bitnami/kubectl", "registry.k8s.io/kubectl", "rancher/kubectl"})

#: How a value unknown at preview is shown (and stored) in the plan.
UNKNOWN = "(known after apply)"
#: How a Pulumi secret input is shown in the plan (the value itself never is).
SECRET = "[secret]"

# --- our components ---------------------------------------------------------------------
GPU_NODE_POOL_TYPE = "gpu-node-pools:index:GpuNodePool"
NVIDIA_DEVICE_PLUGIN_TYPE = "gpu-node-pools:index:NvidiaDevicePlugin"
GPU_OPERATOR_TYPE = "gpu-node-pools:index:GpuOperator"
DCGM_EXPORTER_TYPE = "gpu-node-pools:index:DcgmExporter"
EFA_DEVICE_PLUGIN_TYPE = "gpu-node-pools:index:EfaDevicePlugin"
GKE_DRIVER_INSTALLER_TYPE = "gpu-node-pools:index:GkeDriverInstaller"
#: Our node agent components; each registers the namespace it installs its chart into as this property.
AGENT_COMPONENT_TYPES = (NVIDIA_DEVICE_PLUGIN_TYPE, GPU_OPERATOR_TYPE, DCGM_EXPORTER_TYPE, EFA_DEVICE_PLUGIN_TYPE)
AGENT_NAMESPACE_PROP = "agentNamespace"

# --- provider resources several layers read ---------------------------------------------
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
EC2_INSTANCE = "aws:ec2/instance:Instance"
AUTOSCALING_GROUP = "aws:autoscaling/group:Group"
AUTOSCALING_TAG = "aws:autoscaling/tag:Tag"
IAM_INSTANCE_PROFILE = "aws:iam/instanceProfile:InstanceProfile"
KARPENTER_NODEPOOL_PREFIX = "kubernetes:karpenter.sh/"
KARPENTER_AWS_PREFIX = "kubernetes:karpenter.k8s.aws/"
KARPENTER_NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
KARPENTER_EC2NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
#: Karpenter's NodeOverlay (alpha, kubernetes-sigs/karpenter pkg/apis/v1alpha1/nodeoverlay.go@v1.14.1).
KARPENTER_NODEOVERLAY = "kubernetes:karpenter.sh/v1alpha1:NodeOverlay"
HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"
CHART_TYPES = (HELM_CHART_V4, "kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v3:Release")
DAEMONSET = "kubernetes:apps/v1:DaemonSet"

# --- labels the platform puts on every node ---------------------------------------------
#: The PriorityClasses every Kubernetes cluster ships for critical pods ("Kubernetes already ships with two
#: PriorityClasses: system-cluster-critical and system-node-critical",
#: https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/#priorityclass). The node agents
#: run at the node one; GKE admits either class only where a ResourceQuota scoped to it exists
#: (:mod:`gpu_node_pool.gpu_agents.critical_quota`), so the agents' values and that quota name them from here.
SYSTEM_NODE_CRITICAL = "system-node-critical"
SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
#: The namespace the GPU Operator runs its operands in (its chart's install namespace in NVIDIA's docs and the
#: product's ``GpuOperator``: https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html).
GPU_OPERATOR_NAMESPACE = "gpu-operator"

#: Kubernetes well-known labels the kubelet and the cloud provider set on every node
#: (https://kubernetes.io/docs/reference/labels-annotations-taints/).
ARCH_LABEL = "kubernetes.io/arch"
OS_LABEL = "kubernetes.io/os"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
#: Labels the kubelet itself sets on the Node it registers, besides ``kubernetes.io/os``/``arch``: the host
#: name, known only once the machine runs, and the deprecated beta copies of the OS and architecture labels,
#: still set (kubernetes/kubernetes ``pkg/kubelet/kubelet_node_status.go`` ``initialNode``: ``v1.LabelHostname``,
#: ``kubeletapis.LabelOS``, ``kubeletapis.LabelArch``; the keys: ``staging/src/k8s.io/api/core/v1/well_known_labels.go``
#: and ``staging/src/k8s.io/kubelet/pkg/apis/well_known_labels.go``).
HOSTNAME_LABEL = "kubernetes.io/hostname"
LEGACY_OS_LABEL = "beta.kubernetes.io/os"
LEGACY_ARCH_LABEL = "beta.kubernetes.io/arch"


#: Built-in kinds that always live in a namespace, by API group (``""`` is the core group): every workload
#: kind the policies read, and the objects charts put beside them (``kubectl api-resources --namespaced=true``
#: of Kubernetes v1.34). A chart's object of one of these without ``metadata.namespace`` is created in the
#: release's namespace (``helm install --namespace``; Pulumi ``kubernetes:helm.sh/v4:Chart`` ``namespace``:
#: "the namespace to use for resources that do not specify one").
NAMESPACED_KINDS: frozenset[tuple[str, str]] = frozenset(
    [("", k) for k in ("Pod", "ReplicationController", "ConfigMap", "Secret", "ServiceAccount", "Service",
                       "Endpoints", "PersistentVolumeClaim", "LimitRange", "ResourceQuota")]
    + [("apps", k) for k in ("DaemonSet", "Deployment", "StatefulSet", "ReplicaSet")]
    + [("batch", k) for k in ("Job", "CronJob")]
    + [("rbac.authorization.k8s.io", k) for k in ("Role", "RoleBinding")]
    + [("networking.k8s.io", k) for k in ("Ingress", "NetworkPolicy")]
    + [("policy", "PodDisruptionBudget"), ("autoscaling", "HorizontalPodAutoscaler")]
)


def is_namespaced_kind(api_version: object, kind: object) -> bool:
    """True for a built-in kind of :data:`NAMESPACED_KINDS` (``apps/v1`` ``DaemonSet``, ``v1`` ``Pod``)."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return False
    group = api_version.rpartition("/")[0]
    return (group, kind) in NAMESPACED_KINDS
