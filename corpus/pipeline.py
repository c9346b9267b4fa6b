"""The ingest pipeline: parse files, embed their paragraphs, store each document whole.

Parsing is Python-bound and embedding runs in onnxruntime's threads, so files are parsed
ahead while this process embeds and writes (:mod:`deepread.corpus.parse_ahead`: a
background thread, or ``workers`` processes side by side); every document already parsed
joins one embedding call, and documents are stored in the order the files were given. A
file that fails — whatever the exception, unless it concerns the whole run
(``RUN_ERRORS``) — is that file's failure; the others are stored. So is a file another
process is writing at the same moment (:class:`~deepread.stores.writers.WriteConflict`).
A document is replaced all at once or not at all. A document of more paragraphs than its
text pays for (:mod:`deepread.corpus.paragraph_budget`) is refused, as its failure line,
before anything of it is embedded.

A file holding the same bytes as a stored document is not stored twice (its hits would
come back twice). When the stored document's own file still holds those bytes, the new
file is a copy: it is reported as one (:class:`Duplicate`, "same as doc 3") and nothing
is written — the document stays the original's, so removing the copy's path later finds
nothing to remove. When that file is gone or changed, the new one is where the document
moved to: the document is named by its new path, its doc_id kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from deepread.corpus.enrich import IngestModels
from deepread.corpus.files import (
    FileChanged,
    IngestFailure,
    Stamp,
    expand_paths,
    failure_reason,
    hashed,
    sha256_file,
    unchanged,
)
from deepread.corpus.library.front import front_matter
from deepread.corpus.paragraph_budget import check_texts
from deepread.corpus.parse_ahead import ParseAhead, workers_for
from deepread.corpus.parsing import Structured
from deepread.corpus.taught_vectors import TableCheck, TaughtVectors
from deepread.corpus.vector_memo import VectorMemo
from deepread.records.documents import Document
from deepread.records.errors import CoordinateError, StoreError, UsageError, WriteConflict
from deepread.stores.collection import Collection
from deepread.stores.embeddings import EmbeddingModelError, LocalEmbeddings, embed_texts
from deepread.stores.search_text import search_text

#: Collections this large get their vector index built at the end of an ingest; below it,
#: brute-force search is already faster than the build (~1 s per 1k paragraphs here).
OPTIMIZE_AT = 20_000
#: Paragraphs stored between two builds within one ingest. What the embedded engine has
#: not optimized sits in its one appendable segment, whose indexes live in the process's
#: memory, and one build over all of it held the whole store at once: a long ingest's RSS
#: grew with the store (to 2.06 GB over 184 filings) and building 231,000
#: paragraphs at once took 2.4 GB. Built as it goes, each build indexes only what was
#: stored since, into segments of bounded size (stores/edge.py).
OPTIMIZE_EVERY = 20_000

#: Parsed documents join one embedding call while they hold fewer paragraphs than this.
GROUP_PARAGRAPHS = 4_096

#: Times a file that changed between its hash and its parse is hashed and parsed again
#: before it is that file's failure (one still being written, a log appended to).
REREADS = 3

#: Paragraphs embedded per embedding call: each call's end is a progress point, so a long
#: document reports the page its embedding reached (a 112-page filing's 1,300 paragraphs
#: take ~50 s here). A vector does not depend on its batch companions, and 256-text calls
#: cost what one call for all did (68 s against 67 s for 1,024 texts, loaded machine).
EMBED_SLICE = 256

#: Called as ``progress(event, path, done, total)``; events: "skip", "same" (a copy of a
#: stored document's file: nothing stored), "parsing" (a file's parse is awaited: said
#: before it, so a bar names the file from the first second, not after the parsers'
#: start-up), "parsed", "embedding" (a document's embedding begins: ``total`` its pages,
#: 0 for a file without pages), "page" while a paged document (a PDF) is embedded:
#: ``done`` of its ``total`` pages, "stored", "failed", "optimize" (before building the
#: vector index of what was stored since the last build), "teach" (once, when a long
#: ingest starts teaching the table its later paragraphs take,
#: :mod:`deepread.corpus.taught_vectors`: ``done`` paragraphs the model embedded) and
#: "untaught" (the table failed its check and the model embeds the rest: ``done``
#: paragraphs held back, ``total`` their mean cosine to the model's vectors in thousandths).
#: Five more say what the rest of the run will cost (:mod:`deepread.corpus.ingest_pace`
#: turns them into a time left; the collection's name as the path where no file is meant):
#: "plan" before the first file (``done`` the paragraphs the model embeds before a table
#: is taught, 0 when this run has none; ``total`` the paragraphs stored between two
#: builds of the vector index), "parse_cost" after "parsed" (``done`` the document's
#: paragraphs, ``total`` the milliseconds of the run its parse took: its CPU time over
#: the parsers working side by side), "model_cost" after each embedding call (``done``
#: the texts the model embedded in it, ``total`` the milliseconds the model took them),
#: "group_cost" once the documents of one embedding call are stored (``done`` their
#: paragraphs, ``total`` the milliseconds this process spent embedding and storing them,
#: teaching a table left out) and "built" after a build (``done`` its milliseconds,
#: ``total`` the paragraphs it indexed); their names are
#: :data:`deepread.corpus.progress_events.COST_EVENTS`.
Progress = Callable[[str, Path, int, int], None]


#: Errors that concern the whole run, not one file: the store cannot be written (in use,
#: unreachable, no space) or the embedding model cannot run. Every other exception while
#: parsing, embedding or storing one file is that file's failure line, and the next file
#: goes on: a malformed .docx once aborted a folder ingest with an lxml traceback.
RUN_ERRORS: tuple[type[BaseException], ...] = (StoreError, EmbeddingModelError)


class IngestError(RuntimeError):
    """Some files could not be ingested; the others were stored (see ``documents``)."""

    def __init__(self, failures: list[IngestFailure], documents: list[Document]) -> None:
        lines = "\n".join(f"  {f.path}: {f.reason}" for f in failures)
        super().__init__(f"{len(failures)} file(s) could not be ingested:\n{lines}")
        self.failures = failures
        self.documents = documents


@dataclass(slots=True)
class Duplicate:
    """A file holding the same bytes as ``document``, whose own file still holds them: a
    copy, not stored (``document`` keeps its source)."""

    path: str
    document: Document


@dataclass(slots=True)
class IngestResult:
    """What one ingest call did, file by file."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[Document] = field(default_factory=list)
    failures: list[IngestFailure] = field(default_factory=list)
    #: Copies of stored documents' files (this call's included): nothing stored for them.
    duplicates: list[Duplicate] = field(default_factory=list)
    #: Files found in the folders given whose type deepread does not read (not failures).
    unsupported: list[Path] = field(default_factory=list)
    #: Paragraph texts embedded, and those that repeated a text this call had embedded
    #: already and took its vector (:mod:`deepread.corpus.vector_memo`).
    texts_embedded: int = 0
    texts_repeated: int = 0
    #: Of the texts embedded, those a table taught in this run embedded (the others by
    #: the model; :mod:`deepread.corpus.taught_vectors`).
    texts_by_table: int = 0
    #: Each teaching of that table and its check on paragraphs held back; documents its
    #: probe showed it did not match (embedded by the model).
    table_checks: list[TableCheck] = field(default_factory=list)
    documents_by_model: int = 0


