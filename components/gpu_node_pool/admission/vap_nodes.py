"""``gpu-node-pools-no-imperative-taints`` (preview rule ``no-imperative-taints``, at run time): declared
taints are owned by the pool.

An UPDATE of a Node labelled ``gpu-node-pools/pool=<a declared pool>`` is refused when it

* removes or changes one of that pool's declared taints (present on the old Node exactly as declared,
  missing from the new one with that key, value and effect), or
* sets a taint whose key a declared pool uses but that this pool does not declare (a taint of another
  pool on this pool's node; one already on the old Node is left alone),

unless the requester is exempt: the node's own kubelet (``system:node:<node name>``; NodeRestriction keeps
a kubelet to its own Node), and ``admission.exempt`` (:mod:`gpu_node_pool.config.admission` lists the
platform identities exempt by default and their sources). Taints with other keys
(``node.kubernetes.io/*``, ``ToBeDeletedByClusterAutoscaler``, ``karpenter.sh/disrupted``, startup
taints) are never judged.
"""

from __future__ import annotations

from typing import Any

from ..config.defaults import PROJECT
from ..k8s.taints import Taint
from ..k8s.wellknown import POOL_LABEL_KEY
from . import cel
from .model import AdmissionModel
from .objects import policy, resource_rules

__all__ = ["NODE_POLICY", "node_taints_policy"]

NODE_POLICY = f"{PROJECT}-no-imperative-taints"


def _same(taint: Taint) -> str:
    return (f"t.key == {cel.lit(taint.key)} && t.effect == {cel.lit(taint.effect.value)} && "
            f"{cel.opt('t', 'value')} == {cel.lit(taint.value or '')}")


def _fix(pool: str) -> str:
    return ("Nodes that an autoscaler creates later come up with the declared taints only; change taints in the "
            f"pool definition (gpu-node-pools:pools, pool {pool}, taints), or exempt the requester in "
            "gpu-node-pools:admission.exempt.")


def node_taints_policy(model: AdmissionModel) -> dict[str, Any]:
    """The policy (module docstring); one validation per declared taint and one per pool for foreign keys."""
    judged = [p for p in model.pools if p.taints]
    label = f"oldObject.metadata.labels[{cel.lit(POOL_LABEL_KEY)}]"
    users, groups = list(model.users), list(model.groups)
    conditions = [
        {"name": "declared-pool-node", "expression": f"has(oldObject.metadata.labels) && {cel.lit(POOL_LABEL_KEY)} in "
                                                     f"oldObject.metadata.labels && {label} in {cel.list_lit(p.name for p in judged)}"},
        {"name": "not-exempt", "expression": (
            "request.userInfo.username != 'system:node:' + oldObject.metadata.name"
            + (f" && !(request.userInfo.username in {cel.list_lit(users)})" if users else "")
            + (f" && !(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in {cel.list_lit(groups)}))"
               if groups else "")
        )},
    ]
    variables = [
        {"name": "pool", "expression": label},
        {"name": "oldTaints", "expression": "has(oldObject.spec.taints) ? oldObject.spec.taints : []"},
        {"name": "newTaints", "expression": "has(object.spec.taints) ? object.spec.taints : []"},
    ]
    who = "'Node ' + oldObject.metadata.name + {} + request.userInfo.username + {}"
    keys = model.declared_keys()
    validations = []
    for pool in judged:
        for taint in pool.taints:
            validations.append({
                "expression": f"variables.pool != {cel.lit(pool.name)} || !variables.oldTaints.exists(t, {_same(taint)}) || "
                              f"variables.newTaints.exists(t, {_same(taint)})",
                "messageExpression": who.format(cel.lit(f" of pool {pool.name}: "), cel.lit(
                    f" removes or changes the declared taint {taint}. {_fix(pool.name)}")),
                "reason": "Forbidden",
            })
        own = " || ".join(f"({_same(t)})" for t in pool.taints)
        foreign = (f"t.key in {cel.list_lit(keys)} && !({own}) && "
                   "!variables.oldTaints.exists(o, o.key == t.key && o.effect == t.effect && "
                   "(has(o.value) ? o.value : '') == (has(t.value) ? t.value : ''))")
        validations.append({
            "expression": f"variables.pool != {cel.lit(pool.name)} || !variables.newTaints.exists(t, {foreign})",
            "messageExpression": who.format(cel.lit(f" of pool {pool.name}: "), cel.lit(
                f" sets a taint with a key another pool declares ({', '.join(keys)}) that pool {pool.name} does not "
                f"declare ({', '.join(map(str, pool.taints))}). {_fix(pool.name)}")),
            "reason": "Forbidden",
        })
    return policy(NODE_POLICY, resource_rules((("", "v1", "nodes"),), ["UPDATE"]), match_conditions=conditions,
                  variables=variables, validations=validations)
