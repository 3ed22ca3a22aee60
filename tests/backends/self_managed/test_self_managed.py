"""The self-managed backend: kubelet registration in five bootstrap formats, its EC2 wiring, the plan and the CLI.

Golden files under ``tests/golden/self-managed/`` pin every format; regenerate them with
``UPDATE_GOLDEN=1 python -m pytest tests/backends/self_managed/test_self_managed.py`` and review the diff.
"""

from __future__ import annotations

import base64
import copy
import gzip
import os
import re
import shutil
import string

import pytest
import yaml
from builders import config_error_text
from conftest import ROOT  # noqa: E402
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gpu_node_pool.backends._shared import cluster_autoscaler as ca
from gpu_node_pool.backends._shared import user_data
from gpu_node_pool.backends._shared.registration import ClusterInfo, Registration
from gpu_node_pool.backends.self_managed import bootstrap, render
from gpu_node_pool.backends.self_managed.config import SelfManagedPool
from gpu_node_pool.cli.commands import main as cli_main
from gpu_node_pool.config import validate_stack_config
from gpu_node_pool.gpu_agents.device_plugin import values as dp
from gpu_node_pool.k8s.labels import node_restriction_problem
from gpu_node_pool.k8s.taints import Taint, TaintEffect, TaintError
from gpu_node_pool.plan import FAKE_AMI_ID, plan_stack, record, render_text

GOLDEN = ROOT / "tests" / "golden" / "self-managed"
PEM = b"-----BEGIN CERTIFICATE-----\nMIIBdummyCAfortests\n-----END CERTIFICATE-----\n"
CA_DATA = base64.b64encode(PEM).decode()
CA_HASH = "sha256:" + "0123456789abcdef" * 4
CA = "k8s.io/cluster-autoscaler/node-template/"

# One spec for the golden files: several effects for one key, an empty value, dotted values.
SPEC = Registration(
    (
        Taint.parse("nvidia.com/gpu=present:NoSchedule"),
        Taint.parse("example.com/dedicated=training.v2:NoSchedule"),
        Taint.parse("example.com/dedicated=training.v2:NoExecute"),
        Taint.parse("example.com/maintenance:PreferNoSchedule"),
    ),
    {
        "nvidia.com/gpu.present": "true",
        "gpu-node-pools/pool": "batch",
        "example.com/team": "ml-platform",
        "example.com/empty": "",
        "node.kubernetes.io/gpu-tier": "h100-80gb",
    },
)
CLUSTER = ClusterInfo(
    name="ml-prod",
    api_server_endpoint="https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com",
    certificate_authority=CA_DATA,
    service_cidr="10.100.0.0/16",
    ca_cert_hashes=(CA_HASH,),
)


def cluster_cfg(**over) -> dict:
    cfg = {
        "name": "ml-prod",
        "kubernetesVersion": "1.33",
        "nodeRoleArn": "arn:aws:iam::444455556666:role/ml-prod-gpu-node",
        "subnetIds": ["subnet-07a1c2e3f4a5b6c7d", "subnet-0b8c9d0e1f2a3b4c5"],
        "apiServerEndpoint": CLUSTER.api_server_endpoint,
        "certificateAuthority": CA_DATA,
        "serviceCidr": "10.100.0.0/16",
        "caCertHashes": [CA_HASH],
    }
    cfg.update(over)
    return {k: v for k, v in cfg.items() if v is not None}


def pool_cfg(**over) -> dict:
    cfg = {
        "name": "batch",
        "backend": "self-managed",
        "format": "al2023",
        "instanceTypes": ["g6e.12xlarge"],
        "scaling": {"minSize": 0, "maxSize": 6},
        "securityGroupIds": ["sg-0a1b2c3d4e5f60718"],
        "taints": ["nvidia.com/gpu=present:NoSchedule", "workload=batch:NoSchedule"],
        "labels": {"workload": "batch", "example.com/team": "research"},
    }
    cfg.update(over)
    return {k: v for k, v in cfg.items() if v is not None}


def metal_cfg(**over) -> dict:
    """A bare-metal (provider none) pool: no EC2 keys."""
    cfg = {"format": "kubeadm", "provider": "none", "instanceTypes": None, "scaling": None, "securityGroupIds": None}
    return pool_cfg(**(cfg | over))


