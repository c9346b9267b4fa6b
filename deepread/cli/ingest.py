"""``deepread ingest PATH…``: parse, embed and store files and folders.

Progress, for people at a terminal, is one live line: files done of all, pages done of
all, pages/s and the time left (from pages: filings run from 20 to 400 pages;
:mod:`deepread.corpus.ingest_pace`), and the file at work with, inside a long PDF, the
page its embedding reached (``embedding report.pdf p. 45/112``): the embedding of a
300-page filing takes a minute, and a line that only counted files would sit still
through it. Files and pages done never go back; the time left is what the rest of the
run will cost as it has paid so far (:mod:`deepread.corpus.ingest_pace`). Without a
terminal each file's outcome is one line on stderr ending with the same figures, and a
line at least every :data:`HEARTBEAT_S` seconds says what is at work meanwhile — during a
build of the vector index too, which holds Python's lock for its whole run, up to ~30 s
(the embedded engine's build never lets go of it), so a small process of its own says
it; ``--json`` prints one document at the end and nothing else on stdout. The first line
names the store and collection written to.

Interrupted (Ctrl-C, SIGTERM: exit 130 / 143), the last line says how many files are in
— each whole — and that the same command again finishes the rest; killed outright
(``kill -9``), the same command again does too (``docs/reliability.md``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from deepread.cli.common import (
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    default_model,
    emit,
    fail,
    open_index,
    store_of,
)
from deepread.records.summary import document_summary
from deepread.terminal import say, terminal_text


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ingest", parents=[common], help="ingest files or folders")
    p.add_argument("paths", nargs="+", help="files (.pdf .docx .html .md .txt) or folders")
    p.add_argument(
        "--ocr-model",
        default=default_model("ocr_model"),
        help="vision model that reads PDF pages as images into Markdown (the "
        "paper's OCR route; default $DEEPREAD_OCR_MODEL, else the text layer)",
    )
    p.add_argument(
        "--vision-model",
        default=default_model("vision_model"),
        help="vision model that describes figures (default $DEEPREAD_VISION_MODEL)",
    )
    p.add_argument(
        "--describe-model",
        default=default_model("describe_model"),
        help="chat model that writes a one-line summary per section for the TOC "
        "(default $DEEPREAD_DESCRIBE_MODEL)",
    )
    p.add_argument(
        "--describe-max-sections",
        type=int,
        default=200,
        help="at most this many sections described per ingest (default 200)",
    )
    p.add_argument(
        "--describe-max-tokens",
        type=int,
        default=200_000,
        help="at most this many prompt tokens for section summaries per ingest (default 200000)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="parse and store unchanged files again too (after an upgrade whose "
        "parser or search terms changed; they keep their doc_ids)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes parsing files side by side while this one embeds and "
        "stores them in order (default: one per core when the files hold 1 MiB or "
        "more, else 1; 1: no extra process)",
    )
    p.add_argument(
        "--exact-vectors",
        action="store_true",
        help="embed every paragraph with the model (by default an ingest of more than "
        "20,000 paragraphs embeds the rest with a table the model taught on those, "
        "~100x faster)",
    )
    p.add_argument(
        "--nice",
        type=_niceness,
        default=NICE,
        metavar="N",
        help=f"run at this niceness at least, 0 to 19 (default {NICE}: a command, a chat or a "
        "server asked meanwhile gets the cores first; 0 keeps the ingest's priority)",
    )
    p.set_defaults(func=cmd_ingest)


#: The niceness an ingest runs at, at least: a long ingest is work in the background, and
#: on a machine of few cores a question asked beside it (``ask``, a ``chat``, a server's
#: run) would otherwise wait for the cores as long as it computes — ``ask`` 20.7 s beside
#: the 155-filing ingest against 9.6 s quiet (docs/benchmarks.md). Alone, an ingest at
#: niceness 10 runs as fast as at 0: only what else wants the cores goes first.
NICE = 10


def _niceness(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 19:
        raise argparse.ArgumentTypeError(f"a niceness is 0 to 19, not {value}")
    return value


def lower_priority(niceness: int) -> None:
    """Run this process — and what it starts: its parse workers, a build of the vector
    index beside the store — at ``niceness`` at least (never higher than it runs). Set
    before any thread of the ingest starts (Linux keeps a niceness per thread, and a new
    thread or process takes its parent's); only in the console script's own process — a
    program calling :func:`deepread.cli.main.main` keeps its priority, as it keeps it
    under ``Index.ingest``."""
    now = os.getpriority(os.PRIO_PROCESS, 0)
    if niceness > now:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)


#: Without a terminal, the longest a long step goes without a line: under the 10 s a log
#: reader is promised (to tell a working ingest from a hung one), the line's own
#: checks (every :data:`_CHECK_S`) and a loaded machine's delays included.
HEARTBEAT_S = 9.0
_CHECK_S = 0.25

#: The line a build's own process says every HEARTBEAT_S seconds until its stdin ends
#: (the build is done, or the ingest gone): ``argv`` the line, with ``{s}`` for the
#: seconds since the build began, and the interval.
_BUILD_TICKER = """
import sys, threading, time
line, every = sys.argv[1], float(sys.argv[2])
ended = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), ended.set()), daemon=True).start()
began = time.monotonic()
while not ended.wait(every):
    print(line.replace("{s}", str(round(time.monotonic() - began))), file=sys.stderr, flush=True)
