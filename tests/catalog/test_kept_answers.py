"""Answers the catalog keeps (a type's labels, a requirement's verdict on every catalog type) are the
answers it would work out afresh: for another universe, after the catalog is reloaded, and every time."""

from __future__ import annotations

from gpu_node_pool import catalog
from gpu_node_pool.catalog.model import LabelValue
from gpu_node_pool.catalog.requirements import RequirementError, evaluate

NVIDIA = [{"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}]


def _names(result) -> list[str]:
    return [t.name for t in result.candidates]



def _load_small_catalog(tmp_path, monkeypatch) -> None:
    """Load a two-type instance table (g6.xlarge, m5.large) in place of the shipped one."""
    small = tmp_path / catalog.DATA_FILE
    small.write_text("# upstream: x@1 (2026-01-01)\n# types: 2\n" + ",".join(catalog.COLUMNS) + "\n"
                     "g6.xlarge,4,16384,1,amd64\nm5.large,2,8192,0,amd64\n")
    monkeypatch.setattr(catalog, "data_file", lambda: small)
    catalog._catalog.cache_clear()

def test_a_given_universe_is_judged_on_its_own_types_before_and_after_the_catalog_answer_is_kept():
    few = [catalog.find(n) for n in ("m5.large", "g6.xlarge", "p5.48xlarge")]
    before = _names(evaluate(NVIDIA, types=few))
    everything = _names(evaluate(NVIDIA))
    assert before == _names(evaluate(NVIDIA, types=few)) == ["g6.xlarge", "p5.48xlarge"]
    assert len(everything) > 50 and "m5.large" not in everything and _names(evaluate(NVIDIA)) == everything


def test_a_reloaded_catalog_is_judged_from_its_own_table_not_the_previous_ones_answers(tmp_path, monkeypatch):
    evaluate(NVIDIA)  # the loaded table's answer, kept
    _load_small_catalog(tmp_path, monkeypatch)
    try:
        names = {t.name for t in catalog.all_types()}
        got = _names(evaluate(NVIDIA))
        assert "g6.xlarge" in got and "m5.large" not in got and set(got) <= names
        assert "g5.xlarge" not in got  # in the full table, not in this one
    finally:
        catalog._catalog.cache_clear()
    monkeypatch.undo()
    assert "g5.xlarge" in _names(evaluate(NVIDIA))


def test_a_types_label_is_the_same_every_time_and_an_unknown_label_always_raises():
    g6 = catalog.find("g6.xlarge")
    m5 = catalog.find("m5.large")
    for _ in range(2):
        assert g6.label("instance-gpu-manufacturer") == "nvidia" and g6.label("instance-gpu-count") == "1"
        assert m5.label("instance-gpu-count") is LabelValue.ABSENT
        try:
            g6.label("instance-colour")
        except KeyError:
            pass
        else:
            raise AssertionError("an unknown label suffix must raise KeyError")


def test_candidates_kept_per_content_tell_apart_what_evaluate_tells_apart():
    from gpu_node_pool.catalog.requirements import candidates

    def gpus(value):
        return [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": [value]}]

    one = candidates(gpus(1))
    assert one and all(t.label("instance-gpu-count") == "1" for t in one)
    # equal as Python keys (1 == True == 1.0), different requirements once read as label values
    assert candidates(gpus(True)) == () == evaluate(gpus(True)).candidates
    assert candidates(gpus(1.0)) == evaluate(gpus(1.0)).candidates != one
    assert candidates(gpus("1")) == one == candidates(gpus(1))
    for limits in ({"nvidia.com/gpu": 1}, {"cpu": 8}, None):
        assert candidates(NVIDIA, limits) == evaluate(NVIDIA, limits).candidates
    try:  # a limit of True is refused even when the limit 1 was kept before it
        candidates(NVIDIA, {"nvidia.com/gpu": True})
    except RequirementError:
        pass
    else:
        raise AssertionError("limits.nvidia.com/gpu: True must be refused as evaluate refuses it")


def test_candidates_follow_a_reloaded_catalog(tmp_path, monkeypatch):
    from gpu_node_pool.catalog.requirements import candidates

    full = candidates(NVIDIA)  # kept for the loaded table
    _load_small_catalog(tmp_path, monkeypatch)
    try:
        got = _names_of(candidates(NVIDIA))
        assert "g6.xlarge" in got and "g5.xlarge" not in got and set(got) <= {t.name for t in catalog.all_types()}
    finally:
        catalog._catalog.cache_clear()
    monkeypatch.undo()
    assert _names_of(candidates(NVIDIA)) == _names_of(full)


def _names_of(types) -> list[str]:
    return [t.name for t in types]


def test_a_karpenter_pools_kept_evaluation_tells_apart_what_evaluate_tells_apart_and_follows_a_reload(
        tmp_path, monkeypatch):
    from gpu_node_pool.backends.karpenter.feasibility import evaluation

    def gpus(value):
        return [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": [value]}]

    one = _names(evaluation(gpus(1), {}))
    assert one and _names(evaluation(gpus(True), {})) == [] == _names(evaluate(gpus(True)))
    assert _names(evaluation(NVIDIA, {"nvidia.com/gpu": 1}))
    try:  # kept after the limit 1, a limit of True is still refused
        evaluation(NVIDIA, {"nvidia.com/gpu": True})
    except RequirementError:
        pass
    else:
        raise AssertionError("limits.nvidia.com/gpu: True must be refused as evaluate refuses it")
    full = _names(evaluation(NVIDIA, {}))
    _load_small_catalog(tmp_path, monkeypatch)
    try:
        got = _names(evaluation(NVIDIA, {}))
        assert "g6.xlarge" in got and "g5.xlarge" not in got and set(got) <= {t.name for t in catalog.all_types()}
    finally:
        catalog._catalog.cache_clear()
    monkeypatch.undo()
    assert _names(evaluation(NVIDIA, {})) == full
