"""Kubelet registration: the taints and labels a self-managed node registers with, per bootstrap format.

A taint exists before the first pod can land only when the kubelet registers the Node with
it (``--register-with-taints`` / ``KubeletConfiguration.registerWithTaints``); NodeRestriction
then forbids the kubelet to change its own taints. The renderers live in ``self_managed/bootstrap.py``; this module is the one reader: it
undoes base64 and gzip, walks MIME multi-part user data, and reads one
:class:`Registration` (taints + labels) and the cluster fields into each bootstrap format
that carries them, and reads them back from any of those formats (base64 or not):

========================  ==========================================================  ================================
format                    where the taints go                                         where the labels go
========================  ==========================================================  ================================
``al2023`` (nodeadm)      MIME part ``application/node.eks.aws``, ``NodeConfig``       ``spec.kubelet.flags``
                          ``spec.kubelet.config.registerWithTaints``                  ``["--node-labels=k=v,..."]``
``bottlerocket``          TOML ``[settings.kubernetes.node-taints]``                  ``[settings.kubernetes.node-labels]``
                          ``"key" = ["value:Effect", ...]``
``al2`` (legacy)          ``/etc/eks/bootstrap.sh --kubelet-extra-args``              same, ``--node-labels=k=v,...``
                          ``'--register-with-taints=k=v:Effect,...'``
``kubeadm``               ``JoinConfiguration`` (``kubeadm.k8s.io/v1beta4``;          ``nodeRegistration.kubeletExtraArgs``
                          ``v1beta3`` below Kubernetes 1.31)                          ``[{name: node-labels, value: ...}]``
                          ``nodeRegistration.taints``                                 (v1beta3: ``{node-labels: ...}``)
``kubelet``               ``--register-with-taints=...`` (flags file) and a           ``--node-labels=...`` (labels have
                          ``KubeletConfiguration`` snippet ``registerWithTaints``      no KubeletConfiguration field)
========================  ==========================================================  ================================

Effects use the Kubernetes spelling everywhere here; the kubelet string form is
``str(Taint)`` / :meth:`Taint.parse` (``taints.py``). Nothing here imports Pulumi.

Sources: the kubelet flag reference
(https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/: ``--register-with-taints``,
``--node-labels``); kubernetes ``staging/src/k8s.io/kubelet/config/v1beta1/types.go``
(``registerWithTaints``); awslabs/amazon-eks-ami ``nodeadm/api/v1alpha1/nodeconfig_types.go``,
``nodeadm/doc/examples.md`` and ``nodeadm/internal/api/merge.go`` (MIME parts merged in order,
later wins; ``kubelet.flags`` appended); Karpenter ``pkg/providers/amifamily/bootstrap/nodeadm.go``
and ``bottlerocketsettings.go``; bottlerocket settings reference (``settings.kubernetes.*``);
amazon-eks-ami ``templates/al2/runtime/bootstrap.sh`` (last version before AL2 removal);
kubernetes ``cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go`` and ``v1beta3/types.go``; kubernetes/autoscaler
``cloudprovider/aws/README.md`` (ASG auto-discovery and node-template tags).
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import shlex
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from ...k8s.patterns import full_match
from ...k8s.taints import Taint
from ...sdk.yaml_bounded import (
    MAP_TAG,
    SEQ_TAG,
    STR_TAG,
    GoSafeLoader,
    TagValueError,
    load_all_bounded,
    with_tag_errors,
)

if TYPE_CHECKING:  # the config models are only needed for type hints and the pool helpers
    pass

from .registration import (
    MIME_BOUNDARY,
    NODE_LABELS_FLAG,
    NODEADM_CONTENT_TYPE,
    REGISTER_WITH_TAINTS_FLAG,
    Registration,
    parse_labels_flag,
    parse_taints_flag,
)

# --- readers ----------------------------------------------------------------------------

_B64_RE = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


#: Most characters of decoded user data read (EC2 takes at most 16 KB of user data before base64,
#: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html; gzip may expand it). Past
#: it, only the first MAX_USER_DATA_CHARS are read and :func:`read_registration` refuses it.
MAX_USER_DATA_CHARS = 1 << 20
#: EC2's limit on user data: 16 KB in raw form, before base64 (same page, "User data is limited to 16 KB").
EC2_USER_DATA_MAX_BYTES = 16 * 1024


def user_data_size_problem(text: str, what: str, merger: str, fix: str) -> str | None:
    """Why user data ``text`` (``what``: the path that makes it) is more than EC2 takes, or None.

    ``merger`` names who adds its own part before the instance launches (EKS, Karpenter), which only
    makes it larger: past :data:`EC2_USER_DATA_MAX_BYTES` (UTF-8) the launch is refused. ``fix`` ends the sentence.
    """
    size = len(text.encode())
    if size <= EC2_USER_DATA_MAX_BYTES:
        return None
    return (f"{what} makes {size} bytes of user data, and {merger} adds its own part to it; EC2 takes at most "
            f"{EC2_USER_DATA_MAX_BYTES} bytes before base64 (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/user-data.html), "
            f"so no node would launch: {fix}")


class UserDataError(ValueError):
    """User data the registration readers cannot read: too large, YAML that does not parse, or a
    part whose fields have the wrong shape (``registerWithTaints: oops``). The message says which."""


def _gunzip(raw: bytes) -> bytes | None:
    """``raw`` decompressed, at most :data:`MAX_USER_DATA_CHARS` + 1 bytes of it (a gzip bomb is
    not expanded whole); None when it is not gzip."""
    try:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        return inflater.decompress(raw, MAX_USER_DATA_CHARS + 1)
    except zlib.error:
        return None


def decode_user_data(user_data: str | bytes) -> str:
    """User data as text: base64 (as EC2 launch templates hold it) and gzip are undone (gzip
    expanded to :data:`MAX_USER_DATA_CHARS` + 1 bytes at most)."""
    if not isinstance(user_data, str | bytes):
        return ""
    raw: bytes | None = user_data if isinstance(user_data, bytes) else None
    if raw is None:
        compact = "".join(user_data.split())
        if compact and len(compact) % 4 == 0 and full_match(_B64_RE, compact):
            try:
                raw = base64.b64decode(compact, validate=True)
            except (binascii.Error, ValueError):
                raw = None
    if raw is None:
        return str(user_data)
    if raw[:2] == b"\x1f\x8b":
        inflated = _gunzip(raw)
        if inflated is None:
            return user_data if isinstance(user_data, str) else ""
        if len(inflated) > MAX_USER_DATA_CHARS:  # cut: refused by the readers as too large
            return inflated.decode("utf-8", "replace")
        raw = inflated
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return user_data if isinstance(user_data, str) else raw.decode("utf-8", "replace")


@dataclass
class _Found:
    """What the readers gather, in document order, before kubelet precedence is applied."""

    formats: list[str] = field(default_factory=list)
    config_taints: list[Taint] | None = None  # registerWithTaints / nodeRegistration.taints / node-taints
    config_labels: dict[str, str] = field(default_factory=dict)  # Bottlerocket node-labels
    flags: list[str] = field(default_factory=list)  # kubelet command-line arguments, in order

    def registration(self) -> Registration:
        flag_taints: list[Taint] | None = None
        flag_labels: dict[str, str] = {}
        args = self.flags
        i = 0
        while i < len(args):
            name, eq, value = args[i].partition("=")
            if name in (REGISTER_WITH_TAINTS_FLAG, NODE_LABELS_FLAG) and not eq:
                value = args[i + 1] if i + 1 < len(args) else ""
                i += 1
            if name == REGISTER_WITH_TAINTS_FLAG:
                flag_taints = parse_taints_flag(value)  # a repeated flag replaces the earlier one
            elif name == NODE_LABELS_FLAG:
                flag_labels.update(parse_labels_flag(value))  # repeated --node-labels merge, later wins
            i += 1
        # kubelet: a command-line flag overrides the same setting from the config file
        taints = flag_taints if flag_taints is not None else (self.config_taints or [])
        return Registration(tuple(taints), {**self.config_labels, **flag_labels})


#: What makes ``shlex.split`` do more than cut at its whitespace: quotes, the escape and the comment sign.
_SHELL_SYNTAX = re.compile(r"[\"'\\#]")
#: ``shlex``'s whitespace in POSIX mode (not every Unicode space ``str.split`` cuts at).
_SHELL_BLANKS = re.compile(r"[ \t\r\n]+")


def shell_words(line: str, comments: bool = False) -> list[str]:
    """``shlex.split(line, comments=comments)``; a line without quotes, backslashes or ``#`` is cut at
    ``shlex``'s whitespace directly (the same words: there ``shlex`` does nothing else).

    Raises:
        ValueError: as ``shlex.split`` (an unbalanced quote, an escape at the end).
    """
    if _SHELL_SYNTAX.search(line) is None:
        return [word for word in _SHELL_BLANKS.split(line) if word]
    return shlex.split(line, comments=comments)


def _expand_args(tokens: Sequence[str]) -> list[str]:
    """Shell tokens -> kubelet arguments, opening ``--kubelet-extra-args '...'`` and ``KUBELET_EXTRA_ARGS=...``."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "--kubelet-extra-args" and i + 1 < len(tokens):
            out += _expand_args(shell_words(tokens[i + 1]))
            i += 2
            continue
        for prefix in ("--kubelet-extra-args=", "KUBELET_EXTRA_ARGS=", "Environment=KUBELET_EXTRA_ARGS="):
            if tok.startswith(prefix):
                out += _expand_args(shell_words(tok[len(prefix):]))
                break
        else:
            out.append(tok)
        i += 1
    return out


