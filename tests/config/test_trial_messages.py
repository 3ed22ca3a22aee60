"""A new-user trial's findings on config messages: YAML 1.1 numbers, "did you mean" hints, pydantic's raw text.

Every message names the path, the bad value, the rule in words and the fix, on one line.
"""

from __future__ import annotations

import pulumi
import pytest
from conftest import ROOT

from gpu_node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_node_pool.config import ConfigError, load_stack_config, read_stack_file

DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
GKE = (ROOT / "stacks" / "Pulumi.gke-dev.yaml").read_text()


def issues(text: str) -> list[str]:
    """The one-line issues a stack file gives (read, then validated), or [] when it is accepted."""
    try:
        config, _ = read_stack_file(text.encode(), "Pulumi.mine.yaml")
        load_stack_config(config, "Pulumi.mine.yaml")
    except ConfigError as err:
        lines = [str(i) for i in err.issues]
        assert all("\n" not in line for line in lines), lines
        return lines
    return []


NUMBER_FORMS = [
    ("maxSize: 010", "maxSize: 4", "pools[0].scaling.maxSize: 010 is the octal number 8 (a leading 0 is octal) to Pulumi "
     "(its YAML reader, gopkg.in/yaml.v3); write 10 (or 8)"),
    ("maxSize: 0x10", "maxSize: 4", "pools[0].scaling.maxSize: 0x10 is the hexadecimal number 16 to Pulumi"),
    ("maxSize: 1_0", "maxSize: 4", "pools[0].scaling.maxSize: 1_0 is the number 10 ('_' is dropped) to Pulumi"),
    ("name: 0123", "name: inference", "pools[0].name: 0123 is the octal number 83 (a leading 0 is octal) to Pulumi"),
    ("maxSize: 0o12", "maxSize: 4", "pools[0].scaling.maxSize: 0o12 is the octal number 10 to Pulumi"),
    ("env: 0o17", "env: dev", "pools[0].tags.env: 0o17 is the octal number 15 to Pulumi"),
    ("env: 0X1F", "env: dev", "pools[0].tags.env: 0X1F is the hexadecimal number 31 to Pulumi"),
    ("env: 09", "env: dev", "pools[0].tags.env: 09 is the number 9 to Pulumi"),
]
@pytest.mark.parametrize("new, old, expected", NUMBER_FORMS, ids=[c[0] for c in NUMBER_FORMS])
def test_numbers_not_written_as_decimals_are_refused_with_the_path_and_the_fix(new, old, expected):
    lines = issues(DEV.replace(old, new))
    assert len(lines) == 1 and lines[0].startswith(expected), lines
    # the fix the setting takes: the decimal for a number (quoted, it would be text), quotes for text
    written = new.split(": ")[1]
    if new.startswith("maxSize"):
        assert lines[0].endswith(" as a plain decimal") and "quote it" not in lines[0], lines
    else:
        assert lines[0].endswith(f'and this setting is text: quote it ("{written}")'), lines


def test_plain_decimals_and_quoted_forms_still_pass():
    assert issues(DEV.replace("maxSize: 4", "maxSize: 10").replace("minSize: 0", "minSize: 0")) == []
    assert issues(DEV.replace("env: dev", "env: '010'")) == []
    assert issues(DEV.replace("env: dev", "env: '0o17'")) == []
    assert issues(DEV.replace("env: dev", "env: 0o19")) == []  # not octal: a string to every reader


@pytest.mark.parametrize("written", ["on", "yes", "off", "12:30", "1:20", "2024-02-30"])
def test_what_pulumi_reads_as_a_string_is_a_string(written):
    # gopkg.in/yaml.v3, Pulumi's reader: yes/no/on/off are no booleans, dates and base-60 forms are their text
    assert issues(DEV.replace("env: dev", f"env: {written}").replace("example.com/team: ml-platform",
                                                                      f"example.com/team: {written.replace(':', '-')}")) == []
    config, _ = read_stack_file(DEV.replace("env: dev", f"env: {written}").encode(), "Pulumi.mine.yaml")
    assert f'"env": "{written}"' in config["gpu-node-pools:pools"]


def test_a_yaml11_boolean_where_a_boolean_goes_says_to_write_true():
    lines = issues(DEV.replace("      capacityType: ON_DEMAND", "      allowUnknownInstanceTypes: yes"))
    assert len(lines) == 1 and "pools[0].allowUnknownInstanceTypes: 'yes': must be a valid boolean; write true: Pulumi " \
        "reads yes as a string" in lines[0], lines


