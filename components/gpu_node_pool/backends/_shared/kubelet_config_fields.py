"""The fields of a kubelet configuration file and the JSON type each takes, and a judge of a fragment of one.

A ``KubeletConfiguration`` (``kubelet.config.k8s.io/v1beta1``) fragment, as a pool gives it (e.g. an
eks-managed pool's ``kubelet.config``), reaches the node as a file the kubelet decodes at start-up.

Sources:

- The table (:data:`FIELDS`): kubernetes/kubernetes
  ``staging/src/k8s.io/kubelet/config/v1beta1/types.go@v1.34.0``, read as its published copy
  kubernetes/kubelet ``config/v1beta1/types.go@v0.34.0`` (the same field names as ``@v0.33.0``):
  each field's JSON name and Go type, turned into the kinds below. Newer kubelets add fields
  (``@v0.36`` has e.g. ``tlsCurvePreferences``): such a key is reported as unknown here, not refused.
- What the kubelet does with the file: kubernetes/kubernetes
  ``pkg/kubelet/kubeletconfig/util/codec/codec.go`` (``DecodeKubeletConfiguration``: a strict decode
  first; when it fails *only* for strictness, i.e. an unknown or duplicate key, a lenient decode with a
  log line, and the unknown key is dropped; any other failure, a type mismatch among them, ends the
  load with an error) and ``cmd/kubelet/app/server.go`` (``mergeKubeletConfigurations``: each drop-in
  file of ``--config-dir`` is first read through the kubelet's codec, ``loadDropinConfigFileIntoJSON``
  calling the file loader's ``LoadIntoJSON`` (``configfiles.NewFsLoader``, strict codecs; the codec's
  ``DecodeKubeletConfigurationIntoJSON`` decodes it as an unstructured object and writes it back as
  JSON); that JSON is merge-patched (``jsonpatch.MergePatch``) onto the JSON of the configuration
  loaded so far (the internal ``KubeletConfiguration`` marshalled), and the result unmarshalled into
  the internal configuration with Go's ``encoding/json``, which fails on a type mismatch ("failed to
  unmarshal merged JSON into kubelet configuration") and skips a key no field has, so an unknown key
  is dropped; on an error the kubelet exits). Both read from the code index at its newest stored
  version, not at a tag. The JSON decoder:
  kubernetes/apimachinery ``pkg/runtime/serializer/json/json.go@v0.36.2`` (a type error is fatal;
  unknown and duplicate fields are "strict" errors).
- Durations (``metav1.Duration``): kubernetes/apimachinery ``pkg/apis/meta/v1/duration.go@v0.36.2``
  reads a JSON string and parses it with Go's ``time.ParseDuration`` (golang/go
  ``src/time/format.go``): an optional sign, then one or more ``<number><unit>``, a number being
  digits with an optional fraction, a unit one of ``ns us µs μs ms s m h``; ``"0"`` alone is zero; a
  total beyond int64 nanoseconds fails. A bare number is not a duration, quoted or not: no unit is assumed.
- Eviction grace periods (``evictionSoftGracePeriod``, a Go ``map[string]string`` in the table): each value is read
  by kubernetes/kubernetes ``pkg/kubelet/eviction/helpers.go@008b3652`` (``ParseThresholdConfig``,
  ``parseGracePeriods``) with the same ``time.ParseDuration``: text, a duration, not negative
  (:func:`grace_period_problem`, which :mod:`.kubelet_config_rules` and Karpenter's EC2NodeClass ``kubelet`` apply).
- Whole seconds: ``evictionMaxPodGracePeriod`` (``int32``), ``nodeLeaseDurationSeconds`` (``int32``) and
  ``shutdownGracePeriodByPodPriority[].shutdownGracePeriodSeconds`` (``int64``) are numbers of seconds, not
  durations (their comments in :data:`TYPES_SOURCE`); a duration text there is offered as its seconds
  (:func:`whole_number_problem`, the rule of every int32 and int64 field, Karpenter's ``evictionMaxPodGracePeriod`` too).
- EKS AL2023 nodes: awslabs/amazon-eks-ami ``nodeadm/internal/kubelet/config.go@v20260724``
  (``writeKubeletConfig``) writes ``spec.kubelet.config`` untyped, with only ``apiVersion`` and
  ``kind`` added, as the drop-in ``/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf``: nodeadm
  itself never checks a field's type, so a mismatch surfaces only when the kubelet starts.

What :func:`judge` checks, for the fields in the table and as deep as the table goes:

- the JSON type of each value (a bool, an int32 or int64 whole number and its range, a number,
  text, a duration text Go parses, a map, a list, an object);
- quantities where the type says the value is one, with :func:`gpu_node_pool.k8s.quantity.quantity`:
  ``reservedMemory[].limits`` (a ``resource.Quantity``, parsed when decoded) and ``systemReserved``,
  ``kubeReserved`` (text the kubelet parses as quantities when it starts, and stops when one does
  not parse: kubernetes/kubernetes ``cmd/kubelet/app/server.go``, ``parseResourceList``);
- ``apiVersion``/``kind``, which must name this version and kind when given;
- keys of a known object that are not its fields: reported as unknown (a warning, the kubelet skips
  them), with the nearest field name (:func:`gpu_node_pool.text.suggest.closest`).

What it does not check: which values a field allows beyond its type and rules between fields (what
the kubelet refuses at start of those, reservable resources, eviction signals and thresholds, policy
names, is judged by :mod:`.kubelet_config_rules`, which calls :func:`judge`), a CIDR, a path, what
``logging`` and ``tracing`` hold (their types are in ``k8s.io/component-base``, not in this table: reported as
not judged), ``registerWithTaints`` (judged by the pool's own taint reader), and ``null`` (JSON
null decodes to "unset" for every type).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...k8s.integers import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN
from ...k8s.quantity import QuantityError, quantity
from ...text.suggest import closest
from ...text.terminal import shown
from .registration import KUBELET_CONFIG_API_VERSION as API_VERSION

__all__ = [
    "API_VERSION",
    "THRESHOLD_MAPS",
    "FIELDS",
    "GRACE_SOURCE",
    "INT_RANGES",
    "KIND",
    "Finding",
    "bare_threshold_fix",
    "ListOf",
    "MapOf",
    "Obj",
    "Scalar",
    "TYPES_SOURCE",
    "dotted",
    "duration_fix",
    "duration_problem",
    "duration_seconds",
    "grace_period_problem",
    "judge",
    "kind_at",
    "quantity_example",
    "whole_number_problem",
]

TYPES_SOURCE = "kubernetes/kubernetes staging/src/k8s.io/kubelet/config/v1beta1/types.go@v1.34.0"
_DECODE_SOURCE = "kubernetes/kubernetes pkg/kubelet/kubeletconfig/util/codec, cmd/kubelet/app/server.go"
_REFERENCE = "https://kubernetes.io/docs/reference/config-api/kubelet-config.v1beta1/"
KIND = "KubeletConfiguration"


@dataclass(frozen=True)
class Scalar:
    """One value: ``bool``, ``int32``, ``int64``, ``float``, ``string``, ``duration`` (Go duration
    text, a ``metav1.Duration``), ``grace-period`` (a Go ``string`` field holding a Go duration text: an eviction
    grace period), ``quantity-text`` (a quantity written as text: a Go ``string`` field holding one),
    ``quantity`` (a ``resource.Quantity``: text or a number), ``taints`` (judged elsewhere) or
    ``exactly`` (the text in ``only``)."""

    name: str
    only: str = ""


@dataclass(frozen=True)
class MapOf:
    """A map of names to ``value``."""

    value: Kind


@dataclass(frozen=True)
class ListOf:
    """A list of ``item``."""

    item: Kind


@dataclass(frozen=True)
class Obj:
    """An object of the named ``fields``; ``None``: its fields are not in this table (not judged)."""

    fields: Mapping[str, Kind] | None
    where: str = ""


Kind = Scalar | MapOf | ListOf | Obj

BOOL, INT32, INT64, FLOAT, TEXT = Scalar("bool"), Scalar("int32"), Scalar("int64"), Scalar("float"), Scalar("string")
DURATION, QUANTITY_TEXT, QUANTITY = Scalar("duration"), Scalar("quantity-text"), Scalar("quantity")
GRACE_PERIOD = Scalar("grace-period")
TEXT_MAP, TEXT_LIST = MapOf(TEXT), ListOf(TEXT)

_AUTHENTICATION = Obj({
    "x509": Obj({"clientCAFile": TEXT}),
    "webhook": Obj({"enabled": BOOL, "cacheTTL": DURATION}),
    "anonymous": Obj({"enabled": BOOL}),
})
_AUTHORIZATION = Obj({"mode": TEXT, "webhook": Obj({"cacheAuthorizedTTL": DURATION, "cacheUnauthorizedTTL": DURATION})})

#: Every top-level field of KubeletConfiguration v1beta1 (:data:`TYPES_SOURCE`) and its kind, in
#: the order of the Go struct. ``apiVersion``/``kind`` are the inlined type metadata.
FIELDS: dict[str, Kind] = {
    "apiVersion": Scalar("exactly", API_VERSION), "kind": Scalar("exactly", KIND),
    "enableServer": BOOL, "staticPodPath": TEXT, "podLogsDir": TEXT,
    "syncFrequency": DURATION, "fileCheckFrequency": DURATION, "httpCheckFrequency": DURATION,
    "staticPodURL": TEXT, "staticPodURLHeader": MapOf(TEXT_LIST),
    "address": TEXT, "port": INT32, "readOnlyPort": INT32,
    "tlsCertFile": TEXT, "tlsPrivateKeyFile": TEXT, "tlsCipherSuites": TEXT_LIST, "tlsMinVersion": TEXT,
    "rotateCertificates": BOOL, "serverTLSBootstrap": BOOL,
    "authentication": _AUTHENTICATION, "authorization": _AUTHORIZATION,
    "registryPullQPS": INT32, "registryBurst": INT32,
    "imagePullCredentialsVerificationPolicy": TEXT, "preloadedImagesVerificationAllowlist": TEXT_LIST,
    "eventRecordQPS": INT32, "eventBurst": INT32,
    "enableDebuggingHandlers": BOOL, "enableContentionProfiling": BOOL,
    "healthzPort": INT32, "healthzBindAddress": TEXT, "oomScoreAdj": INT32,
    "clusterDomain": TEXT, "clusterDNS": TEXT_LIST,
    "streamingConnectionIdleTimeout": DURATION, "nodeStatusUpdateFrequency": DURATION,
    "nodeStatusReportFrequency": DURATION, "nodeLeaseDurationSeconds": INT32,
    "imageMinimumGCAge": DURATION, "imageMaximumGCAge": DURATION,
    "imageGCHighThresholdPercent": INT32, "imageGCLowThresholdPercent": INT32,
    "volumeStatsAggPeriod": DURATION,
    "kubeletCgroups": TEXT, "systemCgroups": TEXT, "cgroupRoot": TEXT, "cgroupsPerQOS": BOOL, "cgroupDriver": TEXT,
    "cpuManagerPolicy": TEXT, "singleProcessOOMKill": BOOL, "cpuManagerPolicyOptions": TEXT_MAP,
    "cpuManagerReconcilePeriod": DURATION, "memoryManagerPolicy": TEXT,
    "topologyManagerPolicy": TEXT, "topologyManagerScope": TEXT, "topologyManagerPolicyOptions": TEXT_MAP,
    "qosReserved": TEXT_MAP, "runtimeRequestTimeout": DURATION, "hairpinMode": TEXT,
    "maxPods": INT32, "podCIDR": TEXT, "podPidsLimit": INT64, "resolvConf": TEXT, "runOnce": BOOL,
    "cpuCFSQuota": BOOL, "cpuCFSQuotaPeriod": DURATION, "nodeStatusMaxImages": INT32, "maxOpenFiles": INT64,
    "contentType": TEXT, "kubeAPIQPS": INT32, "kubeAPIBurst": INT32,
    "serializeImagePulls": BOOL, "maxParallelImagePulls": INT32,
    "evictionHard": TEXT_MAP, "evictionSoft": TEXT_MAP, "evictionSoftGracePeriod": MapOf(GRACE_PERIOD),
    "evictionPressureTransitionPeriod": DURATION, "evictionMaxPodGracePeriod": INT32,
    "evictionMinimumReclaim": TEXT_MAP, "mergeDefaultEvictionSettings": BOOL, "podsPerCore": INT32,
    "enableControllerAttachDetach": BOOL, "protectKernelDefaults": BOOL, "makeIPTablesUtilChains": BOOL,
    "iptablesMasqueradeBit": INT32, "iptablesDropBit": INT32,
    "featureGates": MapOf(BOOL), "failSwapOn": BOOL, "memorySwap": Obj({"swapBehavior": TEXT}),
    "containerLogMaxSize": TEXT, "containerLogMaxFiles": INT32, "containerLogMaxWorkers": INT32,
    "containerLogMonitorInterval": DURATION, "configMapAndSecretChangeDetectionStrategy": TEXT,
    "systemReserved": MapOf(QUANTITY_TEXT), "kubeReserved": MapOf(QUANTITY_TEXT),
    "reservedSystemCPUs": TEXT, "showHiddenMetricsForVersion": TEXT,
    "systemReservedCgroup": TEXT, "kubeReservedCgroup": TEXT,
    "enforceNodeAllocatable": TEXT_LIST, "allowedUnsafeSysctls": TEXT_LIST,
    "volumePluginDir": TEXT, "providerID": TEXT, "kernelMemcgNotification": BOOL,
    "logging": Obj(None, "k8s.io/component-base logs/api/v1 LoggingConfiguration"),
    "enableSystemLogHandler": BOOL, "enableSystemLogQuery": BOOL,
    "shutdownGracePeriod": DURATION, "shutdownGracePeriodCriticalPods": DURATION,
    "shutdownGracePeriodByPodPriority": ListOf(Obj({"priority": INT32, "shutdownGracePeriodSeconds": INT64})),
    "crashLoopBackOff": Obj({"maxContainerRestartPeriod": DURATION}),
    "reservedMemory": ListOf(Obj({"numaNode": INT32, "limits": MapOf(QUANTITY)})),
    "enableProfilingHandler": BOOL, "enableDebugFlagsHandler": BOOL, "seccompDefault": BOOL,
    "memoryThrottlingFactor": FLOAT, "registerWithTaints": Scalar("taints"), "registerNode": BOOL,
    "tracing": Obj(None, "k8s.io/component-base tracing/api/v1 TracingConfiguration"),
    "localStorageCapacityIsolation": BOOL, "containerRuntimeEndpoint": TEXT, "imageServiceEndpoint": TEXT,
    "failCgroupV1": BOOL, "userNamespaces": Obj({"idsPerPod": INT64}),
}

#: A value each map, list or object field may take, for the fix of a wrong one.
_EXAMPLES = {
    "systemReserved": "{memory: 2Gi, cpu: 500m}", "kubeReserved": "{memory: 2Gi, cpu: 500m}",
    "evictionHard": "{memory.available: 500Mi}", "evictionSoft": "{memory.available: 1Gi}",
    "evictionSoftGracePeriod": "{memory.available: 1m30s}", "evictionMinimumReclaim": "{memory.available: 100Mi}",
    "featureGates": "{SomeFeature: true}", "clusterDNS": "['10.100.0.10']", "qosReserved": "{memory: 50%}",
    "reservedMemory": "[{numaNode: 0, limits: {memory: 1Gi}}]", "allowedUnsafeSysctls": "['net.core.somaxconn']",
    "shutdownGracePeriodByPodPriority": "[{priority: 0, shutdownGracePeriodSeconds: 30}]",
}

#: The inclusive bounds of the Go integer types the table names.
INT_RANGES = {"int32": (INT32_MIN, INT32_MAX), "int64": (INT64_MIN, INT64_MAX)}
_DURATION_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
_DURATION_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")
_WHOLE = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
#: The whole-number fields that count seconds (:data:`TYPES_SOURCE`: "in seconds").
_SECONDS = ("evictionMaxPodGracePeriod", "nodeLeaseDurationSeconds", "shutdownGracePeriodSeconds")
#: Where an eviction grace period is parsed, as a message cites it.
GRACE_SOURCE = "kubernetes/kubernetes pkg/kubelet/eviction/helpers.go@008b3652959ca58af8be3fb5b6ecfe9ae7638282, parseGracePeriods"


@dataclass(frozen=True)
class Finding:
    """One finding of :func:`judge`: ``path`` (keys and list indexes under the fragment), the
    sentence (without the path: :func:`dotted` spells it), and ``severity`` ``error`` (the kubelet would not start),
    ``unknown`` (a key the kubelet skips), ``warning`` (accepted, but likely not what was meant) or ``not-judged``."""

    path: tuple[str | int, ...]
    message: str
    severity: str


def dotted(path: tuple[str | int, ...]) -> str:
    """``("reservedMemory", 0, "limits")`` as ``reservedMemory[0].limits``; a key holding a dot in brackets,
    as the config errors spell it: ``evictionHard['memory.available']``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "." in str(part) and out:
            out += f"[{str(part)!r}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def kind_at(path: tuple[str | int, ...]) -> Kind | None:
    """The kind the table gives the value at ``path`` (keys and list indexes), or None where it does not know it."""
    kind: Kind | None = Obj(FIELDS)
    for part in path:
        if isinstance(kind, Obj) and isinstance(part, str) and kind.fields is not None:
            kind = kind.fields.get(part)
        elif isinstance(kind, MapOf) and isinstance(part, str):
            kind = kind.value
        elif isinstance(kind, ListOf) and isinstance(part, int):
            kind = kind.item
        else:
            return None
    return kind


