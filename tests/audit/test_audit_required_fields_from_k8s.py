"""The fields the API server requires of a DaemonSet and a Pod, which the audit skips an object without, are the
API server's rules of ``k8s/refusals.py`` (``ValidateDaemonSetSpec``, kubernetes/kubernetes
pkg/apis/apps/validation/validation.go; ``validateContainers``, pkg/apis/core/validation/validation.go): the audit's
message names each rule and its source, and no module of the audit spells those rules itself."""

from __future__ import annotations

from pathlib import Path

import gpu_node_pool.audit as audit_package
from gpu_node_pool.audit.shapes import required_problems
from gpu_node_pool.k8s.refusals import APPS_VALIDATION, CORE_VALIDATION, REQUIRED_FIELDS


def test_a_daemonset_without_selector_or_template_is_told_each_rule_and_source():
    problems = required_problems("DaemonSet", {"metadata": {"name": "x"}, "spec": {}})
    assert problems == [f"{f.path} is absent{'' if f.path == 'spec.selector' else ' (spec.template is absent)'}, "
                        f"where the API server requires {f.requires}" for f in REQUIRED_FIELDS["DaemonSet"]]
    assert "ValidateDaemonSetSpec refuses a DaemonSet whose selector does not match" in problems[0]
    assert problems[0].endswith(f": {APPS_VALIDATION})")
    assert "ValidatePodSpec refuses a pod spec without one" in problems[1] and problems[1].endswith(f": {CORE_VALIDATION})")


def test_a_pod_without_containers_is_told_the_core_rule():
    [problem] = required_problems("Pod", {"spec": {"containers": []}})
    assert problem.startswith("spec.containers is an empty array, where the API server requires at least one container")
    assert problem.endswith(f"in validateContainers: {CORE_VALIDATION})")


def test_no_module_of_the_audit_spells_the_api_servers_required_field_rules():
    spelled = [p.name for p in Path(audit_package.__file__).parent.glob("*.py")
               if any(rule in p.read_text() for rule in ("ValidateDaemonSetSpec", "validateContainers"))]
    assert spelled == []
