"""Where a program constructed each resource: the ``file:line:column`` a finding of ``gpupool check`` points at.

Pulumi's ``Resource.__init__`` calls ``pulumi.resource.register_resource`` synchronously, from inside
the program's own call (``aws.eks.NodeGroup("gpu", ...)``, or ``GpuNodePool(...)`` for its
children); the mock engine answers later, off that call stack. So while :func:`registration_sites`
is active, that function is wrapped: it notes the innermost frame of the call stack in a file under
the program's directory (installed packages, ``site-packages``/``dist-packages``, excluded) and
maps the resource's ``(type, name)`` to it. Columns are 1-based, from the frame's code positions
(Python 3.11+).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from types import CodeType, FrameType

__all__ = ["registration_sites"]

_INSTALLED = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


def _column(frame: FrameType) -> int:
    """The 1-based column of the instruction ``frame`` is at (1 when the code has no positions)."""
    try:
        positions = next(islice(frame.f_code.co_positions(), frame.f_lasti // 2, None))
    except (AttributeError, StopIteration):
        return 1
    return (positions[2] or 0) + 1


@contextmanager
def registration_sites(program_dir: Path) -> Iterator[dict[tuple[str, str], tuple[str, int, int]]]:
    """Yield a dict filled, while the block runs, with ``(type token, resource name) -> (absolute file,
    line, column)`` for every resource constructed from a file under ``program_dir``."""
    import pulumi.resource as pulumi_resource

    root = os.path.realpath(program_dir) + os.sep
    sites: dict[tuple[str, str], tuple[str, int, int]] = {}
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
                               and not any(p in real for p in _INSTALLED) else None)
        return under[filename]

    def register(res, ty, name, *args, **kwargs):  # noqa: ANN001, ANN202 - Pulumi's own signature, passed through
        frame = sys._getframe(1)
        while frame is not None:
            path = in_program(frame.f_code.co_filename)
            if path is not None:
                if (ty, name) not in sites:
                    at = (frame.f_code, frame.f_lasti)
                    column = columns.get(at)
                    if column is None:
                        column = columns[at] = _column(frame)
                    sites[(ty, name)] = (path, frame.f_lineno, column)
                break
            frame = frame.f_back
        return original(res, ty, name, *args, **kwargs)

    pulumi_resource.register_resource = register
    try:
        yield sites
    finally:
        pulumi_resource.register_resource = original
