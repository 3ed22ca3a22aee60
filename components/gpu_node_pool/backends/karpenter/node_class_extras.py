"""Pass-through fields of the ``EC2NodeClass`` the component creates: ``blockDeviceMappings``,
``kubelet``, ``instanceStorePolicy`` and ``userData`` (``nodeClass`` keys of a karpenter pool).

Shapes and bounds are the EC2NodeClass v1 CRD's (karpenter.k8s.aws/v1, aws/karpenter-provider-aws
``pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml``; the field reference is
https://karpenter.sh/docs/concepts/nodeclasses/). They are rendered as given; none of them may carry
what the pool declares elsewhere:

* ``userData`` is read back with the bootstrap readers (:mod:`gpu_node_pool.backends._shared.user_data`):
  Karpenter merges its own kubelet settings into it, taints and labels from the NodePool included
  (nodeclasses ``spec.userData``). Taints or labels registered there are unknown to Karpenter's
  scheduling simulation and to the policies, so they are refused (declare them as the pool's
  ``taints``/``labels``); a taint setting the readers cannot parse (the shared
  :func:`~gpu_node_pool.backends._shared.registration_mentions.unreadable_registration_mentions`) is
  refused too, as not judged.
* ``kubelet`` holds only the CRD's kubelet fields (none of them sets taints or labels).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from ...config.common import Model, fail
from ...k8s.patterns import full_match

__all__ = ["EbsVolume", "BlockDeviceMapping", "KarpenterKubelet", "user_data_problem", "to_k8s_fields"]

_SOURCE = "https://karpenter.sh/docs/concepts/nodeclasses/"
#: EC2NodeClass CRD: ``ebs.volumeSize`` (a quantity, 1Gi..64T as the CRD's pattern bounds it).
_VOLUME_SIZE_RE = (r"^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}"
                   r"|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$")


class EbsVolume(Model):
    """``blockDeviceMappings[].ebs``: the EBS volume (EC2NodeClass CRD)."""

    volume_size: str | None = Field(None, description="e.g. 100Gi (1Gi-64T).")
    volume_type: Literal["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"] | None = None
    iops: int | None = Field(None, ge=0)
    throughput: int | None = Field(None, ge=0, description="MiB/s (gp3).")
    encrypted: bool | None = None
    kms_key_id: str | None = Field(None, alias="kmsKeyID")
    delete_on_termination: bool | None = None
    snapshot_id: str | None = Field(None, alias="snapshotID")

    @field_validator("volume_size")
    @classmethod
    def _size(cls, size: str | None) -> str | None:
        if size is not None and not full_match(_VOLUME_SIZE_RE, size):
            raise fail(f"{size!r} is not an EBS volume size the EC2NodeClass accepts, e.g. 100Gi or 2Ti ({_SOURCE})")
        return size


class BlockDeviceMapping(Model):
    """``blockDeviceMappings[]``: ``{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 200Gi, volumeType: gp3}}``."""

    device_name: str | None = Field(None, description="e.g. /dev/xvda (AL2023 root), /dev/xvdb (Bottlerocket data).")
    root_volume: bool | None = Field(None, description="The volume holds the root filesystem (at most one).")
    ebs: EbsVolume | None = None


class KarpenterKubelet(Model):
    """``kubelet``: the CRD's kubelet settings (maxPods, reserved resources, eviction, image GC, CFS quota, DNS)."""

    max_pods: int | None = Field(None, ge=0)
    pods_per_core: int | None = Field(None, ge=0)
    system_reserved: dict[str, str] | None = None
    kube_reserved: dict[str, str] | None = None
    eviction_hard: dict[str, str] | None = None
    eviction_soft: dict[str, str] | None = None
    eviction_soft_grace_period: dict[str, str] | None = None
    eviction_max_pod_grace_period: int | None = None
    image_gc_high_threshold_percent: Annotated[int, Field(ge=0, le=100)] | None = Field(
        None, alias="imageGCHighThresholdPercent")
    image_gc_low_threshold_percent: Annotated[int, Field(ge=0, le=100)] | None = Field(
        None, alias="imageGCLowThresholdPercent")
    cpu_cfs_quota: bool | None = Field(None, alias="cpuCFSQuota")
    cluster_dns: list[str] | None = Field(None, alias="clusterDNS")


def user_data_problem(user_data: str) -> str | None:
    """Why ``nodeClass.userData`` is refused, or None: it registers taints or labels, or mentions a
    taint/label setting the readers cannot parse (see the module docstring)."""
    from .._shared.registration_mentions import unreadable_registration_mentions
    from .._shared.user_data import read_registration

    bad = next((c for c in user_data if (ord(c) < 32 and c not in "\t\n\r") or ord(c) == 127), None)
    if bad is not None:
        return (f"nodeClass.userData holds the control character {bad!r}; user data is a script, MIME or TOML text "
                f"({_SOURCE}, spec.userData): write it as text")
    try:
        registration = read_registration(user_data)
    except ValueError as err:  # TaintError is a ValueError
        return (f"nodeClass.userData sets kubelet taints or labels that do not parse ({err}); Karpenter sets them "
                f"from the NodePool ({_SOURCE}, spec.userData): declare them as the pool's taints and labels")
    if registration.taints or registration.labels:
        what = [str(t) for t in registration.taints] + [f"{k}={v}" for k, v in registration.labels.items()]
        return (f"nodeClass.userData registers the node with {what}: Karpenter merges the NodePool's taints and labels "
                f"into userData itself ({_SOURCE}, spec.userData) and does not know these, so its NodeClaims and the "
                "policies would not see them; declare them as the pool's taints and labels")
    unreadable = unreadable_registration_mentions(user_data)
    if unreadable:
        return (f"nodeClass.userData mentions a kubelet taint setting in a form the bootstrap readers cannot parse "
                f"(not judged), in {unreadable[0]!r}; Karpenter sets taints and labels from the NodePool: declare them as "
                "the pool's taints and labels and remove them from userData")
    return None


def to_k8s_fields(node_class: Any) -> dict[str, Any]:
    """The pass-through ``spec`` fields of the EC2NodeClass, camelCase, only those given."""
    out: dict[str, Any] = {}
    if node_class.block_device_mappings:
        out["blockDeviceMappings"] = [m.model_dump(by_alias=True, exclude_none=True) for m in node_class.block_device_mappings]
    if node_class.kubelet is not None:
        out["kubelet"] = node_class.kubelet.model_dump(by_alias=True, exclude_none=True)
    if node_class.instance_store_policy is not None:
        out["instanceStorePolicy"] = node_class.instance_store_policy
    if node_class.user_data is not None:
        out["userData"] = node_class.user_data
    return out
