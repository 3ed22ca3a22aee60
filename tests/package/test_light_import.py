"""Importing the CLI and what ``gpupool plan`` imports before the program runs loads neither
pydantic nor the config models (the import budget): they are imported when a stack is
validated. A fresh interpreter, since the test session has loaded them long ago. Not a timing test."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT

MODULES = ("gpu_node_pool.cli.commands", "gpu_node_pool.component.program", "gpu_node_pool.component.pool", "gpu_node_pool.gpu_agents.device_plugin",
           "gpu_node_pool.policies")
PROBE = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(*modules: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True, text=True, env=env, check=True)
    return set(json.loads(out.stdout))


def test_importing_the_cli_program_pool_device_plugin_and_policies_loads_no_pydantic_nor_config_models():
    loaded = _loaded(*MODULES)
    assert set(MODULES) <= loaded
    heavy = {"pydantic", "pydantic_core", "gpu_node_pool.config.common", "gpu_node_pool.config.stack",
             "gpu_node_pool.config.loading"}
    assert not heavy & loaded, sorted(heavy & loaded)
    assert not [m for m in loaded if m.startswith("gpu_node_pool.backends.") and m.endswith(".config")]


def test_the_config_package_still_gives_its_names_and_validating_loads_the_models():
    loaded = _loaded("gpu_node_pool.config")
    assert "pydantic" not in loaded  # ConfigError, ConfigIssue, PROJECT, DEFAULT_TAINT are light
    from gpu_node_pool import config
    from gpu_node_pool.config import common, loading, stack

    for name in config.__all__:
        assert getattr(config, name) is not None, name
    assert config.PoolConfig is common.PoolBase and config.DEFAULT_TAINT is common.DEFAULT_TAINT
    assert config.load_stack_config is loading.load_stack_config and config.ClusterConfig is stack.ClusterConfig


def test_dir_of_the_config_package_lists_the_lazily_loaded_names():
    import gpu_node_pool.config as config

    assert set(config.__all__) <= set(dir(config))


def test_importing_the_package_and_the_cli_loads_no_component_package_provider():
    """The component package (``gpu_node_pool.provider``, the SDK's schema analyzer) loads only when
    ``plugin/__main__.py`` serves it: ``import gpu_node_pool`` and ``gpupool`` never import it."""
    loaded = _loaded("gpu_node_pool", *MODULES)
    assert not [m for m in loaded if m.startswith("gpu_node_pool.provider") or m == "pulumi.provider.experimental"]
