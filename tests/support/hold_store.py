"""A process that holds an embedded collection: ``python hold_store.py STORE COLLECTION``.

It opens the collection (the embedded engine's lock), says ``held`` on stdout, answers
other processes' calls on it (stores/relay.py) and lets go when a line arrives on its
stdin — what a test of a second process beside a holder needs, without a model or a
chat. :func:`stopped_holder` stops it too: a holder that answers nobody.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import deepread


@contextmanager
def stopped_holder(store: Path, collection: str = "default") -> Iterator[int]:
    """A process holding ``collection`` and then stopped (SIGSTOP, as Ctrl-Z stops a
    chat): it keeps the engine lock and answers nobody. Yields its pid; resumed and
    ended after."""
    # (here, not at the top: run as a script, this file has no ``support`` to import)
    from support.processes import Running, environment

    holder = Running([sys.executable, __file__, str(store), collection], environment())
    try:
        assert holder.line("out") == "held"
        os.kill(holder.process.pid, signal.SIGSTOP)
        yield holder.process.pid
    finally:
        os.kill(holder.process.pid, signal.SIGCONT)
        holder.kill()


if __name__ == "__main__":
    store, collection = sys.argv[1], sys.argv[2]
    with deepread.Index.open(store=store, collection=collection) as index:
        index.documents()
        print("held", flush=True)
        sys.stdin.readline()
    print("released", flush=True)
