"""Whether an eks-auto pool can ever launch a node: the catalog's requirement evaluator over the
NodePool's final requirements (Auto Mode's ``eks.amazonaws.com/instance-*`` keys) and its limits."""

from __future__ import annotations

from typing import Any

from ...config.errors import ConfigIssue

EksAutoPool = Any  # the model in .config; typed loosely here so the two modules do not import each other


def _limits(pool: EksAutoPool) -> dict[str, Any]:
    return {str(k): v for k, v in (pool.limits or {}).items()}


def feasibility(pool: EksAutoPool) -> Any:
    """The catalog's evaluation of the pool's final NodePool requirements and limits
    (:func:`gpu_node_pool.catalog.requirements.evaluate`; Auto Mode's ``eks.amazonaws.com/instance-*``
    keys mean what Karpenter's ``karpenter.k8s.aws/`` ones do: EKS user guide
    ``automode/create-node-pool.adoc``, aws/karpenter-provider-aws ``pkg/apis/v1/labels.go``)."""
    from ...catalog.requirements import evaluate

    return evaluate(pool.requirement_list, _limits(pool))


def is_validated(pool: EksAutoPool) -> bool:
    """True for a pool that passes its own model validation again (a model dumped by alias and
    re-validated); False for a stand-in built with ``model_construct`` from an invalid pool, which
    the every-mistake pass uses and which has no requirements worth evaluating. Never raises."""
    try:
        type(pool).model_validate(pool.model_dump(by_alias=True, exclude_unset=True))
    except Exception:  # noqa: BLE001 - any failure means: not a valid pool on its own
        return False
    return True


def feasibility_issues(pool: EksAutoPool, path: str) -> list[ConfigIssue]:
    """Refusals of pools that can never launch a node: no catalog instance type satisfies the
    requirements, or none with GPU capacity (``gpu_problems``), or every one exceeds ``limits``
    ("all available instance types exceed limits for nodepool": kubernetes-sigs/karpenter
    ``pkg/controllers/provisioning/scheduling/scheduler.go``)."""
    from ...catalog.requirements import RequirementError

    try:
        result = feasibility(pool)
    except RequirementError as err:
        return [ConfigIssue(f"{path}.requirements", f"pool {pool.name!r}: {err}")]
    lines = result.gpu_problems()
    if lines:
        lines[0] = f"pool {pool.name!r}: {lines[0]}"
    return [ConfigIssue(path, line) for line in lines]


def feasibility_summary(pool: EksAutoPool) -> str:
    """The plan's "candidate types" line (first few + count), or why none."""
    from ...catalog.requirements import RequirementError

    try:
        return feasibility(pool).summary()
    except RequirementError as err:
        return f"not judged: {err}"

