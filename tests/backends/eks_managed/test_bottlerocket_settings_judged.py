"""An eks-managed Bottlerocket pool's ``bottlerocket.settings`` judged against the package's table of Bottlerocket
settings, through ``gpupool plan`` and ``gpupool render`` on a stack file: Bottlerocket's settings API refuses a
document with an unknown key or a wrong type, early-boot-config fails and the node never joins, so a misspelt key or
group and a wrong type are refused at their own line with the value, the rule, the source and the fix; what the table
does not know is a warning, never passed silently; good settings still reach the TOML."""

from __future__ import annotations

import base64
import json
import tomllib

from stack_texts import EKS_DEV

from gpu_node_pool.cli.commands import main

POOL = EKS_DEV + """    - name: br
      backend: eks-managed
      instanceTypes: [g6.xlarge]
      amiType: BOTTLEROCKET_x86_64_NVIDIA
      scaling: {minSize: 0, maxSize: 2}
      taints: [nvidia.com/gpu=present:NoSchedule]
      bottlerocket:
        settings:
"""


def _stack(settings: str) -> str:
    return POOL + "".join(f"          {line}\n" for line in settings.strip("\n").splitlines())


def _plan(temp_project, capsys, settings: str) -> tuple[int, dict]:
    project = temp_project("brjudge", _stack(settings))
    code = main(["plan", "--stack", "brjudge", "--project-dir", str(project), "--json"])
    return code, json.loads(capsys.readouterr().out)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_misspelt_settings_group_is_refused_at_its_line_with_the_group_meant(temp_project, capsys):
    text = _stack("kubernets: {max-pods: 10}")
    project = temp_project("brjudge", text)
    assert main(["plan", "--stack", "brjudge", "--project-dir", str(project)]) == 2
    err = capsys.readouterr().err
    line = _line(text, "kubernets:")
    assert f":{line}:" in err and "pools[0].bottlerocket.settings.kubernets: kubernets is no Bottlerocket settings group" in err
    assert "did you mean kubernetes?" in err
    assert "aws-k8s-nvidia/src/lib.rs@v1.26.0" in err  # the variant's settings groups, its public source
    assert "the node never joins" in err


def test_each_wrong_key_and_type_of_kubernetes_is_refused_with_its_path_value_rule_and_fix(temp_project, capsys):
    code, report = _plan(temp_project, capsys, """
kubernetes:
  max-pod: 10
  max-pods: "many"
  eviction-hard: {"memory.available": "lots"}
""")
    assert code == 2
    errors = {e["path"]: e["message"] for e in report["configErrors"]}
    at = "pools[0].bottlerocket.settings.kubernetes."
    assert set(errors) == {at + "max-pod", at + "max-pods", at + "eviction-hard['memory.available']"}
    assert "max-pod is no Bottlerocket key of settings.kubernetes" in errors[at + "max-pod"]
    assert "did you mean max-pods?" in errors[at + "max-pod"]
    assert '"many" is not a whole number from 0 to 4294967295 (Rust u32)' in errors[at + "max-pods"]
    assert "settings-extensions/kubernetes/src/lib.rs" in errors[at + "max-pods"]
    assert '"lots" is neither a percentage' in errors[at + "eviction-hard['memory.available']"]
    assert 'e.g. "10%" or "500Mi"' in errors[at + "eviction-hard['memory.available']"]
    assert all("the node never joins" in message for message in errors.values())
    assert all("location" in e for e in report["configErrors"])  # each at its own line


def test_a_sysctl_given_as_a_number_is_refused_at_its_line_with_the_quoted_fix(temp_project, capsys):
    text = _stack('kernel: {sysctl: {"net.core.somaxconn": 4096}}')
    project = temp_project("brjudge", text)
    assert main(["render", "--stack", "brjudge", "--project-dir", str(project), "--out", str(project / "out")]) == 2
    err = capsys.readouterr().err
    assert f":{_line(text, 'somaxconn')}:" in err
    assert "pools[0].bottlerocket.settings.kernel.sysctl['net.core.somaxconn']: 4096 is not a string" in err
    assert 'quote it: "4096"' in err and "settings-extensions/kernel/src/lib.rs" in err
    assert not (project / "out").exists() or not list((project / "out").rglob("user-data.toml"))


def test_a_quoted_number_or_boolean_is_told_to_lose_its_quotes(temp_project, capsys):
    code, report = _plan(temp_project, capsys, 'kubernetes: {max-pods: "110", seccomp-default: "true"}')
    assert code == 2
    messages = [e["message"] for e in report["configErrors"]]
    assert len(messages) == 2
    assert any("write the number without quotes: 110" in m for m in messages)
    assert any("write true without quotes" in m for m in messages)


def test_a_value_outside_the_modeled_choices_is_refused_with_the_choice_meant(temp_project, capsys):
    code, report = _plan(temp_project, capsys, "kubernetes: {cpu-manager-policy: statik}")
    assert code == 2
    (error,) = report["configErrors"]
    assert error["path"] == "pools[0].bottlerocket.settings.kubernetes.cpu-manager-policy"
    assert ('"statik" is not a CPU manager policy (CpuManagerPolicy) Bottlerocket takes ("none", "static", "None", '
            '"Static")') in error["message"]
    assert 'did you mean "static"?' in error["message"]


def test_what_the_table_does_not_know_is_a_warning_and_good_settings_reach_the_toml(temp_project, capsys):
    code, report = _plan(temp_project, capsys, """
kubernetes:
  max-pods: 58
  eviction-hard: {"memory.available": "5%"}
  kube-reserved: {memory: 1Gi}
  topology-manager-policy: single-numa-node
  image-gc-high-threshold-percent: 85
kernel: {sysctl: {"net.core.somaxconn": "4096"}}
frobnicate: {level: 3}
boot: {reboot-to-reconcile: true}
""")
    assert code == 0, report.get("configErrors")
    warnings = {w["path"]: w["message"] for w in report["warnings"]}
    assert "not judged" in warnings["pools[0].bottlerocket.settings.frobnicate"]
    assert "not judged" in warnings["pools[0].bottlerocket.settings.boot"]
    assert not any(p.startswith("pools[0].bottlerocket.settings.kubernetes") for p in warnings)
    (lt,) = [r for r in report["resources"] if r["type"] == "aws:ec2/launchTemplate:LaunchTemplate"]
    settings = tomllib.loads(base64.b64decode(lt["inputs"]["userData"]).decode())["settings"]
    assert settings["kubernetes"]["max-pods"] == 58 and settings["kernel"]["sysctl"]["net.core.somaxconn"] == "4096"
