"""A chart Helm refuses to render whatever runs it is an error of the program, at ``values`` or ``chart``; a render
that fails only offline stays not judged. Rendered with the real Helm."""

from __future__ import annotations

import pytest

from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.helm_fixes import KUBE_VERSION, VALUES
from gpu_node_pool.expand.render_failure import render_failure
from gpu_node_pool.expand.result import Expanded, NotJudged, RefusedInput
from gpu_node_pool.plan.expand import locate_helm

HELM = locate_helm()
pytestmark = pytest.mark.skipif(HELM is None, reason="no helm on PATH or in venv/bin (make setup installs it)")
CHART = "kubernetes:helm.sh/v4:Chart"
RELEASE = "kubernetes:helm.sh/v3:Release"
DS = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: x}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      tolerations: {{ required "need tol" .Values.tol | toJson }}
      containers: [{name: a, image: busybox}]
"""


def chart(root, name="bad", *, kube="", template=DS, extra=None):
    d = root / "charts" / name
    (d / "templates").mkdir(parents=True)
    (d / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n"
                                  + (f"kubeVersion: {kube!r}\n" if kube else ""))
    (d / "templates" / "ds.yaml").write_text(template)
    for path, text in (extra or {}).items():
        (d / path).parent.mkdir(parents=True, exist_ok=True)
        (d / path).write_text(text)
    return d


def render(root, name="bad", values=None, *, token=CHART, declared_by="", kube="1.33", namespace="mon"):
    inputs = {"chart": f"./charts/{name}", **({"namespace": namespace} if namespace else {}),
              **({"values": values} if values is not None else {})}
    with HelmRenderer(HELM, kube_version=kube, kube_version_declared_by=declared_by, base_dir=root) as r:
        return r.render(token, name, inputs, resource=name)


@pytest.mark.parametrize("token", [CHART, RELEASE])
def test_a_required_value_the_program_does_not_give_is_an_error_at_values(tmp_path, token):
    d = chart(tmp_path)
    got = render(tmp_path, token=token)
    assert isinstance(got, RefusedInput), got
    assert got.input == "values"
    # the template, where in it, and the chart's own message, as Helm said them
    assert "its template bad/templates/ds.yaml (line 9, column 22" in got.message, got.message
    assert str(d / "templates" / "ds.yaml") in got.message
    assert "stops with the chart's own message 'need tol'" in got.message
    assert "execution error at (bad/templates/ds.yaml:9:22): need tol" in got.message
    assert "Fix: give the value that message asks for in values" in got.message
    if token == CHART:
        assert "a real `pulumi preview` fails the same way" in got.message and "chart.go@v4.32.0" in got.message
    else:  # a Release's preview passes over it; its install fails
        assert "`pulumi up` fails when it installs the Release" in got.message
        assert "helm_release.go@v4.32.0" in got.message


def test_the_same_chart_with_the_value_is_judged(tmp_path):
    chart(tmp_path)
    got = render(tmp_path, values={"tol": [{"operator": "Exists"}]})
    assert isinstance(got, Expanded), got
    [ds] = got.objects
    assert ds["spec"]["template"]["spec"]["tolerations"] == [{"operator": "Exists"}]


def test_a_fail_is_an_error_too(tmp_path):
    chart(tmp_path, template='{{ if not .Values.on }}{{ fail "set on: true" }}{{ end }}\n')
    got = render(tmp_path)
    assert isinstance(got, RefusedInput) and "stops with the chart's own message 'set on: true'" in got.message


@pytest.mark.parametrize(("where", "text"), [
    ("templates/ds.yaml", '{{ $n := lookup "v1" "Namespace" "" "mon" }}' + DS),
    ("templates/ds.yaml", '{{ if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" }}{{ end }}' + DS),
    ("charts/sub/templates/cm.yaml", '{{ $s := lookup "v1" "Secret" "mon" "s" }}\n'),  # a subchart's read counts
])
def test_a_required_in_a_chart_that_reads_the_cluster_stays_not_judged(tmp_path, where, text):
    extra = {where: text}
    if where.startswith("charts/"):
        extra["charts/sub/Chart.yaml"] = "apiVersion: v2\nname: sub\nversion: 0.1.0\n"
    chart(tmp_path, template=DS if where.startswith("charts/") else text, extra=extra if where.startswith("charts/") else None)
    got = render(tmp_path)
    assert isinstance(got, NotJudged), got
    assert "execution error at (bad/templates/ds.yaml" in got.reason
    assert "so the failure may be the offline render's" in got.reason
    assert "gpupool audit" in got.fix


def test_a_required_that_reads_the_kubernetes_version_is_an_error_only_when_the_version_is_declared(tmp_path):
    chart(tmp_path, template='{{ if semverCompare ">=1.33-0" .Capabilities.KubeVersion.Version }}' + DS + "{{ end }}")
    undeclared = render(tmp_path)
    assert isinstance(undeclared, NotJudged), undeclared
    assert ".Capabilities.KubeVersion, rendered for 1.33, which nothing declares" in undeclared.reason
    declared = render(tmp_path, declared_by="GpuNodePool 'gpu'")
    assert isinstance(declared, RefusedInput) and declared.input == "values", declared


def test_a_kube_version_constraint_the_declared_version_fails_is_an_error_at_chart(tmp_path):
    chart(tmp_path, kube=">=1.34.0-0", template="")
    got = render(tmp_path, declared_by="the stack config's cluster.kubernetesVersion")
    assert isinstance(got, RefusedInput), got
    assert got.input == "chart"
    assert ("kubeVersion '>=1.34.0-0' excludes Kubernetes v1.33, the cluster's version as the stack config's "
            "cluster.kubernetesVersion declares it") in got.message, got.message
    assert "Fix: use a chart version whose kubeVersion admits 1.33" in got.message


@pytest.mark.parametrize("token", [CHART, RELEASE])
def test_the_same_constraint_with_no_version_declared_stays_not_judged_saying_to_declare_it(tmp_path, token):
    chart(tmp_path, kube=">=1.34.0-0", template="")
    got = render(tmp_path, token=token, kube="1.31")
    assert isinstance(got, NotJudged), got
    assert "chart requires kubeVersion: >=1.34.0-0 which is incompatible with Kubernetes v1.31" in got.reason
    assert got.fix.startswith("declare the cluster's Kubernetes version (the stack config's cluster.kubernetesVersion, "
                              "or the kubernetesVersion of a GpuNodePool's cluster)"), got.fix
    assert got.verdict == KUBE_VERSION  # the plan adds the version's reason by it


@pytest.mark.parametrize("declared_by", ["", "GpuNodePool 'gpu'"])
def test_a_kube_version_that_is_no_constraint_is_the_charts_error_whatever_is_declared(tmp_path, declared_by):
    d = chart(tmp_path, kube="not a constraint!!", template="")
    got = render(tmp_path, declared_by=declared_by, kube="1.31" if not declared_by else "1.33")
    assert isinstance(got, RefusedInput), got
    assert got.input == "chart"
    assert f"kubeVersion 'not a constraint!!' in {d / 'Chart.yaml'} is no version constraint" in got.message
    assert "improper constraint: not a constraint!!" in got.message and "constraints.go@v3.4.0" in got.message
    assert f"Fix: write kubeVersion in {d / 'Chart.yaml'} as a version constraint" in got.message
    assert "set cluster.kubernetesVersion" not in got.message  # no version makes it render


def test_a_fail_on_the_namespace_is_an_error_only_when_the_chart_sets_its_namespace(tmp_path):
    chart(tmp_path, template='{{ if eq .Release.Namespace "default" }}{{ fail "not in default" }}{{ end }}\n')
    # no namespace: the provider's default namespace, which its kubeconfig may make another than default
    unset = render(tmp_path, namespace="")
    assert isinstance(unset, NotJudged), unset
    assert ".Release.Namespace, rendered as default while the chart sets no namespace" in unset.reason
    assert unset.verdict == VALUES
    given = render(tmp_path, namespace="default")
    assert isinstance(given, RefusedInput) and "the chart's own message 'not in default'" in given.message, given


def test_a_long_message_of_the_chart_is_cut_in_the_error(tmp_path):
    chart(tmp_path, template='{{ fail "' + "x" * 300 + '" }}\n')
    got = render(tmp_path)
    assert isinstance(got, RefusedInput), got
    assert "the chart's own message '" + "x" * 80 + "'... (300 characters)" in got.message, got.message


def test_a_remote_chart_whose_kube_version_is_no_constraint_is_not_judged_showing_it():
    err = "Error: chart requires kubeVersion: 1|2 which is incompatible with Kubernetes v1.33.0\n"
    got = render_failure(err, err.strip(), who="urn:c", type_token=CHART, label="chart 'oci://r/c'",
                         chart_ref="oci://r/c", local=False, pinned=False, kube_version="1.33")
    assert isinstance(got, NotJudged), got
    assert got.verdict == KUBE_VERSION
    assert got.reason.endswith("(its kubeVersion is no constraint: constraint parser error)"), got.reason
    assert got.fix.endswith("use a version of it whose kubeVersion is one (this one's kubeVersion is '1|2')"), got.fix
