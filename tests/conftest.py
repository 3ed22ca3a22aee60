"""Shared fixtures: the repo root, a temporary project for config-mistake runs, the corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

settings.register_profile(
    "ci", max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _no_user_helm_cache(monkeypatch, tmp_path_factory):
    """Plans never read the user's Helm repository cache in tests: results do not depend on the machine,
    and the shipped stacks' device plugin chart is not rendered in every plan test."""
    monkeypatch.setenv("HELM_REPOSITORY_CACHE", str(tmp_path_factory.getbasetemp() / "no-helm-repository-cache"))


def plan_stack_text(capsys, temp_project, text: str) -> tuple[int, str]:
    """``gpupool plan`` of the stack file ``text`` (as ``Pulumi.mine.yaml`` in a copy of the project), as a user
    runs it: the exit code and everything printed, stdout then stderr."""
    from gpu_node_pool.cli.commands import main

    code = main(["plan", "--stack", "mine", "--project-dir", str(temp_project("mine", text))])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture
def repo_root() -> Path:
    return ROOT


def shipped_project(root: Path, stacks: dict[str, str]) -> Path:
    """``root`` made a copy of this repository's Pulumi project (``Pulumi.yaml``, ``__main__.py``) with a
    ``stacks/Pulumi.<name>.yaml`` for each ``{name: yaml text}`` of ``stacks``; returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Pulumi.yaml", root / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", root / "__main__.py")
    (root / "stacks").mkdir(exist_ok=True)
    for name, text in stacks.items():
        (root / "stacks" / f"Pulumi.{name}.yaml").write_text(text)
    return root


@pytest.fixture
def temp_project(tmp_path: Path):
    """A copy of the Pulumi project (Pulumi.yaml, __main__.py) with a writable stacks/ dir.

    Returns a function ``write(stack_name, yaml_text) -> Path`` that writes
    ``stacks/Pulumi.<stack_name>.yaml`` and returns the project dir.
    """
    shipped_project(tmp_path, {})

    def write(stack: str, text: str) -> Path:  # the stack only: a test may have changed the program meanwhile
        (tmp_path / "stacks" / f"Pulumi.{stack}.yaml").write_text(text)
        return tmp_path

    return write


def base() -> dict:
    """A valid one-pool eks-managed stack config (as a mapping), for tests to vary."""
    return {
        "cluster": {
            "name": "ml-dev",
            "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
            "subnetIds": ["subnet-0a1b2c3d4e5f60718"],
        },
        "pools": [
            {
                "name": "inference",
                "backend": "eks-managed",
                "instanceTypes": ["g6.xlarge"],
                "scaling": {"minSize": 0, "maxSize": 4},
                "taints": ["nvidia.com/gpu=present:NoSchedule"],
                "labels": {"example.com/team": "ml"},
            }
        ],
    }