def test_numbers_arrive_as_pulumi_sends_them():
    # a float with no fraction is written 4 in Pulumi's JSON and arrives as an int; 1e3 is a number there
    assert issues(DEV.replace("maxSize: 4", "maxSize: 4.0")) == []
    config, _ = read_stack_file(DEV.replace("maxSize: 4", "maxSize: 1e1").encode(), "Pulumi.mine.yaml")
    assert '"maxSize": 10' in config["gpu-node-pools:pools"]
    lines = issues(DEV.replace("maxSize: 4", "maxSize: .inf"))
    assert len(lines) == 1 and "maxSize: .inf is a number JSON has no form for, so Pulumi cannot load the stack" in lines[0]


def test_a_yaml11_number_as_a_key_is_called_a_number():
    lines = issues(DEV.replace("        example.com/team: ml-platform", "        0x1f: z"))
    assert lines == ["pools[0].labels: a key is read by YAML as a number (0x1f), not a string; quote it"]


# --- 2. "did you mean" only among the keys of the model at that path -----------------------

def test_an_unknown_taint_key_suggests_no_key_of_another_model():
    lines = issues(DEV.replace("- nvidia.com/gpu=present:NoSchedule",
                               "- {key: nvidia.com/gpu, value: present, effect: NoSchedule, operator: Exists}"))
    assert lines == ["pools[0].taints[0].operator: unknown key 'operator'; remove it (keys here: key, effect, value)"]


def test_an_unknown_cluster_key_suggests_no_key_of_another_model():
    (line,) = issues(DEV.replace("name: ml-dev", "name: ml-dev\n    regoin: us-west-2"))
    assert line.startswith("cluster.regoin: unknown key 'regoin'; remove it (keys here: name, nodeRoleArn,")
    assert "did you mean" not in line


@pytest.mark.parametrize("old, new, expected", [
    ("maxSize: 4", "maxsize: 4",
     "pools[0].scaling.maxsize: unknown key 'maxsize'; did you mean 'maxSize'? (maxSize is required)"),
    ("subnetIds:", "subnetId:", "cluster.subnetId: unknown key 'subnetId'; did you mean 'subnetIds'?"),
    ("  gpu-node-pools:devicePlugin:\n    namespace:", "  gpu-node-pools:devicePlugin:\n    namespce:",
     "devicePlugin.namespce: unknown key 'namespce'; did you mean 'namespace'?"),
])
def test_a_misspelt_key_gets_the_close_key_of_its_own_model(old, new, expected):
    assert expected in issues(DEV.replace(old, new))


def test_a_misspelt_required_key_is_one_mistake_not_also_a_missing_key():
    lines = issues(DEV.replace("maxSize: 4", "maxsize: 4"))
    assert lines == ["pools[0].scaling.maxsize: unknown key 'maxsize'; did you mean 'maxSize'? (maxSize is required)"]


def test_a_misspelt_namespace_is_named_instead_of_a_missing_key():
    lines = issues(DEV.replace("gpu-node-pools:pools:", "gpu-node-pool:pools:"))
    assert lines == ["gpu-node-pool:pools: unknown namespace 'gpu-node-pool'; did you mean gpu-node-pools:pools?"]


# --- 3. pydantic's own text never reaches the user -------------------------------------------

