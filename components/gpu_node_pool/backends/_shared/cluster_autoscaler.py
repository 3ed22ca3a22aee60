"""Cluster Autoscaler node-template tags on Auto Scaling groups: render and read back.

Shared by ``eks_managed`` (tags on the Auto Scaling group EKS creates, for scale from zero)
and ``self_managed`` (tags on the group the component creates). Source: kubernetes/autoscaler
``cloudprovider/aws/README.md`` (node-template tags, Kubernetes effect spelling, value regex
``(.*):(?:NoSchedule|NoExecute|PreferNoSchedule)``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ... import catalog
from ...k8s.taints import Taint, TaintEffect, TaintError, label_value_problem, qualified_name_problem
from ...k8s.wellknown import NVIDIA_GPU_RESOURCE as GPU_RESOURCE
from ...text.listing import listed

#: Auto-discovery: Cluster Autoscaler finds groups tagged ``k8s.io/cluster-autoscaler/enabled`` and
#: ``k8s.io/cluster-autoscaler/<cluster name>``.
CA_ENABLED_TAG = "k8s.io/cluster-autoscaler/enabled"
CA_CLUSTER_TAG_PREFIX = "k8s.io/cluster-autoscaler/"
#: EC2 tag that marks an instance as a member of a cluster (``kubernetes.io/cluster/<name>=owned``).
CLUSTER_OWNED_TAG_PREFIX = "kubernetes.io/cluster/"
CA_PREFIX = "k8s.io/cluster-autoscaler/node-template/"
CA_LABEL_PREFIX = CA_PREFIX + "label/"
CA_TAINT_PREFIX = CA_PREFIX + "taint/"
CA_RESOURCE_PREFIX = CA_PREFIX + "resources/"


def keys_with_several_effects(taints: list[Taint]) -> list[str]:
    """Taint keys that carry more than one effect: a ``node-template/taint/<key>`` tag holds one
    ``value:Effect``, so such a pool cannot be described to Cluster Autoscaler (the one rule that
    eks-managed and self-managed pool configs and :func:`ca_node_template_tags` all apply)."""
    keys = [t.key for t in taints]
    return sorted({k for k in keys if keys.count(k) > 1})


def several_effects_problem(taints: list[Taint], fix: str) -> str | None:
    """The config message for :func:`keys_with_several_effects`, or None; ``fix`` ends it."""
    multi = keys_with_several_effects(taints)
    if not multi:
        return None
    return (
        f"taint key(s) {listed(multi)} carry several effects, but a Cluster Autoscaler node-template taint tag holds one "
        f"value:Effect per key (node-template/taint/<key>); {fix}"
    )


#: An Auto Scaling group tag key has 1-128 characters (Amazon EC2 Auto Scaling API reference, ``Tag``,
#: https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_Tag.html). The values never come near their 256:
#: a label value or ``<taint value>:<Effect>`` is at most 63 + 17.
ASG_TAG_KEY_MAX = 128
_TAG_SOURCE = "Amazon EC2 Auto Scaling API reference, Tag, https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_Tag.html"


def tag_key_length_problem(pool: Any) -> tuple[str, tuple[str | int, ...]] | None:
    """``(message, where)`` for the first label or taint key of ``pool`` (a self-managed pool model: ``labels``, ``node_labels``,
    ``taint_list``) whose node-template tag (:func:`ca_node_template_tags`) would not fit an Auto Scaling group tag
    key of :data:`ASG_TAG_KEY_MAX` characters (the prefix takes 46, so a key of more than 82 cannot be described);
    ``where`` is the key's place in the pool (``("labels", key)``, ``("gpuLabel",)``, ``("taints", index)``). None
    when every key fits. EKS managed node groups need no such check: EKS takes keys of at most 63 characters."""
    found = [(CA_LABEL_PREFIX, "label", key, ("labels", key) if key in (pool.labels or {}) else ("gpuLabel",))
             for key in pool.node_labels]
    found += [(CA_TAINT_PREFIX, "taint", t.key, ("taints", i)) for i, t in enumerate(pool.taint_list)]
    for prefix, what, key, where in found:
        if len(prefix) + len(key) > ASG_TAG_KEY_MAX:
            return (
                f"{what} key {key!r} ({len(key)} characters) makes the Cluster Autoscaler tag key {prefix}... "
                f"{len(prefix) + len(key)} characters; an Auto Scaling group tag key has at most {ASG_TAG_KEY_MAX} "
                f"({_TAG_SOURCE}), so the group cannot be tagged for scale from zero: shorten the key to at most "
                f"{ASG_TAG_KEY_MAX - len(prefix)} characters", where)
    return None


def ca_taint_tag(taint: Taint) -> tuple[str, str]:
    """The ``node-template/taint/<key>`` tag for ``taint``: ``(key, "<value>:<Effect>")``, Kubernetes spelling (an
    empty value gives ``:<Effect>``)."""
    return CA_TAINT_PREFIX + taint.key, f"{taint.value}:{taint.effect.value}"


def ca_node_template_tags(
    taints: list[Taint], labels: Mapping[str, str], resources: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Cluster Autoscaler scale-from-zero tags for an ASG whose nodes carry ``taints`` and ``labels``.

    ``node-template/label/<key>`` = ``<value>`` and ``node-template/taint/<key>`` =
    ``<value>:<Effect>`` (Kubernetes spelling; an empty value gives ``:<Effect>``), plus
    ``node-template/resources/<name>`` = ``<quantity>`` for each of ``resources`` (e.g.
    ``{"nvidia.com/gpu": "4"}``; self-managed groups). Sorted by key.

    Raises:
        ValueError: two taints share a key (one tag per key cannot hold both); config
            validation refuses such pools before they get here.
    """
    tags: dict[str, str] = {}
    multi = keys_with_several_effects(list(taints))
    if multi:
        raise ValueError(f"taint key {multi[0]!r} has several effects; one CA tag cannot hold them")
    for name, quantity in (resources or {}).items():
        tags[CA_RESOURCE_PREFIX + name] = str(quantity)
    for key, value in labels.items():
        tags[CA_LABEL_PREFIX + key] = value
    for taint in taints:
        key, value = ca_taint_tag(taint)
        tags[key] = value
    return dict(sorted(tags.items()))


