"""Offline chart rendering with a real Helm: the charts' real DaemonSets, or a not-judged record."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.expand import is_device_plugin_chart, is_device_plugin_daemonset
from gpu_node_pool.expand.helm import HelmRenderer, helm_error_line
from gpu_node_pool.expand.result import Expanded, NotJudged, RefusedInput
from gpu_node_pool.plan.expand import locate_helm

# ../shared beside the repo (a git worktree under wt/ finds it one level further up).
CHARTS = next((d / "shared" / "charts" for d in (ROOT.parent, ROOT.parent.parent) if (d / "shared" / "charts").is_dir()),
              ROOT.parent / "shared" / "charts")
HELM = locate_helm()
CHART = "kubernetes:helm.sh/v4:Chart"
RELEASE = "kubernetes:helm.sh/v3:Release"
UNKNOWN = "(known after apply)"

needs_helm = pytest.mark.skipif(HELM is None, reason="no helm on PATH or in venv/bin (make setup installs it)")
needs_charts = pytest.mark.skipif(not CHARTS.is_dir(), reason=f"{CHARTS} is absent (the shared test charts)")


@pytest.fixture
def renderer():
    with HelmRenderer(HELM, kube_version="1.31", unknown_markers=(UNKNOWN,)) as r:
        yield r


def package(chart_dir: Path, dest: Path) -> Path:
    """``helm package`` a chart into ``dest`` (as ``<name>-<version>.tgz``, the way Helm caches downloads)."""
    import subprocess

    home = dest / ".helm-home"
    env = {**os.environ, "HELM_CACHE_HOME": str(home), "HELM_CONFIG_HOME": str(home), "HELM_DATA_HOME": str(home)}
    subprocess.run([HELM, "package", str(chart_dir), "-d", str(dest)], check=True, capture_output=True, env=env)
    return dest


def daemonsets(result: Expanded | NotJudged) -> list[dict]:
    assert isinstance(result, Expanded), result
    return [o for o in result.objects if o["kind"] == "DaemonSet"]


def pod(ds: dict) -> dict:
    return ds["spec"]["template"]["spec"]


@needs_helm
@needs_charts
def test_fluent_bit_chart_renders_a_daemonset_with_no_tolerations(renderer):
    result = renderer.render(CHART, "fluent-bit", {"chart": str(CHARTS / "aws-for-fluent-bit"), "namespace": "logging"})
    [ds] = daemonsets(result)
    assert ds["metadata"] == ds["metadata"] | {"name": "fluent-bit-aws-for-fluent-bit", "namespace": "logging"}
    assert not pod(ds).get("tolerations")
    assert result.source == "helm template"
    assert not is_device_plugin_daemonset(ds)


@needs_helm
@needs_charts
def test_fluent_bit_values_tolerations_reach_the_daemonset(renderer):
    inputs = {"chart": str(CHARTS / "aws-for-fluent-bit"), "namespace": "logging", "values": {"tolerations": [{"operator": "Exists"}]}}
    [ds] = daemonsets(renderer.render(CHART, "fluent-bit", inputs))
    assert pod(ds)["tolerations"] == [{"operator": "Exists"}]
    assert not is_device_plugin_chart(CHART, inputs)


@needs_helm
@needs_charts
def test_value_yaml_files_are_merged_and_values_win(renderer, tmp_path):
    import pulumi

    (tmp_path / "v.yaml").write_text("tolerations: [{key: a, operator: Exists}]\nnodeSelector: {disk: ssd}\n")
    inputs = {
        "chart": str(CHARTS / "aws-for-fluent-bit"),
        "namespace": "logging",
        "valueYamlFiles": [pulumi.FileAsset(str(tmp_path / "v.yaml"))],
        "values": {"tolerations": [{"key": "b", "operator": "Exists"}]},
    }
    [ds] = daemonsets(renderer.render(CHART, "fb", inputs))
    assert pod(ds)["tolerations"] == [{"key": "b", "operator": "Exists"}]
    assert pod(ds)["nodeSelector"] == {"disk": "ssd"}


@needs_helm
@needs_charts
def test_renders_are_cached_within_a_run_by_chart_version_and_values(renderer):
    inputs = {"chart": str(CHARTS / "aws-for-fluent-bit"), "namespace": "logging"}
    first = renderer.render(CHART, "fb", inputs)
    first.objects[0]["metadata"]["name"] = "mutated by a caller"
    second = renderer.render(CHART, "fb", inputs)
    assert renderer.runs == 1
    assert second.objects[0]["metadata"]["name"] != "mutated by a caller"
    renderer.render(CHART, "fb", inputs | {"values": {"tolerations": []}})
    assert renderer.runs == 2


@needs_helm
@needs_charts
def test_a_release_is_rendered_and_marked_offline_only(renderer):
    result = renderer.render(RELEASE, "fb", {"chart": str(CHARTS / "aws-for-fluent-bit"), "namespace": "logging"})
    assert daemonsets(result)
    assert any("offline" in n for n in result.notes)


@needs_helm
@needs_charts
def test_broken_values_are_not_judged_with_helms_first_error_line(renderer):
    inputs = {"chart": str(CHARTS / "nvidia-device-plugin"), "namespace": "nvidia", "values": {"image": "not-a-map"}}
    result = renderer.render(CHART, "dp", inputs, resource="urn:dp")
    assert isinstance(result, NotJudged)
    assert result.resource == "urn:dp" and result.type == CHART
    assert result.reason.startswith(f"helm template of chart {str(CHARTS / 'nvidia-device-plugin')!r} failed: Error: ")
    assert "can't evaluate field repository" in result.reason
    # The chart's own validation: its fail message, not the location line alone.
    result = renderer.render(CHART, "dp", {"chart": str(CHARTS / "nvidia-device-plugin")})
    assert "Running in the 'default' namespace is not recommended." in result.reason


def test_helm_error_line_follows_a_continued_message_to_its_root_cause():
    stderr = "Error: a.yml:67:18\n  executing x at <include y>:\n    error calling include:\n  b.tpl:85:11\n  can't evaluate field z\n"
    assert helm_error_line(stderr) == "Error: a.yml:67:18 … can't evaluate field z"
    assert helm_error_line("walk.go:75: found symbolic link\nError: chart not found\n") == "Error: chart not found"


@needs_charts
def test_a_render_that_hangs_is_killed_after_the_timeout(tmp_path):
    fake = tmp_path / "helm"
    fake.write_text("#!/bin/sh\nsleep 60\n")
    fake.chmod(0o755)
    with HelmRenderer(fake, timeout=0.5) as r:
        start = time.monotonic()
        result = r.render(CHART, "fb", {"chart": str(CHARTS / "aws-for-fluent-bit"), "namespace": "logging"})
    assert time.monotonic() - start < 5
    assert isinstance(result, NotJudged)
    assert "did not finish within 0.5 s and was killed" in result.reason


def test_a_remote_chart_without_fetch_is_not_judged(tmp_path):
    fake = tmp_path / "helm"  # never run: the chart is not reachable before helm is needed
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    inputs = {"chart": "aws-for-fluent-bit", "version": "0.1.34", "repositoryOpts": {"repo": "https://aws.github.io/eks-charts"}}
    with HelmRenderer(fake) as r:
        result = r.render(CHART, "fluent-bit", inputs)
    assert isinstance(result, NotJudged)
    assert "not reachable offline" in result.reason
    assert "--fetch-charts" in result.fix and "helm pull aws-for-fluent-bit --repo https://aws.github.io/eks-charts" in result.fix


@needs_helm
@needs_charts
def test_a_remote_chart_found_in_the_chart_directory_is_rendered(tmp_path):
    shutil.copytree(CHARTS / "aws-for-fluent-bit", tmp_path / "src" / "aws-for-fluent-bit")
    import yaml

    version = yaml.safe_load((tmp_path / "src" / "aws-for-fluent-bit" / "Chart.yaml").read_text())["version"]
    cache = package(tmp_path / "src" / "aws-for-fluent-bit", tmp_path / "cache")
    inputs = {"chart": "aws-for-fluent-bit", "version": version, "repositoryOpts": {"repo": "https://aws.github.io/eks-charts"}}
    with HelmRenderer(HELM, chart_dirs=[cache]) as r:
        assert daemonsets(r.render(CHART, "fb", inputs))


def test_no_helm_is_not_judged_with_the_fix(tmp_path):
    chart = tmp_path / "fluent-bit"  # a local chart that exists: without helm it is not rendered, not refused
    chart.mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: fluent-bit\nversion: 0.1.0\n")
    result = HelmRenderer("/nonexistent/helm").render(CHART, "fb", {"chart": str(chart)})
    assert isinstance(result, NotJudged)
    assert "no helm executable" in result.reason and "--helm PATH" in result.fix


def test_an_input_unknown_at_preview_is_not_judged():
    result = HelmRenderer("/nonexistent/helm", unknown_markers=(UNKNOWN,)).render(
        CHART, "fb", {"chart": "x", "values": {"image": {"tag": UNKNOWN}}}
    )
    assert isinstance(result, NotJudged)
    assert "values.image.tag is unknown at preview" in result.reason


@needs_helm
@needs_charts
def test_a_post_renderer_is_not_judged(renderer):
    result = renderer.render(CHART, "fb", {"chart": str(CHARTS / "aws-for-fluent-bit"), "postRenderer": {"command": "kustomize"}})
    assert isinstance(result, NotJudged) and "post-renderer" in result.reason


@needs_helm
@needs_charts
@pytest.mark.parametrize("skip_crds", [False, True])
def test_crds_are_included_unless_skip_crds(renderer, skip_crds):
    inputs = {"chart": str(CHARTS / "gpu-operator"), "namespace": "gpu-operator", "skipCrds": skip_crds}
    result = renderer.render(CHART, "gpu-operator", inputs)
    assert isinstance(result, Expanded), result
    crds = [o for o in result.objects if o["kind"] == "CustomResourceDefinition"]
    assert bool(crds) is not skip_crds


# --- the device plugin: the real chart vs the plan's synthesized stand-in ---------------

SHIPPED = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@needs_helm
@needs_charts
@pytest.mark.parametrize("stack", SHIPPED)
def test_the_real_device_plugin_chart_renders_what_the_stand_in_says(stack, tmp_path):
    from gpu_node_pool.gpu_agents.device_plugin.values import chart_values
    from gpu_node_pool.plan import plan_stack

    result = plan_stack(stack, ROOT)
    charts = [r for r in result.resources if is_device_plugin_chart(r.type, r.inputs)]
    if not charts:
        pytest.skip(f"stack {stack} installs no NVIDIA device plugin")
    [chart] = charts
    assert chart.inputs["values"] == chart_values(result.config.pools, result.config.device_plugin)
    [stand_in] = [r for r in result.resources if r.synthesized and r.parent == chart.urn]

    kube_version = result.config.cluster.kubernetes_version or "1.31"
    # The chart inputs exactly as the component declares them (name, repository, version);
    # the unmodified upstream chart is found packaged in the chart directory, as if pulled.
    cache = package(CHARTS / "nvidia-device-plugin", tmp_path / "charts")
    with HelmRenderer(HELM, kube_version=kube_version, chart_dirs=[cache]) as r:
        rendered = r.render(chart.type, chart.name, chart.inputs)
    by_name = {ds["metadata"]["name"]: ds for ds in daemonsets(rendered)}
    real = by_name[stand_in.inputs["metadata"]["name"]]
    assert is_device_plugin_daemonset(real) and is_device_plugin_daemonset(stand_in.inputs)
    assert real["metadata"]["namespace"] == stand_in.inputs["metadata"]["namespace"]
    for key in ("tolerations", "affinity", "priorityClassName"):
        assert pod(real).get(key) == pod(stand_in.inputs).get(key), key


def _chart_without_namespaces(root: Path) -> Path:
    """A local chart whose templates set no metadata.namespace (as many charts do): a Deployment, a DaemonSet and
    a ClusterRole."""
    chart = root / "web"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 0.1.0\n")
    pod = "spec:\n      containers: [{name: c, image: busybox}]\n"
    (chart / "templates" / "objects.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {a: b}}\n"
        "  template:\n    metadata: {labels: {a: b}}\n    " + pod
        + "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: monitoring}\nspec:\n"
        "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    " + pod
        + "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: []\n")
    return chart


@needs_helm
@pytest.mark.parametrize("token", [CHART, RELEASE])
def test_objects_without_a_namespace_are_created_in_the_release_namespace(renderer, tmp_path, token):
    chart = _chart_without_namespaces(tmp_path)
    result = renderer.render(token, "web", {"chart": str(chart), "namespace": "kube-system"})
    assert isinstance(result, Expanded), result
    by_kind = {o["kind"]: o["metadata"] for o in result.objects}
    assert by_kind["Deployment"]["namespace"] == "kube-system"  # helm install -n / Pulumi's Chart namespace
    assert by_kind["DaemonSet"]["namespace"] == "monitoring"  # the template's own namespace stays
    assert "namespace" not in by_kind["ClusterRole"]  # cluster-scoped: no namespace


def test_a_local_path_that_holds_no_chart_says_so_with_the_fix(tmp_path):
    with HelmRenderer(shutil.which("true"), kube_version="1.31", base_dir=tmp_path) as r:  # never run: no chart
        (tmp_path / "empty").mkdir()
        got = r.render("kubernetes:helm.sh/v4:Chart", "c", {"chart": str(tmp_path / "empty")}, resource="c")
    assert isinstance(got, RefusedInput)  # the provider loads the chart at preview: a real preview fails on it
    assert "is a directory without a Chart.yaml" in got.message and "not reachable offline" not in got.message
    assert "Fix: point chart at a chart directory (with its Chart.yaml)" in got.message


@pytest.mark.parametrize("type_token", ["kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Release"])
@pytest.mark.parametrize("chart", ["./charts/gpu-agent", "../gpu-agent", "/nonexistent/gpu-agent"])
def test_a_chart_written_as_a_path_where_nothing_is_is_an_error_a_real_preview_also_fails_on(tmp_path, chart,
                                                                                              type_token):
    # helm reads a chart beginning with "." or "/" as a path only, never as a repository's chart, and the
    # provider fails the preview on it (v4 Chart: Construct; v3 Release: a check failure on chart)
    with HelmRenderer(shutil.which("true"), kube_version="1.31", base_dir=tmp_path / "program") as r:
        got = r.render(type_token, "c", {"chart": chart}, resource="c")
    assert isinstance(got, RefusedInput), got
    assert (got.input, got.resource, got.type) == ("chart", "c", type_token)
    assert got.message.startswith(f"{chart!r} is a local chart path and nothing is there (")
    assert "helm/helm pkg/action/install.go@v4.1.4" in got.message  # the rule's source
    assert "a real `pulumi preview` fails on it (pulumi/pulumi-kubernetes provider/pkg/provider/" in got.message
    assert f"relative to the directory Pulumi runs the program in ({tmp_path / 'program'})" in got.message  # the fix
    assert "or give a repository chart" in got.message


@pytest.mark.parametrize("type_token", ["kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Release"])
def test_a_chart_path_where_nothing_is_is_an_error_also_without_helm(tmp_path, type_token):
    # finding the path needs no helm: the preview fails on it all the same, so it is no "not judged: no helm"
    with HelmRenderer(tmp_path / "no-helm-here", base_dir=tmp_path) as r:
        assert r.helm is None
        got = r.render(type_token, "c", {"chart": "./charts/nothing"}, resource="c")
    assert isinstance(got, RefusedInput), got
    assert got.input == "chart" and "no helm" not in got.message
    assert got.message.startswith(f"'./charts/nothing' is a local chart path and nothing is there ({tmp_path / 'charts' / 'nothing'})")


def test_a_chart_of_a_repository_not_reachable_offline_keeps_the_pull_fix(tmp_path):
    with HelmRenderer(shutil.which("true"), kube_version="1.31", base_dir=tmp_path) as r:
        got = r.render("kubernetes:helm.sh/v4:Chart", "c", {"chart": "gpu-agent", "version": "1.0.0"}, resource="c")
    assert isinstance(got, NotJudged)
    assert got.reason == ("chart 'gpu-agent' 1.0.0 from gpu-agent is not reachable offline (not a local path, not in "
                          "the chart cache)")
    assert got.fix.startswith("run with --fetch-charts, or `helm pull gpu-agent --version 1.0.0` into a chart directory")


def test_a_helm_that_fails_silently_is_blamed_not_the_chart(tmp_path):
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with HelmRenderer(shutil.which("false"), kube_version="1.31", base_dir=tmp_path) as r:
        got = r.render("kubernetes:helm.sh/v4:Chart", "c", {"chart": str(chart)}, resource="c")
    assert isinstance(got, NotJudged)
    assert "exited 1 with no message" in got.reason and "fix the chart values" not in got.fix
    assert "`<helm> version`" in got.fix


def _archive(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _chart(root: Path, name: str, chart_yaml: str, template: str = "") -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(chart_yaml)
    if template:
        (chart / "templates" / "a.yaml").write_text(template)
    return chart


@pytest.mark.parametrize(("make", "said"), [
    (lambda t: _archive(t / "bad.tgz", b"not a gzip"), "is a file but no packaged chart"),
    (lambda t: _chart(t, "c1", "apiVersion: v2\nname: [x\n"), "is not valid YAML"),
    (lambda t: _chart(t, "c2", "apiVersion: v2\nversion: 0.1.0\n"), "name is required"),
])
def test_a_chart_helm_cannot_load_is_an_error_at_chart(tmp_path, make, said):
    chart = make(tmp_path)  # judged before helm runs: the provider loads the chart at preview and fails on it
    with HelmRenderer(shutil.which("true"), kube_version="1.31", base_dir=tmp_path) as r:
        got = r.render("kubernetes:helm.sh/v4:Chart", "c", {"chart": str(chart)}, resource="c")
    assert isinstance(got, RefusedInput), got
    assert said in got.message and "unable to load the chart" in got.message


@needs_helm
@pytest.mark.parametrize(("make", "fix"), [
    (lambda t: _chart(t, "c3", "apiVersion: v2\nname: c3\nversion: 0.1.0\ndependencies:\n- name: dep\n  version: 1.0.0\n"
                      "  repository: https://example.com\n"), "run `helm dependency build` in the chart directory"),
    (lambda t: _chart(t, "c4", "apiVersion: v2\nname: c4\nversion: 0.1.0\nkubeVersion: '>=1.99.0'\n"),
     "declare the cluster's Kubernetes version"),  # 1.31 is a default here: not judged (test_render_failure.py)
    (lambda t: _chart(t, "c5", "apiVersion: v2\nname: c5\nversion: 0.1.0\n", "{{ .Values.x.y }}\n"), "fix the chart values"),
])
def test_a_chart_helm_cannot_load_is_blamed_not_its_values(tmp_path, make, fix):
    chart = make(tmp_path)
    with HelmRenderer(HELM, kube_version="1.31", base_dir=tmp_path) as r:
        got = r.render("kubernetes:helm.sh/v4:Chart", "c", {"chart": str(chart)}, resource="c")
    assert isinstance(got, NotJudged), got
    assert got.fix.startswith(fix), (got.reason, got.fix)
    assert got.fix.endswith("(run the same `helm template` to see the whole error)")
