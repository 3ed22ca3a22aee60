"""The policy pack ships in the package; `gpupool policy-pack` writes it; policy/ is that output."""

from __future__ import annotations

import runpy
from importlib import resources

import pytest
import yaml
from conftest import ROOT

from gpu_node_pool import __version__
from gpu_node_pool.cli import commands as cli
from gpu_node_pool.policies import PACK_NAME, POLICIES
from gpu_node_pool.policies.policy_pack import PACK_FILES, PolicyPackError, default_requirement, write_pack


def test_the_packaged_pack_declares_the_package_version_and_python_runtime():
    manifest = yaml.safe_load(resources.files("gpu_node_pool.policies.policy_pack").joinpath("PulumiPolicy.yaml").read_text())
    assert manifest["version"] == __version__, "bump gpu_node_pool/policies/policy_pack/PulumiPolicy.yaml with _version.py"
    assert manifest["runtime"] == {"name": "python", "options": {"virtualenv": "venv"}}


def test_the_written_main_builds_the_pack_only_when_run_as_main(tmp_path):
    pack = write_pack(tmp_path / "pack")
    namespace = runpy.run_path(str(pack.out_dir / "__main__.py"), run_name="not_main")
    assert namespace["POLICIES"] is POLICIES and namespace["PACK_NAME"] == PACK_NAME


def test_the_requirement_defaults_to_this_version_and_can_be_a_git_url(tmp_path):
    assert write_pack(tmp_path / "a").requirement == default_requirement() == f"gpu-node-pool=={__version__}"
    url = f"gpu-node-pool @ git+https://git.example.com/gpu-node-pools@v{__version__}"
    pack = write_pack(tmp_path / "b", url)
    lines = [line for line in (pack.out_dir / "requirements.txt").read_text().splitlines() if not line.startswith("#")]
    assert lines == [url, "pulumi-policy==1.21.*"]  # the pulumi-policy the pack's Configure hook was written for


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("-e ..", "not a PEP 508 requirement .*; an editable or path install cannot be published"),
        ("", "--requirement is empty; leave it out for 'gpu-node-pool=="),
        ("  ", "--requirement is empty"),
        ("git+https://git.example.com/gpu-node-pools", "not a PEP 508 requirement"),
        ("gpu-operator==1.0", "installs 'gpu-operator'"),
        ("gpu-node-pool @ file:///tmp/x", "names a path on this machine"),
    ],
)
def test_a_requirement_that_cannot_install_this_package_is_refused(tmp_path, spec, fragment):
    with pytest.raises(PolicyPackError, match=fragment) as info:
        write_pack(tmp_path / "pack", spec)
    assert info.value.argument == "--requirement" and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("gpu-node-pool==0.1.0", "does not select version {v}"),
        ("gpu-node-pool>=0.1", "selects other versions than {v} too (pip installs the newest it finds)"),
        ("gpu-node-pool~=0.3", "selects other versions than {v} too (pip installs the newest it finds)"),
        ("gpu-node-pool=={major_minor}.*", "selects other versions than {v} too (pip installs the newest it finds)"),
        ("gpu-node-pool", "selects any version (pip installs the newest it finds)"),
        ("gpu-node-pool!={v}", "does not select version {v}"),
    ],
)
def test_gpupool_policy_pack_refuses_a_requirement_that_does_not_pin_this_version(tmp_path, capsys, spec, fragment):
    """The pack's __main__.py and PulumiPolicy.yaml are this version's: pip must install this version."""
    v = __version__
    spec = spec.format(v=v, major_minor=".".join(v.split(".")[:2]))
    assert cli.main(["policy-pack", "--out", str(tmp_path / "pack"), "--requirement", spec]) == 2
    err = capsys.readouterr().err
    assert f"--requirement {spec!r} {fragment.format(v=v)}, but the pack's __main__.py and PulumiPolicy.yaml are " \
        f"gpu-node-pool {v}'s; write 'gpu-node-pool=={v}'" in err
    assert not (tmp_path / "pack").exists()


