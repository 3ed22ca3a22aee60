"""The ``GpuNodePool`` s a program registered, as the DaemonSet x GPU pool page (:mod:`.page`) reads them.

``gpupool plan`` and ``gpupool check`` both carry them in ``pool_models``, in registration order, each named after
its component (the name its children are named after):

* :class:`~gpu_node_pool.plan.run.PlanResult` holds the pool models themselves (``PoolBase`` subclasses of the
  backends' ``config.py``): the plan runs the program in its own process;
* :class:`~gpu_node_pool.plan.check.CheckResult` holds :class:`RegisteredPool` s: check runs the program in a child
  process (:mod:`.check_child`), which sends each pool's :meth:`RegisteredPool.to_json` in its answer (``pools``).

Both offer what :class:`PoolModel` names, so the page draws the pools the pack cannot find among the recorded
resources (self-managed ``kubeadm``/``kubelet`` pools join through bootstrap files, with no Pulumi pool resource) from
the program's own pools, never from the stack file's, whatever the program declares beside it. Pure: no Pulumi.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..k8s.taints import Taint

__all__ = ["PoolModel", "RegisteredPool"]


class PoolModel(Protocol):
    """What the page reads of a pool the program registered: a pool model or a :class:`RegisteredPool`."""

    @property
    def name(self) -> str:
        """The ``GpuNodePool`` component's name."""

    @property
    def backend(self) -> str:
        """The pool's backend (``eks-managed``, ``gke``, ``karpenter``, ``self-managed``, ``eks-auto``)."""

    @property
    def taint_list(self) -> list[Taint]:
        """The pool's declared taints, in order."""

    @property
    def node_labels(self) -> dict[str, str]:
        """Every label its nodes carry, by key (the user's, the GPU label, ``gpu-node-pools/pool``...)."""

    @property
    def cluster_platform(self) -> str:
        """The platform its nodes join: ``eks`` | ``gke`` | ``self-managed`` (a self-managed pool's per its
        ``format``: ``eks`` for al2023/bottlerocket/al2, ``self-managed`` for kubeadm/kubelet)."""


@dataclass(frozen=True)
class RegisteredPool:
    """A pool the program registered, as the check child sends it: the :class:`PoolModel` of a pool model.

    Attributes:
        name: the ``GpuNodePool`` component's name.
        backend: the pool's backend.
        platform: :attr:`PoolModel.cluster_platform` of the pool model it records (no default: the platform is
            the pool model's, never assumed here).
        taints: its taints in kubelet form (``key[=value]:Effect``), as ``str(Taint)`` writes them.
        labels: :attr:`PoolModel.node_labels`.
    """

    name: str
    backend: str
    platform: str
    taints: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, model: PoolModel) -> RegisteredPool:
        """The record of a pool model (or of another :class:`PoolModel`)."""
        return cls(str(model.name), str(model.backend), str(model.cluster_platform),
                   tuple(str(t) for t in model.taint_list), dict(model.node_labels))

    def to_json(self) -> dict[str, Any]:
        """``{"name", "backend", "taints": [str], "labels": {key: value}, "platform"}``."""
        return {"name": self.name, "backend": self.backend, "taints": list(self.taints), "labels": dict(self.labels),
                "platform": self.platform}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> RegisteredPool:
        """The inverse of :meth:`to_json`."""
        return cls(str(doc["name"]), str(doc["backend"]), str(doc["platform"]), tuple(map(str, doc.get("taints") or ())),
                   {str(k): str(v) for k, v in (doc.get("labels") or {}).items()})

    @property
    def taint_list(self) -> list[Taint]:
        """:attr:`taints` parsed (:meth:`~gpu_node_pool.k8s.taints.Taint.parse`).

        Raises:
            gpu_node_pool.k8s.taints.TaintError: a taint that does not parse (the page reports the pool not judged).
        """
        return [Taint.parse(t) for t in self.taints]

    @property
    def node_labels(self) -> dict[str, str]:
        """A copy of :attr:`labels`."""
        return dict(self.labels)

    @property
    def cluster_platform(self) -> str:
        """:attr:`platform`."""
        return self.platform
