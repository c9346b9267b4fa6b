"""What ``deepread ask`` loads in background threads while it imports and builds the graph.

Before the agent's first step can be shown, its first node needs tiktoken's o200k BPE
(the TOC's token budget: ~0.3-1 s to read, check and build) and, for a library whose
TOC does not fit the budget, the local embedding model (the documents the question
names are ranked: ~0.3-0.6 s). Both used to load one after the other, after LangGraph
and LangChain were imported (~1-2 s). Started in threads right after the store is open,
they load while the main thread imports: the ONNX session's creation runs outside the
interpreter's lock and overlaps the imports (measured: a Python thread beside it kept
~65% of its speed); tiktoken's BPE is parsed in Python and built under that lock
(~30%), so loading it beside the imports gains only where they wait on the disk.

Each load happens once per process (``deepread.text.tokens.encoding`` and
``Index.load_query_encoder`` make a thread that asks meanwhile wait for it). A load
that fails here is not reported here: nothing is kept of it, so the node that needs it
loads it again and its error ends the turn as any other would (``nodes/failure.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def _quietly(load: Callable[[], Any]) -> Callable[[], None]:
    """``load`` for a thread: its failure is left to the load the run itself makes."""

    def run() -> None:
        try:
            load()
        except Exception:  # raised again, where it is needed, by the same load (above)
            return

    return run


@contextmanager
def preloading(index: Any) -> Iterator[list[threading.Thread]]:
    """Load tiktoken's encoding and ``index``'s query encoder, each in a thread, while the
    block runs; the threads. Leaving the block waits for them: a run that ends first
    (a model that fails at its first call) must not leave the interpreter's exit to
    stop a thread inside the ONNX runtime's native code."""
    # Imported here (a few ms), not in the thread: the main thread is about to import
    # the graph, whose modules import this one.
    from deepread.text.tokens import encoding

    threads = [
        threading.Thread(target=_quietly(encoding), name="deepread-load-tokens", daemon=True),
        threading.Thread(
            target=_quietly(index.load_query_encoder), name="deepread-load-model", daemon=True
        ),
    ]
    for thread in threads:
        thread.start()
    try:
        yield threads
    finally:
        for thread in threads:
            thread.join()
