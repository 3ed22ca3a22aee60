"""The Rego of the Gatekeeper engine: one module per rule, Rego v1 syntax (``if``, ``contains``, ``in``,
``every``), read by Gatekeeper from a ConstraintTemplate's ``code[engine: Rego].source`` with
``version: "v1"`` (opt-in since Gatekeeper 3.19; the legacy ``rego`` field is Rego v0 only:
https://open-policy-agent.github.io/gatekeeper/website/docs/constrainttemplates/#enable-opa-rego-v1-syntax-in-constrainttemplates).

The modules take everything pool-specific from ``input.parameters`` (the Constraint's parameters,
rendered from the pools by :mod:`.gatekeeper`) and the request from ``input.review`` (Gatekeeper's
AdmissionRequest: ``object``, ``oldObject``, ``operation``, ``namespace``, ``userInfo``). They judge
exactly what the ValidatingAdmissionPolicies of :mod:`.vap_pods`, :mod:`.vap_daemonsets` and
:mod:`.vap_nodes` judge, with the same "not judged at admission" outcome; the differential tests hold
both engines to the preview rules. Messages are joined with ``concat``, not ``sprintf``: regopy (rego-cpp
1.5.2) quotes a string that ``sprintf``'s ``%s`` receives from ``concat``, where OPA does not; ``concat``
gives the same text in both. Only built-ins of OPA v1 are used (``object.get``, ``array.concat``,
``regex.match``, ``format_int``, ``to_number``, ``is_number``, ``startswith``, ``count``, ``concat``).
"""

from __future__ import annotations

from .cel import DECIMAL_INTEGER, NOT_ABOVE_ZERO

__all__ = ["TOLERATION_REGO", "REACH_REGO", "DAEMONSET_REGO", "NODE_REGO"]

