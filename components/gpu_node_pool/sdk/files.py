"""Reading the user's input files: regular files only, bytes that are not UTF-8 replaced and said.

Writing the one file a command was told to write (``--html``, ``schema --out``):
:func:`write_output_text` replaces only a file of the kind that command writes, so a slip such as
``--html stacks/Pulumi.prod.yaml`` cannot overwrite the stack file being read. A FIFO is written
only when a reader has it open (``--html >(gzip > page.html.gz)``): opening one without a reader
would block forever, so it is opened without blocking and refused (``ENXIO``) when nobody reads.

Every file a user names for reading (``--policy-pack-config``, ``validate --file``, ``audit --cluster-dump``,
``--kubeconfig``, a chart's ``valueYamlFiles``) is opened here, by :func:`open_input` (or
:func:`read_input_text`, :func:`check_input` on top of it). The path could name a FIFO, a device or a
directory: opening a FIFO for reading blocks until a writer comes, so the command would hang. It is
opened without blocking (``O_NONBLOCK``), ``fstat`` tells what was opened (the file opened, not the path
looked at before: no race), and anything but a regular file is refused with
:class:`NotRegularFileError`, whose message names the option, the path, what it is and the fix. Pure stdlib.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["MAX_INPUT_BYTES", "FileTooLargeError", "NotRegularFileError", "check_input", "html_page_head",
           "json_schema_head", "open_input", "read_input_text", "write_output_text"]

#: Default largest input file read whole, in bytes (a values file or a config is kilobytes).
MAX_INPUT_BYTES = 64 << 20

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class NotRegularFileError(OSError):
    """The path names something other than a regular file.

    ``filename`` is the path; ``strerror`` says what it is (``is a FIFO (named pipe), not a regular file``) and,
    when the reader gave one, the fix; :attr:`option` is the command-line option that named the path, or None.
    ``str()`` is the whole refusal, ``"<option> <path>: <strerror>"``.
    """

    def __init__(self, code: int, strerror: str, filename: str, option: str | None = None) -> None:
        super().__init__(code, strerror, filename)
        self.option = option

    def __str__(self) -> str:
        named = f"{self.option} " if self.option else ""
        return f"{named}{self.filename}: {self.strerror}"


class FileTooLargeError(OSError):
    """The file is larger than the reader's bound; ``strerror`` says both sizes."""


