"""The text reports list as NVIDIA device plugins only what ``--json``'s ``devicePlugins`` lists: the objects the plan
or check made from a chart or a manifest (an ordinary DaemonSet such as a log shipper) are shown under a heading of
their own, never indented under the plugins."""

from __future__ import annotations

import json

from conftest import DATA
from test_render_kube_version import needs_helm, project

from gpu_node_pool.cli.commands import main

FOREIGN = DATA / "foreign_project"


def section(text: str, head: str) -> list[str]:
    """The lines of ``text`` from the one starting with ``head`` up to the next empty line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(head))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def test_check_lists_under_the_plugins_heading_only_the_device_plugins_json_lists(capsys):
    main(["check", "--project-dir", str(FOREIGN), "--stack", "ci", "--json"])
    plugins = json.loads(capsys.readouterr().out)["devicePlugins"]
    main(["check", "--project-dir", str(FOREIGN), "--stack", "ci"])
    text = capsys.readouterr().out
    plugin_lines = section(text, "NVIDIA device plugin")
    assert plugin_lines[0] == "NVIDIA device plugin(s): " + "; ".join(plugins)
    assert not any("node-exporter" in line or "yaml (parsed offline)" in line for line in plugin_lines)
    made = section(text, "objects the check made from what the program declares")
    assert "  DaemonSet node-exporter:monitoring/node-exporter: yaml (parsed offline)" in made


@needs_helm
def test_plan_shows_a_charts_daemonset_apart_from_the_device_plugin(capsys, tmp_path):
    main(["plan", "--stack", "ci", "--project-dir", str(project(tmp_path)), "--fail-on", "none"])
    text = capsys.readouterr().out
    made = section(text, "objects the plan made from what the program declares (1)")
    assert made[1] == "  DaemonSet logship:logging/logship: helm template (offline render, --kube-version 1.33)"
    before = text[:text.index("objects the plan made")].rstrip().splitlines()
    assert not any("logship" in line for line in before)