def read_ca_node_template_tags(tags: Mapping[str, str]) -> tuple[list[Taint], dict[str, str]]:
    """Inverse of :func:`ca_node_template_tags`: ``(taints, labels)`` from an ASG's tags.

    Taints come back sorted by key (tags have no order). Other tags are ignored.

    Raises:
        TaintError: a taint tag's value is not ``<value>:<Effect>``.
    """
    taints, labels = [], {}
    for key, value in sorted(tags.items()):
        if key.startswith(CA_LABEL_PREFIX):
            labels[key[len(CA_LABEL_PREFIX):]] = value
        elif key.startswith(CA_TAINT_PREFIX):
            # the tag holds "<value>:<Effect>": the kubelet form once the key is put in front
            taints.append(Taint.parse(f"{key[len(CA_TAINT_PREFIX):]}={value}"))
    return taints, labels


def report_lines(entry: Mapping[str, Any]) -> list[str]:
    """The scale-from-zero block of a pool in the text plan (empty without tags)."""
    lines: list[str] = []
    tags = entry.get("scaleFromZeroTags") or {}
    if tags:
        lines.append("  scale-from-zero ASG tags (Cluster Autoscaler):")
        lines += [f"    {k} = {v}" for k, v in tags.items()]
        ok = entry.get("scaleFromZeroMatches")
        subject = entry.get("scaleFromZeroSubject", "the node group's")
        lines.append(f"    {'match' if ok else 'DO NOT match'} {subject} taints and labels")
        if CA_RESOURCE_PREFIX + GPU_RESOURCE in tags and entry.get("instanceTypes"):
            need = gpu_tag_need(list(entry["instanceTypes"]))
            physical = catalog.gpus(entry["instanceTypes"][0])
            tagged = tags[CA_RESOURCE_PREFIX + GPU_RESOURCE]
            if need.startswith(GPU_TAG_NOT_NEEDED) and physical is not None and str(physical) != str(tagged):
                # time-slicing or MIG single: the node advertises more nvidia.com/gpu than it has GPUs
                need = (f"required: the node advertises {tagged} {GPU_RESOURCE} (shared or partitioned GPUs), not the "
                        f"{physical} physical GPU(s) Cluster Autoscaler's table gives {entry['instanceTypes'][0]}; the "
                        "tag overrides the table (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md)")
            lines.append(f"    {GPU_RESOURCE} tag {need}")
    return lines


def _effect(spelling: str) -> TaintEffect | None:
    for parse in (TaintEffect.parse, TaintEffect.from_provider):
        try:
            return parse(spelling)
        except TaintError:
            continue
    return None


#: extractTaintsFromAsg's test on a taint tag's value: unanchored (``regexp.MatchString`` finds it anywhere).
_CA_TAINT_VALUE_RE = "(.*):(?:" + "|".join(e.value for e in TaintEffect) + ")"
CA_TAINT_SOURCE = (
    "kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_manager.go@00a2c93c extractTaintsFromAsg"
)


