"""A list or a mapping where a string belongs (a label, tag or any other string setting) is told with the value as
written, what YAML made of it and the fix: one string (the list's one item, or an example of the setting), or the
text quoted when the brackets or braces were meant as text. Pydantic's ``must be a valid string`` named neither."""

from __future__ import annotations

import pytest
from builders import config_issues
from conftest import base
from pydantic import BaseModel, Field
from stack_texts import dev_edited as edited

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config.messages import not_a_string
from gpu_node_pool.config.stack import stack_model

CASES = [
    ("a label value written as a list", edited("example.com/team: ml-platform", "example.com/team: [a]"),
     "stacks/Pulumi.mine.yaml:23:9: pools[0].labels['example.com/team']: [a]: must be a valid string; it is a list: "
     'write one string, e.g. example.com/team: a, or quote it (example.com/team: "[a]") if the brackets are part of '
     "the text"),
    ("a label value written as a block list", edited("example.com/team: ml-platform", "example.com/team:\n          - a"),
     "pools[0].labels['example.com/team']: [a]: must be a valid string; it is a list: write one string, "
     "e.g. example.com/team: a"),
    ("a tag value of two items", edited("env: dev", "env: [dev, test]"),
     "pools[0].tags.env: [dev, test]: must be a valid string; it is a list: write one string, or quote it "
     '(env: "[dev, test]") if the brackets are part of the text'),
    ("a label value written as a flow mapping", edited("example.com/team: ml-platform", "example.com/team: {ml: platform}"),
     "pools[0].labels['example.com/team']: {ml: platform}: must be a valid string; it is a mapping: quote it "
     '(example.com/team: "{ml: platform}") if the braces or \': \' are part of the text, or write one string'),
    ("the cluster name as a mapping: the model's example", edited("name: ml-dev", "name: {ml: dev}"),
     'cluster.name: {ml: dev}: must be a valid string; it is a mapping: quote it (name: "{ml: dev}") if the braces '
     "or ': ' are part of the text, or write one string, e.g. name: ml-dev"),
    ("a list item as a list: the field's example", edited("- subnet-0a1b2c3d4e5f60718", "- [subnet-0a1b2c3d4e5f60718, b]"),
     "cluster.subnetIds[0]: [subnet-0a1b2c3d4e5f60718, b]: must be a valid string; it is a list: write one string, "
     "e.g. subnet-0a1b2c3d4e5f60718, or quote it"),
    ("an empty list: nothing to quote, the field's default", edited("namespace: nvidia-device-plugin", "namespace: []"),
     "devicePlugin.namespace: []: must be a valid string; it is a list: write one string, e.g. "
     "namespace: nvidia-device-plugin\n"),
    ("a version as a list: the example quoted as YAML needs it", edited('kubernetesVersion: "1.33"', "kubernetesVersion: [1.33, 1.34]"),
     "cluster.kubernetesVersion: [1.33, 1.34]: must be a valid string; it is a list: write one string, "
     "e.g. kubernetesVersion: '1.33'"),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_list_or_mapping_where_a_string_belongs_is_named_with_the_fix(capsys, temp_project, text, expected):
    code = main(["validate", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    assert code == 2, out
    assert expected in out.out + out.err, out


def test_a_program_config_gets_the_same_words():
    raw = base()
    raw["pools"][0]["labels"] = {"example.com/team": ["a"]}
    assert ("pools[0].labels['example.com/team']",
            '[a]: must be a valid string; it is a list: write one string, e.g. example.com/team: a, or quote it '
            '(example.com/team: "[a]") if the brackets are part of the text') in config_issues(raw)


def test_a_number_a_boolean_or_null_keeps_the_loaders_words(capsys, temp_project):
    for value in (4, 1.5, True, None, "text"):
        assert not_a_string(value, stack_model(), ("cluster", "name")) is None
    code = main(["validate", "--stack", "mine", "--project-dir",
                 str(temp_project("mine", edited("example.com/team: ml-platform", "example.com/team: 1.10")))])
    out = capsys.readouterr()
    out = out.out + out.err
    assert code == 2 and "1.10: must be a valid string; unquoted, it is a number to Pulumi" in out, out


def test_a_huge_list_is_cut_and_not_offered_back_quoted():
    message = not_a_string(list(range(500)), stack_model(), ("pools", 0, "eks-managed", "labels", "example.com/team"))
    assert message == "list of 500 items: must be a valid string; it is a list: write one string"


TEAM = ("pools", 0, "eks-managed", "labels", "example.com/team")


@pytest.mark.parametrize(("item", "written"), [
    ("1e3", "'1e3'"), ("0o17", "'0o17'"), ("true", "'true'"), ("null", "'null'"), ("12", "'12'"), ("1.33", "'1.33'"),
    ("2024-01-02", "'2024-01-02'"), ("yes", "yes"), ("ml-dev", "ml-dev")])
def test_the_suggested_string_is_quoted_where_pulumi_would_read_no_string(item, written):
    # Pulumi reads a stack file with gopkg.in/yaml.v3: 1e3 is a float and 0o17 an int there (YAML 1.1, PyYAML's, reads
    # both as strings), while yes is a string (a boolean to YAML 1.1)
    message = not_a_string([item], stack_model(), TEAM)
    assert message is not None and f"write one string, e.g. example.com/team: {written}, or quote it" in message, message


@pytest.mark.parametrize(("item", "written"), [("1e3", "'1e3'"), ("0o17", "'0o17'"), ("yes", "yes")])
def test_a_stack_file_gets_the_suggestion_pulumi_reads_as_a_string(capsys, temp_project, item, written):
    text = edited("example.com/team: ml-platform", f'example.com/team: ["{item}"]')
    code = main(["validate", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    assert code == 2, out
    assert f"it is a list: write one string, e.g. example.com/team: {written}, or quote it" in out.out + out.err, out


class _Team(BaseModel):
    on_call: str = Field(alias="onCall", description="Who answers pages, e.g. on")
    budget: str = Field(description="The budget code, e.g. 1e3")


def test_a_description_example_is_read_as_pulumi_reads_it():
    # "on" is a string to Pulumi (a boolean to YAML 1.1), so it is offered; "1e3" is a number to Pulumi, so it is not
    assert not_a_string({"a": 1}, _Team, ("onCall",)).endswith("or write one string, e.g. onCall: on")
    assert not_a_string({"a": 1}, _Team, ("budget",)).endswith("or write one string")
