"""``parse_quantity`` against the cases of upstream's own parser test.

Source: ``kubernetes/apimachinery`` ``pkg/api/resource/quantity_test.go@v0.34.10``
(``TestQuantityParse``: the table, its negated and ``+``-prefixed runs, and the ``invalid``
list). Upstream writes an expected value as ``decQuantity(mantissa, scale, format)``, i.e.
``mantissa * 10**scale``; transcribed here as the pair.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpu_node_pool.k8s.quantity import MAX_DIGITS, QuantityError, parse_quantity, quantity

MAX_ALLOWED = 2**63 - 1  # upstream's maxAllowed: binary-SI values are capped there

#: (input, mantissa, scale) from TestQuantityParse's table
UPSTREAM = [
    ("0", 0, 0), ("0n", 0, 0), ("0u", 0, 0), ("0m", 0, 0), ("0Ki", 0, 0), ("0k", 0, 0), ("0Mi", 0, 0),
    ("0M", 0, 0), ("0Gi", 0, 0), ("0G", 0, 0), ("0Ti", 0, 0), ("0T", 0, 0),
    ("1", 1, 0),
    ("1Ki", 1024, 0), ("8Ki", 8 * 1024, 0), ("7Mi", 7 * 1024**2, 0), ("6Gi", 6 * 1024**3, 0),
    ("5Ti", 5 * 1024**4, 0), ("4Pi", 4 * 1024**5, 0), ("3Ei", 3 * 1024**6, 0),
    ("10Ti", 10 * 1024**4, 0), ("100Ti", 100 * 1024**4, 0),
    ("5n", 5, -9), ("4u", 4, -6), ("3m", 3, -3), ("9", 9, 0), ("8k", 8, 3), ("50k", 5, 4), ("7M", 7, 6),
    ("6G", 6, 9), ("5T", 5, 12), ("40T", 4, 13), ("300T", 3, 14), ("2P", 2, 15), ("1E", 1, 18),
    ("1E-3", 1, -3), ("1e3", 1, 3), ("1E6", 1, 6), ("1e9", 1, 9), ("1E12", 1, 12), ("1e15", 1, 15),
    ("1E18", 1, 18), ("1e14", 1, 14), ("1e13", 1, 13), ("100.035k", 100035, 0),
    ("0.001", 1, -3), ("0.0005k", 5, -1), ("0.005", 5, -3), ("0.05", 5, -2), ("0.5", 5, -1),
    ("0.00050k", 5, -1), ("0.00500", 5, -3), ("0.05000", 5, -2), ("0.50000", 5, -1), ("0.5e0", 5, -1),
    ("0.5e-1", 5, -2), ("0.5e-2", 5, -3), ("10.035M", 10035, 3),
    ("1.2e3", 12, 2), ("1.3E+6", 13, 5), ("1.40e9", 14, 8), ("1.53E12", 153, 10), ("1.6e15", 16, 14),
    ("1.7E18", 17, 17),
    ("9.01", 901, -2), ("8.1k", 81, 2), ("7.123456M", 7123456, 0), ("6.987654321G", 6987654321, 0),
    ("5.444T", 5444, 9), ("40.1T", 401, 11), ("300.2T", 3002, 11), ("2.5P", 25, 14), ("1.01E", 101, 16),
    # things that saturate/round
    ("3.001n", 4, -9), ("1.1E-9", 2, -9), ("0.0000000001", 1, -9), ("0.0000000005", 1, -9),
    ("0.00000000050", 1, -9), ("0.5e-9", 1, -9), ("0.9n", 1, -9), ("0.00000012345", 124, -9),
    ("0.00000012354", 124, -9), ("9Ei", MAX_ALLOWED, 0), ("9223372036854775807Ki", MAX_ALLOWED, 0),
    ("12E", 12, 18),
    # fractional binary
    ("100.035Ki", 10243584, -2), ("0.5Mi", 512 * 1024, 0), ("0.05Gi", 536870912, -1), ("0.025Ti", 274877906944, -1),
    # "things written by trolls"
    ("0.000000000001Ki", 2, -9), (".001", 1, -3), (".0001k", 100, -3), ("1.", 1, 0), ("1.G", 1, 9),
]  # fmt: skip

#: TestQuantityParse's invalid list (whitespace included), and the empty string
UPSTREAM_INVALID = ["", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "]

#: TestParseQuantityString: a lone '.' (or '-.') is a number, zero
UPSTREAM_ZERO = [".", "-."]


@pytest.mark.parametrize("text, mantissa, scale", UPSTREAM, ids=[c[0] for c in UPSTREAM])
def test_upstream_values_and_their_signed_forms(text, mantissa, scale):
    expected = mantissa * Fraction(10) ** scale
    assert parse_quantity(text) == expected
    assert parse_quantity("+" + text) == expected
    assert parse_quantity("-" + text) == -expected


@pytest.mark.parametrize("text", UPSTREAM_INVALID)
def test_upstream_invalid(text):
    assert parse_quantity(text) is None
    with pytest.raises(ValueError):
        quantity(text)


@pytest.mark.parametrize("text", UPSTREAM_ZERO)
def test_a_lone_point_is_zero(text):
    assert parse_quantity(text) == 0


@pytest.mark.parametrize(
    "text",
    [
        "1\n", "\t1", "1 Gi", "\u0661", "1\u0660", "\uff11", "1e\u0663", "1K", "1e", "1e+", "1Ki5", "1Me3",
        "1e1.5", "0x10", "1_000", "inf", "NaN",
    ],
)  # fmt: skip
def test_whitespace_non_ascii_digits_and_unknown_suffixes_are_refused(text):
    assert parse_quantity(text) is None


def test_exponents_beyond_int32_are_refused_at_once():
    # upstream reads the exponent as an int64 and truncates it to int32 (1e4294967297 would be 10)
    for text in ("1e4294967297", "1e2147483648", "1e-2147483649", "1e99999999999999999999999"):
        with pytest.raises(QuantityError, match="int32"):
            quantity(text)
        assert parse_quantity(text) is None


def test_huge_magnitudes_are_refused_and_tiny_ones_round_up_to_one_nano():
    with pytest.raises(QuantityError, match=f"10\\^{MAX_DIGITS}"):
        quantity("1e10000000")
    with pytest.raises(QuantityError, match="digits"):
        quantity("1" * (MAX_DIGITS + 1))
    with pytest.raises(QuantityError, match="or more"):
        quantity("1e2147483647")  # an int32 exponent, still beyond the magnitude bound
    assert parse_quantity("1e-2147483648") == Fraction(1, 10**9)
    assert parse_quantity("-1e-10000000") == -Fraction(1, 10**9)
    assert parse_quantity("1e" + "0" * 50 + "3") == 1000  # leading zeros in the exponent, as Go's ParseInt


def test_numbers_that_are_not_strings():
    assert parse_quantity(8) == 8 and parse_quantity(0.5) == Fraction(1, 2)
    for value in (True, None, float("inf"), float("nan"), [1], {"a": 1}):
        assert parse_quantity(value) is None
