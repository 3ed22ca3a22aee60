"""Expansion end to end: charts, YAML components, Releases and EKS add-ons are opened by the plan and judged.

Each test writes a small Pulumi project (the shipped stack ``dev``'s config and program, plus
the resource under test) and runs ``gpupool plan --json`` on it, as a user would. Charts come
from ``../shared/charts`` (unmodified upstream); tests that render skip visibly without Helm.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema
from gpu_node_pool.plan.expand import locate_helm

CHARTS = next((d / "shared" / "charts" for d in (ROOT.parent, ROOT.parent.parent) if (d / "shared" / "charts").is_dir()),
              ROOT.parent / "shared" / "charts")
HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or beside the venv's python (make setup installs it)")
needs_charts = pytest.mark.skipif(not CHARTS.is_dir(), reason=f"{CHARTS} is absent (the shared test charts)")

DAEMONSETS = "daemonsets-tolerate-gpu-taints"
RULE = "resources-judged"
UNTOLERATED = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-agent, namespace: monitoring}
spec:
  selector: {matchLabels: {app: node-agent}}
  template:
    metadata: {labels: {app: node-agent}}
    spec:
      containers: [{name: agent, image: example.com/agent:1.0}]
"""


@pytest.fixture
def project(tmp_path: Path):
    """``write(extra_program) -> project dir``: the shipped project and stack dev, plus ``extra_program``."""

    def write(extra: str) -> Path:
        shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
        (tmp_path / "stacks").mkdir(exist_ok=True)
        shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
        (tmp_path / "node-agent.yaml").write_text(UNTOLERATED)
        program = "import pulumi\nimport pulumi_kubernetes as k8s\nimport pulumi_aws as aws\n" \
                  "from gpu_node_pool.component.program import main\n\nmain()\n" + textwrap.dedent(extra)
        (tmp_path / "__main__.py").write_text(program)
        return tmp_path

    return write


def plan(project_dir: Path, capsys, *args: str) -> tuple[int, dict]:
    code = main(["plan", "--stack", "dev", "--project-dir", str(project_dir), "--json", *args])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    assert doc["exitCode"] == code
    return code, doc


def findings(doc: dict, policy: str) -> list[dict]:
    return [v for v in doc["violations"] if v["policy"] == policy]


FLUENT_BIT = """
k8s.helm.v4.Chart("aws-for-fluent-bit", chart={chart!r}, namespace="logging"{values})
"""


@needs_helm
@needs_charts
def test_fluent_bit_chart_beside_a_tainted_pool_fails_naming_its_daemonset(project, capsys):
    code, doc = plan(project(FLUENT_BIT.format(chart=str(CHARTS / "aws-for-fluent-bit"), values="")), capsys)
    [finding] = findings(doc, DAEMONSETS)
    assert finding["enforcement"] == "mandatory"
    assert "DaemonSet logging/aws-for-fluent-bit" in finding["message"]
    assert finding["resource"] == "kubernetes:apps/v1:DaemonSet aws-for-fluent-bit:logging/aws-for-fluent-bit"
    child = next(r for r in doc["resources"] if r["name"] == "aws-for-fluent-bit:logging/aws-for-fluent-bit")
    assert child["synthesized"].startswith("helm template (offline render, --kube-version 1.33")
    # The device plugin is still ours, and still covers the pool: exit 1 for the right reason only.
    assert doc["devicePlugin"]["chart"] == "nvidia-device-plugin"
    assert all(c["tolerated"] for c in doc["devicePlugin"]["coverage"])
    assert code == 1 and doc["notJudged"] == []


@needs_helm
@needs_charts
def test_fluent_bit_with_exists_toleration_passes_and_is_not_the_device_plugin(project, capsys):
    values = ', values={"tolerations": [{"operator": "Exists"}]}'
    directory = project(FLUENT_BIT.format(chart=str(CHARTS / "aws-for-fluent-bit"), values=values))
    code, doc = plan(directory, capsys)
    assert findings(doc, DAEMONSETS) == []
    assert doc["devicePlugin"]["chart"] == "nvidia-device-plugin"
    # A catch-all toleration on a DaemonSet outside the allowed namespaces: advised against, never refused
    # (the allow-list judges workloads, not node agents):
    assert {(v["policy"], v["enforcement"]) for v in doc["violations"]} == {("daemonsets-tolerate-exactly", "advisory")}
    assert code == 0
    config = directory / "pack.json"
    config.write_text(json.dumps({"daemonsets-tolerate-exactly": {"allowedNamespaces": ["logging"]}}))
    code, doc = plan(directory, capsys, "--policy-pack-config", str(config))
    assert code == 0 and doc["violations"] == [], doc["violations"]


