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