def stack(*pools: dict, **cluster) -> dict:
    return {"cluster": cluster_cfg(**cluster), "pools": list(pools) or [pool_cfg()]}


# --- golden files -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(bootstrap.FORMATS))
def test_each_format_renders_exactly_its_golden_files(fmt):
    files = bootstrap.render_bootstrap(fmt, SPEC, CLUSTER)
    for name, text in files.items():
        path = GOLDEN / f"{fmt}.{name}"
        if os.environ.get("UPDATE_GOLDEN"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        assert path.read_text() == text, f"{path.name} changed; rerun with UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize("fmt", list(bootstrap.FORMATS))
def test_each_golden_file_reads_back_to_the_spec(fmt):
    for path in sorted(GOLDEN.glob(f"{fmt}.*")):
        reg = user_data.read_registration(path.read_text())
        assert reg.taints == SPEC.taints, path.name
        if path.name != "kubelet.90-gpu-node-pools.conf":  # a KubeletConfiguration has no labels field
            assert reg.labels == SPEC.labels, path.name


def test_golden_user_data_is_in_the_shape_each_image_reads():
    mime = (GOLDEN / "al2023.user-data.mime").read_text()
    assert 'Content-Type: multipart/mixed; boundary="==GPU-NODE-POOLS=="' in mime
    assert "Content-Type: application/node.eks.aws" in mime
    node_config = yaml.safe_load(mime.split("application/node.eks.aws\nMIME-Version: 1.0\n\n", 1)[1].split("--==")[0])
    assert node_config["apiVersion"] == "node.eks.aws/v1alpha1" and node_config["kind"] == "NodeConfig"
    assert node_config["spec"]["cluster"] == {
        "name": "ml-prod",
        "apiServerEndpoint": CLUSTER.api_server_endpoint,
        "certificateAuthority": CA_DATA,
        "cidr": "10.100.0.0/16",
    }
    assert node_config["spec"]["kubelet"]["flags"] == [
        "--node-labels=example.com/empty=,example.com/team=ml-platform,gpu-node-pools/pool=batch,"
        "node.kubernetes.io/gpu-tier=h100-80gb,nvidia.com/gpu.present=true"
    ]
    toml = (GOLDEN / "bottlerocket.user-data.toml").read_text()
    assert 'cluster-dns-ip = "10.100.0.10"' in toml
    assert '"example.com/dedicated" = [\n    "training.v2:NoExecute",\n    "training.v2:NoSchedule",\n]' in toml
    assert '"example.com/maintenance" = [\n    ":PreferNoSchedule",\n]' in toml
    sh = (GOLDEN / "al2.user-data.sh").read_text()
    assert sh.startswith("#!/bin/bash\n") and "/etc/eks/bootstrap.sh ml-prod" in sh
    assert "--kubelet-extra-args '--register-with-taints=example.com/dedicated=training.v2:NoExecute," in sh
    join = yaml.safe_load((GOLDEN / "kubeadm.join-configuration.yaml").read_text())
    assert join["apiVersion"] == "kubeadm.k8s.io/v1beta4" and join["kind"] == "JoinConfiguration"
    assert join["discovery"]["bootstrapToken"] == {
        "apiServerEndpoint": "3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com:443",
        "token": "${KUBEADM_JOIN_TOKEN}",
        "caCertHashes": [CA_HASH],
    }
    assert join["nodeRegistration"]["kubeletExtraArgs"][0]["name"] == "node-labels"
    config = yaml.safe_load((GOLDEN / "kubelet.90-gpu-node-pools.conf").read_text())
    assert config["kind"] == "KubeletConfiguration"
    assert {"key": "example.com/maintenance", "effect": "PreferNoSchedule"} in config["registerWithTaints"]


# --- read(render(x)) == x, for every format ---------------------------------------------

_LOWER = string.ascii_lowercase + string.digits
_ALNUM = string.ascii_letters + string.digits


def _framed(ends: str, middle: str, size: int) -> st.SearchStrategy[str]:
    """Strings that start and end with a character of ``ends``, with ``middle`` characters inside."""
    edge = st.sampled_from(ends)
    return st.one_of(edge, st.tuples(edge, st.text(alphabet=middle, max_size=size), edge).map("".join))


_dns_label = _framed(_LOWER, _LOWER + "-", 8)
_prefix = st.lists(_dns_label, min_size=1, max_size=3).map(".".join)
_name = _framed(_ALNUM, _ALNUM + "-_.", 14)
_qualified = st.one_of(_name, st.tuples(_prefix, _name).map("/".join))
# values with dots and dashes, and empty ones
_value = st.one_of(st.just(""), _name)
_effect = st.sampled_from(list(TaintEffect))


@st.composite
def registrations(draw, one_effect_per_key: bool = False) -> Registration:
    keys = draw(st.lists(_qualified, min_size=0, max_size=4, unique=True))
    taints = []
    for key in keys:
        effects = draw(st.lists(_effect, min_size=1, max_size=1 if one_effect_per_key else 3, unique=True))
        taints += [Taint(key, draw(_value), effect) for effect in effects]  # several effects for one key
    label_keys = draw(
        st.lists(
            st.one_of(_qualified, _name.map(lambda n: f"node.kubernetes.io/{n}")).filter(
                lambda k: node_restriction_problem(k) is None
            ),
            max_size=5,
            unique=True,
        )
    )
    return Registration(tuple(taints), {k: draw(_value) for k in label_keys})


@settings(max_examples=60)
@given(reg=registrations())
@example(reg=SPEC)
@example(reg=Registration())
def test_every_format_reads_back_what_it_rendered(reg):
    for fmt in bootstrap.FORMATS:
        for name, text in bootstrap.render_bootstrap(fmt, reg, CLUSTER).items():
            got = user_data.read_registration(text)
            if name == "90-gpu-node-pools.conf":
                assert got.taints == reg.taints
                continue
            assert got == reg, (fmt, name, text)
            assert user_data.read_registration(base64.b64encode(text.encode()).decode()) == reg


@settings(max_examples=60)
@given(reg=registrations(one_effect_per_key=True))
def test_cluster_autoscaler_tags_read_back_as_the_registration(reg):
    taints, labels = ca.read_ca_node_template_tags(ca.ca_node_template_tags(list(reg.taints), reg.labels))
    assert Registration(tuple(taints), labels) == reg


def test_registration_refuses_one_taint_twice():
    with pytest.raises(TaintError, match="appears twice"):
        Registration(("a=b:NoSchedule", "a=c:NoSchedule"))


def test_renderers_refuse_labels_the_kubelet_may_not_set():
    reg = Registration((), {"node-role.kubernetes.io/gpu": "true"})
    for fmt in bootstrap.FORMATS:
        with pytest.raises(ValueError, match="NodeRestriction"):
            bootstrap.render_bootstrap(fmt, reg, CLUSTER)


# --- the readers on user data they did not write ----------------------------------------


def test_later_nodeconfig_part_wins_and_flags_append_as_nodeadm_merges_them():
    text = (
        'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n'
        "--B\nContent-Type: application/node.eks.aws\n\n"
        "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n"
        "      registerWithTaints: [{key: a, value: one, effect: NoSchedule}]\n    flags: [--node-labels=x=1]\n"
        "--B\nContent-Type: application/node.eks.aws\n\n"
        "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n"
        "      registerWithTaints: [{key: b, effect: NoExecute}]\n    flags: [--node-labels=y=2]\n"
        "--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hello\n--B--\n"
    )
    assert user_data.detect_format(text) == "al2023"
    assert user_data.read_registration(text) == Registration(("b:NoExecute",), {"x": "1", "y": "2"})


def test_a_register_with_taints_flag_overrides_the_config_file_as_in_the_kubelet():
    # eksctl writes taints as a flag inside NodeConfig; the kubelet lets flags win over config
    text = (
        "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n"
        "    config: {registerWithTaints: [{key: a, value: v, effect: NoSchedule}]}\n"
        "    flags: ['--register-with-taints=special=true:NoSchedule']\n"
    )
    assert user_data.read_registration_taints(text) == [Taint.parse("special=true:NoSchedule")]


def test_kubeadm_v1beta3_map_form_of_kubelet_extra_args_is_read_too():
    text = (
        "apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\nnodeRegistration:\n"
        "  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n"
        "  kubeletExtraArgs: {node-labels: 'a=b,c='}\n"
    )
    assert user_data.read_registration(text) == Registration(("nvidia.com/gpu=present:NoSchedule",), {"a": "b", "c": ""})


ONPREM_130 = """\
config:
  gpu-node-pools:cluster:
    name: onprem-gpu
    kubernetesVersion: "{version}"
    apiServerEndpoint: https://10.20.0.10:6443
    caCertHashes: [sha256:8f3c1b6e2d4a5f7089b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d]
  gpu-node-pools:pools:
    - {{name: dgx, backend: self-managed, format: kubeadm, provider: none,
       taints: [nvidia.com/gpu=present:NoSchedule], labels: {{example.com/rack: r12}}}}
"""


_LABELS = "example.com/rack=r12,gpu-node-pools/pool=dgx,nvidia.com/gpu.present=true"


@pytest.mark.parametrize(("version", "api", "extra_args"), [
    # kubeadm reads v1beta4 from v1.31 only (kubernetes.io kubeadm-config.v1beta4, changes "v1.31"); before, v1beta3
    # (kubernetes cmd/kubeadm/app/apis/kubeadm/v1beta3/types.go), whose kubeletExtraArgs is a map, not a list
    ("1.30", "kubeadm.k8s.io/v1beta3", {"node-labels": _LABELS}),
    ("1.22", "kubeadm.k8s.io/v1beta3", {"node-labels": _LABELS}),
    ("1.31", "kubeadm.k8s.io/v1beta4", [{"name": "node-labels", "value": _LABELS}]),
])
def test_the_join_configuration_is_in_the_kubeadm_api_of_the_clusters_version(temp_project, tmp_path, capsys,
                                                                             version, api, extra_args):
    project = temp_project("onprem", ONPREM_130.format(version=version))
    out = tmp_path / "out"
    assert cli_main(["render", "--stack", "onprem", "--out", str(out), "--project-dir", str(project)]) == 0
    text = (out / "bootstrap" / "dgx" / "join-configuration.yaml").read_text()
    join = yaml.safe_load(text)
    assert join["apiVersion"] == api and join["kind"] == "JoinConfiguration"
    assert join["nodeRegistration"]["kubeletExtraArgs"] == extra_args
    assert join["nodeRegistration"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert join["discovery"]["bootstrapToken"]["apiServerEndpoint"] == "10.20.0.10:6443"
    # read back as the policies read it, whichever API it is in
    assert user_data.read_registration(text).labels["example.com/rack"] == "r12"
    # the plan's snippet spells the form that was rendered
    capsys.readouterr()
    assert cli_main(["plan", "--stack", "onprem", "--project-dir", str(project)]) == 0
    shown = "{node-labels: " if api.endswith("v1beta3") else "[{name: node-labels, value: "
    assert f"nodeRegistration.kubeletExtraArgs: {shown}" in capsys.readouterr().out


def test_a_kubeadm_pool_on_a_cluster_older_than_any_kubeadm_api_it_renders_is_refused(temp_project, capsys):
    # v1beta3, the oldest API rendered, exists from kubeadm v1.22 (v1beta3 doc.go: "kubeadm v1.22.x and newer")
    project = temp_project("old", ONPREM_130.format(version="1.21"))
    assert cli_main(["plan", "--stack", "old", "--project-dir", str(project)]) == 2
    err = capsys.readouterr().err
    assert "cluster.kubernetesVersion" in err and "'1.21'" in err and "v1beta3" in err and "1.22" in err
    assert "pools[0]" in err and "kubeadm" in err


def test_gzip_and_base64_user_data_is_opened():
    text = bootstrap.render_bootstrap("bottlerocket", SPEC, CLUSTER)["user-data.toml"]
    packed = base64.b64encode(gzip.compress(text.encode())).decode()
    assert user_data.read_registration(packed) == SPEC
    assert user_data.detect_format(packed) == "bottlerocket"


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("#!/bin/bash\nexec kubelet --register-with-taints=a=b:NoSchedule\n", "kubelet"),
        ("#!/bin/bash\nkubeadm join --config /etc/kubernetes/join.yaml\n", "kubeadm"),
        ("#!/bin/bash\necho hello\n", "shell"),
        ('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: text/x-shellscript\n\n'
         "#!/bin/bash\necho hi\n--B\nContent-Type: application/node.eks.aws\n\n"
         "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n--B--\n", "al2023"),
        ("hello: world\n", None),
    ],
)
def test_detect_format_names_the_bootstrap_not_the_first_script_part(text, fmt):
    assert user_data.detect_format(text) == fmt


