"""The name Pulumi derives from a ``GpuNodePool``'s name for a gke pool's ``gcp.container.NodePool``
(:mod:`.._shared.cloud_names`): the component leaves the node pool's ``name`` out, so Pulumi autonames it
``<name>-node-pool-<7 random characters>`` (the suffix shows in the API error quoted in pulumi/pulumi-gcp#1510,
``primaryPreemptibleNodes-b8a97f9``)."""

from __future__ import annotations

from typing import Any

from .._shared.cloud_names import NameRule, first_autoname_problem

__all__ = ["NODE_POOL_NAME", "resource_name_problem"]

#: The GKE node pool name rule, as the GKE API refuses a longer or other name (its error, quoted in
#: pulumi/pulumi-gcp#1510: "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?)' ... must be no longer
#: than 40 characters"; GoogleCloudPlatform/magic-modules#18477: "GKE's 40-character limit for NodePool.name").
NODE_POOL_NAME = NameRule("node_pool", 40, r"[a-z]([-a-z0-9]{0,38}[a-z0-9])?", (
    "a GKE node pool name must fit (a lower-case letter, then lower-case letters, digits and '-', ending with a "
    "letter or digit, at most 40 characters: the GKE API's refusal quoted in pulumi/pulumi-gcp#1510; "
    "GoogleCloudPlatform/magic-modules#18477)"))


def resource_name_problem(name: str, pool: Any = None) -> str | None:
    """Why GKE refuses the name Pulumi gives the node pool of the ``GpuNodePool`` ``name``, or None. ``pool``: the
    pool's validated model, when known (every gke pool creates its node pool)."""
    from . import BACKEND

    return first_autoname_problem(name, BACKEND, [NODE_POOL_NAME])
