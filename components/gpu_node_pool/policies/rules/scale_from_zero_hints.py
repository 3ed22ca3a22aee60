"""Policy ``scale-from-zero-hints``: node groups and Auto Scaling groups that scale from zero carry Cluster Autoscaler
node-template tags matching their taints and labels, and every such tag is well formed (advisory).

Cluster Autoscaler builds the template node of an empty Auto Scaling group from its
``k8s.io/cluster-autoscaler/node-template/label/<key>`` and ``.../taint/<key>`` tags
(kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/README.md``, ``aws_manager.go``
``buildNodeFromTemplate``). For a pool whose backend names an ``autoscaler_group_api`` in the registry
(:class:`~gpu_node_pool.registry.AutoscalerGroupApi`; an EKS managed node group's ``eks:DescribeNodegroup``,
sourced in ``backends/eks_managed/__init__.py``) it also adds the node group's labels and its taints that have a
value, read through that API when its IAM role may call it. So for such a pool a missing tag is a definite problem
for a taint without a value, and otherwise only where the autoscaler is older or lacks that permission; a tag the
nodes do not match is a problem for every kind of group.

A malformed node-template tag is judged by ``cluster_autoscaler.judge_node_template_tag`` alone, with the taints of
the pool its group serves, so the advisory on the group and the one on the pool give one fix. A pool's advisory
names the tags to add and where: the Auto Scaling groups of the program that serve it, or, for a group the cloud
creates, the backend's ``AutoscalerGroupApi.tag_target``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    StackValidationArgs,
    StackValidationPolicy,
)

from ...k8s.taints import Taint, TaintError
from ...registry import AutoscalerGroupApi, find
from ...sdk.props import Undecided, UnknownValueError, dig, items, text
from ...text.listing import listed
from ..pools import (
    AUTOSCALING_GROUP,
    AUTOSCALING_TAG,
    GpuPool,
)
from ..stack import stack_index
from ._shared import _stack_pools


def _tag_map(tags: Any) -> dict[str, str]:
    out = {}
    if isinstance(tags, Mapping):
        return {str(k): v for k, v in tags.items() if isinstance(v, str)}
    for tag in items(tags):
        key, value = text(dig(tag, "key")), dig(tag, "value")
        if key is not None and isinstance(value, str):
            out[key] = value
    return out


def _differences(want: list[str], have: list[str]) -> str:
    """``missing [...]`` and/or ``not on the nodes [...]``: what ``have`` (tags) lacks of ``want`` (the pool) and adds."""
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    return ", ".join(
        part for part in (f"missing {listed(missing)}" if missing else "", f"not on the nodes {listed(extra)}" if extra else "") if part
    )


def _compare(pool: GpuPool, tags: Mapping[str, str], *, managed: bool = False
             ) -> tuple[list[str], list[str], dict[str, str], dict[str, str]]:
    """``(issues, covered, needed tags, covered tags)``: how the node-template tags differ from the pool's taints and
    labels, the tags (key -> value) missing for ``issues`` and those missing for ``covered``. ``managed`` (the pool's backend has an
    ``autoscaler_group_api``): a missing tag for a taint with a value or for a label, or a label tag of another value
    (the node group's own label wins), is ``covered`` (Cluster Autoscaler reads it through that API, the module
    docstring), not an issue. A malformed tag is judged by ``judge_node_template_tag`` with the pool's taints, so its
    fix here is the one the advisory on its Auto Scaling group gives, and it is left out of the comparison."""
    from ...backends._shared.cluster_autoscaler import (
        CA_LABEL_PREFIX,
        CA_TAINT_PREFIX,
        CA_TAINT_SOURCE,
        ca_taint_tag,
        judge_node_template_tag,
        read_ca_node_template_tags,
    )

    ca = {k: v for k, v in tags.items() if k.startswith((CA_LABEL_PREFIX, CA_TAINT_PREFIX))}
    issues: list[str] = []
    malformed = {k: judged for k, v in ca.items() if (judged := judge_node_template_tag(k, v, pool.taints))}
    if malformed:
        named = "; ".join(f"{k} = {ca[k]!r}: {j.fix}" for k, j in sorted(malformed.items()))
        issues.append(f"{len(malformed)} node-template tag(s) malformed, which Cluster Autoscaler ignores or misreads "
                      f"(kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md; {CA_TAINT_SOURCE}): {named}")
    fixed_keys = {k[len(CA_TAINT_PREFIX):] for k in malformed if k.startswith(CA_TAINT_PREFIX)}
    try:
        ca_taints, ca_labels = read_ca_node_template_tags({k: v for k, v in ca.items() if k not in malformed})
    except TaintError as err:  # a form the judge passes but Taint refuses: say it rather than compare
        return [*issues, f"a node-template taint tag is malformed: {err}"], [], {}, {}
    covered: list[str] = []
    have = [str(t) for t in ca_taints]
    readable = {str(t) for t in pool.taints if managed and t.value}
    want = [str(t) for t in pool.taints
            if (str(t) not in readable or str(t) in have) and t.key not in fixed_keys]
    if sorted(set(want)) != sorted(set(have)):
        issues.append(f"taint tags differ from the pool's taints ({_differences(want, have)})")
    unread = sorted(readable - set(have))
    if unread:
        covered.append(f"taint tags missing {listed(unread)}")
    wanted_tags = dict(ca_taint_tag(t) for t in pool.taints if str(t) in set(want) - set(have))
    covered_tags = dict(ca_taint_tag(t) for t in pool.taints if str(t) in unread)
    if pool.labels is not None:
        wanted, label_tags = dict(pool.labels), dict(ca_labels)
        if managed:
            unlabelled = sorted(f"{k}={v}" for k, v in pool.labels.items() if ca_labels.get(k) != v)
            if unlabelled:
                covered.append(f"label tags missing {listed(unlabelled)}")
                covered_tags |= {CA_LABEL_PREFIX + k: v for k, v in pool.labels.items() if ca_labels.get(k) != v}
            wanted, label_tags = {}, {k: v for k, v in ca_labels.items() if k not in pool.labels}
        if label_tags != wanted:
            issues.append("label tags differ from the pool's labels ("
                          f"{_differences([f'{k}={v}' for k, v in wanted.items()], [f'{k}={v}' for k, v in label_tags.items()])})")
            wanted_tags |= {CA_LABEL_PREFIX + k: v for k, v in wanted.items() if label_tags.get(k) != v}
    return issues, covered, dict(sorted(wanted_tags.items())), dict(sorted(covered_tags.items()))


def _tag_index(resources: Sequence[Any]) -> tuple[dict[str, Any], dict[str, list[int]], list[Any]]:
    """``(resource by URN (the first with it), URN -> positions in the Tag list of the Tags that depend
    on it (``linked``), the aws:autoscaling/tag:Tag resources in stack order)``: built once per stack."""
    by_urn: dict[str, Any] = {}
    for res in resources:
        by_urn.setdefault(res.urn, res)
    tags = [res for res in resources if res.resource_type == AUTOSCALING_TAG]
    by_owner: dict[str, list[int]] = {}
    for i, res in enumerate(tags):
        urns = {getattr(d, "urn", None) for d in getattr(res, "dependencies", None) or []}
        for deps in (getattr(res, "property_dependencies", None) or {}).values():
            urns.update(getattr(d, "urn", None) for d in deps)
        for urn in urns:
            if urn:
                by_owner.setdefault(urn, []).append(i)
    return by_urn, by_owner, tags


def _malformed_tags(args: StackValidationArgs, report: ReportViolation, undecided: Undecided,
                    taints_of: Mapping[str, Sequence[Taint]]) -> None:
    """Every ``node-template/taint/<key>`` and ``label/<key>`` tag on any Auto Scaling group (its ``tags``
    or an ``aws:autoscaling/tag:Tag``), ours or hand-written, GPU or not: a malformed one is ignored
    by Cluster Autoscaler or read as a wrong taint (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md,
    node-template tags; ``aws_manager.go`` ``extractTaintsFromAsg``), so it is reported with the fix
    ``judge_node_template_tag`` gives, from the taints of the pool the group serves (``taints_of``: URN of the group
    or Tag -> those taints) when it serves one."""
    from ...backends._shared.cluster_autoscaler import node_template_tag_problem

    for res in stack_index(args).of_types((AUTOSCALING_GROUP, AUTOSCALING_TAG)):
        try:
            if res.resource_type == AUTOSCALING_TAG:
                tag = dig(res.props, "tag")
                pairs = [(text(dig(tag, "key")), dig(tag, "value"))]
            else:
                pairs = list(_tag_map(dig(res.props, "tags")).items())
            pool_taints = taints_of.get(res.urn or "")
            problems = [p for k, v in pairs
                        if k and isinstance(v, str) and (p := node_template_tag_problem(k, v, pool_taints))]
        except UnknownValueError as err:
            undecided.add(f"{res.resource_type} {res.name}", err)
            continue
        for problem in problems:
            report(f"Auto Scaling group tag on {res.resource_type} {res.name!r}: {problem}", res.urn or None)


def _pool_tags(pool: GpuPool, index: tuple[dict[str, Any], dict[str, list[int]], list[Any]]) -> tuple[dict[str, str], list[Any]]:
    """``(tags, holders)``: the tags of the pool's Auto Scaling groups in the program and of the
    ``aws:autoscaling/tag:Tag`` resources that depend on the pool or one of those groups (in stack order), and the
    resources that hold them (groups, then Tags). Raises ``UnknownValueError`` for a tag not known yet."""
    by_urn, tags_by_owner, tag_resources = index
    target = by_urn.get(pool.urn)
    tags: dict[str, str] = {}
    groups = list(pool.extra.get("asgs", []))
    for group in groups:
        tags.update(_tag_map(dig(group.props, "tags")))
    owners = [target, *groups] if target is not None else groups
    linked = [tag_resources[i] for i in sorted({i for o in owners for i in tags_by_owner.get(getattr(o, "urn", None) or "", ())})]
    for res in linked:
        tag = dig(res.props, "tag")
        key, value = text(dig(tag, "key")), dig(tag, "value")
        if key is not None and isinstance(value, str):
            tags[key] = value
    return tags, [*groups, *linked]


def _where(pool: GpuPool, api: AutoscalerGroupApi | None, tags: Mapping[str, str]) -> str:
    """``<tags> to <which group, how>``: the tags to write and where (``tags`` is not empty)."""
    listed = ", ".join(f"{k} = {v}" for k, v in tags.items())
    groups = list(pool.extra.get("asgs", []))
    if groups:
        target = "to " + ", ".join(f"{g.resource_type} {g.name!r}" for g in groups)
    elif api is not None and api.tag_target:
        target = f"to the Auto Scaling group: {api.tag_target}"
    else:
        target = "to the Auto Scaling group whose instances are this pool's nodes"
    return f"{listed} {target}"


def validate_scale_from_zero_hints(args: StackValidationArgs, report: ReportViolation) -> None:
    """Node groups/ASGs with min size 0 carry CA node-template tags matching their taints and labels;
    every node-template taint/label tag on any Auto Scaling group is well formed."""
    undecided = Undecided()
    index: tuple[dict[str, Any], dict[str, list[int]], list[Any]] | None = None
    taints_of: dict[str, Sequence[Taint]] = {}
    scaling: list[tuple[GpuPool, AutoscalerGroupApi | None, dict[str, str]]] = []
    for pool in _stack_pools(args, undecided):
        record = find(pool.backend)
        if pool.problem or record is None or not record.autoscaler_tags:
            continue
        index = index or _tag_index(args.resources)
        try:
            tags, holders = _pool_tags(pool, index)
        except UnknownValueError as err:
            if pool.min_size == 0:
                undecided.add(pool.display, err)
            continue
        for holder in holders:
            taints_of.setdefault(getattr(holder, "urn", None) or "", pool.taints)
        if pool.min_size == 0:
            scaling.append((pool, record.autoscaler_group_api, tags))
    _malformed_tags(args, report, undecided, taints_of)
    for pool, api, tags in scaling:
        managed = api is not None
        issues, covered, needed, extra = _compare(pool, tags, managed=managed)
        if not tags and not managed:
            issues = ["no Cluster Autoscaler node-template tags"]
        elif not tags and not issues:
            covered = ["no Cluster Autoscaler node-template tags", *covered]
        labels_note = "" if pool.labels is not None else " (labels not compared: unknown)"
        if issues:
            why = (
                "Cluster Autoscaler builds the template node of an empty group from "
                "k8s.io/cluster-autoscaler/node-template/label/<key> = <value> and .../taint/<key> = <value>:<Effect> "
                "(:<Effect> for a taint without a value)"
            )
            if api is not None:
                why += (f", plus what {api.action} returns, which has no taint without a value ({api.why}"
                        + (f"; with it, these need no tag: {'; '.join(covered)}" if covered else "") + ")")
            report(
                f"{pool.display} scales from zero (minSize 0) but its Auto Scaling group's tags do not describe its "
                f"nodes: {'; '.join(issues)}{labels_note}. {why}; a mismatch makes it scale a group whose nodes the "
                "pending pod cannot use, or none." + (f" Add {_where(pool, api, needed)}." if needed else ""),
                pool.urn or None,
            )
        elif covered and api is not None:
            report(
                f"{pool.display} scales from zero (minSize 0) and its Auto Scaling group's tags lack some of its "
                f"labels and taints: {'; '.join(covered)}"
                f"{labels_note}. {api.why}; so these tags are needed only where the autoscaler is older "
                f"than that or lacks {api.action}: there, without them, it would scale the group for a pending "
                f"pod its nodes cannot take. Grant {api.action} to an autoscaler of {api.since} or later, or add "
                + (_where(pool, api, extra) if extra else "the tags (k8s.io/cluster-autoscaler/node-template/label/<key> "
                   "= <value>, .../taint/<key> = <value>:<Effect>)") + ".",
                pool.urn or None,
            )
    undecided.raise_if_any()


POLICY = StackValidationPolicy(
    name="scale-from-zero-hints",
    description="Node groups and Auto Scaling groups with min size 0 carry Cluster Autoscaler node-template tags that match their taints and labels exactly (key, value and effect; an EKS managed node group needs a tag only for a taint without a value, or for an autoscaler older than 1.31.0 or without eks:DescribeNodegroup, which reads its labels and other taints); every node-template taint/label tag on any Auto Scaling group is well formed (value <value>:<Effect>).",
    validate=validate_scale_from_zero_hints,
    enforcement_level=EnforcementLevel.ADVISORY,
    remediation_steps=(
        "Tag the Auto Scaling group with k8s.io/cluster-autoscaler/node-template/label/<key> and "
        "/taint/<key> = <value>:<Effect> for every label and taint (GpuNodePool does it for minSize 0)."
    ),
)
