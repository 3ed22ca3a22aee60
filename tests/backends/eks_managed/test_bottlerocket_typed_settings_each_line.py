"""An eks-managed Bottlerocket pool's ``bottlerocket.settings``, through ``gpupool plan``: every mistake is its own
error at its own line (an EKS-owned key does not hide the others), and the settings whose Bottlerocket type is more than
text (Url, DNSDomain, KernelCpuSetValue, the memory manager policy, the CPU manager policy options, the swap behavior)
are judged by that type, or named as not judged, never passed silently."""

from __future__ import annotations

import json

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
AT = "pools[0].bottlerocket.settings."


def _plan(temp_project, capsys, settings: str) -> tuple[int, dict, str]:
    text = POOL + "".join(f"          {line}\n" for line in settings.strip("\n").splitlines())
    project = temp_project("brtyped", text)
    code = main(["plan", "--stack", "brtyped", "--project-dir", str(project), "--json"])
    return code, json.loads(capsys.readouterr().out), text


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_each_mistake_is_one_error_at_its_own_line_beside_an_eks_owned_key(temp_project, capsys):
    code, report, text = _plan(temp_project, capsys, """
kubernetes:
  cluster-name: foo
  max-pods: many
  cpu-manager-policy: statik
kernl: {}
""")
    assert code == 2
    errors = {e["path"]: e for e in report["configErrors"]}
    assert set(errors) == {AT + "kubernetes.cluster-name", AT + "kubernetes.max-pods",
                           AT + "kubernetes.cpu-manager-policy", AT + "kernl"}
    for path, needle in (("kubernetes.cluster-name", "cluster-name:"), ("kubernetes.max-pods", "max-pods:"),
                         ("kubernetes.cpu-manager-policy", "cpu-manager-policy:"), ("kernl", "kernl:")):
        assert errors[AT + path]["location"]["line"] == _line(text, needle)
    assert "EKS supplies it" in errors[AT + "kubernetes.cluster-name"]["message"]
    assert "did you mean kernel?" in errors[AT + "kernl"]["message"]
    assert 'did you mean "static"?' in errors[AT + "kubernetes.cpu-manager-policy"]["message"]


def test_typed_settings_are_refused_by_their_bottlerocket_type(temp_project, capsys):
    code, report, _ = _plan(temp_project, capsys, """
kubernetes:
  memory-manager-policy: bogus
  provider-id: "not a url"
  cluster-domain: "10.0.0.1"
  reserved-cpus: "x-y"
  cpu-manager-policy-options: [full-pcpu-only]
  hostname-override-source: hostname
""")
    assert code == 2
    errors = {e["path"][len(AT + "kubernetes."):]: e["message"] for e in report["configErrors"]}
    assert set(errors) == {"memory-manager-policy", "provider-id", "cluster-domain", "reserved-cpus",
                           "cpu-manager-policy-options", "hostname-override-source"}
    assert "KubernetesMemoryManagerPolicy" in errors["memory-manager-policy"]
    assert "url::Url refuses" in errors["provider-id"] and "shared.rs@f2ca536" in errors["provider-id"]
    assert "is an IP address, which DNSDomain refuses" in errors["cluster-domain"]
    assert "KernelCpuSetValue" in errors["reserved-cpus"] and 'e.g. "0-1"' in errors["reserved-cpus"]
    assert 'did you mean "full-pcpus-only"?' in errors["cpu-manager-policy-options"]
    assert '"private-dns-name", "instance-id"' in errors["hostname-override-source"]
    assert all("the node never joins" in m for m in errors.values())


def test_typed_settings_this_package_cannot_judge_are_warnings_and_good_ones_pass(temp_project, capsys):
    code, report, _ = _plan(temp_project, capsys, """
kubernetes:
  memory-swap-behavior: lots
  cluster-domain: "-bad-"
  cpu-manager-policy-options: [align-by-socket]
  memory-manager-policy: Static
  provider-id: "aws:///us-east-1a/i-0abc"
  reserved-cpus: "0-1,4"
""")
    assert code == 0, report.get("configErrors")
    warnings = {w["path"][len(AT + "kubernetes."):]: w["message"] for w in report["warnings"]
                if w["path"].startswith(AT + "kubernetes.")}
    assert set(warnings) == {"memory-swap-behavior", "cluster-domain", "cpu-manager-policy-options"}
    assert all("not judged" in m for m in warnings.values())
    assert "NoSwap, LimitedSwap" in warnings["memory-swap-behavior"]
