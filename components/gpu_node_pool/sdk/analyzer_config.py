"""The whole policy config the engine sends a pack, read before pulumi_policy's analyzer keeps its part.

A preview configures a policy pack with one ``ConfigureAnalyzerRequest`` (gRPC method
``Analyzer.Configure`` of ``pulumi/proto/pulumi/analyzer.proto``): a map from a policy name to
its ``PolicyConfig`` (``enforcementLevel``, ``properties``). The engine fills it from the pack's
own policies (their levels and schema defaults) and then applies every entry of
``--policy-pack-config`` (or the Pulumi Cloud policy group's config) on top, *including entries
whose name is no policy of the pack*, and an ``all`` entry (``applyConfig`` in
``pkg/resource/analyzer/config.go`` of https://github.com/pulumi/pulumi, v3.x). It checks each
policy's properties against a schema of only that policy's ``properties`` and ``required``
(``convertSchema`` there: no ``additionalProperties``, and ``PolicyConfigSchema`` of
``analyzer.proto`` carries nothing else), so an unknown property passes too, and a policy without a
config schema is not checked at all (``validatePolicyPackConfig``). pulumi_policy's analyzer keeps
the map as given and reads it only by its own policies' names (``_PolicyAnalyzerServicer.Configure``
in pulumi/pulumi-policy ``sdk/python/lib/pulumi_policy/policy.py``, v1.21.0).

:func:`install_configure_hook` lets a pack read every entry and set the enforcement level of its own
policies before the analyzer stores them, or refuse the config: the engine then fails the preview
with the hook's message (``installAndLoadPolicyPlugins`` in ``pkg/engine/update.go`` of
pulumi/pulumi, v3.x: "configuring policy pack ..."). Both layouts of ``gpupool policy-pack``
install one: the per-rule pack to refuse an unknown rule id or property, the per-level pack
(``gpu_node_pool.policies.level_pack``) also to route each rule to the stack policy of its
configured level. It replaces ``pulumi_policy.policy._PolicyAnalyzerServicer`` (private API, which
``PolicyPack(...)`` instantiates) by a subclass whose ``Configure`` calls the hook first; it was
written against pulumi-policy :data:`TESTED` and refuses any other minor version (anything but
:data:`PULUMI_POLICY_REQUIREMENT`, which the packs' ``requirements.txt`` pins).

With ``one_decoding`` (the per-level pack) the subclass also marks each ``AnalyzeStack`` call it serves
(:func:`current_stack_call`), and turns the
garbage collector back on when the call returns if it was on when the call began (:func:`current_stack_call`
says why a policy may turn it off). The
analyzer calls every stack policy of the pack in turn, on the calling thread, within one
``AnalyzeStack`` (``_PolicyAnalyzerServicer.AnalyzeStack`` in pulumi/pulumi-policy
``sdk/python/lib/pulumi_policy/policy.py``, v1.21), so the level policies can judge the stack once
and share the findings. Outside such a call (another thread, another servicer) it is None.

Its ``Analyze`` (one call per resource) judges resource policies only: for a pack of stack policies alone
the subclass answers with the empty response after the analyzer's ``_configure_runtime_settings``,
as ``Analyze`` of v1.21 does after skipping each policy.

That analyzer decodes the whole stack (``MessageToDict``, ``deserialize_properties``,
``unknown_checking_proxy`` of every resource) once per stack policy in use, before calling it. A
stack policy that carries :data:`SHARED_JUDGMENT` (a callable taking the policy's ``report``)
says its findings come from the judgment an earlier stack policy of the same call made: while
another stack policy of the pack is in use, the subclass has the analyzer skip it (its
``_get_enforcement_level`` answers ``disabled`` for it during the call) and afterwards reports its
findings through the analyzer's own ``_create_report_violation``, so the diagnostics are the ones the
analyzer would have made, in the same order, with one decoding instead of two. Those two methods
are private: when their signatures are not the ones of v1.21 the subclass warns once
(``RuntimeWarning``) and lets the analyzer decode the stack for every policy (the same findings).
Without ``one_decoding`` (the per-rule pack) only ``Configure`` is overridden: ``Analyze`` and
``AnalyzeStack`` are the analyzer's own.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "PULUMI_POLICY_REQUIREMENT",
    "SHARED_JUDGMENT",
    "TESTED",
    "AnalyzerHookError",
    "analyzer_servicer",
    "current_stack_call",
    "install_configure_hook",
]

#: The attribute of a stack policy whose findings come from a judgment another stack policy of the
#: same ``AnalyzeStack`` call made: ``report_from_call(report)`` reports them (module docstring).
SHARED_JUDGMENT = "gpupool_report_from_call"

#: The private methods of pulumi_policy's analyzer the one-decoding path calls, with their parameters (v1.21).
_PRIVATE = {
    "_get_enforcement_level": ("self", "policy"),
    "_create_report_violation": ("self", "response", "policy_name", "policy_description", "enforcement_level", "severity"),
    "_configure_runtime_settings": ("self",),
}

#: The pulumi-policy versions whose ``_PolicyAnalyzerServicer.Configure`` this hook was checked against.
TESTED = "1.21"

#: The ``requirements.txt`` line (PEP 508) of the pulumi-policy the hook runs with, and the check of the
#: installed version (:func:`install_configure_hook` refuses any other): ``gpupool policy-pack`` writes it.
PULUMI_POLICY_REQUIREMENT = f"pulumi-policy=={TESTED}.*"

#: ``pulumi.runtime.proto.analyzer_pb2.EnforcementLevel`` values, by their ``--policy-pack-config`` spelling.
_LEVELS = {"advisory": 0, "mandatory": 1, "disabled": 2, "remediate": 3}
_NAMES = {number: name for name, number in _LEVELS.items()}

#: ``on_configure(entries) -> levels``: ``entries`` maps every name the engine sent to
#: ``(level, properties)``; the result maps some of the pack's own policies to the level to use.
ConfigureHook = Callable[[dict[str, tuple[str, dict[str, Any]]]], Mapping[str, str]]


#: The ``AnalyzeStack`` call each thread is serving: ``call`` is a fresh object per call.
_SERVING = threading.local()


def current_stack_call() -> object | None:
    """A token of the ``AnalyzeStack`` call the hooked analyzer is serving on this thread, or None.

    A new object for every call, held only while the call runs: two calls never share a token, so a
    result kept under it cannot outlive the stack it was computed from.

    During such a call a stack policy may turn the garbage collector off (``gc.disable()``) for the rest
    of it: the call turns it back on once the analyzer has returned, when the objects the policy made for
    the decoded stack are gone. (Turned on while they live, it would walk them all at its next collection.)
    """
    return getattr(_SERVING, "call", None)


class AnalyzerHookError(RuntimeError):
    """The installed pulumi-policy is not one this hook was written for; the message names both versions."""


def _check_version() -> None:
    from importlib.metadata import version

    from packaging.requirements import Requirement

    found = version("pulumi_policy")
    if not Requirement(PULUMI_POLICY_REQUIREMENT).specifier.contains(found, prereleases=True):
        raise AnalyzerHookError(
            f"the gpu-node-pools policy pack checks the engine's policy config through pulumi_policy's analyzer "
            f"(written for pulumi-policy {TESTED}.x); {found} is installed. Add the line "
            f"{PULUMI_POLICY_REQUIREMENT} to the pack's requirements.txt (gpupool policy-pack writes it) and run "
            "`pulumi install` in the pack's directory again."
        )


def _unlike_tested(base: type) -> str | None:
    """Why ``base`` lacks the private methods the one-decoding path calls as v1.21 has them, or None."""
    import inspect

    for name, params in _PRIVATE.items():
        method = getattr(base, name, None)
        try:
            found = tuple(inspect.signature(method).parameters) if callable(method) else None
        except (TypeError, ValueError):
            found = None
        if found != params:
            return f"{base.__module__}.{base.__qualname__}.{name} is {'missing' if found is None else found}, not {params}"
    return None


def _configuring_class(base: type, on_configure: ConfigureHook) -> type:
    """``base`` (pulumi_policy's analyzer class) with ``Configure`` calling ``on_configure`` first."""
    from google.protobuf import json_format

    class _Configuring(base):  # type: ignore[misc, valid-type]
        _gpupool_base = base

        def Configure(self, request: Any, context: Any) -> Any:  # noqa: N802 (the gRPC method's name)
            entries = {
                name: (_NAMES.get(config.enforcementLevel, "advisory"), json_format.MessageToDict(config.properties))
                for name, config in request.policyConfig.items()
            }
            try:
                levels = on_configure(entries)
            except ValueError as err:
                if context is None:
                    raise
                import grpc

                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(err))  # raises: the engine fails the preview
                raise
            for name, level in levels.items():
                request.policyConfig[name].enforcementLevel = _LEVELS[level]
            return super().Configure(request, context)

    return _Configuring


