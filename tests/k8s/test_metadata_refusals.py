"""``metadata_refusal``: what the API server refuses in an object's ``metadata.name`` (a DNS-1123 subdomain,
``ValidateObjectMeta``) and ``metadata.namespace`` (a DNS-1123 label, ``ValidateNamespaceName``), each message with
the field, the value escaped, the rule, its source and a value to write."""

from __future__ import annotations

import pytest

from gpu_node_pool.k8s.names import DNS1123_LABEL_RE, DNS1123_SUBDOMAIN_RE
from gpu_node_pool.k8s.patterns import full_match
from gpu_node_pool.k8s.refusals import metadata_refusal


@pytest.mark.parametrize("name", ["a", "nvidia-driver-installer", "a.b-c", "0x", "a" * 253])
def test_names_the_api_server_takes(name):
    assert metadata_refusal("DaemonSet", name, "kube-system") is None


@pytest.mark.parametrize(("name", "fix"), [
    ("<script>alert(1)</script>", "script-alert-1-script"), ("a\u202eb", "a-b"), ("日本語", "my-name"),
    ("Upper", "upper"), ("-a", "a"), ("a..b", "a.b"), ("a" * 254, "a" * 253),
])
def test_names_the_api_server_refuses_with_a_valid_fix(name, fix):
    field, why = metadata_refusal("DaemonSet", name, None)
    assert field == "metadata.name"
    assert "is not a DNS-1123 subdomain" in why and "at most 253 characters" in why
    assert f"write {fix!r}" in why and full_match(DNS1123_SUBDOMAIN_RE, fix)
    assert why.endswith("the API server refuses this object")
    assert "\u202e" not in why


@pytest.mark.parametrize("namespace", ["n\x1b[31m", "a.b", "A", "a" * 64, ""])
def test_namespaces_the_api_server_refuses(namespace):
    field, why = metadata_refusal("Pod", "ok", namespace)
    assert field == "metadata.namespace"
    assert "is not a DNS-1123 label" in why and "ValidateNamespaceName = NameIsDNSLabel" in why
    fix = why.split("write '")[1].split("'")[0]
    assert full_match(DNS1123_LABEL_RE, fix)
    assert "\x1b" not in why


def test_absent_values_are_not_judged_and_other_types_are_refused():
    assert metadata_refusal("DaemonSet", None, None) is None
    field, why = metadata_refusal("DaemonSet", 5, None)
    assert field == "metadata.name" and "is 5 (a number), not a string" in why


def test_a_kind_without_its_own_source_names_the_generic_rule():
    _, why = metadata_refusal("Job", "Bad", None)
    assert "NameIsDNSSubdomain or stricter (k8s.io/apimachinery pkg/api/validation/generic.go)" in why