def open_input(path: str | os.PathLike[str], option: str | None = None, fix: str | None = None) -> BinaryIO:
    """The regular file at ``path``, open for reading bytes (blocking reads, as ``open(path, "rb")``).

    It is opened with ``O_NONBLOCK``, so that a FIFO nothing writes to is refused at once instead of waited
    on, and judged by ``fstat`` of the descriptor opened. ``option`` names the option that gave the path
    (``--policy-pack-config``) and ``fix`` the remedy (``give the path of a JSON file``), both for the refusal.

    Raises:
        NotRegularFileError: ``path`` is a directory, FIFO, socket or device (``filename``, ``option`` set;
            ``strerror``: ``is a FIFO (named pipe), not a regular file ...; <fix>``).
        OSError: it cannot be opened (missing, no permission).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:  # a socket cannot be opened at all (ENXIO): say what it is
        mode = _mode_of(path) if err.errno == errno.ENXIO else 0
        if stat.S_ISSOCK(mode):
            raise _not_regular(path, mode, option, fix) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode, option, fix)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _mode_of(path: str | os.PathLike[str]) -> int:
    """``st_mode`` of what ``path`` names, 0 when it cannot be looked at."""
    try:
        return os.stat(path).st_mode
    except OSError:
        return 0


def _not_regular(path: str | os.PathLike[str], mode: int, option: str | None, fix: str | None) -> NotRegularFileError:
    """The refusal of ``path``, of ``mode``: what it is, why a FIFO is not waited on, then ``fix``."""
    kind = next((name for test, name in _KINDS if test(mode)), "neither a file nor a directory")
    why = ": reading one waits until something writes to it, so nothing was read" if stat.S_ISFIFO(mode) else ""
    remedy = f"; {fix}" if fix else ""
    return NotRegularFileError(errno.EINVAL, f"is {kind}, not a regular file{why}{remedy}", str(path), option)


def check_input(path: str | os.PathLike[str], option: str | None = None, fix: str | None = None) -> None:
    """Refuse ``path`` now, as :func:`open_input` would, when it is not a regular file that can be opened: for a
    file another library reads by its path (a kubeconfig, a stack file) after this check. Raises as
    :func:`open_input`."""
    open_input(path, option, fix).close()


def read_input_text(path: str | os.PathLike[str], max_bytes: int = MAX_INPUT_BYTES, *, option: str | None = None,
                    fix: str | None = None) -> tuple[str, str | None]:
    """The text of the regular file at ``path`` (opened by :func:`open_input`, which ``option`` and ``fix`` are
    for) and, when it is not UTF-8, a note saying so.

    At most ``max_bytes`` bytes are read; a larger file is refused, not read.

    Returns ``(text, note)``: bytes that are not UTF-8 are decoded as U+FFFD (``errors="replace"``)
    and ``note`` names the first such byte and its offset; ``note`` is None for UTF-8 files.

    Raises:
        NotRegularFileError: ``path`` is a directory, FIFO, socket or device (``filename`` set).
        FileTooLargeError: it holds more than ``max_bytes`` bytes.
        OSError: it cannot be opened or read (missing, no permission).
    """
    with open_input(path, option, fix) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(errno.EFBIG, f"is larger than {max_bytes} bytes, the most read", str(path))
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        note = (f"{Path(path)} is not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); "
                "such bytes were read as U+FFFD")
        return data.decode("utf-8", errors="replace"), note


def html_page_head(head: str) -> bool:
    """The file starts as this package's HTML pages do (``<!DOCTYPE html>``)."""
    return head.lstrip().lower().startswith("<!doctype html>")


def json_schema_head(head: str) -> bool:
    """The file starts as ``gpupool schema`` writes it: a JSON object whose first key is ``$schema``."""
    return head.lstrip().startswith('{') and '"$schema"' in head[:200]


def write_output_text(path: str | os.PathLike[str], text: str, ours: Callable[[str], bool], what: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``, refusing to replace a file ``ours`` does not recognise.

    ``ours`` is given the first 4,096 characters of an existing file (e.g. :func:`html_page_head`);
    ``what`` names the kind for the message (``an HTML page``). Returns the path.

    Raises:
        FileExistsError: ``path`` is an existing file of another kind (``filename`` set; nothing written).
        NotRegularFileError: a FIFO nothing reads, or a socket (nothing written).
        OSError: it cannot be written (missing directory, a directory, no permission).
    """
    target = Path(path)
    if target.is_file():
        with open(target, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
        if not ours(head):
            raise FileExistsError(
                errno.EEXIST,
                f"exists and is not {what} this command writes; nothing was written (give a new path, or remove the file "
                "if it really is to be replaced)",
                str(target),
            )
    try:
        with os.fdopen(_open_for_writing(target), "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as err:  # a full disk reports no file name: give it the path, so no one blames stdout
        if err.filename is not None:
            raise
        raise type(err)(err.errno, err.strerror or str(err), str(target)) from None
    return target


def _open_for_writing(target: Path) -> int:
    """A descriptor open for writing ``target``: created or truncated; a FIFO only while a reader has it open.

    Raises:
        NotRegularFileError: a FIFO without a reader (``ENXIO``) or a socket (``EINVAL``).
        OSError: what ``open`` raises (a directory, no permission, a missing directory).
    """
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = 0
    if stat.S_ISSOCK(mode):
        raise NotRegularFileError(errno.EINVAL, "is a socket, not a file; nothing was written (give a file path)",
                                  str(target))
    if stat.S_ISFIFO(mode):
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as err:
            if err.errno != errno.ENXIO:
                raise
            raise NotRegularFileError(errno.ENXIO, "is a FIFO (named pipe) that nothing reads; nothing was written "
                                      "(start its reader first, or give a file path)", str(target)) from None
        os.set_blocking(fd, True)
        return fd
    return os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
