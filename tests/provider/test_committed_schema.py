"""``plugin/schema.json`` is the schema the provider serves: a field change shows in review as a diff
of that file. Regenerate with ``python -m gpu_node_pool.provider --schema > plugin/schema.json``."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys

from conftest import ROOT

COMMITTED = ROOT / "plugin" / "schema.json"


def regenerated() -> str:
    """The schema as a fresh interpreter builds it (no backend a test registered)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "gpu_node_pool.provider", "--schema"], capture_output=True, text=True,
                         env=env, check=True, cwd=ROOT)
    return out.stdout


def schema_diff(committed: str, fresh: str) -> list[str]:
    return list(difflib.unified_diff(committed.splitlines(), fresh.splitlines(), "plugin/schema.json", "regenerated",
                                     lineterm="", n=1))


def test_the_committed_schema_is_the_one_the_provider_serves():
    fresh = regenerated()
    json.loads(fresh)
    diff = schema_diff(COMMITTED.read_text(), fresh)
    assert not diff, ("plugin/schema.json is stale; regenerate it with "
                      "`python -m gpu_node_pool.provider --schema > plugin/schema.json`:\n" + "\n".join(diff[:60]))


def test_the_check_can_fail():
    committed = COMMITTED.read_text()
    changed = committed.replace('"maxSize"', '"maxNodes"', 1)
    assert changed != committed
    assert schema_diff(changed, committed)
