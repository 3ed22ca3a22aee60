"""A new user's stack-file mistakes whose message led elsewhere: a key written one level too high, a number in
another form in a text setting, a whole setting written as a secret, and a key written twice. Each message says
where the value belongs or what Pulumi does with the file, and its fix leads to a stack that validates."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from stack_texts import DEV
from stack_texts import dev_edited as edited

from gpu_node_pool.cli.commands import main
from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import read_stack_file
from gpu_node_pool.config.messages import sections_with_key
from gpu_node_pool.registry import get

GKE = (ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text()
READER = "to Pulumi (its YAML reader, gopkg.in/yaml.v3)"
FILE = "stacks/Pulumi.mine.yaml"


def run(capsys, project, command="validate", *extra):
    code = main([command, "--stack", "mine", "--project-dir", str(project), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


def after_capacity_type(line: str) -> str:
    """DEV with ``line`` added to the pool after ``capacityType`` (line 16), so on line 17, column 7."""
    return edited("      capacityType: ON_DEMAND\n", f"      capacityType: ON_DEMAND\n      {line}\n")


# --- a key written one level too high is placed, not taken for a misspelling -------------------------------

MISPLACED = [
    ("minSize beside scaling", after_capacity_type("minSize: 0"),
     f"{FILE}:17:7: pools[0].minSize: unknown key 'minSize': it belongs under scaling (scaling.minSize)"),
    ("enabled in two sections", after_capacity_type("enabled: true"),
     f"{FILE}:17:7: pools[0].enabled: unknown key 'enabled': it belongs under efa or nodeRepair "
     "(efa.enabled, nodeRepair.enabled)"),
    ("GKE: minSize beside autoscaling", edited("      nodeLocations:", "      minSize: 0\n      nodeLocations:", GKE),
     "pools[0].minSize: unknown key 'minSize': it belongs under autoscaling (autoscaling.minSize)"),
    ("gpuAgents: enabled beside the agents", DEV + "  gpu-node-pools:gpuAgents:\n    enabled: true\n",
     "gpuAgents.enabled: unknown key 'enabled': it belongs under dcgmExporter, featureDiscovery, efaDevicePlugin or "
     "gkeDriverInstaller (dcgmExporter.enabled, featureDiscovery.enabled, efaDevicePlugin.enabled, "
     "gkeDriverInstaller.enabled)"),
]


@pytest.mark.parametrize("text, expected", [c[1:] for c in MISPLACED], ids=[c[0] for c in MISPLACED])
def test_a_key_of_a_nested_section_says_where_it_belongs(capsys, temp_project, text, expected):
    for command in ("validate", "plan"):
        code, out = run(capsys, temp_project("mine", text), command)
        assert code == 2 and expected in out and "did you mean" not in out, out


@pytest.mark.parametrize(("line", "expected"), [
    ("diskSise: 100", "pools[0].diskSise: unknown key 'diskSise'; did you mean 'diskSize'?"),
    ("format: al2023", "pools[0].format: 'format' is not a key of eks-managed pools (it belongs to self-managed pools)"),
    ("colour: red", "pools[0].colour: unknown key 'colour'; remove it (keys here: "),
])
def test_a_key_of_no_section_keeps_its_spelling_guess(capsys, temp_project, line, expected):
    code, out = run(capsys, temp_project("mine", after_capacity_type(line)))
    assert code == 2 and f"{FILE}:17:7: {expected}" in out and "belongs under" not in out, out


def test_sections_are_searched_by_alias_shallowest_first():
    eks, karpenter = get("eks-managed").model(), get("karpenter").model()
    assert sections_with_key(eks, "minSize") == ["scaling.minSize"]
    assert sections_with_key(eks, "maxUnavailable") == ["updateConfig.maxUnavailable"]
    assert sections_with_key(karpenter, "maxPods") == ["nodeClass.kubelet.maxPods"]  # two levels down
    assert sections_with_key(eks, "effect") == []  # taints is a list, not a section
    assert sections_with_key(eks, "nope") == []


# --- a number in another form: the fix the setting takes ----------------------------------------------------

NUMBER_FORMS = [
    ("hex label value", ("example.com/team: ml-platform", "example.com/team: 0x1F"),
     f"{FILE}:23:9: pools[0].labels['example.com/team']: 0x1F is the hexadecimal number 31 {READER}, and this "
     'setting is text: quote it ("0x1F")', ("example.com/team: 0x1F", 'example.com/team: "0x1F"')),
    ("octal tag value", ("env: dev", "env: 010"),
     f'{FILE}:26:9: pools[0].tags.env: 010 is the octal number 8 (a leading 0 is octal) {READER}, and this setting '
     'is text: quote it ("010")', ("env: 010", 'env: "010"')),
    ("octal pool name", ("name: inference", "name: 0123"),
     f'pools[0].name: 0123 is the octal number 83 (a leading 0 is octal) {READER}, and this setting is text: quote '
     'it ("0123")', ("name: 0123", 'name: "0123"')),
    ("hex maxSize", ("maxSize: 4", "maxSize: 0x10"),
     f"{FILE}:19:9: pools[0].scaling.maxSize: 0x10 is the hexadecimal number 16 {READER}; write 16 as a plain "
     "decimal", ("maxSize: 0x10", "maxSize: 16")),
    ("octal maxSize", ("maxSize: 4", "maxSize: 010"),
     f"pools[0].scaling.maxSize: 010 is the octal number 8 (a leading 0 is octal) {READER}; write 10 (or 8) as a "
     "plain decimal", ("maxSize: 010", "maxSize: 10")),
]


@pytest.mark.parametrize("change, expected, fix", [c[1:] for c in NUMBER_FORMS], ids=[c[0] for c in NUMBER_FORMS])
def test_a_number_in_another_form_gets_the_fix_its_setting_takes(capsys, temp_project, change, expected, fix):
    text = edited(*change)
    for command in ("validate", "plan"):
        code, out = run(capsys, temp_project("mine", text), command)
        assert code == 2 and expected + "\n" in out, out  # the whole fix: nothing after it
    assert ("plain decimal" in expected) != ("quote it" in expected)  # one fix, the one that fits
    code, out = run(capsys, temp_project("mine", edited(*fix, text)))  # the fix, followed, validates
    assert code == 0, out


def test_a_boolean_setting_is_told_true_or_false(capsys, temp_project):
    code, out = run(capsys, temp_project("mine", after_capacity_type("allowUnknownInstanceTypes: 0x1")))
    assert code == 2 and (f"{FILE}:17:7: pools[0].allowUnknownInstanceTypes: 0x1 is the hexadecimal number 1 {READER}, "
                          "and this setting is true or false: write true or false") in out, out


@pytest.mark.parametrize(("text", "expected"), [
    # a free-form tree: the setting's type is not in the model, so each fix says when it fits
    (after_capacity_type("kubelet: {config: {maxPods: 0x10}}"),
     f'pools[0].kubelet.config.maxPods: 0x10 is the hexadecimal number 16 {READER}; quote it ("0x10") if it is text, '
     "or write 16 as a plain decimal if it is a number"),
    ("config:\n  gpu-node-pools:x:\n    n: 010\n",
     f'x.n: 010 is the octal number 8 (a leading 0 is octal) {READER}; quote it ("010") if it is text, or write 10 '
     "(or 8) as a plain decimal if it is a number"),
])
def test_a_setting_of_unknown_type_gets_both_fixes_each_with_its_case(capsys, temp_project, text, expected):
    code, out = run(capsys, temp_project("mine", text))
    assert code == 2 and expected in out, out


def test_a_pool_with_an_unknown_backend_still_gets_the_text_fix():
    text = edited("backend: eks-managed", "backend: ekz", edited("env: dev", "env: 0x1F"))
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.mine.yaml")
    assert [str(i) for i in err.value.issues] == [  # tags are text in every backend's model
        f'pools[0].tags.env: 0x1F is the hexadecimal number 31 {READER}, and this setting is text: quote it ("0x1F")',
        # and the model's own mistake in the same run
        "pools[0].backend: 'ekz' is not a backend; use one of eks-managed, gke, self-managed, karpenter, eks-auto",
        # the note that the backend's own rules wait for a backend
        "pools[0]: its other keys (amiType, capacityType, instanceTypes, labels, scaling, tags and 1 more): the keys a "
        "pool takes and their rules are its backend's; run again after fixing backend"]
    assert [i.not_judged for i in err.value.issues] == [False, False, True]


def test_a_null_label_is_reported_beside_the_scalars_pulumi_reads_otherwise():
    text = edited("env: dev", "env: 0x1F")
    text = edited("example.com/team: ml-platform", "example.com/n: ~\n        example.com/d: 2026-01-01", text)
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.mine.yaml")
    said = [str(i) for i in err.value.issues]
    assert any(s.startswith("pools[0].tags.env: 0x1F is the hexadecimal number 31") for s in said), said
    assert any(s.startswith("pools[0].labels['example.com/d']: 2026-01-01 is a date") for s in said), said
    assert "pools[0].labels['example.com/n']: null: must be a valid string; set a value or remove the key" in said, said
    assert len(said) == 3, said  # the refused scalars are not judged again by the models


# --- a whole setting written as a secret ---------------------------------------------------------------------

def as_secret(key: str, text: str = DEV) -> str:
    """``text`` with the value of ``gpu-node-pools:<key>`` replaced by a ``secure:`` one (its lines up to the next
    top-level key), as ``pulumi config set --secret --path`` would not write but a user can."""
    start = text.index(f"  gpu-node-pools:{key}:\n")
    body = start + len(f"  gpu-node-pools:{key}:\n")
    end = next((i for i in range(body, len(text)) if text.startswith("  ", i) and text[i + 2] != " "
                and text[i - 1] == "\n"), len(text))
    return text[:body] + "    secure: AAABAHkqQ2ZhbGxiYWNr\n" + text[end:]


SECRET = ("is a Pulumi secret (secure: ...); this setting reaches the nodes and the plan's policies as plain text "
          "(labels, taints, names are never secret), and the plan cannot decrypt it offline: write the plain value "
          "(pulumi config set without --secret)")


@pytest.mark.parametrize(("key", "line"), [("pools", 11), ("cluster", 4), ("devicePlugin", 27)])
def test_a_top_level_setting_written_as_a_secret_says_so(capsys, temp_project, key, line):
    project = temp_project("mine", as_secret(key))
    for command in ("validate", "plan"):
        code, out = run(capsys, project, command)
        assert code == 2 and f"{FILE}:{line}:3: {key}: {SECRET}" in out, out
        assert "[secret]" not in out and "must be" not in out and "required key is missing" not in out, out
    code, out = run(capsys, project, "plan", "--json")
    assert [(e["path"], e["message"], e["location"]["line"]) for e in json.loads(out)["configErrors"]] == [
        (key, SECRET, line)]


def test_pools_and_cluster_both_secret_are_two_lines(capsys, temp_project):
    code, out = run(capsys, temp_project("mine", as_secret("cluster", as_secret("pools"))))
    assert code == 2 and out.count(SECRET) == 2 and "2 errors in Pulumi." in out, out


def test_a_credential_as_a_secret_is_still_accepted(capsys, temp_project):
    text = DEV + "  gpu-node-pools:kubeconfig:\n    secure: AAABAHkqQ2ZhbGxiYWNr\n"
    code, out = run(capsys, temp_project("mine", text))
    assert code == 0, out


# --- a key written twice: Pulumi refuses the file ------------------------------------------------------------

def duplicate(key: str, line: int, first: int) -> str:
    return (f"key '{key}' appears again (first on line {first}); Pulumi refuses the stack file: its YAML reader, "
            f"gopkg.in/yaml.v3, fails on a mapping with a key written twice ('line {line}: mapping key \"{key}\" "
            f"already defined at line {first}', go-yaml decode.go, (*decoder).mapping), so pulumi preview stops "
            "before the program runs; keep one of the two")


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_duplicate_key_says_pulumi_refuses_the_file(capsys, temp_project, command):
    code, out = run(capsys, temp_project("mine", after_capacity_type("capacityType: SPOT")), command)
    assert code == 2 and f"{FILE}:17:7: {duplicate('capacityType', 17, 16)}" in out, out
    assert "keeps only the last" not in out


def test_a_duplicate_key_in_an_anchored_file_too(capsys, temp_project):
    text = edited("      labels:\n", "      labels: &team\n", after_capacity_type('"capacityType": SPOT'))
    code, out = run(capsys, temp_project("mine", text))
    assert code == 2 and f"{FILE}:17:7: {duplicate('capacityType', 17, 16)}" in out, out  # "x" and x: one key


@pytest.mark.parametrize(("keys", "duplicates"), [
    (('"1": a', "1: b"), ["1"]),  # yaml.v3 compares keys by their text: the same key
    (("true: a", "True: b"), []),  # two texts, two keys to yaml.v3 (both refused as keys that are no strings)
    (("a: 1", "'a': 2", "a: 3"), ["a", "a"]),
])
def test_duplicates_are_keys_of_the_same_text(keys, duplicates):
    text = "config:\n  gpu-node-pools:x: &x\n" + "".join(f"    {k}\n" for k in keys)
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.x.yaml")
    assert [i.message.split("'")[1] for i in err.value.issues if "appears again" in i.message] == duplicates
