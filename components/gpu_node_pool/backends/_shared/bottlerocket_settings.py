"""The Bottlerocket settings this package knows, and a judge of a pool's settings tree against them.

A node's TOML user data is sent whole to Bottlerocket's settings API at first boot: early-boot-config
PATCHes it to ``/settings`` and exits non-zero on any response but success (bottlerocket-os/bottlerocket-core-kit
``sources/early-boot-config/early-boot-config/src/main.rs``@v3.1.1), the API server decodes the body into the variant's
settings model (``patch_settings(settings: web::Json<Settings>)``, ``sources/api/apiserver/src/server/mod.rs``@v3.1.1),
and every model struct is ``#[serde(deny_unknown_fields, rename_all = "kebab-case")]``
(bottlerocket-os/bottlerocket ``sources/models/model-derive/src/lib.rs``@v1.19.0). So an unknown key or a value of
the wrong type fails the whole document, early-boot-config fails, and the units after it (containerd, the kubelet)
never start: the node never joins (https://github.com/bottlerocket-os/bottlerocket/issues/1346 shows the boot).
Settings extensions do not loosen this: a variant's settings are the fixed struct of its settings plugin
(``sources/settings-plugins/aws-k8s-nvidia/src/lib.rs``@v1.26.0), one field per group.

:data:`GROUPS` is the table: the groups under ``settings`` of the ``aws-k8s-*-nvidia`` variants and, per group, its
keys and their kinds, each from its settings-models source (:data:`MODELS`: bottlerocket-os/bottlerocket-settings-sdk
``bottlerocket-settings-models/...``; modeled types from ``modeled-types/src/kubernetes.rs`` and ``shared.rs``, the
grammars of ``Url``, ``DNSDomain``, ``KernelCpuSetValue``, the CPU manager policy options and the swap behavior in
:mod:`.bottlerocket_types`). A group whose keys are not tabled (``boot``, ``oci-defaults``, ...) is known by name and
its contents are not judged.

:func:`judge` gives :class:`Finding` s:

* ``error``: a value of the wrong type (``max-pods: "many"``, ``sysctl: {net.core.somaxconn: 4096}``), a value
  outside what the modeled type takes (``eviction-hard: {memory.available: lots}``, ``cpu-manager-policy: dynamic``),
  and a key of a tabled group, or a group, that is a near miss of a known one (``kubernets``, ``max-pod``: with the
  name meant). The value is shown as YAML and TOML spell it (``"many"``, ``4096``, ``true``).
* ``warning``: a key or group the table does not know and that is no near miss (a setting newer than the table is
  possible: Bottlerocket adds settings in new releases, settings-models ``CHANGELOG.md``), a known group or key
  whose contents are not judged here, and a typed value this package cannot judge (``cluster-domain: "-bad-"``:
  the url crate's host parsing is not reproduced; ``memory-swap-behavior``: the type's values were not read).

``kubernetes.node-taints`` and ``node-labels`` are judged by the backend that carries them (their shapes and the
taint grammar), not here. Pure: no pydantic, no Pulumi.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...text.suggest import closest
from ...text.terminal import shown
from . import bottlerocket_types as types
from .bottlerocket_names import SETTINGS_INDEX
from .kubelet_config_fields import INT_RANGES, dotted

__all__ = ["GROUPS", "MODELS", "REFUSED", "Finding", "judge"]

_SDK = "bottlerocket-os/bottlerocket-settings-sdk bottlerocket-settings-models/"
#: Where each tabled group's keys and kinds are read (path under bottlerocket-settings-sdk, the commit read).
MODELS = {
    "kubernetes": _SDK + "settings-extensions/kubernetes/src/lib.rs@c135bcb",
    "kernel": _SDK + "settings-extensions/kernel/src/lib.rs@87a3f88",
    "host-containers": _SDK + "settings-extensions/host-containers/src/lib.rs@5f7a725",
    "container-registry": _SDK + "settings-extensions/container-registry/src/lib.rs@10f6a1f",
    "network": _SDK + "settings-extensions/network/src/lib.rs@923a01d",
    "ntp": _SDK + "settings-extensions/ntp/src/lib.rs@691ed58",
    "types": _SDK + "modeled-types/src/ (kubernetes.rs, shared.rs)",
    "groups": "bottlerocket-os/bottlerocket sources/settings-plugins/aws-k8s-nvidia/src/lib.rs@v1.26.0",
    "changelog": _SDK + "CHANGELOG.md (0.17.0-0.28.0)",
}
#: Why a refused setting matters on the node, with its source, for a message that names one setting.
REFUSED = ("Bottlerocket's settings API refuses the whole settings document (model-derive: deny_unknown_fields), so "
           "the node never joins (https://github.com/bottlerocket-os/bottlerocket/issues/1346)")


@dataclass(frozen=True)
class Finding:
    """One judgment of a setting: ``path`` (keys under ``settings``), ``message`` (the value, the rule, the source and
    the fix), ``severity`` (``error``: Bottlerocket refuses it; ``warning``: not judged here)."""

    path: tuple[str, ...]
    message: str
    severity: str

    @property
    def error(self) -> bool:
        return self.severity == "error"


# --- kinds ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """A TOML string; ``choices`` its only values, ``check`` a grammar (None: fits; else why not), ``example`` a value
    it takes; ``typed`` a modeled type's check that may also say it cannot judge (:mod:`.bottlerocket_types`)."""

    what: str
    choices: tuple[str, ...] = ()
    check: Callable[[str], str | None] | None = None
    example: str = ""
    typed: Callable[[str], tuple[str, str] | None] | None = None