def test_user_data_without_registration_reads_as_nothing():
    for text in (None, "", "#!/bin/bash\necho hi\n", "just words", base64.b64encode(b"#!/bin/sh\ntrue\n").decode()):
        assert user_data.read_registration(text) == Registration()


def test_the_eks_effect_spelling_in_user_data_is_an_error_not_a_silent_miss():
    with pytest.raises(TaintError, match="EKS/GKE API spelling"):
        user_data.read_registration_taints("--register-with-taints=nvidia.com/gpu=present:NO_SCHEDULE")
    with pytest.raises(TaintError):
        user_data.read_registration_taints('[settings.kubernetes.node-taints]\n"a" = "b:NO_SCHEDULE"\n')


def test_repeated_flags_follow_the_kubelet_last_taints_flag_wins_and_labels_merge():
    text = "kubelet --register-with-taints=a=1:NoSchedule --node-labels=x=1 --register-with-taints b:NoExecute --node-labels y=2"
    assert user_data.read_registration(text) == Registration(("b:NoExecute",), {"x": "1", "y": "2"})


# --- config -----------------------------------------------------------------------------


def test_a_valid_al2023_pool_on_aws_and_kubeadm_pool_on_bare_metal():
    s = validate_stack_config(stack(pool_cfg(), metal_cfg(name="dgx")))
    aws_pool, metal = s.pools
    assert isinstance(aws_pool, SelfManagedPool) and aws_pool.gpus == 4 and aws_pool.arch == "x86_64"
    assert metal.provider == "none" and metal.uses_nvidia_device_plugin