def _duration(text: str) -> tuple[Fraction | None, str | None]:
    """``(nanoseconds, None)`` for a duration Go's ``time.ParseDuration`` reads, else ``(None, why not)``."""
    negative = text.startswith("-")
    rest = text[1:] if text[:1] in "+-" else text
    if rest == "0":
        return Fraction(0), None
    if not rest:
        return None, "it is empty"
    total = Fraction(0)
    while rest:
        whole, frac, unit = _DURATION_PART.match(rest).groups()
        if not whole and not frac:
            return None, f"{shown(rest)} does not start with a number"
        if unit not in _DURATION_UNITS:
            return None, (f"{shown(unit)} is no unit (ns, us, ms, s, m, h)" if unit else
                          f"the number {whole or ''}{'.' + frac if frac is not None else ''} has no unit (ns, us, ms, s, m, h)")
        value = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
        total += value * _DURATION_UNITS[unit]
        rest = rest[_DURATION_PART.match(rest).end():]
    if total > (-INT64_MIN if negative else INT64_MAX):
        return None, "it is longer than Go's duration type holds (about 292 years)"
    return (-total if negative else total), None


def duration_problem(text: str) -> str | None:
    """Why ``text`` is not a duration Go's ``time.ParseDuration`` reads, or None (the grammar in the module docstring)."""
    return _duration(text)[1]


