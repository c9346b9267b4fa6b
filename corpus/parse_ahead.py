"""Files parsed ahead of the ingest that embeds and stores them, in order.

Parsing is Python-bound; embedding runs in onnxruntime's own threads. With one worker, a
background thread parses ahead while the caller embeds and writes (the GIL keeps the
two from truly overlapping). With ``workers`` > 1, that many worker *processes* parse
files side by side, each on its own core, while the caller's process embeds and writes —
always in the order the files were given, so doc_ids and progress events come out as
with one worker.

Workers start from a clean interpreter (``forkserver``, where the system has it, with the
readers imported and readied once in the server, :mod:`deepread.corpus.parse_worker`;
else ``spawn``): forking a process that runs the embedding model's threads and the
store's engine is not safe. The caller's ``__main__`` is not imported in workers.

A worker that dies (a crash inside a parsing library, the out-of-memory killer) breaks
its pool: the pool is started again, the files it still owed are parsed again, and the
file it was parsing is tried once more — dying twice, it is that file's failure, never
the run's.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path

from deepread.corpus.parsing import ParseError, Structured

#: Files parsed ahead of the one being embedded, per worker (bounds parsed text in memory).
AHEAD_PER_WORKER = 2
#: Files parsed ahead with a single (thread) worker.
PARSE_AHEAD = 4


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def parse_in_worker(path: Path) -> Structured:
    """The parse a worker runs (:func:`deepread.corpus.parse_worker.parse_in_worker`);
    imported there, never here, where importing it would ready every reader."""
    from deepread.corpus.parse_worker import parse_in_worker as parse

    return parse(path)


@contextmanager
def _main_not_reimported() -> Iterator[None]:
    """Start workers without the caller's ``__main__``: a worker imports the main module
    of the process that starts it, so a script without the ``if __name__ ==
    "__main__"`` guard would run again in each (and start workers of its own). Workers
    need only deepread's module-level functions, which they import by name."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {k: main.__dict__[k] for k in ("__spec__", "__file__") if k in main.__dict__}
    main.__dict__["__spec__"] = None
    main.__dict__.pop("__file__", None)
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


def _start_worker() -> None:
    """Workers leave Ctrl-C to the ingest's process, which stops them, and end when it
    ends, however it ends: a worker waits on its task queue, whose pipe it holds both
    ends of, so a killed ingest would otherwise leave its workers (and the forkserver,
    and any pipe of the ingest they inherited, such as its stderr) alive for ever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        def watch() -> None:
            multiprocessing.connection.wait([parent.sentinel])  # readable once it is gone
            os._exit(1)

        threading.Thread(target=watch, name="deepread-parent-watch", daemon=True).start()


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["deepread.corpus.parse_worker"])
        return context
    return multiprocessing.get_context("spawn")


class ParseAhead:
    """``take()`` returns the next file's parse (or raises its failure), in the order of
    ``paths``; up to a few files are being parsed ahead meanwhile. ``parse`` runs in the
    thread; ``worker`` (a module-level function: it is sent by name) in the processes."""

    def __init__(self, paths: list[Path], parse: Callable[[Path], Structured],
                 workers: int = 1,
                 worker: Callable[[Path], Structured] = parse_in_worker) -> None:
        self._paths = paths
        self._processes = min(workers, len(paths)) > 1
        self._parse = worker if self._processes else parse
        self._workers = min(workers, len(paths))
        self._ahead = AHEAD_PER_WORKER * self._workers if self._processes else PARSE_AHEAD
        self._pool = self._start()
        self._pending: deque[tuple[Path, Future[Structured]]] = deque()
        self._queued = 0
        self._fill()

    def _start(self) -> Executor:
        if self._processes:
            return ProcessPoolExecutor(self._workers, mp_context=_context(),
                                       initializer=_start_worker)
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepread-parse")

    def _submit(self, path: Path) -> Future[Structured]:
        with _main_not_reimported():  # (workers start inside submit)
            return self._pool.submit(self._parse, path)

    def _fill(self) -> None:
        while self._queued < len(self._paths) and len(self._pending) < self._ahead:
            path = self._paths[self._queued]
            self._pending.append((path, self._submit(path)))
            self._queued += 1

    def ready(self) -> bool:
        """Whether the next file's parse is finished (``take`` would not wait)."""
        return bool(self._pending) and self._pending[0][1].done()

    def take(self) -> Structured:
        path, future = self._pending.popleft()
        self._fill()
        try:
            return future.result()
        except BrokenProcessPool:
            self._restart()
            try:
                return self._submit(path).result()
            except BrokenProcessPool:
                self._restart()
                raise ParseError(path, "its parser process died twice (a crash inside a "
                                       "parsing library, or out of memory)") from None

    def _restart(self) -> None:
        """A new pool, given again the files the broken one still owed."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._start()
        self._pending = deque((path, self._submit(path)) for path, _ in self._pending)

    def close(self, abort: bool = False) -> None:
        """Stop parsing; ``abort`` (the ingest failed or was interrupted): without
        waiting for the files being parsed — worker processes are terminated."""
        if not abort:
            self._pool.shutdown(wait=True, cancel_futures=True)
            return
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)  # (forgets its processes)
        for process in processes:
            process.terminate()  # they only parse: nothing of theirs is half-done

    def __enter__(self) -> ParseAhead:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(abort=kind is not None)