"""


class BuildTicker:
    """A line every :data:`HEARTBEAT_S` seconds while the vector index is built, said by
    a process of its own: the build holds this process's Python lock throughout, so no
    thread of it can say anything until the build is done."""

    def __init__(self, line: str) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-I", "-c", _BUILD_TICKER, line, str(HEARTBEAT_S)],
            stdin=subprocess.PIPE,
        )

    def stop(self) -> None:
        try:
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()


class IngestProgress:
    """The ``progress(event, path, done, total)`` callback of ``Index.ingest_report``:
    files done of all, pages done of all, pages/s and time left
    (:class:`~deepread.corpus.ingest_pace.Pace`) — on a terminal one live line that also
    names the file at work (and the page its embedding reached), without one a line per
    file on stderr ending with the same figures; with ``quiet`` (``--json``) nothing."""

    def __init__(self, collection: str, files: list[Path], *, quiet: bool) -> None:
        from tqdm import tqdm

        from deepread.corpus.ingest_pace import Pace

        self.collection = collection
        self.quiet = quiet
        self.counts = {"stored": 0, "skip": 0, "same": 0}
        self.pace = Pace(files)
        self.bar = tqdm(
            total=self.pace.files_total,
            unit="file",
            # files and pages done, the rate and time left from pages (not tqdm's own
            # files/s: filings run from 20 to 400 pages), the file at work
            bar_format="ingest {bar:12} {desc}",
            disable=quiet or not sys.stderr.isatty(),
            file=sys.stderr,
        )
        self._doing = ""  # what the live line says of the file at work
        self._lock = threading.Lock()  # page events come from the embedding loop
        self._said = time.monotonic()  # when a line was last printed without a terminal
        self._closed = threading.Event()
        self._ticker: BuildTicker | None = None  # while a build runs, without a terminal
        if not quiet and self.bar.disable:
            threading.Thread(target=self._heartbeat, name="deepread-progress", daemon=True).start()

    def __call__(self, event: str, path: Path, done: int, total: int) -> None:
        with self._lock:
            self._event(event, path, done, total)

    def _heartbeat(self) -> None:
        """Without a terminal: a line whenever :data:`HEARTBEAT_S` seconds passed without
        one — what is at work, and where the run stands."""
        while not self._closed.wait(_CHECK_S):
            with self._lock:
                if time.monotonic() - self._said < HEARTBEAT_S or not self._doing:
                    continue
                self._line(f"{'working':>7} {self._doing}  [{self.pace.summary()}]")

    def _line(self, text: str) -> None:
        print(terminal_text(text), file=sys.stderr, flush=True)
        self._said = time.monotonic()

    def _event(self, event: str, path: Path, done: int, total: int) -> None:
        name = terminal_text(path.name)
        self.pace.event(event, path, done, total)
        if event in self.counts:
            self.counts[event] += 1
        if event == "page":  # inside one document: done of total pages embedded
            self._doing = f"embedding {name} p. {done}/{total}"
        elif event == "embedding":  # the document whose embedding begins now
            self._doing = f"embedding {name}"
        elif event == "parsing" and not self._doing:
            # (the file awaited from the parsers; once embedding has begun, the line
            # names the file being embedded, not the next one parsed)
            self._doing = f"parsing {name}"
        elif event in ("stored", "failed", "skip", "same"):
            self._doing = f"{event} {name}"
        # any event after a build's start: it is over (the last line is still the one
        # before the build, or the ticker's: the heartbeat goes on from it)
        self._stop_ticker()
        if event == "optimize":
            say(f"building the vector index of collection {self.collection!r}…", err=True)
            if not self.quiet and self.bar.disable:
                self._ticker = BuildTicker(
                    f"{'working':>7} building the vector index ({{s}} s)  "
                    f"[{terminal_text(self.pace.summary())}]"
                )
        elif event == "teach":
            say(
                f"teaching a table from the model's vectors of {done:,} paragraphs: "
                "the rest are embedded with it where it matches the model "
                "(--exact-vectors: the model for all)…",
                err=True,
            )
        elif event == "untaught":
            say(
                f"the table did not match the model on {done:,} paragraphs held back "
                f"(cosine {total / 1000:.2f}): the model embeds the rest of this run",
                err=True,
            )
        if not self.bar.disable:
            self.bar.n = self.pace.files_done
            self.bar.set_description_str(f"{self.pace.summary()} · {self._doing}", refresh=True)
        elif not self.quiet and event in ("stored", "failed", "skip", "same"):
            # a line per file, for a log: its outcome, then where the whole run stands
            self._line(f"{event:>7} {path}  [{self.pace.summary()}]")

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def close(self) -> None:
        self._closed.set()
        self._stop_ticker()
        self.bar.close()


def interrupted_line(progress: IngestProgress, *, force: bool) -> str:
    """What an interrupted ingest says: what is in, and that the same command resumes.

    A document is in whole or not at all (``stores/writers.py``), so every file counted
    is in, whole (one whose commit the signal met may be in uncounted); the one at work
    is not, and the same command stores it and the rest, skipping those already in."""
    pace = progress.pace
    counts = progress.counts
    done = counts["stored"] + counts["skip"] + counts["same"]
    left = pace.files_total - done
    if force:
        # A plain re-run would call the files not yet done "unchanged" and keep
        # their earlier parse: only --force again finishes what was asked.
        return (
            f"interrupted; {done} of {pace.files_total} files stored again, the others "
            "keep their earlier parse; re-run with --force to continue"
        )
    return (
        f"interrupted; {done} of {pace.files_total} files stored "
        f"({pace.pages_in:,} of {pace.pages_total:,} pages), each whole; the same "
        f"command again stores the other {left} and skips those already in"
    )


def cmd_ingest(args: argparse.Namespace) -> int:
    from deepread.corpus.describe import DescribeBudget
    from deepread.corpus.files import expand_paths
    from deepread.interrupts import Interrupted

    if args.ends_process:  # the console script's own process, not a program calling main()
        lower_priority(args.nice)
    idx = open_index(args)
    # The files once, for the pages they weigh (progress) and the parsers worth starting.
    found, _ = expand_paths(args.paths)
    progress = IngestProgress(args.collection, found, quiet=args.json)
    where = f"collection {args.collection!r} of the store {store_of(args)}"
    if not args.json:
        say(f"ingesting {len(found)} file{'' if len(found) == 1 else 's'} into {where}", err=True)
    try:
        result = idx.ingest_report(
            args.paths,
            progress=progress,
            ocr_model=args.ocr_model,
            vision_model=args.vision_model,
            describe_model=args.describe_model,
            describe_budget=DescribeBudget(
                max_sections=args.describe_max_sections, max_tokens=args.describe_max_tokens
            ),
            force=args.force,
            # (None: one per core, if the files to parse are big enough to repay them)
            workers=args.workers,
            exact_vectors=args.exact_vectors,
        )
    # (A bad model name, ModelConfigError, is exit 2 by main's mapping: not imported here,
    # where it would load LangChain's chat models for every ingest.)
    except Interrupted as exc:
        progress.close()
        idx.close()  # a document is stored whole or not at all: a re-run is exact
        fail(interrupted_line(progress, force=args.force))
        return exc.exit_code
    finally:
        progress.close()
        idx.close()
    docs = result.documents + result.skipped
    if args.json:
        emit(
            {
                "documents": [
                    document_summary(d) | {"unchanged": d in result.skipped} for d in docs
                ],
                "duplicates": [
                    {"path": c.path, "doc_id": c.document.doc_id, "source": c.document.source}
                    for c in result.duplicates
                ],
                "failures": [{"path": f.path, "reason": f.reason} for f in result.failures],
                "unsupported": [str(p) for p in result.unsupported],
            }
        )
    else:
        for d in docs:
            state = "unchanged" if d in result.skipped else "stored"
            say(
                f"({d.doc_id}) {d.title} — {len(d.sections)} sections, {d.n_para} "
                f"paragraphs, {d.n_tok} tokens [{state}] {d.source}"
            )
        for c in result.duplicates:  # a copy: the stored document stays the original's
            say(f"{c.path} [same as doc {c.document.doc_id}: {c.document.source}] not stored")
        for f in result.failures:
            say(f"FAILED {f.path}: {f.reason}", err=True)
        for path in result.unsupported:
            say(f"skipped {path}: not a supported type", err=True)
        n = len(result.duplicates)
        copies = f"{n} {'copy' if n == 1 else 'copies'}, " if n else ""
        say(
            f"{len(result.documents)} stored, {len(result.skipped)} unchanged, {copies}"
            f"{len(result.failures)} failed ({where})",
            err=True,
        )
    if not docs and not result.failures and not result.duplicates:
        say("no supported files found", err=True)
        return EXIT_USAGE
    return EXIT_PARTIAL if result.failures else EXIT_OK
