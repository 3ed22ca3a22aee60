"""Kubelet registration: the taints and labels a node registers with, and the cluster fields a bootstrap needs.

Shared by the bootstrap renderers (``self_managed/bootstrap.py``) and the user-data readers
(``user_data.py``). Nothing here imports Pulumi."""

from __future__ import annotations

import io
import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import yaml

from ...k8s.labels import label_syntax_problem, node_restriction_problem
from ...k8s.taints import Taint, TaintError, find_duplicate_taints
from ...sdk.yaml_bounded import MAP_TAG, SEQ_TAG, STR_TAG

if TYPE_CHECKING:  # the config models are only needed for type hints and the pool helpers
    from ...config import ClusterConfig

NODEADM_API_VERSION = "node.eks.aws/v1alpha1"
NODEADM_CONTENT_TYPE = "application/node.eks.aws"
KUBEADM_API_VERSION = "kubeadm.k8s.io/v1beta4"
#: The kubeadm API a cluster older than :data:`KUBEADM_V1BETA4_SINCE` reads: it has every field rendered
#: (``discovery.bootstrapToken``, ``nodeRegistration.taints``), with ``kubeletExtraArgs`` a map, not a list.
#: Sources: kubernetes ``cmd/kubeadm/app/apis/kubeadm/v1beta3/types.go``; https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta4/
#: (changes since v1beta3 listed under "v1.31", among them the list form of ``kubeletExtraArgs``).
KUBEADM_V1BETA3 = "kubeadm.k8s.io/v1beta3"
#: The first Kubernetes minor version whose kubeadm reads v1beta4 (kubeadm-config.v1beta4, "v1.31").
KUBEADM_V1BETA4_SINCE = (1, 31)
#: The first whose kubeadm reads v1beta3 (``v1beta3/doc.go``: "kubeadm v1.22.x and newer ... migrate v1beta2 to v1beta3").
KUBEADM_V1BETA3_SINCE = (1, 22)
KUBELET_CONFIG_API_VERSION = "kubelet.config.k8s.io/v1beta1"
#: kubeadm bootstrap tokens are short-lived secrets (24 h by default) and never belong in a
#: stack file; the rendered JoinConfiguration carries this placeholder, which the provisioner
#: substitutes (e.g. ``envsubst``) before ``kubeadm join --config``.
KUBEADM_TOKEN_PLACEHOLDER = "${KUBEADM_JOIN_TOKEN}"
#: MIME boundary of the nodeadm user data; fixed so that renders are byte-for-byte stable.
MIME_BOUNDARY = "==GPU-NODE-POOLS=="

#: The kubelet flags a node registers its taints and labels with (https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/).
REGISTER_WITH_TAINTS_FLAG = "--register-with-taints"
NODE_LABELS_FLAG = "--node-labels"


def kubeadm_api_version(kubernetes_version: str | None) -> str:
    """The kubeadm config API a node of ``kubernetes_version`` (``"1.30"``) reads: :data:`KUBEADM_V1BETA3` below
    :data:`KUBEADM_V1BETA4_SINCE`, else :data:`KUBEADM_API_VERSION` (also when the version is not known)."""
    if kubernetes_version:
        major, _, minor = kubernetes_version.partition(".")
        if (int(major), int(minor)) < KUBEADM_V1BETA4_SINCE:
            return KUBEADM_V1BETA3
    return KUBEADM_API_VERSION


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
        kubernetes_version: the cluster's minor version (``1.33``); empty when not known.
    """

    name: str
    api_server_endpoint: str = ""
    certificate_authority: str = ""
    service_cidr: str = ""
    ca_cert_hashes: tuple[str, ...] = ()
    kubernetes_version: str = ""

    @classmethod
    def from_config(cls, cluster: ClusterConfig) -> ClusterInfo:
        """From the validated ``cluster`` of the stack config."""
        return cls(
            name=cluster.name,
            api_server_endpoint=cluster.api_server_endpoint or "",
            certificate_authority=cluster.certificate_authority or "",
            service_cidr=cluster.service_cidr or "",
            ca_cert_hashes=tuple(cluster.ca_cert_hashes or ()),
            kubernetes_version=cluster.kubernetes_version or "",
        )

    @property
    def dns_cluster_ip(self) -> str:
        """The cluster DNS service IP: the 10th address of ``service_cidr`` (EKS and nodeadm
        convention, e.g. ``10.100.0.10``), or ``""`` without a CIDR."""
        if not self.service_cidr:
            return ""
        return str(ipaddress.ip_network(self.service_cidr, strict=False)[10])

    @property
    def kubeadm_api_version(self) -> str:
        """The kubeadm config API this cluster's nodes read (:func:`kubeadm_api_version`)."""
        return kubeadm_api_version(self.kubernetes_version)

    @property
    def api_server_host_port(self) -> str:
        """``host:port`` of the endpoint (port 443 when the URL has none), as kubeadm discovery wants it."""
        parts = urlsplit(self.api_server_endpoint)
        netloc = parts.netloc.rpartition("@")[2]  # keep the host's case (hostname would lower it)
        return netloc if parts.port else f"{netloc}:443"


# --- flag forms (kubelet command line) --------------------------------------------------


def taints_flag(taints: Iterable[Taint]) -> str:
    """The value of ``--register-with-taints``: ``key=value:Effect`` items joined by ``,``."""
    return ",".join(str(t) for t in taints)


def labels_flag(labels: Mapping[str, str]) -> str:
    """The value of ``--node-labels``: ``key=value`` items joined by ``,``, in ``labels`` order."""
    return ",".join(f"{k}={v}" for k, v in labels.items())


