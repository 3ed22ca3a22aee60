"""Agents that taint a node at boot and remove the taint when they are ready, for Karpenter's ``startupTaints``.

Karpenter treats a taint on a new node that is neither in the NodePool's ``taints`` or
``startupTaints`` (matched by key and effect: ``corev1.Taint.MatchTaint``) nor "known
ephemeral" as a reason the pending pod cannot land there, and launches another node
(aws/karpenter-provider-aws#6355: Cilium's operator adding ``node.cilium.io/agent-not-ready``).
A taint that the *user* must add (the agent only removes it) protects nothing unless the
NodePool declares it: pods race the agent. Karpenter's rules: kubernetes-sigs/karpenter
``pkg/scheduling/taints.go`` and ``pkg/controllers/state/statenode.go``, karpenter-provider-aws
``website/content/en/preview/concepts/nodepools.md`` ("startupTaints"); each agent's row names
its upstream files in ``source``.

Not listed on purpose: taints Karpenter already treats as temporary
(:data:`KARPENTER_EPHEMERAL`), agents that add no boot taint (AWS VPC CNI, the NVIDIA GPU
Operator and its operands, Antrea, Linkerd), and ``nvidia.com/gpu``, a permanent taint that
belongs in ``taints`` and never in ``startupTaints``. Calico's proposed taint is UNCONFIRMED
(not shipped) and is not listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .controller_taints import removed_on_its_own
from .taints import Taint, TaintEffect

__all__ = ["BootTaintAgent", "AGENTS", "KARPENTER_EPHEMERAL", "STARTUP_TAINTS_SOURCE", "agent", "startup_taints_for",
           "is_karpenter_ephemeral", "unremoved_startup_taint_warning"]

#: Taints Karpenter drops from its scheduling view while a node initializes; never list them
#: (kubernetes-sigs/karpenter ``pkg/scheduling/taints.go``). Keys with the prefix
#: ``readiness.k8s.io/`` are ephemeral too.
KARPENTER_EPHEMERAL: tuple[tuple[str, TaintEffect], ...] = (
    ("node.kubernetes.io/not-ready", TaintEffect.NO_SCHEDULE),
    ("node.kubernetes.io/not-ready", TaintEffect.NO_EXECUTE),
    ("node.kubernetes.io/unreachable", TaintEffect.NO_SCHEDULE),
    ("node.cloudprovider.kubernetes.io/uninitialized", TaintEffect.NO_SCHEDULE),
    ("karpenter.sh/unregistered", TaintEffect.NO_EXECUTE),
)
KARPENTER_EPHEMERAL_PREFIX = "readiness.k8s.io/"


def is_karpenter_ephemeral(taint: Taint) -> bool:
    """True for a taint Karpenter already ignores while a node initializes (no startupTaints entry needed)."""
    return (taint.key, taint.effect) in KARPENTER_EPHEMERAL or taint.key.startswith(KARPENTER_EPHEMERAL_PREFIX)


@dataclass(frozen=True)
class BootTaintAgent:
    """One agent that taints nodes at boot.

    Attributes:
        name: the shorthand used in ``startupTaintsFor`` (``cilium``, ``ebs-csi``...).
        entry: the ``startupTaints`` entry to declare (key, value, effect).
        adds: who adds the taint: ``"agent"`` (the agent's operator adds it itself) or ``"user"``
            (node provisioning must add it; the agent only removes it).
        removes: who removes it.
        failure: what goes wrong when a Karpenter NodePool does not declare the entry.
        charts, addons, images: how the agent is recognised in a stack: Helm chart names, EKS
            add-on names, substrings of container images.
        source: the upstream files and docs the row was read from (``owner/repo path``).
    """

    name: str
    entry: Taint
    adds: str
    removes: str
    failure: str
    charts: tuple[str, ...]
    addons: tuple[str, ...]
    images: tuple[str, ...]
    source: str

    def matches(self, taint: Taint) -> bool:
        """Karpenter's MatchTaint: key and effect, value ignored."""
        return taint.key == self.entry.key and taint.effect == self.entry.effect


_DUPLICATE = (
    "the agent taints each new node itself; Karpenter does not know the taint, decides the pending pod cannot "
    "land there and launches another node (duplicate GPU nodes, aws/karpenter-provider-aws#6355)"
)
_RACE = (
    "the agent only removes the taint, it never adds it: without the entry nothing holds pods off a new node "
    "until the agent is ready, so pods that need it race its start"
)

AGENTS: tuple[BootTaintAgent, ...] = (
    BootTaintAgent(
        name="cilium",
        # Karpenter's documented entry (nodepools.md); the operator skips re-adding by key and removes by key.
        entry=Taint("node.cilium.io/agent-not-ready", "true", TaintEffect.NO_EXECUTE),
        adds="agent",
        removes="cilium-operator (operator.removeNodeTaints, default true)",
        failure=_DUPLICATE,
        charts=("cilium",),
        addons=(),
        images=("quay.io/cilium/cilium", "quay.io/cilium/operator"),
        source=(
            "cilium/cilium Documentation/installation/taints.rst and operator/watchers/node_taint_cell.go "
            "(operator.setNodeTaints defaults to removeNodeTaints, i.e. true); karpenter-provider-aws "
            "website/content/en/preview/concepts/nodepools.md L552-572"
        ),
    ),
    BootTaintAgent(
        name="ebs-csi",
        entry=Taint("ebs.csi.aws.com/agent-not-ready", "", TaintEffect.NO_EXECUTE),
        adds="user",
        removes="the EBS CSI node plugin, once the CSINode has the driver's allocatable count",
        failure=_RACE + " (pods with EBS volumes fail to attach on a fresh node)",
        charts=("aws-ebs-csi-driver",),
        addons=("aws-ebs-csi-driver",),
        images=("ebs-csi-driver",),
        source=(
            "kubernetes-sigs/aws-ebs-csi-driver docs/install.md L143-146, pkg/driver/node.go; karpenter-provider-aws "
            "troubleshooting.md L207-221"
        ),
    ),
    BootTaintAgent(
        name="efs-csi",
        # By analogy with EBS: Karpenter's troubleshooting guide lists EFS among the CSI drivers with a
        # startup taint but gives no YAML for it (the entry below is not documented upstream).
        entry=Taint("efs.csi.aws.com/agent-not-ready", "", TaintEffect.NO_EXECUTE),
        adds="user",
        removes="the EFS CSI node plugin at driver start (v1.7.2+)",
        failure=_RACE + " (pods with EFS volumes fail to mount on a fresh node)",
        charts=("aws-efs-csi-driver",),
        addons=("aws-efs-csi-driver",),
        images=("efs-csi-driver",),
        source="kubernetes-sigs/aws-efs-csi-driver docs/install.md L12-15, pkg/driver/node.go L609-660",
    ),
    BootTaintAgent(
        name="istio-cni",
        entry=Taint("cni.istio.io/not-ready", "", TaintEffect.NO_SCHEDULE),
        adds="user",
        removes="istiod's untaint controller (pilot.taint.enabled=true)",
        failure=_RACE + " (pods start before the Istio CNI configured their network and bypass the mesh)",
        charts=("cni", "istio-cni"),
        addons=(),
        images=("istio/install-cni",),
        source="istio/istio pilot/pkg/controllers/untaint/nodeuntainter.go; ambientmesh.io docs/operations/untaint-controller",
    ),
)

_BY_NAME: Mapping[str, BootTaintAgent] = {a.name: a for a in AGENTS}


def agent(name: str) -> BootTaintAgent:
    """The agent called ``name``. Raises KeyError listing the known names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no boot-taint agent {name!r}; known: {', '.join(_BY_NAME)}") from None


def startup_taints_for(names: Iterable[str]) -> list[Taint]:
    """The ``startupTaints`` entries of the named agents, in order, without repeats."""
    out: list[Taint] = []
    for name in names:
        taint = agent(name).entry
        if taint not in out:
            out.append(taint)
    return out


def recognise(charts: Iterable[str] = (), addons: Iterable[str] = (), images: Iterable[str] = ()) -> list[BootTaintAgent]:
    """The agents a stack installs, from its Helm chart names, EKS add-on names and container images."""
    charts, addons, images = set(charts), set(addons), list(images)
    return [
        a for a in AGENTS
        if charts & set(a.charts) or addons & set(a.addons) or any(s in img for s in a.images for img in images)
    ]


#: What Karpenter expects of a startup taint: something else removes it, and the node counts as initialized only then.
STARTUP_TAINTS_SOURCE = (
    "karpenter.sh_nodepools.yaml@v1.14.1 spec.template.spec.startupTaints: 'expected to be removed automatically within "
    "a short period of time, typically by a DaemonSet that tolerates the taint', https://karpenter.sh/docs/concepts/"
    "nodepools/ (startupTaints)"
)


def unremoved_startup_taint_warning(taint: Taint) -> str | None:
    """The warning for a declared ``startupTaints`` entry that no agent of :data:`AGENTS` removes (Karpenter's
    MatchTaint: key and effect) and that is not a taint a controller removes on its own (:func:`is_karpenter_ephemeral`,
    :func:`~gpu_node_pool.k8s.controller_taints.removed_on_its_own`), or None. Karpenter waits for something else to remove
    it (:data:`STARTUP_TAINTS_SOURCE`); when nothing does, the node stays tainted and pods that do not tolerate it,
    the GPU pods among them, stay Pending. A warning, not a refusal: an agent this table does not know may remove it."""
    if any(a.matches(taint) for a in AGENTS) or is_karpenter_ephemeral(taint) or removed_on_its_own(taint.key):
        return None
    known = ", ".join(f"{a.name} ({a.entry.key}:{a.entry.effect.value})" for a in AGENTS)
    held = ("" if taint.effect == TaintEffect.PREFER_NO_SCHEDULE else
            ", so the GPU pods that do not tolerate it stay Pending")
    return (f"startup taint {taint.key}:{taint.effect.value} is removed by no agent this stack names or the component "
            f"knows ({known}): Karpenter waits for something else to remove a startup taint ({STARTUP_TAINTS_SOURCE}), "
            f"and until then the node stays tainted and counts as not initialized{held}; run an agent "
            "that removes it (and keep this entry), list a known agent in startupTaintsFor instead, or drop the entry "
            "(a taint meant to stay belongs in taints)")
