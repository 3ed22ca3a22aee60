"""Node label rules: the generic Kubernetes syntax plus what each backend refuses.

Each ``*_label_problem`` function returns a sentence saying why a label is refused (and
what to do instead), or None when the label is fine. Config validation calls them and
reports every problem with its config path.

Sources:
  * Syntax: ``k8s.io/apimachinery/pkg/util/validation`` (``IsQualifiedName``,
    ``IsValidLabelValue``).
  * NodeRestriction: ``plugin/pkg/admission/noderestriction/admission.go`` and
    ``k8s.io/kubelet/pkg/apis/well_known_labels.go`` (what a kubelet may set on its own Node).
  * EKS: ``API_UpdateLabelsPayload`` (key and value 1-63 characters); the EKS API's answer to the
    reserved prefixes ``kubernetes.io/``, ``k8s.io/``, ``eks.amazonaws.com/`` (aws/containers-roadmap
    #1451, eksctl-io/eksctl #4007); a label the kubelet refuses makes nodes fail to join
    (aws/containers-roadmap #2465, terraform-aws-eks #3346).
  * GKE: pulumi_gcp ``container`` ``NodeConfig.labels`` docstring (``kubernetes.io/`` and
    ``k8s.io/`` prefixes "are reserved by Kubernetes Core components and cannot be
    specified"; ``Error 400: Applying kubernetes label is not allowed``, bitpoke/stack #86);
    hashicorp/terraform-provider-google #19677 (GKE's answer to a ``cloud.google.com`` node label:
    ``Node labels with key ... are managed by GKE or Kubernetes and must not be manually
    specified``), except ``cloud.google.com/compute-class``, which GKE documents for node pools
    created by hand (:data:`GKE_COMPUTE_CLASS_SOURCE`).
"""

from __future__ import annotations

from typing import Any

from ..text.terminal import shown
from .names import in_domain, label_domain, label_value_problem, qualified_name_problem

__all__ = [
    "label_domain",
    "in_domain",
    "label_syntax",
    "label_syntax_problem",
    "eks_label_problem",
    "gke_label_problem",
    "GKE_COMPUTE_CLASS_LABEL",
    "GKE_COMPUTE_CLASS_SOURCE",
    "node_restriction_problem",
    "DEFAULT_GPU_LABEL",
]

#: The label every GPU node carries; the NVIDIA device plugin chart's default affinity
#: accepts it, and AL2023 nodeadm sets it itself from Kubernetes 1.35.
DEFAULT_GPU_LABEL = ("nvidia.com/gpu.present", "true")

EKS_LABEL_MAX = 63

# kubelet.kubernetes.io and node.kubernetes.io (and subdomains) plus this list are the
# kubernetes.io / k8s.io labels a kubelet may set on itself (well_known_labels.go).
KUBELET_ALLOWED_LABELS = frozenset(
    {
        "kubernetes.io/hostname",
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "beta.kubernetes.io/arch",
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/instance-type",
        "node.kubernetes.io/instance-type",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/region",
    }
)
KUBELET_ALLOWED_LABEL_DOMAINS = ("kubelet.kubernetes.io", "node.kubernetes.io")
#: The public page of the NodeRestriction rules the messages cite.
NODE_RESTRICTION_DOC = "https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#noderestriction"


def label_syntax(key: Any, value: Any, *, node_label: bool = False) -> tuple[str, str] | None:
    """The first Kubernetes syntax rule one label breaks, as ``("key", why)`` or ``("value", why)``, or None.

    Rules, in order: the key is a qualified name (:func:`~gpu_node_pool.k8s.names.qualified_name_problem`), the value
    a label value (:func:`~gpu_node_pool.k8s.names.label_value_problem`): ``IsQualifiedName`` and
    ``IsValidLabelValue`` of ``k8s.io/apimachinery/pkg/util/validation``, which ``ValidateLabels`` applies to node
    labels and a pod spec's ``nodeSelector`` alike. ``why`` follows the key or value in a message (``must be 63
    characters or less``...). The one definition :func:`label_syntax_problem` and
    :func:`gpu_node_pool.k8s.refusals.node_selector_refusal` word their messages from. ``node_label``: a label
    the stack sets on nodes, whose suggested key is never in a reserved domain (``qualified_name_problem``'s).
    """
    problem = qualified_name_problem(key, node_label=node_label)
    if problem:
        return "key", problem
    problem = label_value_problem(value)
    if problem:
        return "value", problem
    return None


def label_syntax_problem(key: Any, value: Any, *, node_label: bool = False) -> str | None:
    """Kubernetes syntax of one label (:func:`label_syntax`, with its ``node_label``): ``label key <key> <why>`` or
    ``label value <value> <why>``, or None. The message repeats at most
    :data:`~gpu_node_pool.text.terminal.MAX_SHOWN` characters of either (:func:`~gpu_node_pool.text.terminal.shown`)."""
    broken = label_syntax(key, value, node_label=node_label)
    if broken is None:
        return None
    part, problem = broken
    return f"label {part} {shown(key if part == 'key' else value)} {problem}"