@dataclass(frozen=True)
class Whole:
    """A TOML integer within ``lo``..``hi`` (Rust's ``rust`` type); ``text_too``: a string of digits is taken as well."""

    rust: str
    lo: int
    hi: int
    text_too: bool = False


@dataclass(frozen=True)
class Flag:
    """A TOML boolean."""


@dataclass(frozen=True)
class MapOf:
    """A table of any keys (``keys``, when given: the ones the modeled type takes) to values of ``value``."""

    value: Any
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListOf:
    """A TOML array of ``item``."""

    item: Any


@dataclass(frozen=True)
class Table:
    """A settings struct: ``fields`` key -> kind; ``source`` where they are read."""

    fields: Mapping[str, Any]
    source: str


@dataclass(frozen=True)
class Open:
    """A known key or group whose contents are not judged here (``where``: its model)."""

    where: str


@dataclass(frozen=True)
class Elsewhere:
    """A known key judged by the backend itself (``kubernetes.node-taints``, ``node-labels``)."""


_QUANTITY = re.compile(r"^([+-]?[0-9.]+)((e)?[0-9]*)$|^([+-]?[0-9.]+)((E|P|T|G|M|K)i?)?$|^([+-]?[0-9.]+)(n|u|m|k)?$")
_DURATION = re.compile(r"^(([0-9]+\.)?[0-9]+h)?(([0-9]+\.)?[0-9]+m)?(([0-9]+\.)?[0-9]+s)?(([0-9]+\.)?[0-9]+ms)?$")


def _quantity(text: str) -> str | None:
    return None if _QUANTITY.match(text) else "not a Kubernetes quantity (e.g. 100Mi, 1Gi, 500m)"


def _threshold(text: str) -> str | None:
    if text.endswith("%"):
        try:
            percent = float(text[:-1])
        except ValueError:
            return "not a percentage"
        return None if 0 <= percent < 100 else "a percentage outside [0, 100)"
    return None if _QUANTITY.match(text) else "neither a percentage (10%) nor a Kubernetes quantity (100Mi)"


def _duration(text: str) -> str | None:
    return None if text and _DURATION.match(text) else "not a duration of h, m, s and ms in that order (e.g. 1m30s)"


def _one_line(text: str) -> str | None:
    return None if "\n" not in text and "\r" not in text else "more than one line"


_I32 = Whole("i32", *INT_RANGES["int32"])
_TEXT = Text("text", check=_one_line)
_THRESHOLD = Text("an eviction threshold (KubernetesThresholdValue)", check=_threshold, example='"10%" or "500Mi"')
_QTY = Text("a Kubernetes quantity (KubernetesQuantityValue)", check=_quantity, example='"500Mi"')
_DUR = Text("a duration (KubernetesDurationValue)", check=_duration, example='"1m30s"')
_SIGNALS = ("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree",
            "pid.available")
_RESERVED = ("cpu", "memory", "ephemeral-storage", "pid")
_K8S = MODELS["kubernetes"]

