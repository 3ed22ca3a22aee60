"""What the kubelet refuses at start in a KubeletConfiguration fragment beyond the JSON types, and a judge of it.

:func:`judge` gives every finding of the field table (:mod:`.kubelet_config_fields`: types, ranges,
durations, quantities) and, for the values whose type is right, these rules. Each was read in the
kubernetes/kubernetes source named beside it (the code index's stored version, cited by commit); a
kubelet that breaks one exits at start, so the node never joins.

- ``systemReserved``, ``kubeReserved``: only the keys ``cpu``, ``memory``, ``ephemeral-storage`` and
  ``pid``, each a quantity that is not negative (``cmd/kubelet/app/server.go@293a53f2``,
  ``parseResourceList``: "cannot reserve %q resource"; ``pid`` is ``pidlimit.PIDs``,
  ``pkg/kubelet/stats/pidlimit/pidlimit.go@78fc8e44``).
- ``reservedMemory[].limits``: only ``memory`` and ``hugepages-<size>``, not zero, one limit per NUMA
  node and resource (``pkg/kubelet/apis/config/validation/validation_reserved_memory.go@51c6fe12``).
- ``evictionHard``, ``evictionSoft``, ``evictionSoftGracePeriod``, ``evictionMinimumReclaim``
  (``pkg/kubelet/eviction/helpers.go@008b3652``, ``ParseThresholdConfig``): each key a signal
  ``validSignal`` accepts (the keys of ``signalToResource``); a threshold is a percentage (Go
  ``strconv.ParseFloat`` of the text before ``%``, 0..100; ``0%`` and ``100%`` are ignored) or a
  positive quantity; a grace period is a Go duration, not negative; a minimum reclaim a positive
  percentage or a quantity that is not negative; every ``evictionSoft`` signal has a grace period, but
  for a threshold of exactly ``0%`` or ``100%``, which ``parseThresholdStatement`` drops before grace
  periods are looked up (a warning that it does nothing).
  ``swap.available`` is a signal of ``pkg/kubelet/eviction/api/types.go@0ca319ff`` that
  ``validSignal`` does not accept at that commit: reported as not judged.
- ``pkg/kubelet/apis/config/validation/validation.go@001332b0`` (``ValidateKubeletConfiguration``,
  run at start by ``cmd/kubelet/app/server.go``): the numeric ranges of :data:`_RANGES`;
  ``imageGCLowThresholdPercent`` below ``imageGCHighThresholdPercent``; ``shutdownGracePeriod`` and
  ``shutdownGracePeriodCriticalPods`` zero or at least 1s, the critical one not above the total, and
  neither beside ``shutdownGracePeriodByPodPriority`` (refused with the feature gates on or off);
  ``topologyManagerPolicy``, ``topologyManagerScope``, ``hairpinMode``, ``memorySwap.swapBehavior``
  from their lists (:data:`_ENUMS`); ``memoryThrottlingFactor`` in (0, 1]; ``runOnce`` not true;
  ``maxParallelImagePulls`` above 1 only with ``serializeImagePulls: false``; ``containerLogMaxFiles``
  at least 2, ``containerLogMaxWorkers`` at least 1, ``containerLogMonitorInterval`` at least 3s;
  ``reservedSystemCPUs`` not beside ``systemReservedCgroup``/``kubeReservedCgroup``, and a CPU list
  ``cpuset.Parse`` reads (``kubernetes/utils cpuset/cpuset.go@cf1189d6``: comma-separated ``N`` or
  ``N-M``, each a Go ``strconv.Atoi`` number, no backwards range).
- ``cpuManagerPolicy``: ``none`` or ``static`` (``pkg/kubelet/cm/cpumanager/cpu_manager.go@01a546fe``,
  ``NewManager``: "unknown policy"); ``memoryManagerPolicy``: ``None`` or ``Static`` (capitalised;
  ``pkg/kubelet/cm/memorymanager/memory_manager.go@ee7f2616``, ``NewManager``; ``BestEffort`` is
  Windows only). A value in another case gets a did-you-mean with the right spelling.
- ``cpuManagerPolicy: static`` needs a CPU reservation above zero (``NewManager``: "the static policy
  requires systemreserved.cpu + kubereserved.cpu to be greater than zero"): refused when the fragment
  sets ``kubeReserved.cpu`` and the two add up to zero without ``reservedSystemCPUs``. Without
  ``kubeReserved.cpu`` here, nodeadm's file reserves one from the core count
  (``withDefaultReservedResources``, ``getCPUMillicoresToReserve``), which the merge keeps. Whether the
  instance has the CPUs a reservation or ``reservedSystemCPUs`` names (``NewStaticPolicy``) is reported
  as not judged, as is a ``null`` reservation (what the merge keeps of nodeadm's is not judged).

The fragment is a drop-in the kubelet merges over nodeadm's own file (awslabs/amazon-eks-ami
``nodeadm/internal/kubelet/config.go@01375496``, ``defaultKubeletSubConfig``), itself decoded with the
kubelet's v1beta1 defaults (``pkg/kubelet/apis/config/v1beta1/defaults.go@030891da``), so a rule between
two fields compares a field the fragment leaves out (or sets to ``null``) with the value the kubelet
runs with: ``imageGCHighThresholdPercent`` 85 and ``imageGCLowThresholdPercent`` 80 (defaults; nodeadm
sets neither), ``shutdownGracePeriod`` 0 (no default; nodeadm does not set it). nodeadm's file is taken
into account where said: ``serializeImagePulls: false``, the ``systemReservedCgroup``/``kubeReservedCgroup``
that ``reservedSystemCPUs`` conflicts with (a warning), ``kubeReserved.cpu``. A kubelet flag sets its
field over every config file (https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/):
with ``--image-gc-high-threshold``/``--image-gc-low-threshold`` (or ``--system-reserved``,
``--kube-reserved``, ``--reserved-cpus`` under the static policy) among the flags :func:`judge` is given,
the rule is reported as not judged.

Not judged: the rest of ``validation.go`` (rules that depend on feature gates beyond those above,
``enforceNodeAllocatable``, ``cpuCFSQuotaPeriod``, image GC ages, ``logging``, ``tracing``, the image
pull credential policy, ``podLogsDir``, ``containerRuntimeEndpoint``, the cgroup v1 rules), what the
managers refuse on a given machine (a NUMA node that does not exist, CPUs the instance lacks),
``cgroupDriver`` (no refusal of its value was found in the source), ``qosReserved``
values, ``featureGates`` names.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any

from ...k8s.integers import in_int64
from ...k8s.quantity import QuantityError, quantity
from ...text.suggest import closest
from ...text.terminal import shown
from . import kubelet_config_fields as fields
from .kubelet_config_fields import Finding, duration_seconds, quantity_example

__all__ = ["EVICTION_SIGNALS", "RESERVABLE", "judge"]

_K8S = "kubernetes/kubernetes"
_RESERVE_SOURCE = f"{_K8S} cmd/kubelet/app/server.go@293a53f2c082259b3ba9745cdeba14b0b6ac2bf7, parseResourceList"
_RESERVED_MEMORY_SOURCE = (f"{_K8S} pkg/kubelet/apis/config/validation/validation_reserved_memory.go"
                           "@51c6fe12db62ebb46a1dd7e0763a3e3d12e1bb58")
_EVICTION_SOURCE = f"{_K8S} pkg/kubelet/eviction/helpers.go@008b3652959ca58af8be3fb5b6ecfe9ae7638282, ParseThresholdConfig"
_SIGNALS_SOURCE = f"{_K8S} pkg/kubelet/eviction/api/types.go@0ca319ff7332dc62561fa3487c0a5c60f7544b5b"
_VALIDATION_SOURCE = (f"{_K8S} pkg/kubelet/apis/config/validation/validation.go@001332b0422071acf4860769f18e34b5e9b7c1bc, "
                      "ValidateKubeletConfiguration")
_CPU_MANAGER_SOURCE = f"{_K8S} pkg/kubelet/cm/cpumanager/cpu_manager.go@01a546fe53aec6a035e037236ae44c7ef98f06a0, NewManager"
_MEMORY_MANAGER_SOURCE = (f"{_K8S} pkg/kubelet/cm/memorymanager/memory_manager.go@ee7f2616c62d769d1acf6aeae3ac43d4e34ee6f6, "
                          "NewManager")
_NODEADM_SOURCE = "awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go@01375496231add8265f3fb1bc6e1e90d083b980b"
_DEFAULTS_SOURCE = (f"{_K8S} pkg/kubelet/apis/config/v1beta1/defaults.go@030891da1212d8ad441099a56ea89ceab67e97a1, "
                    "SetDefaults_KubeletConfiguration")
_CPUSET_SOURCE = "kubernetes/utils cpuset/cpuset.go@cf1189d6abe3a7522bbd54a1bc1068a0a56011c8, Parse"
_FLAG_REFERENCE = "https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/"
_NOT_SET_BY_NODEADM = f"nodeadm's own file does not set it: {_NODEADM_SOURCE}, defaultKubeletSubConfig"
_QUANTITY_DOC = "https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/"
_REFUSED = "the kubelet refuses it when it starts, so the node would never join"

#: The resources ``systemReserved``/``kubeReserved`` take (``parseResourceList``).
RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")
#: The signals ``validSignal`` accepts (``signalToResource`` of helpers.go), in its order.
EVICTION_SIGNALS = ("memory.available", "allocatableMemory.available", "imagefs.available", "imagefs.inodesFree",
                    "containerfs.available", "containerfs.inodesFree", "nodefs.available", "nodefs.inodesFree",
                    "pid.available")
_UNACCEPTED_SIGNALS = ("swap.available",)
_EVICTION_MAPS = ("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim")
#: Thresholds ``parseThresholdStatement`` returns nil for, before any grace period is looked up (the text exactly).
_IGNORED_THRESHOLDS = ("0%", "100%")

#: Values a field takes, with the source that refuses any other.
_ENUMS: dict[tuple[str, ...], tuple[tuple[str, ...], str]] = {
    ("cpuManagerPolicy",): (("none", "static"), _CPU_MANAGER_SOURCE),
    ("memoryManagerPolicy",): (("None", "Static"), _MEMORY_MANAGER_SOURCE + " (BestEffort is Windows only)"),
    ("topologyManagerPolicy",): (("none", "best-effort", "restricted", "single-numa-node"), _VALIDATION_SOURCE),
    ("topologyManagerScope",): (("container", "pod"), _VALIDATION_SOURCE),
    ("hairpinMode",): (("promiscuous-bridge", "hairpin-veth", "none"), _VALIDATION_SOURCE),
    ("memorySwap", "swapBehavior"): (("", "NoSwap", "LimitedSwap"), _VALIDATION_SOURCE),
}

#: Inclusive ranges of whole-number fields (``ValidateKubeletConfiguration``); None: no bound on that side.
_RANGES: dict[str, tuple[int | None, int | None]] = {
    "nodeLeaseDurationSeconds": (1, None), "eventBurst": (0, None), "eventRecordQPS": (0, None),
    "imageGCHighThresholdPercent": (0, 100), "imageGCLowThresholdPercent": (0, 100),
    "iptablesDropBit": (0, 31), "iptablesMasqueradeBit": (0, 31), "kubeAPIBurst": (0, None), "kubeAPIQPS": (0, None),
    "nodeStatusMaxImages": (-1, None), "maxOpenFiles": (0, None), "maxPods": (0, None), "oomScoreAdj": (-1000, 1000),
    "podsPerCore": (0, None), "port": (1, 65535), "registryBurst": (0, None), "registryPullQPS": (0, None),
    "maxParallelImagePulls": (1, None), "containerLogMaxWorkers": (1, None), "containerLogMaxFiles": (2, None),
}
#: The kubelet's value of a field a fragment leaves out (:data:`_DEFAULTS_SOURCE`; nodeadm's file sets neither).
_DEFAULTS = {"imageGCHighThresholdPercent": 85, "imageGCLowThresholdPercent": 80}
#: The command-line flag that sets a field over every config file (:data:`_FLAG_REFERENCE`).
_FLAGS = {"imageGCHighThresholdPercent": "--image-gc-high-threshold", "imageGCLowThresholdPercent": "--image-gc-low-threshold"}
_CPU_FLAGS = ("--system-reserved", "--kube-reserved", "--reserved-cpus")
#: Fields where 0 means "off" and any other value must be within the range above.
_ZERO_OR = {"healthzPort": (1, 65535), "readOnlyPort": (1, 65535)}

_ATOI = re.compile(r"[+-]?[0-9]+")  # Go strconv.Atoi, base 10
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_GO_FLOAT_OTHER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F_.]+(?:[pP][+-]?[0-9_]+)?|inf|infinity|nan)", re.I)
_F32_MAX = 3.4028234663852886e38
_MEMORY_LIKE = re.compile(r"memory|ephemeral-storage|hugepages-.*|(?!pid\.).*\.available")


def _error(path: tuple[str | int, ...], what: str, source: str, fix: str) -> Finding:
    return Finding(path, f"{what} ({source}); {_REFUSED}; {fix}", "error")


def _spelling(value: str, allowed: tuple[str, ...], close: bool = True) -> str:
    """``did you mean X?`` for the allowed value ``value`` is in another case, else (``close``) the nearest, or ``""``."""
    near = next((a for a in allowed if a.lower() == value.lower()), None)
    near = near or (closest(value, allowed, cutoff=0.6) if close else None)
    return f"did you mean {near}?" if near else ""


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _percent(text: str) -> float | str | None:
    """The fraction Go reads from ``text`` ending in ``%`` (``float32(ParseFloat(TrimRight(text, "%"))) / 100``),
    the reason it reads none (a ``str``), or None when Go reads a form not judged here (hex, inf, nan, ``_``)."""
    number = text.rstrip("%")
    if _DECIMAL.fullmatch(number):
        value = float(number)
        if abs(value) > _F32_MAX:
            return f"{shown(number)} is beyond a float32 (Go's ParseFloat(..., 32) fails)"
        return _f32(_f32(value) / 100)
    if _GO_FLOAT_OTHER.fullmatch(number):
        return None
    return f"{shown(number)} before the % is no number"


def _memory_in_millis(path: tuple[str | int, ...], key: str, value: str, out: list[Finding]) -> None:
    """A warning for a memory or storage amount written with the milli suffix ``m`` (``500m``: half a byte)."""
    if _MEMORY_LIKE.fullmatch(key) and value.endswith("m") and not key.endswith("inodesFree"):
        out.append(Finding(path, (
            f"{shown(value)} is {value[:-1]}/1000 of a byte: in a Kubernetes quantity 'm' is milli, not mega ({_QUANTITY_DOC}); "
            f"the kubelet takes it as written; did you mean {value[:-1]}Mi?"), "warning"))


def _reservations(config: Mapping[str, Any], out: list[Finding], refused: list[tuple[str | int, ...]]) -> None:
    for field in ("systemReserved", "kubeReserved"):
        values = config.get(field)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            path = (field, str(key))
            if key not in RESERVABLE:
                refused.append(path)
                near = _spelling(str(key), RESERVABLE, close=False)
                out.append(_error(path, (
                    f"the kubelet reserves only {', '.join(RESERVABLE[:-1])} and {RESERVABLE[-1]} for the system and itself, not {shown(str(key))} "
                    '("cannot reserve %q resource")'), _RESERVE_SOURCE,
                    near or f"remove {key} from {field}"))
            elif isinstance(value, str):
                _nonnegative(path, value, "a reservation", _RESERVE_SOURCE, out)
                _memory_in_millis(path, key, value, out)


def _nonnegative(path: tuple[str | int, ...], value: str, what: str, source: str, out: list[Finding]) -> None:
    try:
        amount = quantity(value)
    except QuantityError:
        return  # the field table reports it
    if amount < 0:
        out.append(_error(path, f"{what} cannot be negative: {shown(value)}", source,
                          f"write a positive quantity, e.g. {path[-1]}: {quantity_example(str(path[-1]))}"))


def _reserved_memory(config: Mapping[str, Any], out: list[Finding], refused: list[tuple[str | int, ...]]) -> None:
    items = config.get("reservedMemory")
    if not isinstance(items, list):
        return
    seen: dict[tuple[Any, str], int] = {}
    for i, item in enumerate(items):
        limits = item.get("limits") if isinstance(item, dict) else None
        if not isinstance(limits, dict):
            continue
        numa = item.get("numaNode")
        numa = 0 if numa is None else numa  # JSON null decodes to unset: node 0
        # a numaNode of another type is the field table's finding; no duplicate is judged for it
        whole = isinstance(numa, int) and not isinstance(numa, bool)
        for key, value in limits.items():
            path = ("reservedMemory", i, "limits", str(key))
            if key != "memory" and not str(key).startswith("hugepages-"):
                refused.append(path)
                out.append(_error(path, f"{shown(str(key))} is no limit type of reservedMemory: only memory and "
                                        "hugepages-<size> are accepted", _RESERVED_MEMORY_SOURCE,
                                  f"write memory or a hugepages-<size> such as hugepages-2Mi, or remove {key}"))
                continue
            if whole and (numa, key) in seen:
                out.append(_error(path, f"reservedMemory[{seen[numa, key]}] already reserves {key} on NUMA node {numa}",
                                  _RESERVED_MEMORY_SOURCE, "give each NUMA node and resource once"))
            if whole:
                seen.setdefault((numa, key), i)
            try:
                amount = quantity(value)
            except QuantityError:
                continue
            if amount == 0:
                out.append(_error(path, f"reserved memory may not be zero (NUMA node {numa}, {key})", _RESERVED_MEMORY_SOURCE,
                                  f"write an amount, e.g. {key}: 1Gi, or remove it"))
            if isinstance(value, str):
                _memory_in_millis(path, str(key), value, out)


def _signal(field: str, key: str, out: list[Finding], refused: list[tuple[str | int, ...]]) -> bool:
    """Whether ``key`` is a signal ``validSignal`` accepts; a finding when it is not."""
    if key in EVICTION_SIGNALS:
        return True
    path = (field, key)
    refused.append(path)
    if key in _UNACCEPTED_SIGNALS:
        out.append(Finding(path, (
            f"{key} is an eviction signal of {_SIGNALS_SOURCE}, but validSignal in {_EVICTION_SOURCE} does not accept "
            "it at that commit, and a kubelet that does not refuses it at start; not judged here: check your kubelet "
            "version's eviction documentation"), "not-judged"))
        return False
    near = _spelling(key, EVICTION_SIGNALS)
    out.append(_error(path, f"{shown(key)} is no eviction signal the kubelet knows (\"unsupported eviction signal\"); "
                            f"the signals are {', '.join(EVICTION_SIGNALS)}", f"{_EVICTION_SOURCE}; {_SIGNALS_SOURCE}",
                      near or "use one of those signals"))
    return False


def _threshold(path: tuple[str | int, ...], value: str, minimum: bool, out: list[Finding]) -> None:
    """A threshold (``minimum``: a minimum reclaim) as ``ParseThresholdConfig`` reads it."""
    field, key = str(path[0]), str(path[-1])
    fix = f"write a quantity or a percentage, e.g. {key}: {quantity_example(key)} or {key}: 10%"
    if value.endswith("%"):
        if not minimum and value in _IGNORED_THRESHOLDS:
            out.append(Finding(path, f"the kubelet ignores a threshold of {value} ({_EVICTION_SOURCE}): this one does nothing",
                               "warning"))
            return
        fraction = _percent(value)
        if fraction is None:
            out.append(Finding(path, f"{shown(value)} is a number form Go reads that is not judged here ({_EVICTION_SOURCE})",
                               "not-judged"))
        elif isinstance(fraction, str):
            out.append(_error(path, f"{shown(value)} is not a percentage: {fraction}", _EVICTION_SOURCE, fix))
        elif minimum and not fraction > 0:
            out.append(_error(path, f"a minimum reclaim percentage must be positive: {shown(value)}", _EVICTION_SOURCE, fix))
        elif not minimum and not 0 <= fraction <= 1:
            out.append(_error(path, f"an eviction percentage must be within 0% and 100%: {shown(value)}", _EVICTION_SOURCE, fix))
        return
    try:
        amount = quantity(value)
    except QuantityError as err:
        out.append(_error(path, f"{shown(value)} is neither a percentage nor a Kubernetes quantity ({err})",
                          _EVICTION_SOURCE, fix))
        return
    if minimum and amount < 0:
        out.append(_error(path, f"a minimum reclaim cannot be negative: {shown(value)}", _EVICTION_SOURCE, fix))
    elif not minimum and amount <= 0:
        out.append(_error(path, f"an eviction threshold must be positive: {shown(value)}", _EVICTION_SOURCE,
                          f"write a positive amount, e.g. {key}: {quantity_example(key)}, or remove it from {field}"))
    else:
        _memory_in_millis(path, key, value, out)


def _eviction(config: Mapping[str, Any], out: list[Finding], refused: list[tuple[str | int, ...]]) -> None:
    valid: dict[str, set[str]] = {f: set() for f in _EVICTION_MAPS}
    for field in _EVICTION_MAPS:
        values = config.get(field)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if not _signal(field, str(key), out, refused):
                continue
            if not isinstance(value, str):
                valid[field].add(str(key))
                continue  # the field table reports it
            if field != "evictionSoft" or value not in _IGNORED_THRESHOLDS:
                valid[field].add(str(key))  # an ignored soft threshold needs no grace period
            path = (field, str(key))
            if field == "evictionSoftGracePeriod":
                problem = fields.grace_period_problem(str(key), value)
                if problem:
                    out.append(_error(path, problem[0], _EVICTION_SOURCE + ", parseGracePeriods", problem[1]))
            else:
                _threshold(path, value, field == "evictionMinimumReclaim", out)
    for key in sorted(valid["evictionSoft"] - valid["evictionSoftGracePeriod"]):
        out.append(_error(("evictionSoft", key), (
            f"the soft threshold {key} has no grace period in evictionSoftGracePeriod (\"grace period must be specified "
            "for the soft eviction threshold\")"), _EVICTION_SOURCE, f"add evictionSoftGracePeriod: {{{key}: 1m30s}}"))


def _enums(config: Mapping[str, Any], out: list[Finding]) -> None:
    for path, (allowed, source) in _ENUMS.items():
        value: Any = config
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if not isinstance(value, str) or value in allowed:
            continue
        listed = ", ".join(repr(a) if not a else a for a in allowed)
        out.append(_error(path, f"{shown(value)} is not a {path[-1]} the kubelet takes: one of {listed}", source,
                          _spelling(value, tuple(a for a in allowed if a)) or f"write one of {listed}"))


def _whole(config: Mapping[str, Any], key: str) -> int | None:
    value = config.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _numbers(config: Mapping[str, Any], out: list[Finding]) -> None:
    for key, (low, high) in _RANGES.items():
        value = _whole(config, key)
        if value is not None and ((low is not None and value < low) or (high is not None and value > high)):
            span = f"{low}..{high}" if high is not None else f"{low} or more"
            out.append(_error((key,), f"{value} is outside what the kubelet takes for {key}: {span}", _VALIDATION_SOURCE,
                              f"write a value of {span}"))
    for key, (low, high) in _ZERO_OR.items():
        value = _whole(config, key)
        if value is not None and value != 0 and not low <= value <= high:
            out.append(_error((key,), f"{value} is not a port: {key} is 0 (off) or {low}..{high}", _VALIDATION_SOURCE,
                              f"write a port of {low}..{high}, or 0"))
    factor = config.get("memoryThrottlingFactor")
    if isinstance(factor, int | float) and not isinstance(factor, bool) and not 0 < factor <= 1:
        out.append(_error(("memoryThrottlingFactor",), f"{factor} is not greater than 0 and at most 1.0", _VALIDATION_SOURCE,
                          "write e.g. memoryThrottlingFactor: 0.9"))
    if config.get("runOnce") is True:
        out.append(_error(("runOnce",), "runOnce mode has been deprecated and should not be set", _VALIDATION_SOURCE,
                          "remove runOnce"))
    pulls = _whole(config, "maxParallelImagePulls")
    if config.get("serializeImagePulls") is True and pulls is not None and pulls > 1:
        out.append(_error(("maxParallelImagePulls",), (
            f"{pulls} parallel pulls with serializeImagePulls: true"), _VALIDATION_SOURCE,
            "write serializeImagePulls: false (nodeadm's own default), or maxParallelImagePulls: 1"))


def _image_gc(config: Mapping[str, Any], flags: Collection[str], out: list[Finding]) -> None:
    """imageGCLowThresholdPercent below imageGCHighThresholdPercent, the one left out at its :data:`_DEFAULTS` value."""
    keys = ("imageGCHighThresholdPercent", "imageGCLowThresholdPercent")
    high, low = (_whole(config, k) for k in keys)
    if (high is None and low is None) or any(config.get(k) is not None and _whole(config, k) is None for k in keys):
        return  # nothing given, or a value of another type (the field table's finding)
    given = next(k for k in keys if _whole(config, k) is not None)
    set_by_flag = [_FLAGS[k] for k in keys if _FLAGS[k] in flags]
    if set_by_flag:
        out.append(Finding((given,), (
            f"kubelet.flags sets {' and '.join(set_by_flag)}, which the kubelet applies over its config files "
            f"({_FLAG_REFERENCE}), so whether imageGCLowThresholdPercent stays below imageGCHighThresholdPercent "
            f"({_VALIDATION_SOURCE}) is not judged here: keep it so, or set both here instead of in flags"), "not-judged"))
        return
    def said(key: str, value: int | None) -> str:
        return (f"{key} {value}" if value is not None else
                f"{key}, which this fragment leaves at the kubelet's default {_DEFAULTS[key]} ({_DEFAULTS_SOURCE}; "
                f"{_NOT_SET_BY_NODEADM})")
    high_at, low_at = (high if high is not None else _DEFAULTS[keys[0]]), (low if low is not None else _DEFAULTS[keys[1]])
    if low_at < high_at:
        return
    if low is not None:
        fix = f"write a lower value, e.g. imageGCLowThresholdPercent: {max(high_at - 5, 0)}"
        if high is None and low < 100:
            fix += f", or also set imageGCHighThresholdPercent above it, e.g. imageGCHighThresholdPercent: {min(low + 5, 100)}"
        out.append(_error((keys[1],), f"{low} must be less than {said(keys[0], high)}", _VALIDATION_SOURCE, fix))
    else:
        fix = f"also set imageGCLowThresholdPercent below it, e.g. imageGCLowThresholdPercent: {high_at - 5}, or " if high_at >= 5 else ""
        out.append(_error((keys[0],), f"{high_at} must be greater than {said(keys[1], low)}", _VALIDATION_SOURCE,
                          f"{fix}write a higher value, e.g. imageGCHighThresholdPercent: {_DEFAULTS[keys[0]]}"))


def _durations(config: Mapping[str, Any], out: list[Finding]) -> None:
    def seconds(key: str) -> Fraction | None:
        value = config.get(key)
        return duration_seconds(value) if isinstance(value, str) else None

    total, critical = seconds("shutdownGracePeriod"), seconds("shutdownGracePeriodCriticalPods")
    for key, value in (("shutdownGracePeriod", total), ("shutdownGracePeriodCriticalPods", critical)):
        if value is not None and (value < 0 or 0 < value < 1):
            out.append(_error((key,), f"{shown(config[key])} is neither zero nor at least 1s", _VALIDATION_SOURCE,
                              f"write {key}: 0s or at least {key}: 1s"))
    if total is not None and critical is not None and critical > total:
        out.append(_error(("shutdownGracePeriodCriticalPods",), (
            f"{shown(config['shutdownGracePeriodCriticalPods'])} is longer than shutdownGracePeriod "
            f"{shown(config['shutdownGracePeriod'])}: the critical pods' time is the last part of the total"),
            _VALIDATION_SOURCE, "give shutdownGracePeriod the whole shutdown time and shutdownGracePeriodCriticalPods the "
            f"part of it kept for critical pods, e.g. shutdownGracePeriod: {config['shutdownGracePeriodCriticalPods']}, "
            f"shutdownGracePeriodCriticalPods: {config['shutdownGracePeriod']}"))
    if critical is not None and critical > 0 and config.get("shutdownGracePeriod") is None:
        value = config["shutdownGracePeriodCriticalPods"]
        out.append(_error(("shutdownGracePeriodCriticalPods",), (
            f"{shown(value)} is longer than shutdownGracePeriod, which this fragment leaves at the kubelet's 0 (it "
            f"has no default: {_DEFAULTS_SOURCE}; {_NOT_SET_BY_NODEADM}); the critical pods' time is the last part "
            "of the whole shutdown time"), _VALIDATION_SOURCE,
            f"add the whole shutdown time, at least as long, e.g. shutdownGracePeriod: {value} (all of it for critical "
            "pods) or longer"))
    by_priority = config.get("shutdownGracePeriodByPodPriority")
    if isinstance(by_priority, list) and by_priority and ((total or 0) > 0 or (critical or 0) > 0):
        out.append(_error(("shutdownGracePeriodByPodPriority",), (
            "cannot be given with shutdownGracePeriod or shutdownGracePeriodCriticalPods"), _VALIDATION_SOURCE,
            "keep either shutdownGracePeriodByPodPriority or the two shutdown grace periods"))
    interval = seconds("containerLogMonitorInterval")
    if interval is not None and interval < 3:
        out.append(_error(("containerLogMonitorInterval",), f"{shown(config['containerLogMonitorInterval'])} is under 3s",
                          _VALIDATION_SOURCE, "write containerLogMonitorInterval: 10s (the default) or at least 3s"))


def _cpuset(text: str) -> tuple[int, str | None]:
    """``(how many CPUs, None)`` for a CPU list ``cpuset.Parse`` reads (``N``, ``N-M``, comma-separated, each
    number a Go ``strconv.Atoi`` text, a range not backwards), else ``(0, why not)``."""
    cpus: set[int] = set()
    for element in text.split(","):
        bounds = element.split("-", 1)
        bad = next((b for b in bounds if not _ATOI.fullmatch(b) or not in_int64(int(b))), None)
        if bad is not None:
            return 0, f"{shown(bad)} in {shown(element)} is no whole number" + (
                " Go's int holds (64 bits)" if _ATOI.fullmatch(bad) else "")
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high:
            return 0, f"the range {shown(element)} runs backwards"
        if high - low > 4096:
            return -1, None  # a size not counted here
        cpus.update(range(low, high + 1))
    return len(cpus), None


def _reserved_cpus(config: Mapping[str, Any], out: list[Finding]) -> None:
    cpus = config.get("reservedSystemCPUs")
    if not isinstance(cpus, str) or not cpus:
        return
    problem = _cpuset(cpus)[1]
    if problem:
        out.append(_error(("reservedSystemCPUs",), f"{shown(cpus)} is not a CPU list ({problem}; \"unable to parse "
                                                   f"reservedSystemCPUs\", read by {_CPUSET_SOURCE})", _VALIDATION_SOURCE,
                          "write CPU numbers and ranges, e.g. reservedSystemCPUs: '0-1' or '0,2'"))
    given = [k for k in ("systemReservedCgroup", "kubeReservedCgroup") if k in config]
    set_here = [k for k in given if config[k]]
    if set_here:
        out.append(_error(("reservedSystemCPUs",), f"reservedSystemCPUs cannot be used with {' or '.join(set_here)}",
                          _VALIDATION_SOURCE, f"remove reservedSystemCPUs, or set {' and '.join(set_here)} to ''"))
    elif len(given) < 2:
        out.append(Finding(("reservedSystemCPUs",), (
            "the kubelet refuses reservedSystemCPUs beside systemReservedCgroup or kubeReservedCgroup "
            f"({_VALIDATION_SOURCE}), and nodeadm's own file sets both (/system, /runtime: {_NODEADM_SOURCE}, "
            "withDefaultReservedResources); this fragment is merged over it, so the node may never join: set "
            "systemReservedCgroup: '' and kubeReservedCgroup: '' here too, or remove reservedSystemCPUs"), "warning"))


def _static_cpu_manager(config: Mapping[str, Any], flags: Collection[str], out: list[Finding]) -> None:
    """``cpuManagerPolicy: static`` needs a CPU reservation above zero: ``reservedSystemCPUs``, or
    ``systemReserved.cpu`` + ``kubeReserved.cpu`` as the kubelet merges the fragment over nodeadm's file, which
    reserves ``kubeReserved.cpu`` by the core count and no ``systemReserved``."""
    if config.get("cpuManagerPolicy") != "static":
        return
    path = ("cpuManagerPolicy",)
    over = [f for f in _CPU_FLAGS if f in flags]
    cpus = config.get("reservedSystemCPUs")
    if over or (isinstance(cpus, str) and cpus):
        count = _cpuset(cpus)[0] if isinstance(cpus, str) and cpus else 0
        where = (f"kubelet.flags sets {' and '.join(over)}, which the kubelet applies over its config files "
                 f"({_FLAG_REFERENCE})") if over else f"reservedSystemCPUs {shown(cpus)} reserves those CPUs"
        if over or count != 0:
            out.append(Finding(path, (
                f"{where}; whether the static CPU manager can reserve them on the instance (NewStaticPolicy: "
                f"\"unable to reserve the required amount of CPUs\", {_CPU_MANAGER_SOURCE}) is not judged here"),
                "not-judged"))
        return
    total, parts = Fraction(0), []
    for field in ("systemReserved", "kubeReserved"):
        values = config.get(field, {})
        if values is None or (isinstance(values, dict) and "cpu" in values and values["cpu"] is None):
            out.append(Finding(path, f"{field} holds a null here: what the merge over nodeadm's file keeps of the CPU "
                                     f"reservation the static CPU manager needs is not judged ({_CPU_MANAGER_SOURCE})",
                               "not-judged"))
            return
        if not isinstance(values, dict) or "cpu" not in values:
            continue  # another type: the field table's finding; systemReserved has no cpu in nodeadm's file either
        try:
            total += quantity(values["cpu"])
        except (QuantityError, TypeError):
            return  # the field table's finding
        parts.append(f"{field}.cpu {shown(values['cpu'])}")
    if not isinstance(config.get("kubeReserved"), dict) or "cpu" not in config["kubeReserved"]:
        return  # nodeadm's kubeReserved.cpu (getCPUMillicoresToReserve: above zero on every core count) stays
    if total <= 0:
        out.append(_error(path, (
            f"the static CPU manager needs a CPU reservation above zero, and this fragment reserves none "
            f"({' + '.join(parts)}, no reservedSystemCPUs: \"the static policy requires systemreserved.cpu + "
            "kubereserved.cpu to be greater than zero\")"), _CPU_MANAGER_SOURCE,
            "reserve some, e.g. kubeReserved: {cpu: 100m}, or leave kubeReserved.cpu out to keep nodeadm's"))


def judge(config: Mapping[str, Any], flags: Collection[str] = ()) -> list[Finding]:
    """Every finding of a KubeletConfiguration fragment ``config``: the field table's
    (:func:`.kubelet_config_fields.judge`) and this module's rules, ``error`` for what the kubelet refuses at
    start, ``warning`` for what it takes but is likely a slip (``memory: 500m``, a threshold it ignores, a
    ``reservedSystemCPUs`` nodeadm's cgroups conflict with), ``not-judged`` for ``swap.available``, number
    forms, a rule between two fields a flag takes part in, and the CPUs a static CPU manager reserves. A key refused here (a resource that cannot be reserved, an unknown signal) replaces the
    table's finding on its value. ``flags``: the names (``--name``) of the kubelet flags given beside the
    fragment, which set their fields over it. Each names its path, the value, the rule with its source and
    the fix. Pure."""
    rules: list[Finding] = []
    refused: list[tuple[str | int, ...]] = []
    _reservations(config, rules, refused)
    _reserved_memory(config, rules, refused)
    _eviction(config, rules, refused)
    _enums(config, rules)
    _numbers(config, rules)
    _image_gc(config, flags, rules)
    _durations(config, rules)
    _reserved_cpus(config, rules)
    _static_cpu_manager(config, flags, rules)
    table = [f for f in fields.judge(config) if not any(f.path[:len(k)] == k for k in refused)]
    decoded_wrong = {f.path for f in table if f.severity == "error"}
    return table + [f for f in rules if f.path not in decoded_wrong]