RAW = [
    ("a taint that is a number", "- nvidia.com/gpu=present:NoSchedule", "- 5",
     "pools[0].taints[0]: 5: must be a taint string key=value:Effect or a mapping with keys key, effect, value, "
     "e.g. nvidia.com/gpu=present:NoSchedule or {key: nvidia.com/gpu, value: present, effect: NoSchedule}"),
    ("gpuLabel as a string", "      tags:\n        team", "      gpuLabel: foo\n      tags:\n        team",
     "pools[0].gpuLabel: 'foo': must be a mapping with keys key, value, e.g. {key: nvidia.com/gpu.present, value: 'true'}"),
    ("nodeRoleArn as a role name", "nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node", "nodeRoleArn: ml-dev-gpu-node",
     "cluster.nodeRoleArn: 'ml-dev-gpu-node': must be an IAM role ARN arn:aws:iam::<12-digit account>:role/<name>, "
     "e.g. arn:aws:iam::111122223333:role/ml-dev-gpu-node"),
    ("cluster name with a space", "name: ml-dev", "name: 'ml dev'", "cluster.name: 'ml dev': must be 1-100 letters"),
    ("kubernetesVersion with a v", 'kubernetesVersion: "1.33"', 'kubernetesVersion: "v1.33"',
     "cluster.kubernetesVersion: 'v1.33': must be a Kubernetes minor version 1.NN written as a quoted string, e.g. \"1.33\""),
    ("namespace not a DNS label", "namespace: nvidia-device-plugin", "namespace: Nvidia_DP",
     "devicePlugin.namespace: 'Nvidia_DP': must be a DNS-1123 label (lower-case letters, digits and '-'"),
    ("empty subnetIds", "subnetIds:\n      - subnet-0a1b2c3d4e5f60718\n      - subnet-0f1e2d3c4b5a69788", "subnetIds: []",
     "cluster.subnetIds: is empty; list at least 1 item(s) (e.g. [subnet-0a1b2c3d4e5f60718])"),
    ("null scaling", "      scaling:\n        minSize: 0\n        maxSize: 4", "      scaling: null",
     "pools[0].scaling: null: must be a mapping with keys minSize, maxSize, desiredSize, e.g. {minSize: 0, maxSize: 4}"),
    ("null name", "name: inference", "name: null", "pools[0].name: null: must be a valid string"),
    ("missing backend", "      backend: eks-managed\n", "",
     "pools[0].backend: required key is missing; use one of eks-managed, gke"),
]


@pytest.mark.parametrize("desc, old, new, expected", RAW, ids=[c[0] for c in RAW])
def test_messages_give_the_rule_in_words(desc, old, new, expected):
    lines = issues(DEV.replace(old, new))
    assert any(line.startswith(expected) for line in lines), lines
    for line in lines:
        assert "instance of" not in line and "should match pattern" not in line and "^" not in line, line
        assert "None" not in line and "after validation" not in line and "Input should" not in line, line


def test_a_gke_project_id_rule_in_words():
    text = GKE.replace("    project: acme-ml-dev", "    project: X_Y")
    assert text != GKE
    lines = issues(text)
    assert any(line.startswith("cluster.project: 'X_Y': must be a Google Cloud project ID: 6-30") for line in lines), lines


def test_no_pools_gives_an_example_pool():
    lines = issues(DEV.split("  gpu-node-pools:pools:")[0] + "  gpu-node-pools:pools: []\n")
    assert lines == ["pools: is empty; list at least 1 item(s) (e.g. [{name: inference, backend: eks-managed, "
                     "instanceTypes: [g6.xlarge], scaling: {minSize: 0, maxSize: 4}}])"]


@pytest.mark.parametrize("old", ["name: inference", "capacityType: ON_DEMAND"])
def test_a_huge_value_is_cut_in_the_message(old):
    key = old.split(":")[0]
    (line,) = issues(DEV.replace(old, f"{key}: {'a' * 1_000_000}"))
    assert len(line) < 400 and "(1000000 characters)" in line, line[:500]


# --- 4. a string where a mapping belongs: one error, not a false "missing" --------------------

def test_cluster_as_a_string_is_one_error():
    head, rest = DEV.split("  gpu-node-pools:cluster:\n")
    text = head + "  gpu-node-pools:cluster: ml-dev\n  gpu-node-pools:pools:" + rest.split("  gpu-node-pools:pools:")[1]
    lines = issues(text)
    assert len(lines) == 1 and lines[0].startswith("cluster: 'ml-dev': must be a mapping with keys name, nodeRoleArn"), lines


# --- 5. the Python API refuses wrong argument types with ConfigError ---------------------------

