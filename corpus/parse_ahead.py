"""Files parsed ahead of the ingest that embeds and stores them, in order.

Parsing is Python-bound; embedding runs in onnxruntime's own threads. With one worker, a
background thread parses ahead while the caller embeds and writes (the GIL keeps the
two from truly overlapping). With ``workers`` > 1, that many worker *processes* parse
files side by side, each on its own core, while the caller's process embeds and writes —
always in the order the files were given, so doc_ids and progress events come out as
with one worker. Each parse comes with the CPU seconds it took where it ran
(:attr:`ParseAhead.seconds`): what the ingest's time left weighs the parsing still to do
by (:mod:`deepread.corpus.ingest_pace`) — CPU, not wall, time, since the parsers share
the cores with the embedding model until the run's table is taught, and not after.

A worker is a plain child process (``python -m deepread.corpus.parse_worker``) that reads
paths from its stdin and writes each parse, pickled, to its stdout; nothing of the
ingest's process is shared with it or run again in it — no fork of a process that runs
the embedding model's threads and the store's engine, no import of the caller's
``__main__``, no multiprocessing server or semaphore left behind. Each worker also holds
the read end of a *lifeline* pipe whose write end only the ingest holds: when the ingest
ends, however it ends (kill -9 included), that read returns and the worker exits, so no
worker outlives its ingest or keeps its stderr open.

A worker that dies (a crash inside a parsing library, the out-of-memory killer) is
replaced; the file it was parsing is tried once more — dying twice, it is that file's
failure, never the run's.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO

from deepread.corpus.parsing import ParseError, Structured

#: Files parsed ahead of the one being embedded, per worker (bounds parsed text in memory).
AHEAD_PER_WORKER = 2
#: Files parsed ahead with a single (thread) worker.
PARSE_AHEAD = 4
#: What a worker runs on each path: ``module:function`` (corpus/parse_worker.py).
PARSE_IN_WORKER = "deepread.corpus.parse_worker:parse_in_worker"

#: A parse and the CPU seconds it took.
Parsed = tuple[Structured, float]


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


#: Bytes of files below which one thread parses them all: a worker process readies every
#: reader before its first file (~3-6 s of imports, more on a busy machine), which a few
#: small files never repay — two small Markdown files took 10.6 s with a worker per
#: core, the bar standing still meanwhile.
WORKER_BYTES = 1 << 20


def workers_for(files: Iterable[Path], cores: int | None = None) -> int:
    """Parsing processes worth starting for ``files``: one per core (``cores``) when
    they hold :data:`WORKER_BYTES` or more in all, else 1 (a thread; no process)."""
    total = 0
    for path in files:
        try:
            total += path.stat().st_size
        except OSError:  # reported as that file's failure by the ingest
            continue
        if total >= WORKER_BYTES:
            return cores if cores is not None else default_workers()
    return 1


class _WorkerDied(Exception):
    """The worker process parsing a file ended without answering."""


class _Worker:
    """One parsing process, and a thread that reads its answers."""

    def __init__(self, function: str, on_idle: Callable[[_Worker], None]) -> None:
        lifeline, self._lifeline = os.pipe() if os.name == "posix" else (-1, -1)
        command = [
            sys.executable,
            "-m",
            "deepread.corpus.parse_worker",
            function,
            str(lifeline),
            json.dumps([p for p in sys.path if p]),
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=(lifeline,) if lifeline >= 0 else (),
        )
        if lifeline >= 0:
            os.close(lifeline)
        self.dead = False
        self._task: tuple[Path, Future[Parsed]] | None = None
        self._on_idle = on_idle
        threading.Thread(target=self._read, name="deepread-parse-reader", daemon=True).start()

    def send(self, path: Path, future: Future[Parsed]) -> None:
        self._task = (path, future)
        stdin: IO[bytes] = self.process.stdin  # type: ignore[assignment]
        try:
            pickle.dump(path, stdin, protocol=pickle.HIGHEST_PROTOCOL)
            stdin.flush()
        except OSError:
            pass  # it died: its reader sees the end of its output and says so

    def _read(self) -> None:
        stdout: IO[bytes] = self.process.stdout  # type: ignore[assignment]
        while True:
            try:
                ok, value, seconds = pickle.load(stdout)
            except (EOFError, OSError, pickle.UnpicklingError):
                self.dead = True
                task, self._task = self._task, None
                if task is not None:
                    task[1].set_exception(_WorkerDied())
                self._on_idle(self)
                return
            task, self._task = self._task, None
            if task is not None:
                if ok:
                    task[1].set_result((value, seconds))
                else:
                    task[1].set_exception(value)
            self._on_idle(self)

    def stop(self, kill: bool) -> None:
        """No more paths; ``kill``: without finishing the one being parsed."""
        for stream in (self.process.stdin,):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self._lifeline >= 0:
            os.close(self._lifeline)
            self._lifeline = -1
        if kill:
            self.process.kill()
        try:
            self.process.wait(timeout=None if not kill else 10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class ParseAhead:
    """``take()`` returns the next file's parse (or raises its failure), in the order of
    ``paths``; up to a few files are being parsed ahead meanwhile. ``parse`` runs in the
    thread; ``worker`` (``module:function``, imported by the worker) in the processes."""

    def __init__(
        self,
        paths: list[Path],
        parse: Callable[[Path], Structured],
        workers: int = 1,
        worker: str = PARSE_IN_WORKER,
    ) -> None:
        self._paths = paths
        self._count = min(workers, len(paths))
        self._function = worker
        self._lock = threading.Lock()
        self._closing = False
        self._waiting: deque[tuple[Path, Future[Parsed]]] = deque()  # not yet sent
        self._pending: deque[tuple[Path, Future[Parsed]]] = deque()  # in order
        self._queued = 0
        self._thread: ThreadPoolExecutor | None = None
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        if self._count > 1:
            self._ahead = AHEAD_PER_WORKER * self._count
            for _ in range(self._count):
                self._add_worker()
        else:
            self._ahead = PARSE_AHEAD
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepread-parse")
            self._parse = parse
        #: CPU seconds the parse :meth:`take` returned last took (0.0 before any).
        self.seconds = 0.0
        self._fill()

    # -- workers --------------------------------------------------------------------

    def _add_worker(self) -> None:
        worker = _Worker(self._function, self._idle_again)
        self._workers.append(worker)
        self._idle.append(worker)

    def _idle_again(self, worker: _Worker) -> None:
        """Called by a worker's reader when it has answered (or died)."""
        with self._lock:
            if self._closing:
                return
            if worker.dead:
                self._workers.remove(worker)
                self._add_worker()  # a fresh one in its place
            else:
                self._idle.append(worker)
        self._dispatch()

    def _dispatch(self) -> None:
        with self._lock:
            while self._waiting and self._idle and not self._closing:
                path, future = self._waiting.popleft()
                self._idle.pop().send(path, future)

    def _timed(self, path: Path) -> Parsed:
        """The thread's parse of ``path``, and the CPU seconds of this thread it took."""
        started = time.thread_time()
        structured = self._parse(path)
        return structured, time.thread_time() - started

    def _submit(self, path: Path, first: bool = False) -> Future[Parsed]:
        if self._thread is not None:
            return self._thread.submit(self._timed, path)
        future: Future[Parsed] = Future()
        with self._lock:
            if first:
                self._waiting.appendleft((path, future))
            else:
                self._waiting.append((path, future))
        self._dispatch()
        return future

    # -- in order -------------------------------------------------------------------

    def _fill(self) -> None:
        while self._queued < len(self._paths) and len(self._pending) < self._ahead:
            path = self._paths[self._queued]
            self._pending.append((path, self._submit(path)))
            self._queued += 1

    def ready(self) -> bool:
        """Whether the next file's parse is finished (``take`` would not wait)."""
        return bool(self._pending) and self._pending[0][1].done()

    def take(self) -> Structured:
        """The next file's parse (waiting for it); its CPU seconds in :attr:`seconds`."""
        path, future = self._pending.popleft()
        self._fill()
        try:
            structured, self.seconds = future.result()
            return structured
        except _WorkerDied:
            try:  # once more, first in line
                structured, self.seconds = self._submit(path, first=True).result()
                return structured
            except _WorkerDied:
                raise ParseError(
                    path,
                    "its parser process died twice (a crash inside a "
                    "parsing library, or out of memory)",
                ) from None

    def close(self, abort: bool = False) -> None:
        """Stop parsing; ``abort`` (the ingest failed or was interrupted): without
        waiting for the files being parsed."""
        if self._thread is not None:
            self._thread.shutdown(wait=not abort, cancel_futures=True)
            return
        with self._lock:
            self._closing = True
            workers = list(self._workers)
        for worker in workers:
            worker.stop(kill=abort)

    def __enter__(self) -> ParseAhead:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(abort=kind is not None)
