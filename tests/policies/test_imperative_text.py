"""What counts as an imperative taint in a command: a line that runs ``kubectl taint``, not one that only
prints the words (``echo 'never run kubectl taint here'`` was a mandatory finding)."""

from __future__ import annotations

import pytest

from gpu_node_pool.policies.imperative import imperative_taint_commands


@pytest.mark.parametrize("text", [
    "kubectl taint nodes x a=b:NoSchedule",
    "echo start && kubectl taint nodes x a=b:NoSchedule",
    'echo "kubectl taint nodes x a=b:NoSchedule" | sh',  # piped into a shell: it runs
    'eval "$(printf kubectl) taint nodes -l a=b c=d:NoSchedule"',
    'sh -c "kubectl taint nodes x a=b:NoSchedule"',
])
def test_a_line_that_runs_kubectl_taint_is_found(text):
    assert imperative_taint_commands(text) == [" ".join(text.split())]


@pytest.mark.parametrize("text", [
    "echo 'do not run kubectl taint here'",
    'printf "use a NodePool, not kubectl taint\\n"',
    "kubectl get nodes; echo taint done",
])
def test_a_line_that_only_prints_the_words_is_not(text):
    assert imperative_taint_commands(text) == []
