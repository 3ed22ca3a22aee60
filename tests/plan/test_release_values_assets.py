"""A Pulumi asset inside a ``helm.v3.Release``'s ``values``: the provider hands Helm the asset object, not the file's
text, so the plan reports the Release as not judged with why and never renders it without the value; a file path
that names nothing is an error at that value, as the engine's asset hash fails a real preview.

Sources: pulumi/pulumi-kubernetes provider/pkg/provider/helm_release.go@v4.32.0 (decodeRelease, getValues);
pulumi/pulumi sdk/go/common/resource/properties.go@v3.243.0 (MapRepl keeps *asset.Asset);
pulumi/pulumi pkg/resource/deploy/source_eval.go@v3.243.0 (RegisterResource, ComputeAssetHashes).
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

RULE = "resources-judged"
#: A local chart whose one DaemonSet tolerates nothing: judged, it fails daemonsets-tolerate-gpu-taints.
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: agent\nversion: 0.1.0\n",
    "values.yaml": "banner: ''\n",
    "templates/ds.yaml": textwrap.dedent("""\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: agent, namespace: monitoring, annotations: {banner: {{ .Values.banner | quote }}}}
        spec:
          selector: {matchLabels: {app: agent}}
          template:
            metadata: {labels: {app: agent}}
            spec:
              containers: [{name: agent, image: example.com/agent:1.0}]
        """),
}


def project(tmp_path: Path, values: str) -> Path:
    """The shipped project and stack ``dev``, the local chart, and a Release of it with ``values``."""
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    for name, text in CHART.items():
        (tmp_path / "agent" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "agent" / name).write_text(text)
    (tmp_path / "banner.txt").write_text("hello\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi\nimport pulumi_kubernetes as k8s\nfrom gpu_node_pool.component.program import main\n\nmain()\n"
        f'k8s.helm.v3.Release("agent", chart="./agent", namespace="monitoring", values={values})\n')
    return tmp_path


def plan(directory: Path, capsys) -> tuple[int, dict]:
    code = main(["plan", "--stack", "dev", "--project-dir", str(directory), "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    return code, doc


@pytest.mark.parametrize("asset", ['pulumi.StringAsset("hello")', 'pulumi.FileAsset("banner.txt")',
                                   'pulumi.FileArchive("agent")'])
def test_an_asset_in_a_releases_values_is_not_judged_with_why_and_the_chart_is_not_rendered(capsys, tmp_path, asset):
    code, doc = plan(project(tmp_path, f'{{"banner": {asset}}}'), capsys)
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:helm.sh/v3:Release" and item["resource"].endswith("::agent")
    assert item["reason"].startswith("values.banner is a Pulumi ")
    assert "hands Helm the asset object itself as that value, not the file's text" in item["reason"]
    assert "provider/pkg/provider/helm_release.go@v4.32.0, decodeRelease" in item["reason"]
    assert "valueYamlFiles" in item["fix"] and "read the file in the program" in item["fix"]
    assert item["location"] == {"file": "__main__.py", "line": 6, "column": 1}
    [finding] = [v for v in doc["violations"] if v["policy"] == RULE]
    assert item["reason"] in finding["message"] and finding["enforcement"] == "advisory"
    assert not [v for v in doc["violations"] if v.get("source") == "offline-render"]  # never rendered without it
    assert code == 0


@pytest.mark.skipif(locate_helm() is None, reason="no helm on PATH or beside the venv's python (make setup installs it)")
def test_the_same_release_with_the_text_as_its_value_is_rendered_and_judged(capsys, tmp_path):
    code, doc = plan(project(tmp_path, '{"banner": "hello"}'), capsys)
    assert doc["notJudged"] == []
    rendered = [v for v in doc["violations"] if v.get("source") == "offline-render"]
    assert rendered and any("DaemonSet monitoring/agent" in v["message"] for v in rendered), doc["violations"]
    assert code == 1


def test_a_file_asset_in_a_releases_values_that_names_nothing_is_an_error_at_that_value(capsys, tmp_path):
    code, doc = plan(project(tmp_path, '{"banner": pulumi.FileAsset("baner.txt")}'), capsys)
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:helm.sh/v3:Release 'agent' values.banner"
    assert "cannot read baner.txt" in error["message"] and "did you mean 'banner.txt'?" in error["message"]
    assert "source_eval.go@v3.243.0, RegisterResource with ComputeAssetHashes" in error["message"]
    assert error["location"]["file"] == "__main__.py" and error["location"]["line"] == 6