#: Longest shell line split into words (Python's ``shlex`` builds a word a character at a time,
#: quadratic in its length: a 1 MB quoted word takes 40 s). EC2 user data is 16 KB in all.
MAX_SHELL_LINE = 1 << 16


def _read_shell(text: str, found: _Found) -> None:
    for line in text.replace("\\\n", " ").splitlines():
        if len(line) > MAX_SHELL_LINE:
            raise UserDataError(f"a shell line of {len(line)} characters is not read (at most {MAX_SHELL_LINE}); "
                                "EC2 takes 16 KB of user data")
        try:
            tokens = shell_words(line, comments=True)
        except ValueError:
            continue  # an unbalanced quote on one line of a script: not ours to judge
        found.flags += _expand_args(tokens)


#: libyaml's safe loader when PyYAML has it (five times faster on nodeadm user data), else PyYAML's.
_LOADER = GoSafeLoader


_STR, _SEQ, _MAP = STR_TAG, SEQ_TAG, MAP_TAG
#: Deepest node :func:`_plain_data` builds; deeper documents go through the loader's constructor.
_PLAIN_DEPTH = 64


class _NotPlain(Exception):
    """A node :func:`_plain_data` leaves to the loader's constructor."""


def _plain_data(node: yaml.Node, depth: int = 0) -> Any:
    """What the safe loader's constructor builds from ``node`` when every node under it is a string, a
    list or a mapping with string keys (dicts, lists and strings; a later duplicate key wins, in the
    place of the first); raises :class:`_NotPlain` at any other node (other scalar types, merge keys,
    complex keys, explicit other tags) or past :data:`_PLAIN_DEPTH` levels. No aliases: see :func:`_yaml_docs`."""
    tag = node.tag
    if tag == _STR and type(node) is yaml.ScalarNode:
        return node.value
    if depth >= _PLAIN_DEPTH:
        raise _NotPlain
    if tag == _MAP and type(node) is yaml.MappingNode:
        out = {}
        for key, value in node.value:
            if key.tag != _STR or type(key) is not yaml.ScalarNode:
                raise _NotPlain
            out[key.value] = _plain_data(value, depth + 1)
        return out
    if tag == _SEQ and type(node) is yaml.SequenceNode:
        return [_plain_data(item, depth + 1) for item in node.value]
    raise _NotPlain


