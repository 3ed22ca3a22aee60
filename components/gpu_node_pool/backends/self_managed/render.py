"""Pure renderers of self-managed pools with ``provider: aws``: pool + cluster -> the EC2 provider
inputs (AMI parameter, user data, launch template and Auto Scaling group arguments, Cluster
Autoscaler tags), plain values that ``resources.py`` registers. The bootstrap texts themselves are
rendered by :mod:`.bootstrap`, one renderer per format; :mod:`.read` reads them back."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the config models are only needed for type hints and the pool helpers
    from ...config import ClusterConfig

from ...gpu_agents.capacity import autoscaler_resources
from ...gpu_agents.mig import bottlerocket_settings
from ...sdk.identity import replaced
from .._shared.capacity import capacity_reservation_spec
from .._shared.cluster_autoscaler import (
    CA_CLUSTER_TAG_PREFIX,
    CA_ENABLED_TAG,
    CLUSTER_OWNED_TAG_PREFIX,
    ca_node_template_tags,
)
from .._shared.efa import efa_enabled
from .._shared.efa import launch_template_args as efa_launch_template_args
from .._shared.registration import ClusterInfo, Registration
from . import spot
from .bootstrap import FORMATS, render_bootstrap, render_bottlerocket_user_data

# --- a pool's bootstrap and its EC2 wiring (plain values; pool.py makes the resources) ---


def ami_ssm_parameter(fmt: str, kubernetes_version: str, arch: str) -> str:
    """The public SSM parameter holding the NVIDIA AMI id for ``fmt``, e.g.
    ``/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id``.

    Raises:
        ValueError: ``fmt`` has no published NVIDIA AMI (al2, kubeadm, kubelet) or ``arch`` is
            not ``x86_64``/``arm64``.
    """
    template = FORMATS[fmt].ssm_parameter
    if template is None:
        raise ValueError(f"format {fmt!r} has no public NVIDIA AMI parameter; set amiId")
    if arch not in ("x86_64", "arm64"):
        raise ValueError(f"arch {arch!r} must be x86_64 or arm64")
    return template.format(version=kubernetes_version, arch=arch)


def bootstrap_files(pool: Any, cluster: ClusterConfig) -> dict[str, str]:
    """The pool's rendered bootstrap: ``{file name: text}`` (see :data:`FORMATS`); a Bottlerocket pool with
    ``mig`` or ``gpuSharing`` also carries Bottlerocket's device-plugin settings in its TOML
    (``gpu_agents/mig.py`` ``bottlerocket_settings``)."""
    reg, info = Registration.of_pool(pool), ClusterInfo.from_config(cluster)
    settings = bottlerocket_settings(pool)
    if settings:
        return {"user-data.toml": render_bottlerocket_user_data(reg, info, settings)}
    return render_bootstrap(pool.format, reg, info)


def user_data(pool: Any, cluster: ClusterConfig, files: Any = None) -> Any:
    """The EC2 user data of an ``al2023``/``bottlerocket``/``al2`` pool (not yet base64).

    ``files``: the pool's :func:`bootstrap_files`, when the caller has rendered them already;
    a Pulumi Output of them (identity values that are Outputs, rendered with
    ``Output.all(...).apply(bootstrap_files)``) gives an Output of the text.

    Raises:
        ValueError: the pool's format is not launched on EC2 by the component.
    """
    if not FORMATS[pool.format].ec2:
        raise ValueError(f"format {pool.format!r} is not EC2 user data; use provider none")
    files = files if files is not None else bootstrap_files(pool, cluster)
    return _lift(files, _only_text)


def _only_text(files: dict[str, str]) -> str:
    (text,) = files.values()
    return text


def _lift(value: Any, fn: Any) -> Any:
    """``fn(value)``, or ``value.apply(fn)`` for a Pulumi Output (duck-typed: this module is pure)."""
    return value.apply(fn) if hasattr(value, "apply") else fn(value)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


#: Stands for a cluster name that is a Pulumi Output while tags are built, then replaced by it.
_NAME = "\x00cluster-name\x00"


def _named(cluster: ClusterConfig) -> ClusterConfig:
    return replaced(cluster, name=_NAME) if hasattr(cluster.name, "apply") else cluster


def _fill(value: Any, name: Any) -> Any:
    if isinstance(value, str) and _NAME in value:
        return name.apply(lambda n: value.replace(_NAME, n))
    return value


def ca_auto_discovery_tags(cluster_name: str) -> dict[str, str]:
    """``k8s.io/cluster-autoscaler/enabled`` and ``k8s.io/cluster-autoscaler/<cluster>``: the tags
    Cluster Autoscaler's default ``--node-group-auto-discovery`` looks for (values are not read)."""
    return {CA_ENABLED_TAG: "true", CA_CLUSTER_TAG_PREFIX + cluster_name: "owned"}


