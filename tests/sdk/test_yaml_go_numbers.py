"""Manifests are read as Go's YAML readers read them (gopkg.in/yaml ``resolve.go``, which sigs.k8s.io/yaml and Helm
use): a plain exponent such as ``1e+26``, which Helm writes for a values number of 1e21 or more, is a number, not the
string PyYAML's YAML 1.1 resolver makes of it; quoted text and every other scalar are read as YAML 1.1 reads them."""

from __future__ import annotations

import pytest
import yaml

from gpu_node_pool.sdk.yaml_bounded import load_all_bounded, load_bounded


@pytest.mark.parametrize(("text", "value", "pyyaml_alone"), [
    ("1e+26", 1e26, "1e+26"), ("5e3", 5000.0, "5e3"), ("-2E-3", -0.002, "-2E-3"), (".5e1", 5.0, ".5e1"),
    ("1.0e+3", 1000.0, 1000.0), ("1.5e3", 1500.0, "1.5e3"), ("1_0e3", 10000.0, "1_0e3")])
def test_a_plain_exponent_is_a_number_as_go_reads_it(text, value, pyyaml_alone):
    # YAML 1.1's float needs a dot and a signed exponent, so PyYAML alone reads only ``1.0e+3`` as a number
    assert yaml.safe_load(f"v: {text}")["v"] == pyyaml_alone
    assert load_bounded(f"v: {text}") == {"v": value}
    assert list(load_all_bounded(f"a: &x {text}\nb: *x\n")) == [{"a": value, "b": value}]


@pytest.mark.parametrize(("text", "value"), [
    ('"1e3"', "1e3"), ("1e", "1e"), ("1e3.5", "1e3.5"), ("1.2.3", "1.2.3"), ("12", 12), ("0x1F", 31), ("-3", -3),
    ("1.5", 1.5), ("abc", "abc"), ("1e400", "1e400"), ("._5", "._5")])
def test_everything_else_reads_as_yaml_1_1_reads_it(text, value):
    assert load_bounded(f"v: {text}") == {"v": value} == yaml.safe_load(f"v: {text}")
