"""Safe reads of resource properties as CrossGuard hands them to a policy.

Policies see provider inputs in camelCase, wrapped by ``pulumi_policy``'s
``unknown_checking_proxy``: reading a value that is unknown at preview raises
``UnknownValueError``. Everything else may be missing, ``None`` or of the wrong type in a
program that is still being written; these helpers turn those into "absent" so that no
policy crashes, and let ``UnknownValueError`` through so that a policy that cannot decide
says so (the SDK reports it as an advisory "can't run policy ... during preview").

Proxy details that matter here (``pulumi_policy/proxy.py``): the proxies are
``collections.abc.Mapping`` / ``Sequence`` but not ``dict`` / ``list``; ``key in proxy`` and
``proxy.get(key)`` read the value and so raise on unknowns.

``UnknownValueError`` is ``pulumi_policy``'s own class, given lazily (this module's
``__getattr__``): the readers here work on plain dicts too, and ``gpupool audit``, which reads
only plain dicts, must not pay for importing ``pulumi_policy`` and ``pulumi`` (about 0.1 s).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pulumi_policy.proxy import UnknownValueError

__all__ = [
    "UnknownValueError", "dig", "mapping", "sequence", "items", "text", "number", "plain", "derived", "Undecided",
    "UNKNOWN_FIX", "fixes_of", "not_judged",
]

_MISSING = object()


def __getattr__(name: str) -> Any:
    """``UnknownValueError`` (``pulumi_policy.proxy``'s), imported on first use."""
    if name == "UnknownValueError":
        from pulumi_policy.proxy import UnknownValueError

        return UnknownValueError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Whether a type is a ``Mapping`` / a list-like ``Sequence`` (not ``str``/``bytes``), per type:
#: the ABC checks are the hottest calls when policies walk a large stack.
_MAPPING_TYPES: dict[type, bool] = {}
_SEQUENCE_TYPES: dict[type, bool] = {}
#: Per type, whether its objects may carry a ``derived`` cache (a property, or an attribute set on them).
_OFFERS_CACHE: dict[type, bool] = {}
_PLAIN_TYPES = frozenset((dict, list, tuple, str, bytes, int, float, bool, type(None)))
#: Per type, its ``plain_copy`` method (an object that makes its own plain copy), or None.
_PLAIN_COPY: dict[type, Any] = {}


def _is_mapping(value: Any) -> bool:
    kind = type(value)
    known = _MAPPING_TYPES.get(kind)
    if known is None:
        known = _MAPPING_TYPES[kind] = isinstance(value, Mapping)
    return known


def _is_sequence(value: Any) -> bool:
    kind = type(value)
    known = _SEQUENCE_TYPES.get(kind)
    if known is None:
        known = _SEQUENCE_TYPES[kind] = isinstance(value, Sequence) and not isinstance(value, (str, bytes))
    return known


def dig(obj: Any, *path: str | int, default: Any = None) -> Any:
    """The value at ``path`` inside nested mappings/sequences, or ``default`` when any step is
    missing, ``None`` or of the wrong type.

    Raises:
        UnknownValueError: a value on the path is unknown at preview.
    """
    cur = obj
    for key in path:
        if type(key) is str or not isinstance(key, int):  # a key of a mapping (str first: the common step)
            is_mapping = _MAPPING_TYPES.get(type(cur))
            if not (is_mapping or (is_mapping is None and _is_mapping(cur))):
                return default
            try:
                cur = cur[key]
            except KeyError:
                return default
        else:  # an index of a sequence
            if not _is_sequence(cur) or not -len(cur) <= key < len(cur):
                return default
            cur = cur[key]
        if cur is None:
            return default
    return cur


def derived(props: Any) -> dict[Any, Any] | None:
    """A cache for values computed from ``props`` (a workload read from it, its tolerations), or None.

    The in-process runner (:func:`gpu_node_pool.policies.evaluate`) hands every policy the same
    proxy per resource and offers such a cache on it (and one on the ``StackValidationArgs`` it
    gives every stack policy, for facts about the whole stack); the SDK's proxies (one per
    policy), its args and plain mappings have none, and the helpers then just compute.
    """
    offers = _OFFERS_CACHE.get(type(props))
    if offers is None:
        offers = _OFFERS_CACHE[type(props)] = type(props) not in _PLAIN_TYPES  # a plain dict or list never does
    if not offers:
        return None
    cache = getattr(props, "derived", None)
    return cache if isinstance(cache, dict) else None


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one (``None``, a string, a list...)."""
    return value if _is_mapping(value) else {}


def sequence(value: Any) -> Sequence[Any]:
    """``value`` if it is a list-like sequence (not a string), else an empty one."""
    return value if _is_sequence(value) else ()


def items(value: Any) -> Iterator[Any]:
    """Iterate a list-like value; nothing for anything else. Unknown items raise when reached."""
    seq = sequence(value)
    for i in range(len(seq)):
        yield seq[i]


def text(value: Any) -> str | None:
    """``value`` if it is a string, else None."""
    return value if isinstance(value, str) else None


def number(value: Any) -> int | float | None:
    """``value`` if it is an int or float (not a bool), else None. Preview sends numbers as floats."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def plain(value: Any) -> Any:
    """A plain ``dict``/``list`` copy of a (proxied) value, integral floats turned into ints.

    Raises:
        UnknownValueError: any value inside is unknown at preview.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    copy = _PLAIN_COPY.get(kind, _MISSING)
    if copy is _MISSING:
        copy = _PLAIN_COPY[kind] = getattr(kind, "plain_copy", None)
    if copy is not None:  # the policy runner's lazy proxies copy from the inputs they read
        try:
            return copy(value)  # an UnknownValueError (not a ValueError) propagates
        except ValueError:  # not JSON-like inside: the generic copy below
            pass
    if _is_mapping(value):
        return {k: plain(value[k]) for k in value}
    if _is_sequence(value):
        return [plain(value[i]) for i in range(len(value))]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: The fix of a value unknown at preview (what a policy's proxy raises when it reads one): the fix of an
#: ``UnknownValueError`` that carries none of its own (:func:`fixes_of`).
UNKNOWN_FIX = ("make the values known at preview (plain values, not outputs of resources created in the same run), "
               "or judge after apply")


def _fix(err: Any) -> str:
    """One item's fix: its ``fix``, :data:`UNKNOWN_FIX` when it has none (a value a proxy read as unknown)."""
    fix = getattr(err, "fix", None)
    return fix if isinstance(fix, str) and fix else UNKNOWN_FIX


def fixes_of(err: Any) -> list[str]:
    """The fixes an ``UnknownValueError`` carries, distinct, in the order of its items: those of every item of
    :meth:`Undecided.raise_if_any`'s error, else its own ``fix`` (:func:`not_judged`), else :data:`UNKNOWN_FIX`."""
    fixes = getattr(err, "fixes", None)
    return list(fixes) if isinstance(fixes, (list, tuple)) else [_fix(err)]


def not_judged(props: list[str], message: str, fix: str) -> Any:
    """An ``UnknownValueError`` at ``props`` whose message is ``message`` and whose fix is ``fix``: how
    a policy reports what it cannot judge so that the SDK (and the runner) turn it into an advisory "can't run
    policy" finding, and the plan lists it as not judged with ``fix``."""
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

    err = UnknownValueError(UNKNOWN_STRING_VALUE, list(props))
    err.message = message
    err.fix = fix
    return err


class Undecided:
    """What a stack policy could not decide because values are unknown at preview, or could not judge.

    A stack policy checks every resource it can, collects the unknowns and the not-judged items here, each
    with its fix, reports its violations, and then calls :meth:`raise_if_any`: the SDK turns the one
    ``UnknownValueError`` into an advisory "can't run policy ... during preview" diagnostic
    that lists every undecided resource, while the violations already reported stand; the in-process
    runner also keeps the fixes (:func:`fixes_of`) for the plan's not-judged list.
    """

    def __init__(self) -> None:
        self.items: list[tuple[str, UnknownValueError]] = []

    def add(self, what: str, err: UnknownValueError) -> None:
        """Record that ``what`` (e.g. ``DaemonSet logging/fluent-bit``) could not be decided; its fix is the one
        ``err`` carries (:func:`not_judged`), else :data:`UNKNOWN_FIX`."""
        self.items.append((what, err))

    def not_judged(self, what: str, reason: str, fix: str) -> None:
        """Record that ``what`` could not be judged for ``reason`` (a sentence starting "not judged: "),
        reported with the unknowns: never a silent pass, never a finding. ``fix``: what the user does so that
        it is judged (one sentence), which the plan's not-judged list shows with it."""
        from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

        err = UnknownValueError(UNKNOWN_STRING_VALUE, [])
        err.message = reason
        err.fix = fix
        self.items.append((what, err))

    def fixes(self) -> list[str]:
        """The distinct fixes of the items, in the order they first come."""
        out: list[str] = []
        for _, err in self.items:
            for fix in fixes_of(err):
                if fix not in out:
                    out.append(fix)
        return out

    def raise_if_any(self) -> None:
        """Raise one ``UnknownValueError`` naming every undecided item, if there are any; it carries the items'
        distinct fixes as ``fixes`` (:meth:`fixes`, read with :func:`fixes_of`)."""
        if not self.items:
            return
        from pulumi_policy.proxy import UnknownValueError  # only reached when a proxy raised one

        first = self.items[0][1]
        err = UnknownValueError(first.unknown_type_sentinel, list(first.props))
        err.message = "; ".join(f"{what}: {e.message}" for what, e in self.items)
        err.fixes = self.fixes()
        raise err