def node_restriction_problem(key: str) -> str | None:
    """Why a kubelet may not set label ``key`` on its own Node (NodeRestriction), or None.

    A kubelet may not set labels in ``node-restriction.kubernetes.io`` (reserved for
    administrators), nor in ``kubernetes.io`` / ``k8s.io`` (and subdomains) except the
    ``kubelet.kubernetes.io`` and ``node.kubernetes.io`` prefixes and a fixed allow-list;
    the kubelet refuses to start with such a ``--node-labels`` entry.
    """
    if in_domain(key, "node-restriction.kubernetes.io"):
        return (
            f"label {shown(key)} is in node-restriction.kubernetes.io, which NodeRestriction reserves for "
            f"administrators ({NODE_RESTRICTION_DOC}); a kubelet may never set it on its own Node. Use a label in your own "
            "domain (e.g. example.com/gpu-pool) or apply it from an admin controller"
        )
    if in_domain(key, "kubernetes.io") or in_domain(key, "k8s.io"):
        if key in KUBELET_ALLOWED_LABELS or any(in_domain(key, d) for d in KUBELET_ALLOWED_LABEL_DOMAINS):
            return None
        return (
            f"label {shown(key)} is in the kubernetes.io/k8s.io namespace, which NodeRestriction forbids a "
            "kubelet to set on its own Node (only kubelet.kubernetes.io/, node.kubernetes.io/ and a "
            f"fixed allow-list: {NODE_RESTRICTION_DOC}); the node would fail to join. Use a label in your "
            "own domain, e.g. example.com/role=gpu"
        )
    return None


#: The EKS API's constraints on node group labels (key and value 1-63 characters).
EKS_LABELS_API = "https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateLabelsPayload.html"
#: The label key prefixes the EKS API refuses in a managed node group's labels, and its answer
#: (``InvalidParameterException``, quoted in eksctl-io/eksctl#4007 and aws/containers-roadmap#1451).
EKS_RESERVED_LABEL_PREFIXES = ("kubernetes.io", "k8s.io", "eks.amazonaws.com")
EKS_RESERVED_LABEL_ANSWER = "Label cannot contain reserved prefixes [kubernetes.io/, k8s.io/, eks.amazonaws.com/]"
EKS_RESERVED_LABEL_SOURCE = "https://github.com/aws/containers-roadmap/issues/1451"
#: A managed node group whose labels the kubelet refuses (``node-role.kubernetes.io/*``): its nodes fail to join.
EKS_NODE_LABELS_JOIN = "https://github.com/aws/containers-roadmap/issues/2465"
#: The Kubernetes page of the labels the kubelet and the cloud provider set on every Node themselves.
WELL_KNOWN_LABELS_DOC = "https://kubernetes.io/docs/reference/labels-annotations-taints/"


