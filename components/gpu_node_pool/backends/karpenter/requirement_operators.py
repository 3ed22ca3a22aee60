"""NodePool requirements with the operators ``Gte`` and ``Lte``, which Karpenter before v1.9.0 refuses.

Up to v1.8.x the NodePool CRD's ``requirements[].operator`` enum is ``In, NotIn, Exists, DoesNotExist, Gt, Lt``
(kubernetes-sigs/karpenter ``pkg/apis/crds/karpenter.sh_nodepools.yaml``@v1.8.3, the same in
aws/karpenter-provider-aws ``pkg/apis/crds/karpenter.sh_nodepools.yaml``@v1.8.8); v1.9.0 added ``Gte`` and ``Lte``
(kubernetes-sigs/karpenter commit c81e6ace, "feat: Add Gte and Lte operators for requirements (#2674)", first
in v1.9.0). An older CRD refuses the NodePool at apply: ``spec.template.spec.requirements[N].operator: Unsupported
value: "Gte": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"``
(https://github.com/aws/karpenter-provider-aws/issues/8951).

Both compare integers, so each has a ``Gt``/``Lt`` spelling every release takes: ``Gte N`` is ``Gt N-1`` (``Gte
0`` is any value, as ``Exists``), ``Lte N`` is ``Lt N+1``. The CRD reads the value with CEL's ``int()``, a signed
64-bit integer (rule "requirements operator 'Gt' or 'Lt' must have a single positive integer value":
``int(x.values[0]) >= 0``, the CRD's x-kubernetes-validations from kubernetes-sigs/karpenter
``pkg/apis/v1/nodepool.go``; CEL ``int`` is int64 and a string out of its range is an error,
https://github.com/google/cel-spec/blob/master/doc/langdef.md), so
``Lte 9223372036854775807`` has no ``Lt`` spelling (``Lt 9223372036854775808`` is refused): it takes every integer
value, so its nearest spelling is ``Exists``, which takes a value that is not an integer too.
"""

from __future__ import annotations

from typing import Any

from ...k8s.integers import INT64_MAX
from .._shared.nodepool import written_key_problem
from .limits import KARPENTER_MANAGED_KEYS, karpenter_release

__all__ = ["OPERATORS_SINCE", "equivalent", "rewrite", "version_issues"]

#: The first Karpenter release whose NodePool CRD takes ``Gte`` and ``Lte``.
OPERATORS_SINCE = (1, 9)
_NEW = ("Gte", "Lte")
_SOURCE = ("kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml@v1.8.3 operator enum; Gte/Lte "
           "added in v1.9.0, kubernetes-sigs/karpenter#2674")


def equivalent(operator: str, values: list[str]) -> str | None:
    """The requirement every Karpenter release takes for ``operator`` (``Gte`` or ``Lte``) with its one
    non-negative integer value, as YAML flow text: ``{operator: Gt, values: ["7"]}`` for ``Gte 8``,
    ``{operator: Exists}`` for ``Gte 0``, ``{operator: Lt, values: ["9"]}`` for ``Lte 8``; ``{operator: Exists}``
    for ``Lte 9223372036854775807`` (no ``Lt`` value within int64; see :func:`rewrite`); None when the value itself
    is past int64 (no release takes it)."""
    n = int(values[0])
    if n > INT64_MAX:
        return None
    if operator == "Gte":
        return "{operator: Exists}" if n == 0 else f'{{operator: Gt, values: ["{n - 1}"]}}'
    return "{operator: Exists}" if n == INT64_MAX else f'{{operator: Lt, values: ["{n + 1}"]}}'


def rewrite(operator: str, values: list[str]) -> str:
    """The fix a message gives for ``operator`` (``Gte``/``Lte``) with ``values``: ``write it as <equivalent>``,
    with a note when that is ``Exists`` for ``Lte 9223372036854775807``, or, for a value past int64, that no
    Karpenter release takes it (module docstring)."""
    found = equivalent(operator, values)
    if found is None:
        return (f"give a value of at most {INT64_MAX}: the CRD reads it with CEL's int(), a signed 64-bit integer, so "
                f"{values[0]} is refused by every release")
    if operator == "Lte" and int(values[0]) == INT64_MAX:
        return (f"write it as {found} (Lt {INT64_MAX + 1} is past int64, which the CRD's int(x.values[0]) refuses; "
                "Lte of the largest int64 takes every integer value, and Exists also takes a value that is not an "
                "integer)")
    return f"write it as {found}"


def version_issues(pool: Any, karpenter_version: str | None) -> list[tuple[int, str, bool]]:
    """``[(requirement index, message, refused)]`` for each of ``pool.requirements`` whose operator is ``Gte`` or
    ``Lte``; empty when none is. A requirement whose key a dedicated field writes (its key is refused too,
    ``KarpenterPool`` requirements rule) gets no ``Gt``/``Lt`` rewrite, only the pointer to that refusal.

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
        fix = rewrite(req.operator, req.values)
        if written_key_problem(req.key, req.operator, req.values, KARPENTER_MANAGED_KEYS,
                               getattr(pool, "zones", None)):  # refused here
            fix = f"move it to {KARPENTER_MANAGED_KEYS[req.key]} (its key is refused here, see requirements[{j}].key)"
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
