"""Two YAML problems PyYAML words in its own terms are said in a stack file's: a second document (``---``), which
Pulumi's reader (gopkg.in/yaml.v3 Unmarshal) silently drops, and a key that is a list or mapping."""

from __future__ import annotations

from conftest import ROOT, plan_stack_text

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()


def test_a_second_document_is_named_with_pulumis_reading_and_the_fix(capsys, temp_project):
    text = DEV + "---\nconfig:\n  aws:region: us-east-1\n"
    code, out = plan_stack_text(capsys, temp_project, text)
    line = len(DEV.splitlines()) + 1
    assert code == 2
    assert f"stacks/Pulumi.mine.yaml:{line}:1: starts a second YAML document ('---'): Pulumi reads only the first" in out
    assert "gopkg.in/yaml.v3" in out and "remove this '---' line" in out
    assert "but found another document" not in out


def test_a_key_that_is_a_list_says_keys_are_strings(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, "config:\n  ? [a, b]\n  : 1\n")
    assert code == 2
    assert "stacks/Pulumi.mine.yaml:2:" in out and "has a key that is a list or mapping" in out
    assert "write the key as text" in out and "unhashable" not in out


def test_a_leading_document_marker_is_one_document(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, "---\n" + DEV)
    assert code == 0, out


def test_a_lone_document_marker_at_the_end_is_an_empty_last_document_not_a_mistake(capsys, temp_project):
    code, out = plan_stack_text(capsys, temp_project, DEV + "---\n\n# end\n")
    assert code == 0, out
