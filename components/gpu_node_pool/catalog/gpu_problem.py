"""Why no pod requesting ``nvidia.com/gpu`` can get a node from a Karpenter NodePool, as data: the kind of problem
and the numbers its sentence needs. :meth:`~gpu_node_pool.catalog.requirements.Evaluation.gpu_problem` finds it and
writes its one sentence; readers tell the kinds apart by :attr:`GpuProblem.kind`, never by the sentence. Pure."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["GpuProblem", "GpuProblemKind"]


class GpuProblemKind(enum.StrEnum):
    """Why no pod requesting ``nvidia.com/gpu`` can get a node from a NodePool, in the order
    :meth:`~gpu_node_pool.catalog.requirements.Evaluation.gpu_problem` looks for them."""

    #: Its requirements on GPU keys reduce so that only types without GPUs match
    #: (:attr:`~gpu_node_pool.catalog.requirements.Evaluation.reduced_absent`).
    ONLY_TYPES_WITHOUT_GPUS = "only-types-without-gpus"
    #: ``limits`` ``nvidia.com/gpu`` is below one node of every GPU type the requirements leave.
    GPU_LIMIT = "gpu-limit"
    #: Karpenter can launch no instance type (requirements, limits or ``minValues``).
    NO_TYPE = "no-type"
    #: Every candidate has 0 ``nvidia.com/gpu`` capacity: fractional-GPU types (g6f/gr6f) only.
    FRACTIONAL_ONLY = "fractional-only"


@dataclass(frozen=True)
class GpuProblem:
    """What :meth:`~gpu_node_pool.catalog.requirements.Evaluation.gpu_problem` found.

    Attributes:
        kind: which problem (:class:`GpuProblemKind`); read it, never the sentence, to tell them apart.
        sentence: the one wording of the problem, with its numbers (every message about it reuses it).
        explanation: what each requirement and limit left
            (:meth:`~gpu_node_pool.catalog.requirements.Evaluation.explanation`).
        types: the candidates, e.g. ``g6f.large (1 types)`` or ``no instance type``
            (:meth:`~gpu_node_pool.catalog.requirements.Evaluation.summary`).
        gpu_limit: ``limits`` ``nvidia.com/gpu`` as written when it drops a type with GPUs, else "".
        gpu_limit_zero: ``limits`` ``nvidia.com/gpu`` is 0, a reason of its own besides any :attr:`kind` but
            ``GPU_LIMIT`` (its sentence: :data:`~gpu_node_pool.catalog.requirements.ZERO_GPU_LIMIT`).
    """

    kind: GpuProblemKind
    sentence: str
    explanation: tuple[str, ...]
    types: str
    gpu_limit: str
    gpu_limit_zero: bool
