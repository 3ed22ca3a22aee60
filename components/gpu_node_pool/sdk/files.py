"""Reading the user's input files: regular files only, bytes that are not UTF-8 replaced and said.

A values file (a chart's ``valueYamlFiles``, ``--policy-pack-config``) named by a path could be a
FIFO, a device or a directory: opening a FIFO for reading blocks until a writer comes, so the
plan would hang. :func:`read_input_text` opens without blocking (``O_NONBLOCK``), checks with
``fstat`` that what it opened is a regular file (the file opened, not the path looked at
before: no race) and only then reads. Pure stdlib.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["MAX_INPUT_BYTES", "FileTooLargeError", "NotRegularFileError", "read_input_text"]

#: Default largest input file read whole, in bytes (a values file or a config is kilobytes).
MAX_INPUT_BYTES = 64 << 20

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class NotRegularFileError(OSError):
    """The path names something other than a regular file; ``strerror`` says what it is."""


class FileTooLargeError(OSError):
    """The file is larger than the reader's bound; ``strerror`` says both sizes."""


def read_input_text(path: str | os.PathLike[str], max_bytes: int = MAX_INPUT_BYTES) -> tuple[str, str | None]:
    """The text of the regular file at ``path`` and, when it is not UTF-8, a note saying so.

    At most ``max_bytes`` bytes are read; a larger file is refused, not read.

    Returns ``(text, note)``: bytes that are not UTF-8 are decoded as U+FFFD (``errors="replace"``)
    and ``note`` names the first such byte and its offset; ``note`` is None for UTF-8 files.

    Raises:
        NotRegularFileError: ``path`` is a directory, FIFO, socket or device (``filename`` set).
        FileTooLargeError: it holds more than ``max_bytes`` bytes.
        OSError: it cannot be opened or read (missing, no permission).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise NotRegularFileError(errno.EINVAL, f"is {kind}, not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(errno.EFBIG, f"is larger than {max_bytes} bytes, the most read", str(path))
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        note = (f"{Path(path)} is not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); "
                "such bytes were read as U+FFFD")
        return data.decode("utf-8", errors="replace"), note
