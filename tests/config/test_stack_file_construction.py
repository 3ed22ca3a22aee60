"""The stack file reader builds a plain document (a tree of string-keyed mappings, lists and scalars)
itself, and keeps a plain scalar's tag per text (what Pulumi's YAML reader makes of it): the tree must be
what PyYAML's own construction with the same tags gives, duplicate keys in the same order, and the same refusals."""

from __future__ import annotations

import pytest
import yaml

from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import read_stack_file
from gpu_node_pool.config.pulumi_scalars import PulumiTimestamp, is_yaml_int, plain_kind
from gpu_node_pool.config.stack_yaml import _nesting_depth, _StrictLoader


def _load(text: str, tree: bool) -> tuple[object, list[tuple[str, int, int]], _StrictLoader]:
    """The document (or the error PyYAML raised, as text), the duplicate keys and the loader."""
    loader = _StrictLoader(text)
    loader.duplicates = []
    loader.anchorless = tree and "&" not in text  # False: PyYAML's construct_document, as with anchors
    try:
        return loader.get_single_data(), loader.duplicates, loader
    except Exception as err:  # noqa: BLE001 - compared between the two paths
        return f"{type(err).__name__}: {err}", loader.duplicates, loader
    finally:
        loader.dispose()


DOCUMENTS = [
    # plain trees
    "config:\n  a: 1\n  b: [x, 'y', 2.5, true, null, ~, '', 010, 0x1f, 1_0, 1:20, .inf, -.nan]\n",
    "config:\n  p:\n  - name: a\n    m: {k: v, n: [1, [2, [3]]]}\n  - name: b\n    m: {}\n  - []\n",
    "- 1\n- two\n",
    "just text\n",
    "42\n",
    # duplicates: a deep one written before a shallow one, and several per mapping
    "config:\n  p:\n    q:\n      x: 1\n      x: 2\n  r: 1\n  r: 2\n  p: 3\n",
    "a: 1\nb: {c: 1, c: 2, c: 3}\na: 2\nd: [{e: 1, e: 1}]\n",
    # the same text as a plain and a quoted scalar, as a key and a value
    "yes: yes\n'yes': 'yes'\nb: [10, '10', \"10\", 10, on, 'on', null, 'null', '', ~]\n10: x\n",
    # what PyYAML builds itself: non-string keys, merge keys, other tags, dates
    "config:\n  <<: {a: 1, b: 2}\n  b: 3\n",
    "config:\n  ? [a, b]\n  : 1\n",
    "config:\n  1: one\n  1.0: again\n  true: also\n",
    "config:\n  d: 2024-01-02\n  s: !!set {a, b}\n  t: !!str 010\n  u: !!binary aGk=\n",
    "config:\n  =: value key\n  v: 1\n",
    "config:\n  o: !!omap [{a: 1}, {b: 2}]\n  z: !!float 1\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_tree_construction_is_pyyamls(text: str) -> None:
    data, duplicates, loader = _load(text, tree=True)
    expected, expected_duplicates, _ = _load(text, tree=False)
    assert repr(data) == repr(expected)
    assert data == expected or data != data  # NaN is not equal to itself
    assert duplicates == expected_duplicates
    if loader.depth is not None and not duplicates:
        assert loader.depth == _nesting_depth(expected)


def test_duplicates_in_breadth_first_order() -> None:
    _, duplicates, loader = _load("config:\n  p:\n    q:\n      x: 1\n      x: 2\n  r: 1\n  r: 2\n", tree=True)
    assert loader.depth == 4  # built as a tree
    assert [line for _, line, _ in duplicates] == [7, 5]  # 'r' (depth 2) before 'x' (depth 3), as PyYAML


def test_plain_and_quoted_scalars_keep_their_own_types() -> None:
    data, _, loader = _load("a: 10\nb: '10'\nc: 10\nd: yes\ne: 'yes'\nf: TRUE\ng: null\nh: 'null'\ni: 2024-01-02\n",
                            tree=True)
    assert loader.depth == 1
    assert data == {"a": 10, "b": "10", "c": 10, "d": "yes", "e": "yes", "f": True, "g": None, "h": "null",
                    "i": PulumiTimestamp("2024-01-02")}  # a time.Time to yaml.v3: reported, not passed as text


def test_a_dropped_duplicate_is_not_judged() -> None:
    """A value a later duplicate key replaces is not in the document: neither its depth nor its numbers count."""
    text = "config:\n  gpu-node-pools:x: " + "[" * 120 + "010" + "]" * 120 + "\n  gpu-node-pools:x: 1\n"
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.x.yaml")
    assert [issue.message.split(" (")[0] for issue in err.value.issues] == ["key 'gpu-node-pools:x' appears again"]


@pytest.mark.parametrize(("text", "expected"), [
    ("config:\n  gpu-node-pools:x:\n    n: 010\n", "010 is the octal number 8 (a leading 0 is octal) to Pulumi"),
    ("config:\n  gpu-node-pools:x:\n    TRUE: 1\n", "a key is read by YAML as the boolean true"),
    ("config:\n  gpu-node-pools:x:\n    d: -.inf\n", "-.inf is a number JSON has no form for"),
    ("config:\n  gpu-node-pools:x: [" * 1 + "[" * 101 + "]" * 102 + "\n", "nests mappings/lists more than 100 levels"),
])
def test_refusals_are_found_on_the_tree_path(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.x.yaml")
    assert any(expected in issue.message for issue in err.value.issues), err.value.issues


def _tags(node: yaml.Node) -> list[tuple[str, object]]:
    out, todo = [], [node]
    while todo:
        node = todo.pop()
        out.append((node.tag, node.value if isinstance(node, yaml.ScalarNode) else None))
        if isinstance(node, yaml.MappingNode):
            todo += [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
    return out


def test_tags_kept_per_text_are_pulumis() -> None:
    """Each plain scalar gets the tag of what Pulumi's YAML reader makes of its text (``plain_kind``), whatever
    text came before with the same first character; a quoted one is a string; collections and a merge key
    keep PyYAML's tags."""
    words = ["10", "1_0", "1:20", "1.5", "1e3", "1x", "0x1f", "0o7", "y", "yes", "Yes", "no", "n", "on", "off", "null",
             "Null", "nul", "~", "", "true", "tru", ".inf", ".nan", ".5", "2024-01-02", "2024-1-2", "=", "<<", "-", "+1"]
    text = "".join(f"- {w}\n- '{w}'\n- {{{w or repr('')}: {w or '~'}}}\n" for w in words * 2)
    loader = _StrictLoader(text)
    try:
        ours = loader.get_single_node()
    finally:
        loader.dispose()
    tag_of = {"null": "null", "bool": "bool", "int": "int", "float": "float", "nonfinite": "float", "str": "str",
              "timestamp": "timestamp"}
    for (tag, value, style), (py_tag, _, _) in zip(_styled(ours), _styled(yaml.compose(text, Loader=yaml.SafeLoader)),
                                                   strict=True):
        if value is None or py_tag.endswith(":merge"):
            assert tag == py_tag
        elif not style:  # plain: None from PyYAML's composer, '' from libyaml's
            kind = plain_kind(value)
            kind = "float" if kind == "int" and not is_yaml_int(value) else kind  # 1e3: a float to yaml.v3
            assert tag == f"tag:yaml.org,2002:{tag_of[kind]}", value
        else:
            assert tag == "tag:yaml.org,2002:str", value
    assert {(t, v) for t, v, style in _styled(ours) if not style and v in ("yes", "on", "1:20", "2024-1-2")} == {
        ("tag:yaml.org,2002:str", v) for v in ("yes", "on", "1:20")} | {("tag:yaml.org,2002:timestamp", "2024-1-2")}


def _styled(node: yaml.Node) -> list[tuple[str, object, object]]:
    out, todo = [], [node]
    while todo:
        node = todo.pop()
        scalar = isinstance(node, yaml.ScalarNode)
        out.append((node.tag, node.value if scalar else None, node.style if scalar else "collection"))
        if isinstance(node, yaml.MappingNode):
            todo += [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
    return out


@pytest.mark.parametrize("value", ["!!int abc", "!!float abc", "!!bool abc", "!!timestamp abc", "!!map a"])
def test_a_value_its_explicit_tag_cannot_read_is_a_config_error_at_its_line(value):
    text = f"config:\n  gpu-node-pools:cluster:\n    name: {value}\n"
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.x.yaml")
    (issue,) = err.value.issues
    assert issue.location.line == 3 and "does not fit its explicit YAML tag" in issue.message
    assert value in issue.message


@pytest.mark.parametrize("anchor", ["", "\n      note: &a x"], ids=["tree-pass", "pyyaml-construction"])
def test_a_number_beyond_what_pulumi_reads_is_a_string_and_its_message_is_short(anchor):
    # past 2^64 - 1 yaml.v3's ParseInt/ParseUint fail and ParseFloat overflows: the text stays a string
    text = ("config:\n  gpu-node-pools:cluster: {name: c, nodeRoleArn: 'arn:aws:iam::111122223333:role/n', "
            "subnetIds: [subnet-0a1b2c3d4e5f60718]}\n  gpu-node-pools:pools:\n    - name: a\n      backend: eks-managed\n"
            f"      instanceTypes: [g6.xlarge]\n      scaling:\n        minSize: 0\n        maxSize: {'9' * 5000}{anchor}\n")
    config, _ = read_stack_file(text.encode(), "Pulumi.x.yaml")
    assert "9" * 5000 in config["gpu-node-pools:pools"]
    from gpu_node_pool.config.loading import load_stack_config

    with pytest.raises(ConfigError) as err:
        load_stack_config(config, "Pulumi.x.yaml")
    [issue] = [i for i in err.value.issues if i.path == "pools[0].scaling.maxSize"]
    assert "5000 digits" in issue.message and "9" * 100 not in issue.message, issue.message


@pytest.mark.parametrize(("written", "read_as"), [
    (f"'{'1' * 24}'", "text"), ("9" * 400, "text"), ("1" * 24, "a float"),
])
def test_a_number_past_the_largest_whole_number_is_described_as_pulumi_reads_it(written, read_as):
    # gopkg.in/yaml.v3 resolve.go: a plain number is an int64, else a uint64, else a float64, else text; quoted is text
    from gpu_node_pool.config.loading import load_stack_config

    text = ("config:\n  gpu-node-pools:cluster: {name: c, nodeRoleArn: 'arn:aws:iam::111122223333:role/n', "
            "subnetIds: [subnet-0a1b2c3d4e5f60718]}\n  gpu-node-pools:pools:\n    - name: a\n      backend: eks-managed\n"
            f"      instanceTypes: [g6.xlarge]\n      scaling: {{minSize: 0, maxSize: {written}}}\n")
    config, _ = read_stack_file(text.encode(), "Pulumi.x.yaml")
    with pytest.raises(ConfigError) as err:
        load_stack_config(config, "Pulumi.x.yaml")
    [issue] = [i for i in err.value.issues if i.path == "pools[0].scaling.maxSize"]
    if read_as == "text":
        digits = len(written.strip("'"))
        assert issue.message == (
            f"text of {digits} digits, not a number: Pulumi's YAML reader (gopkg.in/yaml.v3) keeps a quoted number as "
            "text, reads a plain one up to 2^64 - 1 as a whole number, a longer one as a float and one past the float "
            "range as text; write the whole number the setting needs, unquoted")
    else:
        # a whole number as a float64: past the field's range, not a fraction
        assert issue.message.startswith("1.1111111111111111e+23: is a whole number outside the setting's range: it "
                                        "must be at most 2147483647, the largest int32 (an int32"), issue.message


@pytest.mark.parametrize("anchor", ["", "&a "])  # the tree built directly, and PyYAML's construction
def test_the_value_its_tag_cannot_read_is_located_among_other_tagged_values(anchor):
    text = (f"config:\n  gpu-node-pools:cluster:\n    name: {anchor}!!str ok\n    region: !!str us\n"
            "  gpu-node-pools:pools:\n    - {name: a, scaling: {minSize: 0, maxSize: !!int four}}\n")
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.x.yaml")
    (issue,) = err.value.issues
    assert (issue.location.line, issue.location.column) == (6, 48)  # at the tag of maxSize
    assert issue.message.startswith("'- {name: a, scaling: {minSize: 0, maxSize: !!int four}}': the value does not "
                                    "fit its explicit YAML tag !!int")


@pytest.mark.parametrize(("written", "advice"), [('"4"', ", unquoted (write 4)"), ("four", " (e.g. 4)"),
                                                 ('"１２"', " (e.g. 4)"), ("4.5", " (e.g. 4)"), ("12:30", " (e.g. 4)")])
def test_an_integer_written_otherwise_says_how_to_write_one(written, advice):
    from gpu_node_pool.config.loading import load_stack_config

    text = ("config:\n  gpu-node-pools:cluster: {name: c, nodeRoleArn: 'arn:aws:iam::111122223333:role/n', "
            "subnetIds: [subnet-0a1b2c3d4e5f60718]}\n  gpu-node-pools:pools:\n    - name: a\n      backend: eks-managed\n"
            f"      instanceTypes: [g6.xlarge]\n      scaling: {{minSize: 0, maxSize: {written}}}\n")
    config, secrets = read_stack_file(text.encode(), "Pulumi.x.yaml")
    with pytest.raises(ConfigError) as err:
        load_stack_config(config, "Pulumi.x.yaml")
    [issue] = [i for i in err.value.issues if i.path == "pools[0].scaling.maxSize"]
    assert f"must be a whole number{advice}" in issue.message, issue.message


@pytest.mark.parametrize("value", ["!!int 4.0", "!!int 1e3", "!!int 1.5", "!!null x", "!!bool yes", "!!timestamp 2024-02-30"])
def test_an_explicit_tag_takes_only_what_pulumis_reader_takes(value):
    # yaml.v3 refuses a tag whose text resolves to another type ("cannot decode !!float `4.0` as a !!int")
    text = f"config:\n  gpu-node-pools:cluster:\n    name: {value}\n"
    with pytest.raises(ConfigError) as err:
        read_stack_file(text.encode(), "Pulumi.x.yaml")
    (issue,) = err.value.issues
    assert issue.location.line == 3 and "does not fit its explicit YAML tag" in issue.message


@pytest.mark.parametrize(("written", "sent"), [
    ("98765432109876543210", 98765432109876540000),  # past uint64: a float64, written with its shortest digits
    ("18446744073709551616", 18446744073709552000),
    ("-9223372036854775809", -9223372036854776000),
    ("18446744073709551615", 18446744073709551615),  # uint64: exact
    ("4.0", 4), ("1e3", 1000),
])
def test_a_number_arrives_as_pulumis_json_writes_it(written, sent):
    from gpu_node_pool.config.pulumi_scalars import plain_number

    assert plain_number(written) == sent