def _servicer_class(on_configure: ConfigureHook, one_decoding: bool = True) -> type:
    import warnings

    from pulumi.runtime.proto import analyzer_pb2
    from pulumi_policy import EnforcementLevel, StackValidationPolicy
    from pulumi_policy import policy as sdk_policy

    base = getattr(sdk_policy._PolicyAnalyzerServicer, "_gpupool_base", sdk_policy._PolicyAnalyzerServicer)
    configuring = _configuring_class(base, on_configure)
    if not one_decoding:
        return configuring
    unlike = _unlike_tested(base)
    if unlike:
        warnings.warn(
            f"gpu-node-pools per-level pack: {unlike} (pulumi-policy {TESTED} has it so); every level policy now "
            f"has the analyzer decode the stack (same findings, slower). Pin {PULUMI_POLICY_REQUIREMENT} in the "
            "pack's requirements.txt.",
            RuntimeWarning,
            stacklevel=3,
        )

    base_level = base._get_enforcement_level

    class _Servicer(configuring):  # type: ignore[misc, valid-type]
        _gpupool_one_decoding = unlike is None

        def __init__(self, name: str, version: str, policies: list[Any], *args: Any, **kwargs: Any) -> None:
            super().__init__(name, version, policies, *args, **kwargs)
            self._gpupool_policies = list(policies)
            self._gpupool_stack_only = self._gpupool_one_decoding and all(
                isinstance(p, StackValidationPolicy) for p in self._gpupool_policies)

        def Analyze(self, request: Any, context: Any) -> Any:  # noqa: N802 (the gRPC method's name)
            if self._gpupool_stack_only:  # the analyzer's Analyze skips every stack policy: its settings remain
                self._configure_runtime_settings()
                return analyzer_pb2.AnalyzeResponse()
            return super().Analyze(request, context)

        def _get_enforcement_level(self, policy: Any) -> Any:  # asked per policy of every Analyze call too: kept lean
            if policy.name in getattr(_SERVING, "deferred", ()):
                return EnforcementLevel.DISABLED  # judged with another policy: reported after the analyzer's pass
            return base_level(self, policy)

        def _deferred(self) -> list[tuple[Any, Any]]:
            """The shared-judgment stack policies in use whose findings come after the analyzer's pass:
            each but the first, when other stack policies are in use before them."""
            if not self._gpupool_one_decoding:
                return []
            in_use = []
            for policy in self._gpupool_policies:
                if not isinstance(policy, StackValidationPolicy):
                    continue
                level = base._get_enforcement_level(self, policy)
                if level != EnforcementLevel.DISABLED:
                    in_use.append((policy, EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level))
            deferred = []
            for i, (policy, level) in enumerate(in_use):
                if i and callable(getattr(policy, SHARED_JUDGMENT, None)):
                    deferred.append((policy, level))
            return deferred

        def AnalyzeStack(self, request: Any, context: Any) -> Any:  # noqa: N802 (the gRPC method's name)
            outer = getattr(_SERVING, "call", None), getattr(_SERVING, "deferred", {})
            collecting = gc.isenabled()  # a policy may leave the collector off for the rest of the call
            _SERVING.call = object()
            deferred = self._deferred()
            _SERVING.deferred = {policy.name: level for policy, level in deferred}
            try:
                response = super().AnalyzeStack(request, context)
                _SERVING.deferred = {}
                for policy, level in deferred:
                    if any(d.policyName == policy.name for d in response.diagnostics):
                        continue  # the analyzer called it after all (it did not ask _get_enforcement_level)
                    report = self._create_report_violation(response, policy.name, policy.description, level,
                                                           policy.severity)
                    getattr(policy, SHARED_JUDGMENT)(report)
                return response
            finally:
                _SERVING.call, _SERVING.deferred = outer
                if collecting:
                    gc.enable()

    return _Servicer