def ca_reads_taint_tag(key: str, value: str) -> tuple[str, str, str] | None:
    """The taint ``(key, value, effect)`` Cluster Autoscaler builds from the ASG tag ``key = value``, exactly as
    ``extractTaintsFromAsg`` does (:data:`CA_TAINT_SOURCE`), or None when it builds none.

    It keeps a tag whose value contains ``:NoSchedule``, ``:NoExecute`` or ``:PreferNoSchedule`` anywhere, takes
    the taint key from after ``node-template/taint/``, and splits the value once on its first ``:``: the part
    before is the taint value and everything after is the effect, unchecked. So ``k=v:NoSchedule`` gives the value
    ``k=v``, ``a:b:NoSchedule`` the effect ``b:NoSchedule``, ``v:NoScheduleX`` the effect ``NoScheduleX``.
    """
    from ...k8s.patterns import pattern_search

    marker = CA_TAINT_PREFIX
    if marker not in key or not pattern_search(_CA_TAINT_VALUE_RE, value):
        return None
    taint_value, _, effect = value.partition(":")
    return key.split(marker, 1)[1], taint_value, effect


class TagJudgement(NamedTuple):
    """What :func:`judge_node_template_tag` says of a malformed node-template tag.

    Attributes:
        message: the whole sentence: the tag, what Cluster Autoscaler does with it, the rule with its source, the fix.
        fix: the fix alone, e.g. ``write k8s.io/cluster-autoscaler/node-template/taint/dedicated = :NoSchedule``.
    """

    message: str
    fix: str


def _taint_tag_fix(key: str, name: str, value: str, pool_taints: Sequence[Taint] | None) -> tuple[str, str, str]:
    """``(fixed tag or action, hint, why)`` for the malformed taint tag ``key = value`` whose taint key is ``name``."""
    example = TaintEffect.NO_SCHEDULE.value
    effects_hint = f" (<Effect>: {', '.join(x.value for x in TaintEffect)}, e.g. {example})"
    taint_value, colon, effect_text = value.partition(":")
    effect = _effect(effect_text) if colon else _effect(value)
    if "=" in value:  # the kubelet form key=value[:Effect] written into the tag value
        k, _, rest = value.partition("=")
        v, _, e = rest.partition(":")
        fixed_effect = _effect(e) if e else None
        fixed = f"{CA_TAINT_PREFIX}{k} = {v}:{fixed_effect.value if fixed_effect else '<Effect>'}"
        hint = "" if fixed_effect else effects_hint
        why = "the value holds a whole taint key=value; the tag key names the taint key and the value is <value>:<Effect>"
    elif effect is not None:  # no colon, or a provider/other spelling of the effect
        fixed, hint = f"{key} = {taint_value if colon else ''}:{effect.value}", ""
        why = "the effect must follow a ':' and be spelled as Kubernetes does (case-sensitive)"
    elif colon and ":" in effect_text:
        fixed, hint = f"{key} = <value without ':'>:<Effect>", ""
        why = "the autoscaler splits on the first ':', so a taint value cannot contain ':'"
    else:
        fixed, hint = f"{key} = {taint_value if colon else value}:<Effect>", effects_hint
        why = "the value must be <value>:<Effect>"
    if pool_taints is not None:
        same = [t for t in pool_taints if t.key == name]
        if len(same) == 1:  # the pool's own taint decides the value and effect
            fixed, hint = f"{key} = {ca_taint_tag(same[0])[1]}", f" (the pool's taint {same[0]})"
        elif not same:
            return "", "", why
    return fixed, hint, why


