"""``cluster.apiServerEndpoint`` and ``cluster.certificateAuthority`` as self-managed nodes are given them:
a value a bootstrap could not use is a config error at its path (it was an internal error, exit 70, in
plan and render, and accepted by validate)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from builders import config_issues
from conftest import ROOT, base

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import validate_stack_config

PEM = b"-----BEGIN CERTIFICATE-----\nMIIBdummyCAfortests\n-----END CERTIFICATE-----\n"
ONPREM = (ROOT / "stacks" / "Pulumi.onprem.yaml").read_text()
ENDPOINT = "apiServerEndpoint: https://10.20.0.10:6443"


def cluster(**over) -> dict:
    """A valid one-pool stack whose cluster carries the given self-managed fields."""
    raw = base()
    raw["cluster"].update({"apiServerEndpoint": "https://10.0.0.10:6443",
                           "certificateAuthority": base64.b64encode(PEM).decode(), **over})
    return raw


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://10.0.0.10:6443\ninjected: true", "has whitespace or a control character"),
        ("https://10.0.0.10:6443 ", "has whitespace or a control character"),
        ("https://10.0.0.10:99999", "has a port that is not a number in 1-65535"),
        ("https://10.0.0.10:64x3", "has a port that is not a number in 1-65535"),
        ("https://10.0.0.10:0", "has port 0"),
        ("https://admin@10.0.0.10", "no path, query or user"),
        ("https://10.0.0.10/api", "no path, query or user"),
        ("https://10.0.0.10#x", "no path, query or user"),
        ("http://10.0.0.10", "must be an https URL"),
    ],
)
def test_an_endpoint_a_node_could_not_use_is_refused_at_its_path(url, expected):
    issues = config_issues(cluster(apiServerEndpoint=url))
    assert [path for path, _ in issues] == ["cluster.apiServerEndpoint"], issues
    assert expected in issues[0][1] and "https://10.0.0.10:6443" in issues[0][1]


@pytest.mark.parametrize("url", ["https://10.0.0.10:6443", "https://10.0.0.10", "https://[fd00::10]:6443",
                                 "https://ABCD.gr7.us-east-1.eks.amazonaws.com", "https://api.example.com/"])
def test_endpoints_of_real_clusters_are_accepted(url):
    assert validate_stack_config(cluster(apiServerEndpoint=url)).cluster.api_server_endpoint == url


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (PEM.decode(), "is the PEM text itself"),
        ("not base64!!", "is not base64"),
        (base64.b64encode(b"hello").decode(), "is base64, but of no PEM certificate"),
    ],
)
def test_each_certificate_authority_mistake_says_what_it_is(data, expected):
    issues = config_issues(cluster(certificateAuthority=data))
    assert issues[0][0] == "cluster.certificateAuthority" and expected in issues[0][1], issues
    assert "base64 -w0 ca.crt" in issues[0][1]


@pytest.mark.parametrize("command", ["plan", "render"])
def test_a_bad_endpoint_is_exit_2_in_plan_and_render_not_an_internal_error(capsys, temp_project, tmp_path, command):
    project: Path = temp_project("onprem", ONPREM.replace(ENDPOINT, "apiServerEndpoint: https://10.20.0.10:99999"))
    argv = [command, "--stack", "onprem", "--project-dir", str(project)]
    argv += ["--out", str(tmp_path / "out")] if command == "render" else []
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "cluster.apiServerEndpoint: 'https://10.20.0.10:99999' has a port that is not a number" in err
    assert "internal error" not in err