def ca_tags(pool: Any, cluster: ClusterConfig) -> dict[str, str]:
    """Every Cluster Autoscaler tag of the pool's Auto Scaling group, sorted by key.

    Auto-discovery tags plus ``node-template/label/<k>`` = ``<v>``, ``node-template/taint/<k>`` =
    ``<v>:<Effect>`` (from the same :class:`Registration` the user data is rendered from, so the
    two agree by construction) and ``node-template/resources/nvidia.com/gpu`` = what the node advertises:
    GPUs per node x ``gpuSharing.replicas``, or the MIG devices (``agents.capacity.autoscaler_resources``).
    With a cluster name that is a Pulumi Output, ``k8s.io/cluster-autoscaler/<cluster>`` cannot be a
    plain key and is left out here (:func:`autoscaling_group_tags` still puts it on the group).

    Raises:
        ValueError: a taint key with several effects (config validation refuses it for aws pools).
    """
    reg = Registration.of_pool(pool)
    resources = {k: str(v) for k, v in autoscaler_resources(pool).items()} or None  # GPUs x replicas, or MIG devices
    tags = ca_node_template_tags(list(reg.taints), reg.labels, resources)
    discovery = ca_auto_discovery_tags(cluster.name) if isinstance(cluster.name, str) else {CA_ENABLED_TAG: "true"}
    return dict(sorted((tags | discovery).items()))


def autoscaling_group_tags(pool: Any, cluster: ClusterConfig) -> list[dict[str, Any]]:
    """``aws.autoscaling.Group.tags``: ``[{key, value, propagate_at_launch}]``, sorted by key.

    Cluster Autoscaler tags stay on the group (``propagate_at_launch: False``); ``Name``,
    ``kubernetes.io/cluster/<cluster>`` = ``owned`` (the AWS cloud provider's cluster tag for
    self-managed nodes), ``gpu-node-pools/pool`` and the pool's ``tags`` go to the instances.
    A cluster name that is a Pulumi Output gives Output keys/values where the name appears.
    """
    name, cluster = cluster.name, _named(cluster)
    node_tags = {
        "Name": f"{cluster.name}-{pool.name}",
        CLUSTER_OWNED_TAG_PREFIX + cluster.name: "owned",
        "gpu-node-pools/pool": pool.name,
    } | dict(pool.tags)
    out = [{"key": k, "value": v, "propagate_at_launch": True} for k, v in node_tags.items()]
    out += [{"key": k, "value": v, "propagate_at_launch": False} for k, v in ca_tags(pool, cluster).items()]
    out = sorted(out, key=lambda t: t["key"])
    return [{k: _fill(v, name) for k, v in t.items()} for t in out] if name is not cluster.name else out


