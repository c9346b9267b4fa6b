"""What kind of file a path is, asked of ``stat`` before anything opens it.

Opening a named pipe blocks until some other process writes to it (an ingest of a folder
holding ``mkfifo notes.txt`` hung for ever), reading a device such as ``/dev/zero`` never
ends, and a socket cannot be opened at all. Only regular files are documents, so every
path is checked with ``os.stat`` (which follows symlinks, as reading would) first.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def irregular_reason(path: Path) -> str | None:
    """Why ``path`` is not read as a document (pipe, socket, device…), or None.

    Raises ``OSError`` when it cannot be stat-ed (missing, permission denied).
    """
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"{kind}, not a regular file; skipped without opening it"