def still_holds(source: str, digest: str) -> bool:
    """Whether the file at ``source`` (a stored document's) still has content ``digest``."""
    try:
        return sha256_file(Path(source)) == digest
    except OSError:  # gone, unreadable, or a name the store had to escape
        return False


def search_texts(structured: Structured) -> list[str]:
    """What is embedded and BM25-indexed for each paragraph of ``structured``."""
    sections = structured.sections
    # Section title only: the parent chain or the document title measured no better
    # (hybrid recall@5 0.553 / 0.551 against 0.550) and costs embedding tokens.
    return [
        search_text(p.text, p.kind, sections[p.sec_id].title if p.sec_id else "")
        for p in structured.paragraphs
    ]


def ingest_files(
    collection: Collection,
    embeddings: Embeddings,
    paths: Iterable[str | Path] | str | Path,
    progress: Progress | None,
    models: IngestModels,
    *,
    force: bool = False,
    workers: int | None = None,
    exact_vectors: bool = False,
) -> IngestResult:
    """Ingest ``paths`` into ``collection``; failures are reported, not raised.
    ``force``: store unchanged files again too (:meth:`deepread.Index.ingest`);
    ``workers``: processes parsing side by side (1: a background thread; ``None``: one
    per core when the files to parse repay them, :func:`~deepread.corpus.parse_ahead.
    workers_for`);
    ``exact_vectors``: the local model embeds every paragraph, however long the ingest
    (:mod:`deepread.corpus.taught_vectors`)."""
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise UsageError(f"workers must be a whole number of at least 1 (got {workers!r})")
    pipeline = _Pipeline(collection, embeddings, progress, force, workers, exact_vectors)
    return pipeline.run(paths, models)


