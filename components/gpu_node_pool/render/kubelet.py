"""Kubelet registration: the taints and labels a self-managed node registers with, per bootstrap format.

A taint exists before the first pod can land only when the kubelet registers the Node with
it (``--register-with-taints`` / ``KubeletConfiguration.registerWithTaints``); NodeRestriction
then forbids the kubelet to change its own taints. This module renders one
:class:`Registration` (taints + labels) and the cluster fields into each bootstrap format
that carries them, and reads them back from any of those formats (base64 or not):

========================  ==========================================================  ================================
format                    where the taints go                                         where the labels go
========================  ==========================================================  ================================
``al2023`` (nodeadm)      MIME part ``application/node.eks.aws``, ``NodeConfig``       ``spec.kubelet.flags``
                          ``spec.kubelet.config.registerWithTaints``                  ``["--node-labels=k=v,..."]``
``bottlerocket``          TOML ``[settings.kubernetes.node-taints]``                  ``[settings.kubernetes.node-labels]``
                          ``"key" = ["value:Effect", ...]``
``al2`` (legacy)          ``/etc/eks/bootstrap.sh --kubelet-extra-args``              same, ``--node-labels=k=v,...``
                          ``'--register-with-taints=k=v:Effect,...'``
``kubeadm``               ``JoinConfiguration`` (``kubeadm.k8s.io/v1beta4``)          ``nodeRegistration.kubeletExtraArgs``
                          ``nodeRegistration.taints``                                 ``[{name: node-labels, value: ...}]``
``kubelet``               ``--register-with-taints=...`` (flags file) and a           ``--node-labels=...`` (labels have
                          ``KubeletConfiguration`` snippet ``registerWithTaints``      no KubeletConfiguration field)
========================  ==========================================================  ================================

Effects use the Kubernetes spelling everywhere here; the kubelet string form is
``str(Taint)`` / :meth:`Taint.parse` (``taints.py``). Nothing here imports Pulumi.

Sources (``facts/aws-eks-karpenter.md`` §3-§4): kubelet flag reference (``--register-with-taints``,
``--node-labels``); kubernetes ``staging/src/k8s.io/kubelet/config/v1beta1/types.go``
(``registerWithTaints``); awslabs/amazon-eks-ami ``nodeadm/api/v1alpha1/nodeconfig_types.go``,
``nodeadm/doc/examples.md`` and ``nodeadm/internal/api/merge.go`` (MIME parts merged in order,
later wins; ``kubelet.flags`` appended); Karpenter ``pkg/providers/amifamily/bootstrap/nodeadm.go``
and ``bottlerocketsettings.go``; bottlerocket settings reference (``settings.kubernetes.*``);
amazon-eks-ami ``templates/al2/runtime/bootstrap.sh`` (last version before AL2 removal);
kubernetes ``cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go``; kubernetes/autoscaler
``cloudprovider/aws/README.md`` (ASG auto-discovery and node-template tags).
"""

from __future__ import annotations

import base64
import binascii
import collections
import functools
import gzip
import ipaddress
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from email import message_from_string
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import tomli_w
import yaml

from ..labels import label_syntax_problem, node_restriction_problem
from ..taints import Taint, TaintError, find_duplicate_taints
from .eks import ca_node_template_tags

if TYPE_CHECKING:  # the config models are only needed for type hints and the pool helpers
    from ..config import ClusterConfig, SelfManagedPool

__all__ = [
    "Registration",
    "ClusterInfo",
    "BootstrapFormat",
    "FORMATS",
    "NODEADM_API_VERSION",
    "KUBEADM_API_VERSION",
    "KUBELET_CONFIG_API_VERSION",
    "KUBEADM_TOKEN_PLACEHOLDER",
    "render_nodeadm_user_data",
    "render_bottlerocket_user_data",
    "render_al2_user_data",
    "render_kubeadm_join_configuration",
    "render_kubelet_flags",
    "render_kubelet_config",
    "render_bootstrap",
    "read_registration",
    "read_registration_taints",
    "read_registration_labels",
    "detect_format",
    "registration_snippet",
    "ami_ssm_parameter",
    "bootstrap_files",
    "user_data",
    "ca_auto_discovery_tags",
    "ca_tags",
    "autoscaling_group_tags",
    "launch_template_args",
    "autoscaling_group_args",
    "role_name_from_arn",
]

NODEADM_API_VERSION = "node.eks.aws/v1alpha1"
NODEADM_CONTENT_TYPE = "application/node.eks.aws"
KUBEADM_API_VERSION = "kubeadm.k8s.io/v1beta4"
KUBELET_CONFIG_API_VERSION = "kubelet.config.k8s.io/v1beta1"
#: kubeadm bootstrap tokens are short-lived secrets (24 h by default) and never belong in a
#: stack file; the rendered JoinConfiguration carries this placeholder, which the provisioner
#: substitutes (e.g. ``envsubst``) before ``kubeadm join --config``.
KUBEADM_TOKEN_PLACEHOLDER = "${KUBEADM_JOIN_TOKEN}"
#: MIME boundary of the nodeadm user data; fixed so that renders are byte-for-byte stable.
MIME_BOUNDARY = "==GPU-NODE-POOLS=="
#: Cluster Autoscaler ASG auto-discovery tags (``--node-group-auto-discovery=asg:tag=...``).
CA_ENABLED_TAG = "k8s.io/cluster-autoscaler/enabled"
CA_CLUSTER_TAG_PREFIX = "k8s.io/cluster-autoscaler/"
#: The AWS cloud provider finds a self-managed node's cluster by this instance tag.
CLUSTER_OWNED_TAG_PREFIX = "kubernetes.io/cluster/"
GPU_RESOURCE = "nvidia.com/gpu"

