"""The pack on workloads whose ``metadata.name`` or ``metadata.namespace`` the API server refuses
(``ValidateObjectMeta``: a DaemonSet's name a DNS-1123 subdomain, ``ValidateDaemonSetName``; any namespace a
DNS-1123 label, ``ValidateNamespaceName``): such an object is never stored, so no rule judges it: a "can't run"
note naming the field, the value (escaped), the rule and its source, never a finding that it "will not run on GPU
nodes"."""

from __future__ import annotations

import pytest
from builders import daemonset, deployment, job, node_group

from gpu_node_pool.policies import evaluate
from gpu_node_pool.policies import rules as d

GPU = {"limits": {"nvidia.com/gpu": 1}}
NAMES = [("<script>alert(1)</script>", "'<script>alert(1)</script>'"), ("a\u202eb", r"'a\u202eb'"),
         ("日本語", "'日本語'"), ("x\ny", r"'x\ny'"), ("Upper", "'Upper'"), ("a" * 254, "(254 characters)")]


def _verdicts(policy, *resources):
    found = evaluate([node_group(), *resources], policies=[policy])
    notes = [f["message"] for f in found if "can't run policy" in f["message"]]
    return [f["message"] for f in found if "can't run policy" not in f["message"]], notes


@pytest.mark.parametrize(("name", "shown"), NAMES)
def test_a_daemonset_whose_name_the_api_server_refuses_is_not_judged(name, shown):
    findings, notes = _verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, daemonset(name, "ops"))
    assert findings == []
    assert notes, "a refused object is never a silent pass"
    note = notes[0]
    assert "not judged: metadata.name " in note and shown in note
    assert "is not a DNS-1123 subdomain" in note
    assert "ValidateDaemonSetName = NameIsDNSSubdomain in kubernetes/kubernetes pkg/apis/apps/validation/validation.go" in note
    assert "the API server refuses this object" in note
    said = note.rsplit("not judged: ", 1)[1]  # the subject before it is the Pulumi resource name, the report escapes it
    assert "\x1b" not in said and "\u202e" not in said


def test_a_namespace_the_api_server_refuses_is_not_judged_and_is_shown_escaped():
    findings, notes = _verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, daemonset("agent", "n\x1b[31m"))
    assert findings == []
    note = notes[0]
    assert r"metadata.namespace 'n\x1b[31m' of DaemonSet is not a DNS-1123 label" in note
    assert "ValidateNamespaceName = NameIsDNSLabel" in note and "write 'n-31m'" in note
    assert "\x1b" not in note.rsplit("not judged: ", 1)[1]


def test_a_valid_name_is_still_judged():
    findings, notes = _verdicts(d.daemonsets_tolerate_gpu_taints.POLICY, daemonset("fluent-bit.v2", "logging"))
    assert notes == []
    assert findings and "will not run on GPU nodes" in findings[0]


@pytest.mark.parametrize("resource", [deployment("Web_1", "web", resources=GPU), job("train", "Team.A", resources=GPU)],
                         ids=["deployment-name", "job-namespace"])
def test_other_workloads_with_a_refused_name_are_not_judged(resource):
    findings, notes = _verdicts(d.gpu_workloads_tolerate_their_pool.POLICY, resource)
    assert findings == []
    assert any("not judged: metadata." in n and "the API server refuses this object" in n for n in notes)


def test_check_lists_a_refused_name_as_not_judged_not_as_unknown_at_preview(capsys, tmp_path):
    from programs import daemonset_yaml, team_program, team_project

    from gpu_node_pool.cli.commands import main

    program = team_program('k8s.yaml.v2.ConfigFile("agents", file="ds.yaml")')
    root = team_project(tmp_path / "p", program)
    (root / "ds.yaml").write_text(daemonset_yaml(name="Bad_Name"))
    main(["check", "--stack", "ci", "--project-dir", str(root)])
    out = capsys.readouterr().out
    [line] = [x for x in out.splitlines() if "Bad_Name" in x and x.startswith("  not judged")]
    assert line.startswith("  not judged: ") and "unknown at preview" not in line and "not judged: not judged" not in line
    assert "is not a DNS-1123 subdomain" in line
