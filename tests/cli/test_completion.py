"""``gpupool completion``: the script shtab writes from the parser, completed by a real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def _script(capsys, shell: str) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def _complete(script_path, words: str) -> list[str]:
    """What bash offers after ``words`` (a trailing space: the next word), in the repository root."""
    probe = (
        f'source "{script_path}"; line=$1; read -ra COMP_WORDS <<< "$line"; [[ $line == *" " ]] && COMP_WORDS+=("");'
        ' COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMP_LINE=$line; COMP_POINT=${#line}; COMPREPLY=(); _shtab_gpupool;'
        ' printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", probe, "probe", words], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout.split()


@needs_bash
def test_bash_completes_commands_options_choices_and_stack_names(capsys, tmp_path):
    script = tmp_path / "gpupool.bash"
    script.write_text(_script(capsys, "bash"))
    assert _complete(script, "gpupool pl") == ["plan"]
    assert "completion" in _complete(script, "gpupool ")
    assert set(_complete(script, "gpupool plan --")) >= {"--stack", "--quiet", "--format", "--html", "--fail-on"}
    assert _complete(script, "gpupool plan --format ") == ["text", "json", "sarif"]
    stacks = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))
    assert _complete(script, "gpupool validate --stack ") == stacks and "dev" in stacks
    assert _complete(script, "gpupool audit --fail-on ") == ["info", "advisory", "mandatory", "none"]


def test_every_shell_gets_a_script_naming_every_command(capsys):
    for shell in ("bash", "zsh", "tcsh"):
        text = _script(capsys, shell)
        for command in ("plan", "render", "validate", "check", "schema", "policy-pack", "audit", "completion"):
            assert command in text, (shell, command)


def test_an_unknown_shell_is_a_usage_error(capsys):
    assert main(["completion", "cmd.exe"]) == 64
    assert "invalid choice: 'cmd.exe'" in capsys.readouterr().err
