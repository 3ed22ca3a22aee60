"""The text "not judged" section of ``gpupool plan`` and ``gpupool check``: its header counts items and the distinct
resources they are about (a resource two policies could not judge has two items), and it lists the items in the
order of their places in the program (file, line, column), items without a place last in the report's order.
The JSON ``notJudged`` list holds the same items in the report's order."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.locate import not_judged_lines

HEADER = "no policy could judge, each with why:"
#: Four resources not judged at preview, constructed out of the order the report finds them in: a DaemonSet whose
#: tolerations are unknown (two policies cannot judge it: two items), a remote manifest, a Release with a file
#: asset in its values, and a second such DaemonSet (two items).
EXTRA = """
tolerations = aws.iam.Role("probe-role", assume_role_policy="{}").arn.apply(
    lambda _: [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
k8s.apps.v1.DaemonSet("probe-b", metadata={"name": "probe-b", "namespace": "monitoring"}, spec={
    "selector": {"matchLabels": {"app": "b"}}, "template": {"metadata": {"labels": {"app": "b"}}, "spec": {
        "tolerations": tolerations, "containers": [{"name": "p", "image": "busybox"}]}}})
k8s.yaml.ConfigFile("remote", file="https://example.invalid/agent.yaml")
k8s.helm.v3.Release("agent", chart="./agent", namespace="monitoring", values={"banner": pulumi.FileAsset("banner.txt")})
k8s.apps.v1.DaemonSet("probe-a", metadata={"name": "probe-a", "namespace": "monitoring"}, spec={
    "selector": {"matchLabels": {"app": "a"}}, "template": {"metadata": {"labels": {"app": "a"}}, "spec": {
        "tolerations": tolerations, "containers": [{"name": "p", "image": "busybox"}]}}})
"""


def project(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """The shipped project and stack ``dev`` with :data:`EXTRA` in its program; ``{resource name: its line}``."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    (tmp_path / "agent" / "templates").mkdir(parents=True)
    (tmp_path / "agent" / "Chart.yaml").write_text("apiVersion: v2\nname: agent\nversion: 0.1.0\n")
    (tmp_path / "banner.txt").write_text("hello\n")
    program = ("import pulumi\nimport pulumi_aws as aws\nimport pulumi_kubernetes as k8s\n"
               "from gpu_node_pool.component.program import main\n\nmain()\n" + EXTRA)
    (tmp_path / "__main__.py").write_text(program)
    lines = program.splitlines()
    return tmp_path, {name: next(i for i, text in enumerate(lines, 1) if f'("{name}"' in text)
                      for name in ("probe-b", "remote", "agent", "probe-a")}


def section(out: str) -> list[str]:
    """The "not judged" section of a text report: its header line, then its lines up to the first blank one."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("not judged: ") and line.endswith(HEADER))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def places(lines: list[str]) -> list[int]:
    """The program line each item of a section is placed at, in the order listed."""
    return [int(m.group(1)) for line in lines if (m := re.match(r"  __main__\.py:(\d+):1: ", line))]


def test_plan_and_check_count_items_and_resources_and_list_them_in_program_order(capsys, tmp_path):
    directory, at = project(tmp_path)
    main(["plan", "--stack", "dev", "--project-dir", str(directory)])
    planned = section(capsys.readouterr().out)
    main(["check", "--stack", "dev", "--project-dir", str(directory)])
    checked = section(capsys.readouterr().out)
    assert planned[0] == f"not judged: 6 item(s) on 4 resource(s) {HEADER}", planned[0]
    assert places(planned) == sorted(places(planned)), planned
    # each DaemonSet's two items, then the manifest, the Release, the other DaemonSet's two, as the program reads
    assert places(planned) == [at["probe-b"]] * 2 + [at["remote"], at["agent"]] + [at["probe-a"]] * 2, planned
    assert checked == planned


def test_the_json_lists_the_same_items_in_the_reports_order(capsys, tmp_path):
    directory, at = project(tmp_path)
    main(["plan", "--stack", "dev", "--project-dir", str(directory), "--json"])
    items = json.loads(capsys.readouterr().out)["notJudged"]
    main(["plan", "--stack", "dev", "--project-dir", str(directory)])
    text = "\n".join(section(capsys.readouterr().out))
    assert len(items) == 6 and len({item["resource"] for item in items}) == 4
    for item in items:  # every JSON item is in the text, at its place
        assert f"__main__.py:{item['location']['line']}:1: " in text and item["reason"] in text, item
    # the JSON is not re-sorted: the report finds the manifest and the Release before the DaemonSets' notes
    assert [item["location"]["line"] for item in items][:2] == [at["remote"], at["agent"]], items


def item(resource: str, where: tuple[str, int, int] | None, reason: str) -> dict:
    placed = {"location": dict(zip(("file", "line", "column"), where, strict=True))} if where else {}
    kind = "stack" if resource == "stack" else "kubernetes:apps/v1:DaemonSet"
    return {"resource": resource, "type": kind, "reason": reason, "fix": "f", **placed}


def listed(items: list[dict]) -> list[str]:
    return [line for line in not_judged_lines(SimpleNamespace(not_judged=items, resources=[]))[2:]
            if not line.startswith("    fix: ")]


def test_items_sort_by_file_line_and_column_and_those_without_a_place_come_last_in_their_order():
    items = [item("stack", None, "s1"), item("urn:b", ("stacks/Pulumi.dev.yaml", 3, 5), "b"),
             item("urn:c", ("__main__.py", 20, 1), "c"), item("urn:d", None, "d"),
             item("urn:a", ("__main__.py", 20, 1), "a"), item("stack", None, "s2"),
             item("urn:e", ("__main__.py", 4, 9), "e"), item("urn:f", ("__main__.py", 4, 2), "f")]
    assert [line.rsplit(": ", 1)[-1] for line in listed(items)] == ["f", "e", "c", "a", "b", "s1", "d", "s2"]
    header = not_judged_lines(SimpleNamespace(not_judged=items, resources=[]))[1]
    assert header == f"not judged: 6 resource(s) and 2 stack-wide item(s) {HEADER}", header


def test_the_header_counts_what_it_lists():
    one_each = [item("urn:a", None, "a"), item("urn:b", None, "b")]
    assert not_judged_lines(SimpleNamespace(not_judged=one_each, resources=[]))[1] == f"not judged: 2 resource(s) {HEADER}"
    twice = [*one_each, item("urn:a", None, "a2")]
    assert not_judged_lines(SimpleNamespace(not_judged=twice, resources=[]))[1] == \
        f"not judged: 3 item(s) on 2 resource(s) {HEADER}"
    stack_only = [item("stack", None, "s")]
    assert not_judged_lines(SimpleNamespace(not_judged=stack_only, resources=[]))[1] == \
        f"not judged: 1 stack-wide item(s) {HEADER}"
