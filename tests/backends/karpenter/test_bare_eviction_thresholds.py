"""A bare number as an eviction threshold is that many bytes once quoted; the fix offers a percentage or a
quantity with its unit (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/)."""

from __future__ import annotations

from builders import config_issues

EKS = {"name": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/n", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}


def test_karpenter_eviction_hard_of_a_bare_number_offers_a_percentage_or_a_quantity():
    pool = {"name": "burst", "backend": "karpenter", "instanceFamilies": ["g6e"], "limits": {"nvidia.com/gpu": 8},
            "nodeClass": {"kubelet": {"evictionHard": {"memory.available": 5}}}}
    ((path, message),) = config_issues({"cluster": EKS, "pools": [pool]})
    assert path == "pools[0].nodeClass.kubelet.evictionHard['memory.available']"
    assert "memory.available: '5%'" in message and "memory.available: '500Mi'" in message
    assert "5 would mean 5 bytes" in message and "quote it" not in message


def test_eks_managed_kubelet_config_eviction_of_a_bare_number_offers_both_forms():
    pool = {"name": "b", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
            "kubelet": {"config": {"evictionSoft": {"nodefs.inodesFree": 5}}}}
    ((_, message),) = config_issues({"cluster": EKS, "pools": [pool]})
    assert "nodefs.inodesFree: '5%'" in message and "nodefs.inodesFree: '1000'" in message
    assert "5 would mean 5 inodes" in message and "quote it: nodefs.inodesFree: '5'" not in message
