"""Hypothesis strategies for valid taints, tolerations and labels (shared by property tests)."""

from __future__ import annotations

from hypothesis import strategies as st

from gpu_node_pool.k8s.taints import Taint, TaintEffect, Toleration

_alnum = st.sampled_from("abcxyz019")
_inner = st.text(alphabet="abz09-_.", max_size=6)


@st.composite
def names(draw, max_inner: int = 6) -> str:
    """A qualified-name 'name' part: alphanumeric ends, -_. inside."""
    first = draw(_alnum)
    if draw(st.booleans()):
        return first
    return first + draw(st.text(alphabet="abz09-_.", max_size=max_inner)) + draw(_alnum)


@st.composite
def keys(draw) -> str:
    prefix = draw(st.sampled_from(["", "nvidia.com/", "example.com/", "a.b-c.io/", "gpu-node-pools/"]))
    return prefix + draw(names())


label_values = st.one_of(st.just(""), names(), st.sampled_from(["true", "present", "v1.2-rc.3", "a_b"]))
effects = st.sampled_from(list(TaintEffect))


@st.composite
def taints(draw) -> Taint:
    return Taint(draw(keys()), draw(label_values), draw(effects))


@st.composite
def taint_lists(draw, max_size: int = 6) -> list[Taint]:
    """Taints with unique (key, effect); one key may carry several effects."""
    out = draw(st.lists(taints(), max_size=max_size, unique_by=lambda t: t.identity))
    return out


@st.composite
def tolerations(draw, pool: list[Taint] | None = None) -> Toleration:
    # Bias keys and values towards ones that appear in taints, so matches happen.
    key = draw(st.one_of(st.none(), keys(), st.sampled_from(["nvidia.com/gpu", "dedicated"])))
    operator = "Exists" if key is None else draw(st.sampled_from(["Equal", "Exists", ""]))
    value = None
    if operator != "Exists":
        value = draw(st.one_of(st.none(), label_values))
    effect = draw(st.one_of(st.none(), effects))
    # tolerationSeconds only with the effect NoExecute: the API server refuses it otherwise (ValidateTolerations)
    seconds = draw(st.one_of(st.none(), st.integers(0, 3600))) if effect is TaintEffect.NO_EXECUTE else None
    return Toleration(key=key, operator=operator, value=value, effect=effect, toleration_seconds=seconds)


labels_maps = st.dictionaries(keys(), label_values, max_size=6)