def duration_fix(leaf: str, value: Any) -> str:
    """The fix for ``value`` where a Go duration is wanted, for the key ``leaf``: a duration with its unit, such as
    ``"90s"`` or ``"1m30s"``; for a number (bare or quoted) it adds that no unit is assumed, and leaves the unit to
    the user (``5`` may have meant seconds or minutes). Go's ``time.ParseDuration`` (golang/go ``src/time/format.go``)
    reads ``<number><unit>`` parts and refuses a number without a unit but ``0``."""
    fix = f'write a duration with its unit, such as "90s" or "1m30s" ({leaf}: 90s)'
    bare = isinstance(value, int | float) and not isinstance(value, bool)
    if bare or (isinstance(value, str) and _NUMBER.fullmatch(value.strip())):
        number = _yaml_scalar(value) if bare else value.strip()
        fix += f"; {number} alone names no unit (ns, us, ms, s, m or h), quoted or not, and none is assumed"
    return fix


def duration_seconds(text: str) -> Fraction | None:
    """The seconds (exact, signed) of a duration text Go's ``time.ParseDuration`` reads, or None when it reads none."""
    nanoseconds = _duration(text)[0]
    return None if nanoseconds is None else nanoseconds / 10**9


def grace_period_problem(key: str, value: Any) -> tuple[str, str] | None:
    """``(rule, fix)`` for an eviction grace period ``value`` (of the signal ``key``) the kubelet refuses, or None.

    ``rule`` names the value and the rule it breaks: a grace period is text (a number, bare or quoted, names no unit),
    a Go duration (the grammar in the module docstring) and not negative (:data:`GRACE_SOURCE`: "must be a positive
    value"; zero is taken); ``fix`` is :func:`duration_fix`'s. The caller adds the path, the source and who refuses it."""
    if not isinstance(value, str):
        rule = f"{_given(value)} is no eviction grace period: {_takes(GRACE_PERIOD)}"
    elif duration_problem(value):
        rule = (f"{shown(value)} is not a Go duration ({duration_problem(value)}; a grace period is read with Go's "
                "time.ParseDuration)")
    elif duration_seconds(value) < 0:
        rule = f"an eviction grace period must not be negative: {shown(value)}"
    else:
        return None
    return rule, duration_fix(key, value)


