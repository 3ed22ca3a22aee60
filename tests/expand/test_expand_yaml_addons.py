"""YAML components parsed in-process, EKS add-on DaemonSets from the add-on table, device plugin identity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_node_pool.expand import NotJudged, RefusedInput, is_device_plugin_chart, is_device_plugin_daemonset
from gpu_node_pool.expand.eks_addons import expand_addon, parse_addon_version
from gpu_node_pool.expand.eks_addons_data import ADDONS
from gpu_node_pool.expand.result import Expanded
from gpu_node_pool.expand.yaml_manifests import apply_v1_transformations, decode, expand_yaml
from gpu_node_pool.k8s.taints import Taint, TaintEffect, Toleration, tolerations_tolerate_taint

GPU_TAINT = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)
UNKNOWN = "(known after apply)"

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-agent, namespace: logging}
spec:
  selector: {matchLabels: {app: log-agent}}
  template:
    metadata: {labels: {app: log-agent}}
    spec:
      containers: [{name: agent, image: fluent/fluent-bit:3.0}]
"""
SERVICE = "apiVersion: v1\nkind: Service\nmetadata: {name: log-agent}\n"


def kinds(result) -> list[tuple[str, str]]:
    assert isinstance(result, Expanded), result
    return [(o["kind"], o["metadata"]["name"]) for o in result.objects]


def tolerations_of(ds: dict) -> list[Toleration]:
    return [Toleration.from_k8s(t) for t in ds["spec"]["template"]["spec"].get("tolerations") or []]


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    (tmp_path / "a-ds.yaml").write_text(DAEMONSET + "---\n" + SERVICE + "---\n")
    (tmp_path / "b-list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cm}\n"
    )
    (tmp_path / "notes.txt").write_text("not a manifest")
    return tmp_path


def test_v2_config_group_reads_globs_multi_document_files_lists_inline_yaml_and_objs(manifests):
    inputs = {"files": ["*.yaml"], "yaml": SERVICE.replace("log-agent", "inline"), "objs": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "logging"}}]}
    result = expand_yaml("kubernetes:yaml/v2:ConfigGroup", "logs", inputs, base_dir=manifests)
    assert kinds(result) == [("DaemonSet", "log-agent"), ("Service", "log-agent"), ("ConfigMap", "cm"), ("Service", "inline"), ("Namespace", "logging")]
    assert result.source == "yaml"


def test_v2_config_file_yields_the_untolerated_daemonset(manifests):
    result = expand_yaml("kubernetes:yaml/v2:ConfigFile", "logs", {"file": "a-ds.yaml"}, base_dir=manifests)
    ds = result.objects[0]
    assert ds["kind"] == "DaemonSet" and ds["metadata"] == {"name": "log-agent", "namespace": "logging"}
    assert not tolerations_tolerate_taint(tolerations_of(ds), GPU_TAINT)


def test_v1_config_group_runs_python_transformations(manifests):
    seen_opts = []

    def tolerate_all(obj, opts):
        seen_opts.append(opts)
        if obj["kind"] == "DaemonSet":
            obj["spec"]["template"]["spec"]["tolerations"] = [{"operator": "Exists"}]

    def drop_services(obj):
        if obj["kind"] == "Service":
            obj.clear()
            obj.update({"apiVersion": "v1", "kind": "List", "items": []})

    inputs = {"files": ["a-*.yaml"], "yaml": [SERVICE], "transformations": [tolerate_all, drop_services]}
    result = expand_yaml("kubernetes:yaml:ConfigGroup", "logs", inputs, base_dir=manifests)
    assert kinds(result) == [("DaemonSet", "log-agent")]
    assert tolerations_tolerate_taint(tolerations_of(result.objects[0]), GPU_TAINT)
    assert len(seen_opts) == 3  # once per object: the file's DaemonSet and Service, the inline Service
    assert result.notes == ["2 v1 transformation(s) applied in-process"]


