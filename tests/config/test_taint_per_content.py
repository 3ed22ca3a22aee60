"""A pool's taints are built once per key, value and effect: each config still gets its own taint."""

from __future__ import annotations

import pytest

from gpu_node_pool.config.common import TaintConfig, _split_taint_string
from gpu_node_pool.k8s.taints import Taint, TaintEffect


def test_each_content_its_own_taint() -> None:
    configs = [
        TaintConfig.model_validate(_split_taint_string(text))
        for text in ("a=x:NoSchedule", "a=y:NoSchedule", "a=x:NoExecute", "b=x:NoSchedule", "a:NoSchedule",
                     "a=x:NoSchedule", "a=y:NoSchedule")
    ]
    taints = [c.to_taint() for c in configs]
    assert taints == [
        Taint("a", "x", TaintEffect.NO_SCHEDULE), Taint("a", "y", TaintEffect.NO_SCHEDULE),
        Taint("a", "x", TaintEffect.NO_EXECUTE), Taint("b", "x", TaintEffect.NO_SCHEDULE),
        Taint("a", "", TaintEffect.NO_SCHEDULE), Taint("a", "x", TaintEffect.NO_SCHEDULE),
        Taint("a", "y", TaintEffect.NO_SCHEDULE),
    ]
    assert [str(t) for t in taints] == ["a=x:NoSchedule", "a=y:NoSchedule", "a=x:NoExecute", "b=x:NoSchedule",
                                        "a:NoSchedule", "a=x:NoSchedule", "a=y:NoSchedule"]


def test_an_invalid_taint_is_refused_every_time() -> None:
    """A taint built around validation (model_construct) is still checked on each call, not remembered."""
    bad = TaintConfig.model_construct(key="not a key", value="", effect="NoSchedule")
    for _ in range(2):
        with pytest.raises(ValueError, match="not a key"):
            bad.to_taint()
