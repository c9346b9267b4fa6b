"""What runs in a parsing worker process (:mod:`deepread.corpus.parse_ahead`).

Importing this module readies every reader: the format modules, unstructured (imported
quietly, its spaCy pipeline plugged in) and the partitioners — ~3–6 s of imports and
set-up that a worker would otherwise pay at its first file. The ``forkserver`` imports it
once, so each worker forked from it starts warm. The ingest's own process never imports
it: it parses in a thread there, readying readers only as files need them.
"""

from __future__ import annotations

from pathlib import Path

from deepread.corpus.parsing import ParseError, Structured, parse_file


def parse_in_worker(path: Path) -> Structured:
    """``parse_file`` in a worker. Any failure comes back as a :class:`ParseError` whose
    reason is the line the ingest would have reported for it: a library's own exception
    type may not survive the trip between processes."""
    try:
        return parse_file(path)
    except ParseError:
        raise
    except Exception as exc:  # reported as that file's failure by the ingest
        from deepread.corpus.ingest import failure_reason

        raise ParseError(path, failure_reason(exc)) from None


def _ready() -> None:
    from deepread.corpus.parsing import docx, html, markdown, text  # noqa: F401
    from deepread.corpus.parsing.offline import _PARTITIONERS, partitioner
    from deepread.corpus.parsing.pdf import reader  # noqa: F401

    for kind in _PARTITIONERS:
        partitioner(kind)


_ready()