def test_v1_config_file_without_transformations_keeps_the_daemonset_untolerated(manifests):
    result = expand_yaml("kubernetes:yaml:ConfigFile", "logs", {"file": str(manifests / "a-ds.yaml")})
    assert kinds(result)[0] == ("DaemonSet", "log-agent") and not tolerations_of(result.objects[0])


def test_a_transformation_that_raises_is_not_judged(manifests):
    def broken(obj):
        raise KeyError("spec")

    result = expand_yaml("kubernetes:yaml:ConfigGroup", "logs", {"yaml": [DAEMONSET], "transformations": [broken]})
    assert isinstance(result, NotJudged) and "a transformation raised KeyError" in result.reason


@pytest.mark.parametrize(
    ("inputs", "reason"),
    [
        ({"file": "https://example.com/ds.yaml"}, "is a remote URL"),
        ({"files": ["missing-*.yaml"]}, "matches no file"),
        ({"files": [UNKNOWN]}, "files[0] is unknown at preview"),
        ({"yaml": "# nothing yet\n---\n"}, "holds no Kubernetes object"),
    ],
)
def test_what_cannot_be_read_is_not_judged_with_the_reason(manifests, inputs, reason):
    result = expand_yaml("kubernetes:yaml/v2:ConfigGroup", "logs", inputs, resource="urn:logs", base_dir=manifests, unknown_markers=(UNKNOWN,))
    assert isinstance(result, NotJudged), result
    assert reason in result.reason and result.resource == "urn:logs" and result.fix


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"yaml": "kind: [unclosed"}, "yaml: while parsing a flow sequence"),
        ({"yaml": "metadata: {name: x}"}, "yaml: not a Kubernetes object (needs apiVersion and kind)"),
    ],
)
def test_v2_yaml_the_provider_cannot_decode_is_refused_as_a_real_preview_fails(manifests, inputs, message):
    result = expand_yaml("kubernetes:yaml/v2:ConfigGroup", "logs", inputs, resource="urn:logs", base_dir=manifests)
    assert isinstance(result, RefusedInput), result
    assert result.input == "yaml" and result.message.startswith(message)
    assert "so a real `pulumi preview` fails on it" in result.message


def test_decode_answers_the_providers_yaml_decode_invoke():
    assert [o["kind"] for o in decode(DAEMONSET + "---\n---\n" + SERVICE)] == ["DaemonSet", "Service"]


def test_v1_transformation_arity_follows_the_sdk():
    calls = []
    apply_v1_transformations([{"kind": "A", "apiVersion": "v1"}], [lambda o: calls.append(1), lambda o, opts: calls.append(opts)], opts={"x": 1})
    assert calls == [1, {"x": 1}]


# --- EKS managed add-ons --------------------------------------------------------------


def test_node_monitoring_agent_runs_a_dcgm_server_that_tolerates_nothing():
    result = expand_addon("monitoring", {"addonName": "eks-node-monitoring-agent", "addonVersion": "v1.4.0-eksbuild.1"})
    by_name = {o["metadata"]["name"]: o for o in result.objects}
    assert set(by_name) == {"eks-node-monitoring-agent", "dcgm-server"}
    assert tolerations_of(by_name["dcgm-server"]) == []
    assert tolerations_tolerate_taint(tolerations_of(by_name["eks-node-monitoring-agent"]), GPU_TAINT)
    assert any("aws/eks-node-monitoring-agent@51af5494" in n for n in result.notes)


def test_configuration_values_change_the_daemonset():
    config = json.dumps({"dcgmAgent": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}})
    result = expand_addon("monitoring", {"addonName": "eks-node-monitoring-agent", "addonVersion": "v1.4.0-eksbuild.1", "configurationValues": config})
    dcgm = next(o for o in result.objects if o["metadata"]["name"] == "dcgm-server")
    assert tolerations_tolerate_taint(tolerations_of(dcgm), GPU_TAINT)


