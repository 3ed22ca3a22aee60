"""``gpupool render`` writes every bootstrap in the form its consumer picks up.

One test per format: the file a node (or its provisioner) reads is there, under the name and
in the place the consumer looks, with the version header it requires. Sources: nodeadm
(awslabs/amazon-eks-ami, MIME part ``application/node.eks.aws``, ``node.eks.aws/v1alpha1``
NodeConfig); Bottlerocket user data (TOML ``[settings.kubernetes]``); AL2 ``/etc/eks/bootstrap.sh``;
``kubeadm join --config`` (``kubeadm.k8s.io/v1beta4`` JoinConfiguration); kubelet flags; kubelet
``--config-dir`` drop-ins (only ``*.conf``, each with apiVersion and kind: KEP-3983,
kubernetes/kubernetes#124796).
"""

from __future__ import annotations

import shlex
import tomllib

import pytest
import yaml

from gpu_node_pool.cli.commands import main

CLUSTER = """\
  gpu-node-pools:cluster:
    name: ml-prod
    kubernetesVersion: "1.33"
    apiServerEndpoint: https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com
    certificateAuthority: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURCVENDQWUyZ0F3SUJBZ0lJUGxhY2Vob2xkZXJNQTBHQ1NxR1NJYjNEUUVCQ3dVQU1CVXhFekFSQmdOVkJBTVRDbXQxWW1WeWJtVjBaWE13Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K
    serviceCidr: 10.100.0.0/16
    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
    subnetIds: [subnet-07a1c2e3f4a5b6c7d]
"""


def _pool(fmt: str) -> str:
    # AL2 has no SSM parameter any more (EKS stopped publishing AL2 AMIs): it needs an AMI id.
    ami = "      amiId: ami-0123456789abcdef0\n" if fmt == "al2" else ""
    return f"""\
  gpu-node-pools:pools:
    - name: gpu
      backend: self-managed
      format: {fmt}
      provider: aws
{ami}      instanceTypes: [g6e.12xlarge]
      scaling: {{minSize: 0, maxSize: 2}}
      securityGroupIds: [sg-0a1b2c3d4e5f60718]
      taints: [nvidia.com/gpu=present:NoSchedule]
      labels: {{example.com/team: research}}
"""


@pytest.fixture
def rendered(temp_project, tmp_path, capsys):
    def render(fmt: str):
        project = temp_project(fmt, "config:\n  aws:region: us-east-1\n" + CLUSTER + _pool(fmt))
        code = main(["render", "--stack", fmt, "--out", str(tmp_path / "out"), "--project-dir", str(project)])
        assert code == 0, capsys.readouterr()
        return tmp_path / "out" / "bootstrap" / "gpu-launch-template"

    return render


def test_nodeadm_node_config_is_written_whole_and_as_its_mime_part(rendered):
    where = rendered("al2023")
    mime = (where / "user-data.mime").read_text()
    assert mime.lstrip().lower().startswith(("mime-version:", "content-type:"))
    assert "application/node.eks.aws" in mime  # the content type nodeadm reads its NodeConfig from
    [part] = sorted((where / "user-data.d").iterdir())
    assert part.name == "01-application-node.eks.aws.yaml"
    doc = yaml.safe_load(part.read_text())
    assert (doc["apiVersion"], doc["kind"]) == ("node.eks.aws/v1alpha1", "NodeConfig")
    assert doc["spec"]["kubelet"]["config"]["registerWithTaints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    ]


def test_bottlerocket_user_data_is_toml_bottlerocket_reads(rendered):
    where = rendered("bottlerocket")
    settings = tomllib.loads((where / "user-data.toml").read_text())["settings"]["kubernetes"]
    assert settings["cluster-name"] == "ml-prod"
    assert settings["node-taints"] == {"nvidia.com/gpu": ["present:NoSchedule"]}
    assert not (where / "user-data.d").exists()


def test_al2_user_data_is_a_script_that_calls_the_eks_bootstrap(rendered):
    where = rendered("al2")
    script = (where / "user-data.sh").read_text()
    assert script.startswith("#!/bin/bash\n")  # cloud-init runs user data with a shebang as a script
    assert "/etc/eks/bootstrap.sh ml-prod" in script
    assert "--register-with-taints=nvidia.com/gpu=present:NoSchedule" in script


@pytest.fixture(scope="module")
def onprem(tmp_path_factory):
    from conftest import ROOT

    out = tmp_path_factory.mktemp("onprem")
    assert main(["render", "--stack", "onprem", "--out", str(out), "--project-dir", str(ROOT)]) == 0
    return out / "bootstrap"


def test_kubeadm_join_configuration_is_what_kubeadm_join_config_reads(onprem):
    doc = yaml.safe_load((onprem / "dgx" / "join-configuration.yaml").read_text())
    assert (doc["apiVersion"], doc["kind"]) == ("kubeadm.k8s.io/v1beta4", "JoinConfiguration")
    assert {"key": "example.com/dgx", "effect": "NoSchedule"} in [
        {k: v for k, v in t.items() if v != ""} for t in doc["nodeRegistration"]["taints"]
    ]


def test_kubelet_flags_are_one_line_of_flags(onprem):
    text = (onprem / "workstations" / "kubelet-flags.txt").read_text()
    assert text.count("\n") == 1
    flags = shlex.split(text)
    assert all(f.startswith("--") for f in flags)
    assert "--register-with-taints=nvidia.com/gpu=present:NoSchedule" in flags


def test_the_kubelet_drop_in_is_a_conf_file_with_its_header(onprem):
    drop_ins = [p for p in (onprem / "workstations").iterdir() if p.suffix == ".conf"]
    assert [p.name for p in drop_ins] == ["90-gpu-node-pools.conf"]  # --config-dir reads only *.conf
    doc = yaml.safe_load(drop_ins[0].read_text())
    assert (doc["apiVersion"], doc["kind"]) == ("kubelet.config.k8s.io/v1beta1", "KubeletConfiguration")
    assert doc["registerWithTaints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    # Nothing else in the folder would be read as a drop-in, and no taint file is left unread.
    assert not [p for p in (onprem / "workstations").iterdir() if p.name.endswith(".yaml")]
