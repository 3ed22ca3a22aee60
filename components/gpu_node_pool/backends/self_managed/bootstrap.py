"""The bootstrap formats of self-managed pools: one renderer per format and the format table.

See :mod:`gpu_node_pool.backends._shared.user_data` for the table of where each format carries
taints and labels, and for the readers that parse them back."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import tomli_w

from ...k8s.taints import Taint

if TYPE_CHECKING:  # the config models are only needed for type hints and the pool helpers
    pass

from .._shared.registration import (
    KUBEADM_API_VERSION,
    KUBEADM_TOKEN_PLACEHOLDER,
    KUBEADM_V1BETA3,
    KUBELET_CONFIG_API_VERSION,
    NODEADM_API_VERSION,
    ClusterInfo,
    Registration,
    block_yaml,
    check_kubelet_labels,
    flow_yaml,
    kubelet_flag_list,
    labels_flag,
    nodeadm_mime,
)

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
    flags = kubelet_flag_list(reg, taints=False)
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
    check_kubelet_labels(reg)
    return nodeadm_mime(block_yaml(_node_config(reg, cluster)))


# --- 2. Bottlerocket --------------------------------------------------------------------


def _bottlerocket_node_taints(taints: Iterable[Taint]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in taints:
        out.setdefault(t.key, []).append(f"{t.value}:{t.effect.value}")
    return out


def render_bottlerocket_user_data(
    reg: Registration, cluster: ClusterInfo, settings: Mapping[str, Any] | None = None
) -> str:
    """Bottlerocket user data (TOML settings).

    ``settings``: further ``[settings.<name>]`` tables of the node (e.g. the MIG or GPU-sharing settings of
    ``gpu_agents/mig.py`` ``bottlerocket_settings``); ``kubernetes`` is the component's own and
    may not be among them.

    ``[settings.kubernetes]`` ``cluster-name``, ``api-server``, ``cluster-certificate``,
    ``cluster-dns-ip`` (empty ones omitted); ``[settings.kubernetes.node-labels]``
    ``"key" = "value"``; ``[settings.kubernetes.node-taints]`` ``"key" = ["value:Effect", ...]``
    (a list, so one key can carry several effects; an empty value is written ``":Effect"``).
    The output avoids what EKS's TOML merge refuses (no quotes inside keys or values, no
    mixed-type arrays, bare table headers).

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    check_kubelet_labels(reg)
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
    extra = dict(settings or {})
    if "kubernetes" in extra:
        raise ValueError("settings.kubernetes is rendered from the registration and the cluster; pass other tables")
    return tomli_w.dumps({"settings": {"kubernetes": k8s, **extra}})


# --- 3. AL2 bootstrap.sh (legacy) -------------------------------------------------------