def test_mountpoint_s3_v1_tolerates_only_critical_addons_and_v2_tolerates_all():
    v1 = expand_addon("s3", {"addonName": "aws-mountpoint-s3-csi-driver", "addonVersion": "v1.15.0-eksbuild.1"}).objects[0]
    v2 = expand_addon("s3", {"addonName": "aws-mountpoint-s3-csi-driver", "addonVersion": "v2.1.0-eksbuild.1"}).objects[0]
    assert not tolerations_tolerate_taint(tolerations_of(v1), GPU_TAINT)
    assert tolerations_tolerate_taint(tolerations_of(v2), GPU_TAINT)
    off = expand_addon("s3", {"addonName": "aws-mountpoint-s3-csi-driver", "addonVersion": "v2.1.0-eksbuild.1",
                              "configurationValues": '{"node": {"tolerateAllTaints": false}}'}).objects[0]
    assert not tolerations_tolerate_taint(tolerations_of(off), GPU_TAINT)


@pytest.mark.parametrize(
    ("inputs", "reason"),
    [
        ({"addonName": "some-marketplace-addon"}, "is not in the EKS add-on table"),
        ({"addonName": "kube-proxy", "addonVersion": "v1.31.2-eksbuild.3"}, "UNCONFIRMED"),
        ({"addonName": "aws-guardduty-agent"}, "UNCONFIRMED"),
        ({"addonName": "eks-node-monitoring-agent", "addonVersion": "v9.0.0-eksbuild.1"}, "not this version"),
        ({"addonName": "aws-mountpoint-s3-csi-driver"}, "without addonVersion"),
        ({"addonName": "aws-mountpoint-s3-csi-driver", "addonVersion": "v1.5.0-eksbuild.1"}, "UNCONFIRMED"),
        ({"addonName": "vpc-cni", "configurationValues": "[1, 2]"}, "not an object"),
        ({"addonName": "vpc-cni", "configurationValues": UNKNOWN}, "unknown at preview"),
    ],
)
def test_what_the_facts_do_not_hold_is_not_judged(inputs, reason):
    result = expand_addon("addon", inputs, resource="urn:addon", unknown_markers=(UNKNOWN,))
    assert isinstance(result, NotJudged), result
    assert reason in result.reason and result.type == "aws:eks/addon:Addon" and result.fix


def test_every_row_names_its_source_and_an_add_on_without_daemonsets_is_judged_empty():
    assert all(a.source for a in ADDONS.values())
    assert expand_addon("dns", {"addonName": "coredns"}).objects == []
    assert parse_addon_version("v1.19.0-eksbuild.1") == (1, 19, 0)


# --- device plugin identity -----------------------------------------------------------


@pytest.mark.parametrize(
    ("chart", "expected"),
    [
        ("nvidia-device-plugin", True),
        ("nvdp/nvidia-device-plugin", True),
        ("oci://ghcr.io/nvidia/nvidia-device-plugin", True),
        ("./charts/nvidia-device-plugin-0.20.0.tgz", True),
        ("aws-for-fluent-bit", False),
        ("gpu-operator", False),
    ],
)
def test_the_device_plugin_chart_is_known_by_its_name(chart, expected):
    assert is_device_plugin_chart("kubernetes:helm.sh/v4:Chart", {"chart": chart}) is expected


def test_a_daemonset_is_the_device_plugin_when_it_runs_nvidias_image():
    def ds(image: str) -> dict:
        return {"kind": "DaemonSet", "spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}

    assert is_device_plugin_daemonset(ds("nvcr.io/nvidia/k8s-device-plugin:v0.20.0"))
    assert is_device_plugin_daemonset(ds("nvcr.io/nvidia/k8s-device-plugin@sha256:" + "0" * 64))
    assert not is_device_plugin_daemonset(ds("nvcr.io/nvidia/k8s-device-plugin-fork:v1"))
    assert not is_device_plugin_daemonset(ds("public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32"))
    assert not is_device_plugin_chart("kubernetes:apps/v1:DaemonSet", {"chart": "nvidia-device-plugin"})