_REGISTER_WITH_TAINTS = "--register-with-taints"
_NODE_LABELS = "--node-labels"


# --- the spec ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=True)
class Registration:
    """What a kubelet registers its Node with: ``taints`` and ``labels``, in canonical order.

    Attributes:
        taints: :class:`Taint` objects (or kubelet strings ``key=value:Effect``), sorted by
            key, value and effect on construction; one key may carry several effects.
        labels: label key -> value (values may be empty), sorted by key on construction.

    Two registrations are equal when they hold the same taints and labels in any order,
    which is what ``read(render(x)) == x`` compares.

    Raises:
        TaintError: two taints with one key and effect (Kubernetes rejects them on a Node).
        ValueError: a label key or value that is not valid Kubernetes syntax.
    """

    taints: tuple[Taint, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        taints = tuple(sorted(t if isinstance(t, Taint) else Taint.parse(t) for t in self.taints))
        dups = find_duplicate_taints(taints)
        if dups:
            raise TaintError(f"taint {dups[0][2]} appears twice with one key and effect; a Node holds it once")
        labels = dict(sorted(dict(self.labels).items()))
        problems = [p for k, v in labels.items() if (p := label_syntax_problem(k, v))]
        if problems:
            raise ValueError("; ".join(problems))
        object.__setattr__(self, "taints", taints)
        object.__setattr__(self, "labels", labels)

    def __hash__(self) -> int:
        return hash((self.taints, tuple(self.labels.items())))

    @classmethod
    def of_pool(cls, pool: Any) -> Registration:
        """The registration of a pool model (``taint_list`` and ``node_labels``)."""
        return cls(tuple(pool.taint_list), pool.node_labels)

    def node_restriction_problems(self) -> list[str]:
        """Why a kubelet may not self-set some of ``labels`` (NodeRestriction), one sentence each."""
        return [p for k in self.labels if (p := node_restriction_problem(k))]


@dataclass(frozen=True)
class ClusterInfo:
    """Where a self-managed node finds its cluster.

    Attributes:
        name: cluster name (EKS cluster name; nodeadm ``spec.cluster.name``).
        api_server_endpoint: ``https://host[:port]``; empty when the format does not need it.
        certificate_authority: the CA bundle, base64-encoded PEM (EKS ``certificateAuthority.data``).
        service_cidr: the service CIDR, e.g. ``10.100.0.0/16``; the cluster DNS is its ``.10``.
        ca_cert_hashes: kubeadm discovery pins, ``sha256:<hex>``.
    """

    name: str
    api_server_endpoint: str = ""
    certificate_authority: str = ""
    service_cidr: str = ""
    ca_cert_hashes: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, cluster: ClusterConfig) -> ClusterInfo:
        """From the validated ``cluster`` of the stack config."""
        return cls(
            name=cluster.name,
            api_server_endpoint=cluster.api_server_endpoint or "",
            certificate_authority=cluster.certificate_authority or "",
            service_cidr=cluster.service_cidr or "",
            ca_cert_hashes=tuple(cluster.ca_cert_hashes or ()),
        )

    @property
    def dns_cluster_ip(self) -> str:
        """The cluster DNS service IP: the 10th address of ``service_cidr`` (EKS and nodeadm
        convention, e.g. ``10.100.0.10``), or ``""`` without a CIDR."""
        if not self.service_cidr:
            return ""
        return str(ipaddress.ip_network(self.service_cidr, strict=False)[10])

    @property
    def api_server_host_port(self) -> str:
        """``host:port`` of the endpoint (port 443 when the URL has none), as kubeadm discovery wants it."""
        parts = urlsplit(self.api_server_endpoint)
        netloc = parts.netloc.rpartition("@")[2]  # keep the host's case (hostname would lower it)
        return netloc if parts.port else f"{netloc}:443"


# --- flag forms (kubelet command line) --------------------------------------------------


def _taints_flag(taints: Iterable[Taint]) -> str:
    return ",".join(str(t) for t in taints)


