"""The built wheel, installed non-editable into a fresh venv, works from outside the repository.

This is what a platform team gets from ``pip install gpu-node-pool``: only the declared
dependencies (an undeclared runtime import, as jsonschema once was, fails here), only the
files the wheel ships (schemas, policy pack, py.typed), and no ``components/`` on the path.

Cost: the wheel builds in ~3 s; the install resolves the declared dependencies with the
repository's pins as constraints, through pip's own index settings and cache (PIP_FIND_LINKS,
PIP_INDEX_URL, ~/.cache/pip), so a CI runner that caches ~/.cache/pip installs in ~15 s.
The venv is created without pip (the outer pip installs into it with ``--python``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool import __version__
from gpu_node_pool.cli.contract import report_schema

PACKAGE_DATA = ("py.typed", "catalog/ec2_instance_types.csv", "cli/report.schema.json", "policies/policy_pack/PulumiPolicy.yaml",
                "policies/policy_pack/__main__.py", "policies/policy_pack/per_level_main.py",
                "policies/policy_pack/config.example.json")
#: What only the component, the backends and the live audit import: extras, not in a pack's venv.
EXTRA_ONLY = ("pulumi_aws", "pulumi_gcp", "pulumi_kubernetes", "kubernetes")


def _clean_env() -> dict[str, str]:
    # No PYTHONPATH: the tests run with components/ on it, the installed wheel must stand alone.
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """``(venv dir, working dir outside the repo)`` with the wheel installed non-editable, every extra."""
    return _install(tmp_path_factory.mktemp("wheel"), "[all]")


@pytest.fixture(scope="module")
def lean(tmp_path_factory) -> tuple[Path, Path]:
    """The same with no extra: what a policy pack's ``requirements.txt`` (``gpu-node-pool==<v>``) installs."""
    return _install(tmp_path_factory.mktemp("lean"), "")


def _install(work: Path, extras: str) -> tuple[Path, Path]:
    env = _clean_env()
    dist = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(ROOT)],
        check=True, cwd=work, env=env,
    )
    (wheel,) = dist.glob("gpu_node_pool-*.whl")
    assert wheel.name.startswith(f"gpu_node_pool-{__version__}-py3-none-any")
    target = work / "env"
    venv.create(target, with_pip=False, symlinks=True)
    pins = work / "constraints.txt"
    pins.write_text("".join(
        line + "\n" for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith(("#", "-"))
    ))
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "install", "--quiet",
         "--no-compile", "-c", str(pins), f"{wheel}{extras}"],
        check=True, cwd=work, env=env,
    )
    outside = work / "elsewhere"
    outside.mkdir()
    return target, outside