def launch_template_args(
    pool: Any, cluster: ClusterConfig, *, image_id: Any, instance_profile_arn: Any,
    files: Any = None, placement_group_name: Any = None,
) -> dict[str, Any]:
    """Keyword arguments of ``aws.ec2.LaunchTemplate`` for an aws pool (``image_id`` and the
    instance profile ARN may be Outputs; they are passed through).

    ``user_data`` is base64 (EC2 wants it so); ``metadata_options`` require IMDSv2
    (``http_tokens: required``) with a hop limit of 1, so pods off the host network cannot
    reach the node role's credentials (Karpenter's EC2NodeClass default; EKS best practices);
    ``instance_type`` is the first instance type (with several, the group's mixed instances
    policy overrides it, and policies still see a GPU type here); ``diskSize`` sizes :attr:`BootstrapFormat.data_volume` (gp3, encrypted).
    With ``efa.enabled``: ``network_interfaces`` (one ``efa`` interface per network card, the groups on
    each, no ``vpc_security_group_ids``) and ``placement.group_name`` = ``placement_group_name``
    (the terraform-aws-eks EFA pattern; :mod:`gpu_node_pool.backends._shared.efa`).
    """
    fmt = FORMATS[pool.format]
    args: dict[str, Any] = {
        "description": f"gpu-node-pools {pool.name}: {pool.format} bootstrap, taints at kubelet registration",
        "image_id": image_id,
        "user_data": _lift(user_data(pool, cluster, files), _b64),
        "iam_instance_profile": {"arn": instance_profile_arn},
        "metadata_options": {"http_endpoint": "enabled", "http_tokens": "required", "http_put_response_hop_limit": 1},
        "update_default_version": True,
        "tags": {"gpu-node-pools/pool": pool.name} | dict(pool.tags),
    }
    if pool.instance_types:
        args["instance_type"] = pool.instance_types[0]
    if pool.security_group_ids:
        args["vpc_security_group_ids"] = list(pool.security_group_ids)
    if pool.disk_size is not None:
        args["block_device_mappings"] = [
            {
                "device_name": fmt.data_volume,
                "ebs": {"volume_size": pool.disk_size, "volume_type": "gp3", "encrypted": "true", "delete_on_termination": "true"},
            }
        ]
    spec = capacity_reservation_spec(None, pool.capacity_reservation)  # ODCR (CloudFormation CapacityReservationSpecification)
    if spec is not None:
        args["capacity_reservation_specification"] = spec
    if efa_enabled(pool):  # EFA: groups move onto the interfaces (EC2: not on both)
        args.pop("vpc_security_group_ids", None)
        args |= efa_launch_template_args(pool.instance_types or [], pool.efa_security_groups, placement_group_name)
    return args


def autoscaling_group_args(
    pool: Any, cluster: ClusterConfig, *, launch_template_id: Any, launch_template_version: Any
) -> dict[str, Any]:
    """Keyword arguments of ``aws.autoscaling.Group`` for an aws pool.

    Sizes from ``scaling`` (``desired_capacity`` starts at ``desiredSize``/``minSize``; Cluster
    Autoscaler moves it later), subnets from the pool or the cluster, the launch template
    (or a mixed instances policy with one override per instance type: all On-Demand, or the
    ``spot`` distribution of :mod:`.spot`), ``capacity_rebalance`` (default true with ``spot``) and
    :func:`autoscaling_group_tags`.
    """
    assert pool.scaling is not None and pool.instance_types  # config validation guarantees both
    args: dict[str, Any] = {
        "min_size": pool.scaling.min_size,
        "max_size": pool.scaling.max_size,
        "desired_capacity": pool.scaling.desired,
        "vpc_zone_identifiers": _lift(pool.subnet_ids or cluster.subnet_ids or [], list),
        "tags": autoscaling_group_tags(pool, cluster),
    }
    if len(pool.instance_types) == 1 and pool.spot is None:
        args["launch_template"] = {"id": launch_template_id, "version": launch_template_version}
    else:
        args["mixed_instances_policy"] = {
            "launch_template": {
                "launch_template_specification": {
                    "launch_template_id": launch_template_id,
                    "version": launch_template_version,
                },
                "overrides": [{"instance_type": t} for t in pool.instance_types],
            },
            "instances_distribution": spot.instances_distribution(pool),
        }
    rebalance = spot.capacity_rebalance(pool)
    if rebalance is not None:
        args["capacity_rebalance"] = rebalance
    return args


def role_name_from_arn(role_arn: str) -> str:
    """``arn:aws:iam::111122223333:role/path/ml-gpu-node`` -> ``ml-gpu-node`` (what an instance profile takes)."""
    return role_arn.rsplit("/", 1)[-1]
