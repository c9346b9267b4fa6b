"""A parsing worker process (:mod:`deepread.corpus.parse_ahead`):
``python -m deepread.corpus.parse_worker MODULE:FUNCTION LIFELINE SYS_PATH``.

It readies every reader first — the format modules, unstructured (imported quietly, its
spaCy pipeline plugged in) and the partitioners, ~3–6 s of imports and set-up it would
otherwise pay at its first file, while the ingest loads its model meanwhile — then reads
paths (pickled) from its stdin and writes ``(True, parse, seconds)`` or ``(False,
ParseError, seconds)`` — ``seconds`` the CPU time the parse took — pickled, to the
stdout it was started with; anything a library prints goes to stderr
instead, so it cannot break that stream. It ends at the end of its stdin, and at once
when the ingest that started it ends: a thread waits on the ``LIFELINE`` pipe, whose
write end only the ingest holds. Ctrl-C is the ingest's to handle, not the worker's.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import threading
import time
from importlib import import_module
from pathlib import Path

from deepread.corpus.files import failure_reason
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
        raise ParseError(path, failure_reason(exc)) from None


def _ready() -> None:
    from deepread.corpus.parsing import docx, html, markdown, text  # noqa: F401
    from deepread.corpus.parsing.pdf import reader  # noqa: F401
    from deepread.corpus.parsing.unstructured_setup import _PARTITIONERS, partitioner

    for kind in _PARTITIONERS:
        partitioner(kind)


def _watch(lifeline: int) -> None:
    """Exit once the ingest is gone (its end of the pipe closes: the read returns)."""
    os.read(lifeline, 1)
    os._exit(1)


def main(argv: list[str]) -> int:
    function, lifeline, paths = argv[0], int(argv[1]), json.loads(argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if lifeline >= 0:
        threading.Thread(target=_watch, args=(lifeline,), daemon=True).start()
    sys.path[:0] = [p for p in paths if p not in sys.path]  # (a test's own function)
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what a library prints goes to stderr, not into the answers
    sys.stdout = sys.stderr
    module, name = function.split(":")
    parse = getattr(import_module(module), name)
    _ready()
    requests = sys.stdin.buffer
    while True:
        try:
            path = pickle.load(requests)
        except EOFError:
            return 0
        started = time.process_time()
        try:
            answer: tuple[bool, object] = (True, parse(path))
        except ParseError as exc:
            answer = (False, exc)
        except Exception as exc:  # (a custom function's failure) that file's failure
            answer = (False, ParseError(path, f"{type(exc).__name__}: {exc}"))
        seconds = time.process_time() - started
        pickle.dump((*answer, seconds), answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