def whole_number_problem(path: tuple[str | int, ...], value: Any, kind: str = "int32") -> tuple[str, str] | None:
    """``(rule, fix)`` when ``value`` at ``path`` is no whole number of the Go type ``kind`` (``int32``, ``int64``:
    :data:`INT_RANGES`), or None. ``rule`` names the value: text, a fraction, a boolean, a map or list, or a number
    beyond the type; ``fix`` is the line to write (the number without quotes; for a field counting seconds, such as
    ``evictionMaxPodGracePeriod``, the seconds of a duration text). The caller adds the path, the source and who
    refuses it."""
    number = Scalar(kind)
    leaf = next((str(p) for p in reversed(path) if isinstance(p, str)), "value")
    if not _matches(number, value):
        return f"{_given(value)} is not what the kubelet takes for {dotted(path)}: {_takes(number)}", _fix(number, value, leaf)
    low, high = INT_RANGES[kind]
    if not low <= value <= high:
        return f"{value} is beyond the kubelet's {kind} ({low}..{high})", f"write a whole number within that range, e.g. {leaf}: 10"
    return None


def quantity_example(key: str) -> str:
    """A quantity to show in a fix for the resource or eviction signal ``key``: ``500m`` (half a CPU) only for
    ``cpu``, a count for ``pid`` and inode signals, else bytes in binary units (``500Mi``): for memory and
    storage ``500m`` would be half a byte (Kubernetes quantity notation,
    https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/)."""
    if key == "cpu":
        return "500m"
    if key in ("pid", "pid.available") or key.endswith("inodesFree"):
        return "1000"
    return "500Mi"


