"""gpupool render writes only inside --out: never through a link, atomically, one render at a time,
one stack's files never over another's, and --out '~/x' where the shell would put it."""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan import render_out
from gpu_node_pool.plan.render import LOCK, MANIFEST, RenderedFile, RenderOutError, write_files


def files(*paths: str, value: str = "a") -> list[RenderedFile]:
    return [RenderedFile(p, {"kind": "ConfigMap", "data": {"v": value}}, "cm (kubernetes:core/v1:ConfigMap)")
            for p in paths]


def tree(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (links as their target text), to show nothing changed."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = Path(dirpath) / name
            found[str(path.relative_to(root))] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return found


@pytest.fixture
def victim(tmp_path) -> Path:
    """A directory outside --out whose files must never change."""
    where = tmp_path / "elsewhere"
    where.mkdir()
    (where / "values.yaml").write_text("mine: true\n")
    (where / "x.yaml").write_text("mine: true\n")
    return where


@pytest.mark.parametrize("link, to", [
    ("x.yaml", "x.yaml"),                        # a symlinked file
    ("charts", ""),                              # a symlinked folder the render writes into
    (MANIFEST, "x.yaml"),                        # the manifest itself
    (LOCK, "x.yaml"),                            # the lock file
])
def test_a_link_inside_out_is_refused_and_nothing_is_written(tmp_path, victim, link, to):
    out = tmp_path / "out"
    out.mkdir()
    (out / link).symlink_to(victim / to if to else victim)
    before_out, before_victim = tree(out), tree(victim)
    with pytest.raises(RenderOutError, match="is a symbolic link to .*outside --out"):
        write_files(files("x.yaml", "charts/c/values.yaml"), out, "dev")
    assert tree(victim) == before_victim
    assert tree(out) == before_out


def test_a_link_pointing_inside_out_is_refused_too(tmp_path):
    out = tmp_path / "out"
    (out / "real").mkdir(parents=True)
    (out / "charts").symlink_to(out / "real")
    with pytest.raises(RenderOutError, match="symbolic link .*inside --out"):
        write_files(files("charts/c/values.yaml"), out, "dev")
    assert list((out / "real").iterdir()) == []


def test_a_path_with_dot_dot_is_refused(tmp_path, victim):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RenderOutError, match="not a plain relative path"):
        write_files([RenderedFile("bootstrap/p/../../../elsewhere/x.yaml", "pwned", "p", verbatim=True)], out, "dev")
    assert (victim / "x.yaml").read_text() == "mine: true\n"


def test_a_fifo_where_a_file_goes_is_refused_not_blocked_on(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "x.yaml")
    with pytest.raises(RenderOutError, match="x.yaml is not a regular file"):
        write_files(files("x.yaml"), out, "dev")