def _labels_flag(labels: Mapping[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in labels.items())


def _kubelet_flag_list(reg: Registration, *, taints: bool = True) -> list[str]:
    flags = []
    if taints and reg.taints:
        flags.append(f"{_REGISTER_WITH_TAINTS}={_taints_flag(reg.taints)}")
    if reg.labels:
        flags.append(f"{_NODE_LABELS}={_labels_flag(reg.labels)}")
    return flags


def _parse_taints_flag(value: str) -> list[Taint]:
    return [Taint.parse(item.strip()) for item in value.split(",") if item.strip()]


def _parse_labels_flag(value: str) -> dict[str, str]:
    labels = {}
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, val = item.partition("=")
        if not eq:
            raise ValueError(f"--node-labels entry {item!r} is not key=value")
        labels[key] = val
    return labels


def _check_kubelet_labels(reg: Registration) -> None:
    problems = reg.node_restriction_problems()
    if problems:
        raise ValueError("the kubelet would refuse these --node-labels (NodeRestriction): " + "; ".join(problems))


#: libyaml's emitter when PyYAML has it: for the documents rendered here (mappings and lists
#: with fixed keys) it writes the same text as the pure-Python ``SafeDumper``, several times faster.
#: (It differs on empty or complex keys and bare scalar documents, which are never rendered.)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _yaml(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, default_flow_style=False, width=1 << 20)


def _flow(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, default_flow_style=True, width=1 << 20).strip()


# --- 1. AL2023 nodeadm ------------------------------------------------------------------


def _node_config(reg: Registration, cluster: ClusterInfo) -> dict[str, Any]:
    spec_cluster = {
        "name": cluster.name,
        "apiServerEndpoint": cluster.api_server_endpoint,
        "certificateAuthority": cluster.certificate_authority,
        "cidr": cluster.service_cidr,
    }
    kubelet: dict[str, Any] = {}
    if reg.taints:
        kubelet["config"] = {"registerWithTaints": [t.to_k8s() for t in reg.taints]}
    flags = _kubelet_flag_list(reg, taints=False)
    if flags:
        kubelet["flags"] = flags
    spec: dict[str, Any] = {"cluster": {k: v for k, v in spec_cluster.items() if v}}
    if kubelet:
        spec["kubelet"] = kubelet
    return {"apiVersion": NODEADM_API_VERSION, "kind": "NodeConfig", "spec": spec}


def render_nodeadm_user_data(reg: Registration, cluster: ClusterInfo) -> str:
    """AL2023 user data: MIME multi-part with one ``application/node.eks.aws`` ``NodeConfig`` part.

    ``spec.cluster`` = ``{name, apiServerEndpoint, certificateAuthority, cidr}`` (empty fields
    omitted; nodeadm needs all four on self-managed nodes), taints in
    ``spec.kubelet.config.registerWithTaints`` (Kubernetes ``Taint`` objects and
    effect spelling), labels as ``spec.kubelet.flags: ["--node-labels=k=v,..."]`` (the kubelet has
    no config field for labels), as Karpenter writes it.

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    _check_kubelet_labels(reg)
    message = MIMEMultipart("mixed", boundary=MIME_BOUNDARY)
    part = MIMENonMultipart(*NODEADM_CONTENT_TYPE.split("/"))
    part.set_payload(_yaml(_node_config(reg, cluster)))
    message.attach(part)
    return message.as_string()


# --- 2. Bottlerocket --------------------------------------------------------------------


def _bottlerocket_node_taints(taints: Iterable[Taint]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in taints:
        out.setdefault(t.key, []).append(f"{t.value}:{t.effect.value}")
    return out


def render_bottlerocket_user_data(reg: Registration, cluster: ClusterInfo) -> str:
    """Bottlerocket user data (TOML settings).

    ``[settings.kubernetes]`` ``cluster-name``, ``api-server``, ``cluster-certificate``,
    ``cluster-dns-ip`` (empty ones omitted); ``[settings.kubernetes.node-labels]``
    ``"key" = "value"``; ``[settings.kubernetes.node-taints]`` ``"key" = ["value:Effect", ...]``
    (a list, so one key can carry several effects; an empty value is written ``":Effect"``).
    The output avoids what EKS's TOML merge refuses (no quotes inside keys or values, no
    mixed-type arrays, bare table headers).

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    _check_kubelet_labels(reg)
    k8s: dict[str, Any] = {
        key: value
        for key, value in (
            ("cluster-name", cluster.name),
            ("api-server", cluster.api_server_endpoint),
            ("cluster-certificate", cluster.certificate_authority),
            ("cluster-dns-ip", cluster.dns_cluster_ip),
        )
        if value
    }
    if reg.labels:
        k8s["node-labels"] = dict(reg.labels)
    if reg.taints:
        k8s["node-taints"] = _bottlerocket_node_taints(reg.taints)
    return tomli_w.dumps({"settings": {"kubernetes": k8s}})


# --- 3. AL2 bootstrap.sh (legacy) -------------------------------------------------------


def _al2_extra_args(reg: Registration) -> str:
    return " ".join(_kubelet_flag_list(reg))


