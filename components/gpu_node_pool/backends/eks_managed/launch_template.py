"""The launch template an eks-managed pool gets for reserved capacity, and the node group inputs that use it.

Sources: EKS user guide https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html (a
Capacity Block node group is created only
from a launch template with ``InstanceMarketOptions.MarketType = capacity-block``, the reservation as
``CapacityReservationTarget`` and the one instance type in the template, the node group listing none:
https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html; terraform-aws-modules/terraform-aws-eks@v21.19.0
``modules/eks-managed-node-group/main.tf`` sets the type on the template and ``instance_types = null``); an
On-Demand Capacity Reservation needs a custom launch template with its target or preference
(aws-ia/terraform-aws-eks-blueprints ``patterns/targeted-odcr``; CloudFormation
``AWS::EC2::LaunchTemplate CapacityReservationSpecification``). Pure: pulumi_aws ``ec2.LaunchTemplate`` / ``eks.NodeGroup`` keyword arguments as plain values.
"""

from __future__ import annotations

import base64
from typing import Any

from .._shared.capacity import capacity_reservation_spec
from .bottlerocket import writes_settings
from .capacity import CAPACITY_BLOCK, uses_launch_template
from .kubelet import kubelet_settings

__all__ = ["launch_template_args", "node_group_overrides", "user_data_text", "uses_launch_template"]

#: EC2 ``InstanceMarketOptions.MarketType`` of a Capacity Block launch (EKS user guide capacity-blocks-mng).
CAPACITY_BLOCK_MARKET = "capacity-block"


def launch_template_args(pool: Any) -> dict[str, Any] | None:
    """``aws.ec2.LaunchTemplate`` keyword arguments for ``pool``, or None when it needs no template.

    Capacity Block: ``instance_type`` (the one type), ``instance_market_options.market_type =
    capacity-block`` and ``capacity_reservation_specification.capacity_reservation_target.
    capacity_reservation_id``. ODCR: ``capacity_reservation_specification`` with the target
    (``capacity_reservation_id`` | ``capacity_reservation_resource_group_arn``) or
    ``capacity_reservation_preference``. ``kubelet`` settings: ``user_data`` (base64 MIME, one
    NodeConfig part: :mod:`.kubelet`); Bottlerocket settings or MIG on a ``BOTTLEROCKET_*`` pool:
    ``user_data`` (base64 TOML: :mod:`.bottlerocket`). Tags: ``gpu-node-pools/pool``. No image, instance profile,
    subnet or shutdown behaviour: EKS forbids them in a managed node group's template (EKS user guide launch-templates).
    """
    if not uses_launch_template(pool):
        return None
    cb = pool.capacity_type == CAPACITY_BLOCK
    uses = [("reserved capacity", cb or pool.capacity_reservation is not None), ("EFA", pool.efa is not None and pool.efa.enabled),
            ("kubelet settings", kubelet_settings(pool) != {}), ("Bottlerocket settings", writes_settings(pool))]
    args: dict[str, Any] = {"description": f"gpu-node-pools pool {pool.name}: {' and '.join(u for u, on in uses if on)}"}
    if cb:
        args["instance_type"] = pool.instance_types[0]
        args["instance_market_options"] = {"market_type": CAPACITY_BLOCK_MARKET}
    spec = capacity_reservation_spec(pool.capacity_reservation_id if cb else None, pool.capacity_reservation)
    if spec is not None:
        args["capacity_reservation_specification"] = spec
    text = user_data_text(pool)
    if text is not None:  # a NodeConfig part or Bottlerocket TOML; EKS merges it with its own (kubelet.py, bottlerocket.py)
        args["user_data"] = base64.b64encode(text.encode()).decode()
    args["tags"] = {"gpu-node-pools/pool": pool.name}
    return args


def user_data_text(pool: Any) -> str | None:
    """The launch template's user data (not base64) for ``pool``: the ``kubelet`` NodeConfig part
    (:func:`.kubelet.user_data`) or the Bottlerocket TOML (:func:`.bottlerocket.user_data`), or None."""
    from .bottlerocket import user_data as bottlerocket_user_data
    from .kubelet import user_data as kubelet_user_data

    return kubelet_user_data(pool) or bottlerocket_user_data(pool)


def node_group_overrides(pool: Any, args: dict[str, Any], template_id: Any, template_version: Any) -> dict[str, Any]:
    """``args`` (from :func:`render.node_group_args`) using the launch template: ``launch_template =
    {id, version}``, and for a Capacity Block no ``instance_types`` (the type is in the template)."""
    out = dict(args)
    out["launch_template"] = {"id": template_id, "version": template_version}
    if pool.capacity_type == CAPACITY_BLOCK:
        out.pop("instance_types", None)
    return out
