"""The user-data fast paths give what the general path gives, on every text they take.

``mime_parts`` splits the envelope the renderers write without ``email``'s parser; these tests hold
it to that parser on envelopes with arbitrary parts, on near-misses, and on every rendered text.
"""

from __future__ import annotations

import shlex
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_self_managed import CLUSTER, SPEC, registrations

from gpu_node_pool.backends._shared import registration, user_data
from gpu_node_pool.backends._shared.registration import (
    MIME_BOUNDARY,
    NODEADM_CONTENT_TYPE,
    Registration,
    block_yaml,
    nodeadm_mime,
)
from gpu_node_pool.backends.self_managed import bootstrap
from gpu_node_pool.sdk.yaml_bounded import AliasExpansionError, load_all_bounded

DELIM = f"--{MIME_BOUNDARY}"
# Bodies near what breaks the split: boundary pieces, line endings of every kind, non-ASCII.
_piece = st.sampled_from(["\n", "\r", "\r\n", "-", "--", DELIM, DELIM + "--", MIME_BOUNDARY, " ", "\t", "é",
                          "Content-Type: text/plain", "MIME-Version: 1.0", "a: b", "x"])
bodies = st.one_of(st.text(max_size=40), st.lists(st.one_of(_piece, st.text(max_size=5)), max_size=12).map("".join))
content_types = st.one_of(
    st.sampled_from([NODEADM_CONTENT_TYPE, "text/x-shellscript", "text/plain", "multipart/mixed", "message/rfc822",
                     "Text/Plain", "application/node.eks.aws; charset=utf-8", "text", "a/b/c"]),
    st.from_regex(r"[a-z0-9.+-]{1,8}/[a-z0-9.+-]{1,8}", fullmatch=True),
)


def generated(parts: list[tuple[str, str]]) -> str:
    """What ``email``'s generator writes for these parts (as the nodeadm renderers build it)."""
    message = MIMEMultipart("mixed", boundary=MIME_BOUNDARY)
    for content_type, body in parts:
        part = MIMENonMultipart(*content_type.split("/", 1)) if content_type.count("/") == 1 else MIMENonMultipart("text", "plain")
        part.set_payload(body)
        message.attach(part)
    return message.as_string()


def written(parts: list[tuple[str, str]]) -> str:
    """The envelope written out by hand, without the generator's line-ending rewriting."""
    out = f'Content-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"\nMIME-Version: 1.0\n\n{DELIM}\n'
    out += f"\n{DELIM}\n".join(f"Content-Type: {t}\nMIME-Version: 1.0\n\n{b}" for t, b in parts)
    return out + f"\n{DELIM}--\n"


def plain_mime_parts(text: str) -> list[tuple[str, str]] | None:
    """``mime_parts`` without the envelope split: every MIME text through ``email``'s parser."""
    if not text.lstrip()[:200].lower().startswith(("mime-version:", "content-type:")):
        return None
    return user_data._email_parts(text)


def assert_same_parts(text: str) -> None:
    fast = user_data._envelope_parts(text.lstrip())
    if fast is not None:
        assert fast == user_data._email_parts(text)
    assert user_data.mime_parts(text) == plain_mime_parts(text)


@settings(max_examples=300)
@given(st.lists(st.tuples(content_types, bodies), min_size=1, max_size=3))
@example([(NODEADM_CONTENT_TYPE, "")])
@example([(NODEADM_CONTENT_TYPE, "\n")])
@example([(NODEADM_CONTENT_TYPE, DELIM)])
@example([(NODEADM_CONTENT_TYPE, "a\n" + DELIM + "--\n")])
def test_the_envelope_split_gives_the_email_parsers_parts(parts):
    for text in (generated(parts), written(parts)):
        assert_same_parts(text)


@settings(max_examples=200)
@given(st.lists(st.tuples(content_types, bodies), min_size=1, max_size=3), st.integers(0, 400), st.data())
def test_the_envelope_split_on_damaged_envelopes(parts, at, data):
    text = written(parts)
    at = min(at, len(text))
    cut = data.draw(st.integers(0, min(6, len(text) - at)))
    damaged = text[:at] + data.draw(st.sampled_from(["", "\n", "\r", " ", "-", "X", "--"])) + text[at + cut:]
    assert_same_parts(damaged)
    assert_same_parts("\n  " + damaged)
    assert_same_parts(damaged + "epilogue\n")


@settings(max_examples=60)
@given(reg=registrations())
@example(reg=SPEC)
@example(reg=Registration())
def test_rendered_nodeadm_user_data_takes_the_envelope_split(reg):
    text = bootstrap.render_nodeadm_user_data(reg, CLUSTER)
    assert user_data._envelope_parts(text) == user_data._email_parts(text)
    assert user_data._envelope_parts(text) is not None