def gpupool(installed: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess[str]:
    target, cwd = installed
    return subprocess.run([str(target / "bin" / "gpupool"), *args], cwd=cwd, env=_clean_env(),
                          capture_output=True, text=True, timeout=300)


def test_the_installed_package_is_the_wheel_with_its_data_files(installed):
    target, cwd = installed
    code = "import gpu_node_pool, pathlib; print(pathlib.Path(gpu_node_pool.__file__).parent)"
    proc = subprocess.run([str(target / "bin" / "python"), "-c", code], cwd=cwd, env=_clean_env(),
                          capture_output=True, text=True, check=True)
    package = Path(proc.stdout.strip())
    assert package.is_relative_to(target), f"imported from {package}, not from the fresh venv"
    missing = [name for name in PACKAGE_DATA if not (package / name).is_file()]
    assert not missing, f"not in the wheel: {missing} (pyproject.toml [tool.setuptools.package-data])"
    check = subprocess.run([sys.executable, "-m", "pip", "--python", str(target / "bin" / "python"), "check"],
                           env=_clean_env(), capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_gpupool_version_from_the_wheel(installed):
    proc = gpupool(installed, "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"gpupool {__version__}"


def test_gpupool_plan_of_a_copied_project_from_the_wheel(installed):
    _, cwd = installed
    project = cwd / "project"
    project.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "stacks", project / "stacks")
    proc = gpupool(installed, "plan", "--project-dir", str(project), "--stack", "dev", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    import jsonschema

    jsonschema.validate(doc, report_schema())
    assert [p["name"] for p in doc["pools"]] == ["inference"]
    assert all(c["tolerated"] for c in doc["devicePlugin"]["coverage"])


def test_gpupool_policy_pack_from_the_wheel(installed):
    _, cwd = installed
    proc = gpupool(installed, "policy-pack", "--out", "pack")
    assert proc.returncode == 0, proc.stderr
    pack = cwd / "pack"
    assert sorted(p.name for p in pack.iterdir()) == [
        "PulumiPolicy.yaml", "__main__.py", "config.example.json", "requirements.txt"
    ]
    assert f"gpu-node-pool=={__version__}" in (pack / "requirements.txt").read_text().splitlines()
    assert (pack / "__main__.py").read_bytes() == (ROOT / "policy" / "__main__.py").read_bytes()


def test_sarif_help_links_come_from_the_wheels_project_urls(installed):
    """``helpUri`` is ``<Homepage or Repository of pyproject's [project.urls]>#<README anchor>``, read
    from the installed metadata; with neither URL there is no ``helpUri`` (never a relative one)."""
    import tomllib

    urls = {k.lower(): v for k, v in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("urls", {}).items()}
    base = urls.get("homepage") or urls.get("repository")
    _, cwd = installed
    project = cwd / "sarif-project"
    project.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "stacks", project / "stacks")
    proc = gpupool(installed, "validate", "--stack", "dev", "--project-dir", str(project), "--format", "sarif")
    assert proc.returncode == 0, proc.stderr
    rules = json.loads(proc.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) > 10
    if base:
        assert all(r["helpUri"].startswith(f"{base}#") for r in rules), rules
    else:
        assert [r["id"] for r in rules if "helpUri" in r] == []


def _changelog_top_version() -> str:
    import re

    heading = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert heading, "CHANGELOG.md has no '## <version>' entry"
    return heading.group(1)


def test_the_wheel_version_is_the_changelog_top_entry(installed):
    """A release tag names the version of CHANGELOG.md's newest entry (README "Installing the package"),
    and the wheel built from it carries that version in its metadata."""
    target, cwd = installed
    code = "import importlib.metadata as m; print(m.version('gpu-node-pool'))"
    proc = subprocess.run([str(target / "bin" / "python"), "-c", code], cwd=cwd, env=_clean_env(),
                          capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == _changelog_top_version() == __version__


#: Run in the lean venv: the pack's entry point of each layout, imported (not served), and the
#: whole pack evaluated over a node group and a DaemonSet; prints the provider SDKs imported and what
#: the instance catalog (its packaged CSV) says of p5.48xlarge.
LEAN_PROBE = """
import json, runpy, sys
import gpu_node_pool.policies.policy_pack as pack
from importlib import resources
from gpu_node_pool import catalog
from gpu_node_pool.policies import evaluate
from gpu_node_pool.sdk.record import Resource
for name in ("__main__.py", "per_level_main.py"):
    runpy.run_path(str(resources.files(pack).joinpath(name)), run_name="not_main")
group = Resource("aws:eks/nodeGroup:NodeGroup", "gpu", {"clusterName": "ml", "instanceTypes": ["g6.xlarge"],
                 "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1}, "taints": []})
agent = Resource("kubernetes:apps/v1:DaemonSet", "agent", {"metadata": {"name": "agent", "namespace": "kube-system"},
                 "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "busybox"}]}}}})
findings = evaluate([group, agent])
print(json.dumps({"policies": sorted({f["policy"] for f in findings}), "p5": catalog.gpus("p5.48xlarge"),
                  "extras": sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))}))
"""


def test_the_policy_pack_runs_without_any_provider_sdk(lean):
    target, cwd = lean
    python = str(target / "bin" / "python")
    missing = subprocess.run([python, "-c", "import importlib.util as u, sys; "
                              "print([m for m in sys.argv[1:] if u.find_spec(m)])", *EXTRA_ONLY],
                             cwd=cwd, env=_clean_env(), capture_output=True, text=True, check=True)
    assert missing.stdout.strip() == "[]", f"the core install brought an extra's SDK: {missing.stdout}"
    proc = subprocess.run([python, "-c", LEAN_PROBE, *EXTRA_ONLY], cwd=cwd, env=_clean_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "gpu-pool-declares-taint" in doc["policies"] and doc["extras"] == []
    assert doc["p5"] == 8  # the catalog read its CSV from the installed wheel


def test_a_pool_without_its_providers_sdk_names_the_extra_to_install(lean):
    _, cwd = lean
    project = cwd / "project"
    project.mkdir()
    for name in ("Pulumi.yaml", "__main__.py"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "stacks", project / "stacks")
    proc = gpupool(lean, "plan", "--project-dir", str(project), "--stack", "dev")
    assert proc.returncode != 0
    assert "pip install 'gpu-node-pool[aws]'" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