#: The kubelet config maps whose values are eviction thresholds (a percentage or a quantity).
THRESHOLD_MAPS = ("evictionHard", "evictionSoft", "evictionMinimumReclaim")


def bare_threshold_fix(leaf: str, value: Any) -> str:
    """The fix for a bare number ``value`` written as the eviction threshold of signal ``leaf``: a percentage of
    capacity (``'5%'``) or a quantity with its unit (:func:`quantity_example`), not the quoted number, which the
    kubelet reads as a quantity of bytes; a number past 100 (no percentage) is offered quoted, as that many bytes (inodes, processes for ``*.inodesFree``, ``pid.available``): a threshold
    is ``<signal><operator><quantity>`` where the quantity is a literal or a percentage
    (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/#eviction-thresholds)."""
    unit = "processes" if leaf == "pid.available" else "inodes" if leaf.endswith("inodesFree") else "bytes"
    if not 0 <= value <= 100:  # no percentage: that many units, quoted, is the likely meaning
        return (f"quote it: {leaf}: '{_yaml_scalar(value)}' ({_yaml_scalar(value)} {unit}), or write a quantity with "
                f"its unit, e.g. {leaf}: '{quantity_example(leaf)}'")
    return (f"write a percentage of capacity, e.g. {leaf}: '{_yaml_scalar(value)}%', or a quantity with its unit, "
            f"e.g. {leaf}: '{quantity_example(leaf)}' (quoted as it is, {_yaml_scalar(value)} would mean "
            f"{_yaml_scalar(value)} {unit})")