_POD = r'''
obj := input.review.object

pod_spec := obj.spec if obj.kind == "Pod"

pod_spec := obj.spec.jobTemplate.spec.template.spec if obj.kind == "CronJob"

pod_spec := obj.spec.template.spec if not obj.kind in {"Pod", "CronJob"}

containers := array.concat(array.concat(object.get(pod_spec, "initContainers", []), object.get(pod_spec, "containers", [])), object.get(pod_spec, "ephemeralContainers", []))

tolerations := object.get(pod_spec, "tolerations", [])

node_selector := object.get(pod_spec, "nodeSelector", {})

terms := object.get(pod_spec, ["affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"], [])

workload := concat("", [obj.kind, " ", input.review.namespace, "/", object.get(obj.metadata, "name", object.get(obj.metadata, "generateName", ""))])

tolerates(tol, taint) if {
	object.get(tol, "effect", "") in {"", taint.effect}
	object.get(tol, "key", "") in {"", taint.key}
	value_ok(tol, taint)
}

value_ok(tol, _) if object.get(tol, "operator", "") == "Exists"

value_ok(tol, taint) if {
	object.get(tol, "operator", "") in {"", "Equal"}
	object.get(tol, "value", "") == taint.value
}

value_ok(tol, taint) if {
	tol.operator == "Gt"
	is_number(taint.number)
	regex.match(`__DECIMAL__`, object.get(tol, "value", ""))
	to_number(tol.value) < taint.number
}

value_ok(tol, taint) if {
	tol.operator == "Lt"
	is_number(taint.number)
	regex.match(`__DECIMAL__`, object.get(tol, "value", ""))
	to_number(tol.value) > taint.number
}

# the first toleration that matches the taint is the one Kubernetes applies (policies/workloads.py stay_on)
stays(taint) if {
	some i, tol in tolerations
	tolerates(tol, taint)
	not timed(tol, taint)
	not matched_before(i, taint)
}

matched_before(i, taint) if {
	some j, earlier in tolerations
	j < i
	tolerates(earlier, taint)
}

stays(taint) if {
	taint.extendedResource
	input.parameters.extendedResourceToleration
	some c in containers
	some part in ["requests", "limits"]
	object.get(object.get(c, "resources", {}), part, {})[taint.key]
}

stays(taint) if {
	taint.hostNetwork
	object.get(pod_spec, "hostNetwork", false) == true
}

timed(tol, taint) if {
	taint.evicts
	tol.tolerationSeconds
}

# a quantity as the API server would print it: strings as written, numbers in decimal
quantity_text(q) := q if is_string(q)

quantity_text(q) := format_int(q, 10) if is_number(q)

gpu_resource(r) if r in {"nvidia.com/gpu", "nvidia.com/gpu.shared"}

gpu_resource(r) if startswith(r, "nvidia.com/mig-")

requests_gpu if {
	some c in containers
	some part in ["limits", "requests"]
	some r, q in object.get(object.get(c, "resources", {}), part, {})
	gpu_resource(r)
	not regex.match(`__ZERO__`, quantity_text(q))
}

tolerated(pool) if {
	every taint in pool.taints { stays(taint) }
}

sel_false(labels) if {
	some k, v in node_selector
	have := labels[k]
	have != v
}

sel_false(labels) if {
	count(terms) > 0
	every t in terms { term_false(t, labels) }
}

term_false(t, _) if {
	count(object.get(t, "matchExpressions", [])) == 0
	not t.matchFields
}

term_false(t, labels) if {
	some e in object.get(t, "matchExpressions", [])
	expr_false(e, labels)
}

expr_false(e, labels) if {
	e.operator == "In"
	have := labels[e.key]
	not have in object.get(e, "values", [])
}

expr_false(e, labels) if {
	e.operator == "NotIn"
	have := labels[e.key]
	have in object.get(e, "values", [])
}

expr_false(e, labels) if {
	e.operator == "DoesNotExist"
	_ = labels[e.key]
}

sel_true(labels) if {
	every k, v in node_selector { labels[k] == v }
	terms_true(labels)
}

terms_true(_) if count(terms) == 0

terms_true(labels) if {
	some t in terms
	not t.matchFields
	exprs := object.get(t, "matchExpressions", [])
	count(exprs) > 0
	every e in exprs { expr_true(e, labels) }
}

expr_true(e, labels) if {
	e.operator == "In"
	labels[e.key] in object.get(e, "values", [])
}

expr_true(e, labels) if {
	e.operator == "NotIn"
	have := labels[e.key]
	not have in object.get(e, "values", [])
}

expr_true(e, labels) if {
	e.operator == "Exists"
	_ = labels[e.key]
}
'''.replace("__ZERO__", NOT_ABOVE_ZERO).replace("__DECIMAL__", DECIMAL_INTEGER)

TOLERATION_REGO = "package gpunodepools.tolerationallowlist\n" + _POD + r'''
node_agent if obj.kind == "DaemonSet"

node_agent if {
	obj.kind == "Pod"
	some o in object.get(obj.metadata, "ownerReferences", [])
	o.kind == "DaemonSet"
	input.review.userInfo.username in input.parameters.daemonSetControllerUsers
}

judged if {
	not input.review.namespace in input.parameters.allowedNamespaces
	not node_agent
}

tail := concat("", [", but namespace ", input.review.namespace, " is not allowed to tolerate GPU taints (allowedNamespaces: [", concat(", ", input.parameters.allowedNamespaces), "]). A toleration only permits; remove it, or add the namespace to allowedNamespaces if it runs GPU work or node agents."])

violation contains {"msg": msg} if {
	judged
	some tol in tolerations
	object.get(tol, "key", "") == ""
	object.get(tol, "operator", "") == "Exists"
	msg := concat("", [workload, " carries a catch-all toleration (operator Exists, no key), which tolerates every GPU pool taint", tail])
}

violation contains {"msg": msg} if {
	judged
	not requests_gpu
	some taint in input.parameters.taints
	some tol in tolerations
	tolerates(tol, taint)
	msg := concat("", [workload, " requests no GPU but tolerates the GPU taint ", taint.text, " (", taint.whose, ")", tail])
}
'''

