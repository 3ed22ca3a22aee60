"""NodePool requirements with the operators ``Gte`` and ``Lte``, which Karpenter before v1.9.0 refuses.

Up to v1.8.x the NodePool CRD's ``requirements[].operator`` enum is ``In, NotIn, Exists, DoesNotExist, Gt, Lt``
(kubernetes-sigs/karpenter ``pkg/apis/crds/karpenter.sh_nodepools.yaml``@v1.8.3, the same in
aws/karpenter-provider-aws ``pkg/apis/crds/karpenter.sh_nodepools.yaml``@v1.8.8); v1.9.0 added ``Gte`` and ``Lte``
(kubernetes-sigs/karpenter commit c81e6ace, "feat: Add Gte and Lte operators for requirements (#2674)", first
in v1.9.0). An older CRD refuses the NodePool at apply: ``spec.template.spec.requirements[N].operator: Unsupported
value: "Gte": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"``
(https://github.com/aws/karpenter-provider-aws/issues/8951).

Both compare integers, so each has a ``Gt``/``Lt`` spelling every release takes: ``Gte N`` is ``Gt N-1`` (``Gte
0`` is any value, as ``Exists``), ``Lte N`` is ``Lt N+1``.
"""

from __future__ import annotations

from typing import Any

from .limits import karpenter_release

__all__ = ["OPERATORS_SINCE", "equivalent", "version_issues"]

#: The first Karpenter release whose NodePool CRD takes ``Gte`` and ``Lte``.
OPERATORS_SINCE = (1, 9)
_NEW = ("Gte", "Lte")
_SOURCE = ("kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.8.3 operator enum; Gte/Lte "
           "added in v1.9.0, kubernetes-sigs/karpenter#2674")


def equivalent(operator: str, values: list[str]) -> str:
    """The requirement every Karpenter release takes for ``operator`` (``Gte`` or ``Lte``) with its one
    non-negative integer value, as YAML flow text: ``{operator: Gt, values: ["7"]}`` for ``Gte 8``,
    ``{operator: Exists}`` for ``Gte 0``, ``{operator: Lt, values: ["9"]}`` for ``Lte 8``."""
    n = int(values[0])
    if operator == "Gte":
        return "{operator: Exists}" if n == 0 else f'{{operator: Gt, values: ["{n - 1}"]}}'
    return f'{{operator: Lt, values: ["{n + 1}"]}}'


def version_issues(pool: Any, karpenter_version: str | None) -> list[tuple[int, str, bool]]:
    """``[(requirement index, message, refused)]`` for each of ``pool.requirements`` whose operator is ``Gte`` or
    ``Lte``; empty when none is.

    ``karpenter_version``: ``cluster.karpenterVersion`` (``1.8``, ``v1.14.1``) or None when not stated (a
    warning: nothing here can read the installed version). Below v1.9 refused: the API server refuses the
    NodePool and the pool never launches a node. Each message names the requirement, the rule and its
    source, and both fixes (raise ``karpenterVersion`` after upgrading, or the ``Gt``/``Lt`` spelling)."""
    out: list[tuple[int, str, bool]] = []
    need = ".".join(map(str, OPERATORS_SINCE))
    for j, req in enumerate(getattr(pool, "requirements", None) or []):
        if req.operator not in _NEW:
            continue
        written = f"{req.key} {req.operator} {req.values[0]!r}"
        fix = f"write it as {equivalent(req.operator, req.values)}"
        if karpenter_version is None:
            out.append((j, (
                f"{written}: operator {req.operator} is refused by Karpenter before v{need}.0 ({_SOURCE}); state the "
                f"installed version with gpu-node-pools:cluster.karpenterVersion (e.g. \"{need}\"), or {fix}"), False))
        elif karpenter_release(karpenter_version) < OPERATORS_SINCE:
            out.append((j, (
                f"{written}: cluster.karpenterVersion {karpenter_version!r} has no operator {req.operator} (its NodePool "
                f"CRD allows In, NotIn, Exists, DoesNotExist, Gt, Lt; {_SOURCE}), so the API server refuses the "
                f"NodePool; {fix}, or upgrade Karpenter to v{need}.0 or later and raise cluster.karpenterVersion"), True))
    return out