#: ``settings.kubernetes`` (KubernetesSettingsV1), plus the keys later settings-models add (CHANGELOG, not judged).
KUBERNETES = Table({
    "cluster-name": _TEXT, "cluster-certificate": _TEXT, "api-server": _TEXT,
    "node-labels": Elsewhere(), "node-taints": Elsewhere(),
    "static-pods": Open(_K8S), "authentication-mode": Text("an authentication mode", ("aws", "tls")),
    "bootstrap-token": _TEXT, "standalone-mode": Flag(),
    "eviction-hard": MapOf(_THRESHOLD, _SIGNALS), "eviction-soft": MapOf(_THRESHOLD, _SIGNALS),
    "eviction-soft-grace-period": MapOf(_DUR, _SIGNALS),
    "eviction-max-pod-grace-period": Whole("NonNegativeInteger", 0, INT_RANGES["int32"][1]),
    "kube-reserved": MapOf(_QTY, _RESERVED), "system-reserved": MapOf(_QTY, _RESERVED),
    "allowed-unsafe-sysctls": ListOf(_TEXT), "server-tls-bootstrap": Flag(),
    "cloud-provider": Text("a cloud provider", ("aws", "external", "")),
    "registry-qps": _I32, "registry-burst": _I32, "event-qps": _I32, "event-burst": _I32,
    "kube-api-qps": _I32, "kube-api-burst": _I32,
    "container-log-max-size": _QTY, "container-log-max-files": _I32, "container-log-max-workers": _I32,
    "container-log-monitor-interval": _DUR, "cpu-cfs-quota-enforced": Flag(),
    "cpu-manager-policy": Text("a CPU manager policy (CpuManagerPolicy)", ("none", "static", "None", "Static")),
    "cpu-manager-reconcile-period": _DUR,
    "cpu-manager-policy-options": ListOf(Text("a CPU manager policy option (KubernetesCPUManagerPolicyOption)",
                                              typed=types.cpu_manager_policy_option)),
    "topology-manager-scope": Text("a topology manager scope", ("container", "pod")),
    "topology-manager-policy": Text("a topology manager policy", ("none", "restricted", "best-effort", "single-numa-node")),
    "pod-pids-limit": Whole("i64", *INT_RANGES["int64"]),
    "image-gc-high-threshold-percent": Whole("IntegerPercent", 0, 100, text_too=True),
    "image-gc-low-threshold-percent": Whole("IntegerPercent", 0, 100, text_too=True),
    "image-minimum-gc-age": _DUR, "image-maximum-gc-age": _DUR,
    "provider-id": Text("a URL (Url)", typed=types.url, example='"aws:///us-east-1a/i-0abc"'), "log-level": Whole("u8", 0, 255),
    "credential-providers": Open(_K8S), "server-certificate": _TEXT, "server-key": _TEXT,
    "shutdown-grace-period": _DUR, "shutdown-grace-period-for-critical-pods": _DUR,
    "memory-manager-reserved-memory": Open(_K8S),
    "memory-manager-policy": Text("a memory manager policy (KubernetesMemoryManagerPolicy)",
                                  ("none", "static", "None", "Static")),
    "reserved-cpus": Text("a CPU list (KernelCpuSetValue)", typed=types.cpuset, example='"0-1"'),
    "memory-swap-behavior": Text("a swap behavior (KubernetesMemorySwapBehavior)", typed=types.memory_swap_behavior),
    "hostname-override-source": Text("a hostname override source (KubernetesHostnameOverrideSource)",
                                     ("private-dns-name", "instance-id")),
    "seccomp-default": Flag(), "device-ownership-from-security-context": Flag(),
    "single-process-oom-kill": Flag(), "static-pods-enabled": Flag(),
    "max-pods": Whole("u32", 0, 2**32 - 1),
    "cluster-dns-ip": Open(_K8S), "cluster-domain": Text("a DNS domain (DNSDomain)", typed=types.dns_domain, example='"cluster.local"'),
    "node-ip": _TEXT,
    "pod-infra-container-image": _TEXT, "hostname-override": _TEXT,
    "ids-per-pod": Open(_K8S), "max-parallel-image-pulls": _I32,
    # added by later settings-models releases (CHANGELOG 0.22.0, 0.25.0, 0.27.0): known names, kinds not read
    "topology-manager-policy-options": Open(MODELS["changelog"]),
    "container-runtime-endpoint": Open(MODELS["changelog"]),
    "memory-reservation-policy": Open(MODELS["changelog"]),
    "memory-throttling-factor": Open(MODELS["changelog"]),
}, _K8S)

#: ``settings.kernel`` (KernelSettingsV1): ``sysctl`` maps a key to a string (``HashMap<SysctlKey, String>``).
KERNEL = Table({
    "lockdown": Text("a lockdown mode", ("none", "integrity", "confidentiality")),
    "modules": MapOf(Table({"allowed": Flag(), "autoload": Flag()}, MODELS["kernel"])),
    "sysctl": MapOf(Text("a sysctl value (a string)", example='"4096"')),
    "hugepages": Open(MODELS["kernel"]),
}, MODELS["kernel"])