DAEMONSET_REGO = "package gpunodepools.daemonsets\n" + _POD + r'''
violation contains {"msg": msg} if {
	obj.kind == "DaemonSet"
	some pool in input.parameters.pools
	not tolerated(pool)
	not sel_false(pool.labels)
	sel_true(pool.labels)
	msg := concat("", [workload, " will not run on GPU nodes of pool ", pool.name, " and does not keep off them: ", pool.text, " not tolerated. ", input.parameters.fix])
}

violation contains {"msg": msg} if {
	obj.kind == "DaemonSet"
	some pool in input.parameters.pools
	not tolerated(pool)
	not sel_false(pool.labels)
	not sel_true(pool.labels)
	msg := concat("", [workload, " does not tolerate ", pool.text, " of pool ", pool.name, "; whether its node selection keeps it off that pool is not judged at admission (matchFields, Gt/Lt, or label keys the pool does not declare): gpupool plan and audit judge it"])
}
'''

REACH_REGO = "package gpunodepools.reachpool\n" + _POD + r'''
selects if count(node_selector) > 0

selects if count(terms) > 0

any_selected if {
	some pool in input.parameters.pools
	not sel_false(pool.labels)
}

any_surely if {
	some pool in input.parameters.pools
	sel_true(pool.labels)
}

reaches if {
	some pool in input.parameters.pools
	sel_true(pool.labels)
	tolerated(pool)
}

violation contains {"msg": concat("", [workload, input.parameters.selectMessage])} if {
	obj.kind != "DaemonSet"
	requests_gpu
	not selects
}

violation contains {"msg": concat("", [workload, input.parameters.selectMessage])} if {
	obj.kind != "DaemonSet"
	requests_gpu
	selects
	not any_selected
}

violation contains {"msg": concat("", [workload, input.parameters.tolerateMessage])} if {
	obj.kind != "DaemonSet"
	requests_gpu
	any_selected
	any_surely
	not reaches
}

violation contains {"msg": concat("", [workload, input.parameters.notJudgedMessage])} if {
	obj.kind != "DaemonSet"
	requests_gpu
	any_selected
	not any_surely
}
'''

NODE_REGO = r'''package gpunodepools.nodetaints

old := input.review.oldObject

new := input.review.object

old_taints := object.get(old, ["spec", "taints"], [])

new_taints := object.get(new, ["spec", "taints"], [])

user := input.review.userInfo.username

exempt if user == concat("", ["system:node:", old.metadata.name])

exempt if user in input.parameters.users

exempt if {
	some g in object.get(input.review.userInfo, "groups", [])
	g in input.parameters.groups
}

same(t, taint) if {
	t.key == taint.key
	t.effect == taint.effect
	object.get(t, "value", "") == taint.value
}

pool := p if {
	input.review.operation == "UPDATE"
	some p in input.parameters.pools
	p.name == object.get(old, ["metadata", "labels", "gpu-node-pools/pool"], null)
}

has_taint(list, taint) if {
	some t in list
	same(t, taint)
}

violation contains {"msg": msg} if {
	not exempt
	some taint in pool.taints
	has_taint(old_taints, taint)
	not has_taint(new_taints, taint)
	msg := concat("", ["Node ", old.metadata.name, " of pool ", pool.name, ": ", user, " removes or changes the declared taint ", taint.text, ". ", pool.fix])
}

own(t) if {
	some taint in pool.taints
	same(t, taint)
}

on_old(t) if {
	some o in old_taints
	o.key == t.key
	o.effect == t.effect
	object.get(o, "value", "") == object.get(t, "value", "")
}

violation contains {"msg": msg} if {
	not exempt
	some t in new_taints
	t.key in input.parameters.declaredKeys
	not own(t)
	not on_old(t)
	msg := concat("", ["Node ", old.metadata.name, " of pool ", pool.name, ": ", user, " sets a taint with a key another pool declares (", concat(", ", input.parameters.declaredKeys), ") that pool ", pool.name, " does not declare (", pool.text, "). ", pool.fix])
}
'''