def _given(value: Any) -> str:
    """How a message names what the user wrote."""
    if value is True or value is False:
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {shown(value)}"
    if isinstance(value, list):
        return "a list"
    return "a map" if isinstance(value, dict) else shown(value)


_TAKES = {
    "bool": ("true or false", "true or false"), "int32": ("a whole number (int32)", "whole numbers (int32)"),
    "int64": ("a whole number (int64)", "whole numbers (int64)"), "float": ("a number", "numbers"),
    "string": ("text", "text values"), "duration": ("a Go duration text such as '30s' or '1m30s'", "Go duration texts"),
    "grace-period": ("a duration with its unit, written as text, such as '1m30s'",
                     "durations with their units, written as text, such as '1m30s'"),
    "quantity-text": ("a Kubernetes quantity written as text, such as '500m' (CPU) or '2Gi' (memory)",
                      "Kubernetes quantities written as text, such as '500m' (CPU) or '2Gi' (memory)"),
    "quantity": ("a Kubernetes quantity such as 1 or '2Gi'", "Kubernetes quantities such as 1 or '2Gi'"),
}


def _takes(kind: Kind, plural: bool = False) -> str:
    """What the kubelet takes for ``kind``, as a message says it (``plural``: as the values of a map or list)."""
    if isinstance(kind, MapOf):
        return f"{'maps' if plural else 'a map'} of names to {_takes(kind.value, True)}"
    if isinstance(kind, ListOf):
        return f"{'lists' if plural else 'a list'} of {_takes(kind.item, True)}"
    if isinstance(kind, Obj):
        noun = "objects" if plural else "an object"
        return f"{noun} of the fields {', '.join(kind.fields)}" if kind.fields else noun
    return _TAKES.get(kind.name, (kind.name, kind.name))[plural]


