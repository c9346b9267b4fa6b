"""Ctrl-C and ``kill`` end a command with one line and the shell's exit code.

Python turns SIGINT into ``KeyboardInterrupt`` wherever the main thread happens to be
— often deep inside onnxruntime or the engine's bindings, whence a 25-line traceback —
and SIGTERM kills the process outright, skipping the store's flush. Here both become a
:class:`Interrupted` exception that the command line catches at the top: the store is
closed normally on the way out (a document is stored whole or not at all, so a re-run
finishes the job exactly) and one line is printed. Exit codes follow the shell's
128 + signal number: 130 for SIGINT, 143 for SIGTERM.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Interrupted(KeyboardInterrupt):
    """The user (SIGINT) or the system (SIGTERM) asked this process to stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _raise(signum: int, frame: FrameType | None) -> None:
    # The first signal raises; any further one while the run winds down (closing the
    # store) is ignored, so a second Ctrl-C cannot cut the clean-up short.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` inside the block (main thread
    only; elsewhere, as in a test's worker thread, nothing changes)."""
    try:
        previous = {s: signal.signal(s, _raise) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def as_interrupted(exc: KeyboardInterrupt) -> Interrupted:
    """A plain ``KeyboardInterrupt`` (raised before the handlers were in place) as SIGINT."""
    return exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT)
