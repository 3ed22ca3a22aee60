"""``gpu-node-pools:admission``: ValidatingAdmissionPolicy objects rendered from the declared pools.

The objects themselves are rendered by :mod:`gpu_node_pool.admission.render`; this module is the
validated setting only (pure pydantic). Sources:

* ``admissionregistration.k8s.io/v1`` ``ValidatingAdmissionPolicy`` is GA (served by default)
  since Kubernetes 1.30 (https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/),
  so ``enabled: true`` needs ``cluster.kubernetesVersion`` >= 1.30 (:func:`admission_issues`).
* ``validationActions`` ``Deny``, ``Warn``, ``Audit`` (same page, "Validation actions").
* A service account authenticates as ``system:serviceaccount:<namespace>:<name>``
  (https://kubernetes.io/docs/reference/access-authn-authz/authentication/#service-account-tokens).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, field_validator

from .common import Model
from .errors import ConfigIssue, fail

if TYPE_CHECKING:
    from .stack import StackConfig

__all__ = ["ADMISSION_MIN_VERSION", "AdmissionConfig", "AdmissionExempt", "admission_issues"]

#: The first Kubernetes minor version that serves ``admissionregistration.k8s.io/v1`` ValidatingAdmissionPolicy.
ADMISSION_MIN_VERSION = (1, 30)

#: Who may change a pool node's declared taints by default (besides the node's own kubelet, always exempt),
#: per platform, and where each comes from:
#:
#: * Cluster Autoscaler (taints ``ToBeDeletedByClusterAutoscaler``, never a declared key, so exempt only for
#:   safety): ServiceAccount ``cluster-autoscaler`` in ``kube-system`` as its AWS example manifest runs it
#:   (kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml``).
#: * Karpenter (self-installed): the chart's ServiceAccount ``karpenter`` in ``kube-system`` (what
#:   https://karpenter.sh/docs/getting-started/getting-started-with-karpenter/ installs into since v0.33) or
#:   ``karpenter`` (the earlier guides and eksctl's ``pkg/karpenter`` DefaultNamespace).
#: * EKS managed node groups, kubeadm and self-managed nodes: taints are registered by the kubelet
#:   (``--register-with-taints``, nodeadm ``registerWithTaints``), i.e. ``system:node:<name>``.
#: * Identities not defaulted because no public source names them: the EKS control-plane identity that applies
#:   a managed node group's taint update to running nodes (the default users listed at
#:   https://docs.aws.amazon.com/eks/latest/userguide/default-roles-users.html name none that writes Nodes),
#:   EKS Auto Mode's managed Karpenter (https://docs.aws.amazon.com/eks/latest/userguide/auto-learn-iam.html
#:   maps it through access entries without naming the Kubernetes user), and GKE's control plane when
#:   ``gcloud container node-pools update --node-taints`` updates existing nodes
#:   (https://cloud.google.com/kubernetes-engine/docs/how-to/update-existing-nodepools). Run ``action: audit``
#:   first: the audit annotations name the requester (``user.username``) to add to ``exempt``.
DEFAULT_EXEMPT_SERVICE_ACCOUNTS = ("kube-system:cluster-autoscaler", "kube-system:karpenter", "karpenter:karpenter")

_SA = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"


class AdmissionExempt(Model):
    """``admission.exempt``: requesters whose Node updates may change a pool's declared taints.

    The node's own kubelet (``system:node:<node name>``) is always exempt.
    """

    users: list[str] = Field(default_factory=list, description="User names, e.g. [eks:node-manager].")
    groups: list[str] = Field(default_factory=list, description="Groups, e.g. [platform-admins].")
    service_accounts: list[str] = Field(
        default_factory=lambda: list(DEFAULT_EXEMPT_SERVICE_ACCOUNTS),
        description="namespace:name, e.g. [kube-system:cluster-autoscaler]; default Cluster Autoscaler and Karpenter.",
    )

    @field_validator("service_accounts")
    @classmethod
    def _service_accounts(cls, value: list[str]) -> list[str]:
        for i, sa in enumerate(value):
            if not re.match(_SA, sa):
                raise fail(
                    f"[{i}] = {sa!r} is not namespace:name (a service account authenticates as "
                    "system:serviceaccount:<namespace>:<name>, kubernetes.io/docs/reference/access-authn-authz/"
                    "authentication/#service-account-tokens); write e.g. kube-system:cluster-autoscaler"
                )
        return value

    def usernames(self) -> list[str]:
        """``users`` and each service account's user name (``system:serviceaccount:<ns>:<name>``), in order."""
        return list(dict.fromkeys([*self.users, *(f"system:serviceaccount:{sa}" for sa in self.service_accounts)]))


class AdmissionConfig(Model):
    """``gpu-node-pools:admission``: install ValidatingAdmissionPolicies derived from the pools.

    Attributes:
        enabled: render and install them (default False).
        engine: ``validating-admission-policy`` (default; needs Kubernetes >= 1.30) or ``gatekeeper``
            (ConstraintTemplates ``templates.gatekeeper.sh/v1`` with Rego v1 sources, which Gatekeeper
            accepts from 3.19: https://open-policy-agent.github.io/gatekeeper/website/docs/constrainttemplates/).
        action: ``audit`` (default) -> ``validationActions: [Audit]``, ``warn`` -> ``[Warn, Audit]``,
            ``deny`` -> ``[Deny, Audit]``.
        exempt: who may change declared node taints (:class:`AdmissionExempt`).
    """

    yaml_example: ClassVar[str] = "{enabled: true, engine: validating-admission-policy, action: deny, exempt: {serviceAccounts: [kube-system:cluster-autoscaler]}}"
    enabled: bool = False
    engine: Literal["validating-admission-policy", "gatekeeper"] = Field(
        "validating-admission-policy",
        description="validating-admission-policy (Kubernetes >= 1.30) | gatekeeper (a cluster that runs Gatekeeper >= 3.19).",
    )
    action: Literal["audit", "warn", "deny"] = Field("audit", description="audit | warn | deny.")
    exempt: AdmissionExempt = Field(default_factory=AdmissionExempt)


def admission_issues(stack: StackConfig) -> list[ConfigIssue]:
    """``admission.engine: validating-admission-policy`` (enabled) with ``cluster.kubernetesVersion`` below 1.30 is
    an error (the API is not served)."""
    version = stack.cluster.kubernetes_version
    if not stack.admission.enabled or version is None or stack.admission.engine != "validating-admission-policy":
        return []
    major, minor = (int(x) for x in version.split("."))
    if (major, minor) >= ADMISSION_MIN_VERSION:
        return []
    return [ConfigIssue(
        "admission.engine",
        f"validating-admission-policy needs Kubernetes >= 1.30, but cluster.kubernetesVersion is {version!r}: "
        "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy is GA and served from 1.30 "
        "(https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/); "
        "upgrade the cluster to 1.30 or later, set admission.engine: gatekeeper (a cluster that runs Gatekeeper), "
        "or set admission.enabled: false",
    )]