# --- shell words: the direct cut agrees with shlex --------------------------------------

_shell_text = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from([" ", "\t", "\r", "\n", "\x0b", "\x0c", "\xa0", "\u2028", "\x00", "'", '"', "\\", "#",
                              "--register-with-taints=a=b:NoSchedule", "--node-labels=x=y", "=", ",", "a", "é"]),
             max_size=12).map("".join),
)


@settings(max_examples=400)
@given(_shell_text, st.booleans())
@example("--node-labels=a=b,c=d  --register-with-taints=k=v:NoSchedule", False)
@example("a\xa0b\u2028c", True)
def test_shell_words_are_shlex_words(line, comments):
    try:
        expected = shlex.split(line, comments=comments)
    except ValueError:
        with pytest.raises(ValueError):
            user_data.shell_words(line, comments=comments)
        return
    assert user_data.shell_words(line, comments=comments) == expected


# --- the nodeadm envelope written directly is what email's generator writes -------------


def generator_nodeadm_mime(payload: str) -> str:
    message = MIMEMultipart("mixed", boundary=MIME_BOUNDARY)
    part = MIMENonMultipart(*NODEADM_CONTENT_TYPE.split("/"))
    part.set_payload(payload)
    message.attach(part)
    return message.as_string()


@settings(max_examples=300)
@given(st.one_of(bodies, st.text()))
@example("")
@example("a\r\nb\rc\n")
@example("From here\n")
@example("x" * 2000 + "\n")
def test_nodeadm_mime_is_what_the_generator_writes(payload):
    assert nodeadm_mime(payload) == generator_nodeadm_mime(payload)


@settings(max_examples=60)
@given(reg=registrations())
@example(reg=SPEC)
@example(reg=Registration())
def test_rendered_nodeadm_user_data_is_the_generators(reg):
    payload = block_yaml(bootstrap._node_config(reg, CLUSTER))
    assert bootstrap.render_nodeadm_user_data(reg, CLUSTER) == generator_nodeadm_mime(payload)


# --- YAML documents built from libyaml's nodes are what the loader builds ----------------

_scalars = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False),
                     st.sampled_from(["true", "null", "~", "1", "0x1f", "1e3", "2001-12-14", "=", "<<", "", " a ", "é"]))
_data = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["<<", "=", "1", "true"])), inner, max_size=4),
    st.dictionaries(st.one_of(st.integers(), st.booleans(), st.none()), inner, max_size=2),
), max_leaves=12)
_yaml_pieces = st.sampled_from([
    "a: 1\n", "a: b\na: c\n", "<<: {x: 1}\ny: 2\n", "? [a]\n: b\n", "? {a: b}\n: c\n", "!!str 1\n", "!foo x\n",
    "x: !!int '3'\n", "x: &a [1]\ny: *a\n", "---\n", "...\n", "- a\n- [b, {c: d}]\n", "k: 'v'\n", 'k: "\\t"\n',
    "=: v\n", "k: =\n", "[", "}", ": :\n", "k: v\n  bad: indent\n", "%YAML 1.1\n---\na\n", "\t", "#c\n", "k: |\n  x\n",
    "kind: NodeConfig\nspec:\n  kubelet:\n    flags: [--node-labels=a=b]\n",
])


def reference_docs(text: str) -> tuple[str, str]:
    """repr of the loader's documents (types included), or the error it raises."""
    try:
        return "ok", repr(list(load_all_bounded(text)))
    except Exception as err:  # noqa: BLE001 - compared, not swallowed
        return type(err).__name__, str(err)


def fast_docs(text: str) -> tuple[str, str]:
    try:
        return "ok", repr(list(user_data._yaml_docs(text)))
    except Exception as err:  # noqa: BLE001
        return type(err).__name__, str(err)


@settings(max_examples=400)
@given(st.one_of(
    st.lists(_data, min_size=1, max_size=3).map(
        lambda docs: yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, allow_unicode=True)),
    st.lists(_data, min_size=1, max_size=2).map(lambda docs: yaml.safe_dump_all(docs, default_flow_style=True)),
    st.lists(st.one_of(_yaml_pieces, st.text(max_size=6)), max_size=6).map("".join),
))
@example("a:\n" + "  - " * 100 + "x\n")
@example("[" * 80 + "]" * 80 + "\n")
def test_yaml_documents_are_the_loaders(text):
    assert fast_docs(text) == reference_docs(text)


def test_yaml_documents_stay_one_at_a_time():
    docs = user_data._yaml_docs("kind: NodeConfig\n---\n[unclosed\n")
    assert next(docs) == {"kind": "NodeConfig"}
    with pytest.raises(yaml.YAMLError):
        next(docs)


