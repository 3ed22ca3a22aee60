"""A values file with several YAML documents (``---``): the Kubernetes provider reads its first document only
(pulumi/pulumi-kubernetes provider/pkg/helm/values.go@v4.32.0 reads each file with sigs.k8s.io/yaml Unmarshal, which
decodes the first document), while ``helm template -f`` of Helm v4 merges them all (loader.LoadValues). The judging
and ``gpupool render`` follow the provider, and say which documents ``pulumi up`` leaves out."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.helm_values import first_document, merged_values, values_documents
from gpu_node_pool.expand.result import Expanded
from gpu_node_pool.plan.expand import locate_helm

CHART = "kubernetes:helm.sh/v4:Chart"
RELEASE = "kubernetes:helm.sh/v3:Release"
ASSET = {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17"}  # Pulumi's asset signature
HELM = locate_helm()
needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or beside this Python (make setup installs it)")

TWO = "team: ml\nreplicas: 1\n---\nreplicas: 3\nextra: yes\n"


@pytest.mark.parametrize(("text", "first", "later"), [
    ("a: 1\n", "a: 1\n", None),
    ("---\na: 1\n", "---\na: 1\n", None),
    ("# header\n---\na: 1\n", "# header\n---\na: 1\n", None),  # comments before the first --- are no document
    ("a: 1\n---\nb: 2\n", "a: 1\n", 2),
    ("a: 1\n--- {b: 2}\n", "a: 1\n", 2),
    ("a: 1\n...\n---\nb: 2\n", "a: 1\n...", 3),
    ("---\n---\nb: 2\n", "---\n", 2),  # an empty first document: the provider reads no values at all
    ("a: 1\n---\n", "a: 1\n", None),  # an empty later document adds nothing
    ("a: 1\n---\n~\n---\n# only a comment\n", "a: 1\n", None),
    ("a: |\n  ---\n  text\n", "a: |\n  ---\n  text\n", None),  # --- inside a block scalar is text
    ("a: 1\n---\nb: [\n", "a: 1\n", 2),  # a later document that is no YAML is left out as the provider leaves it
    ("a: [\n---\nb: 2\n", "a: [\n---\nb: 2\n", None),  # a broken first document is helm's to refuse, whole
])
def test_first_document_is_the_text_the_provider_reads(text, first, later):
    assert first_document(text) == (first, later)


@pytest.mark.parametrize("chart_type", [CHART, RELEASE])
def test_helm_is_given_the_first_document_with_a_note_naming_the_line_and_both_sources(tmp_path, chart_type):
    (tmp_path / "values.yaml").write_text(TWO)
    notes: list[str] = []
    docs = values_documents(chart_type, {"valueYamlFiles": [{**ASSET, "path": "values.yaml"}, {**ASSET, "text": "a: 1\n"}],
                                         "values": {"b": 2}}, tmp_path, notes)
    assert docs == ["team: ml\nreplicas: 1\n", "a: 1\n", '{"b": 2}']
    [note] = notes
    assert note.startswith("valueYamlFiles[0] holds more than one YAML document; the Kubernetes provider reads only "
                           "the first")
    assert "without the documents from line 3 on" in note
    assert "provider/pkg/helm/values.go@v4.32.0" in note and "helm/helm pkg/cli/values/options.go@v4.1.4" in note


def test_render_writes_the_values_the_provider_installs(tmp_path):
    notes: list[str] = []
    values = merged_values(CHART, {"valueYamlFiles": [{**ASSET, "text": TWO}], "values": {"team": "vision"}},
                           tmp_path, notes)
    assert values == {"team": "vision", "replicas": 1}  # not replicas: 3, not extra: true
    assert len(notes) == 1 and "from line 3 on" in notes[0]


def test_a_file_of_one_document_adds_no_note(tmp_path):
    notes: list[str] = []
    assert merged_values(CHART, {"valueYamlFiles": [{**ASSET, "text": "---\nreplicas: 2\n---\n"}]}, tmp_path,
                         notes) == {"replicas": 2}
    assert notes == []


@needs_helm
def test_a_real_helm_renders_the_chart_with_the_first_document_only(tmp_path):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
        "data:\n  replicas: {{ .Values.replicas | quote }}\n  extra: {{ .Values.extra | default \"unset\" | quote }}\n")
    (tmp_path / "values.yaml").write_text(TWO)
    with HelmRenderer(HELM, base_dir=Path(tmp_path)) as r:
        result = r.render(CHART, "c", {"chart": str(chart), "valueYamlFiles": [{**ASSET, "path": "values.yaml"}]})
    assert isinstance(result, Expanded), result
    [cm] = result.objects
    assert cm["data"] == {"replicas": "1", "extra": "unset"}  # Helm v4's -f of the whole file would give 3 and true
    assert any("from line 3 on" in n for n in result.notes)
