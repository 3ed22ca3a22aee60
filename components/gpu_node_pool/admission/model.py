"""What the admission rules are rendered from: the declared pools and the settings, read once from a
validated stack (pure: no Pulumi, no I/O). Both engines (ValidatingAdmissionPolicy and Gatekeeper)
render from one :class:`AdmissionModel`, so a pool's taint changes every rendered rule at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config.defaults import DEFAULT_TAINT, GPU_TOLERATION_ALLOWED_NAMESPACES
from ..gpu_agents.installed import agent_namespaces
from ..k8s.effective import cluster_platform, implied_tolerations, runs_own_api_server
from ..k8s.taints import Taint
from ..k8s.wellknown import NVIDIA_GPU_RESOURCE
from ..text.listing import listed
from ..text.suggest import closest
from ..text.terminal import shown

if TYPE_CHECKING:
    from ..config.stack import StackConfig

__all__ = ["ACTIONS", "WARN_ONLY_ACTIONS", "PoolFacts", "AdmissionModel", "model_of_stack"]

#: ``admission.action`` -> a refusing rule's ``validationActions`` (Deny and Warn together are refused by
#: the API: https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#validation-actions).
ACTIONS: dict[str, list[str]] = {"audit": ["Audit"], "warn": ["Warn", "Audit"], "deny": ["Deny", "Audit"]}
#: ``admission.action`` -> a warn-only rule's ``validationActions``: ``deny`` never refuses with these.
WARN_ONLY_ACTIONS: dict[str, list[str]] = {"audit": ["Audit"], "warn": ["Warn", "Audit"], "deny": ["Warn", "Audit"]}


@dataclass(frozen=True)
class PoolFacts:
    """One declared pool: ``name``, its declared ``taints`` and the ``labels`` its nodes carry."""

    name: str
    taints: tuple[Taint, ...]
    labels: Mapping[str, str]

    @property
    def repelling(self) -> tuple[Taint, ...]:
        """The ``NoSchedule``/``NoExecute`` taints (``PreferNoSchedule`` stops no pod)."""
        return tuple(t for t in self.taints if t.effect.repels)


@dataclass(frozen=True)
class AdmissionModel:
    """Everything an engine renders from.

    Attributes:
        pools: the declared pools in config order.
        action: ``audit`` | ``warn`` | ``deny``.
        allowed_namespaces: exempt from the GPU toleration allow-list (sorted).
        extra_taints: GPU taints of pools outside the stack (the pack's ``extraTaints``).
        users, groups: requesters exempt from the Node rule (service accounts as user names).
        extended_resource_toleration: the API server runs ExtendedResourceToleration admission.
    """

    pools: tuple[PoolFacts, ...]
    action: str = "audit"
    allowed_namespaces: tuple[str, ...] = tuple(sorted(GPU_TOLERATION_ALLOWED_NAMESPACES))
    extra_taints: tuple[Taint, ...] = (DEFAULT_TAINT,)
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    extended_resource_toleration: bool = True
    engine: str = "validating-admission-policy"
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            close = closest(self.action, ACTIONS)
            hint = f"; did you mean {close}?" if close else ""
            raise ValueError(f"admission.action {shown(self.action)} is not one of {listed(ACTIONS)}{hint}")

    def taint_pools(self) -> list[tuple[Taint, list[str]]]:
        """Each GPU taint with the pools that declare it, config order; ``extra_taints`` last with no pool."""
        by_taint: dict[Taint, list[str]] = {}
        for pool in self.pools:
            for taint in pool.taints:
                by_taint.setdefault(taint, []).append(pool.name)
        for taint in self.extra_taints:
            by_taint.setdefault(taint, [])
        return list(by_taint.items())

    def declared_keys(self) -> list[str]:
        """Every taint key a pool declares, first-seen order."""
        return list(dict.fromkeys(t.key for p in self.pools for t in p.taints))


def _ert_enabled(stack: StackConfig) -> bool:
    platform = cluster_platform(p.cluster_platform for p in stack.pools)
    plugins = stack.cluster.admission_plugins if runs_own_api_server(platform) else None
    probe = {"containers": [{"name": "probe", "resources": {"limits": {NVIDIA_GPU_RESOURCE: 1}}}]}
    return bool(implied_tolerations(probe, platform, "Pod", admission_plugins=plugins))


def model_of_stack(stack: StackConfig, pack_config: Mapping[str, Any] | None = None) -> AdmissionModel:
    """The model of a validated stack: its pools' declared taints and node labels, ``admission.action``,
    ``admission.exempt``, and the ``gpu-toleration-allowlist`` entry of ``pack_config`` (``allowedNamespaces``,
    ``extraTaints`` in kubelet form; default the pack's defaults). The namespaces of the agents the program
    installs (:func:`gpu_node_pool.gpu_agents.installed.agent_namespaces`) are allowed too, as in the pack."""
    entry = dict((pack_config or {}).get("gpu-toleration-allowlist") or {})
    allowed = entry.get("allowedNamespaces")
    extra = entry.get("extraTaints")
    admission = stack.admission
    return AdmissionModel(
        pools=tuple(PoolFacts(p.name, tuple(p.taint_list), {**p.platform_node_labels, **p.node_labels}) for p in stack.pools),
        action=admission.action,
        allowed_namespaces=tuple(sorted({*(GPU_TOLERATION_ALLOWED_NAMESPACES if allowed is None else allowed),
                                         *agent_namespaces(stack)})),
        extra_taints=(DEFAULT_TAINT,) if extra is None else tuple(Taint.parse(t) for t in extra),
        users=tuple(admission.exempt.usernames()),
        groups=tuple(admission.exempt.groups),
        extended_resource_toleration=_ert_enabled(stack),
        engine=admission.engine,
    )


def pools_of(pairs: Sequence[tuple[str, Sequence[Taint]]]) -> tuple[PoolFacts, ...]:
    """Pools from ``(name, taints)`` pairs, labelled with the pool label only."""
    from ..k8s.wellknown import POOL_LABEL_KEY

    return tuple(PoolFacts(n, tuple(t), {POOL_LABEL_KEY: n}) for n, t in pairs)