def _yaml_scalar(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _fix(kind: Kind, value: Any, leaf: str) -> str:
    """The fix for ``value`` where ``kind`` is wanted, written as the line to put in the stack file."""
    scalar = isinstance(value, bool | int | float | str)
    if isinstance(kind, Scalar) and kind.name == "exactly":
        return f"write {leaf}: {kind.only}, or leave it out (nodeadm adds it)"
    if isinstance(kind, Scalar) and kind.name == "quantity":
        return f"write a quantity, e.g. {leaf}: {quantity_example(leaf)}"
    if isinstance(kind, Scalar) and kind.name in ("int32", "int64"):
        low, high = INT_RANGES[kind.name]
        if isinstance(value, str) and _WHOLE.fullmatch(value.strip()) and low <= int(value) <= high:
            return f"write {leaf}: {int(value)} (a number, without quotes)"
        seconds = duration_seconds(value) if isinstance(value, str) and leaf in _SECONDS else None
        if seconds is not None and seconds.denominator == 1 and low <= seconds <= high:
            return f"write {leaf}: {seconds} (a number of seconds, without quotes or unit)"
        if isinstance(value, float) and value.is_integer() and low <= value <= high:
            return f"write {leaf}: {int(value)}"
        return f"write a whole number without quotes, e.g. {leaf}: 10"
    if isinstance(kind, Scalar) and kind.name == "float":
        try:
            return f"write {leaf}: {float(value)} (a number, without quotes)"
        except (TypeError, ValueError):
            return f"write a number without quotes, e.g. {leaf}: 0.9"
    if isinstance(kind, Scalar) and kind.name == "bool":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return f"write {leaf}: {value.strip().lower()} (without quotes)"
        return f"write {leaf}: true or {leaf}: false"
    if isinstance(kind, Scalar) and kind.name in ("duration", "grace-period"):
        return duration_fix(leaf, value)
    if isinstance(kind, Scalar) and kind.name in ("string", "quantity-text"):
        if scalar:
            return f"quote it: {leaf}: '{_yaml_scalar(value)}'"
        return f"write one text value, e.g. {leaf}: 'value'"
    if isinstance(kind, ListOf):
        if isinstance(value, str) and isinstance(kind.item, Scalar):
            return f"write a list: {leaf}: [{shown(value)}]"
        return f"write a list, e.g. {leaf}: {_EXAMPLES.get(leaf, '[...]')}"
    return f"write a map, e.g. {leaf}: {_EXAMPLES.get(leaf, '{name: value}')}"


def _matches(kind: Kind, value: Any) -> bool:
    """Whether ``value`` has the JSON type ``kind`` takes (before the finer checks)."""
    if isinstance(kind, MapOf | Obj):
        return isinstance(value, dict)
    if isinstance(kind, ListOf):
        return isinstance(value, list)
    name = kind.name
    if name == "bool":
        return isinstance(value, bool)
    if name in ("int32", "int64"):
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "quantity":
        return isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool))
    return isinstance(value, str)  # string, duration, grace-period, quantity-text, exactly


_UNDECODABLE = f"the kubelet could not decode its config file and would not start, so the node would never join ({_DECODE_SOURCE})"
_UNPARSED_RESERVATION = ("the kubelet parses each reservation as a quantity when it starts and stops when one does not parse, so "
                         "the node would never join (kubernetes/kubernetes cmd/kubelet/app/server.go, parseResourceList)")


def _error(path: tuple[str | int, ...], what: str, fix: str, why: str = _UNDECODABLE) -> Finding:
    return Finding(path, f"{what} ({TYPES_SOURCE}, {_REFERENCE}); {why}; {fix}", "error")


