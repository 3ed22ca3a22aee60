"""``plan`` and ``render`` run the program in gpupool's process: what it prints goes to stderr, as under ``check``,
so ``--json`` and ``--format sarif`` stay one document on stdout."""

from __future__ import annotations

import json
import textwrap

import jsonschema
from conftest import ROOT, shipped_project

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.cli.contract import report_schema

VALIDATOR = jsonschema.Draft202012Validator(report_schema())
PRINTS = textwrap.dedent("""\
    import os
    import pulumi
    print("hello from the program")
    os.write(1, b"fd one from the program\\n")
    pulumi.Output.from_input("x").apply(lambda v: print("printed in an apply"))
""")


def test_plan_and_render_json_stay_one_document_when_the_program_prints(capfd, tmp_path):
    root = shipped_project(tmp_path / "p", {"dev": (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()})
    (root / "__main__.py").write_text(PRINTS + (ROOT / "__main__.py").read_text())
    for argv in (["plan", "--json"], ["plan", "--format", "sarif"],
                 ["render", "--out", str(tmp_path / "out"), "--json"]):
        code = cli.main([*argv, "--project-dir", str(root), "--stack", "dev"])
        out, err = capfd.readouterr()
        doc = json.loads(out)  # stdout: the report only
        assert "hello from the program" not in out and "fd one" not in out
        assert "hello from the program" in err and "fd one from the program" in err and "printed in an apply" in err
        if argv[0] == "plan" and "--json" in argv:
            assert not [e.message for e in VALIDATOR.iter_errors(doc)]
            assert doc["exitCode"] == code == 0
    print("stdout is stdout again")  # given back after the run
    assert capfd.readouterr().out == "stdout is stdout again\n"
