"""A provider SDK that is an extra, missing: the error says who needs it and which extra installs it."""

from __future__ import annotations

import sys

import pytest

from gpu_node_pool.sdk.provider_sdk import MissingProviderSdk, provider_sdk


@pytest.mark.parametrize(("module", "extras"), [
    ("pulumi_aws", ["'gpu-node-pool[aws]'"]),
    ("pulumi_gcp", ["'gpu-node-pool[gcp]'"]),
    ("pulumi_kubernetes", ["'gpu-node-pool[aws]'", "'gpu-node-pool[gcp]'"]),
])
def test_a_missing_sdk_names_the_extra(monkeypatch, module, extras):
    monkeypatch.setitem(sys.modules, module, None)  # what the import system does for a module not installed
    with pytest.raises(MissingProviderSdk) as err:
        provider_sdk(module, "the eks-managed backend")
    text = str(err.value)
    assert text.startswith("the eks-managed backend needs " + module.replace("_", "-"))
    assert "pip install " + " or ".join(extras) in text and "(or [all])" in text


def test_an_installed_sdk_is_the_module():
    import pulumi_aws

    assert provider_sdk("pulumi_aws", "the eks-managed backend") is pulumi_aws