def test_yaml_documents_with_anchors_are_the_bounded_loaders():
    (doc,) = user_data._yaml_docs("x: &a [b]\ny: *a\n")
    assert doc["x"] is doc["y"]  # one value, as the loader shares it
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))
    with pytest.raises(AliasExpansionError):
        list(user_data._yaml_docs(laughs))


# --- YAML written from nodes built directly is what yaml.dump writes --------------------


class _Str(str):
    pass


_plain_scalars = st.one_of(st.text(max_size=10), st.sampled_from(
    ["", "true", "null", "~", "1", "0o7", "1e3", "2001-12-14", "=", "<<", " a", "a ", "- x", "a: b", "#", "é", "\n",
     "x\ny", "'", '"', "*a", "&a", "!t", "%", "@", "`", "--register-with-taints=a=b:NoSchedule", "\x85", "\u2028"]))
_dumpable = st.recursive(
    st.one_of(_plain_scalars, st.integers(), st.booleans(), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_plain_scalars, inner, max_size=4),
        st.dictionaries(st.one_of(st.integers(), st.none()), inner, max_size=2),
    ),
    max_leaves=14,
)


def dumped(doc, flow: bool) -> str:
    try:
        return yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                         default_flow_style=flow, width=1 << 20)
    except yaml.YAMLError as err:
        return f"error {type(err).__name__}"


def ours(doc, flow: bool) -> str:
    try:
        return registration._dump(doc, flow)
    except yaml.YAMLError as err:
        return f"error {type(err).__name__}"


@settings(max_examples=400)
@given(_dumpable, st.booleans())
def test_yaml_from_built_nodes_is_what_yaml_dump_writes(doc, flow):
    assert ours(doc, flow) == dumped(doc, flow)
    assert registration.block_yaml(doc) == dumped(doc, False) or ours(doc, False).startswith("error")
    assert registration.flow_yaml(doc) == dumped(doc, True).strip() or ours(doc, True).startswith("error")


def test_yaml_from_built_nodes_leaves_other_types_to_the_representer():
    assert ours({"k": _Str("v")}, False) == dumped({"k": _Str("v")}, False) == "error RepresenterError"
    assert ours({_Str("k"): ["v"]}, True) == dumped({_Str("k"): ["v"]}, True)


def test_yaml_from_built_nodes_keeps_the_representers_anchors():
    shared = ["a"]
    doc = {"x": shared, "y": shared, "z": {"k": "v"}}
    assert registration.block_yaml(doc) == dumped(doc, False)
    assert "&id001" in registration.block_yaml(doc)


@settings(max_examples=60)
@given(reg=registrations())
@example(reg=SPEC)
@example(reg=Registration())
def test_every_rendered_yaml_is_what_yaml_dump_writes(reg):
    for doc in (bootstrap._node_config(reg, CLUSTER),):
        assert registration.block_yaml(doc) == dumped(doc, False)
    for fmt in bootstrap.FORMATS:
        for line in bootstrap.registration_snippet(fmt, reg):
            assert line  # rendered through flow_yaml for al2023, kubeadm and kubelet
    taints = [t.to_k8s() for t in reg.taints]
    assert registration.flow_yaml(taints) == dumped(taints, True).strip()


# --- the read memo ----------------------------------------------------------------------


def test_long_user_data_is_read_without_the_memo_and_alike():
    short = bootstrap.render_nodeadm_user_data(SPEC, CLUSTER)
    long = "#!/bin/bash\n" + "# padding\n" * (user_data._MEMO_TEXT_CHARS // 10) + "/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=a=b'\n"
    user_data._found_in_text.cache_clear()
    for text in (short, long):
        assert user_data._found(text) == user_data._read_found(text)
    assert user_data._found_in_text.cache_info().currsize == 1  # the short one
    assert user_data.read_registration(long).labels == {"a": "b"}


def test_user_data_past_the_memo_bound_is_read_but_not_kept_by_any_reader():
    """Texts over 64 KiB (decoded; e.g. gzip expanded) are read each time, whichever reader asks, so the memo
    holds at most its 4096 texts of at most 64 KiB."""
    import base64
    import gzip

    from gpu_node_pool.backends._shared import user_data as u
    from gpu_node_pool.backends._shared.registration_mentions import read_user_data_registration

    big = base64.b64encode(gzip.compress(("#!/bin/sh\n# register-with-taints\n" + "# x\n" * 20_000).encode())).decode()
    u._found_in_text.cache_clear()
    u.read_registration(big)
    read_user_data_registration(big)
    assert u._found_in_text.cache_info().currsize == 0
    small = base64.b64encode(b"#!/bin/sh\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=a=b:NoSchedule'\n").decode()
    read_user_data_registration(small)
    assert u._found_in_text.cache_info().currsize == 1
