"""The plugin directory ``pulumi package add`` reads: its manifest, its entry point and its pins."""

from __future__ import annotations

import ast
import re
import tomllib

import yaml
from conftest import ROOT

PLUGIN = ROOT / "plugin"


def _pins(path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)$", line.strip())
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def test_the_manifest_declares_the_python_runtime_in_a_virtualenv():
    manifest = yaml.safe_load((PLUGIN / "PulumiPlugin.yaml").read_text())
    assert manifest["runtime"]["name"] == "python"
    assert manifest["runtime"]["options"]["virtualenv"] == "venv"


def test_the_entry_point_serves_the_provider_from_this_repository():
    tree = ast.parse((PLUGIN / "__main__.py").read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert any(n.module == "gpu_node_pool.provider.host" and [a.name for a in n.names] == ["main"] for n in imports)
    assert (PLUGIN.parent / "components" / "gpu_node_pool" / "provider" / "host.py").is_file()


def test_the_plugin_pins_every_runtime_dependency_as_the_repository_does():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]  # the plugin registers every backend's resources: [all]
    wanted = [*project["dependencies"], *(d for extra in ("aws", "gcp", "audit") for d in extras[extra])]
    assert extras["all"] == ["gpu-node-pool[aws,gcp,audit]"]
    runtime = {re.split(r"[<>=!~ \[]", d, maxsplit=1)[0].lower() for d in wanted}
    plugin, root = _pins(PLUGIN / "requirements.txt"), _pins(ROOT / "requirements.txt")
    assert set(plugin) == runtime
    assert {k: root[k] for k in plugin} == plugin
