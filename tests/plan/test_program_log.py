"""What a program logs with ``pulumi.log`` reaches the user of ``gpupool plan`` and ``check`` once, labelled as the
program's; the component's own config warnings are given once, by the report; ``debug`` is not shown."""

from __future__ import annotations

import json
import shutil

import pulumi
from conftest import ROOT
from test_check import copy_project, run_json

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.plan.run import record
from gpu_node_pool.sdk.program_log import collecting, log_own

OLD_K8S = "'1.29': EKS extended support ended"  # the component's config warning of kubernetesVersion "1.29"
LOGS = ('import pulumi\n'
        'pulumi.log.warn("my own warning")\n'
        'pulumi.log.error("my own error")\n'
        'pulumi.log.info("my own note")\n'
        'pulumi.log.debug("my own debug line")\n')


def own_project(tmp_path):
    """This project's program and dev stack (kubernetesVersion 1.29: one config warning), logging :data:`LOGS`."""
    project = tmp_path / "own"
    (project / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    (project / "__main__.py").write_text((ROOT / "__main__.py").read_text() + LOGS)
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text().replace('kubernetesVersion: "1.33"', 'kubernetesVersion: "1.29"')
    (project / "stacks" / "Pulumi.dev.yaml").write_text(text)
    return project


def assert_shown_once(text: str) -> None:
    assert text.count("program warning: my own warning") == 1, text
    assert text.count("program error: my own error") == 1, text
    assert text.count("program info: my own note") == 1, text
    assert "my own debug line" not in text
    assert text.count(OLD_K8S) == 1, text  # the config warning: the report's line, not the component's log too


def test_plan_shows_the_programs_warnings_once_and_its_config_warning_once(capsys, tmp_path):
    project = own_project(tmp_path)
    code = cli.main(["plan", "--project-dir", str(project), "--stack", "dev"])
    captured = capsys.readouterr()
    assert_shown_once(captured.out + captured.err)
    assert "program warning: my own warning" in captured.err  # beside the config warnings, not in the report
    # a logged error fails no Pulumi preview (pulumi/pulumi#5085): the exit code is the findings'
    clean = own_project(tmp_path / "clean")
    (clean / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    assert code == cli.main(["plan", "--project-dir", str(clean), "--stack", "dev"])


def test_check_of_this_projects_program_shows_them_once_and_keeps_them_in_the_json(capsys, tmp_path):
    project = own_project(tmp_path)
    cli.main(["check", "--project-dir", str(project), "--stack", "dev"])
    captured = capsys.readouterr()
    assert_shown_once(captured.out + captured.err)
    _, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "dev")
    assert doc["programLog"] == [{"severity": "warning", "message": "my own warning"},
                                 {"severity": "error", "message": "my own error"},
                                 {"severity": "info", "message": "my own note"}]
    assert [w["path"] for w in doc["warnings"]] == ["cluster.kubernetesVersion"]


def test_check_names_the_resource_a_program_warning_is_about(capsys, tmp_path):
    # the GpuNodePool logs its own config warning on itself (shown once, by the report); the program's own
    # warning on the same component is shown with the component's type and name
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    main.write_text(main.read_text().replace('"subnetIds": subnet_ids}', '"subnetIds": subnet_ids, "kubernetesVersion": "1.29"}')
                    + 'pulumi.log.warn("my own warning", resource=inference)\n')
    cli.main(["check", "--project-dir", str(project), "--stack", "ci"])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert text.count("program warning: gpu-node-pools:index:GpuNodePool inference: my own warning") == 1, text
    assert text.count(OLD_K8S) == 1, text
    _, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")
    assert doc["programLog"] == [{"severity": "warning", "message": "my own warning",
                                  "resource": "gpu-node-pools:index:GpuNodePool inference"}]


def test_a_clean_program_logs_nothing(capsys):
    _, doc = run_json(capsys, "check", "--project-dir", str(ROOT / "tests" / "data" / "foreign_project"), "--stack", "ci")
    assert doc["programLog"] == []
    assert "program warning" not in capsys.readouterr().err


def test_the_mark_is_the_call_not_the_words(capsys):
    # the component's message is left out because it is logged through log_own; the program's own message
    # with the very same words, on the same resource or none, is shown
    def program() -> None:
        thing = pulumi.ComponentResource("test:index:Thing", "thing")
        log_own(pulumi.log.warn, "pool.instanceTypes: same words", resource=thing)
        log_own(pulumi.log.warn, "pool.instanceTypes: same words")
        pulumi.log.warn("pool.instanceTypes: same words", resource=thing)
        pulumi.log.warn("pool.instanceTypes: same words")

    with collecting() as kept:
        record(program)
    err = capsys.readouterr().err
    # a message about a resource is sent once its URN resolves: after the one about none
    assert err.splitlines() == ["program warning: pool.instanceTypes: same words",
                                "program warning: test:index:Thing thing: pool.instanceTypes: same words"]
    assert [e.get("resource") for e in kept] == [None, "test:index:Thing thing"]


def test_a_message_cannot_forge_a_line_or_drive_the_terminal(capsys):
    def program() -> None:
        pulumi.log.warn("first line\nexit 0: clean\x1b[2J")

    record(program)
    assert capsys.readouterr().err.splitlines() == ["program warning: first line", "  exit 0: clean\\x1b[2J"]


def test_what_a_program_logged_before_it_failed_still_reaches_the_user(capsys, tmp_path):
    # raised: exit 2, and the JSON keeps the warning; ended its Python: the warning was on stderr already
    project = copy_project(tmp_path)
    main = project / "__main__.py"
    text = 'import pulumi\npulumi.log.warn("before the failure")\n' + main.read_text()
    for end, said in (('raise RuntimeError("boom")\n', "the program raised"), ("import os\nos._exit(0)\n", "ended its Python")):
        main.write_text(text + end)
        code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
        captured = capsys.readouterr()
        doc = json.loads(captured.out)
        assert code == 2 and said in doc["configErrors"][0]["message"]
        assert captured.err.count("program warning: before the failure") == 1, captured.err
        if said == "the program raised":
            assert doc["programLog"] == [{"severity": "warning", "message": "before the failure"}]