def _unknown(path: tuple[str | int, ...], fields: Mapping[str, Kind]) -> Finding:
    key = str(path[-1])
    near = closest(key, fields, cutoff=0.6) or next((f for f in fields if f.lower() == key.lower()), None)
    hint = f"did you mean {near}?" if near else f"the fields are listed at {_REFERENCE}"
    where = KIND if len(path) == 1 else dotted(path[:-1])
    return Finding(path, (
        f"{where} has no field {shown(key)} in v1beta1 as of Kubernetes v1.34 ({TYPES_SOURCE}); the kubelet "
        "does not refuse a key it does not know, it skips it, so this setting may do nothing; "
        f"{hint} (a newer kubelet may know it)"), "unknown")


def _judge(kind: Kind, value: Any, path: tuple[str | int, ...], out: list[Finding]) -> None:
    if value is None or (isinstance(kind, Scalar) and kind.name == "taints"):
        return
    leaf = next((str(p) for p in reversed(path) if isinstance(p, str)), "value")
    if isinstance(kind, Scalar) and kind.name in INT_RANGES:
        problem = whole_number_problem(path, value, kind.name)
        if problem:
            out.append(_error(path, *problem))
        return
    # a grace period that is text: its grammar and sign are kubelet_config_rules' (refused at start, not at decoding)
    undecodable = grace_period_problem(leaf, value) if kind == GRACE_PERIOD and not isinstance(value, str) else None
    if undecodable:
        out.append(_error(path, f"{undecodable[0]} (the kubelet reads each eviction grace period with Go's "
                                f"time.ParseDuration: {GRACE_SOURCE})", undecodable[1]))
        return
    if not _matches(kind, value):
        threshold = (len(path) >= 2 and path[-2] in THRESHOLD_MAPS and isinstance(value, int | float)
                     and not isinstance(value, bool))
        what = f"{_given(value)} is not what the kubelet takes for {dotted(path)}: {_takes(kind)}"
        out.append(_error(path, what, bare_threshold_fix(leaf, value) if threshold else _fix(kind, value, leaf)))
        return
    if isinstance(kind, Obj):
        if kind.fields is None:
            if value:
                out.append(Finding(path, (
                    f"what {dotted(path)} holds is passed to the kubelet as written and not judged here (its "
                    f"fields are {kind.where}, not in this package's table of {TYPES_SOURCE})"), "not-judged"))
            return
        for key, item in value.items():
            sub = kind.fields.get(key) if isinstance(key, str) else None
            if sub is None:
                out.append(_unknown((*path, str(key)), kind.fields))
            else:
                _judge(sub, item, (*path, key), out)
    elif isinstance(kind, MapOf):
        for key, item in value.items():
            _judge(kind.value, item, (*path, str(key)), out)
    elif isinstance(kind, ListOf):
        for i, item in enumerate(value):
            _judge(kind.item, item, (*path, i), out)
    else:
        _scalar(kind, value, path, leaf, out)


def _scalar(kind: Scalar, value: Any, path: tuple[str | int, ...], leaf: str, out: list[Finding]) -> None:
    if kind.name == "duration":
        problem = duration_problem(value)
        if problem:
            out.append(_error(path, f"{shown(value)} is not a Go duration ({problem}; the kubelet reads it with Go's "
                                    "time.ParseDuration, apimachinery metav1.Duration)", _fix(kind, value, leaf)))
    elif kind.name in ("quantity", "quantity-text"):
        try:
            quantity(value)
        except QuantityError as err:
            out.append(_error(path, f"{err}", f"write a quantity, e.g. {leaf}: {quantity_example(leaf)}",
                              _UNPARSED_RESERVATION if kind.name == "quantity-text" else _UNDECODABLE))
    elif kind.name == "exactly" and value != kind.only:
        out.append(_error(path, f"{shown(value)} is not {kind.only}, the only one the kubelet reads this fragment as",
                          f"write {leaf}: {kind.only}, or leave it out (nodeadm adds it)"))


def judge(config: Mapping[str, Any]) -> list[Finding]:
    """Every finding of a KubeletConfiguration fragment ``config`` (camelCase keys), in key order:
    ``error`` for a value the kubelet cannot decode (wrong type, an integer out of range, a
    malformed duration or quantity, a wrong ``apiVersion``/``kind``), ``unknown`` for a key that is
    no field of its object, ``not-judged`` for the contents of ``logging``/``tracing``. Each names
    its path under ``config``, the value, what the kubelet takes and the fix. Pure."""
    out: list[Finding] = []
    _judge(Obj(FIELDS), dict(config), (), out)
    return out