@pytest.mark.parametrize(
    ("pool", "cluster", "expected"),
    [
        (pool_cfg(labels={"node-role.kubernetes.io/gpu": "true"}), {}, "NodeRestriction"),
        (pool_cfg(labels={"node-restriction.kubernetes.io/pool": "a"}), {}, "reserves for administrators"),
        (pool_cfg(gpuLabel={"key": "kubernetes.io/gpu", "value": "true"}), {}, "gpuLabel: label 'kubernetes.io/gpu'"),
        (pool_cfg(format="kubeadm"), {}, "set provider: none"),
        (pool_cfg(format="al2"), {}, "format 'al2' needs amiId"),
        (pool_cfg(provider="none"), {}, "instanceTypes, scaling, securityGroupIds: provider none creates no cloud"),
        (pool_cfg(securityGroupIds=None), {}, "securityGroupIds: required with provider aws"),
        (pool_cfg(instanceTypes=None), {}, "instanceTypes: required with provider aws"),
        (pool_cfg(instanceTypes=["inf2.xlarge"]), {}, "AWS Inferentia2 chips, not NVIDIA GPUs"),
        (pool_cfg(instanceTypes=["g6e.2xlarge", "g6e.12xlarge"]), {}, "different GPU counts"),
        (pool_cfg(instanceTypes=["g6e.2xlarge", "g5g.xlarge"]), {}, "mix architectures"),
        (pool_cfg(instanceTypes=["p6e-gb200.36xlarge"]), {}, "not in the instance catalog"),
        (pool_cfg(taints=["a=b:NoSchedule", "a=b:NoExecute"]), {}, "carry several effects"),
        (pool_cfg(), {"serviceCidr": None}, "cluster.serviceCidr: missing; needed by pools[0] (al2023: nodeadm"),
        (pool_cfg(format="bottlerocket"), {"apiServerEndpoint": None}, "cluster.apiServerEndpoint: missing"),
        (pool_cfg(), {"kubernetesVersion": None}, "cluster.kubernetesVersion: missing; pools[0] resolves"),
        (pool_cfg(), {"nodeRoleArn": None}, "pools[0].instanceProfileArn: missing"),
        (pool_cfg(), {"subnetIds": None}, "pools[0].subnetIds: missing"),
        (pool_cfg(), {"certificateAuthority": PEM.decode()}, "base64 encoding of the PEM CA bundle"),
        (pool_cfg(), {"serviceCidr": "10.100.0.0/33"}, "is not a CIDR"),
        (pool_cfg(), {"apiServerEndpoint": "http://10.0.0.1"}, "must be an https URL"),
        (metal_cfg(), {"caCertHashes": None}, "cluster.caCertHashes: missing"),
    ],
)
def test_config_mistakes_are_refused_with_the_reason(pool, cluster, expected):
    assert expected in config_error_text(stack(pool, **cluster))


