"""Values files and helm output the plan reads: regular files only (a FIFO never blocks the plan),
bytes that are not UTF-8 read as U+FFFD and said, never an internal error."""

from __future__ import annotations

import json
import os

import pytest

from gpu_node_pool.cli.commands import main
from gpu_node_pool.expand import Expanded
from gpu_node_pool.expand.helm import HelmRenderer
from gpu_node_pool.expand.result import RefusedInput
from gpu_node_pool.sdk.files import NotRegularFileError, read_input_text

CHART = "kubernetes:helm.sh/v4:Chart"
ASSET = {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17"}  # Pulumi's asset signature


def test_read_input_text_refuses_a_fifo_without_blocking_and_replaces_bad_bytes(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFileError, match="is a FIFO"):
        read_input_text(tmp_path / "pipe")  # no writer: a plain open() would block here
    with pytest.raises(NotRegularFileError, match="is a directory"):
        read_input_text(tmp_path)
    (tmp_path / "v.yaml").write_bytes(b"team: caf\xe9\n")
    text, note = read_input_text(tmp_path / "v.yaml")
    assert text == "team: caf\ufffd\n" and "byte 0xe9 at offset 9" in note


@pytest.fixture
def chart(tmp_path):
    (tmp_path / "chart").mkdir()
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    return str(tmp_path / "chart")


def fake_helm(tmp_path, script: str):
    helm = tmp_path / "helm"
    helm.write_text("#!/bin/sh\n" + script)
    helm.chmod(0o755)
    return helm


@pytest.mark.parametrize("make", [os.mkfifo, os.mkdir], ids=["fifo", "directory"])
def test_a_values_file_that_is_no_regular_file_is_refused_at_once_as_a_missing_one_is(tmp_path, chart, make):
    make(tmp_path / "values.yaml")
    helm = fake_helm(tmp_path, "exit 3\n")
    with HelmRenderer(helm, base_dir=tmp_path) as r:
        result = r.render(CHART, "c", {"chart": chart, "valueYamlFiles": [{**ASSET, "path": "values.yaml"}]})
    assert isinstance(result, RefusedInput) and result.input == "valueYamlFiles[0]"
    what = "is a FIFO (named pipe)" if make is os.mkfifo else "is a directory"
    assert result.message.startswith("cannot read ") and f"{what}, not a regular file" in result.message
    assert "a real `pulumi preview` fails on it" in result.message


def test_non_utf8_values_file_and_helm_output_are_read_with_replacement_and_noted(tmp_path, chart):
    (tmp_path / "values.yaml").write_bytes(b"team: caf\xe9\n")
    helm = fake_helm(tmp_path, "printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: cm}\\ndata: {a: \"x\\377\"}\\n'\n")
    with HelmRenderer(helm, base_dir=tmp_path) as r:
        result = r.render(CHART, "c", {"chart": chart, "valueYamlFiles": [{**ASSET, "path": "values.yaml"}]})
    assert isinstance(result, Expanded), result
    assert result.objects[0]["data"]["a"] == "x\ufffd"
    assert any("values.yaml is not UTF-8 (byte 0xe9 at offset 9)" in n for n in result.notes)
    assert any("printed manifests that is not UTF-8" in n for n in result.notes)


def test_policy_pack_config_fifo_and_non_utf8_exit_2(capsys, tmp_path):
    os.mkfifo(tmp_path / "cfg.json")
    code = main(["plan", "--stack", "dev", "--policy-pack-config", str(tmp_path / "cfg.json")])
    err = capsys.readouterr().err
    assert code == 2 and (f"error: --policy-pack-config {tmp_path / 'cfg.json'}: is a FIFO (named pipe), not a regular "
                          "file: reading one waits until something writes to it, so nothing was read; give the path "
                          "of a JSON file") in err
    (tmp_path / "bad.json").write_bytes(json.dumps({"all": "advisory"}).encode()[:-1] + b', "x\xff": 1}')
    code = main(["plan", "--stack", "dev", "--policy-pack-config", str(tmp_path / "bad.json"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 2 and report["configErrors"][0]["path"] == "--policy-pack-config"
    assert "is not UTF-8 (byte 0xff at offset" in report["configErrors"][0]["message"]
