"""What a new user met running `gpupool plan` on broken stack files: every mistake reported in one run (a
duplicate pool name and a name that is no string beside a misspelt backend), the note of stack rules that could
not run after the mistakes it refers to and out of their count, a did-you-mean for a misspelt backend, a
`--stack` that is no Pulumi stack name refused as a usage error, and `render --out` at a file told it is one."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

CLUSTER = """config:
  aws:region: us-east-1
  gpu-node-pools:cluster:
    name: ml-prod
    kubernetesVersion: "1.33"
    apiServerEndpoint: https://3F1A2B4C5D6E7F8091A2B3C4D5E6F708.gr7.us-east-1.eks.amazonaws.com
    certificateAuthority: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURCVENDQWUyZ0F3SUJBZ0lJUGxhY2Vob2xkZXJNQTBHQ1NxR1NJYjNEUUVCQ3dVQU1CVXhFekFSQmdOVkJBTVRDbXQxWW1WeWJtVjBaWE13Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K
    serviceCidr: 10.100.0.0/16
    nodeRoleArn: arn:aws:iam::444455556666:role/ml-prod-gpu-node
    subnetIds: [subnet-07a1c2e3f4a5b6c7d]
  gpu-node-pools:pools:
"""

NAMES = CLUSTER + """    - name: inference
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: -2}
    - name: inference
      backend: eks-manged
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 2}
    - name: 123
      backend: karpentr
      instanceFamilies: [g6]
"""

#: A self-managed pool whose format is unknown: the self-managed stack rules cannot read it, so they are not run.
NOT_RUN = CLUSTER + """    - name: a
      backend: self-managed
      format: al2023
      provider: aws
      instanceTypes: [g6.xlarge]
      scaling: {minSize: 0, maxSize: 2}
      securityGroupIds: [sg-0a1b2c3d4e5f60718]
    - name: f
      backend: self-managed
      format: AL2023
      provider: none
