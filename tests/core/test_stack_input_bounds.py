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
