"""Whether installed (or planned) admission objects still match the pools they were rendered from (pure).

Every rendered object carries the annotation :data:`DERIVED_FROM`: the :class:`~.model.AdmissionModel` it was
rendered from, as JSON. Two checks read it:

* **hand-edited**: the object differs from what :func:`.render.admission_objects` renders from that model
  (its ``spec``, or a binding's actions); someone edited the object after it was rendered;
* **stale**: the model's pools and taints differ from the declared pools (a pool's taint changed, a pool
  added or removed) and the objects were not rendered again.

An object without the annotation, or with one that cannot be read, is reported as not judged, never
passed. Used by the pack rule ``admission-policies-match-pools`` and by ``gpupool audit``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..k8s.taints import Taint, TaintError
from .model import AdmissionModel, PoolFacts

__all__ = ["DERIVED_FROM", "Drift", "annotate", "model_from", "check", "action_of", "is_admission_object"]

#: The annotation that records what an object was rendered from.
DERIVED_FROM = "gpu-node-pools/derived-from"
_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ConstraintTemplate")


def _to_json(model: AdmissionModel) -> str:
    data = asdict(model)
    data["pools"] = [{"name": p.name, "taints": [str(t) for t in p.taints], "labels": dict(p.labels)} for p in model.pools]
    data["extra_taints"] = [str(t) for t in model.extra_taints]
    data.pop("extra", None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def annotate(body: dict[str, Any], model: AdmissionModel) -> dict[str, Any]:
    """``body`` with :data:`DERIVED_FROM` set to ``model`` (in place; returned)."""
    body["metadata"].setdefault("annotations", {})[DERIVED_FROM] = _to_json(model)
    return body


def model_from(body: Mapping[str, Any]) -> AdmissionModel:
    """The model recorded in ``body``'s annotation.

    Raises:
        ValueError: no annotation, or one that is not a model (the message says which).
    """
    text = ((body.get("metadata") or {}).get("annotations") or {}).get(DERIVED_FROM)
    if not isinstance(text, str):
        raise ValueError(f"no {DERIVED_FROM} annotation")
    try:
        data = json.loads(text)
        pools = tuple(PoolFacts(p["name"], tuple(Taint.parse(t) for t in p["taints"]), dict(p["labels"]))
                      for p in data.pop("pools"))
        extra = tuple(Taint.parse(t) for t in data.pop("extra_taints"))
        tuples = {k: tuple(v) for k, v in data.items() if isinstance(v, list)}
        return AdmissionModel(pools=pools, extra_taints=extra, **{**data, **tuples})
    except (ValueError, KeyError, TypeError, TaintError, AttributeError) as err:
        raise ValueError(f"the {DERIVED_FROM} annotation is not a rendered model: {err}") from None


def is_admission_object(body: Mapping[str, Any]) -> bool:
    """A ValidatingAdmissionPolicy, its binding, a ConstraintTemplate or a Constraint."""
    return body.get("kind") in _KINDS or str(body.get("apiVersion", "")).startswith("constraints.gatekeeper.sh/")


def action_of(body: Mapping[str, Any]) -> str | None:
    """A binding's ``validationActions`` (joined) or a Constraint's ``enforcementAction``; None for policies
    and templates."""
    spec = body.get("spec") or {}
    if body.get("kind") == "ValidatingAdmissionPolicyBinding":
        return ", ".join(spec.get("validationActions") or [])
    if str(body.get("apiVersion", "")).startswith("constraints.gatekeeper.sh/"):
        return spec.get("enforcementAction", "deny")
    return None


@dataclass(frozen=True)
class Drift:
    """One finding: ``status`` ``hand-edited`` | ``stale`` | ``not-judged``, the object and why."""

    status: str
    kind: str
    name: str
    message: str


def _no_nulls(value: Any) -> Any:
    """``value`` without null map entries (Pulumi and the API server drop them)."""
    if isinstance(value, Mapping):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def _strip(body: Mapping[str, Any]) -> dict[str, Any]:
    return _no_nulls({"spec": body.get("spec"), "kind": body.get("kind"), "apiVersion": body.get("apiVersion")})


def _pool_taints(pools: Iterable[PoolFacts]) -> dict[str, list[str]]:
    return {p.name: sorted(str(t) for t in p.taints) for p in pools}


def check(objects: Sequence[Mapping[str, Any]], declared: Mapping[str, Sequence[Taint]]) -> list[Drift]:
    """Findings for ``objects`` (plain bodies) against ``declared`` (pool name -> its declared taints)."""
    from .render import admission_objects

    out: list[Drift] = []
    want = {name: sorted(str(t) for t in taints) for name, taints in declared.items()}
    for body in objects:
        kind, name = str(body.get("kind")), str((body.get("metadata") or {}).get("name"))
        try:
            model = model_from(body)
        except ValueError as err:
            out.append(Drift("not-judged", kind, name, f"{kind} {name}: {err}; cannot tell whether it matches the pools"))
            continue
        rendered = {(o.kind, o.name): o.body for o in admission_objects(model)}
        expected = rendered.get((kind, name))
        if expected is None or _strip(expected) != _strip(body):
            out.append(Drift("hand-edited", kind, name, f"{kind} {name} differs from what its own {DERIVED_FROM} "
                             "annotation renders (edited by hand after rendering); render it again "
                             "(gpupool render, or the program) instead of editing it"))
            continue
        have = _pool_taints(model.pools)
        if have != want:
            changes = [f"pool {p}: admission has [{', '.join(have.get(p, []))}], declared [{', '.join(want.get(p, []))}]"
                       for p in sorted({*have, *want}) if have.get(p) != want.get(p)]
            out.append(Drift("stale", kind, name, f"{kind} {name} was rendered from other pools than the declared ones: "
                             + "; ".join(changes) + ". Render and install the admission objects again."))
    return out


def with_engine(model: AdmissionModel, engine: str) -> AdmissionModel:
    """``model`` for another engine."""
    return replace(model, engine=engine)
