"""Every YAML reader built on sdk/yaml_bounded tells a value its explicit tag cannot read as a YAML error
(charts' values, add-on configs, dumps, user data), not as the bare exception PyYAML's constructor raises."""

from __future__ import annotations

import pytest
import yaml

from gpu_node_pool.sdk.yaml_bounded import TagValueError, load_all_bounded, load_bounded

BAD = ["a: !!int abc\n", "a: !!float x\n", "a: !!bool maybe\n", "a: !!timestamp nope\n", "a: &x 1\nb: !!int q\n"]


@pytest.mark.parametrize("text", BAD)
@pytest.mark.parametrize("load", [load_bounded, lambda t: list(load_all_bounded(t))], ids=["one", "all"])
def test_a_value_its_tag_cannot_read_is_a_yaml_error(load, text):
    with pytest.raises(TagValueError) as err:
        load(text)
    assert isinstance(err.value, yaml.YAMLError) and "explicit YAML tag" in str(err.value)


def test_good_documents_load_as_before():
    assert load_bounded("a: !!int 3\n") == {"a": 3}
    assert list(load_all_bounded("a: 1\n---\nb: [x]\n")) == [{"a": 1}, {"b": ["x"]}]
