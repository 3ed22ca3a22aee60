"""The templates an empty render is judged by are read as regular files only: a FIFO among them is never waited on."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from gpu_node_pool.expand.empty_render import _templates


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_among_the_templates_is_skipped_not_waited_on(tmp_path, monkeypatch):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "a.yaml").write_text("{{ lookup \"v1\" \"Node\" \"\" \"\" }}\n")
    os.mkfifo(templates / "b.yaml")
    # what a look before the read would say if the file were swapped for a FIFO in between: only the file opened
    # may be judged
    monkeypatch.setattr(Path, "is_file", lambda self: True)
    got: list[list[str]] = []
    reader = threading.Thread(target=lambda: got.append(_templates(str(tmp_path))), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the stuck reader so the test process can end
        with open(templates / "b.yaml", "w"):
            pass
        reader.join(5)
        pytest.fail("reading the chart's templates waited on a FIFO")
    assert got == [["{{ lookup \"v1\" \"Node\" \"\" \"\" }}\n"]]