class _Pipeline:
    def __init__(
        self,
        collection: Collection,
        embeddings: Embeddings,
        progress: Progress | None,
        force: bool = False,
        workers: int | None = None,
        exact_vectors: bool = False,
    ) -> None:
        self._collection = collection
        self._embeddings = embeddings
        self._progress = progress
        self._force = force
        self._workers = workers
        # A text this run embedded before (a repeated paragraph) is not embedded again.
        self.memo = VectorMemo()
        self._teaching_s = 0.0  # seconds spent teaching tables (not a group's cost)
        # Each file's stamp when it was hashed: its parse must read those bytes.
        self._stamps: dict[Path, Stamp] = {}
        # The local model's vectors only can be taught to a table (it is fitted to them).
        self.taught = (
            TaughtVectors(embeddings)
            if isinstance(embeddings, LocalEmbeddings) and not exact_vectors
            else None
        )

    def run(self, paths: Iterable[str | Path] | str | Path, models: IngestModels) -> IngestResult:
        if isinstance(paths, (str, Path)):
            paths = [paths]
        unsupported: list[Path] = []
        files, failures = expand_paths(paths, unsupported)
        result = IngestResult(failures=list(failures), unsupported=unsupported)
        todo: list[tuple[Path, str]] = []
        firsts: dict[str, Path] = {}  # digest -> the file of this call that holds it
        copies: list[tuple[Path, str]] = []  # copies of a file of this call
        for path in files:
            source = str(path.resolve())
            try:
                digest, self._stamps[path] = hashed(path)
            except OSError as exc:
                result.failures.append(IngestFailure(str(path), exc.strerror or str(exc)))
                continue
            known = self._collection.find_source(source)
            if known is None and digest in firsts:
                copies.append((path, digest))  # resolved once the first is stored
                continue
            if known is None:
                # The same bytes under another path are the same document: not parsed,
                # embedded and stored twice (its hits would come back twice). A copy
                # beside the original is reported as one and stores nothing; a file moved
                # (the original gone or changed) names the document by its new path.
                # (None: another process stored this path meanwhile, or removed the
                # other document: the file is stored as new.)
                same = self._collection.find_content(digest)
                if same is not None and still_holds(same.source, digest):
                    result.duplicates.append(Duplicate(str(path), same))
                    if self._progress:
                        self._progress("same", path, len(result.duplicates), len(files))
                    continue
                if same is not None:
                    try:
                        known = self._collection.move_source(same.doc_id, source)
                    except WriteConflict as exc:
                        result.failures.append(IngestFailure(str(path), str(exc)))
                        continue
                    except CoordinateError:
                        known = None
            if known is not None and known.content_hash == digest and not self._force:
                result.skipped.append(known)
                if self._progress:
                    self._progress("skip", path, len(result.skipped), len(files))
                continue
            todo.append((path, digest))
            firsts.setdefault(digest, path)
        # Files are parsed ahead (a thread, or worker processes) while this process
        # embeds and writes, in the order given (corpus/parse_ahead.py).
        # (An OCR model reads PDFs in this process: its client and cache are not shared.)
        # By default a process per core, where the files to parse (not those skipped)
        # weigh enough to repay starting them.
        workers = (
            1 if models.ocr is not None else self._workers or workers_for([p for p, _ in todo])
        )
        loader = None
        if todo and isinstance(self._embeddings, LocalEmbeddings):
            # (beside the first parse: it loads on first use, so the two would follow
            # each other)
            loader = self._embeddings.load_beside()
        try:
            unoptimized = self._parse_and_store(todo, models, workers, result)
        finally:
            if loader is not None:
                # The process must not end while onnxruntime is still building its
                # session in that thread: its C++ thread pool is then destroyed under it
                # and the process aborts ("terminate called without an active
                # exception", exit 134 instead of the run's own code) — an ingest whose
                # every file failed to parse, or a Ctrl-C during the first parse.
                loader.join()
        self._resolve_copies(copies, firsts, result)
        result.texts_embedded = self.memo.embedded
        result.texts_repeated = self.memo.asked - self.memo.embedded
        if self.taught:
            result.texts_by_table = self.taught.by_table
            result.table_checks = list(self.taught.checks)
            result.documents_by_model = self.taught.documents_by_model
        if result.documents and unoptimized and self._collection.count_paragraphs() >= OPTIMIZE_AT:
            self._optimize(len(todo), len(todo), unoptimized)
        return result

    def _parse_and_store(
        self,
        todo: list[tuple[Path, str]],
        models: IngestModels,
        workers: int,
        result: IngestResult,
    ) -> int:
        """Parse ``todo`` ahead (a thread, or worker processes) while embedding and storing
        each parse in order; the paragraphs stored since the vector index was last built."""
        parse = models.parse
        if self._progress and todo:
            teach_at = self.taught.first_teaching if self.taught is not None else 0
            self._progress("plan", Path(self._collection.name), teach_at, OPTIMIZE_EVERY)
        with ParseAhead([path for path, _ in todo], parse, workers) as parsed:
            taken = unoptimized = 0
            while taken < len(todo):
                # Every document already parsed joins one embedding call: one call per
                # document cost ~10 % more on the devset (each document's short tail
                # batches are padded on their own), and a vector does not depend on its
                # batch companions, so the grouping changes nothing that is stored.
                group: list[tuple[int, Path, str, Structured]] = []
                size = 0
                while taken < len(todo) and (
                    not group or (parsed.ready() and size < GROUP_PARAGRAPHS)
                ):
                    path, digest = todo[taken]
                    if self._progress:
                        self._progress("parsing", path, taken, len(todo))
                    taken += 1
                    try:
                        structured, digest = self._as_hashed(path, digest, parsed.take(), parse)
                        # a flood of tiny paragraphs is refused before it is embedded
                        check_texts(
                            [p.text for p in structured.paragraphs],
                            pdf=path.suffix.lower() == ".pdf",
                        )
                        if models.active:
                            structured = models.enrich(path, structured)
                    except RUN_ERRORS:
                        raise
                    except Exception as exc:  # one file's fault, never the run's (see RUN_ERRORS)
                        self._failed(result, path, exc, taken, len(todo))
                        continue
                    if self._progress:
                        self._progress("parsed", path, taken, len(todo))
                        share = round(1000 * parsed.seconds / workers)
                        self._progress("parse_cost", path, len(structured.paragraphs), share)
                    group.append((taken, path, digest, structured))
                    size += len(structured.paragraphs)
                began, teaching = time.monotonic(), self._teaching_s
                self._store_group(group, result, len(todo))
                if self._progress and group:
                    took = time.monotonic() - began - (self._teaching_s - teaching)
                    self._progress("group_cost", group[0][1], size, round(1000 * took))
                unoptimized += size
                if unoptimized >= OPTIMIZE_EVERY and taken < len(todo):
                    self._optimize(taken, len(todo), unoptimized)
                    unoptimized = 0
        return unoptimized

    def _as_hashed(
        self, path: Path, digest: str, structured: Structured, parse: Callable[[Path], Structured]
    ) -> tuple[Structured, str]:
        """``structured`` and ``digest`` when the file still holds the bytes hashed before
        it was parsed (files are hashed long before they are parsed: a save in between
        stored the new text under the old hash, and putting the old bytes back then read
        as "unchanged"); else the file hashed and parsed again, up to :data:`REREADS`
        times, then :class:`FileChanged`."""
        for _ in range(REREADS):
            if unchanged(path, digest, self._stamps[path]):
                return structured, digest
            digest, self._stamps[path] = hashed(path)
            structured = parse(path)
        if unchanged(path, digest, self._stamps[path]):
            return structured, digest
        raise FileChanged(
            f"the file changed while it was read ({REREADS + 1} times); ingest it again "
            "once it is saved"
        )

    def _optimize(self, done: int, total: int, paragraphs: int) -> None:
        """Build the vector index of what was stored since the last build (``paragraphs``)."""
        if self._progress:
            self._progress("optimize", Path(self._collection.name), done, total)
        started = time.monotonic()
        self._collection.backend.optimize()
        if self._progress:
            took = round(1000 * (time.monotonic() - started))
            self._progress("built", Path(self._collection.name), took, paragraphs)
        # Let go of the engine after each build: held through one long ingest, its memory
        # grew with the store (1.86 GB after 80 filings, 3.3 GB after the 155); let go of
        # and opened again by the next write, it stays near 0.9 GB between builds
        # (docs/benchmarks.md). Another process may take the store in between: the next
        # write waits for it as any opener does (DEEPREAD_STORE_WAIT).
        self._collection.backend.release()

    def _resolve_copies(
        self, copies: list[tuple[Path, str]], firsts: dict[str, Path], result: IngestResult
    ) -> None:
        """Copies of a file this call stored: duplicates of its document; of one that
        failed: failures too (nothing of those bytes is stored)."""
        stored = {d.content_hash: d for d in result.documents + result.skipped}
        for path, digest in copies:
            if digest in stored:
                result.duplicates.append(Duplicate(str(path), stored[digest]))
                if self._progress:
                    self._progress("same", path, len(result.duplicates), len(copies))
            else:
                result.failures.append(
                    IngestFailure(str(path), f"same bytes as {firsts[digest]}, which failed")
                )

    def _failed(
        self, result: IngestResult, path: Path, exc: Exception, done: int, total: int
    ) -> None:
        reason = failure_reason(exc)
        result.failures.append(IngestFailure(str(path), reason))
        if self._progress:
            self._progress("failed", path, done, total)

    def _embedded(
        self, group: list[tuple[int, Path, str, Structured]], texts: list[list[str]]
    ) -> Iterator[tuple[int, np.ndarray]]:
        """Each document of the group with its vectors, in order, as soon as the
        :data:`EMBED_SLICE`-paragraph calls that hold them are done — so it is stored
        (and counted, and readable) while the next ones embed; each call's end reported
        as the page its document's embedding reached."""

        def embed(some: list[str]) -> np.ndarray:
            if self.taught is None:
                began = time.monotonic()
                vectors = embed_texts(self._embeddings, some)
                self._model_cost(group[0][1], len(some), time.monotonic() - began)
                return vectors
            if self.taught.ready:  # taught when more texts come, not at a run's end
                self._teach(self.taught, group[0][1])
            texts, seconds = self.taught.model_texts, self.taught.model_seconds
            vectors = self.taught(some)
            self._model_cost(
                group[0][1],
                self.taught.model_texts - texts,
                self.taught.model_seconds - seconds,
            )
            return vectors

        if self.taught is not None:
            self.taught.plan(texts)  # each document probed as the table reaches it

        flat = [t for doc in texts for t in doc]
        ends = list(accumulate(len(doc) for doc in texts))
        # For each paragraph: its file, its page and its document's last page.
        where = [
            (path, p.page, max((q.page or 0 for q in s.paragraphs), default=0))
            for _, path, _, s in group
            for p in s.paragraphs
        ]
        held: np.ndarray | None = None  # vectors made, not yet handed out
        held_from = 0  # the paragraph the first of them is
        doc = 0  # the next document to hand out
        self._announce(group[0])
        for start in range(0, max(len(flat), 1), EMBED_SLICE):
            stop = min(start + EMBED_SLICE, len(flat))
            if stop > start:
                made = self.memo.vectors(flat[start:stop], embed)
                held = made if held is None or not len(held) else np.concatenate([held, made])
                path, page, pages = where[stop - 1]
                if self._progress and page and pages:
                    self._progress("page", path, page, pages)
            while doc < len(group) and ends[doc] <= stop:
                if held is None:  # a document with no paragraph before any was embedded
                    yield doc, embed_texts(self._embeddings, [])
                else:
                    cut = ends[doc] - held_from
                    vectors, held, held_from = held[:cut], held[cut:], ends[doc]
                    yield doc, vectors
                doc += 1
                if doc < len(group):
                    self._announce(group[doc])

    def _announce(self, item: tuple[int, Path, str, Structured]) -> None:
        """Say which document's embedding begins (the file a person sees named)."""
        _, path, _, structured = item
        if self._progress:
            pages = max((p.page or 0 for p in structured.paragraphs), default=0)
            self._progress("embedding", path, 0, pages)

    def _model_cost(self, path: Path, texts: int, seconds: float) -> None:
        if self._progress and texts:
            self._progress("model_cost", path, texts, round(1000 * seconds))

    def _teach(self, taught: TaughtVectors, path: Path) -> None:
        """Teach the table, and say when its check keeps the model for the rest of the run."""
        first = not taught.checks
        if self._progress and first:
            self._progress("teach", path, taught.by_model, 0)
        began = time.monotonic()
        check = taught.teach()
        self._teaching_s += time.monotonic() - began
        if self._progress and taught.table is None:
            self._progress("untaught", path, check.held, round(check.cosine * 1000))

    def _store_group(
        self, group: list[tuple[int, Path, str, Structured]], result: IngestResult, total: int
    ) -> None:
        """Embed the group's paragraphs (every document already parsed joins the same
        calls), storing each document as soon as its vectors are done."""
        if not group:
            return
        texts = [search_texts(structured) for _, _, _, structured in group]
        stored = 0  # documents of the group handed to _store_one
        try:
            for i, vectors in self._embedded(group, texts):
                self._store_one(group[i], texts[i], vectors, result, total)
                stored = i + 1
        except RUN_ERRORS:
            raise
        except Exception as exc:  # a refusal of some document's text (see RUN_ERRORS)
            rest = group[stored:]
            if len(rest) == 1:
                done, path, _, _ = rest[0]
                self._failed(result, path, exc, done, total)
                return
            # Find out which document the embedding backend refuses; store the others.
            for item in rest:
                self._store_group([item], result, total)

    def _store_one(
        self,
        item: tuple[int, Path, str, Structured],
        doc_texts: list[str],
        vectors: np.ndarray,
        result: IngestResult,
        total: int,
    ) -> None:
        """Store one embedded document (its failure is its own line)."""
        done, path, digest, structured = item
        try:
            # Under the write lock, from the look at what is stored to the commit:
            # another process may have stored this file (or its bytes) since this run
            # looked at the start — then it is as if that one had run first.
            with self._collection.writing():
                if not self._stored_meanwhile(path, digest, result, done, total):
                    result.documents.append(
                        self._collection.put_document(
                            source=str(path.resolve()),
                            title=structured.title,
                            sections=structured.sections,
                            paragraphs=structured.paragraphs,
                            vectors=vectors,
                            content_hash=digest,
                            search_texts=doc_texts,
                            front=front_matter(structured),
                        )
                    )
                    if self._progress:
                        self._progress("stored", path, done, total)
        except RUN_ERRORS:
            raise
        except Exception as exc:  # this document's write failed and was rolled back
            self._failed(result, path, exc, done, total)

    def _stored_meanwhile(
        self, path: Path, digest: str, result: IngestResult, done: int, total: int
    ) -> bool:
        """Whether another process stored ``path`` unchanged, or a file of the same bytes
        that still holds them, since this run looked (then it is reported as skipped or
        a copy, as a run after that process would have, and nothing is written)."""
        known = self._collection.find_source(str(path.resolve()))
        if known is not None:
            if known.content_hash != digest or self._force:
                return False
            result.skipped.append(known)
            if self._progress:
                self._progress("skip", path, done, total)
            return True
        same = self._collection.find_content(digest)
        if same is None or not still_holds(same.source, digest):
            return False
        result.duplicates.append(Duplicate(str(path), same))
        if self._progress:
            self._progress("same", path, done, total)
        return True
