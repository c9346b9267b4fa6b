"""A process killed by a fatal signal (a bus error above all) says so in one line.

The embedded engine writes through memory-mapped files: where the filesystem cannot
back a page (a full disk), the kernel kills the process with SIGBUS, which no Python
code can catch. The store's free-space checks refuse such writes up front
(:mod:`deepread.stores.disk_space`); this is the last resort when something else fills
the disk between the check and the write.

:func:`report_fatal_signals` points :mod:`faulthandler` at a pipe and forks a small
sentinel process, before any thread exists, that only waits on that pipe. When the
command line ends normally the pipe closes and the sentinel leaves silently; when it
dies of SIGBUS (or SIGSEGV, SIGFPE, SIGILL, SIGABRT) faulthandler's report arrives, and
the sentinel prints one line — what happened and what to do — instead of a stack of
native frames or nothing at all. The process still ends by its signal (exit status
128 + signal), as it must: its state is unknown. Nothing stored is lost — a document is
stored whole or not at all, and the next open repairs a half-written one.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys

#: The first line faulthandler writes names the signal: "Fatal Python error: Bus error".
_HINTS = {
    "bus error": "most likely the disk holding the store is full; free some space and "
    "re-run (documents already stored are kept whole)",
}
_DEFAULT_HINT = "a fault in native code; re-run, and report it if it happens again"


def report_fatal_signals() -> None:
    """Install the sentinel (POSIX only; at most once per process; a no-op where stderr
    has no file descriptor or faulthandler is already on, e.g. under pytest)."""
    if not hasattr(os, "fork") or faulthandler.is_enabled():
        return
    try:
        stderr = sys.stderr.fileno()
    except (AttributeError, ValueError, OSError):
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the sentinel: never returns
        _sentinel(read_end, write_end, stderr)
    os.close(read_end)
    faulthandler.enable(file=write_end, all_threads=False)


def _sentinel(read_end: int, write_end: int, stderr: int) -> None:
    code = 0
    try:
        os.close(write_end)
        for fd in (0, 1):  # hold no pipe of the command's open (`deepread … | head`)
            if fd != stderr:
                os.close(fd)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGTSTP):
            signal.signal(signum, signal.SIG_IGN)  # Ctrl-C is the command's to handle
        report = b""
        while chunk := os.read(read_end, 4096):
            report = (report + chunk)[:4096]
        if report:
            first = report.splitlines()[0].decode("utf-8", "replace")
            what = first.split(":", 1)[-1].strip() or "fatal signal"
            hint = _HINTS.get(what.lower(), _DEFAULT_HINT)
            os.write(
                stderr, f"deepread: the process was killed by a {what.lower()}: {hint}\n".encode()
            )
    except BaseException:  # the sentinel must never outlive its duty
        code = 1
    finally:
        os._exit(code)
