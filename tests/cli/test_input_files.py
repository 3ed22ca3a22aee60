"""Every file the CLI reads is opened in one place (``gpu_node_pool.sdk.files.open_input``): a FIFO, a directory or a
device named where a file is read is refused at once, exit 2, with the option, the path, what it is and the fix.
Each FIFO case runs ``gpupool`` in a child process with a timeout, so that a command that waits on the FIFO fails
the test instead of hanging it."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.sdk.files import NotRegularFileError, open_input

FIFO = "is a FIFO (named pipe), not a regular file: reading one waits until something writes to it"
KUBERNETES = importlib.util.find_spec("kubernetes") is not None


def gpupool(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``gpupool argv`` in a child process, stopped (and the test failed) after 20 seconds."""
    return subprocess.run([sys.executable, "-m", "gpu_node_pool.cli", *argv], capture_output=True, text=True,
                          timeout=20, cwd=ROOT, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("name", "argv", "option", "fix"), [
    ("cfg.json", ["plan", "--stack", "dev", "--policy-pack-config"], "--policy-pack-config",
     "give the path of a JSON file"),
    ("cfg.json", ["render", "--stack", "dev", "--out", "OUT", "--policy-pack-config"], "--policy-pack-config",
     "give the path of a JSON file"),
    ("Pulumi.dev.yaml", ["validate", "--file"], "--file", "give the path of a Pulumi.<stack>.yaml"),
    ("cluster.json", ["audit", "--cluster-dump"], "--cluster-dump", "write the dump to a file first"),
    ("cluster.yaml", ["audit", "--cluster-dump"], "--cluster-dump", "write the dump to a file first"),
    pytest.param("config", ["audit", "--kubeconfig"], "--kubeconfig", "give the path of a kubeconfig file",
                 marks=pytest.mark.skipif(not KUBERNETES, reason="the kubernetes client (extra audit) is not installed")),
])
def test_a_fifo_is_refused_at_once_naming_the_option_the_path_and_the_fix(tmp_path, name, argv, option, fix):
    fifo = tmp_path / name
    os.mkfifo(fifo)  # nothing ever writes to it: a plain open() for reading would wait forever
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    done = gpupool(*argv, str(fifo))
    assert done.returncode == 2, done.stderr
    assert f"{option} {fifo}: {FIFO}" in done.stderr
    assert fix in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not KUBERNETES, reason="the kubernetes client (extra audit) is not installed")
def test_a_kubeconfig_fifo_from_the_environment_is_refused_naming_kubeconfig(tmp_path):
    fifo = tmp_path / "config"
    os.mkfifo(fifo)
    done = gpupool("audit", env={"KUBECONFIG": f"{tmp_path / 'missing'}{os.pathsep}{fifo}"})
    assert done.returncode == 2, done.stderr
    assert f"$KUBECONFIG {fifo}: {FIFO}" in done.stderr


@pytest.mark.parametrize(("target", "kind"), [(".", "a directory"), (os.devnull, "a character device")])
def test_a_directory_or_a_device_as_the_policy_pack_config_says_what_it_is(capsys, tmp_path, target, kind):
    path = tmp_path if target == "." else target
    assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--policy-pack-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"error: --policy-pack-config {path}: is {kind}, not a regular file; give the path of a JSON file" in err


def test_validate_file_names_a_directory_and_a_missing_file(capsys, tmp_path):
    assert main(["validate", "--file", str(tmp_path)]) == 2
    assert f"--file {tmp_path}: is a directory, not a regular file; give the path of a Pulumi.<stack>.yaml" in \
        capsys.readouterr().err
    assert main(["validate", "--file", str(tmp_path / "Pulumi.gone.yaml")]) == 2
    assert f"--file {tmp_path / 'Pulumi.gone.yaml'}: no such stack file" in capsys.readouterr().err


def test_a_socket_is_refused_as_a_socket(tmp_path):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(NotRegularFileError) as refused:
            open_input(path, "--policy-pack-config", "give the path of a JSON file")
    assert str(refused.value) == (f"--policy-pack-config {path}: is a socket, not a regular file; give the path of "
                                  "a JSON file")


def test_a_regular_file_is_read_with_blocking_reads(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 10)
    with open_input(tmp_path / "f") as fh:
        assert os.get_blocking(fh.fileno()) and fh.read() == b"x" * 10