#: ``settings.host-containers``: name -> HostContainer.
HOST_CONTAINER = Table({"source": _TEXT, "enabled": Flag(), "superpowered": Flag(), "user-data": _TEXT,
                        "command": ListOf(Text("text"))}, MODELS["host-containers"])

#: The groups under ``settings`` of the aws-k8s NVIDIA variant (MODELS["groups"]) and later ones (CHANGELOG).
GROUPS: Mapping[str, Any] = {
    "motd": Text("a message of the day"),
    "kubernetes": KUBERNETES,
    "kernel": KERNEL,
    "host-containers": MapOf(HOST_CONTAINER),
    "container-registry": Table({"mirrors": Open(MODELS["container-registry"]),
                                 "credentials": Open(MODELS["container-registry"]),
                                 "creds": Open(MODELS["container-registry"])}, MODELS["container-registry"]),
    "network": Table({"hostname": _TEXT, "hosts": Open(MODELS["network"]), "https-proxy": _TEXT,
                      "no-proxy": ListOf(_TEXT), "disable-ipv6": ListOf(_TEXT)}, MODELS["network"]),
    "ntp": Table({"time-servers": Open(MODELS["ntp"]), "options": ListOf(_TEXT), "logging": ListOf(_TEXT)},
                 MODELS["ntp"]),
    **{name: Open(MODELS["groups"]) for name in (
        "updates", "bootstrap-commands", "bootstrap-containers", "boot", "aws", "metrics", "pki", "oci-defaults",
        "oci-hooks", "cloudformation", "dns", "container-runtime", "autoscaling", "nvidia-container-runtime",
        "kubelet-device-plugins")},
    **{name: Open(MODELS["changelog"]) for name in (
        "container-runtime-plugins", "image-verifier-plugins", "kubelet-dra-drivers", "measurement")},
}
_ROOT = Table(GROUPS, MODELS["groups"])
#: How close an unknown key must be to a known one to be taken for its misspelling (text.suggest's ratio).
_NEAR = 0.8


# --- the judge --------------------------------------------------------------------------------------------------


def judge(settings: Mapping[str, Any]) -> list[Finding]:
    """Each finding on the tree under ``settings`` (keys as the stack gives them), in document order.

    Assumes the tree is TOML-writable (the backends refuse nulls, dates and odd keys first)."""
    out: list[Finding] = []
    _walk(_ROOT, settings, (), out)
    return out


def _yaml(value: Any) -> str:
    """``value`` as YAML and TOML spell a scalar (``"many"``, ``4096``, ``true``); a table or list by its kind."""
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return shown(json.dumps(value, ensure_ascii=False), quote=False)


def _where(path: tuple[str, ...]) -> str:
    return "settings." + dotted(path) if path else "settings"


def _error(path: tuple[str, ...], why: str, source: str, fix: str) -> Finding:
    return Finding(path, f"{why} ({source}); {fix}", "error")


def _walk(kind: Any, value: Any, path: tuple[str, ...], out: list[Finding]) -> None:
    if isinstance(kind, Elsewhere):
        return
    if isinstance(kind, Open):
        out.append(Finding(path, f"{_where(path)} is a Bottlerocket setting, but what it holds is written to the node as "
                                 f"given and not judged here ({kind.where}); check it against {SETTINGS_INDEX}",
                           "warning"))
        return
    if isinstance(kind, Table):
        _table(kind, value, path, out)
    elif isinstance(kind, MapOf):
        if not isinstance(value, Mapping):
            out.append(_error(path, f"{_yaml(value)} is not a table, which {_where(path)} is", _source(path),
                              "write it as a table of key: value"))
            return
        for key, item in value.items():
            if kind.keys and key not in kind.keys:
                out.append(_unknown_map_key(kind, path, key))
            _walk(kind.value, item, (*path, key), out)
    elif isinstance(kind, ListOf):
        if not isinstance(value, list):
            out.append(_error(path, f"{_yaml(value)} is not a list, which {_where(path)} is", _source(path),
                              f"write a list, e.g. [{_yaml(value)}]"))
            return
        for item in value:
            _walk(kind.item, item, path, out)
    else:
        problem = _scalar(kind, value, path)
        if problem:
            out.append(problem)


def _source(path: tuple[str, ...]) -> str:
    return MODELS.get(path[0], MODELS["groups"]) if path else MODELS["groups"]


def _table(kind: Table, value: Any, path: tuple[str, ...], out: list[Finding]) -> None:
    if not isinstance(value, Mapping):
        out.append(_error(path, f"{_yaml(value)} is not a table of settings, which {_where(path)} is", kind.source,
                          "write it as a table of key: value"))
        return
    for key, item in value.items():
        sub = kind.fields.get(key)
        if sub is None:
            out.append(_unknown(kind, path, key))
        else:
            _walk(sub, item, (*path, key), out)


