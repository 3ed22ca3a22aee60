"""Policy ``resources-judged``: never a silent pass on what the pack could not see inside.

A Helm chart, a YAML component or an EKS add-on creates Kubernetes objects (DaemonSets among
them) that the other policies judge only when they are visible as resources. In a real
``pulumi preview`` the Kubernetes provider registers a ``helm.v4.Chart``'s and a
``yaml.v2.ConfigGroup``'s objects as children, except when an input or the provider is
unknown at preview (pulumi/pulumi-policy#298: the children of a v1 ``ConfigGroup`` are missing
while the cluster is created in the same preview); a ``helm.v3.Release`` never has children
(the provider installs it as one resource); an ``aws.eks.Addon``'s DaemonSets are EKS's, not
Pulumi resources. So a component of those types counts as not judged exactly when the stack
holds no child whose parent is it. ``gpupool check`` (any Pulumi Python program) and ``gpupool
plan`` (this project's stacks) open them offline first (:mod:`gpu_node_pool.plan.expand`) and
reword this finding with the exact reason; so the fixes here name ``gpupool check``, which runs
whatever program the pack is judging.

An add-on whose row in the add-on table (:mod:`gpu_node_pool.expand.eks_addons_data`) says it runs no
DaemonSet is judged (there is nothing to judge).

Config: ``strict`` (boolean, default false): ``gpupool check``/``plan`` then report these findings, and
the "can't run policy during preview" findings, as mandatory. In a real preview Pulumi sets a
policy's level from the config's ``enforcementLevel`` only, so there write
``{"resources-judged": {"enforcementLevel": "mandatory", "strict": true}}``.
"""

from __future__ import annotations

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...expand.eks_addons import ADDON_TYPE, expand_addon
from ...expand.operator_resources import expand_custom_resource, group_kind, known_kind
from ...expand.result import Expanded
from ...sdk.props import UnknownValueError, plain
from ..stack import stack_index
from ._shared import CONFIG_DEFAULTS

_RELEASE = "kubernetes:helm.sh/v3:Release"
_COMPONENTS = (
    "kubernetes:helm.sh/v4:Chart",
    "kubernetes:helm.sh/v3:Chart",
    "kubernetes:yaml/v2:ConfigGroup",
    "kubernetes:yaml/v2:ConfigFile",
    "kubernetes:yaml:ConfigGroup",
    "kubernetes:yaml:ConfigFile",
)
#: Every type whose objects are judged only through its children.
JUDGED_THROUGH_CHILDREN = (*_COMPONENTS, _RELEASE, ADDON_TYPE)


def _why(res) -> str | None:
    """Why ``res`` (with no child) is not judged, with the fix; None when there is nothing to judge."""
    if res.resource_type == _RELEASE:
        return (
            "a helm.v3.Release installs its chart as one resource, so a preview never sees its objects. Fix: use "
            "kubernetes.helm.v4.Chart (its objects are children a preview judges), or judge the Release offline "
            "with `gpupool check --stack <stack>` (it renders the chart with Helm)"
        )
    if res.resource_type == ADDON_TYPE:
        try:
            outcome = expand_addon(res.name, plain(res.props))
        except UnknownValueError:
            outcome = None
        if isinstance(outcome, Expanded) and not outcome.objects:
            return None
        detail = f" ({outcome.reason})" if outcome is not None and not isinstance(outcome, Expanded) else ""
        return (
            f"an EKS add-on's DaemonSets are EKS's, not Pulumi resources{detail}. Fix: run `gpupool check --stack <stack>`, which "
            "judges the add-ons its add-on table knows, or check the add-on's DaemonSets tolerate the GPU taints"
        )
    return (
        "it has no child resources: an input or the Kubernetes provider was unknown at preview, so the provider "
        "did not expand it (pulumi/pulumi-policy#298). Fix: make its inputs and the provider known at preview "
        "(e.g. create the cluster in an earlier stack), or judge it offline with `gpupool check --stack <stack>`"
    )


def _operator_why(res) -> str | None:
    """Why an operator's custom resource of a kind the table knows (:mod:`gpu_node_pool.expand.operator_resources`)
    is not judged here, with the fix; None when it is (it asks for no DaemonSet, or the pack reads it itself)."""
    key = group_kind(res.resource_type)
    row = known_kind(*key) if key else None
    if row is None or row.read_by_pack:
        return None
    try:
        outcome = expand_custom_resource(res.resource_type, plain(res.props), resource=res.name)
    except UnknownValueError:
        outcome = None
    if isinstance(outcome, Expanded):
        if not outcome.objects:
            return None
        return (f"{row.operator} creates DaemonSets from it that a preview never sees. Fix: run `gpupool check "
                "--stack <stack>` or `gpupool plan`, which derive them from the operator table and judge them")
    if outcome is None:
        return f"{row.operator} creates DaemonSets from it; its spec is unknown at preview. Fix: {_UNKNOWN}"
    return f"{outcome.reason}. Fix: {outcome.fix}"


_UNKNOWN = "make its spec known at preview, or judge the DaemonSets after apply with `gpupool audit`"


def validate_resources_judged(args: StackValidationArgs, report: ReportViolation) -> None:
    """Charts, YAML components, Releases, add-ons and known operators' custom resources with no child
    resource: not judged, with the reason."""
    index = stack_index(args)
    parents = index.parent_urns()
    for res in index.select("operator custom resources", lambda t: t.startswith("kubernetes:") and known_kind(*(group_kind(t) or ("", ""))) is not None):
        if res.urn in parents:
            continue
        why = _operator_why(res)
        if why is not None:
            report(f"not judged: {res.resource_type} {res.name}: {why}.", res.urn)
    for res in index.of_types(JUDGED_THROUGH_CHILDREN):
        if res.urn in parents:
            continue
        why = _why(res)
        if why is not None:
            report(f"not judged: {res.resource_type} {res.name}: {why}.", res.urn)


POLICY = StackValidationPolicy(
    name="resources-judged",
    description="Helm charts, YAML components, helm.v3.Releases and EKS add-ons whose Kubernetes objects no policy could see are reported as not judged, never passed silently.",
    validate=validate_resources_judged,
    enforcement_level=EnforcementLevel.ADVISORY,
    config_schema=PolicyConfigSchema(
        properties={
            "strict": {
                "type": "boolean",
                "description": "gpupool check/plan: not-judged findings (and can't-run-during-preview ones) are mandatory, like --strict. "
                "In a real preview also set enforcementLevel mandatory.",
                "default": CONFIG_DEFAULTS["resources-judged"]["strict"],
            },
        }
    ),
    remediation_steps=(
        "Let the policies see the objects: prefer kubernetes.helm.v4.Chart to helm.v3.Release, keep chart and "
        "manifest inputs known at preview, and run `gpupool check --stack <stack>` on the program (it renders charts with Helm, parses YAML and "
        "reads EKS add-ons from its add-on table)."
    ),
)
