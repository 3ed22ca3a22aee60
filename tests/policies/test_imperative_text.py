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


NODE_MANIFEST = """apiVersion: v1
kind: Node
metadata:
  name: gpu-1
spec:
  taints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}"""


@pytest.mark.parametrize("opening", [
    "kubectl apply -f - <<EOF",
    "cat <<'EOF' | kubectl apply -f -",
    "kubectl --context prod replace -f - <<-EOF",
])
def test_kubectl_writing_a_node_manifest_with_taints_from_a_here_document_is_found(opening):
    script = f"set -e\n{opening}\n{NODE_MANIFEST}\nEOF\necho done\n"
    assert imperative_taint_commands(script) == [f"{opening} (a Node manifest with spec.taints)"]


def test_a_here_document_patch_of_a_node_with_taints_and_an_inline_node_manifest_are_found():
    patch = "kubectl patch node gpu-1 --patch-file /dev/stdin <<EOF\nspec:\n  taints:\n  - {key: a, effect: NoSchedule}\nEOF\n"
    assert imperative_taint_commands(patch) == [
        "kubectl patch node gpu-1 --patch-file /dev/stdin <<EOF (its here document patches taints)"]
    inline = """echo '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "g"}, "spec": {"taints": [{"key": "a", "effect": "NoSchedule"}]}}' | kubectl apply -f -"""
    assert imperative_taint_commands(inline) == [inline]


@pytest.mark.parametrize("script", [
    # a Node manifest without taints, a Deployment that mentions taints, a manifest only written to a file
    f"kubectl apply -f - <<EOF\n{NODE_MANIFEST.replace('taints', 'podCIDRs')}\nEOF\n",
    "kubectl apply -f - <<EOF\nkind: ConfigMap\ndata:\n  note: taints are declared on the pool\nEOF\n",
    f"cat > /tmp/node.yaml <<EOF\n{NODE_MANIFEST}\nEOF\n",
])
def test_manifests_that_set_no_node_taint_are_not(script):
    assert imperative_taint_commands(script) == []


def test_a_script_written_out_by_a_here_document_is_still_read_line_by_line():
    script = "cat > /etc/rc.local <<'EOF'\n#!/bin/sh\nkubectl taint nodes $(hostname) a=b:NoSchedule\nEOF\n"
    assert imperative_taint_commands(script) == ["kubectl taint nodes $(hostname) a=b:NoSchedule"]


@pytest.mark.parametrize("script", [
    "kubectl apply -f - <<EOF\nkind: List\nitems:\n- {kind: Node, metadata: {name: g}, spec: {taints: [{key: a, effect: NoSchedule}]}}\nEOF\n",
    """echo '{"spec": {"taints": [{"key": "a", "effect": "NoSchedule"}]}, "kind": "Node", "apiVersion": "v1"}' | kubectl apply -f -""",
    f"cat <<EOF |\n{NODE_MANIFEST}\nEOF\nkubectl apply -f -\n",
    "kubectl -n kube-system --context prod taint nodes g a=b:NoSchedule",
])
def test_more_ways_of_setting_node_taints_are_found(script):
    assert len(imperative_taint_commands(script)) == 1


@pytest.mark.parametrize("script", [
    "kubectl -n taint get pods",
    "kubectl get pods -l app=taint",
    """echo '{"kind": "ConfigMap", "data": {"x": "kind: Node with taints"}}' | kubectl apply -f -""",
    "echo 'kubectl taint nodes x a=b:NoSchedule' | kubectl apply -f -",
    "echo 'do not kubectl taint nodes' | kubectl create configmap x --from-file=-",
    "kubectl apply -f https://example.com/y.yaml # kind: Node with taints",
    # a here document PyYAML cannot build, or with items that are no list: not a crash
    "kubectl apply -f - <<EOF\nkind: NodeList\nitems: 5\ntaints: x\nEOF\n",
    "kubectl apply -f - <<EOF\nkind: ConfigMap\nmetadata: {created: 2020-13-45}\ndata: {a: taints}\nEOF\n",
])
def test_commands_that_set_no_node_taint_are_not_found(script):
    assert imperative_taint_commands(script) == []


@pytest.mark.parametrize("script", [
    "/opt/bitnami/kubectl/bin/kubectl taint nodes z a=b:NoSchedule",  # where the bitnami image keeps kubectl
    "#cloud-config\nruncmd:\n  - [kubectl, taint, nodes, gpu-1, 'a=b:NoSchedule']\n",
    "kubectl --log-flush-frequency 5s taint nodes z a=b:NoSchedule",
    "kubectl --kuberc /x taint nodes z a=b:NoSchedule",
])
def test_kubectl_by_path_or_in_a_cloud_init_list_or_after_valued_options_is_found(script):
    assert len(imperative_taint_commands(script)) == 1


@pytest.mark.parametrize("script", [
    "kubectl auth can-i patch nodes  # taints",
    "echo '{\"kind\":\"ConfigMap\",\"x\":" + "[" * 3000 + "]" * 3000 + "}' | kubectl apply -f -",  # deeper than json
    "echo '" + '{"a": "kubectl.kubernetes.io/last-applied-configuration taint"}' * 50 + "' > f.json",
])
def test_comments_deep_json_and_annotation_keys_are_not_taint_commands(script):
    assert imperative_taint_commands(script) == []