def _unknown(kind: Table, path: tuple[str, ...], key: str) -> Finding:
    near = closest(key, kind.fields, cutoff=_NEAR)
    where = (*path, key)
    group = "settings group" if not path else f"key of {_where(path)}"
    if near:
        return _error(where, f"{shown(key, quote=False)} is no Bottlerocket {group}", kind.source,
                      f"did you mean {near}?")
    return Finding(where, (f"{shown(key, quote=False)} is not a {group} in this package's table ({kind.source}), so it is not judged; "
                           f"Bottlerocket refuses a key its settings model lacks and the node would not join, unless "
                           f"your Bottlerocket release is newer than the table and has it: check it at {SETTINGS_INDEX}"),
                   "warning")


def _unknown_map_key(kind: MapOf, path: tuple[str, ...], key: str) -> Finding:
    near = closest(str(key), kind.keys, cutoff=_NEAR)
    where = (*path, key)
    if near:
        return _error(where, f"{shown(str(key), quote=False)} is no key {_where(path)} takes ({', '.join(kind.keys)})",
                      MODELS["types"], f"did you mean {near}?")
    return Finding(where, (f"{shown(str(key), quote=False)} is not among the keys {_where(path)} takes in this package's "
                           f"table ({', '.join(kind.keys)}: {MODELS['types']}), so it is not judged; Bottlerocket refuses "
                           "a key it does not take, unless your release is newer than the table and takes it"), "warning")


def _scalar(kind: Any, value: Any, path: tuple[str, ...]) -> Finding | None:
    source = _source(path)
    given = _yaml(value)
    if isinstance(kind, Flag):
        if isinstance(value, bool):
            return None
        fix = (f"write {str(value).lower()} without quotes" if isinstance(value, str) and value.lower() in ("true", "false")
               else "write true or false")
        return _error(path, f"{given} is not a boolean, which {_where(path)} is", source, fix)
    if isinstance(kind, Whole):
        return _whole(kind, value, path, given, source)
    if isinstance(kind, Text):
        return _text(kind, value, path, given, source)
    return None


def _whole(kind: Whole, value: Any, path: tuple[str, ...], given: str, source: str) -> Finding | None:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif kind.text_too and isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value.strip()):
        number = int(value)
    rule = f"a whole number from {kind.lo} to {kind.hi} (Rust {kind.rust})"
    if number is None:
        digits = isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value)
        fix = (f"write the number without quotes: {value.strip()}" if digits
               else f"give {rule.split(' (')[0]}")
        return _error(path, f"{given} is not {rule}, which {_where(path)} is", source, fix)
    if not kind.lo <= number <= kind.hi:
        return _error(path, f"{given} is outside {rule}, which {_where(path)} takes", source,
                      f"give a number from {kind.lo} to {kind.hi}")
    return None


def _text(kind: Text, value: Any, path: tuple[str, ...], given: str, source: str) -> Finding | None:
    if not isinstance(value, str):
        quoted = json.dumps(str(value).lower() if isinstance(value, bool) else str(value))
        fix = f"quote it: {quoted}" if not isinstance(value, Mapping | list) else "write one string"
        return _error(path, f"{given} is not a string: {_where(path)} takes {kind.what}", source, fix)
    if kind.choices and value not in kind.choices:
        near = closest(value, kind.choices, cutoff=0.6)
        hint = f"did you mean {json.dumps(near)}?" if near else f"use one of {', '.join(json.dumps(c) for c in kind.choices)}"
        allowed = ", ".join(json.dumps(c) for c in kind.choices)
        return _error(path, f"{given} is not {kind.what} Bottlerocket takes ({allowed})", MODELS["types"], hint)
    if kind.typed is not None:
        judged = kind.typed(value)
        if judged is None:
            return None
        severity, why = judged
        if severity == "warning":
            return Finding(path, f"{given} at {_where(path)}: {why}; check it at {SETTINGS_INDEX}", "warning")
        example = f", e.g. {kind.example}" if kind.example else ""
        fix = "" if "did you mean" in why else f"; give {kind.what}{example}"
        return Finding(path, f"{given} is not {kind.what}: {why}{fix}", "error")
    why = kind.check(value) if kind.check else None
    if why:
        example = f", e.g. {kind.example}" if kind.example else ""
        return _error(path, f"{given} is {why}, and {_where(path)} takes {kind.what}", MODELS["types"],
                      f"give {kind.what}{example}")
    return None
