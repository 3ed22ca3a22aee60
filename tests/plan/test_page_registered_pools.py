"""The DaemonSet x GPU pool page of ``plan --html`` and ``check --html`` draws the GpuNodePools the program registered:
a pool the pack cannot find among the resources (a self-managed kubeadm pool joins through bootstrap files) keeps
its own platform, whatever pools the stack file beside the program declares."""

from __future__ import annotations

import textwrap

import pytest
from conftest import ROOT, shipped_project
from test_plan_page import DEVICE_PLUGIN, Page

from gpu_node_pool.cli.commands import main
from gpu_node_pool.k8s.taints import TaintError
from gpu_node_pool.plan.page import plan_matrix
from gpu_node_pool.plan.registered import RegisteredPool
from gpu_node_pool.plan.run import PlanResult

# the program's own pool: bare-metal servers joined with kubeadm (no Pulumi pool resource)
KUBEADM_POOL = textwrap.dedent("""\
    from gpu_node_pool import GpuNodePool, GpuNodePoolArgs, NvidiaDevicePlugin, NvidiaDevicePluginArgs

    cluster = {"name": "onprem-gpu", "kubernetesVersion": "1.33", "apiServerEndpoint": "https://10.20.0.10:6443",
               "caCertHashes": ["sha256:8f3c1b6e2d4a5f7089b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d"]}
    dgx = GpuNodePool("dgx", GpuNodePoolArgs(cluster=cluster, pool={
        "name": "dgx", "backend": "self-managed", "format": "kubeadm", "provider": "none",
        "taints": ["nvidia.com/gpu=present:NoSchedule", "example.com/dgx:NoSchedule"],
        "labels": {"example.com/rack": "r12"}}))
    NvidiaDevicePlugin("nvidia-device-plugin", NvidiaDevicePluginArgs(cluster_name="onprem-gpu", pools=[dgx.spec]))
""")


@pytest.fixture
def project(tmp_path):
    """The program above beside the stack file dev, whose one pool is an eks-managed pool (inference)."""
    root = shipped_project(tmp_path / "p", {"dev": (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()})
    (root / "__main__.py").write_text(KUBEADM_POOL)
    return root


@pytest.mark.parametrize("command", ["plan", "check"])
def test_the_page_draws_the_programs_kubeadm_pool_on_its_own_platform(capsys, tmp_path, project, command):
    out = tmp_path / f"{command}.html"
    assert main([command, "--project-dir", str(project), "--stack", "dev", "--html", str(out)]) == 0
    assert f"wrote   {out}" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    # the program's pool, not the stack file's inference (eks-managed, on EKS)
    assert Page(text).matrix == {(DEVICE_PLUGIN, "dgx"): "runs"}
    assert "platform self-managed" in text and "platform eks" not in text
    assert "dgx: GPU pool GpuNodePool &quot;dgx&quot; (self-managed: " in text
    assert "example.com/dgx:NoSchedule" in text and "labels example.com/rack=r12, gpu-node-pools/pool=dgx" in text


def test_a_stack_files_pool_is_named_by_its_place_in_the_stack_config(tmp_path):
    out = tmp_path / "onprem.html"
    assert main(["plan", "--stack", "onprem", "--project-dir", str(ROOT), "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "dgx: GPU pool pools[0] &quot;dgx&quot; (self-managed: " in text
    assert "workstations: GPU pool pools[1] &quot;workstations&quot; (self-managed: " in text


def test_a_registered_pool_crosses_the_check_childs_answer_unchanged():
    pool = RegisteredPool("dgx", "self-managed", "eks", ("nvidia.com/gpu=present:NoSchedule",), {"a": "b"})
    assert RegisteredPool.from_json(pool.to_json()) == pool
    assert pool.to_json()["platform"] == "eks"
    assert [str(t) for t in pool.taint_list] == ["nvidia.com/gpu=present:NoSchedule"]
    with pytest.raises(TaintError):
        _ = RegisteredPool("x", "self-managed", "self-managed", ("nvidia.com/gpu:Sometimes",)).taint_list


def test_a_registered_pool_whose_taints_do_not_parse_is_not_judged():
    bad = RegisteredPool("x", "self-managed", "self-managed", ("nvidia.com/gpu:Sometimes",))
    matrix = plan_matrix(PlanResult(stack="s", pool_models=[bad]))
    [column] = matrix.columns
    assert column.id == "x"
    [(title, items)] = [(t, i) for t, i in matrix.lists if t == "Not judged"]
    assert any(item.startswith("pool x: taints unreadable: ") for item in items), items
