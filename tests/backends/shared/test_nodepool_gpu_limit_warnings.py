"""A NodePool ``nvidia.com/gpu`` limit written with a suffix or an exponent (``"16Gi"``: 17179869184 GPUs) or above
int64 is warned about in both backends that write a NodePool, and a limit the exact quantity reader cannot hold
(``1e2000``, an exponent outside int32) is refused."""

from __future__ import annotations

from typing import Any

import pytest
from builders import config_issues
from nodepool_stacks import BACKENDS, CLUSTER, POOLS

from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.config.warnings import stack_warnings


def stack(backend: str, gpus: Any) -> dict[str, Any]:
    return {"cluster": CLUSTER, "pools": [{**POOLS[backend], "limits": {"nvidia.com/gpu": gpus, "memory": "4000Gi"}}]}


def limit_warnings(backend: str, gpus: Any) -> list[str]:
    warnings = stack_warnings(validate_stack_config(stack(backend, gpus)))
    return [w.message for w in warnings if w.path == "pools[0].limits"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("gpus", "expected"), [
    ("16Gi", ["'16Gi' is 17179869184 GPUs", "Gi is a binary (memory) suffix", "e.g. nvidia.com/gpu: 16"]),
    ("2k", ["'2k' is 2000 GPUs", "k is a decimal SI suffix", "nvidia.com/gpu: 2000 says the same"]),
    ("1e3", ["'1e3' is 1000 GPUs", "e3 is an exponent", "nvidia.com/gpu: 1000 says the same"]),
    ("1e400", ["'1e400' is about 10^400 GPUs", "e400 is an exponent", "above int64 (9223372036854775807)",
               "caps nothing"]),
    ("99999999999999999999", ["above int64", "Quantity.Value() overflows"]),
])
def test_a_gpu_limit_with_a_suffix_or_past_int64_is_warned(backend, gpus, expected):
    messages = limit_warnings(backend, gpus)
    assert len(messages) == 1, messages
    for text in expected:
        assert text in messages[0], messages[0]
    assert "pkg/api/resource/quantity.go" in messages[0]  # the public source
    assert "a plain integer" in messages[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("gpus", [32, "32"])
def test_a_plain_gpu_count_and_a_memory_limit_in_gi_are_not_warned(backend, gpus):
    assert limit_warnings(backend, gpus) == []


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("gpus", "expected"), [
    ("1e2000", "'1e2000' is 10^2000 or more; at most 10^1000 is read"),
    ("1e4294967297", "the exponent 4294967297 is outside -2147483648..2147483647"),
])
def test_a_limit_the_quantity_reader_cannot_hold_is_refused(backend, gpus, expected):
    issues = config_issues(stack(backend, gpus))
    assert len(issues) == 1, issues
    path, message = issues[0]
    assert path == "pools[0].limits"
    assert expected in message and "apimachinery resource.Quantity" in message
    assert "write a smaller quantity" in message


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("gpus", "fix", "not_fix"), [
    ("016Gi", "(e.g. nvidia.com/gpu: 16)", "nvidia.com/gpu: 016"),
    ("+16Gi", "(e.g. nvidia.com/gpu: 16)", "nvidia.com/gpu: +16"),
    ("16.Gi", "(e.g. nvidia.com/gpu: 16)", "nvidia.com/gpu: 16."),
    ("1.5Gi", "(e.g. nvidia.com/gpu: 32)", "nvidia.com/gpu: 1.5"),  # a limit of 1.5 GPUs is refused
])
def test_the_fix_is_the_number_as_the_quantity_parser_reads_it_and_a_limit_the_pool_takes(backend, gpus, fix, not_fix):
    """The number before the suffix is read by the quantity parser, as apimachinery reads it: the fix is that number
    as a plain count, never the number's text (a sign, a leading zero, a trailing point) nor a count that is not whole,
    which the limit's own rule refuses."""
    [message] = limit_warnings(backend, gpus)
    assert message.endswith(f"write the number of GPUs the pool may run as a plain integer {fix}"), message
    assert not_fix not in message
    assert "Gi is a binary (memory) suffix" in message
