"""Path arguments: every path-valued option of every command refuses an empty value as a usage error (64) naming
the option, and ``--stack`` refuses a stack file's path, naming the stack to give. The options are read from
``gpupool``'s own parser, so an option added later is covered (or must be classified) without editing this file."""

from __future__ import annotations

import argparse

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import _parser, main
from gpu_node_pool.cli.contract import PathArgument, positive_seconds
from gpu_node_pool.cli.stack_name import stack_name

#: Options that take a value which is no path, nor a choice, nor a stack name or a number of seconds.
NOT_PATHS = {("audit", "--context"), ("audit", "--admission-plugins"), ("policy-pack", "--requirement")}
#: Of those, the ones an empty value would silently turn into "not given" (the kubeconfig's current context).
NOT_EMPTY = [("audit", "--context"), ("audit", "--admission-plugins")]
#: What each command needs besides the option under test, so that option is the only thing wrong.
REQUIRED = {"plan": ["--stack", "dev"], "check": ["--stack", "dev"], "render": ["--stack", "dev", "--out", "out"],
            "policy-pack": ["--out", "pack"], "validate": ["--stack", "dev"]}


def _value_options() -> list[tuple[str, argparse.Action]]:
    """Every option that takes a value, of every sub-command, as ``(command, action)``."""
    (commands,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return [(command, action) for command, sub in commands.choices.items() for action in sub._actions
            if action.option_strings and action.nargs != 0]


PATH_OPTIONS = sorted((command, action.option_strings[0]) for command, action in _value_options()
                      if isinstance(action.type, PathArgument))


def test_the_path_options_are_found_in_the_parser():
    assert set(PATH_OPTIONS) >= {
        ("plan", "--project-dir"), ("plan", "--policy-pack-config"), ("plan", "--helm"), ("plan", "--html"),
        ("render", "--out"), ("render", "--project-dir"), ("render", "--policy-pack-config"), ("render", "--helm"),
        ("validate", "--file"), ("validate", "--project-dir"), ("check", "--python"), ("check", "--html"),
        ("schema", "--out"), ("policy-pack", "--out"), ("audit", "--cluster-dump"), ("audit", "--kubeconfig"),
        ("audit", "--project-dir"), ("audit", "--html"),
    }


def test_every_option_with_a_value_is_a_path_a_choice_a_stack_a_timeout_or_named_here():
    unclassified = [
        (command, action.option_strings[0]) for command, action in _value_options()
        if not isinstance(action.type, PathArgument) and action.choices is None
        and action.type not in (stack_name, positive_seconds)
        and (command, action.option_strings[0]) not in NOT_PATHS
    ]
    assert unclassified == [], ("a path option takes type=FILE_TO_READ, FILE_TO_WRITE, DIRECTORY or EXECUTABLE "
                                "(gpu_node_pool.cli.contract); any other goes in NOT_PATHS")


@pytest.mark.parametrize("value", ["", "  "])
@pytest.mark.parametrize(("command", "option"), PATH_OPTIONS)
def test_an_empty_path_is_a_usage_error_naming_the_option(capsys, command, option, value):
    others = [] if option in REQUIRED.get(command, []) else REQUIRED.get(command, [])
    code = main([command, option, value, *others])
    captured = capsys.readouterr()
    assert code == 64, captured.err
    assert captured.out == ""
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith(f"gpupool {command}: error: argument {option}: an empty path; give the path of "), last
    assert captured.err.startswith(f"usage: gpupool {command} ")


def test_an_empty_path_after_a_good_one_is_refused_too(capsys):
    assert main(["validate", "--file", str(ROOT / "stacks" / "Pulumi.dev.yaml"), ""]) == 64
    assert "argument --file: an empty path" in capsys.readouterr().err


def test_an_empty_policy_pack_config_does_not_run_the_plan_with_the_default_config(capsys):
    code = main(["plan", "--project-dir", str(ROOT / "examples" / "violating"), "--stack", "demo",
                 "--policy-pack-config", ""])
    captured = capsys.readouterr()
    assert code == 64 and captured.out == ""
    assert "argument --policy-pack-config: an empty path" in captured.err


def test_completion_offers_files_or_directories_for_every_path_option():
    from gpu_node_pool.cli.completion import completion_script

    parser = _parser()
    completion_script(parser, "bash")
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    kinds = {(command, action.option_strings[0]): action.complete for command, sub in commands.choices.items()
             for action in sub._actions if isinstance(action.type, PathArgument)}
    assert sorted(kinds) == PATH_OPTIONS
    assert kinds[("render", "--out")] == kinds[("plan", "--project-dir")] != kinds[("schema", "--out")]
    assert kinds[("schema", "--out")] == kinds[("plan", "--policy-pack-config")] == kinds[("check", "--python")]


# --- a stack file's path given to --stack ------------------------------------------------------------------------

STACK_FILE_PATHS = ["stacks/Pulumi.dev.yaml", "./stacks/Pulumi.dev.yaml", "Pulumi.dev.yaml", "stacks/Pulumi.dev.yml",
                    str(ROOT / "stacks" / "Pulumi.dev.yaml"), "stacks\\Pulumi.dev.yaml"]


@pytest.mark.parametrize("stack", STACK_FILE_PATHS)
@pytest.mark.parametrize("command", ["plan", "validate", "render", "check", "audit"])
def test_a_stack_file_path_is_a_usage_error_naming_the_stack_to_give(capsys, command, stack):
    extra = {"render": ["--out", "/nonexistent-out"], "audit": ["--cluster-dump", "x.json"]}.get(command, [])
    code = main([command, "--stack", stack, "--project-dir", str(ROOT), *extra])
    captured = capsys.readouterr()
    assert code == 64, captured.err
    assert captured.out == ""
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith(f"gpupool {command}: error: argument --stack: ")
    assert "is a stack file's path, not a stack name; give the stack's name: --stack dev " in last, last
    assert "no stack file" not in captured.err


def test_the_path_with_and_without_dot_slash_gets_one_message(capsys):
    lines = []
    for stack in ("stacks/Pulumi.prod.yaml", "./stacks/Pulumi.prod.yaml"):
        assert main(["plan", "--stack", stack]) == 64
        lines.append(capsys.readouterr().err.strip().splitlines()[-1].replace(repr(stack), "STACK"))
    assert lines[0] == lines[1]
    assert "--stack prod (it reads <stackConfigDir>/Pulumi.prod.yaml)" in lines[0]


@pytest.mark.parametrize("stack", ["dev.yaml", "stacks/config.yml", "stacks/Pulumi.a b.yaml"])
def test_any_yaml_file_path_is_refused_as_a_path(capsys, stack):
    assert main(["plan", "--stack", stack]) == 64
    err = capsys.readouterr().err
    assert f"argument --stack: {stack!r} is a file's path, not a stack name" in err
    assert "e.g. --stack dev" in err


@pytest.mark.parametrize(("value", "name"), [("dev", "dev"), ("v1.2", "v1.2"), ("acme/dev", "dev"),
                                             ("acme/gpu-node-pools/prod", "prod"), ("yaml", "yaml")])
def test_a_stack_name_is_still_taken(value, name):
    assert stack_name(value) == name


@pytest.mark.parametrize("value", ["", "  "])
@pytest.mark.parametrize(("command", "option"), NOT_EMPTY)
def test_an_empty_context_or_plugin_list_is_a_usage_error_not_the_current_context(capsys, command, option, value):
    code = main([command, option, value])
    captured = capsys.readouterr()
    assert code == 64 and captured.out == ""
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith(f"gpupool {command}: error: argument {option}: an empty value; give "), last
