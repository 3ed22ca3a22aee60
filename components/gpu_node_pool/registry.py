"""The backend registry: the one list of backends, and what each one contributes.

A backend is one folder under ``backends/`` (``eks_managed/``, ``gke/``, ``karpenter/``,
``self_managed/``) whose ``__init__.py`` calls :func:`register` with a :class:`Backend`.
This module sits at the top of the package, below ``config`` and ``backends`` alike, so that
the config can build its pool union from the registry without an import cycle between the
two packages (an import-linter contract checks it); it imports nothing of the package.
Everything else asks this registry (or the pool model, for what differs per pool) instead of
branching on backend names: the stack config (:mod:`gpu_node_pool.config.stack` builds its pool
union from :func:`all_backends` and runs each backend's ``stack_checks`` and the
:data:`STACK_RULES`), the pool models' name rule (``pool_name``), the config warnings (``stack_warnings``), the GPU agents (``gpu_sharing``,
``mig``, ``bottlerocket_release``), the policies (``startup_taints``, ``autoscaler_tags``, ``autoscaler_group_api``, ``untolerated_not_judged``),
:class:`~gpu_node_pool.component.pool.GpuNodePool` (``wire``), the plan (``summarise`` and
``report``), ``gpupool render`` (``export``) and the policies' pool detection
(``detect`` for the resources whose type tokens the backend lists in ``detects``).

Functions (and the pool model) are given as ``"module:name"`` strings relative to the backend's
package and imported on first use, so that reading the config never imports the Pulumi SDK (an
import contract in ``pyproject.toml`` checks it), and importing the CLI loads neither every
backend's renderers nor pydantic and the config models (a test checks the latter).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "AutoscalerGroupApi",
    "Backend",
    "PinnedRelease",
    "PoolNameLimit",
    "STACK_RULES",
    "register",
    "unregister",
    "get",
    "find",
    "all_backends",
    "names",
    "by_detected_type",
    "stack_rules",
    "version",
]

#: The stack-wide rule contributors that are not a backend, in report order after every backend's
#: ``stack_checks``: ``"package.module:function"``, ``function(stack) -> list[ConfigIssue]``
#: (the GPU agents' gpuSharing, mig, devicePlugin.provider and gpuAgents rules). Named here, not
#: in :mod:`gpu_node_pool.config`, because they sit above the config layer.
STACK_RULES: tuple[str, ...] = ("gpu_node_pool.gpu_agents.validate:stack_issues",)
#: The stack-wide warning contributors that are not a backend (``function(stack) -> list[ConfigIssue]``),
#: reported after the backends' ``stack_warnings`` by :func:`gpu_node_pool.config.warnings.stack_warnings`.
STACK_WARNINGS: tuple[str, ...] = ("gpu_node_pool.gpu_agents.validate:warning_issues",)


class PinnedRelease(NamedTuple):
    """The Bottlerocket release a pool pins, as its backend reads it (a ``bottlerocket_release`` hook's answer).

    Attributes:
        key: the pool's config key that pins it, e.g. ``releaseVersion``.
        text: the key's value as written, e.g. ``1.40.0-25e1f1a4``.
        version: the Bottlerocket release it names, ``(major, minor, patch)``, e.g. ``(1, 40, 0)``.
    """

    key: str
    text: str
    version: tuple[int, int, int]


class AutoscalerGroupApi(NamedTuple):
    """The cloud API through which Cluster Autoscaler reads a node group's labels and its taints that have a
    value, besides its Auto Scaling group's node-template tags (an ``autoscaler_group_api`` answer). A taint
    without a value is not read that way and still needs its tag.

    Attributes:
        action: the IAM action the autoscaler's role needs to call it, e.g. ``eks:DescribeNodegroup``.
        since: the first Cluster Autoscaler release that reads both labels and taints right, e.g. ``1.31.0``.
        why: one sentence saying what the autoscaler reads that way, since which releases, and its public
            sources; policy ``scale-from-zero-hints`` quotes it in its advisories.
        tag_target: how to tag the node group's Auto Scaling group when the cloud creates it outside the program
            (which resource, on which output), with its public source; the advisory quotes it after the tags to add.
            Empty: the advisory says only "the Auto Scaling group whose instances are this pool's nodes".
    """

    action: str
    since: str
    why: str
    tag_target: str = ""


class PoolNameLimit(NamedTuple):
    """The longest pool ``name`` a backend takes, when a name its cloud derives from it is tighter than the
    63 characters of the pool label's value every backend's nodes carry (a ``pool_name`` answer).

    Attributes:
        longest: the most characters a pool name may have on the backend, e.g. ``22`` for gke.
        why: one sentence saying which name the backend derives from the pool name, the cloud's rule for it and
            its public source; the pool model's refusal quotes it.
    """

    longest: int
    why: str


@dataclass(frozen=True)
class Backend:
    """What one backend contributes.

    Attributes:
        name: the ``backend:`` value in the stack config, e.g. ``eks-managed``.
        package: the backend's package (``gpu_node_pool.backends.eks_managed``); the function
            references below are relative to it.
        config_model: ``"module:Name"``: the pydantic pool model (a subclass of
            :class:`~gpu_node_pool.config.common.PoolBase`) with ``backend: Literal[name]``,
            imported on first use by :meth:`Backend.model` (when a stack is validated), so that
            registering the backends imports no pydantic. The model class itself is accepted too.
        stack_checks: ``"module:function"``; ``function(stack) -> list[ConfigIssue]``: rules
            across the stack about the backend's own pools (cluster keys they need, names shared
            between them); called only for a stack with at least one pool of the backend.
        wire: ``"module:function"``; ``function(component, name, pool, cluster) -> None``
            registers the backend's Pulumi resources as children of ``component`` (a
            :class:`~gpu_node_pool.component.pool.GpuNodePool`) and sets its outputs.
        summarise: ``"module:function"``; ``function(pool, entry, index, by_type, outputs)``
            fills the plan entry of a pool from the recorded resources, read back with the
            backend's readers (``index``: ``{(type token, name): record}``; ``by_type``:
            ``{type token: [record, ...]}``, each type's records in recording order).
        report: ``"module:function"``; ``function(entry) -> list[str]``: the backend's lines in
            the text plan.
        detect: ``"module:function"``; ``function(resource_type, props, name, urn, resources)
            -> GpuPool | None``: recognise a GPU pool of this backend among any program's
            resources (hand-written or ours), for the policies.
        node_labels: ``"module:function"``; ``function(pool) -> list[NodeLabels]``: the labels a
            detected pool's new nodes will carry, one :class:`~gpu_node_pool.k8s.selection.NodeLabels`
            per instance type (and zone), from the backend's sourced table of the labels its platform
            sets; the policies judge where GPU agents land with it (:mod:`gpu_node_pool.policies.placement`).
            Unset: the pool's own labels only, every other key undecided.
        detects: the Pulumi type tokens ``detect`` looks at; a token ending in ``:`` is a prefix.
        detect_context: ``"module:function"``; ``function(resources) -> dict`` over the stack's
            resources whose type tokens match ``context_types`` (prefixes ending in ``:`` or
            ``/``); the dicts of all backends are merged into the ``context`` every ``detect`` gets.
        context_types: see ``detect_context``.
        export: ``"module:function"`` or ``""``; ``function(pool, entry, outputs) -> {file
            name: text}``: extra files ``gpupool render`` writes for the pool.
        children: child role -> ``(type token, name template)``; the template takes ``{pool}``
            (the GpuNodePool's resource name). The component and the readers both use it.
        stack_warnings: ``"module:function"`` or ``""``; ``function(stack) -> list[ConfigIssue]``:
            valid but risky settings of the backend's own pools (e.g. the EKS managed node group
            quotas), reported beside the plan by :func:`gpu_node_pool.config.warnings.stack_warnings`;
            called only for a stack with at least one pool of the backend.
        platform: the Kubernetes platform the backend's nodes join, for admission defaults and
            the EKS version calendar: ``eks`` | ``gke`` | ``self-managed`` (the platforms of
            :mod:`gpu_node_pool.k8s.effective`). Default ``self-managed`` (nothing assumed). A
            pool that differs overrides ``PoolBase.cluster_platform`` (self-managed pools join
            EKS with an EKS bootstrap format).
        gpu_sharing: how a pool's ``gpuSharing`` is applied: ``device-plugin`` (default: a named
            config of NVIDIA's device plugin, picked by the node label
            ``nvidia.com/device-plugin.config``), ``platform`` (the platform shares the GPUs itself
            on the pools its own device plugin serves: GKE ``gpu_sharing_config``; NVIDIA's plugin
            on the others), or ``""`` (not supported: the pool model refuses ``gpuSharing`` with a
            config error saying what the backend supports, and the agent rules skip it).
        mig: how a pool's ``mig`` is partitioned: ``device-plugin`` (default: the GPU Operator's
            MIG manager or the node image partitions, NVIDIA's device plugin exposes the devices),
            ``platform`` (the platform partitions: GKE ``gpu_partition_size``, ``single`` only), or
            ``""`` (not supported; refused by the pool model as for ``gpu_sharing``).
        provisioner: who launches the backend's nodes for pending pods: ``""`` (a node group sized by
            its own autoscaler) or ``karpenter`` (Karpenter or EKS Auto Mode, which simulates each instance
            type's ``nvidia.com/gpu`` from its physical GPUs and knows no ``nvidia.com/mig-*``:
            kubernetes-sigs/karpenter#729, aws/karpenter-provider-aws#3376). The GPU-agent rules warn on
            ``gpuSharing`` and refuse ``mig`` there (``gpu_agents/validate.py``).
        startup_taints: the backend's pools declare the boot taints of GPU agents as
            ``startupTaints`` (Karpenter-style NodePools); policy ``karpenter-startup-taints``
            checks them.
        autoscaler_tags: the backend's pools scale from zero through Cluster Autoscaler
            node-template tags on their Auto Scaling groups; policy ``scale-from-zero-hints``
            checks them.
        autoscaler_group_api: an :class:`AutoscalerGroupApi` or None: the API through which Cluster Autoscaler
            also reads the labels and valued taints of the backend's node groups, so that policy
            ``scale-from-zero-hints`` tells a tag it lacks for one of them as needed only for an older autoscaler
            or one without ``action`` (eks-managed: ``eks:DescribeNodegroup``, ``eks_managed/__init__.py``).
            None: every label and taint needs its node-template tag.
        resource_name: ``"module:function"`` or ``""``; ``function(name, pool) -> str | None``: why the cloud
            refuses a name Pulumi derives from the ``GpuNodePool``'s resource ``name`` for a child the validated
            ``pool`` creates (an EKS node group, an EC2 launch template), or None; the component refuses such a
            name before it registers.
        untolerated_not_judged: ``"module:function"`` or ``""``; ``function(pool, missing, node_selector) -> (reason, fix) | None``:
            why the platform may still let a pod onto the backend's detected ``pool`` although its effective
            tolerations leave the taints ``missing`` (a non-empty list of the pool's ``NoSchedule``/``NoExecute``
            :class:`~gpu_node_pool.k8s.taints.Taint`) untolerated, because the platform may add tolerations its
            documentation does not describe (given the pod's ``nodeSelector`` as ``(key, value)`` pairs): a reason
            beginning ``not judged:`` naming its public source and what settles it, or None when the verdict stands. Policy
            ``gpu-workloads-tolerate-their-pool`` reports such a pod not judged instead of a finding. Unset: every
            untolerated taint is a finding (GKE: a custom ComputeClass's taint, ``gke/compute_class.py``).
        bottlerocket_release: ``"module:function"`` or ``""``; ``function(pool) -> PinnedRelease | None``: the
            Bottlerocket release the validated ``pool`` pins (:class:`PinnedRelease`), or None when it pins none
            the config names; the GPU-agent rules refuse a release older than the Bottlerocket settings the pool
            needs (``gpu_agents/bottlerocket_release.py``). Unset: the backend's pools pin no release that way, and
            no release rule applies to them (eks-managed: ``releaseVersion``, ``eks_managed/release.py``).
        pool_name: a :class:`PoolNameLimit` or None: the longest pool ``name`` the backend takes, with why. The stack
            program names each pool's ``GpuNodePool`` after the pool, so a name the cloud gives a child (``resource_name``)
            is derived from the pool name there: eks-managed 44 (the EKS node group), gke 22 (the GKE node pool). None:
            the 63 characters of a label value, which every pool name is (``gpu-node-pools/pool``). The pool models ask
            it (``PoolBase``'s name rule); ``gpupool schema`` gives each backend's pool model that ``maxLength``.
    """

    name: str
    package: str
    config_model: str | type
    stack_checks: str = ""
    wire: str = ""
    summarise: str = ""
    report: str = ""
    detect: str = ""
    detects: tuple[str, ...] = ()
    node_labels: str = ""
    export: str = ""
    detect_context: str = ""
    context_types: tuple[str, ...] = ()
    children: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    stack_warnings: str = ""
    platform: str = "self-managed"
    gpu_sharing: str = "device-plugin"
    mig: str = "device-plugin"
    provisioner: str = ""
    startup_taints: bool = False
    autoscaler_tags: bool = False
    autoscaler_group_api: AutoscalerGroupApi | None = None
    resource_name: str = ""
    untolerated_not_judged: str = ""
    bottlerocket_release: str = ""
    pool_name: PoolNameLimit | None = None

    def fn(self, what: str) -> Callable[..., Any] | None:
        """The function behind the reference ``what`` (``"wire"``...), imported on first use; None if unset."""
        ref = getattr(self, what)
        if not ref:
            return None
        return self._resolve(ref)

    def model(self) -> type:
        """The pool model behind ``config_model``, imported on first use."""
        ref = self.config_model
        if not isinstance(ref, str):
            return ref
        return self._resolve(ref)

    def _resolve(self, ref: str) -> Any:
        """The object a ``"module:name"`` reference names (the module relative to :attr:`package`).

        Raises:
            LookupError: the module or the name does not exist; the message names the backend and
                the reference (a backend author's typo, found on first use rather than at import).
        """
        module, _, name = ref.partition(":")
        path = module if module.startswith("gpu_node_pool") else f"{self.package}.{module}"
        try:
            return getattr(importlib.import_module(path), name)
        except (ImportError, AttributeError) as err:
            raise LookupError(
                f"backend {self.name!r}: the reference {ref!r} names nothing importable ({path}.{name}: {err}); "
                "fix it in the backend's register(Backend(...)) call"
            ) from err

    def child_type(self, role: str) -> str:
        return self.children[role][0]

    def child_name(self, role: str, pool: str) -> str:
        return self.children[role][1].format(pool=pool)

    def detects_type(self, resource_type: str) -> bool:
        return _matches(resource_type, self.detects)

    def wants_for_context(self, resource_type: str) -> bool:
        return _matches(resource_type, self.context_types)


def _matches(resource_type: str, tokens: tuple[str, ...]) -> bool:
    return any(resource_type == t or (t[-1:] in ":/" and resource_type.startswith(t)) for t in tokens)


_BACKENDS: dict[str, Backend] = {}
_version = 0
#: Set by ``gpu_node_pool.backends`` once the built-in backends are registered.
_loaded = False


def register(backend: Backend) -> Backend:
    """Add ``backend`` (a later registration of the same name replaces it). Returns it."""
    global _version
    _BACKENDS[backend.name] = backend
    _version += 1
    return backend


def unregister(name: str) -> None:
    """Remove a backend (tests that register a fake one clean up with this)."""
    global _version
    _BACKENDS.pop(name, None)
    _version += 1


def version() -> int:
    """Changes on every (un)registration; models built from the registry cache on it."""
    return _version


def get(name: str) -> Backend:
    """The backend called ``name``. Raises KeyError naming the known backends."""
    _builtin()
    try:
        return _BACKENDS[name]
    except KeyError:
        raise KeyError(f"no backend {name!r}; known: {', '.join(_BACKENDS)}") from None


def find(name: str) -> Backend | None:
    """The backend called ``name``, or None (a pool read back from resources of an unknown backend)."""
    _builtin()
    return _BACKENDS.get(name)


def _builtin() -> None:
    """Make sure the built-in backends are registered (importing ``gpu_node_pool.backends`` does it)."""
    if not _loaded:
        importlib.import_module(f"{__name__.rpartition('.')[0]}.backends")


def all_backends() -> list[Backend]:
    """Every registered backend, in registration order."""
    _builtin()
    return list(_BACKENDS.values())


def names() -> tuple[str, ...]:
    """The registered backend names, in registration order (the ``backend:`` choices)."""
    _builtin()
    return tuple(_BACKENDS)


def by_detected_type(resource_type: str) -> list[Backend]:
    """The backends whose ``detect`` looks at resources of ``resource_type``."""
    _builtin()
    return [b for b in _BACKENDS.values() if b.detects_type(resource_type)]


def stack_rules(backends: Collection[str] | None = None) -> list[Callable[..., Any]]:
    """The stack-wide rules, in report order: the ``stack_checks`` of each backend in ``backends``
    (names; default: every registered backend), then :data:`STACK_RULES`.

    Raises:
        LookupError: a reference names nothing importable (the message names it).
    """
    checks = [c for b in all_backends() if (backends is None or b.name in backends)
              and (c := b.fn("stack_checks")) is not None]
    return checks + _resolve(STACK_RULES, "STACK_RULES")


def stack_warning_rules() -> list[Callable[..., Any]]:
    """The stack-wide warning functions that are not a backend's: :data:`STACK_WARNINGS`, resolved.

    Raises:
        LookupError: a reference names nothing importable (the message names it).
    """
    return _resolve(STACK_WARNINGS, "STACK_WARNINGS")


def _resolve(refs: tuple[str, ...], where: str) -> list[Callable[..., Any]]:
    out = []
    for ref in refs:
        module, _, name = ref.partition(":")
        try:
            out.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError) as err:
            raise LookupError(f"stack rule {ref!r} names nothing importable ({err}); fix registry.{where}") from err
    return out