def test_remote_chart_without_helm_is_not_judged_and_coverage_still_comes_from_the_component(
        project, capsys, tmp_path, monkeypatch):
    extra = 'k8s.helm.v4.Chart("aws-for-fluent-bit", chart="aws-for-fluent-bit", version="0.1.35", ' \
            'repository_opts={"repo": "https://aws.github.io/eks-charts"})\n'
    code = main(["plan", "--stack", "dev", "--project-dir", str(project(extra)), "--helm", str(tmp_path / "nothing")])
    assert code == 2 and "--helm" in capsys.readouterr().err  # names nothing: invalid input, not a silent fallback
    monkeypatch.setenv("PATH", str(tmp_path))  # no helm anywhere
    monkeypatch.setattr("gpu_node_pool.plan.expand.locate_helm", lambda helm=None: None)
    code, doc = plan(project(extra), capsys)
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:helm.sh/v4:Chart" and item["resource"].endswith("::aws-for-fluent-bit")
    assert "no helm executable" in item["reason"] and "--helm PATH" in item["fix"]
    [finding] = findings(doc, RULE)
    assert finding["enforcement"] == "advisory" and item["reason"] in finding["message"]
    assert doc["devicePlugin"]["chart"] == "nvidia-device-plugin"
    assert [c["tolerated"] for c in doc["devicePlugin"]["coverage"]] == [True]
    assert code == 0
    code, doc = plan(project(extra), capsys, "--strict")
    assert findings(doc, RULE)[0]["enforcement"] == "mandatory" and code == 1


@pytest.mark.parametrize(
    "extra",
    [
        'k8s.yaml.v2.ConfigGroup("agents", yaml=open("node-agent.yaml").read())\n',
        'k8s.yaml.v2.ConfigGroup("agents", files=["node-agent.yaml"])\n',
        'k8s.yaml.ConfigGroup("agents", yaml=[open("node-agent.yaml").read()])\n',
        'k8s.yaml.ConfigFile("agents", file="node-agent.yaml")\n',
    ],
    ids=["v2-yaml", "v2-files", "v1-group", "v1-file"],
)
def test_an_untolerated_daemonset_from_yaml_is_mandatory(project, capsys, extra, monkeypatch):
    directory = project(extra)
    monkeypatch.chdir(directory)  # v1 reads files relative to the program's working directory, as pulumi runs it
    code, doc = plan(directory, capsys)
    [finding] = findings(doc, DAEMONSETS)
    assert finding["enforcement"] == "mandatory" and "DaemonSet monitoring/node-agent" in finding["message"]
    assert code == 1 and doc["notJudged"] == []


def test_v1_transformations_run_and_can_fix_the_daemonset(project, capsys, monkeypatch):
    extra = """
    def tolerate(obj, opts):
        if obj["kind"] == "DaemonSet":
            obj["metadata"]["namespace"] = "kube-system"  # a node agent, where catch-all tolerations are allowed
            obj["spec"]["template"]["spec"]["tolerations"] = [{"operator": "Exists"}]
    k8s.yaml.ConfigGroup("agents", yaml=[open("node-agent.yaml").read()], transformations=[tolerate])
    """
    directory = project(extra)
    monkeypatch.chdir(directory)
    code, doc = plan(directory, capsys)
    assert code == 0 and doc["violations"] == [], doc["violations"]
    assert any(r["name"].endswith("kube-system/node-agent") for r in doc["resources"])


def test_a_remote_v1_config_file_is_not_judged_and_never_fetched(project, capsys):
    code, doc = plan(project('k8s.yaml.ConfigFile("remote", file="https://example.invalid/agent.yaml")\n'), capsys)
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:yaml:ConfigFile" and "remote URL" in item["reason"]
    assert item["resource"].endswith("kubernetes:yaml:ConfigFile::remote")
    assert [f["resource"] for f in findings(doc, RULE)] == ["kubernetes:yaml:ConfigFile remote"]
    assert code == 0


RELEASE = 'k8s.helm.v3.Release("fluent-bit", chart={chart!r}, namespace="logging")\n'


@needs_helm
@needs_charts
def test_a_release_is_judged_offline_and_its_findings_say_so(project, capsys):
    code, doc = plan(project(RELEASE.format(chart=str(CHARTS / "aws-for-fluent-bit"))), capsys)
    [finding] = findings(doc, DAEMONSETS)
    assert finding["source"] == "offline-render" and finding["enforcement"] == "mandatory"
    assert "DaemonSet logging/fluent-bit-aws-for-fluent-bit" in finding["message"]
    assert doc["notJudged"] == [] and code == 1