def render_al2_user_data(reg: Registration, cluster: ClusterInfo) -> str:
    """Amazon Linux 2 user data: a shell script calling ``/etc/eks/bootstrap.sh``.

    Legacy: EKS stopped publishing AL2 AMIs on 2025-11-26 (none for Kubernetes 1.33+) and
    removed ``bootstrap.sh`` from amazon-eks-ami; use it only with an AL2 AMI you own.
    Taints and labels go in ``--kubelet-extra-args '--register-with-taints=k=v:Effect,...
    --node-labels=k=v,...'``; the cluster in ``--apiserver-endpoint``, ``--b64-cluster-ca``
    and ``--dns-cluster-ip``.

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    _check_kubelet_labels(reg)
    args = [shlex.quote(cluster.name)]
    for flag, value in (
        ("--apiserver-endpoint", cluster.api_server_endpoint),
        ("--b64-cluster-ca", cluster.certificate_authority),
        ("--dns-cluster-ip", cluster.dns_cluster_ip),
        ("--kubelet-extra-args", _al2_extra_args(reg)),
    ):
        if value:
            args.append(f"{flag} {shlex.quote(value)}")
    return (
        "#!/bin/bash\n"
        "# Amazon Linux 2 EKS bootstrap (legacy: EKS no longer publishes AL2 AMIs).\n"
        "set -o errexit -o nounset -o pipefail\n"
        "/etc/eks/bootstrap.sh " + " \\\n  ".join(args) + "\n"
    )


# --- 4. kubeadm JoinConfiguration -------------------------------------------------------


def render_kubeadm_join_configuration(reg: Registration, cluster: ClusterInfo) -> str:
    """A kubeadm ``JoinConfiguration`` (``kubeadm.k8s.io/v1beta4``) for on-premises nodes.

    ``nodeRegistration.taints`` holds the taints (``[]`` means none; kubeadm writes them
    into ``--register-with-taints``), ``nodeRegistration.kubeletExtraArgs`` the labels as
    ``[{name: node-labels, value: "k=v,..."}]`` (a list of ``{name, value}`` in v1beta4; a map
    in v1beta3). ``discovery.bootstrapToken`` gets ``apiServerEndpoint`` (``host:port``),
    ``caCertHashes`` and the token :data:`KUBEADM_TOKEN_PLACEHOLDER`.

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    _check_kubelet_labels(reg)
    doc: dict[str, Any] = {"apiVersion": KUBEADM_API_VERSION, "kind": "JoinConfiguration"}
    if cluster.api_server_endpoint:
        token: dict[str, Any] = {
            "apiServerEndpoint": cluster.api_server_host_port,
            "token": KUBEADM_TOKEN_PLACEHOLDER,
        }
        if cluster.ca_cert_hashes:
            token["caCertHashes"] = list(cluster.ca_cert_hashes)
        doc["discovery"] = {"bootstrapToken": token}
    registration: dict[str, Any] = {"taints": [t.to_k8s() for t in reg.taints]}
    if reg.labels:
        registration["kubeletExtraArgs"] = [{"name": "node-labels", "value": _labels_flag(reg.labels)}]
    doc["nodeRegistration"] = registration
    return _yaml(doc)


# --- 5. plain kubelet -------------------------------------------------------------------


def render_kubelet_flags(reg: Registration) -> str:
    """Kubelet flags on one line: ``--register-with-taints=k=v:Effect,... --node-labels=k=v,...``.

    For ``KUBELET_EXTRA_ARGS`` or a systemd drop-in. ``--register-with-taints`` is
    deprecated in favour of the config file (:func:`render_kubelet_config`) but still works;
    ``--node-labels`` has no config-file equivalent.

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    _check_kubelet_labels(reg)
    return " ".join(shlex.quote(f) for f in _kubelet_flag_list(reg))


def render_kubelet_config(reg: Registration) -> str:
    """A ``KubeletConfiguration`` (``kubelet.config.k8s.io/v1beta1``) snippet with ``registerWithTaints``.

    For ``--config`` or a ``--config-dir`` drop-in; takes effect only at the Node's first
    registration (``registerNode: true``). Labels are not part of it (use the flag).
    """
    return _yaml(
        {
            "apiVersion": KUBELET_CONFIG_API_VERSION,
            "kind": "KubeletConfiguration",
            "registerWithTaints": [t.to_k8s() for t in reg.taints],
        }
    )


# --- the format table -------------------------------------------------------------------


@dataclass(frozen=True)
class BootstrapFormat:
    """One bootstrap format: what it renders and where it puts the taints.

    Attributes:
        name: the ``format`` config value.
        render: ``(registration, cluster) -> {file name: text}``.
        taints_field: where the taints go, in the format's own words.
        labels_field: where the labels go.
        ec2: True when the component can launch it on EC2 (its single file is the user data).
        ssm_parameter: the public SSM parameter of its NVIDIA AMI, with ``{version}`` and
            ``{arch}`` (``x86_64`` | ``arm64``), or None.
        data_volume: the block device the pool's ``diskSize`` sizes.
        ships_device_plugin: its NVIDIA image includes NVIDIA's device plugin.
    """

    name: str
    render: Callable[[Registration, ClusterInfo], dict[str, str]]
    taints_field: str
    labels_field: str
    ec2: bool = False
    ssm_parameter: str | None = None
    data_volume: str = "/dev/xvda"
    ships_device_plugin: bool = False


FORMATS: dict[str, BootstrapFormat] = {
    f.name: f
    for f in (
        BootstrapFormat(
            "al2023",
            lambda r, c: {"user-data.mime": render_nodeadm_user_data(r, c)},
            "NodeConfig spec.kubelet.config.registerWithTaints (MIME part application/node.eks.aws)",
            "NodeConfig spec.kubelet.flags --node-labels",
            ec2=True,
            # Sources: terraform-aws-eks self-managed-node-group; pulumi-eks ami.ts; Karpenter al2023.go
            ssm_parameter="/aws/service/eks/optimized-ami/{version}/amazon-linux-2023/{arch}/nvidia/recommended/image_id",
        ),
        BootstrapFormat(
            "bottlerocket",
            lambda r, c: {"user-data.toml": render_bottlerocket_user_data(r, c)},
            "TOML [settings.kubernetes.node-taints]",
            "TOML [settings.kubernetes.node-labels]",
            ec2=True,
            ssm_parameter="/aws/service/bottlerocket/aws-k8s-{version}-nvidia/{arch}/latest/image_id",
            data_volume="/dev/xvdb",  # Bottlerocket keeps images and pods on its second (data) volume
            ships_device_plugin=True,
        ),
        BootstrapFormat(
            "al2",
            lambda r, c: {"user-data.sh": render_al2_user_data(r, c)},
            "bootstrap.sh --kubelet-extra-args --register-with-taints",
            "bootstrap.sh --kubelet-extra-args --node-labels",
            ec2=True,
        ),
        BootstrapFormat(
            "kubeadm",
            lambda r, c: {"join-configuration.yaml": render_kubeadm_join_configuration(r, c)},
            "JoinConfiguration nodeRegistration.taints",
            "JoinConfiguration nodeRegistration.kubeletExtraArgs node-labels",
        ),
        BootstrapFormat(
            "kubelet",
            lambda r, c: {"kubelet-flags.txt": render_kubelet_flags(r) + "\n", "kubelet-config.yaml": render_kubelet_config(r)},
            "kubelet --register-with-taints / KubeletConfiguration registerWithTaints",
            "kubelet --node-labels",
        ),
    )
}


def render_bootstrap(fmt: str, reg: Registration, cluster: ClusterInfo) -> dict[str, str]:
    """Every file of format ``fmt`` for ``reg`` and ``cluster``: ``{file name: text}``.

    Raises:
        KeyError: ``fmt`` is not one of :data:`FORMATS`.
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    return FORMATS[fmt].render(reg, cluster)


