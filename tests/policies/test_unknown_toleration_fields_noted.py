"""A toleration key that is no field of Toleration (``opertor``) is a note on the finding of each rule that judges the
toleration "not tolerated" (daemonsets-tolerate-gpu-taints, gpu-workloads-tolerate-their-pool,
device-plugin-covers-gpu-pools) and on the check's text; the verdict is the one of the toleration without that key
(the API server's default field validation drops it), never a refusal."""

from __future__ import annotations

from pathlib import Path

from builders import EXISTS_GPU, daemonset, deployment, node_group, plugin, run
from programs import daemonset_yaml, team_program, team_project

from gpu_node_pool.cli.commands import main
from gpu_node_pool.policies import rules as d
from gpu_node_pool.policies.workloads import read_tolerations, toleration_notes

TYPO = {"key": "nvidia.com/gpu", "opertor": "Exists", "effect": "NoSchedule"}
#: What the toleration is once the API server dropped ``opertor``: the verdict must be the same.
DROPPED = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}


def test_notes_are_kept_apart_from_the_problems_of_reading_the_tolerations():
    spec = {"tolerations": [EXISTS_GPU, TYPO]}
    tolerations, problems = read_tolerations(spec)
    assert len(tolerations) == 2 and problems == []
    (note,) = toleration_notes(spec, "spec.template.spec.")
    assert note.startswith("spec.template.spec.tolerations[1].opertor ('Exists') is not a field of Toleration")
    assert toleration_notes({"tolerations": [EXISTS_GPU]}) == [] and toleration_notes({}) == []


def test_a_daemonset_with_the_typo_is_not_tolerated_with_a_note_naming_the_key_and_the_field_meant():
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [node_group(), daemonset(tolerations=[TYPO])])
    message = found["message"]
    assert "nvidia.com/gpu=present:NoSchedule not tolerated" in message
    assert "spec.template.spec.tolerations[0].opertor ('Exists') is not a field of Toleration" in message
    assert "did you mean operator?" in message and "fix: write operator: Exists" in message
    (dropped,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [node_group(), daemonset(tolerations=[DROPPED])])
    assert found["enforcement"] == dropped["enforcement"] == "mandatory"
    assert message.startswith(dropped["message"].split(" Tolerate each taint")[0])  # same verdict, then the note
    assert "is not a field" not in dropped["message"]


def test_a_daemonset_with_correct_tolerations_gets_no_note():
    assert run(d.daemonsets_tolerate_gpu_taints.POLICY, [node_group(), daemonset(tolerations=[EXISTS_GPU])]) == []
    other = node_group(taints=("dedicated=gpu:NoSchedule",))
    (found,) = run(d.daemonsets_tolerate_gpu_taints.POLICY, [other, daemonset(tolerations=[EXISTS_GPU])])
    assert "dedicated=gpu:NoSchedule not tolerated" in found["message"] and "is not a field" not in found["message"]


def test_a_gpu_workload_with_the_typo_stays_pending_with_the_note():
    pool = node_group(labels={"nvidia.com/gpu.present": "true"})
    web = deployment(tolerations=[TYPO], node_selector={"nvidia.com/gpu.present": "true"})
    (found,) = run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, web])
    assert "nvidia.com/gpu=present:NoSchedule not tolerated" in found["message"]
    assert "spec.template.spec.tolerations[0].opertor ('Exists') is not a field" in found["message"]
    assert "did you mean operator?" in found["message"]
    fine = deployment(tolerations=[{**DROPPED, "value": "x"}], node_selector={"nvidia.com/gpu.present": "true"})
    (other,) = run(d.gpu_workloads_tolerate_their_pool.POLICY, [pool, fine])
    assert "not tolerated" in other["message"] and "is not a field" not in other["message"]


def test_a_device_plugin_with_the_typo_does_not_cover_the_pool_and_says_why():
    (found,) = run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), plugin([TYPO])])
    message = found["message"]
    assert "nvidia.com/gpu=present:NoSchedule not tolerated" in message
    assert ("DaemonSet nvidia-device-plugin/nvidia-device-plugin: spec.template.spec.tolerations[0].opertor "
            "('Exists') is not a field of Toleration") in message
    assert "did you mean operator?" in message
    assert run(d.device_plugin_covers_gpu_pools.POLICY, [node_group(), plugin([EXISTS_GPU])]) == []


DAEMONSET = daemonset_yaml(" [{key: nvidia.com/gpu, opertor: Exists, effect: NoSchedule}]", namespace="logging",
                           app="a", container="a", image="example.com/a:1")


def test_the_check_text_shows_the_note_and_fails_as_before(tmp_path: Path, capsys):
    team_project(tmp_path, team_program('k8s.yaml.v2.ConfigFile("ds", file="ds.yaml")'))
    (tmp_path / "ds.yaml").write_text(DAEMONSET)
    code = main(["check", "--project-dir", str(tmp_path), "--stack", "ci"])
    text = " ".join(capsys.readouterr().out.split())  # the finding wrapped over lines, read as one
    assert code == 1
    assert "nvidia.com/gpu=present:NoSchedule not tolerated" in text
    assert "spec.template.spec.tolerations[0].opertor ('Exists') is not a field of Toleration" in text
    assert "did you mean operator?" in text and "fix: write operator: Exists" in text
