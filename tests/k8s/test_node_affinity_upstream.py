"""Required node affinity and nodeSelector against the cases of Kubernetes' own test, as data.

Source: kubernetes/kubernetes ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/
nodeaffinity_test.go``@04791b490660 ``TestPodMatchesNodeSelectorAndAffinityTerms`` (the node is a real
Node: its labels are complete). Cases on ``matchFields`` (node names) are judged "undecided" here
(None): the plan never knows a future node's name; they are listed with that verdict. Cases whose pod
the API server refuses (no ``nodeSelectorTerms``; ``matchFields`` on ``node_1``, which is no DNS
subdomain) are never judged either (None), and say why (``NodeSelection.refused``): the matcher's answer
on them never happens on a cluster (kubernetes ``pkg/apis/core/validation/validation.go``
``ValidateNodeSelector``, ``ValidateNodeFieldSelectorRequirement``).

The issue text said a ``NotIn`` "with a value the node never carries" never schedules upstream; the
table says otherwise for a valid value (``mem-type NotIn [DDR, DDR2]`` on ``DDR3`` schedules, and
``labels.Requirement.Matches`` returns true for NotIn when the node lacks the label). What never
schedules is a NotIn whose value is not a label value ("invalid value: ___@#$%^"), because the
term cannot be parsed; that case is here too.
"""

from __future__ import annotations

import pytest

from gpu_node_pool.policies.workloads import NodeSelection


def required(*terms):
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}}


def expr(key, operator, *values):
    out = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def term(*exprs, fields=None):
    out = {"matchExpressions": list(exprs)}
    if fields:
        out["matchFields"] = fields
    return out


NAME_IN_NODE_1 = [{"key": "metadata.name", "operator": "In", "values": ["node_1"]}]

#: (name, pod spec, node labels, upstream verdict, ours when different (None: undecided, matchFields))
CASES = [
    ("no selector", {}, {}, True),
    ("missing labels", {"nodeSelector": {"foo": "bar"}}, {}, False),
    ("same labels", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar"}, True),
    ("node labels are superset", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar", "baz": "blah"}, True),
    ("node labels are subset", {"nodeSelector": {"foo": "bar", "baz": "blah"}}, {"foo": "bar"}, False),
    ("In matches", required(term(expr("foo", "In", "bar", "value2"))), {"foo": "bar"}, True),
    ("Gt matches (leading zeros parse as Go's ParseInt)", required(term(expr("kernel-version", "Gt", "0204"))),
     {"kernel-version": "0206"}, True),
    ("NotIn matches another value", required(term(expr("mem-type", "NotIn", "DDR", "DDR2"))), {"mem-type": "DDR3"}, True),
    ("Exists matches", required(term(expr("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, True),
    ("affinity that does not match", required(term(expr("foo", "In", "value1", "value2"))), {"foo": "bar"}, False),
    ("nil NodeSelectorTerms", {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": None}}}}, {"foo": "bar"}, False, None),
    ("empty NodeSelectorTerms", required(), {"foo": "bar"}, False, None),
    ("empty MatchExpressions", required({"matchExpressions": []}), {"foo": "bar"}, False),
    ("no affinity", {}, {"foo": "bar"}, True),
    ("affinity with nil NodeSelector", {"affinity": {"nodeAffinity": {}}}, {"foo": "bar"}, True),
    ("expressions ANDed, match", required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))),
     {"GPU": "NVIDIA-GRID-K1"}, True),
    ("expressions ANDed, no match", required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER"))),
     {"GPU": "NVIDIA-GRID-K1"}, False),
    ("terms ORed", required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2"))),
     {"foo": "bar"}, True),
    ("affinity and nodeSelector both satisfied", {"nodeSelector": {"foo": "bar"}, **required(term(expr("foo", "Exists")))},
     {"foo": "bar"}, True),
    ("affinity matches, nodeSelector not", {"nodeSelector": {"foo": "bar"}, **required(term(expr("foo", "Exists")))},
     {"foo": "barrrrrr"}, False),
    ("invalid value in a NotIn term never schedules", required(term(expr("foo", "NotIn", "invalid value: ___@#$%^"))),
     {"foo": "bar"}, False),
    ("matchFields In matches the node", required({"matchFields": NAME_IN_NODE_1}), {}, True, None),
    ("matchFields In does not match the node", required({"matchFields": NAME_IN_NODE_1}), {}, False, None),
    ("two terms: matchFields no, matchExpressions yes", required({"matchFields": NAME_IN_NODE_1},
                                                                  term(expr("foo", "In", "bar"))), {"foo": "bar"}, True, None),
    ("two terms: matchFields no, matchExpressions yes (a valid node name)",
     required({"matchFields": [{**NAME_IN_NODE_1[0], "values": ["node-1"]}]}, term(expr("foo", "In", "bar"))),
     {"foo": "bar"}, True),
    ("one term: matchFields no, matchExpressions yes", required(term(expr("foo", "In", "bar"), fields=NAME_IN_NODE_1)),
     {"foo": "bar"}, False, None),
    ("one term: both match", required(term(expr("foo", "In", "bar"), fields=NAME_IN_NODE_1)), {"foo": "bar"}, True, None),
    ("two terms: neither matches", required({"matchFields": NAME_IN_NODE_1}, term(expr("foo", "In", "not-match-to-bar"))),
     {"foo": "bar"}, False, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_pod_matches_node_selector_and_affinity_terms_as_upstream(case):
    name, spec, labels, upstream, *ours = case
    expected = ours[0] if ours else upstream
    assert NodeSelection.of(spec).on(labels, complete=True) is expected


@pytest.mark.parametrize(("name", "why"), [
    ("nil NodeSelectorTerms", "nodeSelectorTerms is empty: the API server refuses this pod spec"),
    ("empty NodeSelectorTerms", "nodeSelectorTerms is empty: the API server refuses this pod spec"),
    ("two terms: matchFields no, matchExpressions yes", "matchFields value 'node_1' is not a node name"),
])
def test_a_case_the_api_server_refuses_says_why_it_is_not_judged(name, why):
    spec = next(c[1] for c in CASES if c[0] == name)
    assert why in NodeSelection.of(spec).refused


def test_not_in_on_a_label_the_node_lacks_matches_as_labels_requirement_matches():
    spec = required(term(expr("example.com/zone-class", "NotIn", "never-carried")))
    assert NodeSelection.of(spec).on({"foo": "bar"}, complete=True) is True


def test_a_requirement_is_written_as_kubernetes_writes_it_not_as_a_python_list():
    from gpu_node_pool.k8s.selection import expression_text

    assert expression_text("nvidia.com/gpu.present", "In", ["true"]) == "nvidia.com/gpu.present In [true]"
    assert expression_text("team", "NotIn", ["a", "b"]) == "team NotIn [a, b]"
    assert expression_text("nvidia.com/gpu.present", "Exists") == "nvidia.com/gpu.present Exists"
    assert expression_text("nvidia.com/gpu.present", "Exists", []) == "nvidia.com/gpu.present Exists"
    # a long value the user wrote is cut with its length said, not printed whole
    assert expression_text("k", "In", ["v" * 5000]).endswith("(5000 characters)]")
