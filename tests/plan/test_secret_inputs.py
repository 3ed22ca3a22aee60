"""Pulumi secrets in a program: the pack judges their plain values, as a real preview hands them to a
policy pack, and no report shows them."""

from __future__ import annotations

import json
import shutil

import pulumi
from conftest import DATA

from gpu_node_pool.cli import commands as cli
from gpu_node_pool.plan.run import record
from gpu_node_pool.policies.runner import evaluate

TAINT_COMMAND = "kubectl taint nodes gpu-7 nvidia.com/gpu=present:NoSchedule"
GPU_NODE_GROUP = {
    "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/n", "subnetIds": ["subnet-1"],
    "instanceTypes": ["g6.xlarge"], "amiType": "AL2023_x86_64_NVIDIA",
    "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1},
    "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
}


def _daemonset(name: str, tolerations: list[dict]) -> dict:
    return {
        "metadata": {"name": name, "namespace": "logging"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": name, "image": "registry.example/agent:1"}],
                                  "tolerations": tolerations}},
        },
    }


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    import jsonschema

    from gpu_node_pool.cli.contract import report_schema

    code = cli.main([*argv, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert not [e.message for e in jsonschema.Draft202012Validator(report_schema()).iter_errors(doc)]
    return code, doc


def _foreign_project(tmp_path, extra: str):
    """A copy of the platform team's program in ``tmp_path/p`` with ``extra`` appended to its ``__main__.py``."""
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    main = project / "__main__.py"
    main.write_text(main.read_text() + extra)
    return project


def _by(findings: list[dict], policy: str) -> list[dict]:
    return [f for f in findings if f["policy"] == policy]


def test_a_secret_command_that_taints_nodes_is_found_and_not_shown():
    def program():
        pulumi.CustomResource("command:local:Command", "taint-gpu", {"create": pulumi.Output.secret(TAINT_COMMAND)})

    resources, _ = record(program)
    [command] = resources
    assert command.inputs["create"] == "[secret]"  # what the plan shows and stores
    assert TAINT_COMMAND not in repr(command)
    findings = evaluate(resources)
    [found] = _by(findings, "no-imperative-taints")
    assert found["enforcement"] == "mandatory" and found["resource"] == "command:local:Command taint-gpu"
    assert not [f for f in findings if "gpu-7" in f["message"] or "kubectl taint nodes" in f["message"]]


def test_a_daemonset_whose_spec_is_secret_is_judged_by_its_tolerations():
    def program():
        pulumi.CustomResource("aws:eks/nodeGroup:NodeGroup", "gpu", GPU_NODE_GROUP)
        tolerates = _daemonset("tolerates", [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])
        ignores = _daemonset("ignores", [])
        for name, doc in (("tolerates", tolerates), ("ignores", ignores)):
            pulumi.CustomResource("kubernetes:apps/v1:DaemonSet", name,
                                  {"metadata": doc["metadata"], "spec": pulumi.Output.secret(doc["spec"])})

    resources, _ = record(program)
    findings = _by(evaluate(resources), "daemonsets-tolerate-gpu-taints")
    assert {f["resource"] for f in findings} == {"kubernetes:apps/v1:DaemonSet ignores"}
    assert all(f["enforcement"] == "mandatory" for f in findings)


def test_a_finding_that_quotes_a_secret_toleration_cuts_it_but_not_kubernetes_words():
    def program():
        pulumi.CustomResource("aws:eks/nodeGroup:NodeGroup", "gpu", GPU_NODE_GROUP)
        doc = _daemonset("half", [{"key": "SECRETTOLERATIONKEY", "operator": "Exists", "effect": "NoSchedule"}])
        pulumi.CustomResource("kubernetes:apps/v1:DaemonSet", "half",
                              {"metadata": doc["metadata"], "spec": pulumi.Output.secret(doc["spec"])})

    findings = evaluate(record(program)[0])
    quoting = [f for f in findings if "[secret]" in f["message"]]
    assert quoting, findings  # some rule quotes the secret toleration: cut there
    assert not [f for f in findings if "SECRETTOLERATIONKEY" in f["message"]]
    assert all("[secret]:NoSchedule" not in f["message"] for f in findings)  # NoSchedule is Kubernetes' word


def test_a_secure_value_never_decrypted_offline_is_not_judged_rather_than_read_as_text():
    # a stack file's secure: values become the placeholder offline (config/loading.py): not known
    def program():
        pulumi.CustomResource("command:local:Command", "from-config",
                              {"create": pulumi.Output.secret("[secret]")})

    findings = evaluate(record(program)[0])
    [note] = _by(findings, "no-imperative-taints")
    assert note["enforcement"] == "advisory" and "can't run policy 'no-imperative-taints' during preview" in note["message"]


def test_check_judges_a_programs_secret_tolerations_and_its_reports_never_show_the_secret(capsys, tmp_path):
    project = _foreign_project(tmp_path, (
        "\nk8s.apps.v1.DaemonSet('gpu-agent', metadata={'name': 'gpu-agent', 'namespace': 'monitoring'},\n"
        "    spec=pulumi.Output.secret({'selector': {'matchLabels': {'app': 'gpu-agent'}},\n"
        "        'template': {'metadata': {'labels': {'app': 'gpu-agent'}},\n"
        "                     'spec': {'containers': [{'name': 'a', 'image': 'registry.example/hush:1'}],\n"
        "                              'tolerations': [{'key': 'nvidia.com/gpu', 'operator': 'Exists'},\n"
        "                                              {'key': 'dedicated', 'operator': 'Exists'}]}}}))\n"
        "pulumi.CustomResource('command:local:Command', 'taint-gpu',\n"
        f"    {{'create': pulumi.Output.secret({TAINT_COMMAND!r})}})\n"
    ))
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert code == 1
    assert "registry.example/hush" not in out and "gpu-7" not in out
    judged = {(v["policy"], v["resource"]) for v in doc["violations"]}
    # the secret DaemonSet tolerates both pools' taints: judged so, like the plain one that does not
    assert ("daemonsets-tolerate-gpu-taints", "kubernetes:apps/v1:DaemonSet fluent-bit") in judged
    assert not [k for k in judged if k[1].endswith(" gpu-agent")]
    assert not [n for n in doc["notJudged"] if "gpu-agent" in n["resource"]]
    assert ("no-imperative-taints", "command:local:Command taint-gpu") in judged
    assert [r["type"] for r in doc["resources"] if r["name"] == "gpu-agent"] == ["kubernetes:apps/v1:DaemonSet"]


def test_a_resource_with_no_secret_keeps_no_second_copy_of_its_inputs():
    def program():
        pulumi.CustomResource("aws:eks/nodeGroup:NodeGroup", "gpu", GPU_NODE_GROUP)

    [group] = record(program)[0]
    assert group.secret_inputs is None



def test_the_page_judges_a_secret_daemonset_as_the_pack_does_and_an_unreadable_one_as_not_judged(capsys, tmp_path):
    from gpu_node_pool.policies.daemonset_nodes import read_daemonset

    for spec, words in (("[secret]", "spec is a Pulumi secret's placeholder"),
                        ("(known after apply)", "spec is unknown before apply"),
                        ({"template": 42}, "spec.template is 42, not an object")):
        ds = read_daemonset({"metadata": {"name": "x"}, "spec": spec}, "eks")
        assert ds.tolerations is None and ds.problem.startswith(words)
    project = _foreign_project(tmp_path, (
        "\nk8s.apps.v1.DaemonSet('gpu-agent', metadata={'name': 'gpu-agent', 'namespace': 'monitoring'},\n"
        "    spec=pulumi.Output.secret({'template': {'spec': {'containers': [{'name': 'a', 'image': 'hush'}],\n"
        "                                                     'tolerations': [{'key': 'SECRETTOLERATIONKEY'}]}}}))\n"
    ))
    page = tmp_path / "page.html"
    assert cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--html", str(page), "--fail-on", "none"]) == 0
    capsys.readouterr()
    text = page.read_text()
    # judged from its plain spec, as the pack judges it (it tolerates neither pool's taint), and cut of its secret
    assert "monitoring/gpu-agent" in text and "spec is a Pulumi secret" not in text
    assert "SECRETTOLERATIONKEY" not in text


SCRIPT = "set -e\necho start\n  kubectl  taint nodes gpu-1 TOPSECRETKEY=hunter2value:NoSchedule --overwrite\necho done\n"


def test_a_multi_line_secret_script_is_found_and_no_line_of_it_is_shown():
    import base64

    def program():
        pulumi.CustomResource("command:local:Command", "script", {"create": pulumi.Output.secret(SCRIPT)})
        pulumi.CustomResource("aws:ec2/launchTemplate:LaunchTemplate", "lt",
                              {"userData": pulumi.Output.secret(base64.b64encode(SCRIPT.encode()).decode())})

    findings = _by(evaluate(record(program)[0]), "no-imperative-taints")
    assert {f["resource"] for f in findings} == {"command:local:Command script", "aws:ec2/launchTemplate:LaunchTemplate lt"}
    assert not [f for f in findings if "TOPSECRETKEY" in f["message"] or "hunter2value" in f["message"]]


def test_a_command_made_with_a_secure_value_is_not_judged_rather_than_passed():
    # "set -e; [secret]": the program joined the stack file's undecrypted secure: value into a command
    def program():
        pulumi.CustomResource("command:local:Command", "concat",
                              {"create": pulumi.Output.concat("set -e; ", pulumi.Output.secret("[secret]"))})

    [note] = _by(evaluate(record(program)[0]), "no-imperative-taints")
    assert note["enforcement"] == "advisory" and "can't run policy" in note["message"]


def test_check_summaries_read_secret_taints_as_the_pack_does_and_never_show_them(capsys, tmp_path):
    project = _foreign_project(tmp_path, (
        "\naws.eks.NodeGroup('secret-gpu', cluster_name=cluster_name, node_role_arn=role_arn, subnet_ids=subnet_ids,\n"
        "    instance_types=['g6.xlarge'], ami_type='AL2023_x86_64_NVIDIA',\n"
        "    scaling_config={'min_size': 1, 'max_size': 2, 'desired_size': 1},\n"
        "    taints=pulumi.Output.secret([{'key': 'MMMMSECRETKEY', 'value': 'MMMMSECRETVAL', 'effect': 'NO_SCHEDULE'}]),\n"
        "    labels=pulumi.Output.secret({'SSSSECRETLABEL.example.com/x': 'yes'}))\n"
    ))
    page = tmp_path / "page.html"
    cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json", "--html", str(page)])
    out = capsys.readouterr().out
    doc = json.loads(out)
    for shown in (out, page.read_text()):
        assert "MMMMSECRET" not in shown and "SSSSECRETLABEL" not in shown
    [pool] = [p for p in doc["pools"] if p["resource"] == "secret-gpu"]
    assert pool["taints"] == ["[secret]=[secret]:NoSchedule"] and "problem" not in pool  # read, then cut
    # the pack and the summary agree: fluent-bit does not tolerate the secret pool's taint
    assert any(v["policy"] == "daemonsets-tolerate-gpu-taints" and "fluent-bit" in v["resource"]
               and "[secret]=[secret]:NoSchedule" in v["message"] for v in doc["violations"])


def test_check_cuts_a_short_secret_label_from_its_own_pools_summary(capsys, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    main = project / "__main__.py"
    main.write_text(main.read_text().replace("labels={\"team\": \"research\"},",
                                             "labels=pulumi.Output.secret({\"team\": \"rsrch\", \"cost\": \"ab12\"}),"))
    assert "rsrch" in main.read_text()
    cli.main(["check", "--project-dir", str(project), "--stack", "ci"])
    out = capsys.readouterr().out
    assert "rsrch" not in out and "ab12" not in out


def test_a_chart_whose_values_are_secret_is_not_judged_and_says_it_is_a_secret(capsys, tmp_path):
    project = _foreign_project(tmp_path, (
        "\nk8s.helm.v4.Chart('hushed', chart='charts/node-agent', namespace='logging',\n"
        "    values=pulumi.Output.secret({'image': {'tag': 'TOPSECRETTAGVALUE'}}))\n"))
    cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    out = capsys.readouterr().out
    [item] = [n for n in json.loads(out)["notJudged"] if n["resource"].endswith("::hushed")]
    assert item["reason"] == "input values is a Pulumi secret, which the plan does not open offline, so the chart cannot be rendered"
    assert "Kubernetes Secret" in item["fix"] and "TOPSECRETTAGVALUE" not in out


def test_a_secure_value_read_as_json_is_said_to_be_undecrypted_not_blamed_on_the_program(capsys, tmp_path):
    project = tmp_path / "p"
    shutil.copytree(DATA / "foreign_project", project)
    (project / "Pulumi.ci.yaml").write_text((project / "Pulumi.ci.yaml").read_text()
                                            + "  platform-gpu:agents:\n    secure: v1:AAAABBBBCCCC\n")
    main = project / "__main__.py"
    main.write_text(main.read_text() + "\nconfig.require_secret_object('agents')\n")
    code = cli.main(["check", "--project-dir", str(project), "--stack", "ci", "--json"])
    [issue] = json.loads(capsys.readouterr().out)["configErrors"]
    assert code == 2 and "read a stack-file secure: value as JSON" in issue["message"]
    assert "never decrypts" in issue["message"]


def test_secrets_that_are_common_words_leave_the_reports_shape_and_kubernetes_words_alone(capsys, tmp_path):
    project = _foreign_project(tmp_path, (
        "\npulumi.CustomResource('kubernetes:core/v1:Secret', 'vault', {'metadata': {'name': 'v'},\n"
        "    'stringData': pulumi.Output.secret({'A': 'kubernetes', 'B': 'mandatory',\n"
        "                                        'C': 'node.kubernetes.io/unreachable'})})\n"
        "aws.eks.NodeGroup('short', cluster_name=cluster_name, node_role_arn=role_arn, subnet_ids=subnet_ids,\n"
        "    instance_types=['g6.xlarge'], ami_type='AL2023_x86_64_NVIDIA',\n"
        "    scaling_config={'min_size': 1, 'max_size': 2, 'desired_size': 1},\n"
        "    taints=[{'key': 'nvidia.com/gpu', 'value': 'present', 'effect': 'NO_SCHEDULE'}],\n"
        "    labels=pulumi.Output.secret({'shard': 'a', 'accelerator': 'gpu'}))\n"))
    code, doc = run_json(capsys, "check", "--project-dir", str(project), "--stack", "ci")  # valid against the schema
    assert code == 1 and {v["enforcement"] for v in doc["violations"]} <= {"mandatory", "advisory"}
    assert all("[secret]" not in v["urn"] for v in doc["violations"])
    assert any("node.kubernetes.io/unreachable" in v["message"] for v in doc["violations"])
    [short] = [p for p in doc["pools"] if p["resource"] == "short"]
    assert short["taints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert all(set(c) == {"pool", "taint", "tolerated"} for c in doc["coverage"])


def test_a_secret_made_from_a_secure_value_by_encoding_it_is_not_judged_rather_than_passed():
    import base64

    def program():
        placeholder = pulumi.Output.secret("[secret]")  # a stack file's secure: value, as the plan sees it
        pulumi.CustomResource("aws:ec2/launchTemplate:LaunchTemplate", "lt",
                              {"userData": placeholder.apply(lambda v: base64.b64encode(v.encode()).decode())})
        pulumi.CustomResource("command:local:Command", "upper", {"create": placeholder.apply(str.upper)})

    notes = _by(evaluate(record(program)[0]), "no-imperative-taints")
    assert {n["resource"] for n in notes} == {"aws:ec2/launchTemplate:LaunchTemplate lt", "command:local:Command upper"}
    assert all(n["enforcement"] == "advisory" and "can't run policy" in n["message"] for n in notes)
