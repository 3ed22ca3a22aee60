"""Policy ``gpu-limits-well-formed``: ``nvidia.com/gpu`` is set in limits, requests (if any) equal limits, and the value is
a whole number (mandatory)."""

from __future__ import annotations

from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)

from ...k8s.quantity import parse_quantity
from ...sdk.props import dig, mapping, text
from ..workloads import (
    WORKLOAD_POD_SPEC_PATHS,
    containers,
    kind_of,
    workload_of,
)
from ._shared import CONFIG_DEFAULTS, _config


def _quantity_problem(resource: str, limits: Any, requests: Any, has_limit: bool, has_request: bool) -> str | None:
    if not has_limit:
        return f"{resource} is in requests ({requests!r}) but not in limits; extended resources are set in limits"
    limit = parse_quantity(limits)
    if limit is None or limit.denominator != 1 or limit < 0:
        return f"limits {resource} = {limits!r} is not a whole number of GPUs"
    if has_request:
        request = parse_quantity(requests)
        if request != limit:
            return f"requests {resource} = {requests!r} differs from limits {limits!r}; set requests equal to limits or drop them"
    return None


def _matches(name: str, patterns: Any) -> bool:
    """``name`` is one of ``patterns``; an entry ending in ``*`` matches by prefix (``nvidia.com/mig-*``)."""
    return any(name == p or (str(p).endswith("*") and name.startswith(str(p)[:-1])) for p in patterns or [])


def judges(resource_type: str) -> bool:
    """Whether :func:`validate_gpu_limits_well_formed` reads a resource of this type: a pod template
    (:data:`~gpu_node_pool.policies.workloads.WORKLOAD_POD_SPEC_PATHS`); it returns at once for any other."""
    return kind_of(resource_type) in WORKLOAD_POD_SPEC_PATHS


def validate_gpu_limits_well_formed(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """``nvidia.com/gpu`` is in limits; requests, if present, equal limits; a whole number."""
    workload = workload_of(args.resource_type, args.props, args.name)
    if workload is None:
        return
    patterns = None  # read from the config once a container names a resource
    problems = []
    for path, container in containers(workload.pod_spec):
        limits = mapping(dig(container, "resources", "limits"))
        requests = mapping(dig(container, "resources", "requests"))
        present = sorted({str(k) for k in (*limits.keys(), *requests.keys())})
        if present and patterns is None:
            patterns = (_config(args, "gpu-limits-well-formed").get("resourceNames")
                        or CONFIG_DEFAULTS["gpu-limits-well-formed"]["resourceNames"])
        for resource in [n for n in present if _matches(n, patterns)]:
            missing = object()
            limit = dig(limits, resource, default=missing)
            request = dig(requests, resource, default=missing)
            if limit is missing and request is missing:
                continue
            problem = _quantity_problem(resource, limit, request, limit is not missing, request is not missing)
            if problem:
                problems.append(f"{path} ({text(dig(container, 'name')) or '?'}): {problem}")
    if problems:
        report(
            f"{workload.display}: {'; '.join(problems)}. The API server rejects these pods or they never fit: GPUs "
            f"are requested as a whole number in limits (requests, if set, equal).",
            None,
        )


POLICY = ResourceValidationPolicy(
    name="gpu-limits-well-formed",
    description="nvidia.com/gpu is set in limits; requests, if present, equal limits; the value is a whole number.",
    validate=validate_gpu_limits_well_formed,
    enforcement_level=EnforcementLevel.MANDATORY,
    config_schema=PolicyConfigSchema(
        properties={
            "resourceNames": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Extended resources checked; an entry ending in * is a prefix. Default: every GPU resource "
                "(nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-*: MIG devices of the mixed strategy).",
                "default": CONFIG_DEFAULTS["gpu-limits-well-formed"]["resourceNames"],
            }
        }
    ),
    remediation_steps="Write resources.limits[\"nvidia.com/gpu\"]: N (a whole number); drop requests or set them equal.",
)
