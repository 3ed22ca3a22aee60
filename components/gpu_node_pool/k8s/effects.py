"""Taint effects and the error of a taint or toleration Kubernetes refuses: their spellings in Kubernetes, EKS
and GKE, and the effect a wrong spelling most likely means. Part of :mod:`gpu_node_pool.k8s.taints`, which
re-exports it; apart so that :mod:`gpu_node_pool.k8s.toleration_rules` can read the effects without importing
the taints and tolerations built on those rules.

Sources: Kubernetes API ``core/v1`` ``TaintEffect`` (``NoSchedule``, ``PreferNoSchedule``, ``NoExecute``;
``validateTaintEffect``, kubernetes ``pkg/apis/core/validation/validation.go``, which ``validateNodeTaints`` applies
to every Node created or updated); the scheduler's ``TaintToleration`` plugin, which filters on ``NoSchedule`` and
``NoExecute`` taints and scores ``PreferNoSchedule`` ones, nothing else (kubernetes
``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``); EKS and GKE spell them
``NO_SCHEDULE`` / ``PREFER_NO_SCHEDULE`` / ``NO_EXECUTE``
(https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html; pulumi_gcp ``NodePoolNodeConfigTaintArgs``).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from ..text.suggest import closest
from ..text.terminal import shown

__all__ = ["EFFECT_RULE", "EFFECT_SPELLINGS", "TaintError", "TaintEffect", "node_effect_problem"]


class TaintError(ValueError):
    """A taint or toleration that Kubernetes would reject. The message says why and how to fix it.

    ``refusal``: for a toleration that breaks a ``ValidateTolerations`` rule, that rule
    (:class:`~gpu_node_pool.k8s.toleration_rules.TolerationRefusal`); None otherwise.
    """

    def __init__(self, *args: Any, refusal: Any = None) -> None:
        super().__init__(*args)
        self.refusal = refusal


# --- effects ----------------------------------------------------------------------------


class TaintEffect(str, Enum):
    """A taint effect, in the Kubernetes spelling (the value of each member).

    * ``NoSchedule``: new pods that do not tolerate the taint are not scheduled.
    * ``PreferNoSchedule``: the scheduler tries to avoid the node; a score, not a rule.
    * ``NoExecute``: like NoSchedule, and running pods that do not tolerate it are evicted.

    EKS and GKE spell them ``NO_SCHEDULE``, ``PREFER_NO_SCHEDULE``, ``NO_EXECUTE``
    (:meth:`provider_spelling`, :meth:`from_provider`).
    """

    NO_SCHEDULE = "NoSchedule"
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    NO_EXECUTE = "NoExecute"

    def __str__(self) -> str:
        return self.value

    @property
    def provider_spelling(self) -> str:
        """The EKS and GKE API spelling: ``NO_SCHEDULE``, ``PREFER_NO_SCHEDULE``, ``NO_EXECUTE``."""
        return _PROVIDER_SPELLING[self]

    @classmethod
    def from_provider(cls, spelling: str) -> TaintEffect:
        """Translate an EKS/GKE effect (``NO_SCHEDULE``...) into a :class:`TaintEffect`.

        Raises:
            TaintError: ``spelling`` is not one of the three provider values.
        """
        for effect, provider in _PROVIDER_SPELLING.items():
            if provider == spelling:
                return effect
        raise TaintError(
            f"{shown(spelling)} is not an EKS/GKE taint effect; expected one of "
            + ", ".join(_PROVIDER_SPELLING.values())
        )

    @classmethod
    def parse(cls, spelling: Any) -> TaintEffect:
        """Parse the Kubernetes spelling; reject everything else with a message that says the fix.

        Raises:
            TaintError: the EKS/GKE spelling, a wrong case, or an unknown effect.
        """
        if isinstance(spelling, TaintEffect):
            return spelling
        if isinstance(spelling, str):
            for effect in cls:
                if effect.value == spelling:
                    return effect
            meant = cls.meant(spelling)
            if meant is not None and meant.provider_spelling == spelling:
                raise TaintError(
                    f"{shown(spelling)} is the EKS/GKE API spelling; write {meant.value} "
                    f"(the component translates it; {EFFECT_RULE})"
                )
            if meant is not None:
                raise TaintError(f"{shown(spelling)} is not a taint effect ({EFFECT_RULE}); did you mean {meant.value}?")
        allowed = ", ".join(e.value for e in cls)
        raise TaintError(f"{shown(spelling)} is not a taint effect ({EFFECT_RULE}); allowed: {allowed}")

    @classmethod
    def meant(cls, spelling: Any) -> TaintEffect | None:
        """The effect a wrong spelling most likely means, or None: the EKS/GKE spelling (``NO_SCHEDULE``), another
        case or ``_``/``-`` (``noschedule``, ``No-Execute``), or a close typo (``NoScheduel``). None for a right
        spelling too (it means itself: :meth:`parse`)."""
        if not isinstance(spelling, str) or isinstance(spelling, TaintEffect) or spelling in _VALUES:
            return None
        for effect, provider in _PROVIDER_SPELLING.items():
            if provider == spelling:
                return effect
        folded = spelling.replace("_", "").replace("-", "").lower()
        for effect in cls:
            if effect.value.lower() == folded:
                return effect
        close = closest(folded, [e.value.lower() for e in cls], cutoff=0.75)
        return next((e for e in cls if e.value.lower() == close), None)

    @property
    def evicts(self) -> bool:
        """True for ``NoExecute``, the only effect that evicts running pods."""
        return self is TaintEffect.NO_EXECUTE

    @property
    def repels(self) -> bool:
        """True for the effects that keep untolerating pods off (``NoSchedule``, ``NoExecute``)."""
        return self is not TaintEffect.PREFER_NO_SCHEDULE


_PROVIDER_SPELLING: dict[TaintEffect, str] = {
    TaintEffect.NO_SCHEDULE: "NO_SCHEDULE",
    TaintEffect.PREFER_NO_SCHEDULE: "PREFER_NO_SCHEDULE",
    TaintEffect.NO_EXECUTE: "NO_EXECUTE",
}
#: The effects as Kubernetes spells them, in declaration order (for messages that list them).
EFFECT_SPELLINGS = tuple(e.value for e in TaintEffect)
_VALUES = frozenset(EFFECT_SPELLINGS)


#: The rule a taint's effect is held to (module docstring), as a message names it.
EFFECT_RULE = "Kubernetes core/v1 TaintEffect, validateTaintEffect in kubernetes pkg/apis/core/validation/validation.go"
#: Where a Node's effect is refused and where the scheduler reads it (module docstring), as a message names them.
_NODE_RULE = ("the API server refuses any other on a Node it creates or updates: validateNodeTaints, kubernetes "
              "pkg/apis/core/validation/validation.go")
_SCHEDULER_RULE = ("its TaintToleration plugin filters on NoSchedule and NoExecute taints and scores PreferNoSchedule "
                   "ones: kubernetes pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go")


def node_effect_problem(spelling: Any) -> tuple[str, str] | None:
    """``(why, fix)`` for the ``effect`` of a taint a Node object carries (``spec.taints[i].effect``) when it is no
    Kubernetes effect, worded for the live object, which no one wrote in a stack file; None for ``NoSchedule``,
    ``PreferNoSchedule`` and ``NoExecute``.

    ``why`` says what the spelling is (the EKS/GKE API spelling of an effect, such as ``NO_SCHEDULE``; another case
    or a typo of one; or unknown), that a Node's taint takes those three only (``validateNodeTaints``), and that the
    scheduler honours no other, so the taint keeps no pod off the node (``TaintToleration``; sources in the module
    docstring). ``fix``: an API server serves no such Node, so a dump that shows one was edited or written by a tool;
    take it again, and where the taint is set write the effect as that place spells it: the EKS/GKE spelling in an
    EKS node group's or GKE node pool's taints (the platform writes the Kubernetes spelling on the node,
    https://docs.aws.amazon.com/eks/latest/APIReference/API_Taint.html), the Kubernetes spelling in a Karpenter
    NodePool's taints, the kubelet's ``--register-with-taints`` and ``kubectl taint``.
    """
    if isinstance(spelling, TaintEffect) or (isinstance(spelling, str) and spelling in _VALUES):
        return None
    meant = TaintEffect.meant(spelling)
    allowed = ", ".join(EFFECT_SPELLINGS)
    if meant is not None and meant.provider_spelling == spelling:
        what = (f"effect {shown(spelling)} is the EKS/GKE API spelling of {meant.value}, which those platforms "
                "translate when they taint a node pool's nodes")
    elif meant is not None:
        what = f"effect {shown(spelling)} is no taint effect (did you mean {meant.value}?)"
    else:
        what = f"effect {shown(spelling)} is no taint effect"
    why = (f"{what}; a Node's taint takes {allowed} only ({_NODE_RULE}), and the scheduler honours no other "
           f"({_SCHEDULER_RULE}), so this taint keeps no pod off the node")
    if meant is not None:
        write = (f"where the taint is set, write {meant.provider_spelling} in an EKS node group's or GKE node pool's "
                 f"taints (the platform writes {meant.value} on the node), and {meant.value} in a Karpenter NodePool's "
                 "taints, the kubelet's --register-with-taints or kubectl taint")
    else:
        providers = ", ".join(_PROVIDER_SPELLING.values())
        write = ("where the taint is set (a node pool's or Karpenter NodePool's taints, the kubelet's "
                 f"--register-with-taints, kubectl taint), write one of {allowed} (in an EKS node group's or GKE node "
                 f"pool's taints: {providers})")
    fix = ("an API server serves no Node with this effect, so a dump that shows one was edited or written by a tool: "
           f"take it again (kubectl get nodes -o json); {write}")
    return why, fix
