"""A NodePool duration given as a number (``expireAfter: 720``, ``consolidateAfter: 600``) is refused with a duration
to write, never "quote it": Karpenter's NodePool CRD patterns need a unit (h, m or s), quoted or not, and no unit is
assumed (aws/karpenter-provider-aws@v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml, the patterns of ``expireAfter``,
``consolidateAfter`` and ``terminationGracePeriod``)."""

from __future__ import annotations

import pytest
from conftest import ROOT
from conftest import plan_stack_text as plan

PROD = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text()


@pytest.mark.parametrize(("written", "as_number", "path"), [
    ("      expireAfter: 720h\n", "      expireAfter: 720\n", "expireAfter"),
    ("      expireAfter: 720h\n", "      expireAfter: '720'\n", "expireAfter"),
    ("        consolidateAfter: 10m\n", "        consolidateAfter: 600\n", "disruption.consolidateAfter"),
    ("      expireAfter: 720h\n", "      expireAfter: 720h\n      terminationGracePeriod: 30\n", "terminationGracePeriod"),
])
def test_a_number_as_a_nodepool_duration_asks_for_its_unit(capsys, temp_project, written, as_number, path):
    assert PROD.count(written) == 1
    code, out = plan(capsys, temp_project, PROD.replace(written, as_number))
    assert code == 2, out
    assert "Pulumi.mine.yaml:" in out and f".{path}:" in out, out
    assert "names no unit (h, m or s), quoted or not, and none is assumed" in out, out
    assert "like 720h, 30m or 1h30m" in out and "karpenter.sh_nodepools.yaml" in out  # the public source
    assert "quote it" not in out and "valid string" not in out, out