@pytest.mark.parametrize("spec", ["gpu-node-pool=={v}", "gpu-node-pool[aws]=={v}", "gpu-node-pool>=0.1,=={v}",
                                  "gpu-node-pool==={v}", "gpu-node-pool=={v} ; python_version >= '3.11'"])
def test_a_requirement_that_pins_this_version_is_written(tmp_path, spec):
    from packaging.requirements import Requirement

    spec = spec.format(v=__version__)
    assert Requirement(write_pack(tmp_path / "pack", spec).requirement) == Requirement(spec)


def test_the_repository_policy_folder_is_the_command_output(tmp_path, capsys):
    """policy/ is generated: `gpupool policy-pack --out policy` rewrites it (run that after a change)."""
    assert cli.main(["policy-pack", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    for name in (*PACK_FILES, "requirements.txt"):
        assert (ROOT / "policy" / name).read_bytes() == (tmp_path / name).read_bytes(), (
            f"policy/{name} is stale: run `gpupool policy-pack --out policy`"
        )
    assert "-e " not in (ROOT / "policy" / "requirements.txt").read_text()


def test_policy_pack_out_refuses_a_project_directory_and_changes_nothing(tmp_path, capsys):
    project = tmp_path / "infra"
    project.mkdir()
    files = {"Pulumi.yaml": "name: infra\nruntime: python\n", "__main__.py": "import pulumi\n",
             "requirements.txt": "pulumi>=3\n"}
    for name, text in files.items():
        (project / name).write_text(text)
    assert cli.main(["policy-pack", "--out", str(project)]) == 2
    err = capsys.readouterr().err
    assert f"--out {str(project)!r}: {project} is not empty (Pulumi.yaml, __main__.py, requirements.txt)" in err
    assert "choose a new or empty directory, e.g. --out policy" in err
    assert {p.name: p.read_text() for p in project.iterdir()} == files


def test_policy_pack_out_rewrites_a_pack_it_wrote_and_leaves_the_rest(tmp_path, capsys):
    pack = write_pack(tmp_path / "pack")
    (pack.out_dir / "venv").mkdir()  # made by the Pulumi CLI on the first preview
    (pack.out_dir / "__main__.py").write_text("# an edit\n")
    assert cli.main(["policy-pack", "--out", str(pack.out_dir)]) == 0
    capsys.readouterr()
    assert (pack.out_dir / "__main__.py").read_bytes() == (ROOT / "policy" / "__main__.py").read_bytes()
    assert (pack.out_dir / "venv").is_dir()


def test_policy_pack_never_writes_through_a_link_in_out(tmp_path):
    out, victim = tmp_path / "pack", tmp_path / "victim.json"
    write_pack(out)
    victim.write_text("mine")
    (out / "config.example.json").unlink()
    (out / "config.example.json").symlink_to(victim)
    with pytest.raises(PolicyPackError, match="symbolic link"):
        write_pack(out)
    assert victim.read_text() == "mine"


def test_the_per_level_layout_writes_the_level_pack_main_and_an_unknown_layout_is_refused(tmp_path):
    pack = write_pack(tmp_path / "pack", layout="per-level")
    source = (pack.out_dir / "__main__.py").read_text()
    assert "level_policies(settings)" in source and "install_configure_hook" in source
    namespace = runpy.run_path(str(pack.out_dir / "__main__.py"), run_name="not_main")
    assert namespace["PACK_NAME"] == PACK_NAME  # imported, not served
    with pytest.raises(PolicyPackError, match="--layout 'fast' is not a pack layout; choose one of per-rule, per-level"):
        write_pack(tmp_path / "other", layout="fast")
    assert not (tmp_path / "other").exists()


def test_gpupool_policy_pack_takes_the_layout(tmp_path, capsys):
    assert cli.main(["policy-pack", "--out", str(tmp_path / "p"), "--layout", "per-level"]) == 0
    assert "install_configure_hook" in (tmp_path / "p" / "__main__.py").read_text()


def test_gpupool_policy_pack_says_to_install_the_packs_venv(tmp_path, capsys):
    assert cli.main(["policy-pack", "--out", str(tmp_path / "p")]) == 0
    assert f"install: cd {tmp_path / 'p'} && pulumi install" in capsys.readouterr().out