def registration_snippet(fmt: str, reg: Registration) -> list[str]:
    """The lines of format ``fmt`` that carry ``reg``, in that format's own spelling (for the plan).

    Raises:
        KeyError: ``fmt`` is not one of :data:`FORMATS`.
    """
    if fmt not in FORMATS:
        raise KeyError(f"unknown bootstrap format {fmt!r}; one of {', '.join(FORMATS)}")
    taints = [t.to_k8s() for t in reg.taints]
    if fmt == "al2023":
        return [
            f"spec.kubelet.config.registerWithTaints: {_flow(taints)}",
            f"spec.kubelet.flags: {_flow(_kubelet_flag_list(reg, taints=False))}",
        ]
    if fmt == "bottlerocket":
        k8s: dict[str, Any] = {}
        if reg.labels:
            k8s["node-labels"] = dict(reg.labels)
        if reg.taints:
            k8s["node-taints"] = _bottlerocket_node_taints(reg.taints)
        text = tomli_w.dumps({"settings": {"kubernetes": k8s}})
        return [line for line in text.splitlines() if line.strip()]
    if fmt == "al2":
        return [f"/etc/eks/bootstrap.sh ... --kubelet-extra-args {shlex.quote(_al2_extra_args(reg))}"]
    if fmt == "kubeadm":
        return [
            f"nodeRegistration.taints: {_flow(taints)}",
            f"nodeRegistration.kubeletExtraArgs: {_flow([{'name': 'node-labels', 'value': _labels_flag(reg.labels)}])}",
        ]
    return [f"kubelet {' '.join(_kubelet_flag_list(reg))}", f"KubeletConfiguration registerWithTaints: {_flow(taints)}"]


# --- readers ----------------------------------------------------------------------------

_B64_RE = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


def _decode(user_data: str | bytes) -> str:
    """User data as text: base64 (as EC2 launch templates hold it) and gzip are undone."""
    raw: bytes | None = user_data if isinstance(user_data, bytes) else None
    if raw is None:
        compact = "".join(user_data.split())
        if compact and len(compact) % 4 == 0 and _B64_RE.match(compact):
            try:
                raw = base64.b64decode(compact, validate=True)
            except (binascii.Error, ValueError):
                raw = None
    if raw is None:
        return str(user_data)
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return user_data if isinstance(user_data, str) else raw.decode("utf-8", "replace")


@dataclass
class _Found:
    """What the readers gather, in document order, before kubelet precedence is applied."""

    formats: list[str] = field(default_factory=list)
    config_taints: list[Taint] | None = None  # registerWithTaints / nodeRegistration.taints / node-taints
    config_labels: dict[str, str] = field(default_factory=dict)  # Bottlerocket node-labels
    flags: list[str] = field(default_factory=list)  # kubelet command-line arguments, in order

    def registration(self) -> Registration:
        flag_taints: list[Taint] | None = None
        flag_labels: dict[str, str] = {}
        args = self.flags
        i = 0
        while i < len(args):
            name, eq, value = args[i].partition("=")
            if name in (_REGISTER_WITH_TAINTS, _NODE_LABELS) and not eq:
                value = args[i + 1] if i + 1 < len(args) else ""
                i += 1
            if name == _REGISTER_WITH_TAINTS:
                flag_taints = _parse_taints_flag(value)  # a repeated flag replaces the earlier one
            elif name == _NODE_LABELS:
                flag_labels.update(_parse_labels_flag(value))  # repeated --node-labels merge, later wins
            i += 1
        # kubelet: a command-line flag overrides the same setting from the config file
        taints = flag_taints if flag_taints is not None else (self.config_taints or [])
        return Registration(tuple(taints), {**self.config_labels, **flag_labels})


