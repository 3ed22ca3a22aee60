"""Stack-file values Kubernetes or the cloud would refuse, wrong-typed values and YAML alias bombs:
each exits 2 with the path (never 0, never a traceback or exit 70, never a hang)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.cli.commands import main

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
TAINT = "        - nvidia.com/gpu=present:NoSchedule\n"


def validate(capsys, temp_project, text, command="validate"):
    project = temp_project("mine", text)
    code = main([command, "--stack", "mine", "--project-dir", str(project)])
    out = capsys.readouterr()
    return code, out.out + out.err


NEWLINE_CASES = [
    ("taint value, quoted", DEV.replace(TAINT, '        - {key: nvidia.com/gpu, value: "present\\n", effect: NoSchedule}\n'),
     "pools[0].taints[0].value"),
    ("taint value, block scalar", DEV.replace(TAINT, "        - key: nvidia.com/gpu\n          value: |\n            present\n"
                                                     "          effect: NoSchedule\n"), "pools[0].taints[0].value"),
    ("taint key", DEV.replace(TAINT, '        - {key: "nvidia.com/gpu\\n", value: present, effect: NoSchedule}\n'),
     "pools[0].taints[0].key"),
    ("taint key prefix", DEV.replace(TAINT, '        - {key: "nvidia.com\\n/gpu", value: present, effect: NoSchedule}\n'),
     "pools[0].taints[0].key"),
    ("label value", DEV.replace("example.com/team: ml-platform", 'example.com/team: "ml-platform\\n"'), "pools[0].labels"),
    ("pool name", DEV.replace("- name: inference", '- name: "inference\\n"'), "pools[0].name"),
    ("kubernetes version", DEV.replace('kubernetesVersion: "1.33"', 'kubernetesVersion: "1.33\\n"'),
     "cluster.kubernetesVersion"),
]


@pytest.mark.parametrize("desc, text, path", NEWLINE_CASES, ids=[c[0] for c in NEWLINE_CASES])
@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_trailing_newline_is_refused_with_the_path(capsys, temp_project, desc, text, path, command):
    assert text != DEV
    code, out = validate(capsys, temp_project, text, command)
    assert code == 2, out
    assert path in out and "Traceback" not in out, out


@pytest.mark.parametrize("backend", ["{}", "[eks-managed]", "7"])
def test_a_backend_that_is_not_a_name_exits_2(capsys, temp_project, backend):
    code, out = validate(capsys, temp_project, DEV.replace("backend: eks-managed", f"backend: {backend}"))
    assert code == 2, out
    assert "pools[0].backend:" in out and "is not a backend; use one of eks-managed" in out, out


def _billion_laughs(levels: int = 9) -> str:
    text = 'config:\n  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    for i in range(1, levels + 1):
        text += f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n"
    return text + f"  gpu-node-pools:pools: *a{levels}\n"


def test_an_alias_bomb_is_refused_with_the_line(capsys, temp_project):
    code, out = validate(capsys, temp_project, _billion_laughs())
    assert code == 2, out
    # a4 is the first value past 50000 (9^4 lists of 9 strings): line 6 of the file
    assert "stacks/Pulumi.mine.yaml:6:1: line 6: its aliases (*name) add more than 50000 values to the 33 the file writes out" in out


def test_an_alias_inside_its_own_anchor_is_refused(capsys, temp_project):
    code, out = validate(capsys, temp_project, "config:\n  gpu-node-pools:pools: &x [*x]\n")
    assert code == 2 and "line 2: an alias (*name) inside the value its anchor (&name) names" in out, out


def test_a_few_aliases_still_work(capsys, temp_project):
    text = DEV.replace("      tags:\n        team: ml-platform\n        env: dev\n",
                       "      tags: &tags\n        team: ml-platform\n        env: dev\n")
    pool = DEV.split("  gpu-node-pools:pools:\n")[1].split("  gpu-node-pools:devicePlugin:")[0]
    second = pool.replace("name: inference", "name: training").replace("      tags:\n        team: ml-platform\n        env: dev\n", "      tags: *tags\n")
    text = text.replace("  gpu-node-pools:devicePlugin:", second + "  gpu-node-pools:devicePlugin:")
    code, out = validate(capsys, temp_project, text)
    assert code == 0, out


def test_a_long_file_without_anchors_is_not_blamed_on_aliases(capsys, temp_project):
    # no '&' in it, so no alias: however many values it writes out, none comes from an alias
    items = "".join(f"  k{i}: [{', '.join(['v'] * 9)}]\n" for i in range(5_100))
    code, out = validate(capsys, temp_project, "config:\n" + items)
    assert code == 2, out  # its keys are no stack keys
    assert "alias" not in out


@pytest.mark.parametrize("copies", [0, 1, 5])
def test_aliases_may_add_up_to_the_bound_beyond_what_the_file_writes(copies):
    import yaml

    from gpu_node_pool.config.stack_yaml import _check_alias_expansion
    from gpu_node_pool.sdk.yaml_bounded import AliasExpansionError

    written = "".join(f"k{i}: [{', '.join(['v'] * 9)}]\n" for i in range(100))  # 1,000-odd nodes written
    anchor = "base: &b [" + ", ".join(["x"] * 99) + "]\n"  # 100 nodes, each alias adds them again
    aliases = "".join(f"c{i}: *b\n" for i in range(copies))
    root = yaml.compose(written + anchor + aliases, Loader=yaml.SafeLoader)
    added = 100 * copies
    _check_alias_expansion(root, limit=added)  # exactly the bound: passes
    if copies:
        with pytest.raises(AliasExpansionError, match="aliases"):
            _check_alias_expansion(root, limit=added - 1)