def _al2_extra_args(reg: Registration) -> str:
    return " ".join(kubelet_flag_list(reg))


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
    check_kubelet_labels(reg)
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
    """A kubeadm ``JoinConfiguration`` for on-premises nodes, in the API the cluster's kubeadm reads
    (``cluster.kubeadm_api_version``): ``kubeadm.k8s.io/v1beta4`` from Kubernetes 1.31 and when the
    version is not known, ``kubeadm.k8s.io/v1beta3`` before (v1beta4 does not exist there).

    ``nodeRegistration.taints`` holds the taints (``[]`` means none; kubeadm writes them
    into ``--register-with-taints``), ``nodeRegistration.kubeletExtraArgs`` the labels as
    ``[{name: node-labels, value: "k=v,..."}]`` (a list of ``{name, value}`` in v1beta4;
    ``{node-labels: "k=v,..."}``, a map, in v1beta3). ``discovery.bootstrapToken`` gets
    ``apiServerEndpoint`` (``host:port``), ``caCertHashes`` and the token
    :data:`KUBEADM_TOKEN_PLACEHOLDER`: the same fields in both APIs.

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    check_kubelet_labels(reg)
    api = cluster.kubeadm_api_version
    doc: dict[str, Any] = {"apiVersion": api, "kind": "JoinConfiguration"}
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
        registration["kubeletExtraArgs"] = _kubelet_extra_args(reg, api)
    doc["nodeRegistration"] = registration
    return block_yaml(doc)


def _kubelet_extra_args(reg: Registration, api: str) -> Any:
    """``nodeRegistration.kubeletExtraArgs`` carrying the labels, in the form of kubeadm API ``api``."""
    if api == KUBEADM_V1BETA3:
        return {"node-labels": labels_flag(reg.labels)}
    return [{"name": "node-labels", "value": labels_flag(reg.labels)}]


# --- 5. plain kubelet -------------------------------------------------------------------


def render_kubelet_flags(reg: Registration) -> str:
    """Kubelet flags on one line: ``--register-with-taints=k=v:Effect,... --node-labels=k=v,...``.

    For ``KUBELET_EXTRA_ARGS`` or a systemd drop-in. ``--register-with-taints`` is
    deprecated in favour of the config file (:func:`render_kubelet_config`) but still works;
    ``--node-labels`` has no config-file equivalent.

    Raises:
        ValueError: a label the kubelet may not set on itself (NodeRestriction).
    """
    check_kubelet_labels(reg)
    return " ".join(shlex.quote(f) for f in kubelet_flag_list(reg))


def render_kubelet_config(reg: Registration) -> str:
    """A ``KubeletConfiguration`` (``kubelet.config.k8s.io/v1beta1``) snippet with ``registerWithTaints``.

    For ``--config`` or, as :data:`KUBELET_DROP_IN`, a ``--config-dir`` drop-in; takes effect
    only at the Node's first registration (``registerNode: true``). Labels are not part of it
    (use the flag).
    """
    return block_yaml(
        {
            "apiVersion": KUBELET_CONFIG_API_VERSION,
            "kind": "KubeletConfiguration",
            "registerWithTaints": [t.to_k8s() for t in reg.taints],
        }
    )


#: The drop-in's file name. The kubelet reads only ``*.conf`` files in ``--config-dir``, in
#: alphanumeric order, later files overriding earlier ones (lists replaced, not merged), and
#: each needs ``apiVersion`` and ``kind``. Source: kubernetes.io "Set Kubelet Parameters Via A
#: Configuration File", drop-in directory; KEP-3983 (alpha 1.28, beta 1.30, GA 1.35);
#: kubernetes/kubernetes#124796 (header required). "90-" so it applies after distribution defaults.
KUBELET_DROP_IN = "90-gpu-node-pools.conf"


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
            lambda r, c: {"kubelet-flags.txt": render_kubelet_flags(r) + "\n", KUBELET_DROP_IN: render_kubelet_config(r)},
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


def registration_snippet(fmt: str, reg: Registration, kubeadm_api: str = KUBEADM_API_VERSION) -> list[str]:
    """The lines of format ``fmt`` that carry ``reg``, in that format's own spelling (for the plan);
    ``kubeadm_api`` is the kubeadm API the ``kubeadm`` format was rendered in.

    Raises:
        KeyError: ``fmt`` is not one of :data:`FORMATS`.
    """
    if fmt not in FORMATS:
        raise KeyError(f"unknown bootstrap format {fmt!r}; one of {', '.join(FORMATS)}")
    taints = [t.to_k8s() for t in reg.taints]
    if fmt == "al2023":
        return [
            f"spec.kubelet.config.registerWithTaints: {flow_yaml(taints)}",
            f"spec.kubelet.flags: {flow_yaml(kubelet_flag_list(reg, taints=False))}",
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
            f"nodeRegistration.taints: {flow_yaml(taints)}",
            f"nodeRegistration.kubeletExtraArgs: {flow_yaml(_kubelet_extra_args(reg, kubeadm_api))}",
        ]
    return [f"kubelet {' '.join(kubelet_flag_list(reg))}", f"KubeletConfiguration registerWithTaints: {flow_yaml(taints)}"]


