"""Bottlerocket settings of an eks-managed Bottlerocket pool (``bottlerocket: {settings: {...}}``).

An EKS managed node group with a ``BOTTLEROCKET_*`` AMI type and no custom AMI takes TOML user data
in its launch template and EKS merges it with the settings it supplies itself (cluster name, API
server, cluster certificate): EKS user guide https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html
(Bottlerocket user data) and terraform-aws-modules/terraform-aws-eks ``docs/user_data.md``@v21.19.0
("AMI types of BOTTLEROCKET_*, user data must be in TOML format"; supplied user data is combined
with what the EKS service supplies). A re:Post article (knowledge-center
eks-configure-user-data-for-node-groups) asks for the cluster settings in the user data too: that is
the custom-AMI case, where EKS merges nothing; this component never sets an AMI, so it follows the
user guide and leaves those settings to EKS (and refuses them here).

The settings are rendered with tomli-w under ``[settings]`` beside the pool's MIG or GPU sharing settings
(:func:`gpu_node_pool.gpu_agents.mig.bottlerocket_settings`). Refused, each with its path: what EKS
owns (``settings.kubernetes.cluster-name``, ``api-server``, ``cluster-certificate``); what would stop
the node joining an EKS cluster (``bootstrap-token``, ``authentication-mode``, ``standalone-mode``:
https://bottlerocket.dev/en/os/latest/#/api/settings/kubernetes/); what EKS's TOML merge refuses
(quoted keys holding quotes, escaped quotes in values, mixed-type arrays, bracketed headers with
quoted keys: the user guide); keys Bottlerocket's settings API refuses (empty, or a character outside
``A-Za-z0-9_-/`` and a quoted ``.``: bottlerocket-core-kit ``sources/api/datastore/src/key.rs``); a dotted key right under ``settings`` (``kubernetes.max-pods``: one YAML
key, no settings group, where ``{kubernetes: {max-pods: ...}}`` was meant); what tomli-w cannot write (null, dates, integers beyond 64 bits);
device-plugin settings that contradict the pool's ``mig``/``gpuSharing``; and a misspelt key or group, or a value of
the wrong type or outside what Bottlerocket's modeled type takes, judged by the package's table of Bottlerocket settings
(:mod:`gpu_node_pool.backends._shared.bottlerocket_settings`, which says why the node would not join), whose keys and
groups it does not know are warnings (:func:`settings_warnings`). The taints and
labels of ``settings.kubernetes.node-taints``/``node-labels`` join the pool's on the node group
(:mod:`.pass_through`) and are not written into the TOML (EKS registers the nodes with the node
group's). Pure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import Field, field_validator

from ...config.common import Model, fail
from ...config.errors import fail_each
from ...gpu_agents.bottlerocket_sharing import DEVICE_PLUGINS_REFERENCE
from ...k8s.integers import in_int64
from ...text.terminal import shown
from .._shared.bottlerocket_names import SETTINGS_INDEX

__all__ = ["EksBottlerocket", "DEVICE_PLUGIN_FIX", "device_plugin_problems", "node_settings", "settings_problems",
           "settings_warnings", "toml_problem",
           "user_data", "writes_settings"]

USER_GUIDE = "https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html"
SETTINGS_REFERENCE = "https://bottlerocket.dev/en/os/latest/#/api/settings/kubernetes/"

#: ``settings.kubernetes`` keys EKS supplies to a managed node group's Bottlerocket nodes (user guide).
EKS_OWNED = ("cluster-name", "api-server", "cluster-certificate")
#: ``settings.kubernetes`` keys whose change stops the node joining an EKS cluster (settings reference):
#: a bootstrap token or TLS authentication replace EKS's aws-iam authentication, standalone mode never joins.
JOIN_BREAKING = ("bootstrap-token", "authentication-mode", "standalone-mode")
#: ``settings.kubernetes`` keys that carry taints and labels: merged onto the node group, not written.
REGISTRATION_KEYS = ("node-taints", "node-labels")
#: ``settings.kubelet-device-plugins.nvidia`` keys that decide what a node advertises, with Bottlerocket's
#: defaults (``none``: whole GPUs; ``enabled``: the image's plugin runs, ``false`` since Bottlerocket 1.63.0 turns it
#: off: bottlerocket-os/bottlerocket#4856, bottlerocket-core-kit#914): the pool's ``mig``/``gpuSharing`` decide them
#: (DEVICE_PLUGINS_REFERENCE).
ADVERTISING_KEYS = ("device-partitioning-strategy", "mig", "device-sharing-strategy", "time-slicing", "mps", "enabled")
_DEFAULTS = {("device-partitioning-strategy",): "none", ("device-sharing-strategy",): "none", ("enabled",): True}

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
#: Where Bottlerocket says which setting names it takes: ``Key::valid_character`` (A-Za-z0-9 ``_ - /``) and
#: ``parse_name_segments`` (no empty segment; a ``.`` only inside a quoted segment).
DATASTORE_KEYS = "bottlerocket-os/bottlerocket-core-kit sources/api/datastore/src/key.rs"
#: The characters of one key (one segment of a setting's name, dots allowed as it is quoted when it has them).
_KEY_CHARS = _BARE | frozenset("/.")


class EksBottlerocket(Model):
    """``bottlerocket``: further Bottlerocket settings for a ``BOTTLEROCKET_*`` pool's nodes,
    ``{settings: {kernel: {sysctl: {vm.max_map_count: "262144"}}, kubernetes: {max-pods: 110}}}``.

    ``settings``: the tables under ``[settings]`` of the node's TOML, keys as the Bottlerocket
    settings reference spells them (https://bottlerocket.dev/en/os/latest/#/api/settings/): values are
    strings, booleans, integers, floats, lists of one scalar type, or tables. ``kubernetes.node-taints``
    (key -> ``"value:Effect"`` or a list of them) and ``kubernetes.node-labels`` (key -> value) join the
    pool's taints and labels on the node group. Errors name the path (``bottlerocket.settings.<key>``)."""

    yaml_example = "{settings: {kubernetes: {max-pods: 110}}}"

    settings: dict[str, Any] = Field(
        min_length=1, description="Bottlerocket settings under [settings], e.g. {kubernetes: {max-pods: 110}}."
    )

    @field_validator("settings")
    @classmethod
    def _settings(cls, settings: dict[str, Any]) -> dict[str, Any]:
        problem = _dotted_group_problem(settings) or toml_problem(settings)
        if problem:
            at, message = problem
            raise fail(message, at)
        problems = settings_problems(settings)
        if problems:
            raise fail_each(problems)
        return settings


def settings_problems(settings: Mapping[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Every mistake in a TOML-writable ``settings`` tree, each at its own path inside it (``("kubernetes",
    "max-pods")``: its line in the stack file), in one pass: what EKS owns (:data:`EKS_OWNED`), what stops the node
    joining (:data:`JOIN_BREAKING`), ``node-taints``/``node-labels`` of the wrong shape, and what Bottlerocket's settings
    API refuses by the package's table (:func:`gpu_node_pool.backends._shared.bottlerocket_settings.judge`, each with
    why the node would not join). One problem per path: the first found there."""
    from .._shared.bottlerocket_settings import REFUSED, judge

    problems: list[tuple[tuple[str | int, ...], str]] = []
    k8s = settings.get("kubernetes")
    if k8s is not None and not isinstance(k8s, Mapping):
        problems.append((("kubernetes",), f"{type(k8s).__name__}, not a table of settings ({SETTINGS_REFERENCE})"))
    for key in (k8s if isinstance(k8s, Mapping) else {}):
        if key in EKS_OWNED:
            problems.append((("kubernetes", key), f"EKS supplies it to a managed node group's Bottlerocket nodes and "
                                                  f"merges your settings with its own ({USER_GUIDE}); remove it"))
        if key in JOIN_BREAKING:
            problems.append((("kubernetes", key), f"the node would no longer join the EKS cluster with the node group's "
                                                  f"credentials ({SETTINGS_REFERENCE}); remove it"))
    problems += _registration_shapes(k8s if isinstance(k8s, Mapping) else {})
    problems += [(f.path, f"{f.message}; {REFUSED}") for f in judge(settings) if f.error]
    seen: set[tuple[str | int, ...]] = set()
    return [(at, message) for at, message in problems if not (at in seen or seen.add(at))]


def settings_warnings(pool: Any) -> list[tuple[str, str]]:
    """``[(sub-path, message)]`` for the pool's ``bottlerocket.settings``: each key or group the package's table does not
    know, and each known one whose contents it does not judge (:func:`gpu_node_pool.backends._shared.bottlerocket_settings.judge`'s
    warnings); ``[]`` without settings. Its errors are refused by :class:`EksBottlerocket` instead."""
    settings = getattr(getattr(pool, "bottlerocket", None), "settings", None)
    if not settings:
        return []
    from .._shared.bottlerocket_settings import judge
    from .._shared.kubelet_config_fields import dotted

    return [(f"bottlerocket.settings.{dotted(f.path)}", f.message) for f in judge(settings) if not f.error]


def _dotted_group_problem(settings: Mapping[str, Any]) -> tuple[tuple[str], str] | None:
    """Why a key right under ``settings`` is a dotted path rather than a settings group, or None.

    Bottlerocket's settings groups (``kubernetes``, ``kernel``, ``host-containers``, ...: SETTINGS_INDEX) are
    bare names; a YAML key ``kubernetes.max-pods`` is one key, written to TOML as ``"kubernetes.max-pods"``,
    a setting Bottlerocket does not have, beside (not inside) ``[settings.kubernetes]``.
    """
    for key, value in settings.items():
        if isinstance(key, str) and "." in key and all(part and not _quoted(part) for part in key.split(".")):
            head, *rest = key.split(".")
            inner = "{...}" if isinstance(value, Mapping) else value
            nested = inner
            for part in reversed(rest):
                nested = f"{{{part}: {nested}}}"
            return (key,), (f"a key with dots is one key in YAML, written to TOML as \"{key}\", which is no "
                            f"Bottlerocket settings group ({SETTINGS_INDEX}: kubernetes, kernel, host-containers, ...); "
                            f"nest it: {{{head}: {nested}}}")
    return None


def _registration_shapes(k8s: Mapping[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Where and why ``node-taints``/``node-labels`` are not the shapes of the settings reference."""
    from .._shared.user_data import bottlerocket_node_taints

    problems: list[tuple[tuple[str | int, ...], str]] = []
    taints = k8s.get("node-taints")
    if taints is not None and not isinstance(taints, Mapping):
        problems.append((("kubernetes", "node-taints"),
                         f"{type(taints).__name__}, not a map of taint key to \"value:Effect\" ({SETTINGS_REFERENCE})"))
    for key, entries in (taints if isinstance(taints, Mapping) else {}).items():
        items = entries if isinstance(entries, list) else [entries]
        if not items or not all(isinstance(e, str) for e in items):
            problems.append((("kubernetes", "node-taints", key),
                             f"{entries!r} is not \"value:Effect\" or a list of them ({SETTINGS_REFERENCE})"))
            continue
        try:
            bottlerocket_node_taints({key: entries})
        except ValueError as err:
            problems.append((("kubernetes", "node-taints", key),
                             f"{err} (\"value:Effect\" with a Kubernetes effect, {SETTINGS_REFERENCE})"))
    labels = k8s.get("node-labels")
    if labels is not None and (not isinstance(labels, Mapping) or not all(isinstance(v, str) for v in labels.values())):
        problems.append((("kubernetes", "node-labels"), f"must map label keys to string values ({SETTINGS_REFERENCE})"))
    return problems


def _quoted(key: str) -> bool:
    return not key or any(c not in _BARE for c in key)


def toml_problem(value: Any, at: tuple[str | int, ...] = ()) -> tuple[tuple[str | int, ...], str] | None:
    """Why ``value`` cannot go into the TOML EKS merges: ``(where inside value, as keys and list indexes;
    the message)``, or None.

    Refused: null, dates and other non-TOML values (tomli-w cannot write them as a setting); nan and inf
    (TOML can write them, no setting takes them); integers beyond 64 bits (TOML's range); ``"``, ``\\`` or
    control characters in a key or string value (tomli-w writes them as escape sequences, and EKS's merge
    refuses escaped quotes and quoted keys holding quotes); lists of mixed types or of tables (EKS's merge
    refuses mixed-type arrays); a table under a key that is not bare (``A-Za-z0-9_-``), whose header would
    be a bracketed header with a quoted key; an empty key, or one with a character Bottlerocket's setting
    names never hold (outside ``A-Za-z0-9_-/.``), which TOML writes quoted and Bottlerocket refuses.
    Sources: EKS user guide launch-templates (Bottlerocket user data); TOML v1.0.0 https://toml.io/en/v1.0.0;
    :data:`DATASTORE_KEYS`.
    """
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = (*at, key)
            if not isinstance(key, str):
                return where, f"a key must be a string ({USER_GUIDE})"
            if _bad_chars(key):
                return where, (f"the key holds a quote, a backslash or a control character, which EKS's TOML merge "
                               f"refuses in keys ({USER_GUIDE}); use the key as the settings reference spells it")
            if isinstance(item, Mapping) and _quoted(key):
                return where, (f"a table under a key that is not bare (A-Za-z0-9_-) is written as a bracketed header "
                               f"with a quoted key, which EKS's TOML merge refuses ({USER_GUIDE}); use bare keys for tables")
            if not key or any(c not in _KEY_CHARS for c in key):
                return where, (f"the key {shown(key)} is no Bottlerocket setting name: Bottlerocket's settings API takes "
                               "keys of A-Za-z0-9, '_', '-' and '/' (a '.' only inside one quoted key), never empty "
                               f"({DATASTORE_KEYS}), and refuses the rest; TOML would write it as a quoted key all the "
                               f"same. Use the key as the settings reference spells it ({SETTINGS_INDEX})")
            problem = toml_problem(item, where)
            if problem:
                return problem
        return None
    if isinstance(value, list):
        if not value:
            return None
        if any(isinstance(v, Mapping | list) for v in value):
            return at, f"a list of tables or lists is not written into the TOML EKS merges ({USER_GUIDE}); use a table"
        kinds = {type(v) for v in value}
        if len(kinds) > 1:
            return at, (f"{value!r} mixes {', '.join(sorted(k.__name__ for k in kinds))}; EKS's TOML merge refuses "
                        f"mixed-type arrays ({USER_GUIDE}): use one type, e.g. all strings")
        return next((p for i, v in enumerate(value) if (p := toml_problem(v, (*at, i)))), None)
    if isinstance(value, float) and not math.isfinite(value):
        return at, (f"{value!r} is not a finite number, and no Bottlerocket setting takes nan or inf "
                    f"({SETTINGS_INDEX}); give a real value")
    if isinstance(value, bool | float):
        return None
    if isinstance(value, int):
        if not in_int64(value):
            return at, f"{value} is beyond TOML's 64-bit integers (https://toml.io/en/v1.0.0#integer); give a real value"
        return None
    if isinstance(value, str):
        if _bad_chars(value):
            return at, (f"{value[:40]!r} holds a quote, a backslash or a control character, which would be written "
                        f"as an escape sequence, and EKS's TOML merge refuses escaped quotes in values ({USER_GUIDE}); "
                        "write the plain value")
        return None
    what = "null" if value is None else type(value).__name__
    return at, (f"{what} is not a Bottlerocket setting value (a string, boolean, number, list or table: "
                f"{SETTINGS_INDEX}); quote it or remove it")


def _bad_chars(text: str) -> bool:
    return any(c in '"\\' or ord(c) < 32 or ord(c) == 127 for c in text)


def _leaves(tree: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    out: dict[tuple[str, ...], Any] = {}
    for key, value in tree.items():
        if isinstance(value, Mapping) and value:
            out |= _leaves(value, (*prefix, key))
        else:
            out[(*prefix, key)] = value
    return out


#: What follows the contradictions :func:`device_plugin_problems` finds: why they matter, the source and the fix.
DEVICE_PLUGIN_FIX = (f"the plan, the Cluster Autoscaler tags and the policies promise what the pool declares "
                     f"({DEVICE_PLUGINS_REFERENCE}); set mig or gpuSharing on the pool instead, and remove the setting "
                     "from bottlerocket.settings")


def device_plugin_problems(pool: Any) -> list[tuple[tuple[str, ...], str]]:
    """Where and why the pool's ``settings.kubelet-device-plugins.nvidia`` contradicts its ``mig``/``gpuSharing``:
    ``[(path under the pool, message), ...]``, one per contradicting setting (``[]`` for none).

    The keys that decide what a node advertises (:data:`ADVERTISING_KEYS`) must say what the component writes
    for the pool (its MIG or sharing settings, :func:`gpu_node_pool.gpu_agents.mig.bottlerocket_settings`;
    otherwise Bottlerocket's defaults: ``none``, the plugin enabled): else the node would advertise other resources
    than the plan, the Cluster Autoscaler tags and the policies expect (e.g. ``time-slicing.rename-by-default = true``
    advertises ``nvidia.com/gpu.shared``: :mod:`gpu_node_pool.gpu_agents.bottlerocket_sharing`). The leaves of
    :data:`~gpu_node_pool.gpu_agents.bottlerocket_sharing.USER_CHOICES` (``time-slicing.fail-requests-greater-than-one``)
    are the user's to choose. The path is the setting's own (its line in the stack file); the message names its value
    and what the pool writes there; :data:`DEVICE_PLUGIN_FIX` (why it matters, the source, the fix) follows them once.
    """
    from ...gpu_agents.bottlerocket_sharing import USER_CHOICES
    from ...gpu_agents.mig import bottlerocket_settings

    settings = getattr(pool.bottlerocket, "settings", None) or {}
    nvidia = ((settings.get("kubelet-device-plugins") or {}).get("nvidia")) or {}
    if not isinstance(nvidia, Mapping):
        return []
    try:
        ours = bottlerocket_settings(pool)
    except ValueError:  # a GPU or profile Bottlerocket lacks: the stack's MIG rules refuse the pool's mig with the source
        return []
    problems: list[tuple[tuple[str, ...], str]] = []
    sharing = getattr(pool, "gpu_sharing", None)
    mine = _leaves(((ours.get("kubelet-device-plugins") or {}).get("nvidia")) or {})
    for key in ADVERTISING_KEYS:
        if key not in nvidia:
            continue
        given = _leaves({key: nvidia[key]})
        for leaf, value in given.items():
            if leaf in USER_CHOICES:
                continue
            want = mine.get(leaf, _DEFAULTS.get(leaf))
            if value != want:
                writes = "nothing" if want is None else _toml(want)
                if pool.mig is not None:
                    declared = f"the pool's mig ({pool.mig.strategy} {pool.mig.profile}) writes {writes} there"
                elif sharing is not None and mine:
                    declared = f"the pool's gpuSharing ({sharing.strategy}, replicas {sharing.replicas}) writes {writes} there"
                elif want is None:
                    declared = "the pool has no mig or gpuSharing, so nothing is written there"
                else:
                    declared = f"the pool has no mig or gpuSharing (Bottlerocket's default there is {_toml(want)})"
                problems.append((("bottlerocket", "settings", "kubelet-device-plugins", "nvidia", *leaf),
                                 f"{_toml(value)} contradicts the pool: {declared}"))
    return problems


def _toml(value: Any) -> str:
    """``value`` as the stack file and the TOML spell it (``true``, ``"mps"``, ``4``), not as Python does."""
    return json.dumps(value)


def _user_choices(given: Mapping[str, Any]) -> dict[str, Any]:
    """The leaves of :data:`~gpu_node_pool.gpu_agents.bottlerocket_sharing.USER_CHOICES` the pool's own settings give,
    as a settings tree under ``kubelet-device-plugins.nvidia`` (``{}`` for none)."""
    from ...gpu_agents.bottlerocket_sharing import USER_CHOICES

    plugins = given.get("kubelet-device-plugins")
    nvidia = plugins.get("nvidia") if isinstance(plugins, Mapping) else None
    if not isinstance(nvidia, Mapping):
        return {}
    leaves = _leaves(nvidia)
    chosen: dict[str, Any] = {}
    for leaf in USER_CHOICES:
        if leaf in leaves:
            node = chosen
            for part in leaf[:-1]:
                node = node.setdefault(part, {})
            node[leaf[-1]] = leaves[leaf]
    return {"kubelet-device-plugins": {"nvidia": chosen}} if chosen else {}


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def _given(pool: Any) -> dict[str, Any]:
    """The pool's ``bottlerocket.settings`` without ``kubernetes.node-taints``/``node-labels``."""
    given = dict(getattr(getattr(pool, "bottlerocket", None), "settings", None) or {})
    if isinstance(given.get("kubernetes"), Mapping):
        k8s = {k: v for k, v in given["kubernetes"].items() if k not in REGISTRATION_KEYS}
        if k8s:
            given["kubernetes"] = k8s
        else:
            del given["kubernetes"]
    return given


def writes_settings(pool: Any) -> bool:
    """Whether the component writes Bottlerocket TOML for ``pool``: settings beyond taints and labels, or ``mig`` or
    ``gpuSharing`` on a Bottlerocket NVIDIA image (its MIG or sharing settings). Never raises (:func:`node_settings` may)."""
    bottlerocket = getattr(pool, "image_family", "") == "bottlerocket-nvidia"
    declared = getattr(pool, "mig", None) is not None or getattr(pool, "gpu_sharing", None) is not None
    return bool(_given(pool)) or (bottlerocket and declared)


def node_settings(pool: Any) -> dict[str, Any]:
    """The tables under ``[settings]`` the component writes for ``pool``: its ``bottlerocket.settings``
    without ``kubernetes.node-taints``/``node-labels`` (the node group carries them), merged with its
    MIG or sharing settings (:func:`gpu_node_pool.gpu_agents.mig.bottlerocket_settings`), which win, but for the
    leaves the user may choose (``time-slicing.fail-requests-greater-than-one``: the pool's own value stays). ``{}`` for none.

    Raises:
        ValueError: the pool's GPU or MIG profile is not in Bottlerocket's table (the stack's MIG rules refuse it first).
    """
    from ...gpu_agents.mig import bottlerocket_settings

    given = _given(pool)
    return _merge(_merge(given, bottlerocket_settings(pool)), _user_choices(given))


def user_data(pool: Any) -> str | None:
    """The pool's Bottlerocket TOML user data (``[settings...]`` tables, tomli-w), or None when the
    component writes no settings for it. EKS adds its own cluster settings when it merges it."""
    settings = node_settings(pool)
    if not settings:
        return None
    import tomli_w  # Bottlerocket pools only

    return tomli_w.dumps({"settings": settings})