def test_the_cli_refuses_a_symlinked_manifest_with_exit_2_before_the_plan(capsys, tmp_path, victim):
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).symlink_to(victim / "x.yaml")
    code = main(["render", "--stack", "dev", "--out", str(out), "--project-dir", str(ROOT)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith(f"error: --out {str(out)!r}: {out / MANIFEST} is a symbolic link")
    assert (victim / "x.yaml").read_text() == "mine: true\n"


# --- atomic: a render stopped half-way leaves whole files and a readable manifest ---------------------


def test_a_render_killed_mid_write_leaves_old_or_new_files_and_the_old_manifest(tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_files(files("a.yaml", "b.yaml", value="old"), out, "dev")
    before = tree(out)
    real_replace, calls = os.replace, []

    def killed(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as a SIGINT arrives between two files
        real_replace(src, dst)

    monkeypatch.setattr(render_out.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_files(files("a.yaml", "b.yaml", value="new"), out, "dev")
    monkeypatch.setattr(render_out.os, "replace", real_replace)
    assert "v: new" in (out / "a.yaml").read_text()          # replaced whole
    assert (out / "b.yaml").read_bytes() == before["b.yaml"]  # untouched
    assert (out / MANIFEST).read_bytes() == before[MANIFEST]  # the last complete render's
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    write_files(files("a.yaml", "b.yaml", value="new"), out, "dev")  # the next render is not blocked
    assert "v: new" in (out / "b.yaml").read_text()


def test_a_render_killed_writing_the_manifest_leaves_the_previous_manifest(tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_files(files("a.yaml"), out, "dev")
    before = (out / MANIFEST).read_bytes()
    real_replace = os.replace
    monkeypatch.setattr(render_out.os, "replace",
                        lambda s, d: (_ for _ in ()).throw(KeyboardInterrupt) if str(d).endswith(MANIFEST)
                        else real_replace(s, d))
    with pytest.raises(KeyboardInterrupt):
        write_files(files("a.yaml", "b.yaml"), out, "dev")
    monkeypatch.setattr(render_out.os, "replace", real_replace)
    assert (out / MANIFEST).read_bytes() == before
    json.loads(before)
    write_files(files("a.yaml", "b.yaml"), out, "dev")
    assert set(json.loads((out / MANIFEST).read_text())["stacks"]["dev"]["files"]) == {"a.yaml", "b.yaml"}


# --- one render at a time --------------------------------------------------------------------------


def test_a_render_while_another_holds_the_lock_is_refused_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(RenderOutError, match="another gpupool render is writing to .*wait for it to finish"):
            write_files(files("a.yaml"), out, "dev")
    finally:
        os.close(fd)
    assert sorted(p.name for p in out.iterdir()) == [LOCK]
    write_files(files("a.yaml"), out, "dev")  # once it is released
    assert (out / "a.yaml").is_file()
    assert not (out / LOCK).exists()  # removed by the render that held it last


def test_concurrent_renders_of_different_stacks_lose_no_manifest_entry(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    stacks = [f"s{i}" for i in range(6)]
    errors: list[BaseException] = []

    def render(stack: str) -> None:
        for _ in range(2000):
            try:
                write_files(files(f"{stack}-a.yaml", f"{stack}/b.yaml"), out, stack)
                return
            except RenderOutError as err:
                if "another gpupool render" not in str(err):
                    errors.append(err)
                    return
        errors.append(AssertionError(f"{stack} never got the lock"))

    threads = [threading.Thread(target=render, args=(s,)) for s in stacks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    manifest = json.loads((out / MANIFEST).read_text())["stacks"]
    assert sorted(manifest) == stacks
    assert all(set(manifest[s]["files"]) == {f"{s}-a.yaml", f"{s}/b.yaml"} for s in stacks)


# --- stacks kept apart --------------------------------------------------------------------------------


def test_a_second_stack_whose_files_collide_is_refused(tmp_path):
    out = tmp_path / "out"
    write_files(files("shared.yaml", "a-only.yaml"), out, "a")
    before = tree(out)
    with pytest.raises(RenderOutError, match=r"stack 'a' was rendered there and stack 'b' would overwrite its "
                                             r"shared.yaml; render each stack into its own directory"):
        write_files(files("shared.yaml", "b-only.yaml"), out, "b")
    assert tree(out) == before


def test_a_file_with_another_stacks_header_collides_without_a_manifest(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "shared.yaml").write_text("# Generated by gpupool render --stack a; do not edit\nkind: x\n")
    with pytest.raises(RenderOutError, match="stack 'a' was rendered there"):
        write_files(files("shared.yaml"), out, "b")


def test_dev_then_prod_into_one_directory_exits_2_and_keeps_devs_files(capsys, tmp_path):
    out = tmp_path / "out"
    assert main(["render", "--stack", "dev", "--out", str(out), "--project-dir", str(ROOT)]) == 0
    before = tree(out)
    capsys.readouterr()
    code = main(["render", "--stack", "prod", "--out", str(out), "--project-dir", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 2
    assert "stack 'dev' was rendered there and stack 'prod' would overwrite" in err
    assert "charts/nvidia-device-plugin-chart/chart.yaml" in err and "--out out/<stack>" in err
    assert tree(out) == before


# --- ~ ----------------------------------------------------------------------------------------------


def test_out_with_a_tilde_is_written_in_the_home_directory_not_in_a_folder_named_tilde(
    capsys, tmp_path, monkeypatch
):
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    code = main(["render", "--stack", "dev", "--out", "~/gpupool/dev", "--project-dir", str(ROOT)])
    text = capsys.readouterr().out
    assert code == 0
    assert (home / "gpupool" / "dev" / MANIFEST).is_file()
    assert list(cwd.iterdir()) == []
    assert f"wrote   {home / 'gpupool' / 'dev'}" in text and f"in {home / 'gpupool' / 'dev'} " in text


def test_out_with_the_home_of_an_unknown_user_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["render", "--stack", "dev", "--out", "~no-such-user-here/x", "--project-dir", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 2 and "'~no-such-user-here' is no user's home directory" in err
    assert list(tmp_path.iterdir()) == []


def test_a_hand_written_file_of_a_name_render_writes_is_refused_not_overwritten(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "shared.yaml").write_text("kind: ConfigMap\nmetadata: {labels: {mine: 'yes'}}\n")  # no render header
    before = tree(out)
    with pytest.raises(RenderOutError, match="is not empty and is not an earlier render"):
        write_files(files("shared.yaml"), out, "a")
    assert tree(out) == before
    (out / "shared.yaml").write_text("# Generated by gpupool render --stack a; do not edit\nkind: x\n")
    write_files(files("shared.yaml"), out, "a")  # one a render wrote (the manifest lost) is rewritten
    assert (out / "shared.yaml").read_text().startswith("# Generated by gpupool render --stack a;")
