"""The one "did you mean" helper: :mod:`gpu_node_pool.text.suggest` ranks as ``difflib.get_close_matches`` does,
loads ``difflib`` only when it suggests something, and is the one place of the package that imports it."""

from __future__ import annotations

import ast
import difflib
import json
import subprocess
import sys

from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st

from gpu_node_pool.text.suggest import CUTOFF, close_matches, closest

PACKAGE = ROOT / "components" / "gpu_node_pool"
#: The one module of the package that imports ``difflib``.
SUGGEST = "text/suggest.py"

_WORDS = st.text(alphabet="abcdenoscheul-._/", max_size=12)


@given(_WORDS, st.lists(_WORDS, max_size=8, unique=True), st.integers(1, 4),
       st.sampled_from([0.0, 0.5, 0.6, 0.75, 0.8, 1.0]))
def test_the_ranking_is_difflibs(word, choices, n, cutoff):
    """Of names in one case, each named once (a name differing in case alone is :func:`test_a_name_that_differs_in_case_alone_is_suggested`'s)."""
    want = difflib.get_close_matches(word, choices, n, cutoff)
    if word in choices and word not in want:  # an exact match ranks first, past any cutoff
        want = [word, *want][:n]
    assert close_matches(word, choices, n=n, cutoff=cutoff) == want
    assert closest(word, choices, cutoff=cutoff) == (want[0] if want else None)


def test_the_closest_name_or_none():
    assert closest("NoScheduel", ["NoSchedule", "NoExecute"]) == "NoSchedule"
    assert closest("gpu", ["cpu"], cutoff=0.8) is None and closest("gpu", ["cpu"]) == "cpu"
    assert closest("x", []) is None
    assert closest("diskSise", {"diskSize": 1, "name": 2}) == "diskSize"  # a mapping's keys
    assert CUTOFF == 0.6  # difflib's default, which the messages' suggestions were tuned with


def test_ties_go_to_the_later_name_as_in_difflib():
    ranked = close_matches("ab", ["ac", "ad"], n=2, cutoff=0.5)
    assert ranked == ["ad", "ac"] == difflib.get_close_matches("ab", ["ac", "ad"], 2, 0.5)


def test_difflib_is_imported_only_when_a_suggestion_is_made():
    """The module loaded alone, so nothing else of the package can have imported difflib first."""
    probe = ("import importlib.util, json, sys\n"
             "spec = importlib.util.spec_from_file_location('suggest', sys.argv[1])\n"
             "suggest = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(suggest)\n"
             "before = 'difflib' in sys.modules\nsuggest.closest('a', ['a'])\n"
             "print(json.dumps([before, 'difflib' in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe, str(PACKAGE / "text" / "suggest.py")], capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout) == [False, True]


def test_the_command_line_starts_without_difflib():
    probe = "import json, sys\nimport gpu_node_pool.cli.commands\nprint(json.dumps('difflib' in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) is False


def difflib_users(package=PACKAGE) -> list[str]:
    """The package's modules that import ``difflib``, as paths relative to the package."""
    users = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            if "difflib" in names:
                users.append(path.relative_to(package).as_posix())
                break
    return users


def test_no_other_module_calls_difflib_itself():
    strays = [p for p in difflib_users() if p != SUGGEST]
    assert not strays, f"use gpu_node_pool.text.suggest instead of difflib in {strays}"


def test_the_check_can_fail():
    assert SUGGEST in difflib_users()


def test_a_name_that_differs_in_case_alone_is_suggested():
    from gpu_node_pool.text.suggest import close_matches, closest

    assert closest("on_demand", ["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"]) == "ON_DEMAND"
    assert closest("Deny", ["audit", "warn", "deny"]) == "deny"
    assert close_matches("Deny", ["deny", "warn", "denyall"], n=2)[0] == "deny"
    assert closest("NoScheduel", ["NoSchedule", "NoExecute"]) == "NoSchedule"
    assert closest("spot", ["CAPACITY_BLOCK"]) is None


def test_a_literal_setting_misspelt_in_case_gets_a_did_you_mean():
    from gpu_node_pool.config import ConfigError, validate_stack_config

    raw = {"cluster": {"name": "ml-dev", "kubernetesVersion": "1.33",
                       "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
                       "subnetIds": ["subnet-0a1b2c3d4e5f60718"]},
           "pools": [{"name": "a", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"],
                      "scaling": {"minSize": 0, "maxSize": 2}, "capacityType": "on_demand"}],
           "admission": {"enabled": True, "action": "Deny"}}
    try:
        validate_stack_config(raw)
    except ConfigError as err:
        messages = {i.path: i.message for i in err.issues}
    else:
        raise AssertionError("a misspelt capacityType and admission.action must be refused")
    assert messages["pools[0].capacityType"].endswith("; did you mean ON_DEMAND?"), messages
    assert messages["admission.action"].endswith("; did you mean deny?"), messages
