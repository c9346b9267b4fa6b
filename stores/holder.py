"""Which process holds an embedded collection: a note beside it, for the others.

The embedded engine lets one process at a time open a collection (:mod:`deepread.stores.
edge`); the others send their calls to it (:mod:`deepread.stores.relay`). The holder
writes a note — ``collections/.NAME.holder``: its pid, its command (``deepread chat``,
``langgraph dev``) and the address it answers on — right after it opens the collection
and starts answering, and removes it before it lets go. The others read the note to
reach the holder, and to say whom they wait for when it cannot answer ("held by
deepread chat (pid N)": "another process" does not tell a person which terminal to look
at). The note only informs: the engine lock decides who holds the collection; a note
whose process is gone (killed) is ignored.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

_SUBCOMMAND = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")


@dataclass(frozen=True, slots=True)
class Holder:
    pid: int
    command: str
    #: Where the holder answers other processes' calls (None: it does not).
    relay: str | None = None

    def describe(self) -> str:
        return f"{self.command} (pid {self.pid})"


def note_path(collection: Path) -> Path:
    return collection.parent / f".{collection.name}.holder"


def this_command(argv: list[str] | None = None) -> str:
    """What a person would call this process: ``deepread chat``, ``langgraph dev``."""
    argv = sys.argv if argv is None else argv
    if not argv or not argv[0]:
        return "python"
    program = Path(argv[0])
    name = f"python -m {program.parent.name}" if program.name == "__main__.py" else program.name
    # its subcommand (``chat``, ``dev``), not a path or an option
    first = next((a for a in argv[1:2] if _SUBCOMMAND.fullmatch(a)), None)
    return f"{name} {first}" if first else name


def write_note(collection: Path, relay: str | None = None) -> None:
    """Say that this process holds ``collection`` and answers on ``relay`` (best effort:
    without a note the others cannot reach it, and wait for it to let go)."""
    note = note_path(collection)
    temporary = note.with_name(f"{note.name}.{os.getpid()}")
    try:
        temporary.write_text(
            json.dumps({"pid": os.getpid(), "command": this_command(), "relay": relay}),
            encoding="utf-8",
        )
        os.replace(temporary, note)  # whole or not at all, for a reader at any moment
    except OSError:
        temporary.unlink(missing_ok=True)  # a read-only folder: waiters say "another process"


def remove_note(collection: Path) -> None:
    """Take this process's note away (before letting go: the next holder writes its own)."""
    note = note_path(collection)
    holder = holder_of(collection, live_only=False)
    if holder is not None and holder.pid == os.getpid():
        note.unlink(missing_ok=True)


def holder_of(collection: Path, *, live_only: bool = True) -> Holder | None:
    """The process the note names, if there is a readable note (and, with ``live_only``,
    its process still runs)."""
    try:
        data = json.loads(note_path(collection).read_text(encoding="utf-8"))
        relay = data.get("relay") if isinstance(data, dict) else None
        holder = Holder(
            int(data["pid"]), str(data["command"]), relay if isinstance(relay, str) else None
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if live_only and not process_running(holder.pid):
        return None
    return holder


def process_running(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (in this pid namespace); on a
    system that cannot probe one without ending it, ``True``."""
    if pid <= 0:
        return False
    if os.name != "posix":  # Windows' os.kill ends the process: no probe there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True