"""


def _plan(capsys, temp_project, text: str, *extra: str) -> tuple[int, str, str]:
    project = temp_project("mine", text)
    code = main(["plan", "--stack", "mine", "--project-dir", str(project), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_duplicate_names_and_a_numeric_name_are_reported_beside_the_other_mistakes(capsys, temp_project):
    code, out, err = _plan(capsys, temp_project, NAMES)
    assert code == 2, out + err
    text = out + err
    assert "5 errors in Pulumi.mine.yaml" in text, text  # with the two misspelt backends
    assert "pools[0].scaling.maxSize: -2: must be at least 1 (an int32 of at least 1 in the EKS" in text, text
    assert "pools[1].name: 'inference' is already used by pools[0]; names must be unique" in text
    assert "pools[2].name: 123: must be a valid string; unquoted, it is a number to Pulumi" in text
    assert 'quote it ("123")' in text


def test_a_misspelt_backend_gets_the_nearest_backend(capsys, temp_project):
    code, out, err = _plan(capsys, temp_project, NAMES)
    assert code == 2
    assert "pools[1].backend: 'eks-manged' is not a backend; did you mean 'eks-managed'?" in out + err
    assert "pools[2].backend: 'karpentr' is not a backend; did you mean 'karpenter'?" in out + err


def test_a_backend_far_from_every_name_lists_them(capsys, temp_project):
    code, out, err = _plan(capsys, temp_project, NAMES.replace("eks-manged", "azure"))
    assert code == 2
    assert "'azure' is not a backend; use one of eks-managed, gke, self-managed, karpenter, eks-auto" in out + err


def test_the_not_run_note_follows_the_errors_and_is_not_counted(capsys, temp_project):
    code, out, err = _plan(capsys, temp_project, NOT_RUN)
    assert code == 2, out + err
    lines = (out + err).splitlines()
    head = next(i for i, line in enumerate(lines) if " in Pulumi.mine.yaml; no resource was registered:" in line)
    count = int(lines[head].split()[0])
    block = [line for line in lines[head + 1:] if line.startswith("  ")]
    errors = [line for line in block if not line.startswith("  not checked:")]
    notes = [line for line in block if line.startswith("  not checked:")]
    assert len(errors) == count and count >= 1, block
    assert len(notes) == 1, block
    assert block[-1] == notes[0], block  # after every error it refers to
    assert "the self-managed stack rules" in notes[0] and "were not run: they read pools[1], whose" in notes[0], notes
    assert "pools[1].format: 'AL2023': must be 'al2023'" in "\n".join(errors)


def test_the_not_run_note_is_marked_in_json_and_sarif(capsys, temp_project):
    code, out, _ = _plan(capsys, temp_project, NOT_RUN, "--json")
    assert code == 2
    doc = json.loads(out)
    notes = [e for e in doc["configErrors"] if e.get("notJudged")]
    assert len(notes) == 1 and notes[0]["path"] == "pools" and doc["configErrors"][-1] == notes[0]
    assert all("notJudged" not in e for e in doc["configErrors"][:-1])
    code, out, _ = _plan(capsys, temp_project, NOT_RUN, "--format", "sarif")
    levels = [r["level"] for r in json.loads(out)["runs"][0]["results"]]
    assert code == 2 and levels.count("note") == 1 and "error" in levels, levels


@pytest.mark.parametrize("stack", ["../etc", "./dev", "a b", "dev;id", "o/p/s/dev", "../dev", "x/../dev"])
@pytest.mark.parametrize("command", ["plan", "validate", "render"])
def test_a_stack_that_is_no_pulumi_stack_name_is_a_usage_error(capsys, stack, command):
    extra = ["--out", "/nonexistent-out"] if command == "render" else []
    code = main([command, "--stack", stack, "--project-dir", str(ROOT), *extra])
    err = capsys.readouterr().err
    assert code == 64, err
    assert f"argument --stack: {stack!r} is not a stack name" in err, err
    assert "pulumi/pulumi@v3.259.0 sdk/go/common/tokens/stack_name.go" in err and "e.g. --stack dev" in err
    assert "no stack file" not in err


@pytest.mark.parametrize("stack", ["dev", "acme/dev", "acme/gpu-node-pools/dev"])
def test_a_stack_name_plain_or_qualified_reads_its_stack_file(capsys, stack):
    code = main(["validate", "--stack", stack, "--project-dir", str(ROOT)])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err


def test_render_out_at_a_file_says_it_is_a_file(capsys, tmp_path):
    target = tmp_path / "afile"
    target.write_text("mine\n")
    code = main(["render", "--stack", "dev", "--project-dir", str(ROOT), "--out", str(target)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{target} is a file, not a directory; pass a directory for --out" in err, err
    assert "File exists" not in err
    assert target.read_text() == "mine\n"


def test_no_count_in_a_report_counts_a_note(capsys, temp_project):
    code, out, err = _plan(capsys, temp_project, NOT_RUN)
    counted = re.search(r"(\d+) errors? in ", out + err)
    assert code == 2 and counted is not None
    assert int(counted[1]) == sum(1 for line in (out + err).splitlines()
                                  if line.startswith("  stacks/Pulumi.mine.yaml:"))


ORDERED = CLUSTER + """    - name: inference
      backend: eks-managed
      instanceType: [g6.xlarge]
      amiType: AL2023_x86_64_NVIDA
      scaling: {minSize: 0, maxSize: 4, maxsize: 5}
      taints: ["nvidia.com/gpu=present:NoSchedul", "foo"]
      labels: {example.com/team: ml-platform, x: 1}
  gpu-node-pools:devicePlugin:
    namespce: nvidia-device-plugin
"""


def test_json_lists_the_mistakes_in_the_order_the_text_does_the_order_of_the_file(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text(ORDERED)
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    assert main(["plan", "--stack", "ci", "--project-dir", str(tmp_path)]) == 2
    text_lines = [int(m.group(1)) for m in re.finditer(r"Pulumi\.ci\.yaml:(\d+):\d+:", capsys.readouterr().err)]
    assert main(["plan", "--stack", "ci", "--project-dir", str(tmp_path), "--json"]) == 2
    errors = json.loads(capsys.readouterr().out)["configErrors"]
    json_lines = [e["location"]["line"] for e in errors]
    assert len(json_lines) >= 6 and json_lines == sorted(json_lines)
    assert json_lines == text_lines


def test_validate_sarif_lists_the_mistakes_in_the_order_of_the_file(tmp_path, capsys):
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-node-pools\nruntime: python\n")
    (tmp_path / "Pulumi.ci.yaml").write_text(ORDERED)
    assert main(["validate", "--stack", "ci", "--project-dir", str(tmp_path), "--format", "sarif"]) == 2
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results]
    assert len(lines) >= 6 and lines == sorted(lines)
