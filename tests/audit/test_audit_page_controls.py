"""The audit page shows a name or message from the cluster as the text report does: its control characters
escaped (C0 and C1 controls, ESC, U+2028, and the bidirectional controls such as U+202E, which would reorder what
follows it on the page: CVE-2021-42574; kubectl escapes them since CVE-2021-25743), then escaped for HTML."""

from __future__ import annotations

import json
import unicodedata

import pytest
from audit_cluster import corpus_ds, ds_pod, eks_node, finished_pod

from gpu_node_pool.cli.commands import main
from gpu_node_pool.plan.html import Matrix, MatrixCell, MatrixColumn, MatrixRow, render_page

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
EVIL = "EVIL\u202eDELIVER\x1b[31mRED"
SHOWN = "EVIL\\u202eDELIVER\\x1b[31mRED"


def controls(text: str) -> list[str]:
    """The control and format characters of ``text`` (Unicode categories Cc and Cf) but the page's own newlines."""
    return [f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cc", "Cf") and c != "\n"]


def test_a_scheduler_message_and_a_node_name_show_escaped_on_the_page_as_in_the_text(tmp_path, capsys):
    node = eks_node("gpu-\u202e1\x07", pool="train", nodegroup="train", instance="g6e.2xlarge", gpus=0,
                    taints=[GPU_TAINT])  # starved: named in the findings and the starved list
    plugin = corpus_ds("nvidia-device-plugin-helm")
    pending = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml"},
               "spec": {"containers": [{"name": "c", "image": "busybox",
                                        "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
               "status": {"phase": "Pending", "conditions": [{
                   "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                   "message": f"0/1 nodes are available: 1 node(s) had untolerated taint {{nvidia.com/gpu: present}}. "
                              f"{EVIL}"}]}}
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        node, plugin, ds_pod(plugin, node["metadata"]["name"]), finished_pod(node["metadata"]["name"]), pending]}))
    page = tmp_path / "audit.html"
    main(["audit", "--cluster-dump", str(dump), "--html", str(page)])
    text = capsys.readouterr().out
    html = page.read_text(encoding="utf-8")
    assert SHOWN in text and SHOWN in html  # the same escaped message in both
    assert "gpu-\\u202e1\\x07" in text and "gpu-\\u202e1\\x07" in html
    assert controls(html) == [] and controls(text) == []


@pytest.mark.parametrize("raw", ["\u202e", "\u2066", "\u061c", "\x1b", "\x07", "\x9b", "\u2028", "\r", "\x00"])
def test_every_text_of_the_page_escapes_each_control_as_the_text_report_does(raw):
    name = f"pool{raw}x"
    matrix = Matrix(f"title{raw}", f"sub{raw}", (MatrixColumn(name, (f"t{raw}=v:NoSchedule",), 1, (f"l{raw}=v",)),),
                    (MatrixRow(f"ns/ds{raw}", (MatrixCell("doesNotRun", f"summary{raw}", (f"detail{raw}",)),), ()),),
                    (), ((f"Findings{raw}", (f"finding{raw}",)),))
    html = render_page(matrix)
    assert controls(html) == []
    assert "\\" in html and html.count("\\") >= 9  # each text shows its control escaped, none dropped


def test_html_markup_in_a_name_is_still_escaped_after_the_controls():
    matrix = Matrix("t", "s", (MatrixColumn("<b>pool</b>\u202e", (), 1, ()),),
                    (MatrixRow('ds"><script>', (MatrixCell("runs", "ok", ()),), ()),), (), ())
    html = render_page(matrix)
    assert "<script>" not in html and "<b>pool</b>" not in html
    assert "&lt;b&gt;pool&lt;/b&gt;\\u202e" in html and "ds&quot;&gt;&lt;script&gt;" in html