def _yaml_docs(text: str) -> Iterator[Any]:
    """Each document of ``text`` as :func:`load_all_bounded` gives it, one at a time. Without an anchor
    (``&``, so no alias) a document of strings, lists and string-keyed mappings is built from libyaml's
    nodes by :func:`_plain_data`, skipping the constructor's per-node dispatch; any other document,
    and text with anchors, goes through the loader as before.

    Raises:
        yaml.YAMLError: the text does not parse, or (:class:`TagValueError`) a value does not fit its explicit tag.
    """
    if "&" in text:
        yield from load_all_bounded(text)
        return
    yield from with_tag_errors(_anchorless_docs(text), text)


def _anchorless_docs(text: str) -> Iterator[Any]:
    loader = _LOADER(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            try:
                yield _plain_data(node)
            except _NotPlain:
                yield loader.construct_document(node)
    finally:
        loader.dispose()


def _taints(value: Any, where: str) -> list[Taint]:
    """The taints of a config file's taint list (``None``: none); anything but a list is refused."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise UserDataError(f"{where} is {type(value).__name__} {str(value)[:40]!r}, not a list of taints")
    return [Taint.from_k8s(t) for t in value]


def _read_yaml_docs(docs: Iterable[Any], found: _Found) -> bool:
    seen = False
    for doc in docs:
        if not isinstance(doc, Mapping):
            continue
        kind = doc.get("kind")
        if kind == "NodeConfig":
            seen = True
            found.formats.append("al2023")
            kubelet = ((doc.get("spec") or {}).get("kubelet")) or {}
            config = kubelet.get("config") or {}
            if "registerWithTaints" in config:  # later NodeConfig parts override earlier ones
                found.config_taints = _taints(config.get("registerWithTaints"), "NodeConfig spec.kubelet.config.registerWithTaints")
            for flag in kubelet.get("flags") or []:  # nodeadm appends flags of every part
                if len(str(flag)) > MAX_SHELL_LINE:
                    raise UserDataError(f"a kubelet flag of {len(str(flag))} characters is not read (at most "
                                        f"{MAX_SHELL_LINE})")
                found.flags += _expand_args(shell_words(str(flag)))
        elif kind == "JoinConfiguration":
            seen = True
            found.formats.append("kubeadm")
            registration = doc.get("nodeRegistration") or {}
            if "taints" in registration:
                found.config_taints = _taints(registration.get("taints"), "JoinConfiguration nodeRegistration.taints")
            extra = registration.get("kubeletExtraArgs") or []
            items = extra.items() if isinstance(extra, Mapping) else ((a.get("name"), a.get("value")) for a in extra)
            found.flags += [f"--{name}={value}" for name, value in items]
        elif kind == "KubeletConfiguration":
            seen = True
            found.formats.append("kubelet")
            if "registerWithTaints" in doc:
                found.config_taints = _taints(doc.get("registerWithTaints"), "KubeletConfiguration registerWithTaints")
    return seen


def bottlerocket_node_taints(node_taints: Mapping[str, Any] | None) -> list[Taint]:
    """The taints of Bottlerocket's ``settings.kubernetes.node-taints``: a map of taint key to
    ``"value:Effect"`` (``":Effect"`` for an empty value) or a list of them, one per effect
    (https://bottlerocket.dev/en/os/latest/#/api/settings/kubernetes/), in map order.

    Raises:
        TaintError: an entry that is not ``value:Effect`` with a Kubernetes effect.
    """
    taints = []
    for key, entries in (node_taints or {}).items():
        for entry in entries if isinstance(entries, list) else [entries]:
            taints.append(Taint.parse(f"{key}={entry}"))  # entry is "value:Effect" (":Effect" when empty)
    return taints


def _read_bottlerocket(settings: Mapping[str, Any], found: _Found) -> None:
    found.formats.append("bottlerocket")
    k8s = (settings.get("settings") or {}).get("kubernetes") or {}
    taints = bottlerocket_node_taints(k8s.get("node-taints"))
    if "node-taints" in k8s:
        found.config_taints = taints
    found.config_labels.update({k: str(v) for k, v in (k8s.get("node-labels") or {}).items()})


#: The envelope ``email``'s generator writes for a ``MIMEMultipart("mixed", boundary=MIME_BOUNDARY)``
#: of non-multipart parts (what the nodeadm renderers write): its headers, each part's headers
#: (content type without parameters), the line between parts and the closing line.
_ENVELOPE_HEAD = f'Content-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"\nMIME-Version: 1.0\n\n--{MIME_BOUNDARY}\n'
_ENVELOPE_PART = re.compile(r"Content-Type: ([a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*)\nMIME-Version: 1\.0\n\n")
_ENVELOPE_BETWEEN = f"\n--{MIME_BOUNDARY}\n"
_ENVELOPE_END = f"\n--{MIME_BOUNDARY}--\n"


def _envelope_parts(text: str) -> list[tuple[str, str]] | None:
    """The parts of ``text`` when it is exactly the envelope of :data:`_ENVELOPE_HEAD`: ASCII without
    carriage returns, each part's content type a lower-case ``type/subtype`` that is neither
    ``multipart`` nor ``message``, no body holding ``--`` + the boundary, nothing after the closing line;
    else None. On such text ``email``'s parser gives the same parts, bodies as written (a body's
    line ending before a boundary line belongs to that line), which ``mime_parts`` would return."""
    if not (text.startswith(_ENVELOPE_HEAD) and text.endswith(_ENVELOPE_END) and text.isascii() and "\r" not in text):
        return None
    if len(text) < len(_ENVELOPE_HEAD) + len(_ENVELOPE_END):  # the head and the end overlap
        return None
    inner = text[len(_ENVELOPE_HEAD):len(text) - len(_ENVELOPE_END)]
    out = []
    for chunk in inner.split(_ENVELOPE_BETWEEN):
        head = _ENVELOPE_PART.match(chunk)
        if head is None or head[1].startswith(("multipart/", "message/")):
            return None
        body = chunk[head.end():]
        if _ENVELOPE_BETWEEN[1:-1] in body:
            return None
        out.append((head[1], body))
    return out


def mime_parts(text: str) -> list[tuple[str, str]] | None:
    """The parts of MIME user data as ``(content type, decoded body)``, in order; None when
    ``text`` is not MIME (the one MIME walker: the registration readers and the policies'
    imperative-taint search both use it). The envelope the renderers write is split directly
    (:func:`_envelope_parts`, the same parts); any other MIME goes through ``email``'s parser."""
    head = text.lstrip()[:200].lower()
    if not head.startswith(("mime-version:", "content-type:")):
        return None
    envelope = _envelope_parts(text.lstrip())
    if envelope is not None:
        return envelope
    return _email_parts(text)


def _email_parts(text: str) -> list[tuple[str, str]]:
    """:func:`mime_parts` of MIME text by ``email``'s parser, whatever its shape."""
    from email import message_from_string  # only for MIME the renderers do not write

    message = message_from_string(text.lstrip())
    out = []
    for part in message.walk() if message.is_multipart() else [message]:
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        body = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(part.get_payload())
        out.append((part.get_content_type(), body))
    return out


def _read_text(text: str, found: _Found) -> None:
    parts = mime_parts(text)
    if parts is not None:
        for content_type, body in parts:
            if content_type == NODEADM_CONTENT_TYPE:
                _read_yaml_docs(_yaml_docs(body), found)
            else:
                _read_text(body, found)
        return
    head = text.lstrip()[:200].lower()
    if head.startswith("#!") or "bootstrap.sh" in head:
        before = len(found.flags)
        _read_shell(text, found)
        registers = any(a.partition("=")[0] in (REGISTER_WITH_TAINTS_FLAG, NODE_LABELS_FLAG) for a in found.flags[before:])
        if "/etc/eks/bootstrap.sh" in text:
            found.formats.append("al2")
        elif "kubeadm join" in text:
            found.formats.append("kubeadm")
        else:  # a script that starts the kubelet with registration flags, or any other script
            found.formats.append("kubelet" if registers else "shell")
        return
    import tomllib  # TOML user data (Bottlerocket) only

    try:
        settings = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        settings = None
    if isinstance(settings, Mapping) and "settings" in settings:
        _read_bottlerocket(settings, found)
        return
    try:
        if _read_yaml_docs(list(_yaml_docs(text)), found):
            return
    except TagValueError:
        raise  # YAML, written wrong: said, not read as a script
    except yaml.YAMLError:
        pass
    if "--" in text:
        found.formats.append("kubelet")
        _read_shell(text, found)


def _found(user_data: str | bytes | None) -> _Found:
    """What ``user_data`` registers; callers only read the result."""
    if not user_data:
        return _Found()
    # Read once per distinct (decoded) text: the plan and every policy read the same launch
    # templates again.
    text = decode_user_data(user_data)
    return found_in_text(text)


def found_in_text(text: str) -> _Found:
    """:func:`_found` of decoded user data: kept in :func:`_found_in_text` up to :data:`_MEMO_TEXT_CHARS`, read
    each time beyond (every reader of decoded text goes through here, so the memo's bound holds)."""
    return _found_in_text(text) if len(text) <= _MEMO_TEXT_CHARS else _read_found(text)


#: Longest text :func:`_found_in_text` keeps (EC2 user data is 16 KB; longer text, e.g. gzip expanded, is
#: read each time), so that its :data:`_MEMO_TEXTS` entries hold at most about 256 MiB.
_MEMO_TEXT_CHARS = 1 << 16
#: Texts :func:`_found_in_text` keeps: more than a plan's distinct user data, which the plan and then each
#: policy read in turn (a memo smaller than that drops every text before its next read).
_MEMO_TEXTS = 4096


@functools.lru_cache(maxsize=_MEMO_TEXTS)
def _found_in_text(text: str) -> _Found:
    """:func:`_found` of decoded user data (a pure function of the text; a read that raises, e.g.
    ``TaintError``, is not kept and raises again)."""
    return _read_found(text)


def _read_found(text: str) -> _Found:
    """:func:`_found_in_text`, not kept."""
    if len(text) > MAX_USER_DATA_CHARS:
        raise UserDataError(f"user data of more than {MAX_USER_DATA_CHARS} characters (decoded) is not read; EC2 "
                            "takes 16 KB of user data")
    found = _Found()
    try:
        _read_text(text, found)
    except TagValueError as err:
        raise UserDataError(f"a YAML part of the user data {err.problem}") from None
    except yaml.YAMLError as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise UserDataError(f"a YAML part of the user data does not parse ({first})") from None
    except (AttributeError, TypeError, KeyError, IndexError) as err:
        raise UserDataError(f"a part of the user data has a field of the wrong shape ({type(err).__name__}: "
                            f"{str(err)[:120]})") from None
    except RecursionError:
        raise UserDataError("the user data nests MIME parts too deeply to read") from None
    return found


def read_registration(user_data: str | bytes | None) -> Registration:
    """The taints and labels a node registers with, read from its bootstrap in any format here.

    ``user_data`` is the text (or its base64, as ``LaunchTemplate.userData`` holds it; gzip
    is undone too) of: MIME multi-part user data (nodeadm ``NodeConfig`` parts merged in
    order, shell-script parts scanned), Bottlerocket TOML, a shell script (``bootstrap.sh
    --kubelet-extra-args``, ``KUBELET_EXTRA_ARGS=``, ``kubelet ...``), YAML with a
    ``NodeConfig``, ``JoinConfiguration`` (v1beta4 list or v1beta3 map ``kubeletExtraArgs``) or
    ``KubeletConfiguration``, or a line of kubelet flags.

    Kubelet precedence is applied: a ``--register-with-taints`` flag (the last one) replaces
    config-file taints; repeated ``--node-labels`` merge. Text that registers nothing (or is
    not a bootstrap at all) gives an empty :class:`Registration`.

    Raises:
        TaintError: a taint that does not parse (e.g. the EKS effect spelling, no effect) or
            a duplicate key and effect.
        UserDataError: user data that cannot be read (:class:`UserDataError`).
        ValueError: a ``--node-labels`` entry without ``=``, or invalid label syntax.
    """
    return _found(user_data).registration()


def registers_taints_by_flag(user_data: str | bytes | None) -> bool:
    """Whether ``user_data`` passes the kubelet a ``--register-with-taints`` flag (in any format read here).

    Such a flag overrides ``registerWithTaints`` of the kubelet's config file (kubelet flag reference:
    "flags override the configuration file"), so taints another party writes into that file are lost.

    Raises:
        TaintError: as :func:`read_registration`.
        UserDataError: as :func:`read_registration`.
    """
    return any(a.partition("=")[0] == REGISTER_WITH_TAINTS_FLAG for a in _found(user_data).flags)


def read_registration_taints(user_data: str | bytes | None) -> list[Taint]:
    """The taints ``user_data`` registers the node with (sorted); see :func:`read_registration`.

    Raises:
        TaintError: as :func:`read_registration`.
        ValueError: as :func:`read_registration`.
    """
    return list(read_registration(user_data).taints)


def read_registration_labels(user_data: str | bytes | None) -> dict[str, str]:
    """The labels ``user_data`` registers the node with (sorted by key); see :func:`read_registration`.

    Raises:
        TaintError: as :func:`read_registration`.
        ValueError: as :func:`read_registration`.
    """
    return dict(read_registration(user_data).labels)


def detect_format(user_data: str | bytes | None) -> str | None:
    """The bootstrap format of ``user_data``: ``al2023``, ``bottlerocket``, ``al2``, ``kubeadm``,
    ``kubelet``, ``shell`` (only scripts that register nothing), or None for anything else.

    In MIME user data the first part in a bootstrap format decides (a plain script part beside a
    ``NodeConfig`` part does not make it ``shell``).

    Raises:
        TaintError: as :func:`read_registration` (the reader runs to find the format).
    """
    formats = _found(user_data).formats
    return next((f for f in formats if f != "shell"), formats[0] if formats else None)