def _expand_args(tokens: Sequence[str]) -> list[str]:
    """Shell tokens -> kubelet arguments, opening ``--kubelet-extra-args '...'`` and ``KUBELET_EXTRA_ARGS=...``."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--kubelet-extra-args" and i + 1 < len(tokens):
            out += _expand_args(shlex.split(tokens[i + 1]))
            i += 2
            continue
        for prefix in ("--kubelet-extra-args=", "KUBELET_EXTRA_ARGS=", "Environment=KUBELET_EXTRA_ARGS="):
            if tok.startswith(prefix):
                out += _expand_args(shlex.split(tok[len(prefix):]))
                break
        else:
            out.append(tok)
        i += 1
    return out


def _read_shell(text: str, found: _Found) -> None:
    for line in text.replace("\\\n", " ").splitlines():
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError:
            continue  # an unbalanced quote on one line of a script: not ours to judge
        found.flags += _expand_args(tokens)


def _read_yaml_docs(docs: Iterable[Any], found: _Found) -> bool:
    seen = False
    for doc in docs:
        if not isinstance(doc, Mapping):
            continue
        kind = doc.get("kind")
        if kind == "NodeConfig":
            seen = True
            found.formats.append("al2023")
            kubelet = ((doc.get("spec") or {}).get("kubelet")) or {}
            config = kubelet.get("config") or {}
            if "registerWithTaints" in config:  # later NodeConfig parts override earlier ones
                found.config_taints = [Taint.from_k8s(t) for t in config.get("registerWithTaints") or []]
            for flag in kubelet.get("flags") or []:  # nodeadm appends flags of every part
                found.flags += _expand_args(shlex.split(str(flag)))
        elif kind == "JoinConfiguration":
            seen = True
            found.formats.append("kubeadm")
            registration = doc.get("nodeRegistration") or {}
            if "taints" in registration:
                found.config_taints = [Taint.from_k8s(t) for t in registration.get("taints") or []]
            extra = registration.get("kubeletExtraArgs") or []
            items = extra.items() if isinstance(extra, Mapping) else ((a.get("name"), a.get("value")) for a in extra)
            found.flags += [f"--{name}={value}" for name, value in items]
        elif kind == "KubeletConfiguration":
            seen = True
            found.formats.append("kubelet")
            if "registerWithTaints" in doc:
                found.config_taints = [Taint.from_k8s(t) for t in doc.get("registerWithTaints") or []]
    return seen


def _read_bottlerocket(settings: Mapping[str, Any], found: _Found) -> None:
    found.formats.append("bottlerocket")
    k8s = (settings.get("settings") or {}).get("kubernetes") or {}
    taints = []
    for key, entries in (k8s.get("node-taints") or {}).items():
        for entry in entries if isinstance(entries, list) else [entries]:
            taints.append(Taint.parse(f"{key}={entry}"))  # entry is "value:Effect" (":Effect" when empty)
    if "node-taints" in k8s:
        found.config_taints = taints
    found.config_labels.update({k: str(v) for k, v in (k8s.get("node-labels") or {}).items()})


def _read_text(text: str, found: _Found) -> None:
    head = text.lstrip()[:200].lower()
    if head.startswith(("mime-version:", "content-type:")):
        message = message_from_string(text.lstrip())
        parts = message.walk() if message.is_multipart() else [message]
        for part in parts:
            if part.is_multipart():
                continue
            payload = part.get_payload(decode=True)
            body = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(part.get_payload())
            if part.get_content_type() == NODEADM_CONTENT_TYPE:
                _read_yaml_docs(yaml.safe_load_all(body), found)
            else:
                _read_text(body, found)
        return
    if head.startswith("#!") or "bootstrap.sh" in head:
        before = len(found.flags)
        _read_shell(text, found)
        registers = any(a.partition("=")[0] in (_REGISTER_WITH_TAINTS, _NODE_LABELS) for a in found.flags[before:])
        if "/etc/eks/bootstrap.sh" in text:
            found.formats.append("al2")
        elif "kubeadm join" in text:
            found.formats.append("kubeadm")
        else:  # a script that starts the kubelet with registration flags, or any other script
            found.formats.append("kubelet" if registers else "shell")
        return
    try:
        settings = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        settings = None
    if isinstance(settings, Mapping) and "settings" in settings:
        _read_bottlerocket(settings, found)
        return
    try:
        if _read_yaml_docs(list(yaml.safe_load_all(text)), found):
            return
    except yaml.YAMLError:
        pass
    if "--" in text:
        found.formats.append("kubelet")
        _read_shell(text, found)


def _found(user_data: str | bytes | None) -> _Found:
    """What ``user_data`` registers; callers only read the result."""
    if not user_data:
        return _Found()
    # Read once per distinct (decoded) text: the plan and every policy read the same launch
    # templates again.
    return _found_in_text(_decode(user_data))


@functools.lru_cache(maxsize=512)
def _found_in_text(text: str) -> _Found:
    """:func:`_found` of decoded user data (a pure function of the text; a read that raises, e.g.
    ``TaintError``, is not kept and raises again)."""
    found = _Found()
    _read_text(text, found)
    return found


def read_registration(user_data: str | bytes | None) -> Registration:
    """The taints and labels a node registers with, read from its bootstrap in any format here.

    ``user_data`` is the text (or its base64, as ``LaunchTemplate.userData`` holds it; gzip
    is undone too) of: MIME multi-part user data (nodeadm ``NodeConfig`` parts merged in
    order, shell-script parts scanned), Bottlerocket TOML, a shell script (``bootstrap.sh
    --kubelet-extra-args``, ``KUBELET_EXTRA_ARGS=``, ``kubelet ...``), YAML with a
    ``NodeConfig``, ``JoinConfiguration`` (v1beta4 list or v1beta3 map ``kubeletExtraArgs``) or
    ``KubeletConfiguration``, or a line of kubelet flags.

    Kubelet precedence is applied: a ``--register-with-taints`` flag (the last one) replaces
    config-file taints; repeated ``--node-labels`` merge. Text that registers nothing (or is
    not a bootstrap at all) gives an empty :class:`Registration`.

    Raises:
        TaintError: a taint that does not parse (e.g. the EKS effect spelling, no effect) or
            a duplicate key and effect.
        ValueError: a ``--node-labels`` entry without ``=``, or invalid label syntax.
    """
    return _found(user_data).registration()


def read_registration_taints(user_data: str | bytes | None) -> list[Taint]:
    """The taints ``user_data`` registers the node with (sorted); see :func:`read_registration`.

    Raises:
        TaintError: as :func:`read_registration`.
        ValueError: as :func:`read_registration`.
    """
    return list(read_registration(user_data).taints)


def read_registration_labels(user_data: str | bytes | None) -> dict[str, str]:
    """The labels ``user_data`` registers the node with (sorted by key); see :func:`read_registration`.

    Raises:
        TaintError: as :func:`read_registration`.
        ValueError: as :func:`read_registration`.
    """
    return dict(read_registration(user_data).labels)


def detect_format(user_data: str | bytes | None) -> str | None:
    """The bootstrap format of ``user_data``: ``al2023``, ``bottlerocket``, ``al2``, ``kubeadm``,
    ``kubelet``, ``shell`` (only scripts that register nothing), or None for anything else.

    In MIME user data the first part in a bootstrap format decides (a plain script part beside a
    ``NodeConfig`` part does not make it ``shell``).

    Raises:
        TaintError: as :func:`read_registration` (the reader runs to find the format).
    """
    formats = _found(user_data).formats
    return next((f for f in formats if f != "shell"), formats[0] if formats else None)


# --- a pool's bootstrap and its EC2 wiring (plain values; pool.py makes the resources) ---


def ami_ssm_parameter(fmt: str, kubernetes_version: str, arch: str) -> str:
    """The public SSM parameter holding the NVIDIA AMI id for ``fmt``, e.g.
    ``/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id``.

    Raises:
        ValueError: ``fmt`` has no published NVIDIA AMI (al2, kubeadm, kubelet) or ``arch`` is
            not ``x86_64``/``arm64``.
    """
    template = FORMATS[fmt].ssm_parameter
    if template is None:
        raise ValueError(f"format {fmt!r} has no public NVIDIA AMI parameter; set amiId")
    if arch not in ("x86_64", "arm64"):
        raise ValueError(f"arch {arch!r} must be x86_64 or arm64")
    return template.format(version=kubernetes_version, arch=arch)


def bootstrap_files(pool: SelfManagedPool, cluster: ClusterConfig) -> dict[str, str]:
    """The pool's rendered bootstrap: ``{file name: text}`` (see :data:`FORMATS`)."""
    # GpuNodePool renders it twice (its bootstrap output and the launch template's user data):
    # the models are frozen, so the last few renders are kept by identity.
    for seen_pool, seen_cluster, files in _RENDERED:
        if seen_pool is pool and seen_cluster is cluster:
            return dict(files)
    files = render_bootstrap(pool.format, Registration.of_pool(pool), ClusterInfo.from_config(cluster))
    _RENDERED.appendleft((pool, cluster, files))
    return dict(files)


