"""The EKS managed add-on DaemonSet table: which DaemonSets each add-on runs, with what tolerations.

One :class:`AddonFacts` per add-on (its ``describe-addon-versions`` name). EKS builds its managed
add-ons from the components' public Helm charts and manifests but does not publish the rendered
add-on manifests, so each row holds the chart defaults and cites the upstream file it was read
from (``source``, as ``owner/repo@commit path Lx-y``, an issue or a doc URL). Taking the chart
defaults as the add-on defaults is an inference. What no public source confirms is kept as
``unconfirmed`` (the add-on, or that version range, is not judged) or as a note (a warning on a
judgement that stands). Effects go through :class:`~gpu_node_pool.k8s.taints.TaintEffect`.

Versions: EKS names add-on versions ``v<X.Y.Z>-eksbuild.<N>``; ``X.Y.Z`` is compared with the
ranges below, which are the component's own (driver / agent / chart) versions. AWS publishes no
mapping of ``-eksbuild.N`` builds to chart versions (UNCONFIRMED), so every judgement carries
that note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..k8s.taints import TaintEffect, Toleration

__all__ = ["AddonFacts", "DaemonSetFacts", "Era", "ADDONS", "TABLE", "BUILD_MAPPING_NOTE"]

#: Where the table lives, for messages and the synthesized objects' annotation.
TABLE = "gpu_node_pool.expand.eks_addons_data"
BUILD_MAPPING_NOTE = (
    "add-on build to chart version mapping is UNCONFIRMED (AWS publishes no mapping of -eksbuild.N builds to chart versions): "
    "the add-on version is read as the component's version"
)

Version = tuple[int, int, int]

EXISTS = Toleration(operator="Exists").to_k8s()
NO_EXECUTE_300 = Toleration(operator="Exists", effect=TaintEffect.NO_EXECUTE, toleration_seconds=300).to_k8s()
CRITICAL_ADDONS_ONLY = Toleration(key="CriticalAddonsOnly", operator="Exists").to_k8s()


def _exists_key(key: str) -> dict[str, Any]:
    return Toleration(key=key, operator="Exists").to_k8s()


def _not_in_compute_type(*types: str) -> dict[str, Any]:
    return {"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": list(types)}


def _required(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": list(expressions)}]}
        }
    }


LINUX = {"kubernetes.io/os": "linux"}
_OS_LINUX = {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}
_ARCH = {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]}


@dataclass(frozen=True)
class DaemonSetFacts:
    """One DaemonSet of an add-on, with the configurationValues keys that change its scheduling.

    Attributes:
        namespace, name: where it runs.
        tolerations: the default list (used when ``tolerate_all_key`` is off or absent).
        tolerations_key: dotted configurationValues key whose list *replaces* ``tolerations``
            (Helm semantics: lists replace), or "" when the add-on has none.
        tolerate_all_key: dotted key of a ``tolerateAllTaints`` flag ("" when none); when the
            flag is on the DaemonSet tolerates everything (``[{operator: Exists}]``) plus, if
            ``tolerations_added_when_all``, the user's list.
        tolerate_all_default: the flag's default.
        always_tolerations: tolerations the chart adds whatever the user sets.
        node_selector: the hard-coded nodeSelector; ``node_selector_key`` entries are added.
        affinity: the default affinity; ``affinity_key`` replaces it.
        notes: caveats to carry as warnings.
    """

    namespace: str
    name: str
    tolerations: tuple[dict[str, Any], ...] = ()
    tolerations_key: str = ""
    tolerate_all_key: str = ""
    tolerate_all_default: bool = False
    tolerations_added_when_all: bool = False
    always_tolerations: tuple[dict[str, Any], ...] = ()
    node_selector: dict[str, str] = field(default_factory=dict)
    node_selector_key: str = ""
    affinity: dict[str, Any] = field(default_factory=dict)
    affinity_key: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Era:
    """A version range ``[low, high]`` (inclusive; None = open) and what holds in it.

    ``unconfirmed`` non-empty: the range is not judged, for that reason.
    """

    low: Version | None
    high: Version | None
    daemonsets: tuple[DaemonSetFacts, ...] = ()
    unconfirmed: str = ""


@dataclass(frozen=True)
class AddonFacts:
    """An add-on's DaemonSets by version range; ``unconfirmed`` makes the whole add-on not judged.

    ``holds_for`` says which versions the row was checked for and ``source`` names the upstream
    files, issues or docs it was read from; ``schema_keys`` lists the configurationValues keys
    known to change the DaemonSets' scheduling.
    """

    addon: str
    eras: tuple[Era, ...] = ()
    holds_for: str = ""
    source: str = ""
    schema_keys: tuple[str, ...] = ()
    unconfirmed: str = ""
    notes: tuple[str, ...] = ()


def _vpc_cni(types: tuple[str, ...]) -> DaemonSetFacts:
    return DaemonSetFacts(
        "kube-system",
        "aws-node",
        tolerations=(EXISTS,),
        affinity=_required(_OS_LINUX, _ARCH, _not_in_compute_type(*types)),
        affinity_key="affinity",
        notes=("vpc-cni: a `tolerations` configurationValues key is UNCONFIRMED in the add-on schema",),
    )


def _ebs(tolerate_all_default: bool) -> tuple[DaemonSetFacts, ...]:
    common: dict[str, Any] = dict(
        tolerations=(NO_EXECUTE_300,) if tolerate_all_default else (),
        tolerations_key="node.tolerations",
        tolerate_all_key="node.tolerateAllTaints",
        tolerate_all_default=tolerate_all_default,
        always_tolerations=tuple(
            _exists_key(k)
            for k in ("ebs.csi.aws.com/agent-not-ready", "ToBeDeletedByClusterAutoscaler", "karpenter.sh/disrupted", "karpenter.sh/disruption")
        )
        if tolerate_all_default
        else (),
        node_selector_key="node.nodeSelector",
        affinity=_required(_not_in_compute_type("fargate", "auto", "hybrid")),
        affinity_key="node.affinity",
    )
    return (
        DaemonSetFacts("kube-system", "ebs-csi-node", node_selector=LINUX, **common),
        DaemonSetFacts("kube-system", "ebs-csi-node-windows", node_selector={"kubernetes.io/os": "windows"}, **common),
    )


def _s3(v2: bool) -> DaemonSetFacts:
    defaults = (CRITICAL_ADDONS_ONLY, NO_EXECUTE_300) + ((_exists_key("s3.csi.aws.com/agent-not-ready"),) if v2 else ())
    return DaemonSetFacts(
        "kube-system",
        "s3-csi-node",
        tolerations=defaults,
        tolerations_key="node.tolerations",
        tolerate_all_key="node.tolerateAllTaints",
        tolerate_all_default=v2,
        tolerations_added_when_all=v2,
        node_selector=LINUX,
        affinity=_required(_not_in_compute_type("fargate", "hybrid")),
    )


def _cloudwatch(name: str, key: str, extra_note: str = "") -> DaemonSetFacts:
    return DaemonSetFacts(
        "amazon-cloudwatch",
        name,
        tolerations=(EXISTS,),
        tolerations_key=key,
        node_selector=LINUX,
        affinity=_required(_not_in_compute_type("fargate")),
        notes=(extra_note,) if extra_note else (),
    )


_UNCONFIRMED_HINT = "needs `aws eks describe-addon-configuration` or a live cluster"

ADDONS: dict[str, AddonFacts] = {
    a.addon: a
    for a in (
        AddonFacts(
            "vpc-cni",
            eras=(
                Era((1, 1, 0), (1, 18, 99), (_vpc_cni(("fargate",)),)),
                Era((1, 19, 0), None, (_vpc_cni(("fargate", "hybrid", "auto")),)),
            ),
            holds_for="`operator: Exists` since the 2018 manifests (v1.1) through chart 1.23.1; hybrid/auto exclusion since v1.19.0",
            source="aws/amazon-vpc-cni-k8s@b5218838 charts/aws-vpc-cni/values.yaml L201-223, config/master/aws-k8s-cni.yaml L161-208",
            schema_keys=("affinity",),
        ),
        AddonFacts(
            "kube-proxy",
            unconfirmed=f"kube-proxy DaemonSet tolerations and affinity are UNCONFIRMED (no public EKS manifest); {_UNCONFIRMED_HINT}",
            holds_for="schema as of 2024-09 / 2025-05",
            source="aws/containers-roadmap#2420, #2604",
            schema_keys=("ipvs.scheduler", "mode", "podAnnotations", "podLabels", "resources"),
        ),
        AddonFacts(
            "aws-ebs-csi-driver",
            eras=(
                Era((0, 10, 0), (1, 11, 3), _ebs(False)),
                Era((1, 11, 4), (1, 64, 0), _ebs(True)),
            ),
            holds_for="tolerateAllTaints default true since chart 2.11.0 / driver v1.11.4; false from v0.10.0; checked through driver 1.64.0",
            source="kubernetes-sigs/aws-ebs-csi-driver@429e202e charts/aws-ebs-csi-driver/values.yaml L394-415, templates/_node.tpl L41-57",
            schema_keys=("node.tolerateAllTaints", "node.tolerations", "node.affinity", "node.nodeSelector", "additionalDaemonSets"),
            notes=("aws-ebs-csi-driver: additionalDaemonSets are not synthesized",),
        ),
        AddonFacts(
            "aws-efs-csi-driver",
            eras=(
                Era(
                    (2, 1, 1),
                    (3, 4, 1),
                    (
                        DaemonSetFacts(
                            "kube-system",
                            "efs-csi-node",
                            tolerations=(EXISTS,),
                            tolerations_key="node.tolerations",
                            node_selector=LINUX,
                            node_selector_key="node.nodeSelector",
                            affinity=_required(_not_in_compute_type("fargate", "hybrid")),
                            affinity_key="node.affinity",
                            notes=("aws-efs-csi-driver: node.* keys are chart keys; the EKS schema is UNCONFIRMED",),
                        ),
                    ),
                ),
            ),
            holds_for="Exists since chart 2.0.0; hybrid exclusion since driver 2.1.1; checked through driver 3.4.1",
            source="kubernetes-sigs/aws-efs-csi-driver@a4fc6760 charts/aws-efs-csi-driver/values.yaml L229-241",
            schema_keys=("node.tolerations", "node.affinity", "node.nodeSelector"),
        ),
        AddonFacts(
            "aws-fsx-csi-driver",
            eras=(
                Era(
                    (0, 10, 0),
                    (1, 9, 0),
                    (
                        DaemonSetFacts(
                            "kube-system",
                            "fsx-csi-node",
                            tolerations=(NO_EXECUTE_300,),
                            tolerations_key="node.tolerations",
                            tolerate_all_key="node.tolerateAllTaints",
                            tolerate_all_default=True,
                            always_tolerations=(_exists_key("fsx.csi.aws.com/agent-not-ready"),),
                            node_selector=LINUX,
                            node_selector_key="node.nodeSelector",
                            affinity=_required(_not_in_compute_type("fargate")),
                            affinity_key="node.affinity",
                            notes=("aws-fsx-csi-driver: node.* keys are chart keys; the EKS schema is UNCONFIRMED",),
                        ),
                    ),
                ),
            ),
            holds_for="tolerateAllTaints default true since chart 1.6.0 / driver 0.10.0; checked through driver 1.9.0",
            source="kubernetes-sigs/aws-fsx-csi-driver@5b227125 charts/aws-fsx-csi-driver/values.yaml L191-204",
            schema_keys=("node.tolerateAllTaints", "node.tolerations", "node.affinity", "node.nodeSelector"),
        ),
        AddonFacts(
            "aws-mountpoint-s3-csi-driver",
            eras=(
                Era((1, 4, 0), (1, 12, 99), unconfirmed="mountpoint-s3 before 1.13.0 (no defaultTolerations yet): default list UNCONFIRMED"),
                Era((1, 13, 0), (1, 99, 99), (_s3(False),)),
                Era((2, 0, 0), (2, 7, 0), (_s3(True),)),
            ),
            holds_for="v1 default tolerateAllTaints false (defaultTolerations since 1.13.0); v2 default true (2.0.0); checked through 2.7.0",
            source="awslabs/mountpoint-s3-csi-driver@57c6bedb charts/aws-mountpoint-s3-csi-driver/values.yaml L47-60, templates/node.yaml L25-49",
            schema_keys=("node.tolerateAllTaints", "node.tolerations"),
        ),
        AddonFacts(
            "eks-pod-identity-agent",
            eras=(
                Era(
                    (0, 1, 0),
                    (0, 1, 6),
                    (
                        DaemonSetFacts(
                            "kube-system",
                            "eks-pod-identity-agent",
                            tolerations=(EXISTS,),
                            tolerations_key="tolerations",
                            node_selector_key="nodeSelector",
                            affinity=_required(_OS_LINUX, _ARCH, _not_in_compute_type("fargate", "hybrid", "auto")),
                            affinity_key="affinity",
                            notes=("eks-pod-identity-agent: chart keys; the EKS schema is UNCONFIRMED; hybrid DaemonSets not synthesized",),
                        ),
                    ),
                ),
            ),
            holds_for="chart 1.2.0 (agent 0.1.6); Exists since the first chart commit 2024-06",
            source="aws/eks-pod-identity-agent@d4dc0f3f charts/eks-pod-identity-agent/values.yaml L5-45, L84-103, L177-178",
            schema_keys=("tolerations", "affinity", "nodeSelector", "daemonsets.*"),
        ),
        AddonFacts(
            "amazon-cloudwatch-observability",
            eras=(
                Era((1, 0, 0), (1, 5, 99), unconfirmed="amazon-cloudwatch-observability before chart 1.6.0 had no tolerations; which add-on builds those are is UNCONFIRMED"),
                Era(
                    (1, 6, 0),
                    (6, 4, 0),
                    (
                        _cloudwatch("cloudwatch-agent", "agent.tolerations"),
                        _cloudwatch("fluent-bit", "containerLogs.fluentBit.tolerations"),
                        _cloudwatch(
                            "dcgm-exporter",
                            "dcgmExporter.tolerations",
                            "dcgm-exporter: also limited to a fixed list of NVIDIA instance types (not synthesized); "
                            "an open report (aws/amazon-cloudwatch-agent-operator#290) says CR tolerations were missing on some operator version (UNCONFIRMED)",
                        ),
                        _cloudwatch("neuron-monitor", "neuronMonitor.tolerations"),
                    ),
                ),
            ),
            holds_for="root tolerations default since chart 1.6.0 (2024-05-22); checked through chart 6.4.0",
            source="aws-observability/helm-charts@71a298ff charts/amazon-cloudwatch-observability/values.yaml L27-28, templates/_helpers.tpl L8-16",
            schema_keys=("tolerations", "agent.tolerations", "containerLogs.fluentBit.tolerations", "dcgmExporter.tolerations", "neuronMonitor.tolerations"),
            notes=("amazon-cloudwatch-observability: Windows DaemonSets and node-exporter are not synthesized",),
        ),
        AddonFacts(
            "eks-node-monitoring-agent",
            eras=(
                Era(
                    (1, 0, 0),
                    (1, 7, 0),
                    (
                        DaemonSetFacts(
                            "kube-system",
                            "eks-node-monitoring-agent",
                            tolerations=(EXISTS,),
                            tolerations_key="nodeAgent.tolerations",
                            node_selector=LINUX,
                            node_selector_key="nodeAgent.nodeSelector",
                            affinity=_required(_not_in_compute_type("fargate", "auto", "hybrid")),
                            affinity_key="nodeAgent.affinity",
                        ),
                        DaemonSetFacts(
                            "kube-system",
                            "dcgm-server",
                            tolerations=(),
                            tolerations_key="dcgmAgent.tolerations",
                            node_selector=LINUX,
                            node_selector_key="dcgmAgent.nodeSelector",
                            affinity=_required(_not_in_compute_type("fargate", "auto", "hybrid")),
                            affinity_key="dcgmAgent.affinity",
                            notes=("dcgm-server: also limited to a list of 77 NVIDIA instance types (not synthesized)",),
                        ),
                    ),
                ),
            ),
            holds_for="dcgmAgent.tolerations key added 2025-05-14 (default empty); checked through chart/agent 1.7.0",
            source="aws/eks-node-monitoring-agent@51af5494 charts/eks-node-monitoring-agent/values.yaml L54-95, L127-158; charts/configuration.schema.json",
            schema_keys=("nodeAgent.tolerations", "dcgmAgent.tolerations", "nodeAgent.affinity", "dcgmAgent.affinity", "nodeAgent.nodeSelector", "dcgmAgent.nodeSelector"),
        ),
        AddonFacts(
            "aws-guardduty-agent",
            unconfirmed=f"aws-guardduty-agent tolerations are UNCONFIRMED (closed source; users report none beyond the DaemonSet defaults); {_UNCONFIRMED_HINT}",
            holds_for="agent 1.5.0 and later (configurable parameters per the GuardDuty user guide)",
            source="aws/containers-roadmap#2520, #2861; https://docs.aws.amazon.com/guardduty/latest/ug/guardduty-configure-security-agent-eks-addon.html",
            schema_keys=("priorityClassName", "dnsPolicy", "resources"),
        ),
        AddonFacts(
            "adot",
            eras=(Era(None, None, ()),),
            holds_for="not verified",
            source="https://aws-otel.github.io/docs/getting-started/adot-eks-add-on (the add-on installs the ADOT Operator)",
            notes=("adot: no DaemonSet of its own; collectors in daemonset mode come from your OpenTelemetryCollector resources, judged where you declare them",),
        ),
        AddonFacts(
            "coredns",
            eras=(Era(None, None, ()),),
            holds_for="per EKS user guide (Dec 2024 snapshot)",
            source="awsdocs/amazon-eks-user-guide@4d52b4d0 latest/ug/networking/eks-networking-add-ons.adoc L3852-3855",
            notes=("coredns: a Deployment, no DaemonSet",),
        ),
        AddonFacts(
            "snapshot-controller",
            unconfirmed="snapshot-controller: 'a Deployment, no DaemonSet' is UNCONFIRMED from EKS manifests",
            source="kubernetes-csi/external-snapshotter deploy/kubernetes/snapshot-controller/setup-snapshot-controller.yaml (upstream, a Deployment)",
        ),
        AddonFacts(
            "metrics-server",
            unconfirmed="metrics-server: 'a Deployment, no DaemonSet' is UNCONFIRMED from EKS manifests",
            source="kubernetes-sigs/metrics-server manifests/base/deployment.yaml (upstream, a Deployment)",
        ),
    )
}
