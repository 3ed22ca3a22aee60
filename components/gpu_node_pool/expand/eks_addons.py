"""Synthesize the DaemonSets an ``aws.eks.Addon`` runs, from the add-on table in :mod:`.eks_addons_data`.

EKS does not publish rendered add-on manifests, so the DaemonSets are built from that table
(each row read from the component's public chart or manifest, cited in the row): each add-on's
DaemonSets with default tolerations and node selection, changed by the ``configurationValues`` the resource sets
(Helm semantics: a given list or affinity replaces the default; nodeSelector entries add to
the hard-coded ones; ``tolerateAllTaints: true`` tolerates everything).

An add-on the table does not know, a version outside the ranges the table holds for, a row
marked UNCONFIRMED, configurationValues that are not a JSON/YAML object, or inputs unknown at
preview give :class:`NotJudged` with the reason. ``addonVersion`` absent (EKS picks its
default at create time) is judged only when every known version range gives the same
DaemonSets.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from ..sdk.yaml_bounded import load_bounded
from .result import SECRET_FIX, Expanded, NotJudged, unknown_input

if TYPE_CHECKING:
    from .eks_addons_data import AddonFacts, DaemonSetFacts, Era
# The add-on table (.eks_addons_data: ~2 ms of dataclasses and rows) is imported by the functions that
# read it, on the first add-on expanded, not by every import of the plan and the policies (CLI start-up time).

__all__ = ["ADDON_TYPE", "expand_addon", "synthesize_daemonset", "parse_addon_version"]

ADDON_TYPE = "aws:eks/addon:Addon"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)")
_MARK = "gpu-node-pools/synthesized-from"


def parse_addon_version(version: str) -> tuple[int, int, int] | None:
    """``"v1.19.0-eksbuild.1"`` -> ``(1, 19, 0)``; None when it does not start with ``[v]X.Y.Z``."""
    m = _VERSION.match(version.strip())
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def _in(era: Era, version: tuple[int, int, int]) -> bool:
    return (era.low is None or version >= era.low) and (era.high is None or version <= era.high)


def _get(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def synthesize_daemonset(facts: DaemonSetFacts, config: Mapping[str, Any], addon: str) -> dict[str, Any]:
    """The DaemonSet object (camelCase) for one table row with ``config`` (parsed configurationValues) applied.

    Only the fields policies judge: ``metadata`` (name, namespace, an annotation naming the
    table module) and ``spec.template.spec`` ``tolerations``, ``nodeSelector``, ``affinity``.
    """
    from .eks_addons_data import EXISTS, TABLE

    tolerations = list(facts.tolerations)
    user_tolerations = _get(config, facts.tolerations_key) if facts.tolerations_key else None
    if isinstance(user_tolerations, list):
        tolerations = copy.deepcopy(user_tolerations)
    tolerate_all = facts.tolerate_all_default
    if facts.tolerate_all_key and isinstance(_get(config, facts.tolerate_all_key), bool):
        tolerate_all = _get(config, facts.tolerate_all_key)
    if tolerate_all:
        extra = copy.deepcopy(user_tolerations) if facts.tolerations_added_when_all and isinstance(user_tolerations, list) else []
        tolerations = [dict(EXISTS)] + extra
    else:
        tolerations += [dict(t) for t in facts.always_tolerations]
    node_selector = dict(facts.node_selector)
    user_selector = _get(config, facts.node_selector_key) if facts.node_selector_key else None
    if isinstance(user_selector, Mapping):
        node_selector.update(user_selector)
    affinity = copy.deepcopy(facts.affinity)
    user_affinity = _get(config, facts.affinity_key) if facts.affinity_key else None
    if isinstance(user_affinity, Mapping):
        affinity = copy.deepcopy(dict(user_affinity))
    pod: dict[str, Any] = {"containers": [{"name": facts.name}]}
    if tolerations:
        pod["tolerations"] = tolerations
    if node_selector:
        pod["nodeSelector"] = node_selector
    if affinity:
        pod["affinity"] = affinity
    labels = {"app.kubernetes.io/name": facts.name}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {
            "name": facts.name,
            "namespace": facts.namespace,
            "labels": dict(labels),
            "annotations": {_MARK: f"EKS add-on {addon}, {TABLE}"},
        },
        "spec": {"selector": {"matchLabels": dict(labels)}, "template": {"metadata": {"labels": dict(labels)}, "spec": pod}},
    }


def expand_addon(
    name: str, inputs: Mapping[str, Any], *, resource: str = "", unknown_markers: Sequence[Any] = ()
) -> Expanded | NotJudged:
    """The DaemonSets an ``aws:eks/addon:Addon`` runs, or why they are not judged.

    Args:
        name: the resource name (the report's ``resource`` when ``resource`` is empty).
        inputs: the registered inputs (camelCase): ``addonName``, optional ``addonVersion``
            (``v1.19.0-eksbuild.1``), optional ``configurationValues`` (a JSON string; EKS
            also accepts YAML, so YAML is read too).
        resource: the URN for the report.
        unknown_markers: values meaning "unknown at preview".

    Returns:
        :class:`Expanded` (``source`` ``"facts"``; ``notes`` carry the row's warnings and
        source) whose objects may be empty (an add-on with no DaemonSet), or :class:`NotJudged`.
    """
    from .eks_addons_data import ADDONS, BUILD_MAPPING_NOTE, TABLE

    who = resource or name

    def not_judged(reason: str, fix: str) -> NotJudged:
        return NotJudged(who, ADDON_TYPE, reason, fix)

    unknown = unknown_input(dict(inputs), tuple(unknown_markers))
    if unknown is not None:
        path, words = unknown
        return not_judged(f"input {path} {words}",
                          SECRET_FIX if "secret" in words else "give addonName, addonVersion and configurationValues as plain values")
    addon = inputs.get("addonName")
    facts: AddonFacts | None = ADDONS.get(addon) if isinstance(addon, str) else None
    if facts is None:
        return not_judged(
            f"EKS add-on {addon!r} is not in the EKS add-on table ({TABLE}), so its DaemonSets are unknown",
            "after install, read its DaemonSets' tolerations (kubectl get ds -n <ns> -o yaml) and judge them on the "
            "cluster with gpupool audit",
        )
    if facts.unconfirmed:
        return not_judged(facts.unconfirmed, "after install, read the add-on's DaemonSet tolerations (kubectl get ds -n <ns> -o yaml) and judge them on the "
                          "cluster with gpupool audit")
    config_text = inputs.get("configurationValues")
    config: Any = {}
    if config_text:
        try:
            config = load_bounded(str(config_text)) if not isinstance(config_text, Mapping) else config_text
        except yaml.YAMLError as e:
            first = str(e).splitlines()[0] if str(e) else "not JSON or YAML"
            return not_judged(f"configurationValues is not JSON/YAML: {first}", "give configurationValues as a JSON object string (json.dumps)")
        if not isinstance(config, Mapping):
            return not_judged(f"configurationValues is {json.dumps(config)[:60]}, not an object", "give configurationValues as a JSON object")
    version_text = inputs.get("addonVersion")
    if version_text:
        version = parse_addon_version(str(version_text))
        if version is None:
            return not_judged(f"addonVersion {version_text!r} is not vX.Y.Z[-eksbuild.N]", "give the version as aws eks describe-addon-versions lists it")
        eras = [e for e in facts.eras if _in(e, version)]
        if not eras:
            return not_judged(
                f"{addon} {version_text}: the add-on table holds for {facts.holds_for}, not this version",
                f"pin a version the table holds ({facts.holds_for}), or after install judge this version's DaemonSets "
                "on the cluster with gpupool audit",
            )
    else:
        eras = list(facts.eras)
        built = {json.dumps([synthesize_daemonset(d, config, addon) for d in e.daemonsets], sort_keys=True) for e in eras}
        if any(e.unconfirmed for e in eras) or len(built) > 1:
            return not_judged(
                f"{addon} without addonVersion: EKS picks the default version at create time, and its DaemonSets differ by version ({facts.holds_for})",
                "pin addonVersion",
            )
    era = eras[0]
    if era.unconfirmed:
        return not_judged(f"{addon} {version_text}: {era.unconfirmed}", "pin a version the add-on table holds for, or confirm this one's DaemonSets")
    objects = [synthesize_daemonset(d, config, addon) for d in era.daemonsets]
    notes = [n for d in era.daemonsets for n in d.notes] + list(facts.notes)
    if era.daemonsets:
        notes.append(BUILD_MAPPING_NOTE)
    notes.append(f"source: {facts.source}")
    return Expanded(who, ADDON_TYPE, objects, "facts", notes)
