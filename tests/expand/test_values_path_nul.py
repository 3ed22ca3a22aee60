"""A values file whose path holds a NUL character is the provider's error, not a crash of gpupool."""

from __future__ import annotations

import pulumi
import pytest

from gpu_node_pool.expand.helm_values import ValuesProblem, values_documents
from gpu_node_pool.sdk.record import wire_form


@pytest.mark.parametrize(("token", "field"), [("kubernetes:helm.sh/v4:Chart", "valueYamlFiles"),
                                              ("kubernetes:helm.sh/v3:Release", "valueYamlFiles"),
                                              ("kubernetes:helm.sh/v4:Chart", "values")])
def test_a_nul_in_a_values_file_path_is_refused_naming_the_input(tmp_path, token, field):
    asset = pulumi.FileAsset("a\x00b.yaml")
    inputs = {"valueYamlFiles": [asset]} if field == "valueYamlFiles" else {"values": {"config": asset}}
    got = values_documents(token, inputs, tmp_path, [])
    assert isinstance(got, ValuesProblem)
    assert got.input == ("valueYamlFiles[0]" if field == "valueYamlFiles" else "values.config")
    assert got.refused
    assert "'a\\x00b.yaml'" in got.reason and "NUL character" in got.reason
    assert "pulumi preview" in got.reason


def test_the_wire_form_of_the_asset_is_refused_alike(tmp_path):
    # what `gpupool check`'s child sends: the record's JSON, with the asset in Pulumi's wire form
    inputs = wire_form({"valueYamlFiles": [pulumi.FileAsset("x\x00")]})
    got = values_documents("kubernetes:helm.sh/v4:Chart", inputs, tmp_path, [])
    assert isinstance(got, ValuesProblem) and got.refused and "NUL character" in got.reason
