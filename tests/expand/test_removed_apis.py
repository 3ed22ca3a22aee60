"""Every API version the Kubernetes deprecation guide lists as no longer served as of 1.16
(https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16) is refused in a v2 manifest, placed by
document and line, with what to write instead."""

from __future__ import annotations

import pytest

from gpu_node_pool.expand.result import RefusedInput
from gpu_node_pool.expand.yaml_manifests import V2_GROUP, expand_yaml

GUIDE_1_16 = [  # the guide's v1.16 section, kind by kind
    *[(api, "DaemonSet") for api in ("extensions/v1beta1", "apps/v1beta2")],
    *[(api, "Deployment") for api in ("extensions/v1beta1", "apps/v1beta1", "apps/v1beta2")],
    *[(api, "StatefulSet") for api in ("apps/v1beta1", "apps/v1beta2")],
    *[(api, "ReplicaSet") for api in ("extensions/v1beta1", "apps/v1beta1", "apps/v1beta2")],
    ("extensions/v1beta1", "NetworkPolicy"),
    ("extensions/v1beta1", "PodSecurityPolicy"),
]


def refusal(text: str) -> RefusedInput:
    result = expand_yaml(V2_GROUP, "extra", {"yaml": text})
    assert isinstance(result, RefusedInput), result
    return result


@pytest.mark.parametrize(("api", "kind"), GUIDE_1_16, ids=[f"{a}-{k}" for a, k in GUIDE_1_16])
def test_each_api_version_the_guide_says_116_stopped_serving_is_refused_where_it_is_written(api, kind):
    text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\n---\nkind: {kind}\napiVersion: {api}\nmetadata: {{name: b}}\n"
    result = refusal(text)
    assert result.input == "yaml"
    assert result.message.startswith(
        f"yaml document 2 (line 6): apiVersion {api!r} of kind {kind!r} was removed in Kubernetes 1.16 "
        "(https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16)"), result.message
    assert "provider/pkg/kinds/deprecated.go@v4.32.0" in result.message


@pytest.mark.parametrize(("kind", "fix"), [
    ("ReplicaSet", "Write `apiVersion: apps/v1` (an apps/v1 ReplicaSet needs spec.selector matching its pod "
                   "template's labels)"),
    ("NetworkPolicy", "Write `apiVersion: networking.k8s.io/v1`"),
    ("PodSecurityPolicy", "No API version of PodSecurityPolicy is served since Kubernetes 1.25 "
                          "(https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-25): remove the object"),
])
def test_the_fix_names_what_replaces_it(kind, fix):
    result = refusal(f"apiVersion: extensions/v1beta1\nkind: {kind}\nmetadata: {{name: b}}\n")
    assert fix in result.message, result.message


def test_an_object_inside_a_list_is_placed_at_its_list():
    text = ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n"
            "- apiVersion: apps/v1beta1\n  kind: ReplicaSet\n  metadata: {name: b}\n")
    assert refusal(text).message.startswith("yaml document 1 (line 1): apiVersion 'apps/v1beta1' of kind 'ReplicaSet'")