_RENDERED: collections.deque[tuple[Any, Any, dict[str, str]]] = collections.deque(maxlen=4)


def user_data(pool: SelfManagedPool, cluster: ClusterConfig) -> str:
    """The EC2 user data of an ``al2023``/``bottlerocket``/``al2`` pool (not yet base64).

    Raises:
        ValueError: the pool's format is not launched on EC2 by the component.
    """
    if not FORMATS[pool.format].ec2:
        raise ValueError(f"format {pool.format!r} is not EC2 user data; use provider none")
    (text,) = bootstrap_files(pool, cluster).values()
    return text


def ca_auto_discovery_tags(cluster_name: str) -> dict[str, str]:
    """``k8s.io/cluster-autoscaler/enabled`` and ``k8s.io/cluster-autoscaler/<cluster>``: the tags
    Cluster Autoscaler's default ``--node-group-auto-discovery`` looks for (values are not read)."""
    return {CA_ENABLED_TAG: "true", CA_CLUSTER_TAG_PREFIX + cluster_name: "owned"}


def ca_tags(pool: SelfManagedPool, cluster: ClusterConfig) -> dict[str, str]:
    """Every Cluster Autoscaler tag of the pool's Auto Scaling group, sorted by key.

    Auto-discovery tags plus ``node-template/label/<k>`` = ``<v>``, ``node-template/taint/<k>`` =
    ``<v>:<Effect>`` (from the same :class:`Registration` the user data is rendered from, so the
    two agree by construction) and ``node-template/resources/nvidia.com/gpu`` = GPUs per node.

    Raises:
        ValueError: a taint key with several effects (config validation refuses it for aws pools).
    """
    reg = Registration.of_pool(pool)
    resources = {GPU_RESOURCE: str(pool.gpus)} if pool.gpus else None
    tags = ca_node_template_tags(list(reg.taints), reg.labels, resources)
    return dict(sorted((tags | ca_auto_discovery_tags(cluster.name)).items()))


