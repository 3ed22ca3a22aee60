"""Mistakes a new user made in a trial run (from the README alone): each now exits 2 with a path.

Every case used to exit 0 on a config the cloud would refuse, or to end in a traceback.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
GKE = (ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text()


def run(capsys, project, *extra):
    code = main(["plan", "--stack", "mine", "--project-dir", str(project), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


CASES = [
    ("device-plugin config label set by hand",
     DEV.replace("        example.com/team: ml-platform", "        nvidia.com/device-plugin.config: timeslicing-4"),
     "pools[0].labels['nvidia.com/device-plugin.config']: 'nvidia.com/device-plugin.config' ('timeslicing-4') picks the device plugin's named config, "
     "which the component writes from gpuSharing and mig"),
    ("device-plugin config label through the kubelet's flags",
     DEV.replace("      capacityType: ON_DEMAND\n",
                 "      capacityType: ON_DEMAND\n      kubelet: {flags: ['--node-labels=nvidia.com/device-plugin.config=mps-2']}\n"),
     "pools[0]: kubelet.flags[0]: 'nvidia.com/device-plugin.config' ('mps-2') picks the device plugin's named config"),
    ("MIG layout label set by hand",
     DEV.replace("        example.com/team: ml-platform", "        nvidia.com/mig.config: all-1g.10gb"),
     "pools[0].labels['nvidia.com/mig.config']: 'nvidia.com/mig.config' ('all-1g.10gb') makes the GPU Operator's MIG manager partition"),
    ("gpuLabel in kubernetes.io on EKS",
     DEV.replace("      tags:\n        team", "      gpuLabel: {key: node-role.kubernetes.io/gpu, value: 'true'}\n      tags:\n        team"),
     "pools[0].gpuLabel: label 'node-role.kubernetes.io/gpu' is in the kubernetes.io domain"),
    ("empty gpuLabel value on EKS",
     DEV.replace("      tags:\n        team", "      gpuLabel: {key: example.com/gpu, value: ''}\n      tags:\n        team"),
     "pools[0].gpuLabel: label 'example.com/gpu' has an empty value"),
    ("gpuLabel on the pool label key",
     DEV.replace("      tags:\n        team", "      gpuLabel: {key: gpu-node-pools/pool, value: x}\n      tags:\n        team"),
     "is the pool label the component sets"),
    ("maxSize beyond int32", DEV.replace("maxSize: 4", "maxSize: 2147483648"),
     "pools[0].scaling.maxSize: 2147483648"),
    ("AWS tag key with the aws: prefix", DEV.replace("        env: dev", "        env: dev\n        'aws:owner': me"),
     "uses the aws: prefix, which AWS reserves"),
    ("AWS tag key too long", DEV.replace("        env: dev", "        env: dev\n        " + "k" * 129 + ": v"),
     "AWS allows 1-128"),
    ("duplicate YAML key", DEV.replace("capacityType: ON_DEMAND", "capacityType: ON_DEMAND\n      capacityType: SPOT"),
     "key 'capacityType' appears again"),
    ("YAML boolean as a label key", DEV.replace("        example.com/team: ml-platform", "        true: demand"),
     "a key is read by YAML as the boolean true, not a string; quote it"),
    ("YAML number as a label key", DEV.replace("        example.com/team: ml-platform", "        2026: z"),
     "a key is read by YAML as a number (2026), not a string; quote it"),
    ("YAML date as a value", DEV.replace("        env: dev", "        env: 2026-01-01"),
     "pools[0].tags.env: 2026-01-01 is a date and time to Pulumi's YAML reader"),
    ("YAML number as a string value", DEV.replace("        env: dev", "        env: 1.30"),
     'pools[0].tags.env: 1.30: must be a valid string; unquoted, it is a number to Pulumi (its YAML reader, '
     'gopkg.in/yaml.v3), and the program gets 1.3: quote it ("1.30")'),
    ("config that is not a mapping", "config: hello\n", "config: must be a mapping of config keys; got 'hello' (a string)"),
    ("config that is a binary value", "config: !!binary aGVsbG8=\n",
     "config: must be a mapping of config keys; !!binary aGVsbG8= is a YAML binary value"),
    ("a whole number past the setting's range", DEV.replace("maxSize: 4", "maxSize: 1180591620717411303424", 1),
     "pools[0].scaling.maxSize: 1180591620717411303424: is a whole number outside the setting's range: it must be at "
     "most 2147483647, the largest int32 (an int32 of at least 1 in the EKS and Auto Scaling APIs: https://"),
    ("a negative whole number past the setting's range", DEV.replace("maxSize: 4", "maxSize: -1180591620717411303424", 1),
     "pools[0].scaling.maxSize: -1180591620717411303424: is a whole number outside the setting's range: it must be "
     "at least 1"),
    ("a fraction is still no whole number", DEV.replace("maxSize: 4", "maxSize: 1.5", 1),
     "pools[0].scaling.maxSize: 1.5: must be a whole number"),
    ("a config key that is not a string", "config:\n  1: 2\n", "key 1 is not a string"),
    ("a pool written as a string", DEV.split("  gpu-node-pools:pools:")[0] + "  gpu-node-pools:pools: [inference]\n",
     "pools[0]: 'inference' must be a mapping"),
    ("a key of another backend", DEV.replace("      amiType: AL2023_x86_64_NVIDIA", "      amiType: AL2023_x86_64_NVIDIA\n      format: al2023"),
     "pools[0].format: 'format' is not a key of eks-managed pools (it belongs to self-managed pools)"),
    ("GKE: L4 on a general-purpose N2 machine", GKE.replace("machineType: g2-standard-8", "machineType: n2-standard-8"),
     "GPUs cannot be attached to the N2 series"),
    ("GKE: L4 on an N1 machine", GKE.replace("machineType: g2-standard-8", "machineType: n1-standard-8"),
     "cannot be attached to n1-standard-8"),
]


@pytest.mark.parametrize("desc, text, fragment", CASES, ids=[c[0] for c in CASES])
def test_mistake_exits_2_with_a_readable_line(capsys, temp_project, desc, text, fragment):
    assert text not in (DEV, GKE), "the case did not change the stack"
    code, out = run(capsys, temp_project("mine", text))
    assert code == 2, out
    assert fragment in out, out
    assert "Traceback" not in out


def test_a_stack_file_that_is_not_utf8(capsys, temp_project):
    project = temp_project("mine", "")
    (project / "stacks" / "Pulumi.mine.yaml").write_bytes(DEV.encode() + "# équipe\n".encode("latin-1"))
    code, out = run(capsys, project)
    assert code == 2 and "is not UTF-8; save the file as UTF-8" in out


def test_json_output_on_a_missing_stack_is_json(capsys):
    code = main(["plan", "--stack", "nope", "--json", "--project-dir", str(ROOT)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["exitCode"] == 2 and "no stack file" in doc["configErrors"][0]["message"]


def test_render_into_an_existing_file_is_an_error_not_a_traceback(capsys, tmp_path):
    target = tmp_path / "README.md"
    target.write_text("x")
    code = main(["render", "--stack", "dev", "--out", str(target), "--project-dir", str(ROOT)])
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_config_error_is_public_and_outputs_are_refused_with_a_reason():
    import pulumi

    from gpu_node_pool import ConfigError, GpuNodePoolArgs

    args = GpuNodePoolArgs(
        cluster={"name": "ml-prod", "kubernetesVersion": pulumi.Output.from_input("1.33"),  # identity may be
                 "nodeRoleArn": "arn:aws:iam::111122223333:role/r", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},  # an Output, this not
        pool={"name": "p", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 1}},
    )
    with pytest.raises(ConfigError, match=r"cluster.kubernetesVersion: is a Pulumi Output \(another resource.s output, or a secret from Config.get_secret/require_secret\); pool and cluster settings must be plain values"):
        args.validated()