def kubelet_flag_list(reg: Registration, *, taints: bool = True) -> list[str]:
    """``["--register-with-taints=...", "--node-labels=..."]`` for ``reg``; a flag is left out
    when ``reg`` has no taints (or ``taints=False``) or no labels."""
    flags = []
    if taints and reg.taints:
        flags.append(f"{REGISTER_WITH_TAINTS_FLAG}={taints_flag(reg.taints)}")
    if reg.labels:
        flags.append(f"{NODE_LABELS_FLAG}={labels_flag(reg.labels)}")
    return flags


def parse_taints_flag(value: str) -> list[Taint]:
    """The taints of a ``--register-with-taints`` value (inverse of :func:`taints_flag`); empty
    items are skipped. Raises ``TaintError`` for an item that is not ``key[=value]:Effect``."""
    return [Taint.parse(item.strip()) for item in value.split(",") if item.strip()]


def parse_labels_flag(value: str) -> dict[str, str]:
    """The labels of a ``--node-labels`` value (inverse of :func:`labels_flag`); empty items are
    skipped, a repeated key keeps its last value. Raises ``ValueError`` for an item without ``=``."""
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


def check_kubelet_labels(reg: Registration) -> None:
    """Raise ``ValueError`` naming every label of ``reg`` the kubelet may not set on its own Node
    (NodeRestriction admission, :meth:`Registration.node_restriction_problems`); else return."""
    problems = reg.node_restriction_problems()
    if problems:
        raise ValueError("the kubelet would refuse these --node-labels (NodeRestriction): " + "; ".join(problems))


#: What ``email``'s generator writes around the one part of a ``MIMEMultipart("mixed", boundary=MIME_BOUNDARY)``
#: holding a ``MIMENonMultipart`` of :data:`NODEADM_CONTENT_TYPE`: the message's headers, the opening line, the
#: part's headers; and after the part, the closing line.
_NODEADM_MIME_HEAD = (f'Content-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"\nMIME-Version: 1.0\n\n'
                      f"--{MIME_BOUNDARY}\nContent-Type: {NODEADM_CONTENT_TYPE}\nMIME-Version: 1.0\n\n")
_NODEADM_MIME_END = f"\n--{MIME_BOUNDARY}--\n"
#: The line endings the generator writes as ``\n`` (``email.generator.NLCRE``).
_LINE_ENDINGS = re.compile(r"\r\n|\r|\n")


def nodeadm_mime(payload: str) -> str:
    """MIME multi-part user data with ``payload`` as its one ``application/node.eks.aws`` part, as
    ``MIMEMultipart("mixed", boundary=MIME_BOUNDARY).attach(part).as_string()`` writes it (the part's
    line endings written ``\n``), without building the message."""
    return _NODEADM_MIME_HEAD + _LINE_ENDINGS.sub("\n", payload) + _NODEADM_MIME_END


#: libyaml's emitter when PyYAML has it: for the documents rendered here (mappings and lists
#: with fixed keys) it writes the same text as the pure-Python ``SafeDumper``, several times faster.
#: (It differs on empty or complex keys and bare scalar documents, which are never rendered.)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


_STR, _SEQ, _MAP = STR_TAG, SEQ_TAG, MAP_TAG


class _NotPlain(Exception):
    """A value :func:`_plain_node` leaves to PyYAML's representer."""


def _plain_node(value: Any, flow: bool, seen: set[int]) -> yaml.Node:
    """The node PyYAML's safe representer makes of ``value`` (``default_flow_style=flow``, keys unsorted)
    when it holds only ``str``, ``dict`` with ``str`` keys and ``list`` (exactly those types), no container
    twice; raises :class:`_NotPlain` otherwise (other types, and a container met again, which the
    representer writes as an anchor and an alias)."""
    kind = type(value)
    if kind is str:
        return yaml.ScalarNode(_STR, value)
    if kind is not dict and kind is not list:
        raise _NotPlain
    if id(value) in seen:
        raise _NotPlain
    seen.add(id(value))
    if kind is list:
        return yaml.SequenceNode(_SEQ, [_plain_node(item, flow, seen) for item in value], flow_style=flow)
    pairs = []
    for key, item in value.items():
        if type(key) is not str:
            raise _NotPlain
        pairs.append((yaml.ScalarNode(_STR, key), _plain_node(item, flow, seen)))
    return yaml.MappingNode(_MAP, pairs, flow_style=flow)


def _dump(doc: Any, flow: bool) -> str:
    """``yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, default_flow_style=flow, width=1 << 20)``; a
    document of strings, lists and string-keyed dicts is handed to the emitter as nodes built by
    :func:`_plain_node` (what the representer would build), skipping its per-value dispatch."""
    try:
        node = _plain_node(doc, flow, set())
    except _NotPlain:
        return yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, default_flow_style=flow, width=1 << 20)
    stream = io.StringIO()
    dumper = _DUMPER(stream, default_flow_style=flow, width=1 << 20, sort_keys=False)
    try:
        dumper.open()
        dumper.serialize(node)
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()


def block_yaml(doc: Any) -> str:
    """``doc`` as block-style YAML, keys in insertion order, no line wrapping (bootstrap files)."""
    return _dump(doc, False)


def flow_yaml(doc: Any) -> str:
    """``doc`` as one line of flow-style YAML (``{a: 1, b: [x]}``), keys in insertion order."""
    return _dump(doc, True).strip()
