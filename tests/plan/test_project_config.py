"""Pulumi.yaml's config: block, merged into the stack's config as the Pulumi CLI does before it runs the
program (pulumi/pulumi sdk/go/common/workspace/config.go mergeConfig, project.go RewriteShorthandConfigValues)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DATA

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.config import ConfigError
from gpu_node_pool.plan.stack_file import read_stack


def _project(tmp_path, config_block: str, stack_config: str = ""):
    project = tmp_path / "p"
    tmp_path.mkdir(parents=True, exist_ok=True)
    shutil.copytree(DATA / "foreign_project", project)
    pulumi_yaml = project / "Pulumi.yaml"
    pulumi_yaml.write_text(pulumi_yaml.read_text() + config_block)
    if stack_config:
        stack = project / "Pulumi.ci.yaml"
        stack.write_text(stack.read_text() + stack_config)
    return project


def test_a_project_default_reaches_the_program_when_the_stack_file_leaves_the_key_out(capsys, tmp_path):
    # the foreign program reads agentChart (default charts/node-agent); Pulumi.yaml points it at a chart
    # that does not exist, so the check names it among what it could not render
    project = _project(tmp_path, "config:\n  agentChart: charts/from-pulumi-yaml\n  aws:region: eu-west-1\n")
    found = read_stack(project, "ci")
    assert found.config["platform-gpu:agentChart"] == "charts/from-pulumi-yaml"
    assert found.config["aws:region"] == "us-west-2"  # the stack file's value wins
    cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert any("charts/from-pulumi-yaml" in (n.get("reason", "") + n.get("resource", "")) for n in doc["notJudged"])


def test_typed_declarations_give_their_default_and_lists_become_json(tmp_path):
    project = _project(tmp_path, "config:\n  agentChartVersion:\n    type: string\n    default: 1.2.3\n"
                                 "  platform-gpu:extraZones:\n    type: array\n    items: {type: string}\n"
                                 "    default: [a, b]\n")
    found = read_stack(project, "ci")
    assert found.config["platform-gpu:agentChartVersion"] == "1.2.3"
    assert json.loads(found.config["platform-gpu:extraZones"]) == ["a", "b"]


def test_a_required_project_key_the_stack_leaves_out_stops_the_check_with_the_clis_reason(capsys, tmp_path):
    project = _project(tmp_path, "config:\n  teamName:\n    type: string\n    description: the owning team\n")
    with pytest.raises(ConfigError) as err:
        read_stack(project, "ci")
    [issue] = err.value.issues
    assert issue.path == "platform-gpu:teamName" and "missing this configuration value" in issue.message
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and "platform-gpu:teamName" in doc["configErrors"][0]["path"]


def test_a_key_declared_secret_must_be_secure_in_the_stack_file(tmp_path):
    project = _project(tmp_path, "config:\n  clusterName:\n    type: string\n    secret: true\n")
    with pytest.raises(ConfigError) as err:
        read_stack(project, "ci")
    assert "must be encrypted as it's secret" in err.value.issues[0].message


@pytest.mark.parametrize(("block", "words"), [
    ("config: [a, b]\n", "must be a mapping of config keys"),
    ("config:\n  k:\n    type: string\n    secret: yes please\n", "must be true or false"),
    ("config:\n  k:\n    type: string\n    defualt: x\n", "defualt: not a key of a config declaration"),
])
def test_a_malformed_config_block_is_a_config_error_naming_pulumi_yaml(tmp_path, block, words):
    with pytest.raises(ConfigError) as err:
        read_stack(_project(tmp_path, block), "ci")
    assert err.value.issues[0].path.startswith("Pulumi.yaml: config") and words in err.value.issues[0].message


def test_the_old_config_directory_spelling_is_the_stack_config_dir(tmp_path):
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    (project / "stacks").mkdir()
    (project / "Pulumi.ci.yaml").rename(project / "stacks" / "Pulumi.ci.yaml")
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text() + "config: stacks\n")
    assert read_stack(project, "ci").config["platform-gpu:clusterName"] == "ml-prod"
    (project / "Pulumi.yaml").write_text((project / "Pulumi.yaml").read_text() + "stackConfigDir: stacks\n")
    with pytest.raises(ConfigError, match="use only stackConfigDir"):
        read_stack(project, "ci")


@pytest.mark.parametrize(("block", "words"), [
    # what pulumi/pulumi project.go Validate refuses when it loads the project
    ("config:\n  a:\n    default: x\n    value: y\n", "cannot have both a 'default' and a 'value'"),
    ("config:\n  aws:profile:\n    default: x\n", "did you mean 'value'?"),
    ("config:\n  aws:profile:\n    type: string\n    value: x\n", "declares a type"),
    ("config:\n  aws:profile: {}\n", "gives no 'value'"),
    ("config:\n  b:\n    type: integer\n    default: notanumber\n", "is not of its declared type integer"),
    ("config:\n  b:\n    type: array\n    default: [1]\n", "type array needs items"),
    ("config:\n  b:\n    type: array\n    items: {type: integer}\n    default: [1, x]\n", "array<integer>"),
    ("config:\n  d: .nan\n", "is a number JSON has no form for"),
    ("config:\n  d: 2024-01-01\n", "2024-01-01 is a date and time to Pulumi's YAML reader"),
    ("config:\n  d:\n    default: !!binary aGVsbG8=\n", "is read by YAML as a bytes"),
])
def test_declarations_the_pulumi_cli_refuses_are_config_errors_at_pulumi_yaml(tmp_path, block, words):
    with pytest.raises(ConfigError) as err:
        read_stack(_project(tmp_path, block), "ci")
    [issue] = err.value.issues
    assert issue.path.startswith("Pulumi.yaml: config.") and words in issue.message


def test_typed_defaults_the_cli_accepts_and_a_null_default_counts_as_none(tmp_path):
    project = _project(tmp_path, "config:\n  n:\n    type: integer\n    default: '42'\n  f:\n    type: boolean\n"
                                 "    default: 'true'\n  d:\n    type: string\n    default: null\n")
    with pytest.raises(ConfigError) as err:  # d: a null default is no default, so the stack must set it
        read_stack(project, "ci")
    assert [i.path for i in err.value.issues] == ["platform-gpu:d"]


def test_an_alias_bomb_in_pulumi_yaml_is_refused_at_once(tmp_path):
    levels = "".join(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 10))
    project = _project(tmp_path, "x:\n  l0: &l0 [a, b, c, d, e, f, g, h, i]\n" + levels)
    with pytest.raises(ConfigError) as err:
        read_stack(project, "ci")
    assert "aliases" in err.value.issues[0].message and err.value.issues[0].location.file == "Pulumi.yaml"


def test_a_mistake_in_a_value_pulumi_yaml_gives_is_placed_there_not_in_the_stack_file(capsys, tmp_path):
    from conftest import ROOT

    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text()
                                          + "config:\n  gpuAgents:\n    default: {dcgmExporter: {bogusKey: 1}}\n")
    code = cli.main(["validate", "--stack", "dev", "--project-dir", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2
    [issue] = doc["configErrors"]
    assert issue["path"].startswith("Pulumi.yaml: config.gpuAgents.dcgmExporter") and "location" not in issue


def test_secret_and_type_checks_of_the_stack_value_follow_the_cli(tmp_path):
    # untyped secret: the CLI checks secrets of typed declarations only (config.go validateStackConfigValues)
    assert read_stack(_project(tmp_path / "a", "config:\n  clusterName:\n    secret: true\n"), "ci")
    # a typed secret the stack leaves to its plain default is refused after the merge
    with pytest.raises(ConfigError, match="leaves it to its Pulumi.yaml default"):
        read_stack(_project(tmp_path / "b", "config:\n  token:\n    type: string\n    secret: true\n"
                                            "    default: x\n"), "ci")
    # the stack's value of a typed key must be of that type
    with pytest.raises(ConfigError, match="must be of type array<string>"):
        read_stack(_project(tmp_path / "c", "config:\n  clusterName:\n    type: array\n    items: {type: string}\n"), "ci")
    assert read_stack(_project(tmp_path / "d", "config:\n  subnetIds:\n    type: array\n    items: {type: string}\n"), "ci")
    with pytest.raises(ConfigError, match="a short config value is a string"):
        read_stack(_project(tmp_path / "e", "config:\n  ratio: 1.5\n"), "ci")


def test_validate_file_reads_the_config_block_of_the_files_project(capsys, tmp_path):
    from conftest import ROOT

    shutil.copytree(ROOT / "stacks", tmp_path / "stacks")
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text()
                                          + "config:\n  gpuAgents:\n    default: {dcgmExporter: {bogusKey: 1}}\n")
    assert cli.main(["validate", "--file", str(tmp_path / "stacks" / "Pulumi.dev.yaml"), "--json"]) == 2
    assert "Pulumi.yaml: config.gpuAgents" in capsys.readouterr().out


def test_integer_texts_go_atoi_refuses_duplicate_spellings_in_the_clis_order_and_deep_values(tmp_path):
    for default in ("'+-5'", "'٣'", "'99999999999999999999'"):
        with pytest.raises(ConfigError, match="not of its declared type integer"):
            read_stack(_project(tmp_path / default.strip("'")[:2], f"config:\n  n:\n    type: integer\n    default: {default}\n"),
                       "ci")
    found = read_stack(_project(tmp_path / "dup", "config:\n  platform-gpu:foo: {default: from-namespaced}\n"
                                                  "  foo: {default: from-bare}\n"), "ci")
    assert found.config["platform-gpu:foo"] == "from-bare"  # mergeConfig sorts the keys: foo first
    try:  # refused with a reason or read, whatever this interpreter's recursion limit: never a crash
        read_stack(_project(tmp_path / "deep", "config:\n  d: " + "[" * 990 + "]" * 990 + "\n"), "ci")
    except ConfigError as err:
        assert "deeper than a config value" in str(err.issues[0].message) or "nesting depth" in err.issues[0].message


@pytest.mark.parametrize("value", ["!!timestamp x", "!!bool yes", "!!int four", "!!int 4.0"])
def test_a_value_its_tag_cannot_read_in_pulumi_yaml_is_one_line_at_its_place(tmp_path, value):
    from gpu_node_pool.config import ConfigError
    from gpu_node_pool.plan.stack_file import read_project_file

    (tmp_path / "Pulumi.yaml").write_text(f"name: p\nruntime: python\nconfig:\n  v:\n    default: {value}\n")
    with pytest.raises(ConfigError) as err:
        read_project_file(tmp_path)
    (issue,) = err.value.issues
    assert (issue.location.line, issue.location.column) == (5, 14)
    assert issue.message.startswith(f"'{value}' does not fit its explicit YAML tag")
    assert "Error" not in issue.message and "groupdict" not in issue.message
