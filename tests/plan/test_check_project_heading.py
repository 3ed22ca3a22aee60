"""``gpupool check`` names the project in its heading and its error list even when ``Pulumi.yaml`` itself is the
error: by the project's directory, the name a user knows it by, never ``''`` or ``'?'``."""

from __future__ import annotations

from gpu_node_pool.cli.commands import main


def test_a_pulumi_yaml_that_does_not_parse_is_reported_under_the_projects_directory(capsys, tmp_path):
    root = tmp_path / "team-agents"
    root.mkdir()
    (root / "Pulumi.yaml").write_text("name: team\nruntime:\n\tname: python\n")
    (root / "Pulumi.ci.yaml").write_text("config: {}\n")
    (root / "__main__.py").write_text("")
    assert main(["check", "--project-dir", str(root), "--stack", "ci"]) == 2
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "gpupool check of project 'team-agents', stack 'ci'" in out
    assert "1 error in the project 'team-agents'" in out
    assert "project ''" not in out and "project '?'" not in out
    assert "Pulumi.yaml:3:1:" in out and "the character there is a tab" in out
