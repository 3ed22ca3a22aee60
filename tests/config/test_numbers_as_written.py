"""A stack file's unquoted number refused for its type is shown as the user wrote it (``1.30``), with the fix
in that text (``quote it ("1.30")``), not as the number Pulumi hands the program (1.3); what a program receives,
and every value accepted, stay as they were."""

from __future__ import annotations

import json

import pytest
from stack_texts import dev_edited as edited

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import read_stack_file
from gpu_node_pool.config.locations import FileMarks

READER = "Pulumi (its YAML reader, gopkg.in/yaml.v3)"


def run(capsys, project, command="validate", *extra):
    code = main([command, "--stack", "mine", "--project-dir", str(project), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


CASES = [
    ("kubernetesVersion 1.30", edited('kubernetesVersion: "1.33"', "kubernetesVersion: 1.30"),
     "stacks/Pulumi.mine.yaml:6:5: cluster.kubernetesVersion: 1.30: must be a valid string; unquoted, it is a number "
     f'to {READER}, and the program gets 1.3: quote it ("1.30")'),
    ("cluster name 1e3", edited("name: ml-dev", "name: 1e3"),
     f'cluster.name: 1e3: must be a valid string; unquoted, it is a number to {READER}, and the program gets 1000: '
     'quote it ("1e3")'),
    ("a pool's label value 1.10", edited("example.com/team: ml-platform", "example.com/team: 1.10"),
     f"stacks/Pulumi.mine.yaml:23:9: pools[0].labels['example.com/team']: 1.10: must be a valid string; unquoted, it is "
     f'a number to {READER}, and the program gets 1.1: quote it ("1.10")'),
    ("a tag value 4.0", edited("env: dev", "env: 4.0"),
     f'pools[0].tags.env: 4.0: must be a valid string; unquoted, it is a number to {READER}, and the program gets 4: '
     'quote it ("4.0")'),
    ("a list item 0.10", edited("- subnet-0a1b2c3d4e5f60718", "- 0.10"),
     f'cluster.subnetIds[0]: 0.10: must be a valid string; unquoted, it is a number to {READER}, and the program gets '
     '0.1: quote it ("0.10")'),
    ("a number shown as written anyway", edited("name: inference", "name: 7"),
     f'pools[0].name: 7: must be a valid string; unquoted, it is a number to {READER}: quote it ("7")'),
    ("a whole number written 1.50", edited("minSize: 0", "minSize: 1.50"),
     f"pools[0].scaling.minSize: 1.50: must be a whole number (e.g. 4); it is an int32 of at least 0 in the EKS and "
     "Auto Scaling APIs: https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupScalingConfig.html, "
     "https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_CreateAutoScalingGroup.html; to "
     f"{READER} it is a number, and the program gets 1.5"),
    ("a taint written 1.10", edited("- nvidia.com/gpu=present:NoSchedule", "- 1.10"),
     "pools[0].taints[0]: 1.10: must be a taint string key=value:Effect"),
    ("a key written 1.30", edited("example.com/team: ml-platform", "1.30: ml-platform"),
     "pools[0].labels: a key is read by YAML as a number (1.30), not a string; quote it"),
    ("a config key written 1.30", edited("  aws:region: us-west-2\n", "  aws:region: us-west-2\n  1.30: x\n"),
     "config: key 1.30 is not a string"),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_refused_number_is_shown_as_written(capsys, temp_project, text, expected):
    code, out = run(capsys, temp_project("mine", text))
    assert code == 2, out
    assert expected in out, out


def test_the_taint_message_says_what_the_program_gets(capsys, temp_project):
    code, out = run(capsys, temp_project("mine", edited("- nvidia.com/gpu=present:NoSchedule", "- 1.10")))
    assert code == 2 and f"; to {READER} it is a number, and the program gets 1.1" in out, out


def test_the_plan_and_its_json_show_the_number_as_written(capsys, temp_project):
    project = temp_project("mine", edited('kubernetesVersion: "1.33"', "kubernetesVersion: 1.30"))
    code, out = run(capsys, project, "plan")
    assert code == 2 and 'cluster.kubernetesVersion: 1.30: must be a valid string;' in out, out
    assert 'and the program gets 1.3: quote it ("1.30")' in out, out
    code, out = run(capsys, project, "plan", "--json")
    [issue] = json.loads(out)["configErrors"]
    assert code == 2 and issue["message"].startswith("1.30: must be a valid string;"), issue
    assert issue["location"] == {"file": "stacks/Pulumi.mine.yaml", "line": 6, "column": 5}


@pytest.mark.parametrize("written, shown", [
    ("true", "true: must be a valid string (quote it in YAML: true, false and numbers are not strings)"),  # as before
    ('"1.30"', "'1.30': must be 1-100 letters"),  # quoted: the string the program gets
    ("!!str 1.30", "'1.30': must be 1-100 letters"),
])
def test_what_is_no_plain_number_keeps_its_message(capsys, temp_project, written, shown):
    code, out = run(capsys, temp_project("mine", edited("name: ml-dev", f"name: {written}")))
    assert code == 2 and f"cluster.name: {shown}" in out, out


@pytest.mark.parametrize("written", ["4.0", "4e0", "0x4", "4"])
def test_what_the_program_receives_is_unchanged(written):
    """The runtime config of a file with a number written otherwise is what Pulumi's JSON gives (``4``)."""
    text = edited("maxSize: 4", f"maxSize: {written}")
    if written == "0x4":  # another form than a plain decimal is refused when read, as before
        with pytest.raises(ConfigError, match="hexadecimal number 4"):
            read_stack_file(text.encode(), "Pulumi.mine.yaml")
        return
    config, _ = read_stack_file(text.encode(), "Pulumi.mine.yaml")
    assert json.loads(config["gpu-node-pools:pools"])[0]["scaling"] == {"minSize": 0, "maxSize": 4}


def test_the_file_marks_keep_each_plain_number_as_written():
    marks = FileMarks()
    text = edited("maxSize: 4", "maxSize: 4.0").replace("example.com/team: ml-platform", "example.com/team: '1.10'")
    read_stack_file(text.encode(), "Pulumi.mine.yaml", marks=marks)
    assert dict(marks.numbers()) == {("pools", 0, "scaling", "minSize"): "0", ("pools", 0, "scaling", "maxSize"): "4.0"}


def test_an_accepted_number_written_otherwise_plans_as_before(capsys, temp_project):
    code, out = run(capsys, temp_project("mine", edited("maxSize: 4", "maxSize: 4.0")), "plan")
    assert code == 0, out
    assert "size 0..4" in out, out


def test_only_a_message_that_starts_with_the_number_is_rewritten():
    from gpu_node_pool.config.pulumi_scalars import QUOTE_A_NUMBER, number_as_written

    assert number_as_written("1.3: must be a valid string" + QUOTE_A_NUMBER, "1.30") == (
        f'1.30: must be a valid string; unquoted, it is a number to {READER}, and the program gets 1.3: quote it ("1.30")')
    assert number_as_written("minSize 1000 is above maxSize 4", "1e3") == "minSize 1000 is above maxSize 4"
    assert number_as_written("'1.30': must be a whole number (e.g. 4)", "1.30") == "'1.30': must be a whole number (e.g. 4)"
    assert number_as_written("2: must be at most 1", "2") == "2: must be at most 1"  # as written already
