"""Stable names: the URNs the prod stack registers are pinned.

Renaming a child resource makes Pulumi delete and recreate it (a node group, with its
nodes). If a rename is intended, keep the old URN with ``aliases`` on the resource and
regenerate the pin in the same change: ``UPDATE_URNS=1 python -m pytest tests/component/test_urns.py``.
"""

from __future__ import annotations

import os

from conftest import DATA, ROOT

from gpu_node_pool.plan import plan_stack

# The URNs are as the Pulumi mock monitor computes them (it keeps the root stack type in the
# parent chain of top-level resources); what matters is that a rename changes them.
PIN = DATA / "prod-urns.txt"


def prod_urns() -> list[str]:
    result = plan_stack("prod", ROOT)
    assert result.exit_code == 0
    return sorted(r.urn for r in result.resources if not getattr(r, "synthesized", False))


def test_prod_urns_are_pinned():
    urns = prod_urns()
    if os.environ.get("UPDATE_URNS"):
        PIN.write_text("\n".join(urns) + "\n")
    pinned = PIN.read_text().split()
    missing = sorted(set(pinned) - set(urns))
    added = sorted(set(urns) - set(pinned))
    assert not missing and not added, (
        f"URNs changed. Gone (Pulumi would delete these): {missing}. New: {added}. "
        "If this rename is intended, add aliases=[pulumi.Alias(...)] for the old name and regenerate the pin."
    )


def test_pinned_urns_name_the_node_groups_the_way_they_were_first_deployed():
    pinned = PIN.read_text().split()
    assert any(u.endswith("aws:eks/nodeGroup:NodeGroup::training-node-group") for u in pinned)
    assert any(u.endswith("aws:eks/nodeGroup:NodeGroup::inference-node-group") for u in pinned)