def test_a_release_that_cannot_be_rendered_is_not_judged_advisory_then_mandatory_with_strict(project, capsys):
    directory = project(RELEASE.format(chart="no-such-chart"))  # no repository, not in the chart cache
    code, doc = plan(directory, capsys)
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:helm.sh/v3:Release"
    [finding] = findings(doc, RULE)
    assert finding["enforcement"] == "advisory" and code == 0
    code, doc = plan(directory, capsys, "--strict")
    assert findings(doc, RULE)[0]["enforcement"] == "mandatory" and code == 1
    config = directory / "pack.json"
    config.write_text(json.dumps({RULE: {"strict": True}}))
    code, doc = plan(directory, capsys, "--policy-pack-config", str(config))
    assert findings(doc, RULE)[0]["enforcement"] == "mandatory" and code == 1


@pytest.mark.parametrize("resource", [RELEASE, 'k8s.helm.v4.Chart("fluent-bit", chart={chart!r}, namespace="logging")\n'])
def test_a_chart_path_where_nothing_is_is_an_error_at_its_input_as_a_real_preview_fails(project, capsys, resource):
    directory = project(resource.format(chart="./charts/no-such-chart"))
    code, doc = plan(directory, capsys)
    assert code == 2 and doc["exitCode"] == 2
    [error] = doc["configErrors"]
    kind = "v3:Release" if "Release" in resource else "v4:Chart"
    assert error["path"] == f"kubernetes:helm.sh/{kind} 'fluent-bit' chart"
    assert error["message"].startswith(f"'./charts/no-such-chart' is a local chart path and nothing is there "
                                       f"({directory / 'charts' / 'no-such-chart'})")
    assert "pulumi/pulumi-kubernetes provider/pkg/provider/" in error["message"]
    assert f"relative to the directory Pulumi runs the program in ({directory})" in error["message"]
    assert error["location"]["file"] == "__main__.py" and error["location"]["line"] == 7
    assert doc["notJudged"] == []  # an error, not an item left unjudged
    code = main(["plan", "--stack", "dev", "--project-dir", str(directory)])
    text = "".join(capsys.readouterr())  # an invalid input's text is on stderr
    assert code == 2 and "__main__.py:7:" in text and "'./charts/no-such-chart' is a local chart path" in text


def test_node_monitoring_agent_addon_beside_a_tainted_pool_fails_naming_dcgm_server(project, capsys):
    extra = 'aws.eks.Addon("monitoring", cluster_name="ml-dev", addon_name="eks-node-monitoring-agent", ' \
            'addon_version="v1.4.0-eksbuild.1")\n'
    code, doc = plan(project(extra), capsys)
    messages = [f["message"] for f in findings(doc, DAEMONSETS)]
    assert any("dcgm-server" in m for m in messages), doc["violations"] + doc["notJudged"]
    child = next(r for r in doc["resources"] if r["name"].endswith("/dcgm-server"))
    assert child["synthesized"].startswith("facts: ")
    assert code == 1


def test_an_addon_the_facts_do_not_know_is_not_judged(project, capsys):
    code, doc = plan(project('aws.eks.Addon("x", cluster_name="ml-dev", addon_name="made-up-agent")\n'), capsys)
    [item] = doc["notJudged"]
    assert item["type"] == "aws:eks/addon:Addon" and "made-up-agent" in item["reason"]
    assert findings(doc, RULE) and code == 0


def test_text_report_has_a_not_judged_section(project, capsys):
    directory = project('k8s.yaml.ConfigFile("remote", file="https://example.invalid/agent.yaml")\n')
    code = main(["plan", "--stack", "dev", "--project-dir", str(directory)])
    out = capsys.readouterr().out
    assert "not judged: 1 resource(s)" in out and "remote URL" in out and "fix: download the manifest" in out
    assert code == 0


@needs_helm
@needs_charts
def test_the_real_device_plugin_render_replaces_the_stand_in(project, capsys, tmp_path, monkeypatch):
    """With the chart in Helm's repository cache the plan judges the real chart's DaemonSets, not the stand-in."""
    import subprocess

    cache = tmp_path / "helm-cache"
    subprocess.run([HELM, "package", str(CHARTS / "nvidia-device-plugin"), "-d", str(cache)], check=True,
                   capture_output=True, env={"HELM_CACHE_HOME": str(tmp_path / "h"), "HELM_CONFIG_HOME": str(tmp_path / "h"),
                                             "HELM_DATA_HOME": str(tmp_path / "h"), "PATH": "/usr/bin:/bin"})
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(cache))
    code, doc = plan(project(""), capsys)
    plugin = [r for r in doc["resources"] if r["type"] == "kubernetes:apps/v1:DaemonSet"]
    assert plugin and all(r["synthesized"].startswith("helm template") for r in plugin)
    names = {r["inputs"]["metadata"]["name"] for r in plugin}
    assert "nvidia-device-plugin-chart" in names
    assert code == 0 and doc["violations"] == [] and doc["notJudged"] == []
