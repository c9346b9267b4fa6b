"""The errors every floor raises or answers: a store that cannot be used, a request that
cannot be served as asked, a coordinate that does not exist, a write another process holds.

They live below the store and the corpus so that the parser, the nodes and the face name
them without importing the store: only the corpus' :class:`~deepread.corpus.index.Index`
reaches the engines.
"""

from __future__ import annotations


class StoreError(RuntimeError):
    """The store cannot be used (in use, unreachable, incompatible); message says why."""


class TransientStoreError(StoreError):
    """A store failure that may pass if the call is made again: a Qdrant server that
    answered 5xx, timed out or dropped the connection (the graph's nodes retry it)."""


class StoreBusy(StoreError):
    """An embedded store held by a process that does not answer (stopped, say) nor let
    go of it within the wait: it may pass, and the message names that process."""


class UsageError(ValueError):
    """A request that cannot be served as asked (an unknown name, a value out of range,
    an empty query): the caller's to fix; the message says what is allowed. A
    ``ValueError``, so callers that caught that still do; the command line maps this
    class, not every ``ValueError``, to exit code 2."""


class PlaceError(UsageError):
    """A cited passage that cannot be shown as asked: stored before places were kept,
    its source file gone or changed since ingest, a page the file does not have, a
    drawing past its bounds. The message says why and what to do; nothing was written."""


class CoordinateError(KeyError):
    """A document or section that does not exist; the message lists what does."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class WriteConflict(RuntimeError):
    """Another process is writing (or removing) this document right now; nothing of this
    write was stored. The failure of one file, never of a whole ingest."""
