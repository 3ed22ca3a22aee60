"""The file:line marks of a stack file come from the node tree it was read from: the same marks as
composing the text on its own (:func:`stack_file_marks`), merge keys, aliases and duplicates included."""

from __future__ import annotations

import pytest
from conftest import ROOT

from gpu_node_pool.config import ConfigError
from gpu_node_pool.config.loading import read_stack_file
from gpu_node_pool.config.locations import FileMarks, stack_file_marks

MERGED = """config:
  gpu-node-pools:cluster: {name: ml-dev}
  gpu-node-pools:pools:
  - &base
    name: a
    backend: eks-managed
    tags: {env: dev}
  - <<: *base
    name: b
  - <<: [*base, {extra: 1}]
    name: c
    tags: {env: 010}
  - *base
  aws:region: us-east-1
"""
DUPLICATED = "config:\n  gpu-node-pools:pools:\n  - name: a\n    name: b\n    tags: {x: 1}\n    tags: {y: 2}\n"


@pytest.mark.parametrize("text", [
    *[(ROOT / "stacks" / f"Pulumi.{s}.yaml").read_text() for s in ("dev", "prod", "gke-dev", "onprem", "auto")],
    MERGED, DUPLICATED, "config: [1, 2]\n", "", "config:\n  a: [\n",
], ids=["dev", "prod", "gke-dev", "onprem", "auto", "merged", "duplicated", "not-a-map", "empty", "syntax"])
def test_the_marks_of_the_read_tree_are_those_of_the_text(text):
    marks = FileMarks()
    try:
        read_stack_file(text.encode(), "Pulumi.x.yaml", marks=marks)
    except ConfigError:
        pass  # an invalid file is still located
    assert dict(marks) == stack_file_marks(text)


ANCHORED = """config:
  gpu-node-pools:pools:
    - &p
      name: a
      scaling: {minSize: 0, maxSize: 99999999999999999999999}
    - <<: *p
      name: b
    - <<: *p
      name: c
      scaling: {maxSize: 0x1F}
"""


def test_an_anchor_is_located_at_its_own_path_and_merged_keys_at_the_mapping_that_merges_them():
    from gpu_node_pool.config.errors import ConfigIssue
    from gpu_node_pool.config.locations import locate_issues

    marks = FileMarks()
    try:
        read_stack_file(ANCHORED.encode(), "Pulumi.x.yaml", marks=marks)
    except ConfigError:
        pass  # 0x1F is refused; the marks are kept
    assert marks[("pools", 0, "scaling", "maxSize")] == (5, 29)  # the anchor's own line, not pools[1]'s merge
    assert marks[("pools", 1, "scaling", "maxSize")] == (5, 29)  # merged from the anchor
    assert marks[("pools", 2, "scaling", "maxSize")] == (10, 17)  # its own key wins over the merged one
    said = "1e+23: is a whole number outside the setting's range"
    located = locate_issues([ConfigIssue("pools[0].scaling.maxSize", said),
                             ConfigIssue("pools[1].scaling.maxSize", said)], marks, "Pulumi.x.yaml")
    assert [i.message.split(":")[0] for i in located] == ["99999999999999999999999"] * 2, located
    assert [i.location.line for i in located] == [5, 5]
