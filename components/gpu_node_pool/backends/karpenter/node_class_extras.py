"""Pass-through fields of the ``EC2NodeClass`` the component creates: ``blockDeviceMappings``,
``kubelet``, ``instanceStorePolicy`` and ``userData`` (``nodeClass`` keys of a karpenter pool).

Shapes and bounds are the EC2NodeClass v1 CRD's (karpenter.k8s.aws/v1, aws/karpenter-provider-aws
``pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml``; the field reference is
https://karpenter.sh/docs/concepts/nodeclasses/). They are rendered as given; none of them may carry
what the pool declares elsewhere:

* ``userData`` is read back with the bootstrap readers (:mod:`gpu_node_pool.backends._shared.user_data`),
  and the taints and labels it registers the node with are merged into the pool's NodePool
  (:func:`user_data_registration`, :func:`merge_problems`): Karpenter schedules from the NodePool, and
  the values its generated bootstrap writes win over the user's (nodeclasses ``spec.userData``, AL2023:
  "Any values configured by the Karpenter generated NodeConfig object will take precedent over values
  specified in spec.userData. This includes ... taints, labels"; Bottlerocket: Karpenter replaces
  ``settings.kubernetes.node-taints`` with the NodePool's, aws/karpenter-provider-aws
  ``pkg/providers/amifamily/bootstrap/bottlerocket.go``@v1.14.1). So a taint that only userData sets
  reaches the node only once the NodePool carries it too. Refused: one key+effect with another value
  than ``taints``/``startupTaints`` (both paths named), a label against ``labels`` or against a label the
  component sets (``gpuLabel``, ``gpu-node-pools/pool``, the device-plugin config: :func:`own_label_problems`), a restricted
  Karpenter domain, a label the kubelet may not set on its own Node (NodeRestriction,
  :func:`gpu_node_pool.k8s.labels.node_restriction_problem`: Karpenter keeps such NodePool labels out of
  the kubelet's flags and applies them itself, aws/karpenter-provider-aws
  ``pkg/providers/amifamily/resolver.go``@v1.14.1 ``RejectForbiddenLabels``, but userData hands them to the
  kubelet), a key+effect also in ``startupTaints``, and a kubelet ``--register-with-taints``
  flag that leaves out one of the NodePool's taints (a kubelet flag overrides the config file in which
  Karpenter writes ``registerWithTaints``, ``pkg/providers/amifamily/bootstrap/nodeadm.go``@v1.14.1; the
  node would lose that taint). A taint setting the readers cannot parse (the shared
  :func:`~gpu_node_pool.backends._shared.registration_mentions.unreadable_registration_mentions`) is
  refused, as not judged; so is userData in the other image family's format (TOML on ``al2023``, anything
  but TOML on ``bottlerocket``: :func:`user_data_format_problem`) and userData past EC2's 16 KB.
* ``kubelet`` holds only the CRD's kubelet fields (none of them sets taints or labels), with the CRD's
  types, keys, value patterns and CEL rules (:class:`KarpenterKubelet`); ``evictionSoftGracePeriod`` values and
  ``evictionMaxPodGracePeriod`` are judged by the kubelet's own rules, the ones an eks-managed ``kubelet.config``
  gets (:func:`~gpu_node_pool.backends._shared.kubelet_config_fields.grace_period_problem`,
  :func:`~gpu_node_pool.backends._shared.kubelet_config_fields.whole_number_problem`), each message naming who
  refuses the value in a Karpenter pool (:data:`_GRACE_SOURCE`, :data:`_INT32_SOURCE`). On a ``bottlerocket`` alias
  Karpenter writes most of them into the node's Bottlerocket settings (:data:`BOTTLEROCKET_KEYS`), and each such value
  is judged by the package's table of Bottlerocket settings as well (:func:`bottlerocket_kubelet_problems`):
  ``evictionMaxPodGracePeriod: -1`` is an int32 the CRD takes but not the NonNegativeInteger Bottlerocket's
  ``eviction-max-pod-grace-period`` is, and the node would never join.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from ...config.common import Model, fail
from ...config.errors import fail_per_key
from ...k8s.integers import INT32_MAX
from ...k8s.patterns import full_match, pattern_search
from ...text.listing import listed
from ...text.suggest import closest
from .limits import (
    KARPENTER_EVICTION_SIGNALS,
    KARPENTER_EVICTION_VALUE_RE,
    KARPENTER_KUBELET_INTS,
    KARPENTER_KUBELET_SOURCE,
    KARPENTER_RESERVED_RESOURCES,
    KARPENTER_RESERVED_VALUE_RE,
)

__all__ = ["BOTTLEROCKET_KEYS", "EbsVolume", "BlockDeviceMapping", "KarpenterKubelet", "bottlerocket_kubelet_problems",
           "merge_problems", "own_label_problems",
           "user_data_format_problem", "user_data_problem", "user_data_registration", "to_k8s_fields"]

_SOURCE = "https://karpenter.sh/docs/concepts/nodeclasses/"
#: ``evictionSoftGracePeriod``: the CRD says only ``type: string``, but Karpenter's Go type reads each value as a
#: ``metav1.Duration`` (k8s.io/apimachinery ``pkg/apis/meta/v1/duration.go``: Go's ``time.ParseDuration``) and hands it
#: to the kubelet as ``--eviction-soft-grace-period`` or Bottlerocket's setting, whose ``parseGracePeriods`` refuses
#: a negative one.
_GRACE_SOURCE = ("aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass.go, EvictionSoftGracePeriod "
                 "map[string]metav1.Duration, read with Go's time.ParseDuration")
_GRACE_PASSED_ON = ("aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/bootstrap/bootstrap.go and bottlerocket.go; "
                    "kubernetes/kubernetes pkg/kubelet/eviction/helpers.go@008b3652, parseGracePeriods: \"must be a "
                    "positive value\"")
#: An integer field of ``spec.kubelet`` (``{name}``): ``type: integer, format: int32`` in the CRD, which the API server
#: holds a value to (kubernetes/kube-openapi ``pkg/validation/validate/validator.go``@c8c0761c, ``numberValidator``),
#: and ``*int32`` in Karpenter's Go type as in the kubelet's (``evictionMaxPodGracePeriod``: seconds).
_INT32_SOURCE = ("{crd}: {name} is type: integer, format: int32, which the API server holds it to (kubernetes/kube-openapi "
                 "pkg/validation/validate/validator.go@c8c0761c, numberValidator); an int32 in Karpenter's Go type "
                 "(pkg/apis/v1/ec2nodeclass.go) as in the kubelet's (kubernetes/kubelet config/v1beta1/types.go@v0.34.0)")
#: EC2NodeClass CRD: ``ebs.volumeSize`` (a quantity, 1Gi..64T as the CRD's pattern bounds it).
_VOLUME_SIZE_RE = (r"^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}"
                   r"|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$")


class EbsVolume(Model):
    """``blockDeviceMappings[].ebs``: the EBS volume (EC2NodeClass CRD)."""

    volume_size: str | None = Field(None, description="e.g. 100Gi (1Gi-64T).")
    volume_type: Literal["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"] | None = None
    iops: int | None = Field(None, ge=0, le=INT32_MAX, description="IOPS (an int32 in the EC2 API's EbsBlockDevice).")
    throughput: int | None = Field(
        None, ge=0, le=INT32_MAX, description="MiB/s (gp3; an int32 in the EC2 API's EbsBlockDevice)."
    )
    encrypted: bool | None = None
    kms_key_id: str | None = Field(None, alias="kmsKeyID")
    delete_on_termination: bool | None = None
    snapshot_id: str | None = Field(None, alias="snapshotID")

    @field_validator("volume_size")
    @classmethod
    def _size(cls, size: str | None) -> str | None:
        if size is not None and not full_match(_VOLUME_SIZE_RE, size):
            raise fail(f"{size!r} is not an EBS volume size the EC2NodeClass accepts, e.g. 100Gi or 2Ti ({_SOURCE})")
        return size


class BlockDeviceMapping(Model):
    """``blockDeviceMappings[]``: ``{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 200Gi, volumeType: gp3}}``."""

    device_name: str | None = Field(None, description="e.g. /dev/xvda (AL2023 root), /dev/xvdb (Bottlerocket data).")
    root_volume: bool | None = Field(None, description="The volume holds the root filesystem (at most one).")
    ebs: EbsVolume | None = None


class KarpenterKubelet(Model):
    """``kubelet``: the CRD's kubelet settings (maxPods, reserved resources, eviction, image GC, CFS quota, DNS).

    Each field has the type, range, keys and value pattern of the EC2NodeClass CRD's ``spec.kubelet``
    (v1.14.1, mirrored in :mod:`gpu_node_pool.backends.karpenter.limits`), and the object its three CEL
    rules: ``imageGCHighThresholdPercent`` greater than ``imageGCLowThresholdPercent``, and every
    ``evictionSoft`` key with an ``evictionSoftGracePeriod`` and the reverse.
    """

    max_pods: int | None = None
    pods_per_core: int | None = None
    system_reserved: dict[str, str] | None = None
    kube_reserved: dict[str, str] | None = None
    eviction_hard: dict[str, str] | None = None
    eviction_soft: dict[str, str] | None = None
    eviction_soft_grace_period: dict[str, str] | None = None
    eviction_max_pod_grace_period: int | None = None
    image_gc_high_threshold_percent: int | None = Field(None, alias="imageGCHighThresholdPercent")
    image_gc_low_threshold_percent: int | None = Field(None, alias="imageGCLowThresholdPercent")
    cpu_cfs_quota: bool | None = Field(None, alias="cpuCFSQuota")
    cluster_dns: list[str] | None = Field(None, alias="clusterDNS")

    @field_validator("max_pods", "pods_per_core", "eviction_max_pod_grace_period", "image_gc_high_threshold_percent",
                     "image_gc_low_threshold_percent")
    @classmethod
    def _int_range(cls, value: int | None, info: ValidationInfo) -> int | None:
        """The CRD's own bounds; a field the CRD bounds by its int32 format alone gets the kubelet's int32 rule."""
        from .._shared.kubelet_config_fields import INT_RANGES, whole_number_problem

        name = _alias(cls, info)
        low, high = KARPENTER_KUBELET_INTS[name]
        if value is not None and (low, high) == INT_RANGES["int32"]:
            problem = whole_number_problem((name,), value)
            if problem:
                raise fail(f"{problem[0]} ({_INT32_SOURCE.format(crd=KARPENTER_KUBELET_SOURCE, name=name)}); {problem[1]}")
        elif value is not None and not low <= value <= high:
            what = "an int32" if high == INT32_MAX else "a percentage"
            raise fail(f"{name} {value} is outside {low}..{high} ({KARPENTER_KUBELET_SOURCE}: {name} is {what} "
                       f"from {low} to {high}); write a number in that range")
        return value

    @field_validator("eviction_hard", "eviction_soft", mode="before")
    @classmethod
    def _bare_thresholds(cls, signals: Any) -> Any:
        """A bare number as a threshold: quoted it would be that many bytes, so the fix offers both forms."""
        if not isinstance(signals, dict):
            return signals  # pydantic says it must be a mapping
        from .._shared.kubelet_config_fields import bare_threshold_fix

        problems = [(key, f"{value}: a threshold is text, a percentage or a quantity ({KARPENTER_KUBELET_SOURCE}); "
                          + bare_threshold_fix(str(key), value))
                    for key, value in signals.items() if isinstance(value, int | float) and not isinstance(value, bool)]
        if problems:
            raise fail_per_key(problems)
        return signals

    @field_validator("eviction_max_pod_grace_period", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> Any:
        """Anything but a whole number (text, a duration, a fraction, a boolean, a map or list), by the kubelet's rule
        for its int32 of seconds; a duration text is offered as its seconds. A number is left to :meth:`_int_range`."""
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()):
            return value
        from .._shared.kubelet_config_fields import whole_number_problem

        name = "evictionMaxPodGracePeriod"
        problem = whole_number_problem((name,), value)
        if problem:
            raise fail(f"{problem[0]} ({_INT32_SOURCE.format(crd=KARPENTER_KUBELET_SOURCE, name=name)}); {problem[1]}")
        return value

    @field_validator("eviction_soft_grace_period", mode="before")
    @classmethod
    def _grace_periods(cls, periods: Any) -> Any:
        """Each value by the kubelet's grace period rule (a duration written as text, not negative), before pydantic
        reads the map, so that a number, bare or not, gets a duration with its unit as its fix."""
        if not isinstance(periods, dict):
            return periods  # pydantic says it must be a mapping
        from .._shared.kubelet_config_fields import duration_seconds, grace_period_problem

        problems = []
        for key, value in periods.items():
            problem = grace_period_problem(str(key), value) if value is not None else None
            if problem is None:
                continue  # taken, or a null pydantic refuses
            rule, fix = problem
            if not isinstance(value, str):
                source = f"{KARPENTER_KUBELET_SOURCE}: evictionSoftGracePeriod values are type: string; {_GRACE_SOURCE}"
                then = "the API server refuses the EC2NodeClass"
            elif duration_seconds(value) is None:
                source, then = _GRACE_SOURCE, "the CRD takes any text there, but Karpenter cannot decode the EC2NodeClass"
            else:
                source, then = _GRACE_PASSED_ON, ("Karpenter passes it to the kubelet, which refuses it when it starts, so "
                                                  "the node never joins")
            problems.append((key, f"{rule} ({source}); {then}; {fix}"))
        if problems:
            raise fail_per_key(problems)
        return periods

    @field_validator("eviction_hard", "eviction_soft", "eviction_soft_grace_period")
    @classmethod
    def _eviction(cls, signals: dict[str, str] | None, info: ValidationInfo) -> dict[str, str] | None:
        name = _alias(cls, info)
        problems = [(key, _unknown_key(name, key, KARPENTER_EVICTION_SIGNALS, "an eviction signal"))
                    for key in signals or {} if key not in KARPENTER_EVICTION_SIGNALS]
        if name != "evictionSoftGracePeriod":  # the CRD gives grace periods no pattern
            problems += [
                (key, f"{value!r} is neither a percentage nor a quantity ({KARPENTER_KUBELET_SOURCE}: "
                      f"{name} values match {KARPENTER_EVICTION_VALUE_RE.pattern}); write e.g. '10%' or '500Mi'")
                for key, value in (signals or {}).items() if not pattern_search(KARPENTER_EVICTION_VALUE_RE, value)]
        if problems:
            raise fail_per_key(problems)
        return signals

    @field_validator("kube_reserved", "system_reserved")
    @classmethod
    def _reserved(cls, reserved: dict[str, str] | None, info: ValidationInfo) -> dict[str, str] | None:
        name = _alias(cls, info)
        problems = [(key, _unknown_key(name, key, KARPENTER_RESERVED_RESOURCES, "a resource"))
                    for key in reserved or {} if key not in KARPENTER_RESERVED_RESOURCES]
        for key, value in (reserved or {}).items():
            if not pattern_search(KARPENTER_RESERVED_VALUE_RE, value):
                problems.append((key, f"{value!r} is not a Kubernetes quantity ({KARPENTER_KUBELET_SOURCE}: "
                                      f"{name} values match {KARPENTER_RESERVED_VALUE_RE.pattern}); write e.g. '500m' or '1Gi'"))
            elif value.startswith("-"):
                problems.append((key, f"{value!r} is negative ({KARPENTER_KUBELET_SOURCE}: {name} value "
                                      f"cannot be a negative resource quantity); reserve 0 or more, e.g. "
                                      f"{value.removeprefix('-')!r}"))
        if problems:
            raise fail_per_key(problems)
        return reserved

    @model_validator(mode="after")
    def _cel_rules(self) -> KarpenterKubelet:
        problems: list[tuple[tuple[str, ...], str]] = []
        high, low = self.image_gc_high_threshold_percent, self.image_gc_low_threshold_percent
        if high is not None and low is not None and not high > low:
            problems.append((("imageGCHighThresholdPercent",), (
                f"imageGCHighThresholdPercent {high} is not above imageGCLowThresholdPercent {low} "
                f"({KARPENTER_KUBELET_SOURCE}: imageGCHighThresholdPercent must be greater than "
                "imageGCLowThresholdPercent); raise the high threshold or lower the low one, e.g. 85 and 80")))
        soft, grace = self.eviction_soft, self.eviction_soft_grace_period
        for key in soft or {}:
            if key not in (grace or {}):
                problems.append((("evictionSoft", key), (
                    f"evictionSoft[{key!r}] has no evictionSoftGracePeriod[{key!r}] ({KARPENTER_KUBELET_SOURCE}: "
                    "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod); add "
                    f"evictionSoftGracePeriod: {{{key}: 1m30s}} or remove the soft threshold")))
        for key in grace or {}:
            if key not in (soft or {}):
                problems.append((("evictionSoftGracePeriod", key), (
                    f"evictionSoftGracePeriod[{key!r}] has no evictionSoft[{key!r}] ({KARPENTER_KUBELET_SOURCE}: "
                    "evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft); add the soft threshold, "
                    f"e.g. evictionSoft: {{{key}: '10%'}}, or remove the grace period")))
        if problems:
            raise fail_per_key(problems)
        return self


#: Where Karpenter writes the EC2NodeClass ``kubelet`` into a Bottlerocket node's settings.
_BOTTLEROCKET_BOOTSTRAP = ("aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/bottlerocket.go@v1.14.1 "
                           "(Bottlerocket.Script) and bottlerocketsettings.go@v1.14.1 (the TOML keys)")
#: The ``kubelet`` fields Karpenter copies into ``settings.kubernetes`` on a Bottlerocket class, and the key each becomes
#: (:data:`_BOTTLEROCKET_BOOTSTRAP`): ``imageGC*ThresholdPercent`` as a string of the number, each
#: ``evictionSoftGracePeriod`` value as Go's ``Duration.String()``, ``clusterDNS`` as its first address; ``podsPerCore``
#: is not copied.
BOTTLEROCKET_KEYS = {
    "maxPods": "max-pods", "clusterDNS": "cluster-dns-ip", "systemReserved": "system-reserved",
    "kubeReserved": "kube-reserved", "evictionHard": "eviction-hard", "evictionSoft": "eviction-soft",
    "evictionSoftGracePeriod": "eviction-soft-grace-period", "evictionMaxPodGracePeriod": "eviction-max-pod-grace-period",
    "imageGCHighThresholdPercent": "image-gc-high-threshold-percent",
    "imageGCLowThresholdPercent": "image-gc-low-threshold-percent", "cpuCFSQuota": "cpu-cfs-quota-enforced",
}


def _go_duration(text: str) -> str:
    """``text`` (a Go duration) as Go's ``time.Duration.String()`` writes it: ``90s`` -> ``1m30s``, ``1h`` -> ``1h0m0s``,
    ``0.5ms`` -> ``500µs`` (Go's ``src/time/time.go``, ``Duration.String``)."""
    from .._shared.kubelet_config_fields import duration_seconds

    seconds = duration_seconds(text)
    if seconds is None:
        return text
    ns = int(seconds * 10**9)
    sign, ns = ("-" if ns < 0 else ""), abs(ns)
    if ns == 0:
        return "0s"

    def fraction(value: int, unit: int) -> str:
        whole, rest = divmod(value, unit)
        digits = str(rest).rjust(len(str(unit)) - 1, "0").rstrip("0")
        return f"{whole}.{digits}" if digits else str(whole)

    if ns < 10**9:
        unit, name = ((1, "ns") if ns < 10**3 else (10**3, "µs") if ns < 10**6 else (10**6, "ms"))
        return f"{sign}{fraction(ns, unit)}{name}"
    hours, rest = divmod(ns, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    out = (f"{hours}h" if hours else "") + (f"{minutes}m" if hours or minutes else "")
    return f"{sign}{out}{fraction(rest, 10**9)}s"


def bottlerocket_kubelet_problems(kubelet: KarpenterKubelet) -> list[tuple[tuple[str, ...], str]]:
    """Where and why the ``kubelet`` of a ``bottlerocket`` class writes a value Bottlerocket's settings API refuses:
    ``[(path under kubelet, sentence)]`` (``(("evictionMaxPodGracePeriod",), ...)``, ``[]`` for none).

    The fields of :data:`BOTTLEROCKET_KEYS` are written as Karpenter writes them and judged by
    :func:`gpu_node_pool.backends._shared.bottlerocket_settings.judge`, the one table of Bottlerocket settings; each
    sentence names the field, the setting it becomes, both sources, the rule and the fix. Only errors: a setting the
    table does not judge (``cluster-dns-ip``) is left to Karpenter."""
    from .._shared.bottlerocket_settings import REFUSED, judge
    from .._shared.kubelet_config_fields import dotted

    given = kubelet.model_dump(by_alias=True, exclude_none=True)
    written: dict[str, Any] = {}
    for field, key in BOTTLEROCKET_KEYS.items():
        value = given.get(field)
        if value is None or (field == "clusterDNS" and not value):
            continue
        if field.startswith("imageGC"):
            value = str(value)
        elif field == "evictionSoftGracePeriod":
            value = {signal: _go_duration(period) for signal, period in value.items()}
        elif field == "clusterDNS":
            value = value[0]
        written[key] = value
    field_of = {key: field for field, key in BOTTLEROCKET_KEYS.items()}
    problems: list[tuple[tuple[str, ...], str]] = []
    for finding in judge({"kubernetes": written}):
        if finding.error and len(finding.path) >= 2 and finding.path[1] in field_of:
            field = field_of[finding.path[1]]
            where = (field, *finding.path[2:])
            problems.append((where, (
                f"on a bottlerocket class Karpenter writes nodeClass.kubelet.{dotted(where)} into the node's Bottlerocket "
                f"setting settings.{dotted(finding.path)} ({_BOTTLEROCKET_BOOTSTRAP}), and there {finding.message}; "
                f"{REFUSED}")))
    return problems


def _alias(model: type[Model], info: ValidationInfo) -> str:
    """The stack YAML's name of the field being validated (``maxPods``, ``imageGCHighThresholdPercent``)."""
    return model.model_fields[info.field_name].alias or to_camel(info.field_name)


def _unknown_key(field: str, key: str, allowed: tuple[str, ...], what: str) -> str:
    """The sentence for a ``kubelet`` map key the CRD's CEL rule refuses (not one of ``allowed``)."""
    close = closest(key, allowed, cutoff=0.8)  # not 'gpu' -> 'cpu'
    fix = f"did you mean {close}?" if close else f"use one of {', '.join(allowed)} or remove it"
    return (f"{key!r} is not {what} {field} takes ({KARPENTER_KUBELET_SOURCE}: valid keys for "
            f"{field} are {', '.join(allowed)}); {fix}")


def user_data_problem(user_data: str) -> str | None:
    """Why ``nodeClass.userData`` cannot be read and judged, or None: more than EC2's 16 KB, a control character, kubelet taints or
    labels that do not parse, or a taint setting in a form the readers cannot parse (not judged). What it
    registers is merged into the NodePool (:func:`merge_problems`), not refused."""
    from .._shared.registration_mentions import unreadable_registration_mentions
    from .._shared.user_data import user_data_size_problem

    too_big = user_data_size_problem(user_data, "nodeClass.userData", "Karpenter",
                                     "shorten it, e.g. have it fetch a longer script at boot")
    if too_big:
        return too_big
    bad = next((c for c in user_data if (ord(c) < 32 and c not in "\t\n\r") or ord(c) == 127), None)
    if bad is not None:
        return (f"nodeClass.userData holds the control character {bad!r}; user data is a script, MIME or TOML text "
                f"({_SOURCE}, spec.userData): write it as text")
    from .._shared.user_data import UserDataError

    try:
        user_data_registration(user_data)
    except UserDataError as err:  # the text as a whole cannot be read (YAML that does not parse, a tag it cannot read)
        return (f"nodeClass.userData cannot be read: {err}; the node's bootstrap (nodeadm, Bottlerocket) would fail on "
                f"it as well ({_SOURCE}, spec.userData): fix that part of userData")
    except ValueError as err:  # TaintError is a ValueError
        return (f"nodeClass.userData sets kubelet taints or labels that do not parse ({err}); Karpenter sets them "
                f"from the NodePool ({_SOURCE}, spec.userData): declare them as the pool's taints and labels")
    unreadable = unreadable_registration_mentions(user_data)
    if unreadable:
        return (f"nodeClass.userData mentions a kubelet taint setting in a form the bootstrap readers cannot parse "
                f"(not judged), in {unreadable[0]!r}; Karpenter sets taints and labels from the NodePool: declare them as "
                "the pool's taints and labels and remove them from userData")
    return None


_KARPENTER_BOOTSTRAP = "aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/"


def user_data_format_problem(user_data: str, family: str) -> str | None:
    """Why ``nodeClass.userData`` is not what Karpenter reads for the class's image ``family``, or None.

    ``bottlerocket``: Karpenter parses userData as TOML and refuses the class's launch otherwise
    (``bottlerocket.go``@v1.14.1 ``Script``: "invalid UserData"). ``al2023``: MIME starting with a
    ``MIME-Version:``/``Content-Type:`` header, else a NodeConfig if it parses as YAML, else a shell script
    (``nodeadm.go``@v1.14.1 ``parseUserData``): Bottlerocket TOML settings would run as a shell script.
    """
    import tomllib

    if family == "bottlerocket":
        try:
            tomllib.loads(user_data)
        except tomllib.TOMLDecodeError as err:
            return (f"nodeClass.userData does not parse as TOML ({err}), and Karpenter reads a bottlerocket class's userData "
                    f"as TOML settings and launches nothing otherwise ({_KARPENTER_BOOTSTRAP}bottlerocket.go@v1.14.1: "
                    "\"invalid UserData\"): write [settings.*] tables, or use amiAlias al2023@... for a NodeConfig")
        return None
    if family == "al2023":
        try:
            settings = tomllib.loads(user_data).get("settings")
        except tomllib.TOMLDecodeError:
            return None
        if isinstance(settings, dict):
            return ("nodeClass.userData is Bottlerocket TOML settings, but Karpenter reads an al2023 class's userData as MIME, "
                    f"a NodeConfig or else a shell script ({_KARPENTER_BOOTSTRAP}nodeadm.go@v1.14.1 parseUserData), so "
                    "this would run as a shell script and set nothing: write a NodeConfig, or use amiAlias bottlerocket@...")
    return None


def user_data_registration(user_data: str | None) -> Any:
    """The :class:`~gpu_node_pool.backends._shared.registration.Registration` (taints, labels) ``user_data``
    registers the node with; empty for None.

    Raises:
        ValueError: as :func:`gpu_node_pool.backends._shared.user_data.read_registration`.
    """
    from .._shared.registration import Registration
    from .._shared.user_data import read_registration

    return Registration() if user_data is None else read_registration(user_data)


_PRECEDENCE = (f"Karpenter writes the NodePool's taints and labels into the bootstrap and they win over userData's "
               f"({_SOURCE}, spec.userData)")


def merge_problems(user_data: str, taints: list[Any], startup_taints: list[Any], labels: dict[str, str],
                   label_problem: Any) -> list[str]:
    """Why the taints and labels ``user_data`` registers cannot be merged into the NodePool; empty when they can.

    Args:
        user_data: ``nodeClass.userData`` (readable: :func:`user_data_problem` returned None).
        taints: the pool's declared ``taints`` (:class:`~gpu_node_pool.k8s.taints.Taint`, config order).
        startup_taints: the pool's ``startupTaints`` (the same).
        labels: the pool's ``labels``.
        label_problem: ``key -> reason | None``, the backend's rule for NodePool label keys.

    Each sentence names ``nodeClass.userData`` and the other path (``taints[j]``, ``startupTaints[j]``,
    ``labels``), the values, the rule with its source, and the fix (module docstring).
    """
    from ...k8s.labels import node_restriction_problem
    from .._shared.user_data import registers_taints_by_flag

    reg = user_data_registration(user_data)
    problems: list[str] = []
    declared = {t.identity: (j, t) for j, t in enumerate(taints)}
    startup = {t.identity: (j, t) for j, t in enumerate(startup_taints)}
    for taint in reg.taints:
        if taint.identity in declared:
            j, own = declared[taint.identity]
            if own.value != taint.value:
                problems.append(
                    f"taints[{j}] ({own}) and nodeClass.userData ({taint}) give key {taint.key!r} and effect "
                    f"{taint.effect.value} different values; a Node holds one taint per key and effect and {_PRECEDENCE}: "
                    "keep one value, in taints"
                )
        elif taint.identity in startup:
            j, own = startup[taint.identity]
            problems.append(
                f"nodeClass.userData registers {taint}, which has the key and effect of startupTaints[{j}] ({own}); "
                "Karpenter rejects a key+effect in both lists (duplicate taint Key/Effect pair): keep it in startupTaints "
                "if an agent removes it at boot, else in taints, and remove it from userData"
            )
    for key, value in reg.labels.items():
        why = node_restriction_problem(key) or label_problem(key)
        if why:
            problems.append(f"nodeClass.userData registers the label {key}={value}: {why}")
        elif key in labels and labels[key] != value:
            problems.append(
                f"labels[{key!r}] ({labels[key]!r}) and nodeClass.userData ({key}={value}) disagree; {_PRECEDENCE}: "
                "keep one value, in labels"
            )
    if reg.taints and registers_taints_by_flag(user_data):
        registered = {t.identity: t for t in reg.taints}
        missing = [str(t) for t in [*taints, *startup_taints] if registered.get(t.identity) != t]
        if missing:
            problems.append(
                f"nodeClass.userData passes the kubelet --register-with-taints without the NodePool's taints {listed(missing)}: a kubelet "
                "flag overrides the config file (https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/), "
                "in which Karpenter writes the NodePool's registerWithTaints (aws/karpenter-provider-aws "
                "pkg/providers/amifamily/bootstrap/nodeadm.go@v1.14.1), so the node would register without them; "
                "declare the taints only in the pool, or list all of them in the flag"
            )
    return problems


def own_label_problems(user_data: str, own: dict[str, str], gpu_label_key: str) -> list[str]:
    """Why labels ``user_data`` registers contradict the labels the component itself puts in the NodePool.

    Args:
        user_data: ``nodeClass.userData`` (readable: :func:`user_data_problem` returned None).
        own: the component's labels the pool's ``labels`` do not set (the GPU label, ``gpu-node-pools/pool``,
            the device-plugin and MIG config labels, the GPU Operator deploy labels).
        gpu_label_key: the pool's ``gpuLabel.key``, named as ``gpuLabel`` in the sentence.

    Karpenter's value wins on the node (:data:`_PRECEDENCE`), so userData's would be dropped without a word;
    each sentence names ``nodeClass.userData``, the label, both values and the fix.
    """
    problems = []
    for key, value in user_data_registration(user_data).labels.items():
        if key in own and own[key] != value:
            who = "gpuLabel" if key == gpu_label_key else "the component's own label"
            problems.append(
                f"nodeClass.userData sets label {key}={value!r} but {who} gives it {own[key]!r}; {_PRECEDENCE}, so "
                "userData's value never reaches the node: remove the label from userData"
            )
    return problems


def to_k8s_fields(node_class: Any) -> dict[str, Any]:
    """The pass-through ``spec`` fields of the EC2NodeClass, camelCase, only those given."""
    out: dict[str, Any] = {}
    if node_class.block_device_mappings:
        out["blockDeviceMappings"] = [m.model_dump(by_alias=True, exclude_none=True) for m in node_class.block_device_mappings]
    if node_class.kubelet is not None:
        out["kubelet"] = node_class.kubelet.model_dump(by_alias=True, exclude_none=True)
    if node_class.instance_store_policy is not None:
        out["instanceStorePolicy"] = node_class.instance_store_policy
    if node_class.user_data is not None:
        out["userData"] = node_class.user_data
    return out