class _Recording(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.registered: list[str] = []

    def new_resource(self, args):
        self.registered.append(args.typ)
        return [args.name + "_id", args.inputs]

    def call(self, args):
        return {}


CLUSTER = {"name": "ml-dev", "nodeRoleArn": "arn:aws:iam::111122223333:role/ml-dev-gpu-node",
           "subnetIds": ["subnet-0a1b2c3d4e5f60718"]}
POOL = {"name": "inference", "backend": "eks-managed", "instanceTypes": ["g6.xlarge"], "scaling": {"minSize": 0, "maxSize": 1}}


@pytest.mark.parametrize("make, path, got", [
    (lambda: GpuNodePoolArgs(pool=None, cluster=CLUSTER), "GpuNodePoolArgs.pool", "got None (NoneType); expected a pool model"),
    (lambda: GpuNodePoolArgs(pool="inference", cluster=CLUSTER), "GpuNodePoolArgs.pool", "got 'inference' (str)"),
    (lambda: GpuNodePoolArgs(pool=[POOL], cluster=CLUSTER), "GpuNodePoolArgs.pool", "(list); expected a pool model"),
    (lambda: GpuNodePoolArgs(pool=POOL, cluster=None), "GpuNodePoolArgs.cluster", "got None (NoneType); expected a mapping such as"),
    (lambda: GpuNodePoolArgs(pool=POOL, cluster="ml-dev"), "GpuNodePoolArgs.cluster", "got 'ml-dev' (str)"),
    (lambda: {"pool": POOL, "cluster": CLUSTER}, "GpuNodePool('x', args)", "(dict); expected GpuNodePoolArgs(pool=..., cluster=...)"),
    (lambda: None, "GpuNodePool('x', args)", "got None (NoneType); expected GpuNodePoolArgs("),
])
def test_wrong_argument_types_raise_config_error_before_registering(make, path, got):
    mocks = _Recording()
    pulumi.runtime.set_mocks(mocks, preview=True)
    with pytest.raises(ConfigError) as err:
        GpuNodePool("x", make())
    (issue,) = err.value.issues
    assert issue.path == path and got in issue.message, str(issue)
    assert mocks.registered == []


NOT_JSON = [
    ("env: 2026-01-01", "pools[0].tags.env: 2026-01-01 is a date and time to Pulumi's YAML reader (gopkg.in/yaml.v3), "
                        "which gives the program the text '2026-01-01 00:00:00 +0000 UTC'"),
    ("env: 2026-01-01T10:00:00Z", "pools[0].tags.env: 2026-01-01T10:00:00Z is a date and time to Pulumi's YAML reader "
                                  "(gopkg.in/yaml.v3), which gives the program the text '2026-01-01 10:00:00 +0000 UTC'"),
    ("env: 2026-01-01T10:00:00+02:00", "pools[0].tags.env: 2026-01-01T10:00:00+02:00 is a date and time to Pulumi's "
                                       "YAML reader (gopkg.in/yaml.v3), which gives the program its time as Go prints it"),
    ("env: !!binary aGk=", "pools[0].tags.env: !!binary aGk= is a YAML binary value, which JSON and Pulumi's config do "
                           "not have; remove the tag"),
    ("env: !!set {a, b}", "pools[0].tags.env: !!set {a, b} is a YAML set value"),
    ("env: !!omap [a: 1]", "pools[0].tags.env: !!omap [a: 1] is a YAML omap value"),
]


@pytest.mark.parametrize("new, expected", NOT_JSON, ids=[c[0] for c in NOT_JSON])
def test_a_value_json_has_no_type_for_is_shown_as_written(new, expected):
    lines = issues(DEV.replace("env: dev", new, 1))
    assert len(lines) == 1 and lines[0].startswith(expected), lines
    assert "b'" not in lines[0] and "datetime" not in lines[0] and "{'a'" not in lines[0]
    assert "quote it" in lines[0] or "remove the tag" in lines[0]


def test_a_date_shaped_value_that_is_no_date_is_the_string_pulumi_reads():
    # PyYAML's timestamp constructor raised ValueError (exit 70); go-yaml keeps such a text as a string
    assert issues(DEV.replace("env: dev", "env: 2024-02-30", 1)) == []
    config, _ = read_stack_file(DEV.replace("env: dev", "env: 2024-02-30", 1).encode(), "Pulumi.mine.yaml")
    assert "2024-02-30" in config["gpu-node-pools:pools"]


def test_one_mistake_is_one_line():
    # a taint written as a stack secret: one line, not one per missing key and the unknown key secure
    lines = issues(DEV.replace("        - nvidia.com/gpu=present:NoSchedule\n", "        - secure: AAABAHxyz\n", 1))
    assert len(lines) == 1 and lines[0].startswith("pools[0].taints[0]: is a Pulumi secret (secure: ...)"), lines
    # a refused cluster.nodeRoleArn / subnetIds: the pool is not also told it is missing
    for old, new in (("nodeRoleArn: arn:aws:iam::111122223333:role/ml-dev-gpu-node", "nodeRoleArn: notanarn"),
                     ("    subnetIds:\n      - subnet-0a1b2c3d4e5f60718\n      - subnet-0f1e2d3c4b5a69788\n",
                      "    subnetIds: []\n")):
        assert old in DEV
        lines = issues(DEV.replace(old, new))
        assert len(lines) == 1 and lines[0].startswith("cluster."), lines


def test_an_object_without_a_repr_of_its_own_is_shown_without_its_address():
    from gpu_node_pool.text.terminal import shown

    assert shown(object()) == "<object object>"
