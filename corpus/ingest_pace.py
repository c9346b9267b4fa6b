"""The pace of a long ingest: pages done of all, pages per second, and time left.

A library is ingested for tens of minutes (~340 filings, ~50,000 pages), and
its files vary from 20 to 400 pages, so files done say little about the time left: the
work is weighed in **pages**. A PDF weighs its page count (read from its page tree:
~1 ms a filing, 0.06 s for 60 filings of 8,105 pages here); a file without pages
(Markdown, HTML, text, Word) weighs one page per :data:`PAGE_BYTES` of it, at least one
— an estimate, good enough to share out the time left, never shown as a page number.

Pages done never go back: a file counts the pages its embedding has reached until it
is done (several files may be at work at once: an embedding call takes every document
already parsed), then all its pages. Files skipped as unchanged, or copies of stored
ones, cost nothing and count neither in the rate nor in the time left — a re-run after
an interruption estimates only what is missing.

The rate is this run's pages over the last :data:`WINDOW_S` seconds (over the whole run
before that). A rate alone does not tell the time left of a long ingest: it changes pace
once — after teaching its table (:mod:`deepread.corpus.taught_vectors`, the ``teach``
event) it embeds several times faster (the 155 filings: 6.3 pages/s for the first 45 %
of the run, ~45 after). So the time left is what the rest will cost, each part priced as
this run has paid for it (the pipeline's cost events, ``plan`` … ``built``):

- the pages the model still embeds before the table is taught, at the rate seen;
- teaching the table, at :data:`TEACH_S` a paragraph it is taught from;
- each page after that, at the slower of its parse (the parsers' CPU time over the
  parsers at work) and this process's work on its paragraphs — embedding and storing
  them as the groups seen so far took, less the model's time on the share of them the
  table takes (all but a probe of each document, :data:`~deepread.corpus.taught_vectors.
  PROBE`), plus the table's own (:data:`TABLE_S`), until groups embedded by the table
  have been seen;
- every paragraph still to store, at what the builds of the vector index took a
  paragraph, :data:`BUILD_S` counted as one build of them: the engine's builds differ
  by up to 6× from one to the next (the 155 filings: 0.25 to 1.9 ms a paragraph, the
  first the cheapest), so one build timed is not yet the run's price.

Once the table's pace has been seen for a whole window its rate is the measure, as it
is for a run that teaches no table. No time left is said until :data:`SETTLE_S`
seconds of the current pace are seen.

Events are those of :data:`deepread.corpus.pipeline.Progress`; :class:`Pace` only counts
them, the command line says it (``deepread/cli/ingest.py``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from deepread.corpus.progress_events import COST_EVENTS
from deepread.corpus.taught_vectors import PROBE

#: Bytes of a file without pages taken as one page: about what a printed page holds
#: (~500 words); an HTML page's markup makes it weigh more than its text, a zipped Word
#: file less — the estimate only shares out the time left.
PAGE_BYTES = 3_000

#: Events after which a file is done: stored, failed, or not to be done at all.
_WORKED = ("stored", "failed")
_NOT_WORKED = ("skip", "same")
#: Seconds of recent work the rate is measured over.
WINDOW_S = 180.0
#: Seconds of work after a change of pace (the start, the table taught) before a time
#: left is said.
SETTLE_S = 10.0
#: Seconds a build of the vector index takes a paragraph, until this run has timed one
#: (the 155 filings here: 0.86 ms a paragraph for the first build, ~1.4 ms on average).
BUILD_S = 0.001
#: Seconds this process spends on a paragraph the table embeds, besides the model's time
#: on its document's probe — its tokens, the table's rows, storing it — until this run
#: has timed a group the table embedded. Before the table exists none of it can be
#: timed: the 155 filings here, 0.94 ms a paragraph once taught, where the model's
#: paragraphs had cost nothing measurable besides the model's own time.
TABLE_S = 0.001
#: Seconds teaching the table takes a paragraph it is taught from (the 155 filings here:
#: 29 s for 20,000), priced until it is taught.
TEACH_S = 0.0015


def pages_of(path: Path) -> int:
    """What ``path`` weighs in pages: a PDF's page count, else its size in
    :data:`PAGE_BYTES` (at least 1; 1 for a file that cannot be read or opened — the
    ingest reports it as that file's failure)."""
    if path.suffix.lower() == ".pdf":
        try:
            import pypdfium2

            from deepread.corpus.parsing.pdf.pdfium import PDFIUM_LOCK

            with PDFIUM_LOCK:  # PDFium is not thread-safe (a parse may run meanwhile)
                pdf = pypdfium2.PdfDocument(str(path))
                try:
                    return max(1, len(pdf))
                finally:
                    pdf.close()
        except Exception:  # damaged or encrypted: its parse will say why; weigh it by size
            pass
    try:
        size = path.stat().st_size
    except OSError:
        return 1
    return max(1, -(-size // PAGE_BYTES))


class Pace:
    """Files and pages done of all, the rate and the time left of one ingest call over
    ``files`` (the files it was given, as ``expand_paths`` found them). ``clock``:
    seconds, monotonic (tests move it by hand)."""

    def __init__(
        self,
        files: Iterable[Path],
        *,
        weigh: Callable[[Path], int] = pages_of,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock
        self._weight = {self._key(p): weigh(p) for p in files}
        self.files_total = len(self._weight)
        self.pages_total = sum(self._weight.values())
        self.files_done = 0
        self._done_keys: set[str] = set()
        self._skipped_pages = 0  # unchanged files and copies: in, at no cost
        self._stored_pages = 0  # files this run stored
        self._failed_pages = 0  # files this run tried and failed (worked, not in)
        self._reached: dict[str, int] = {}  # files at work: the pages their embedding reached
        self._started: float | None = None
        #: (seconds, pages worked) now and then, the oldest within the window first
        self._samples: deque[tuple[float, int]] = deque()
        self._teaching = False  # between a teach event and the next pages
        self._pace_since: float | None = None  # when the current pace began
        # what the rest of the run costs (COST_EVENTS, and teaching the table)
        self._teach_at = 0  # paragraphs the model embeds before a table; 0: no table
        self._taught = False  # a table embeds: the pace changed
        self._parsed_documents = 0
        self._parsed_pages = 0
        self._parsed_paragraphs = 0
        self._parse_s = 0.0  # the run's seconds those parses took
        self._model_texts = 0  # before the table: texts the model embedded, and its seconds
        self._model_s = 0.0
        #: paragraphs embedded and stored, and this process's seconds on them: by the
        #: model (before the table), by the table (after)
        self._groups = {False: [0, 0.0], True: [0, 0.0]}
        self._built_s = 0.0
        self._built_paragraphs = 0
        self._build_every = 0  # paragraphs stored between two builds (the plan's)

    @staticmethod
    def _key(path: Path) -> str:
        return str(path.resolve())

    def weight(self, path: Path) -> int:
        return self._weight.get(self._key(path), 1)

    def event(self, event: str, path: Path, done: int = 0, total: int = 0) -> None:
        """Count one progress event (``Progress``'s ``event, path, done, total``)."""
        key = self._key(path)
        now = self._clock()
        if self._started is None and event in ("parsing", "embedding", "page"):
            self._started = self._pace_since = now
            self._samples.append((now, 0))
        if event in COST_EVENTS or event in ("teach", "untaught"):
            self._cost(event, path, done, total)
            return
        if event == "page":
            # the page its embedding reached, scaled to the file's weight (a PDF's last
            # paragraph may sit before its last page: never more than the file weighs)
            weight = self.weight(path)
            reached = min(weight, round(weight * done / total)) if total > 0 else 0
            if key not in self._done_keys:
                self._reached[key] = max(self._reached.get(key, 0), reached)
        elif event in _WORKED or event in _NOT_WORKED:
            if key in self._done_keys:
                return  # (a file is done once)
            self._done_keys.add(key)
            self.files_done += 1
            self._reached.pop(key, None)
            if event == "stored":
                self._stored_pages += self.weight(path)
            elif event == "failed":
                self._failed_pages += self.weight(path)
            else:
                self._skipped_pages += self.weight(path)
        if event in ("page", *_WORKED) and self._started is not None:
            self._sample(now)

    def _cost(self, event: str, path: Path, done: int, total: int) -> None:
        """Count what an event says the rest of the run will cost."""
        if event == "plan":
            self._teach_at = done
            self._build_every = total
        elif event == "parse_cost":
            self._parsed_documents += 1
            self._parsed_pages += self.weight(path)
            self._parsed_paragraphs += done
            self._parse_s += total / 1000
        elif event == "model_cost":
            if not self._taught:
                self._model_texts += done
                self._model_s += total / 1000
        elif event == "group_cost":
            group = self._groups[self._taught]
            group[0] += done
            group[1] += total / 1000
        elif event == "built":
            self._built_s += done / 1000
            self._built_paragraphs += total
        elif event == "teach":
            self._teaching = True  # no pace is said until the new one is seen
            self._taught = True
        else:  # "untaught": the model embeds the rest, at the pace seen before
            self._taught = False
            self._teach_at = 0

    def _sample(self, now: float) -> None:
        if self._teaching:  # the first pages of the new pace: measured from here on
            self._teaching = False
            self._samples.clear()
            self._pace_since = now
        self._samples.append((now, self.pages_worked))
        while len(self._samples) > 2 and self._samples[1][0] <= now - WINDOW_S:
            self._samples.popleft()

    @property
    def pages_worked(self) -> int:
        """Pages this run has done: files stored or failed, and those at work's."""
        done = self._stored_pages + self._failed_pages
        return done + sum(self._reached.values())

    @property
    def pages_done(self) -> int:
        """Pages in: this run's, and those of files it found unchanged."""
        return min(self.pages_total, self._skipped_pages + self.pages_worked)

    @property
    def pages_in(self) -> int:
        """Pages of the files in the collection: stored by this run, or found unchanged."""
        return self._skipped_pages + self._stored_pages

    @property
    def elapsed(self) -> float:
        return 0.0 if self._started is None else max(0.0, self._clock() - self._started)

    @property
    def rate(self) -> float | None:
        """Pages per second over the recent work (see the module's docstring), once
        there is some; else ``None``."""
        if self._teaching or not self._samples:
            return None
        then, worked_then = self._samples[0]
        span = self._clock() - then
        worked = self.pages_worked - worked_then
        if worked <= 0 or span <= 0:
            return None
        return worked / span

    @property
    def seconds_left(self) -> float | None:
        """What the rest of the run will cost (see the module's docstring); ``None``
        before there is a rate, or before :data:`SETTLE_S` seconds of the current pace
        were seen."""
        rate = self.rate
        if rate is None or self._pace_since is None:
            return None
        seen = self._clock() - self._pace_since
        if seen < SETTLE_S:
            return None
        pages_left = max(0, self.pages_total - self.pages_done)
        changes = self._teach_at and not self._taught  # the table still to be taught
        if (
            not self._parsed_paragraphs
            or not (changes or self._taught)  # no table: the pace there will be is the one seen
            or (self._taught and seen >= WINDOW_S)  # the table's pace, seen for a window
        ):
            return pages_left / rate
        per_page = self._parsed_paragraphs / max(1, self._parsed_pages)
        # BUILD_S as one build's worth of paragraphs: the builds timed weigh in by degrees
        prior = self._build_every or 1
        build = (self._built_s + BUILD_S * prior) / (self._built_paragraphs + prior)
        parse = self._parse_s / max(1, self._parsed_pages)
        after = max(parse, per_page * self._table_paragraph_s())  # a page once taught
        built = pages_left * per_page * build
        if not changes:  # the table's pace, not yet seen for a window
            return pages_left * after + built
        # the model embeds until the table is taught, at the pace seen; then the table
        model = min(pages_left, max(0.0, self._teach_at / per_page - self.pages_worked))
        teaching = TEACH_S * self._teach_at
        return model / rate + teaching + (pages_left - model) * after + built

    def _table_paragraph_s(self) -> float:
        """This process's seconds a paragraph takes once the table embeds: as the groups
        it embedded took, or, before one is seen, as those the model embedded less the
        model's time on all but a document's probe, and the table's own
        (:data:`TABLE_S`)."""
        paragraphs, seconds = self._groups[True]
        if paragraphs:
            return seconds / paragraphs
        paragraphs, seconds = self._groups[False]
        if not paragraphs:
            return 0.0
        model = self._model_s / self._model_texts if self._model_texts else 0.0
        besides = max(0.0, seconds / paragraphs - model)
        return besides + TABLE_S + model * self._probe_share()

    def _probe_share(self) -> float:
        """The share of a later document's paragraphs the model embeds (its probe), for
        documents the size of those parsed so far."""
        least, most, every = PROBE
        size = self._parsed_paragraphs / max(1, self._parsed_documents)
        if size < 2 * least:
            return 1.0
        return min(most, max(least, size // every)) / size

    def summary(self) -> str:
        """``3/12 files, 180/720 pages, 7.1 pages/s, ~1 min 16 s left`` (the rate and
        time left once known)."""
        said = (
            f"{self.files_done}/{self.files_total} files, "
            f"{self.pages_done:,}/{self.pages_total:,} pages"
        )
        rate, left = self.rate, self.seconds_left
        if rate is not None:
            said += f", {rate:.1f} pages/s"
        if rate is not None and left is not None and self.pages_done < self.pages_total:
            said += f", ~{duration(left)} left"
        return said


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 20 s``, ``13 min``, ``1 h 52 min``: as precise as a person
    needs it (seconds only under 10 minutes)."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    minutes = round(whole / 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"
