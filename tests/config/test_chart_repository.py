"""A chart repository the agents install from (``devicePlugin``, ``gpuAgents.dcgmExporter``,
``gpuAgents.efaDevicePlugin``) must be an http(s) URL Helm can read an index from: ``ftp://x y`` was rendered
into the plan's ``helm template ... --repo ftp://x y``."""

from __future__ import annotations

import pytest
from builders import config_issues
from conftest import base

from gpu_node_pool.config import validate_stack_config

PLACES = [("devicePlugin", ("devicePlugin",)), ("gpuAgents.dcgmExporter", ("gpuAgents", "dcgmExporter")),
          ("gpuAgents.efaDevicePlugin", ("gpuAgents", "efaDevicePlugin"))]


def with_repository(keys: tuple[str, ...], url: str) -> dict:
    raw = base()
    node = raw
    for key in keys:
        node = node.setdefault(key, {})
    node["repository"] = url
    return raw


@pytest.mark.parametrize(("path", "keys"), PLACES)
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftp://x y", "has whitespace or a control character"),
        ("ftp://charts.example.com", "is not an http(s) URL of a Helm chart repository"),
        ("oci://ghcr.io/nvidia", "an OCI registry (oci://) is not a chart repository Helm's --repo reads"),
        ("https://charts.example.com/?x=1", "is not an http(s) URL"),
        ("charts.example.com", "is not an http(s) URL"),
    ],
)
def test_a_repository_helm_cannot_read_is_refused_at_its_path(path, keys, url, expected):
    issues = config_issues(with_repository(keys, url))
    assert [p for p, _ in issues] == [f"{path}.repository"], issues
    assert expected in issues[0][1] and "index.yaml" in issues[0][1]


@pytest.mark.parametrize(("path", "keys"), PLACES)
def test_a_mirror_is_accepted(path, keys):
    validate_stack_config(with_repository(keys, "https://mirror.example.com/helm/nvidia/"))