def test_multi_effect_keys_are_fine_on_bare_metal():
    p = metal_cfg(format="kubelet", taints=["a=b:NoSchedule", "a=b:NoExecute"])
    assert validate_stack_config(stack(p)).pools[0].taint_list == [Taint.parse("a=b:NoSchedule"),
                                                                   Taint.parse("a=b:NoExecute")]


def test_ssm_parameters_name_the_nvidia_ami_of_each_os_version_and_arch():
    assert render.ami_ssm_parameter("al2023", "1.33", "x86_64") == (
        "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id"
    )
    assert render.ami_ssm_parameter("bottlerocket", "1.34", "arm64") == (
        "/aws/service/bottlerocket/aws-k8s-1.34-nvidia/arm64/latest/image_id"
    )
    with pytest.raises(ValueError, match="set amiId"):
        render.ami_ssm_parameter("al2", "1.32", "x86_64")


# --- the device plugin ------------------------------------------------------------------


def _affinity_matches(affinity: dict, labels: dict) -> bool:
    terms = affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    return any(all(labels.get(e["key"]) in e["values"] for e in t["matchExpressions"]) for t in terms)


def test_nvidia_plugin_affinity_selects_exactly_the_pools_without_their_own_plugin():
    eks_pool = {"name": "train", "backend": "eks-managed", "instanceTypes": ["p5.48xlarge"],
                "scaling": {"minSize": 0, "maxSize": 2}}
    s = validate_stack_config(stack(
        pool_cfg(),
        pool_cfg(name="rocket", format="bottlerocket"),
        metal_cfg(name="metal"),
        eks_pool,
    ))
    needs = {p.name: p.uses_nvidia_device_plugin for p in s.pools}
    assert needs == {"batch": True, "rocket": False, "metal": True, "train": True}
    values = dp.chart_values(s.pools, s.device_plugin)
    for pool in s.pools:
        assert _affinity_matches(values["affinity"], pool.node_labels) is needs[pool.name], pool.name