def autoscaling_group_tags(pool: SelfManagedPool, cluster: ClusterConfig) -> list[dict[str, Any]]:
    """``aws.autoscaling.Group.tags``: ``[{key, value, propagate_at_launch}]``, sorted by key.

    Cluster Autoscaler tags stay on the group (``propagate_at_launch: False``); ``Name``,
    ``kubernetes.io/cluster/<cluster>`` = ``owned`` (the AWS cloud provider's cluster tag for
    self-managed nodes), ``gpu-node-pools/pool`` and the pool's ``tags`` go to the instances.
    """
    node_tags = {
        "Name": f"{cluster.name}-{pool.name}",
        CLUSTER_OWNED_TAG_PREFIX + cluster.name: "owned",
        "gpu-node-pools/pool": pool.name,
    } | dict(pool.tags)
    out = [{"key": k, "value": v, "propagate_at_launch": True} for k, v in node_tags.items()]
    out += [{"key": k, "value": v, "propagate_at_launch": False} for k, v in ca_tags(pool, cluster).items()]
    return sorted(out, key=lambda t: t["key"])


def launch_template_args(
    pool: SelfManagedPool, cluster: ClusterConfig, *, image_id: Any, instance_profile_arn: Any
) -> dict[str, Any]:
    """Keyword arguments of ``aws.ec2.LaunchTemplate`` for an aws pool (``image_id`` and the
    instance profile ARN may be Outputs; they are passed through).

    ``user_data`` is base64 (EC2 wants it so); ``metadata_options`` require IMDSv2
    (``http_tokens: required``) with a hop limit of 1, so pods off the host network cannot
    reach the node role's credentials (Karpenter's EC2NodeClass default; EKS best practices);
    ``instance_type`` is the first instance type (with several, the group's mixed instances
    policy overrides it, and policies still see a GPU type here); ``diskSize`` sizes :attr:`BootstrapFormat.data_volume` (gp3, encrypted).
    """
    fmt = FORMATS[pool.format]
    args: dict[str, Any] = {
        "description": f"gpu-node-pools {pool.name}: {pool.format} bootstrap, taints at kubelet registration",
        "image_id": image_id,
        "user_data": base64.b64encode(user_data(pool, cluster).encode()).decode(),
        "iam_instance_profile": {"arn": instance_profile_arn},
        "metadata_options": {"http_endpoint": "enabled", "http_tokens": "required", "http_put_response_hop_limit": 1},
        "update_default_version": True,
        "tags": {"gpu-node-pools/pool": pool.name} | dict(pool.tags),
    }
    if pool.instance_types:
        args["instance_type"] = pool.instance_types[0]
    if pool.security_group_ids:
        args["vpc_security_group_ids"] = list(pool.security_group_ids)
    if pool.disk_size is not None:
        args["block_device_mappings"] = [
            {
                "device_name": fmt.data_volume,
                "ebs": {"volume_size": pool.disk_size, "volume_type": "gp3", "encrypted": "true", "delete_on_termination": "true"},
            }
        ]
    return args


def autoscaling_group_args(
    pool: SelfManagedPool, cluster: ClusterConfig, *, launch_template_id: Any, launch_template_version: Any
) -> dict[str, Any]:
    """Keyword arguments of ``aws.autoscaling.Group`` for an aws pool.

    Sizes from ``scaling`` (``desired_capacity`` starts at ``desiredSize``/``minSize``; Cluster
    Autoscaler moves it later), subnets from the pool or the cluster, the launch template
    (or a mixed instances policy with one override per instance type, all on demand) and
    :func:`autoscaling_group_tags`.
    """
    assert pool.scaling is not None and pool.instance_types  # config validation guarantees both
    args: dict[str, Any] = {
        "min_size": pool.scaling.min_size,
        "max_size": pool.scaling.max_size,
        "desired_capacity": pool.scaling.desired,
        "vpc_zone_identifiers": list(pool.subnet_ids or cluster.subnet_ids or []),
        "tags": autoscaling_group_tags(pool, cluster),
    }
    if len(pool.instance_types) == 1:
        args["launch_template"] = {"id": launch_template_id, "version": launch_template_version}
    else:
        args["mixed_instances_policy"] = {
            "launch_template": {
                "launch_template_specification": {
                    "launch_template_id": launch_template_id,
                    "version": launch_template_version,
                },
                "overrides": [{"instance_type": t} for t in pool.instance_types],
            },
            "instances_distribution": {"on_demand_percentage_above_base_capacity": 100},
        }
    return args


def role_name_from_arn(role_arn: str) -> str:
    """``arn:aws:iam::111122223333:role/path/ml-gpu-node`` -> ``ml-gpu-node`` (what an instance profile takes)."""
    return role_arn.rsplit("/", 1)[-1]