def install_configure_hook(on_configure: ConfigureHook, *, one_decoding: bool = True) -> None:
    """Make the analyzer that ``PolicyPack(...)`` builds next call ``on_configure`` on each ``Configure``.

    ``on_configure`` gets every entry of the engine's config as ``{name: (level, properties)}``
    (``level`` one of ``advisory``, ``mandatory``, ``disabled``, ``remediate``) and returns
    ``{policy name: level}`` for the pack's own policies whose level it sets (e.g. ``disabled`` for
    a policy no rule needs). A ``ValueError`` it raises fails the preview with its message
    (gRPC ``INVALID_ARGUMENT``). ``one_decoding``: also serve :data:`SHARED_JUDGMENT` stack policies
    from one decoding of the stack (the per-level pack); False overrides ``Configure`` only.

    Raises:
        AnalyzerHookError: the installed pulumi-policy is not one :data:`PULUMI_POLICY_REQUIREMENT` allows.
    """
    _check_version()
    from pulumi_policy import policy as sdk_policy

    sdk_policy._PolicyAnalyzerServicer = _servicer_class(on_configure, one_decoding)


def analyzer_servicer(on_configure: ConfigureHook, name: str, version: str, policies: list[Any], *,
                      one_decoding: bool = True) -> Any:
    """The analyzer ``PolicyPack(name, policies)`` would serve with ``on_configure`` installed
    (:func:`install_configure_hook`), not served: for measuring and testing the pack on the path a
    preview takes, in-process."""
    _check_version()
    from pulumi_policy import EnforcementLevel

    return _servicer_class(on_configure, one_decoding)(name, version, policies, EnforcementLevel.ADVISORY)