# --- EC2 wiring under Pulumi mocks ------------------------------------------------------


def _record(cfg: dict) -> tuple[dict, dict]:
    from gpu_node_pool.component.program import build

    resources, outputs = record(lambda: build(validate_stack_config(cfg)))
    return {(r.type, r.name): r.inputs for r in resources}, outputs


def test_launch_template_carries_the_bootstrap_imdsv2_and_the_ssm_ami():
    res, outputs = _record(stack())
    lt = res[("aws:ec2/launchTemplate:LaunchTemplate", "batch-launch-template")]
    assert lt["metadataOptions"] == {"httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1}
    assert lt["imageId"] == FAKE_AMI_ID
    assert lt["instanceType"] == "g6e.12xlarge"
    text = base64.b64decode(lt["userData"]).decode()
    assert user_data.detect_format(text) == "al2023"
    assert user_data.read_registration(text) == Registration(
        ("nvidia.com/gpu=present:NoSchedule", "workload=batch:NoSchedule"),
        {"example.com/team": "research", "gpu-node-pools/pool": "batch", "nvidia.com/gpu.present": "true",
         "workload": "batch"},
    )
    assert ("aws:iam/instanceProfile:InstanceProfile", "batch-instance-profile") in res
    assert res[("aws:iam/instanceProfile:InstanceProfile", "batch-instance-profile")]["role"] == "ml-prod-gpu-node"
    assert outputs["batch.bootstrapFormat"] == "al2023"


def test_the_asg_cluster_autoscaler_tags_equal_the_kubelet_taints_and_labels():
    res, _ = _record(stack())
    lt = res[("aws:ec2/launchTemplate:LaunchTemplate", "batch-launch-template")]
    asg = res[("aws:autoscaling/group:Group", "batch-asg")]
    tags = {t["key"]: t for t in asg["tags"]}
    ca_tags = {k: t["value"] for k, t in tags.items() if k.startswith("k8s.io/cluster-autoscaler/")}
    ca_taints, ca_labels = ca.read_ca_node_template_tags(ca_tags)
    assert Registration(tuple(ca_taints), ca_labels) == user_data.read_registration(lt["userData"])
    assert ca_tags["k8s.io/cluster-autoscaler/enabled"] == "true" and "k8s.io/cluster-autoscaler/ml-prod" in ca_tags
    assert ca_tags[CA + "resources/nvidia.com/gpu"] == "4"
    assert all(t["propagateAtLaunch"] is False for k, t in tags.items() if k.startswith("k8s.io/"))
    assert tags["kubernetes.io/cluster/ml-prod"] == {"key": "kubernetes.io/cluster/ml-prod", "value": "owned",
                                                     "propagateAtLaunch": True}
    assert (asg["minSize"], asg["maxSize"], asg["desiredCapacity"]) == (0, 6, 0)
    assert asg["vpcZoneIdentifiers"] == ["subnet-07a1c2e3f4a5b6c7d", "subnet-0b8c9d0e1f2a3b4c5"]


def test_several_instance_types_go_to_a_mixed_instances_policy():
    res, _ = _record(stack(pool_cfg(instanceTypes=["g6e.12xlarge", "g6e.24xlarge"], amiId="ami-0abcdef1234567890",
                                    instanceProfileArn="arn:aws:iam::444455556666:instance-profile/gpu")))
    lt = res[("aws:ec2/launchTemplate:LaunchTemplate", "batch-launch-template")]
    asg = res[("aws:autoscaling/group:Group", "batch-asg")]
    assert lt["instanceType"] == "g6e.12xlarge" and lt["imageId"] == "ami-0abcdef1234567890"
    assert lt["iamInstanceProfile"] == {"arn": "arn:aws:iam::444455556666:instance-profile/gpu"}
    overrides = asg["mixedInstancesPolicy"]["launchTemplate"]["overrides"]
    assert [o["instanceType"] for o in overrides] == ["g6e.12xlarge", "g6e.24xlarge"]
    assert not any(t == "aws:iam/instanceProfile:InstanceProfile" for t, _ in res)


def test_bare_metal_pools_create_no_cloud_resource_and_export_their_bootstrap():
    cfg = stack(metal_cfg(name="dgx"))
    res, outputs = _record(cfg)
    assert not [t for t, _ in res if t.startswith("aws:")]
    files = outputs["dgx.bootstrap"]
    assert list(files) == ["join-configuration.yaml"]
    assert user_data.read_registration_taints(files["join-configuration.yaml"]) == [
        Taint.parse("nvidia.com/gpu=present:NoSchedule"), Taint.parse("workload=batch:NoSchedule")
    ]


# --- stacks, plan and CLI ---------------------------------------------------------------


@pytest.mark.parametrize(("stack_name", "pool", "fmt"), [("prod", "batch", "al2023"), ("onprem", "dgx", "kubeadm")])
def test_the_plan_shows_registration_taints_per_format_and_matching_ca_tags(stack_name, pool, fmt):
    result = plan_stack(stack_name, ROOT)
    assert result.exit_code == 0, render_text(result)
    entry = next(p for p in result.pools if p["name"] == pool)
    assert entry["registration"]["format"] == fmt
    assert "nvidia.com/gpu=present:NoSchedule" in entry["taints"]
    text = render_text(result)
    assert f"registration    {fmt}: taints in" in text
    if stack_name == "prod":
        assert entry["scaleFromZeroMatches"] is True
        assert "match the kubelet registration's taints and labels" in text
        assert "spec.kubelet.config.registerWithTaints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}" in text


def test_node_role_label_on_a_self_managed_pool_exits_2_naming_noderestriction(tmp_path, capsys):
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", tmp_path / "__main__.py")
    (tmp_path / "stacks").mkdir()
    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.onprem.yaml").read_text())
    pools = copy.deepcopy(doc["config"]["gpu-node-pools:pools"])
    pools[0]["labels"]["node-role.kubernetes.io/gpu"] = "true"
    doc["config"]["gpu-node-pools:pools"] = pools
    (tmp_path / "stacks" / "Pulumi.bad.yaml").write_text(yaml.safe_dump(doc))
    code = cli_main(["plan", "--stack", "bad", "--project-dir", str(tmp_path)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 2
    assert "NodeRestriction" in text and "node-role.kubernetes.io/gpu" in text
    assert re.search(r"pools\[0\]\.labels", text)


def test_no_effect_spelling_outside_taints_py_in_the_kubelet_renderer():
    pkg = ROOT / "components" / "gpu_node_pool" / "backends"
    for path in (pkg / "_shared" / "registration.py", pkg / "_shared" / "user_data.py", pkg / "self_managed" / "bootstrap.py",
                 pkg / "self_managed" / "render.py", pkg / "self_managed" / "read.py"):
        source = path.read_text()
        for effect in TaintEffect:
            assert effect.value not in source and effect.provider_spelling not in source, path


def test_spot_renders_the_distribution_and_capacity_rebalance_and_warns_about_draining():
    # EC2 Auto Scaling InstancesDistribution; capacity rebalance replaces Spot nodes on a rebalance recommendation
    from gpu_node_pool.config import stack_warnings

    cfg = stack(pool_cfg(spot={"onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": 0}))
    res, _ = _record(cfg)
    asg = res[("aws:autoscaling/group:Group", "batch-asg")]
    assert asg["mixedInstancesPolicy"]["instancesDistribution"] == {
        "onDemandBaseCapacity": 1, "onDemandPercentageAboveBaseCapacity": 0,
        "spotAllocationStrategy": "price-capacity-optimized"}
    assert [o["instanceType"] for o in asg["mixedInstancesPolicy"]["launchTemplate"]["overrides"]] == ["g6e.12xlarge"]
    assert asg["capacityRebalance"] is True
    warned = [(w.path, w.message) for w in stack_warnings(validate_stack_config(cfg))]
    assert any(p == "pools[0].spot" and "aws-node-termination-handler" in m for p, m in warned)
    # capacityRebalance can be turned off; without spot the group stays all On-Demand with no rebalance key
    res, _ = _record(stack(pool_cfg(spot={}, capacityRebalance=False)))
    assert res[("aws:autoscaling/group:Group", "batch-asg")]["capacityRebalance"] is False
    res, _ = _record(stack())
    assert "capacityRebalance" not in res[("aws:autoscaling/group:Group", "batch-asg")]


def test_spot_is_refused_with_an_on_demand_capacity_reservation_and_on_bare_metal():
    from builders import config_errors

    errors = config_errors(stack(pool_cfg(spot={}, capacityReservation={"id": "cr-0123456789abcdef0"})))
    assert any("pools[0]" in e and "Spot instances never use it" in e for e in errors)
    errors = config_errors(stack(metal_cfg(spot={})))
    assert any("spot" in e for e in errors)


# --- Cluster Autoscaler tag keys longer than an Auto Scaling group takes --------------------------


LONG_KEY = "team.platform.example.com/" + "x" * 60  # 86 characters: its node-template/label/ tag key has 132


def test_a_label_key_too_long_for_the_autoscaler_tag_is_refused_at_the_key():
    from builders import config_issues

    raw = {"cluster": cluster_cfg(), "pools": [pool_cfg(labels={"workload": "batch", LONG_KEY: "v"})]}
    ((path, message),) = config_issues(raw)
    assert path == f"pools[0].labels[{LONG_KEY!r}]"
    assert message.startswith(f"label key {LONG_KEY!r} (86 characters) makes the Cluster Autoscaler tag key "
                              "k8s.io/cluster-autoscaler/node-template/label/... 132 characters; an Auto Scaling group "
                              "tag key has at most 128")
    assert "API_Tag.html" in message and message.endswith("shorten the key to at most 82 characters")


def test_a_taint_key_too_long_is_refused_at_the_taint_and_bare_metal_pools_have_no_group_to_tag():
    from builders import config_issues

    taints = ["nvidia.com/gpu=present:NoSchedule", f"{LONG_KEY}=x:NoSchedule"]
    ((path, message),) = config_issues({"cluster": cluster_cfg(), "pools": [pool_cfg(taints=taints)]})
    assert path == "pools[0].taints[1]" and message.startswith(f"taint key {LONG_KEY!r}")
    validate_stack_config({"cluster": cluster_cfg(), "pools": [metal_cfg(taints=taints)]})  # provider none: no tags


def test_a_too_long_key_beside_another_mistake_is_said_with_it():
    from builders import config_issues

    pool = pool_cfg(labels={LONG_KEY: "v"}, securityGroupIds=None)
    ((path, message),) = config_issues({"cluster": cluster_cfg(), "pools": [pool]})
    assert path == "pools[0]" and "securityGroupIds: required" in message and f"label key {LONG_KEY!r}" in message
