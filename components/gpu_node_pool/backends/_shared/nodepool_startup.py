"""A NodePool pool's boot taints: ``startupTaints`` and ``startupTaintsFor``, one definition for every backend that
writes a ``karpenter.sh/v1`` NodePool.

Karpenter's NodePool ``spec.template.spec.startupTaints`` (kubernetes-sigs/karpenter ``karpenter.sh_nodepools.yaml``
v1.14.1; https://karpenter.sh/docs/concepts/nodepools/) holds taints an agent removes once it is ready; Karpenter counts
a node initialized only when they are gone. EKS Auto Mode's NodePools are the same ``karpenter.sh/v1`` NodePool (EKS
user guide create-node-pool, ``apiVersion: karpenter.sh/v1``), so both backends' pools take the two keys.
:class:`StartupTaintsPool` declares them; ``backends/_shared/nodepool.py`` ``nodepool_manifest`` writes
:attr:`StartupTaintsPool.startup_taint_list` as ``startupTaints``; policy ``karpenter-startup-taints`` checks them
against the agents the stack runs.
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from ...config.common import TaintConfig, TaintItem, fail
from ...k8s.taints import Taint, nodepool_permanent_startup_taints, nodepool_taint_repeat_problem
from ...text.listing import listed
from .nodepool_config import NodePoolBase


class StartupTaintsPool(NodePoolBase):
    """A NodePool pool with boot taints: ``startupTaints`` (taints in any form the pool's ``taints`` take) and
    ``startupTaintsFor`` (agent names of the sourced table ``gpu_node_pool.k8s.startup_taints``). Startup taints are
    never part of ``taint_list``, so no toleration is derived from them.

    Refused, with Karpenter's rule and source: a key+effect both in ``taints`` and ``startupTaints`` (``duplicate
    taint Key/Effect pair``, :func:`~gpu_node_pool.k8s.taints.nodepool_taint_repeat_problem`), the GPU taint as a
    startup taint (no agent removes it: :func:`~gpu_node_pool.k8s.taints.nodepool_permanent_startup_taints`), and an
    agent name the table lacks.
    """

    startup_taints: list[TaintItem] = Field(
        default_factory=list,
        description="Taints present at boot until an agent removes them; not tolerated by the device plugin.",
    )
    startup_taints_for: list[str] = Field(
        default_factory=list,
        description="Agents whose boot taint to add to startupTaints from the sourced table (gpu_node_pool.k8s.startup_taints): "
        "cilium | ebs-csi | efs-csi | istio-cni.",
    )

    @field_validator("startup_taints")
    @classmethod
    def _startup_taints(cls, startup: list[TaintConfig], info: ValidationInfo) -> list[TaintConfig]:
        own = [t.to_taint() for t in startup]
        problem = nodepool_taint_repeat_problem([t.to_taint() for t in info.data.get("taints") or []], own)
        permanent = nodepool_permanent_startup_taints(own)
        if problem or permanent:
            raise fail("; ".join([*([problem] if problem else []), *permanent]))
        return startup

    @field_validator("startup_taints_for")
    @classmethod
    def _startup_taints_for(cls, names: list[str]) -> list[str]:
        from ...k8s.startup_taints import AGENTS

        known = [a.name for a in AGENTS]
        bad = [n for n in names if n not in known]
        if bad:
            raise fail(f"{listed(bad, quote=True)} are not agents of the boot-taint table; use some of {listed(known)}")
        return names

    def config_warnings(self) -> list[tuple[str, str]]:
        """The NodePool warnings (:meth:`NodePoolBase.config_warnings`) and :meth:`startup_taint_warnings`."""
        return super().config_warnings() + self.startup_taint_warnings()

    def startup_taint_warnings(self) -> list[tuple[str, str]]:
        """``[("startupTaints[i]", message)]`` for each declared startup taint no known agent removes
        (:func:`~gpu_node_pool.k8s.startup_taints.unremoved_startup_taint_warning`); the entries of
        ``startupTaintsFor`` name their agent and are never warned about."""
        from ...k8s.startup_taints import unremoved_startup_taint_warning

        out = []
        for i, item in enumerate(self.startup_taints):
            warning = unremoved_startup_taint_warning(item.to_taint())
            if warning:
                out.append((f"startupTaints[{i}]", warning))
        return out

    @property
    def startup_taint_list(self) -> list[Taint]:
        """Startup taints as :class:`Taint`, in config order (never in ``taint_list``): ``startupTaints``,
        then the entries of ``startupTaintsFor`` agents not already there (same key and effect)."""
        from ...k8s.startup_taints import startup_taints_for

        own = [t.to_taint() for t in self.startup_taints]
        taken = {o.identity for o in own}
        return own + [t for t in startup_taints_for(self.startup_taints_for) if t.identity not in taken]