def eks_label_problem(key: str, value: str) -> str | None:
    """Why an EKS managed node group refuses label ``key=value``, or None.

    Rules: key 1-63 characters and value 1-63 characters (EKS API; unlike Kubernetes, the
    value may not be empty); no key in the ``kubernetes.io``, ``k8s.io`` or ``eks.amazonaws.com``
    domains (:data:`EKS_RESERVED_LABEL_PREFIXES`). Each refusal gives the reason that holds for its key:

    * ``eks.amazonaws.com``: EKS keeps the domain for the labels it sets on managed nodes itself and its API
      answers :data:`EKS_RESERVED_LABEL_ANSWER` (:data:`EKS_RESERVED_LABEL_SOURCE`); NodeRestriction does not
      concern this domain.
    * a ``kubernetes.io`` / ``k8s.io`` key the kubelet may not set on its own Node (:func:`node_restriction_problem`,
      ``node-role.kubernetes.io/gpu``): the EKS API's reserved prefixes, and NodeRestriction besides, since EKS
      hands node group labels to the kubelet's ``--node-labels`` (nodes fail to join: :data:`EKS_NODE_LABELS_JOIN`).
    * a ``kubernetes.io`` / ``k8s.io`` key the kubelet may set (:data:`KUBELET_ALLOWED_LABELS`,
      :data:`KUBELET_ALLOWED_LABEL_DOMAINS`; ``topology.kubernetes.io/zone``): the EKS API's reserved prefixes only; the well-known ones the kubelet and
      the cloud provider set from the instance itself (:data:`WELL_KNOWN_LABELS_DOC`).

    Sources: the length constraints of node group labels in the EKS API reference (:data:`EKS_LABELS_API`);
    the reserved prefixes (:data:`EKS_RESERVED_LABEL_SOURCE`); NodeRestriction (:data:`NODE_RESTRICTION_DOC`).
    """
    if len(key) > EKS_LABEL_MAX:
        return f"label key {shown(key)} is {len(key)} characters; EKS allows at most {EKS_LABEL_MAX} ({EKS_LABELS_API})"
    if value == "":
        return (f"label {shown(key)} has an empty value; EKS node group labels need a value of 1-{EKS_LABEL_MAX} characters "
                f"({EKS_LABELS_API}), e.g. \"true\"")
    domain = next((d for d in EKS_RESERVED_LABEL_PREFIXES if in_domain(key, d)), None)
    if domain is None:
        return None
    refused = (f"a prefix EKS reserves in managed node group labels (its API answers \"{EKS_RESERVED_LABEL_ANSWER}\": "
               f"{EKS_RESERVED_LABEL_SOURCE})")
    own = "use a label in your own domain, e.g. example.com/role=gpu"
    if domain == "eks.amazonaws.com":
        return (
            f"label {shown(key)} is in the eks.amazonaws.com domain, where EKS sets its own labels on managed nodes "
            f"(eks.amazonaws.com/nodegroup, capacityType, nodegroup-image), {refused}; {own}"
        )
    restriction = node_restriction_problem(key)
    if restriction is not None:
        return (
            f"label {shown(key)} is in the {domain} domain, {refused}; and the kubelet may not set it on its own Node "
            f"(NodeRestriction allows only kubelet.kubernetes.io/, node.kubernetes.io/ and a fixed allow-list: "
            f"{NODE_RESTRICTION_DOC}), so nodes given it through --node-labels fail to join ({EKS_NODE_LABELS_JOIN}); {own}"
        )
    if key in KUBELET_ALLOWED_LABELS:
        return (
            f"label {shown(key)} is in the {domain} domain, {refused}. NodeRestriction would let the kubelet set it, and "
            f"the kubelet and the cloud provider already set it on every node from the instance itself "
            f"({WELL_KNOWN_LABELS_DOC}): select on it rather than set it (for a zone, pick the pool's subnetIds in "
            f"that zone), or {own}"
        )
    return (
        f"label {shown(key)} is in the {domain} domain, {refused}. NodeRestriction would let the kubelet set it "
        f"(kubelet.kubernetes.io/ and node.kubernetes.io/: {NODE_RESTRICTION_DOC}), so a self-managed pool may carry "
        f"it; here, {own}"
    )


#: The one ``cloud.google.com`` node label a GKE node pool may carry: a custom ComputeClass uses a node pool
#: created by hand when its nodes carry ``cloud.google.com/compute-class: <class>`` and the taint
#: ``cloud.google.com/compute-class=<class>:NoSchedule`` (GKE "About custom compute classes", section on node pools
#: created by hand, which sets both with ``gcloud container node-pools create --node-labels --node-taints``).
#: hashicorp/terraform-provider-google#19677 reports GKE answering Error 400 for this key from a Terraform
#: *cluster* resource's node config; the documented node pool path is what is accepted here.
GKE_COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
GKE_COMPUTE_CLASS_SOURCE = "https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes#manual-node-pools"


def gke_label_problem(key: str, value: str) -> str | None:
    """Why a GKE node pool (``gcp.container.NodePool`` ``node_config.labels``) refuses ``key=value``, or None.

    Rules, in the order checked:

    1. No key in the ``kubernetes.io`` or ``k8s.io`` domains or their subdomains
       (``node-role.kubernetes.io/gpu`` too): GKE reserves them for Kubernetes core
       components and answers ``Error 400: Applying kubernetes label is not allowed``.
    2. No key in the ``cloud.google.com`` domain: GKE sets those labels itself
       (``cloud.google.com/gke-nodepool``, ``gke-accelerator``, ``gke-spot``...) and refuses
       them as "managed by GKE or Kubernetes"; set the matching node pool field instead. The one
       exception is :data:`GKE_COMPUTE_CLASS_LABEL`, documented for node pools created by hand
       (:data:`GKE_COMPUTE_CLASS_SOURCE`); the pool model checks it is paired with its taint.

    Syntax (qualified-name key, label value) is checked separately by
    :func:`label_syntax_problem`; ``value`` is accepted here for a uniform signature.
    """
    del value  # GKE adds no value rule beyond Kubernetes syntax
    for domain in ("kubernetes.io", "k8s.io"):
        if in_domain(key, domain):
            return (
                f"label {shown(key)} is in the {domain} domain, which GKE reserves for Kubernetes core "
                "components (Error 400: Applying kubernetes label is not allowed); use a label in your "
                "own domain, e.g. example.com/role=gpu"
            )
    if in_domain(key, "cloud.google.com") and key != GKE_COMPUTE_CLASS_LABEL:
        return (
            f"label {shown(key)} is in the cloud.google.com domain, whose node labels GKE manages itself "
            "(gke-nodepool, gke-accelerator, gke-spot...) and refuses to take from a node pool; set the "
            "node pool field instead (accelerator, spot...) or use a label in your own domain (only "
            f"{GKE_COMPUTE_CLASS_LABEL} is taken, for a custom ComputeClass: {GKE_COMPUTE_CLASS_SOURCE})"
        )
    return None
