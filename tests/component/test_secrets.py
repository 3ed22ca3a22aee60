"""Secrets stay secret: a kubeconfig given as a Pulumi secret never shows in the plan or outputs."""

from __future__ import annotations

import json

from conftest import ROOT

from gpu_node_pool.plan import SECRET, PlanResult, load_stack_file, record_program, render_text, to_json

TOKEN = "SUPERSECRET-TOKEN-d41d8cd98f00"


def test_kubeconfig_secret_reaches_the_provider_but_never_the_plan():
    config, secrets, _ = load_stack_file(ROOT, "dev")
    config["gpu-node-pools:kubeconfig"] = f"apiVersion: v1\nkind: Config\nusers: [{{name: u, user: {{token: {TOKEN}}}}}]"
    resources, outputs = record_program(
        ROOT / "__main__.py", config, [*secrets, "gpu-node-pools:kubeconfig"], stack="dev"
    )
    provider = next(r for r in resources if r.type == "pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == SECRET
    result = PlanResult(stack="dev", resources=resources, outputs=outputs)
    assert TOKEN not in json.dumps(to_json(result), default=str)
    assert TOKEN not in render_text(result)
    assert TOKEN not in json.dumps(outputs, default=str)


def test_a_secure_value_in_the_stack_file_is_never_decrypted_offline(temp_project):
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    text += "  gpu-node-pools:kubeconfig:\n    secure: AAABAKxyz0123456789\n"
    project = temp_project("sec", text)
    config, secrets, _ = load_stack_file(project, "sec")
    assert config["gpu-node-pools:kubeconfig"] == SECRET
    assert secrets == ["gpu-node-pools:kubeconfig"]


def test_a_plain_text_kubeconfig_is_a_config_error(temp_project, capsys):
    from gpu_node_pool.cli.commands import main

    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    text += f"  gpu-node-pools:kubeconfig: 'apiVersion: v1 {TOKEN}'\n"
    project = temp_project("plain", text)
    assert main(["plan", "--stack", "plain", "--project-dir", str(project)]) == 2
    captured = capsys.readouterr()
    assert TOKEN not in captured.out
    out = captured.err  # a config error is on stderr
    assert "gpu-node-pools:kubeconfig: is stored in plain text; a credential must be a Pulumi secret" in out
    assert TOKEN not in out
