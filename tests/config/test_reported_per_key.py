"""Problems found key by key (labels, a kubelet config) are one error per key, at the key's own line, so the count in
the header is the number of keys to fix and each line points where the fix goes."""

from __future__ import annotations

from conftest import ROOT, plan_stack_text

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
TEAM = "        example.com/team: ml-platform\n"
RESERVED = ("topology.kubernetes.io/zone: us-west-2a", "eks.amazonaws.com/capacityType: SPOT",
            "topology.kubernetes.io/region: us-west-2")


def test_three_reserved_labels_are_three_errors_each_at_its_key(capsys, temp_project):
    assert TEAM in DEV
    text = DEV.replace(TEAM, TEAM + "".join(f"        {label}\n" for label in RESERVED))
    code, out = plan_stack_text(capsys, temp_project, text)
    assert code == 2
    assert "3 errors in Pulumi.mine.yaml" in out
    lines = text.splitlines()
    for label in RESERVED:
        key = label.split(":")[0]
        line = next(i for i, row in enumerate(lines, 1) if row.strip().startswith(key + ":"))
        assert f"Pulumi.mine.yaml:{line}:9: pools[0].labels['{key}']: label '{key}'" in out, out