def judge_node_template_tag(key: str, value: str, pool_taints: Sequence[Taint] | None = None) -> TagJudgement | None:
    """Why an Auto Scaling group tag ``node-template/taint/<key>`` or ``label/<key>`` is one Cluster
    Autoscaler ignores or misreads, with what the autoscaler does with it (:func:`ca_reads_taint_tag`: no taint, or a
    wrong one) and the fix; None when it is well formed (or another tag). The one judge of such a tag: policy
    ``scale-from-zero-hints`` quotes it on the group and on the pool the group serves.

    ``pool_taints``: the taints of the pool whose group carries the tag, when known. Then the fix of a malformed
    taint tag is the tag form of the pool's one taint of that key (``<value>:<Effect>``, ``:<Effect>`` for a taint
    without a value), or, when the pool has no taint of that key, to remove the tag; without it the fix is the
    tag's own value corrected.

    Rules (kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/README.md``, node-template
    label and taint tags, and ``aws_manager.go`` ``extractTaintsFromAsg``): the key after ``taint/``/``label/`` is the taint or label key (a
    qualified name); a taint value is ``<value>:<Effect>`` with Effect spelled as Kubernetes does
    (case-sensitive), split on the first ``:`` so the value holds no ``:``; a value without a known effect
    after a ``:`` is skipped by the autoscaler, and other malformed values give it a wrong taint.
    """
    if key.startswith(CA_LABEL_PREFIX):
        name = key[len(CA_LABEL_PREFIX):]
        bad = qualified_name_problem(name) or (f"value {value!r} {p}" if (p := label_value_problem(value)) else None)
        if not bad:
            return None
        fix = "write a label key and value a Node can carry"
        return TagJudgement(f"label tag {key} = {value!r}: {bad} (kubernetes/autoscaler cloudprovider/aws/README.md, "
                            "node-template/label tags)", fix)
    if not key.startswith(CA_TAINT_PREFIX):
        return None
    name = key[len(CA_TAINT_PREFIX):]
    if problem := qualified_name_problem(name):
        return TagJudgement(f"taint tag {key}: the part after taint/ is the taint key and {name!r} {problem} "
                            "(kubernetes/autoscaler cloudprovider/aws/README.md, node-template/taint tags)",
                            "write the taint key after taint/")
    taint_value, colon, effect_text = value.partition(":")
    effect = _effect(effect_text) if colon else _effect(value)
    if colon and effect is not None and effect.value == effect_text and ":" not in effect_text and "=" not in taint_value:
        if (p := label_value_problem(taint_value)) is None:
            return None
        return TagJudgement(f"taint tag {key} = {value!r}: the taint value {taint_value!r} {p} (kubernetes/autoscaler "
                            "cloudprovider/aws/README.md, node-template/taint tags)",
                            f"write {key} = <value>:{effect.value} with a value a Node's taint can carry")
    fixed, hint, why = _taint_tag_fix(key, name, value, pool_taints)
    fix = f"write {fixed}{hint}" if fixed else f"remove it: the pool's nodes carry no taint {name}"
    read = ca_reads_taint_tag(key, value)
    if read is None:
        effects = ", ".join(f"':{e.value}'" for e in TaintEffect)
        what = (f"is ignored by Cluster Autoscaler: its value contains none of {effects}, so the autoscaler builds "
                "no taint from it and its scale-from-zero template node lacks the taint")
    else:
        k, v, e = read
        consequence = []
        if e not in {x.value for x in TaintEffect}:
            consequence.append(f"the effect {e!r} is none Kubernetes knows, so the scheduler's taint check skips it")
        if label_value_problem(v):
            consequence.append(f"the value {v!r} is one no Node can carry")
        what = (f"is read by Cluster Autoscaler as the taint {k}={v}:{e} (value {v!r}, effect {e!r}), not the taint "
                f"meant" + (f": {'; '.join(consequence)}" if consequence else "")
                + "; its scale-from-zero template node then carries that wrong taint")
    return TagJudgement(
        f"taint tag {key} = {value!r} {what}. {why[0].upper() + why[1:]} (kubernetes/autoscaler "
        f"cluster-autoscaler/cloudprovider/aws/README.md; {CA_TAINT_SOURCE}); {fix}", fix)


def node_template_tag_problem(key: str, value: str, pool_taints: Sequence[Taint] | None = None) -> str | None:
    """The message of :func:`judge_node_template_tag`, or None when the tag is well formed (or another tag)."""
    judged = judge_node_template_tag(key, value, pool_taints)
    return judged.message if judged else None


#: How :func:`gpu_tag_need` begins when Cluster Autoscaler's instance table already gives the type's GPUs.
GPU_TAG_NOT_NEEDED = "not needed"


def gpu_tag_need(instance_types: list[str]) -> str:
    """Whether an Auto Scaling group of ``instance_types`` needs ``node-template/resources/nvidia.com/gpu``
    to scale from zero, with the reason: ``required: ...`` when Cluster Autoscaler's instance table
    lacks the first type (the autoscaler models a group by its first type, and an unknown type gives no
    template node) or lists 0 GPUs for it (g6f/gr6f: EC2 reports no whole GPU, aws/karpenter-provider-aws#8368);
    else ``not needed: ...`` (:data:`GPU_TAG_NOT_NEEDED`: the table has the count, the tag repeats it and wins over
    it). Source:
    kubernetes/autoscaler ``cluster-autoscaler/cloudprovider/aws/README.md`` (node-template/resources tags)
    and ``aws_manager.go`` (template node built from ``ec2_instance_types.go``, then the tags)."""
    if not instance_types:
        return ""
    first = catalog.find(instance_types[0])
    if first is None or not first.in_autoscaler_table:
        return (f"required: {instance_types[0]} is not in Cluster Autoscaler's instance table, which builds the "
                "template node of an empty group (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md)")
    if first.ec2_gpus == 0:
        return (f"required: Cluster Autoscaler's table gives {instance_types[0]} 0 GPUs (EC2 reports none for "
                "fractional GPUs, aws/karpenter-provider-aws#8368; kubernetes/autoscaler ec2_instance_types.go)")
    return (f"{GPU_TAG_NOT_NEEDED}: Cluster Autoscaler's table already gives {instance_types[0]} {first.ec2_gpus} "
            "GPU(s); the tag repeats it, and where the two differ the tag wins (kubernetes/autoscaler "
            "cluster-autoscaler/cloudprovider/aws/README.md, node-template/resources tags)")
