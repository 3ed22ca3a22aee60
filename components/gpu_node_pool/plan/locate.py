"""Where ``gpupool check``'s findings and not-judged items are: the program line that constructed each resource.

A stack policy that cannot decide some resources at preview raises one ``UnknownValueError`` naming them all
(:meth:`gpu_node_pool.sdk.props.Undecided.raise_if_any`: ``"<what>: <why>; <what>: <why>"``, each ``what`` naming
the resource as ``<type token> <name>``, as a workload ``<Kind> <namespace>/<name>``, or inside a pool's display),
and the runner turns it into one stack-level "can't run policy ... during preview" finding
(:mod:`gpu_node_pool.policies.runner`). :func:`split_by_resource` gives each resource named there its own finding
and its own not-judged item, so that :func:`locate_in_program` can place each at the program line that
constructed that resource (or its nearest ancestor the program constructed): ``location`` =
``{"file": <relative to the project directory>, "line", "column"}``, the shape of the plan's stack-file places.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["CANT_RUN", "duplicates_of_not_judged", "locate_in_program", "not_judged_lines", "split_by_resource"]

#: The start of the runner's finding for a policy that could not run at preview (``{}``: the policy's name).
CANT_RUN = "can't run policy '{}' during preview: "
#: The rule that reports what was not judged (:mod:`gpu_node_pool.policies.rules.resources_judged`).
RESOURCES_JUDGED = "resources-judged"


def _aliases(resources: list[Any]) -> dict[str, Any]:
    """``{text: record}``: each way a policy's ``what`` names a recorded resource: ``<type token> <name>`` and, for a
    Kubernetes object, ``<Kind> <namespace>/<name>`` (:attr:`gpu_node_pool.policies.workloads.Workload.display`,
    namespace ``default`` when unset)."""
    out: dict[str, Any] = {}
    for r in resources:
        if not r.urn:
            continue
        out.setdefault(f"{r.type} {r.name}", r)
        if r.type.startswith("kubernetes:"):
            meta = r.inputs.get("metadata") if isinstance(r.inputs, dict) else None
            meta = meta if isinstance(meta, dict) else {}
            name, namespace = meta.get("name") or r.name, meta.get("namespace") or "default"
            if isinstance(name, str) and isinstance(namespace, str):
                out.setdefault(f"{r.type.rsplit(':', 1)[-1]} {namespace}/{name}", r)
    return out


def _subject(what: str, aliases: dict[str, Any]) -> Any:
    """The record ``what`` is about: the alias that occurs first in it as a whole word (the subject of
    ``DaemonSet a/b on GPU pool ... (eks-managed: <type> <name>)``; the longest of those at one place), or None."""
    best: tuple[int, int, Any] | None = None
    for text, record in aliases.items():
        at = what.find(text)
        while at >= 0:
            end = at + len(text)
            if (at == 0 or what[at - 1] in " (") and (end == len(what) or what[end] in " :)"):
                if best is None or (at, -len(text)) < (best[0], best[1]):
                    best = (at, -len(text), record)
                break
            at = what.find(text, at + 1)
    return best[2] if best is not None else None


def _parts(body: str, aliases: dict[str, Any]) -> list[tuple[Any, str]]:
    """``body`` (``"<what>: <why>; <what>: <why>"``) cut into ``(record or None, "<what>: <why>")`` parts: a cut at
    each ``"; "`` whose following ``<what>`` names a recorded resource; text after a ``"; "`` that names none stays
    with the part before it (a reason may hold ``"; "`` itself)."""
    parts: list[tuple[Any, str]] = []
    for piece in body.split("; "):
        what = piece.split(": ", 1)[0]
        record = _subject(what, aliases) if ": " in piece else None
        if record is None and parts:
            parts[-1] = (parts[-1][0], f"{parts[-1][1]}; {piece}")
        else:
            parts.append((record, piece))
    return parts


def split_by_resource(result: Any) -> None:
    """Give each resource a stack-level "can't run policy" finding of ``result`` names its own finding (``resource``
    its ``<type token> <name>``, ``urn`` its URN, the message the policy's words about it) and its own not-judged
    item (``resource`` its URN, ``type`` its type token, the same fix), in place of the one stack-level finding
    and item; what names no recorded resource stays one stack-level finding and item. ``result``: a
    :class:`~gpu_node_pool.plan.check.CheckResult` after :func:`gpu_node_pool.plan.expand.finish_plan`."""
    aliases = _aliases(result.resources)
    stack_items = {item["reason"]: item for item in result.not_judged if item.get("type") == "stack"}
    violations: list[dict[str, Any]] = []
    items: dict[str, list[dict[str, str]]] = {}
    for v in result.violations:
        head = CANT_RUN.format(v["policy"])
        item = stack_items.get(v["message"])
        if v.get("resource") not in ("stack", "", None) or item is None or not v["message"].startswith(head):
            violations.append(v)
            continue
        grouped: dict[str, tuple[Any, list[str]]] = {}
        for record, text in _parts(v["message"][len(head):], aliases):
            key = record.urn if record is not None else ""
            grouped.setdefault(key, (record, []))[1].append(text)
        if set(grouped) == {""}:
            violations.append(v)
            continue
        items[v["message"]] = []
        for record, texts in grouped.values():
            message = head + "; ".join(texts)
            if record is None:
                violations.append({**v, "message": message})
                items[v["message"]].append({**item, "reason": message})
                continue
            violations.append({**v, "resource": f"{record.type} {record.name}", "urn": record.urn, "message": message})
            items[v["message"]].append({**item, "resource": record.urn, "type": record.type, "reason": message})
    result.violations = violations
    result.not_judged = [split for item in result.not_judged
                         for split in (items.get(item["reason"], [item]) if item.get("type") == "stack" else [item])]


def _site(urn: str, by_urn: dict[str, Any]) -> Any:
    """The record of ``urn``, or of its nearest ancestor the program constructed (one with a ``source``)."""
    resource, seen = by_urn.get(urn), set()
    while resource is not None and not resource.source and resource.parent and resource.urn not in seen:
        seen.add(resource.urn)
        resource = by_urn.get(resource.parent)
    return resource if resource is not None and resource.source else None


def _place(source: tuple[str, int, int], project: Path) -> dict[str, Any]:
    file, line, column = source
    try:
        shown = Path(file).resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        shown = str(file)
    return {"file": shown, "line": int(line), "column": int(column)}


def locate_in_program(result: Any, project: Path) -> None:
    """Give each finding without a place (``violations[].location``) and each not-judged item about a resource
    (``notJudged[].location``) the program line that constructed its resource, or for a child of a chart or
    component, the nearest ancestor the program constructed. Stack-level ones keep none."""
    by_urn = {r.urn: r for r in result.resources if r.urn}
    for violation in result.violations:
        site = _site(str(violation.get("urn") or ""), by_urn)
        if not violation.get("location") and site is not None:
            violation["location"] = _place(site.source, project)
    for item in result.not_judged:
        site = _site(str(item.get("resource") or ""), by_urn)
        if not item.get("location") and site is not None:
            item["location"] = _place(site.source, project)


def duplicates_of_not_judged(violations: list[dict[str, Any]], not_judged: list[dict[str, Any]]) -> set[int]:
    """The positions in ``violations`` of the findings that repeat a not-judged item: a "can't run policy" finding
    whose message is an item's reason, and a ``resources-judged`` finding ``not judged: <reason>. Fix: <fix>``."""
    repeated = {item["reason"] for item in not_judged}
    repeated |= {f"not judged: {item['reason']}. Fix: {item['fix']}" for item in not_judged}
    return {i for i, v in enumerate(violations)
            if v["message"] in repeated and (v["policy"] == RESOURCES_JUDGED or v["message"].startswith(
                CANT_RUN.format(v["policy"])))}


def _by_place(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``items`` in the order of their ``location`` (file, line, column), those without one last; items at one place,
    and those without one, keep their order."""
    def key(item: dict[str, Any]) -> tuple[int, str, int, int]:
        where = item.get("location")
        return (0, str(where["file"]), int(where["line"]), int(where["column"])) if where else (1, "", 0, 0)
    return sorted(items, key=key)


def _count(items: list[dict[str, Any]]) -> str:
    """What the "not judged" section lists: ``<n> resource(s)`` when each resource has one item, else ``<n> item(s)
    on <m> resource(s)`` (a resource two policies could not judge has two items), then ``and <k> stack-wide
    item(s)`` when there are any (``<k> stack-wide item(s)`` alone when no item is about a resource)."""
    stack = sum(1 for item in items if item.get("type") == "stack")
    on_resources = len(items) - stack
    resources = len({item["resource"] for item in items if item.get("type") != "stack"})
    counted = [f"{resources} resource(s)" if on_resources == resources
               else f"{on_resources} item(s) on {resources} resource(s)"] if on_resources else []
    counted += [f"{stack} stack-wide item(s)"] if stack else []
    return " and ".join(counted)


def not_judged_lines(result: Any) -> list[str]:
    """The plan's and check's text report's "not judged" section (empty when everything was judged): a count line
    (:func:`_count`), then per item, in the order of their places (file, line, column; items without a place last,
    in the report's order) ``  <file>:<line>:<column>: <type token> <name>: <reason>`` (the place when it has one;
    the name left out when the reason gives it; a stack-wide item reads ``  stack: <reason>``) and
    ``    fix: <fix>``. The JSON ``notJudged`` list keeps the report's order."""
    items = getattr(result, "not_judged", None) or []
    if not items:
        return []
    names = {r.urn: f"{r.type} {r.name}" for r in result.resources if r.urn}
    lines = ["", f"not judged: {_count(items)} no policy could judge, each with why:"]
    for item in _by_place(items):
        where = item.get("location")
        at = f"{where['file']}:{where['line']}:{where['column']}: " if where else ""
        if item.get("type") == "stack":
            what = "stack: "
        else:
            what = names.get(item["resource"]) or f"{item['resource']} ({item['type']})"
            what = "" if what in item["reason"] else f"{what}: "  # a policy's reason names its resource already
        lines.append(f"  {at}{what}{item['reason']}")
        lines.append(f"    fix: {item['fix']}")
    return lines
