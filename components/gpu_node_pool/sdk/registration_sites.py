"""Where a program constructed each resource: the ``file:line:column`` a finding of ``gpupool check`` points at.

Pulumi's ``Resource.__init__`` calls ``pulumi.resource.register_resource`` synchronously, from inside
the program's own call (``aws.eks.NodeGroup("gpu", ...)``, or ``GpuNodePool(...)`` for its
children); the mock engine answers later, off that call stack. So while :func:`registration_sites`
is active, that function is wrapped: it notes the innermost frame of the call stack in a file under
the program's directory that is not :func:`installed_code` and
maps the resource's ``(type, name)`` to it. Columns are 1-based, from the frame's code positions
(Python 3.11+).

A program that builds resources in a helper function (``def agent(name): return DaemonSet(...)``) registers
them all from one line of the helper; each is then placed at the outermost enclosing call that no other resource
of that line passes through (the line that calls ``agent("fluent-bit")``), up to :data:`MAX_CALLERS` calls out.
Resources one call registers in a loop have no such call: they are placed where their calls first part (the
loop's line), or at the innermost line when they never do.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

__all__ = ["MAX_CALLERS", "installed_code", "registration_sites"]

#: How many enclosing calls out from the innermost program line a resource's site may be looked for.
MAX_CALLERS = 8

#: The folders installers put packages in (``sysconfig``'s ``purelib``/``platlib``: ``site-packages``, and
#: ``dist-packages`` on Debian's Python), https://docs.python.org/3/library/site.html.
_INSTALLED = frozenset({"site-packages", "dist-packages"})


def installed_code(filename: str | os.PathLike[str], project: str | os.PathLike[str]) -> bool:
    """Whether a frame's ``filename`` is installed code (a library, the Pulumi SDK) rather than the program's own,
    for a program in the directory ``project``. It is when, below ``project`` (or anywhere, for a file outside it):
    a folder of the path is ``site-packages`` or ``dist-packages``; or a folder between the file and ``project``
    is a virtualenv, holding ``pyvenv.cfg`` (https://docs.python.org/3/library/venv.html; Pulumi's Python
    templates put one, ``venv/``, in the project: ``runtime.options.virtualenv: venv`` in
    pulumi/templates ``python/Pulumi.yaml``); or the file is under this interpreter's ``sys.prefix``,
    ``sys.exec_prefix`` or ``sys.base_prefix`` while ``project`` is not. Both paths are resolved first
    (symlinks). ``<string>``-like names (no file) are not installed code."""
    name = os.fspath(filename)
    if name.startswith("<"):
        return False
    real = Path(os.path.realpath(name))
    home = Path(os.path.realpath(project))
    inside = real.is_relative_to(home)
    below = real.relative_to(home) if inside else real
    if any(part in _INSTALLED for part in below.parts[:-1]):
        return True
    if inside:
        folder = real.parent
        while folder != home and folder.is_relative_to(home):
            if (folder / "pyvenv.cfg").is_file():
                return True
            folder = folder.parent
    for prefix in {sys.prefix, sys.exec_prefix, sys.base_prefix}:
        root = Path(os.path.realpath(prefix))
        if real.is_relative_to(root) and not home.is_relative_to(root):
            return True
    return False


def _column(frame: FrameType) -> int:
    """The 1-based column of the instruction ``frame`` is at (1 when the code has no positions)."""
    try:
        positions = next(islice(frame.f_code.co_positions(), frame.f_lasti // 2, None))
    except (AttributeError, StopIteration):
        return 1
    return (positions[2] or 0) + 1


class Sites(dict[tuple[str, str], tuple[str, int, int]]):
    """``(type token, resource name) -> (absolute file, line, column)``; :attr:`repeats` holds, for a name
    registered twice (which the engine refuses), the sites ``(first, second)`` of its two registrations: each its
    outermost call that the other does not pass through (the lines that make them), else its innermost line."""

    def __init__(self) -> None:
        super().__init__()
        self.repeats: dict[tuple[str, str], tuple[tuple[str, int, int], tuple[str, int, int]]] = {}


@contextmanager
def registration_sites(program_dir: Path) -> Iterator[Sites]:
    """Yield a :class:`Sites` filled, when the block ends (also by an exception), with ``(type token, resource
    name) -> (absolute file, line, column)`` for every resource constructed from a file under ``program_dir``."""
    import pulumi.resource as pulumi_resource

    root = os.path.realpath(program_dir) + os.sep
    sites = Sites()
    #: The program's frames of each registration, innermost first (at most 1 + MAX_CALLERS).
    chains: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    again: dict[tuple[str, str], list[tuple[str, int, int]]] = {}  # the second registration of a name
    under: dict[str, str | None] = {}
    #: Column per (code, instruction): a program's loop registers many resources from one call site, and
    #: finding an instruction's column walks its code's position table up to it.
    columns: dict[tuple[CodeType, int], int] = {}
    original = pulumi_resource.register_resource

    def in_program(filename: str) -> str | None:
        if filename not in under:
            real = os.path.realpath(filename)
            # "<string>" (code exec'd by a library, as pulumi_kubernetes' v1 yaml does) is no file: relative,
            # it would resolve under the working directory, which is the program's
            under[filename] = (real if not filename.startswith("<") and real.startswith(root)
                               and not installed_code(real, root) else None)
        return under[filename]

    def site(frame: FrameType, path: str) -> tuple[str, int, int]:
        at = (frame.f_code, frame.f_lasti)
        column = columns.get(at)
        if column is None:
            column = columns[at] = _column(frame)
        return (path, frame.f_lineno, column)

    def register(res, ty, name, *args, **kwargs):  # noqa: ANN001, ANN202 - Pulumi's own signature, passed through
        if (ty, name) not in again:
            chain: list[tuple[str, int, int]] = []
            frame = sys._getframe(1)
            while frame is not None and len(chain) <= MAX_CALLERS:
                path = in_program(frame.f_code.co_filename)
                if path is not None:
                    chain.append(site(frame, path))
                elif chain:  # left the program (its caller is gpupool or the Pulumi runtime)
                    break
                frame = frame.f_back
            if chain:
                (again if (ty, name) in chains else chains)[(ty, name)] = chain
        return original(res, ty, name, *args, **kwargs)

    pulumi_resource.register_resource = register
    try:
        yield sites
    finally:
        pulumi_resource.register_resource = original
        sites.update(_parting_sites(chains))
        for key, chain in again.items():
            sites.repeats[key] = (_own_site(chains[key], chain), _own_site(chain, chains[key]))


def _own_site(chain: list[tuple[str, int, int]], other: list[tuple[str, int, int]]) -> tuple[str, int, int]:
    """The outermost frame of ``chain`` that ``other`` does not pass through, else its innermost."""
    shared = set(other)
    own = [frame for frame in chain if frame not in shared]
    return own[-1] if own else chain[0]


def _parting_sites(chains: dict[Any, list[tuple[str, int, int]]]) -> dict[Any, tuple[str, int, int]]:
    """Each resource's site: its innermost program frame, or, when other resources share that frame, its outermost
    frame no other of them passes through, else the first frame outwards at which theirs differ (module docstring)."""
    by_line: dict[tuple[str, int, int], list[Any]] = {}
    for key, chain in chains.items():
        by_line.setdefault(chain[0], []).append(key)
    out: dict[Any, tuple[str, int, int]] = {}
    for members in by_line.values():
        if len(members) == 1:
            out[members[0]] = chains[members[0]][0]
            continue
        reach = min(len(chains[k]) for k in members)
        split = next((d for d in range(1, reach) if len({chains[k][d] for k in members}) > 1), 0)
        seen: dict[tuple[str, int, int], int] = {}  # frame -> how many of the members pass through it
        for key in members:
            for frame in set(chains[key]):
                seen[frame] = seen.get(frame, 0) + 1
        for key in members:
            own = [frame for frame in chains[key][1:] if seen[frame] == 1]
            out[key] = own[-1] if own else chains[key][min(split, len(chains[key]) - 1)]
    return out
