"""``gpupool check`` never passes in silence what it did not judge as it will be created: a device plugin chart of
another version than its stand-in was built from, a manifest kind in the wrong case or an API version no cluster
serves, an empty manifest, a manifest that does not parse."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from programs import daemonset_yaml, team_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.cli.contract import report_schema
from gpu_node_pool.plan.expand import locate_helm

POOL = """\
import pulumi
import pulumi_kubernetes as k8s
from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
cluster = {"name": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-nodes", "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
gpu = GpuNodePool("gpu", GpuNodePoolArgs(cluster=cluster, pool={
    "name": "gpu", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 2},
    "taints": ["nvidia.com/gpu=present:NoSchedule"]}))
"""
PLUGIN = """\
k8s.helm.v4.Chart("nvidia-device-plugin", chart="nvidia-device-plugin", version="{version}", namespace="kube-system",
    repository_opts={{"repo": "https://nvidia.github.io/k8s-device-plugin"}},
    values={{"tolerations": [{{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}]}})
"""
MANIFEST = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: agent, namespace: monitoring}\n---\n" + daemonset_yaml(
    "\n        - {key: nvidia.com/gpu, operator: Exists}")
CONFIG_FILE = 'k8s.yaml.v2.ConfigFile("agent", file="manifests/agent.yaml")\n'


def project(tmp_path: Path, lines: str, manifest: str | None = None) -> Path:
    """A team's program: a tainted GPU pool, the device plugin chart 0.20.0 unless ``lines`` gives one, and
    ``lines``; ``manifest`` is written to ``manifests/agent.yaml``."""
    plugin = "" if "nvidia-device-plugin" in lines else PLUGIN.format(version="0.20.0")
    root = team_project(tmp_path / "team", POOL + plugin + lines)
    (root / "manifests").mkdir()
    if manifest is not None:
        (root / "manifests" / "agent.yaml").write_text(manifest)
    return root


def check(capsys, root: Path, *extra: str) -> tuple[int, dict, str]:
    """``gpupool check`` as JSON (validated against the report schema) and as text (stdout, then stderr): the exit
    code, both reports."""
    argv = ["check", "--project-dir", str(root), "--stack", "ci", *extra]
    code = main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, report_schema())
    assert main(argv) == code == doc["exitCode"]
    out = capsys.readouterr()
    return code, doc, out.out + out.err


def test_the_program_with_a_good_manifest_and_the_stand_ins_own_version_is_clean(capsys, tmp_path):
    code, doc, text = check(capsys, project(tmp_path, CONFIG_FILE, MANIFEST), "--strict")
    assert (code, doc["notJudged"], doc["configErrors"]) == (0, [], [])
    # the stand-in is labelled in check's text as plan labels it: the fallback, and the version it renders
    assert "fallback stand-in for the nvidia-device-plugin chart's DaemonSet" in text
    assert "it renders the templates of chart version 0.20.0" in " ".join(text.split())


@pytest.mark.parametrize(("version", "asked"), [("0.9.0", "version 0.9.0"),
                                                ("", "no version (Helm installs the repository's latest)")])
def test_a_device_plugin_chart_of_another_version_than_the_stand_in_is_not_judged(capsys, tmp_path, version, asked):
    root = project(tmp_path, PLUGIN.format(version=version))
    code, doc, text = check(capsys, root)
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:helm.sh/v4:Chart" and item["location"]["line"] == 8
    assert item["reason"].startswith(f"the nvidia-device-plugin chart asks for {asked}, which was not rendered offline")
    assert "built from the templates of chart version 0.20.0" in item["reason"]
    assert "so the real chart is rendered (or pin version 0.20.0" in item["fix"]
    flat = " ".join(text.split())
    assert f"the program asks for {asked}, whose DaemonSet this stand-in need not match" in flat
    assert code == 0 and "exit 0: no mandatory violation (advisory findings above)" in text
    code, doc, text = check(capsys, root, "--strict")
    assert code == 1 and [v["enforcement"] for v in doc["violations"] if v["policy"] == "resources-judged"] == ["mandatory"]


def test_a_kind_in_the_wrong_case_is_an_error_of_the_manifest_with_the_kind_it_meant(capsys, tmp_path):
    root = project(tmp_path, CONFIG_FILE, MANIFEST.replace("kind: DaemonSet", "kind: Daemonset"))
    code, doc, text = check(capsys, root)
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml/v2:ConfigFile 'agent' file"
    assert error["location"] == {"file": "__main__.py", "line": 11, "column": 1}
    assert error["message"].startswith("'manifests/agent.yaml' document 2 (line 6): kind 'Daemonset' is no kind of "
                                       "apps/v1; did you mean 'DaemonSet'? Kinds are case-sensitive")
    assert error["message"].endswith("Write `kind: DaemonSet`")
    assert "exit 2" in text


def test_a_daemonset_of_an_api_version_removed_in_1_16_is_an_error_of_the_manifest(capsys, tmp_path):
    root = project(tmp_path, CONFIG_FILE, MANIFEST.replace("apps/v1", "extensions/v1beta1"))
    code, doc, _ = check(capsys, root)
    assert code == 2
    [error] = doc["configErrors"]
    assert error["message"].startswith("'manifests/agent.yaml' document 2 (line 5): apiVersion 'extensions/v1beta1' "
                                       "of kind 'DaemonSet' was removed in Kubernetes 1.16 "
                                       "(https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16)")
    assert "Write `apiVersion: apps/v1`" in error["message"]


@pytest.mark.parametrize("manifest", ["", "# the agent comes later\n---\n"])
def test_an_empty_manifest_is_not_judged_and_fails_under_strict(capsys, tmp_path, manifest):
    root = project(tmp_path, CONFIG_FILE, manifest)
    code, doc, text = check(capsys, root)
    [item] = doc["notJudged"]
    assert item["type"] == "kubernetes:yaml/v2:ConfigFile"
    assert item["reason"].startswith("'manifests/agent.yaml' holds no Kubernetes object")
    assert "resources-judged rule reports a yaml component with no child resource" in item["reason"]
    assert code == 0 and "not judged: 1 resource(s)" in text
    code, doc, _ = check(capsys, root, "--strict")
    assert code == 1


def test_a_manifest_indented_with_a_tab_is_an_error_at_its_line_and_column(capsys, tmp_path):
    broken = MANIFEST.replace("        - {key: nvidia.com/gpu", "\t- {key: nvidia.com/gpu")
    code, doc, text = check(capsys, project(tmp_path, CONFIG_FILE, broken))
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml/v2:ConfigFile 'agent' file"
    assert error["message"].startswith("manifests/agent.yaml:15:1: is not valid YAML: found character")
    assert "the character there is a tab: YAML indents with spaces only" in error["message"]
    assert "so a real `pulumi preview` fails on it" in error["message"]
    assert "manifests/agent.yaml:15:1:" in text


def test_a_manifest_key_that_is_a_list_is_said_in_a_manifests_terms_not_a_stack_files(capsys, tmp_path):
    broken = MANIFEST.replace("metadata: {name: agent, namespace: monitoring}\nspec:",
                              "metadata:\n  name: agent\n  labels:\n    ? [app, tier]\n    : agent\nspec:")
    code, doc, text = check(capsys, project(tmp_path, CONFIG_FILE, broken))
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml/v2:ConfigFile 'agent' file"
    assert error["message"].startswith("manifests/agent.yaml:10:7: has a key that is a list or mapping (a YAML "
                                       "complex key, '? [a, b]'): a Kubernetes manifest's keys are strings")
    assert "Unsupported map key of type" in error["message"] and "write the key as text" in error["message"]
    assert "stack file" not in error["message"] and "Pulumi config keys" not in error["message"]


CHART_YAML = "apiVersion: v2\nname: agent\nversion: 0.1.0\n"
#: A template as a chart writes it: Helm renders it whatever its apiVersion and kind (it asks no API server).
TEMPLATE = """\
apiVersion: {api}
kind: {kind}
metadata:
  name: {{{{ .Release.Name }}}}
spec:
  selector: {{matchLabels: {{app: agent}}}}
  template:
    metadata: {{labels: {{app: agent}}}}
    spec:
      containers: [{{name: agent, image: example.com/agent:1.0}}]
      tolerations: [{{key: nvidia.com/gpu, operator: Exists}}]
"""
CHART = 'k8s.helm.v4.Chart("agent", chart="./charts/agent", namespace="monitoring")\n'


def chart_project(tmp_path: Path, api: str, kind: str, lines: str = CHART) -> Path:
    """:func:`project` with a local chart ``charts/agent`` whose ``templates/agent.yaml`` renders ``api`` ``kind``
    (after a ServiceAccount template, so the object is not the first Helm prints)."""
    root = project(tmp_path, lines)
    templates = root / "charts" / "agent" / "templates"
    templates.mkdir(parents=True)
    (root / "charts" / "agent" / "Chart.yaml").write_text(CHART_YAML)
    (templates / "account.yaml").write_text("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: agent}\n")
    (templates / "agent.yaml").write_text(TEMPLATE.format(api=api, kind=kind))
    return root


needs_helm = pytest.mark.skipif(locate_helm() is None, reason="no helm executable (make setup installs one)")


@needs_helm
def test_a_chart_that_renders_a_kind_in_the_wrong_case_is_an_error_of_the_chart_naming_its_template(capsys, tmp_path):
    code, doc, text = check(capsys, chart_project(tmp_path, "apps/v1", "Daemonset"))
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:helm.sh/v4:Chart 'agent' chart"
    assert error["location"]["line"] == 11
    assert error["message"].startswith(
        f"chart {str(tmp_path / 'team' / 'charts' / 'agent')!r} renders, in template agent/templates/agent.yaml, "
        "an object no API server serves: kind 'Daemonset' is no kind of apps/v1; did you mean 'DaemonSet'?")
    assert "`helm template` renders it without a word" in error["message"]
    assert "a real `pulumi preview` fails on it" in error["message"]
    assert "exit 2" in text


@needs_helm
@pytest.mark.parametrize("chart_type", ["v4.Chart", "v3.Release"])
def test_a_chart_that_renders_a_daemonset_of_a_removed_api_version_is_an_error_of_the_chart(capsys, tmp_path,
                                                                                            chart_type):
    lines = CHART.replace("v4.Chart", chart_type)
    code, doc, _ = check(capsys, chart_project(tmp_path, "extensions/v1beta1", "DaemonSet", lines))
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == f"kubernetes:helm.sh/{chart_type.replace('.', ':')} 'agent' chart"
    assert "in template agent/templates/agent.yaml, an object no API server serves: apiVersion 'extensions/v1beta1' " \
           "of kind 'DaemonSet' was removed in Kubernetes 1.16" in error["message"]
    assert "Write `apiVersion: apps/v1`" in error["message"]
    fails = "a real `pulumi preview` fails on it" if chart_type == "v4.Chart" else "the Release's `helm install` fails"
    assert fails in error["message"]


@needs_helm
def test_a_chart_that_renders_only_served_kinds_passes(capsys, tmp_path):
    code, doc, _ = check(capsys, chart_project(tmp_path, "apps/v1", "DaemonSet"), "--strict")
    assert (code, doc["configErrors"], doc["notJudged"]) == (0, [], [])


V1_CONFIG_FILE = 'k8s.yaml.ConfigFile("agent", file="manifests/agent.yaml")\n'


def test_a_v1_config_file_with_a_kind_in_the_wrong_case_is_an_error_of_the_manifest(capsys, tmp_path):
    root = project(tmp_path, V1_CONFIG_FILE, MANIFEST.replace("kind: DaemonSet", "kind: Daemonset"))
    code, doc, text = check(capsys, root)
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml:ConfigFile 'agent' file"
    assert error["location"] == {"file": "__main__.py", "line": 11, "column": 1}
    assert error["message"].startswith("'manifests/agent.yaml' document 2 (line 6): kind 'Daemonset' is no kind of "
                                       "apps/v1; did you mean 'DaemonSet'? Kinds are case-sensitive")
    assert error["message"].endswith("Write `kind: DaemonSet`")
    assert "exit 2" in text


def test_a_v1_config_group_yaml_text_with_a_removed_api_version_is_an_error_of_that_text(capsys, tmp_path):
    old = MANIFEST.split("---\n")[1].replace("apps/v1", "apps/v1beta2").replace("name: agent,", "name: agent-old,")
    lines = f"k8s.yaml.ConfigGroup(\"agents\", yaml=[{MANIFEST!r}, {old!r}])\n"
    code, doc, _ = check(capsys, project(tmp_path, lines))
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml:ConfigGroup 'agents' yaml[1]"
    assert error["location"]["line"] == 11
    assert error["message"].startswith("yaml[1] document 1 (line 1): apiVersion 'apps/v1beta2' of kind 'DaemonSet' "
                                       "was removed in Kubernetes 1.16")


def test_a_v1_transformation_that_fixes_the_api_version_is_no_error(capsys, tmp_path):
    fix = ("def fix(obj, opts):\n    if obj['apiVersion'] == 'extensions/v1beta1':\n        obj['apiVersion'] = 'apps/v1'\n"
           'k8s.yaml.ConfigFile("agent", file="manifests/agent.yaml", transformations=[fix])\n')
    code, doc, _ = check(capsys, project(tmp_path, fix, MANIFEST.replace("apps/v1", "extensions/v1beta1")), "--strict")
    assert (code, doc["configErrors"], doc["notJudged"]) == (0, [], [])


def test_a_v1_transformation_that_breaks_the_kind_is_an_error_naming_the_object(capsys, tmp_path):
    breaks = ("def lower(obj):\n    obj['kind'] = obj['kind'].capitalize()\n"
              'k8s.yaml.ConfigFile("agent", file="manifests/agent.yaml", transformations=[lower])\n')
    code, doc, _ = check(capsys, project(tmp_path, breaks, MANIFEST))
    assert code == 2
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml:ConfigFile 'agent' file"
    assert error["message"].startswith("the object Serviceaccount 'agent' of 'manifests/agent.yaml', as the "
                                       "transformations leave it: kind 'Serviceaccount' is no kind of v1; did you "
                                       "mean 'ServiceAccount'?")


def test_a_v1_manifest_that_does_not_parse_is_an_error_at_its_line_as_a_real_preview_fails(capsys, tmp_path):
    broken = MANIFEST.replace("        - {key: nvidia.com/gpu", "\t- {key: nvidia.com/gpu")
    code, doc, text = check(capsys, project(tmp_path, V1_CONFIG_FILE, broken))
    assert code == 2 and doc["notJudged"] == []
    [error] = doc["configErrors"]
    assert error["path"] == "kubernetes:yaml:ConfigFile 'agent' file"
    assert error["message"].startswith("manifests/agent.yaml:15:1: is not valid YAML: found character")
    assert "the character there is a tab: YAML indents with spaces only" in error["message"]
    assert "invoke of kubernetes:yaml:decode failed" in error["message"]
    assert "so a real `pulumi preview` fails on it" in error["message"]


def test_a_v1_manifest_document_that_is_a_list_is_an_error(capsys, tmp_path):
    code, doc, _ = check(capsys, project(tmp_path, V1_CONFIG_FILE, MANIFEST + "---\n- a\n- b\n"))
    assert code == 2
    [error] = doc["configErrors"]
    assert error["message"].startswith("manifests/agent.yaml document 3 is a list, not an object")


def test_a_good_v1_manifest_is_judged_and_clean(capsys, tmp_path):
    code, doc, _ = check(capsys, project(tmp_path, V1_CONFIG_FILE, MANIFEST), "--strict")
    assert (code, doc["configErrors"], doc["notJudged"]) == (0, [], [])


def test_errors_found_after_the_program_registered_resources_say_the_preview_fails_not_that_nothing_registered(
        capsys, tmp_path):
    root = project(tmp_path, CONFIG_FILE, MANIFEST.replace("apps/v1", "extensions/v1beta1"))
    _, _, text = check(capsys, root)
    assert "1 error in the project 'team-gpu'; a real `pulumi preview` would fail:" in text
    assert "no resource was registered" not in text
