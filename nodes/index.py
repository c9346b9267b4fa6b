"""``deepread.Index``: open a collection, ingest files, and read it the DeepRead way.

It lives in ``nodes`` (and is re-exported by the ``deepread`` face) because the agent's
and the ingest graph's nodes use it, and imports flow face → graphs → nodes → stores.

    >>> import deepread
    >>> idx = deepread.Index.open(store="./store", collection="docs")
    >>> idx.ingest(["manual.pdf", "notes/"])
    >>> idx.retrieve("How do I reset the device?", k=5, window=(1, 1))
    >>> idx.read_section(doc_id=1, sec_id=4, start=0, end=10)
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.embeddings import Embeddings

from deepread.nodes.describe import DescribeBudget
from deepread.nodes.enrich import IngestModels, ModelLike
from deepread.nodes.parsing import SUPPORTED_SUFFIXES, ParseError, Structured
from deepread.stores.backend import RetrievalMode, StoreError
from deepread.stores.collection import Collection
from deepread.stores.embeddings import embed_texts, embeddings_id, resolve_embeddings
from deepread.stores.location import default_store, open_backend
from deepread.stores.reading import Retrieved, SectionRead, read_section, retrieve
from deepread.stores.records import Document, Paragraph
from deepread.stores.rerank import Reranker, resolve_reranker
from deepread.stores.search_text import search_text

#: Collections this large get their vector index built at the end of an ingest; below it,
#: brute-force search is already faster than the build (~1 s per 1k paragraphs here).
OPTIMIZE_AT = 20_000

#: Files parsed ahead of the one being embedded (bounds the parsed text held in memory).
PARSE_AHEAD = 4
#: Parsed documents join one embedding call while they hold fewer paragraphs than this.
GROUP_PARAGRAPHS = 4_096

#: Called as ``progress(event, path, done, total)``; events: "skip", "parsed", "stored",
#: "failed", and "optimize" (once, before building the vector index of a large collection).
Progress = Callable[[str, Path, int, int], None]


@dataclass(slots=True)
class IngestFailure:
    path: str
    reason: str


class IngestError(RuntimeError):
    """Some files could not be ingested; the others were stored (see ``documents``)."""

    def __init__(self, failures: list[IngestFailure], documents: list[Document]) -> None:
        lines = "\n".join(f"  {f.path}: {f.reason}" for f in failures)
        super().__init__(f"{len(failures)} file(s) could not be ingested:\n{lines}")
        self.failures = failures
        self.documents = documents


@dataclass(slots=True)
class IngestResult:
    """What one ingest call did, file by file."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[Document] = field(default_factory=list)
    failures: list[IngestFailure] = field(default_factory=list)


def search_texts(structured: Structured) -> list[str]:
    """What is embedded and BM25-indexed for each paragraph of ``structured``."""
    sections = structured.sections
    # Section title only: the parent chain or the document title measured no better
    # (hybrid recall@5 0.553 / 0.551 against 0.550) and costs embedding tokens.
    return [search_text(p.text, p.kind, sections[p.sec_id].title if p.sec_id else "")
            for p in structured.paragraphs]


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[IngestFailure]]:
    """Files to ingest: files as given, folders walked for supported types, each once."""
    files: list[Path] = []
    failures: list[IngestFailure] = []
    seen: set[Path] = set()

    def fail(path: Path, reason: str) -> None:
        key = Path(os.path.abspath(path))  # the link itself: it has no real path
        if key not in seen:
            seen.add(key)
            failures.append(IngestFailure(str(path), reason))

    def add(path: Path) -> None:
        if not path.exists():  # only a symlink can be listed yet not exist
            fail(path, _broken_link(path))
            return
        real = path.resolve()
        if real not in seen:
            seen.add(real)
            files.append(path)

    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            visited: set[Path] = set()
            for folder, dirs, names in _walk(path, visited):
                del dirs
                for name in sorted(names):
                    if Path(name).suffix.lower() in SUPPORTED_SUFFIXES:
                        add(folder / name)
        elif path.exists():
            add(path)
        elif path.is_symlink():
            fail(path, _broken_link(path))
        else:
            fail(path, "no such file or directory")
    return files, failures


def _broken_link(path: Path) -> str:
    """Why a symlink cannot be read: a loop, or a target that does not exist.

    (``Path.resolve`` raises RuntimeError on a loop in Python 3.11/3.12 and OSError
    from 3.13; before this check a file symlink loop in a folder crashed the walk.)
    """
    try:
        path.resolve(strict=True)
    except (RuntimeError, OSError) as exc:
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
            return "symlink loop (following the link leads back to it)"
    return f"broken symlink: its target {os.readlink(path)} does not exist"


def _walk(root: Path, visited: set[Path]) -> Iterable[tuple[Path, list[str], list[str]]]:
    """``os.walk`` that follows folder symlinks but never loops."""
    for folder, dirs, names in os.walk(root, followlinks=True):
        real = Path(folder).resolve()
        if real in visited:
            dirs[:] = []
            continue
        visited.add(real)
        dirs.sort()
        yield Path(folder), dirs, names


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Index:
    """A deepread collection: ingest documents, list their TOC, retrieve and read."""

    def __init__(self, collection: Collection, embeddings: Embeddings, store: str,
                 mode: RetrievalMode = "hybrid", reranker: Reranker | None = None) -> None:
        self._collection = collection
        self._embeddings = embeddings
        self.store = store
        self.mode: RetrievalMode = mode
        self.reranker = reranker

    @classmethod
    def open(cls, store: str | Path | None = None, collection: str = "default", *,
             embeddings: Embeddings | str | None = None,
             mode: RetrievalMode = "hybrid",
             reranker: Reranker | str | None = None) -> Index:
        """Open (or prepare to create) ``collection`` in ``store``.

        ``store``: a directory for the embedded engine, or a Qdrant server URL; default
        ``DEEPREAD_STORE`` / ``QDRANT_URL`` / the per-user data directory.
        ``embeddings``: any LangChain ``Embeddings``, or ``"local"`` / ``"openai:<model>"``;
        default ``$DEEPREAD_EMBEDDINGS``, else the offline local model. A collection
        remembers the model that built it and refuses queries with another.
        ``reranker``: ``"coverage"`` (default, ``$DEEPREAD_RERANK``), ``"none"``, or any
        :class:`~deepread.stores.rerank.Reranker`.
        """
        location = str(store) if store is not None else default_store()
        model = resolve_embeddings(embeddings)
        backend = open_backend(location, collection)
        return cls(Collection(backend, collection, embeddings_id(model)), model, location,
                   mode, resolve_reranker(reranker))

    @property
    def collection(self) -> Collection:
        return self._collection

    @property
    def embeddings(self) -> Embeddings:
        """The embedding backend this index ranks with."""
        return self._embeddings

    @property
    def name(self) -> str:
        return self._collection.name

    # -- ingest ---------------------------------------------------------------------

    def ingest(self, paths: Iterable[str | Path] | str | Path, *,
               progress: Progress | None = None, ocr_model: ModelLike = None,
               vision_model: ModelLike = None, describe_model: ModelLike = None,
               describe_budget: DescribeBudget | None = None) -> list[Document]:
        """Ingest files and folders; returns the stored (or unchanged) documents.

        A file whose content is unchanged since its last ingest is skipped. A file that
        fails to parse is reported in :class:`IngestError` after all others are stored;
        a document is replaced all at once or not at all.

        Optional model steps (a model name for an OpenAI-compatible endpoint, or a chat
        model object; outputs cached beside the store): ``ocr_model`` reads PDFs page by
        page as images (:mod:`deepread.nodes.ocr`), ``vision_model`` describes figures
        (:mod:`deepread.nodes.vision`), ``describe_model`` writes a one-line summary per
        section for the TOC within ``describe_budget`` (:mod:`deepread.nodes.describe`).
        """
        result = self.ingest_report(paths, progress=progress, ocr_model=ocr_model,
                                    vision_model=vision_model, describe_model=describe_model,
                                    describe_budget=describe_budget)
        if result.failures:
            raise IngestError(result.failures, result.documents + result.skipped)
        return result.documents + result.skipped

    def ingest_report(self, paths: Iterable[str | Path] | str | Path, *,
                      progress: Progress | None = None, ocr_model: ModelLike = None,
                      vision_model: ModelLike = None, describe_model: ModelLike = None,
                      describe_budget: DescribeBudget | None = None) -> IngestResult:
        """Like :meth:`ingest`, but returns failures instead of raising them."""
        models = IngestModels.build(self.store, ocr_model=ocr_model, vision_model=vision_model,
                                    describe_model=describe_model,
                                    describe_budget=describe_budget)
        try:
            return self._ingest_report(paths, progress, models)
        finally:
            models.close()

    def _ingest_report(self, paths: Iterable[str | Path] | str | Path,
                       progress: Progress | None, models: IngestModels) -> IngestResult:
        parse = models.parse
        if isinstance(paths, (str, Path)):
            paths = [paths]
        files, failures = expand_paths(paths)
        result = IngestResult(failures=list(failures))
        todo: list[tuple[Path, str]] = []
        for path in files:
            source = str(path.resolve())
            try:
                digest = _sha256(path)
            except OSError as exc:
                result.failures.append(IngestFailure(str(path), exc.strerror or str(exc)))
                continue
            known = self._collection.find_source(source)
            if known is not None and known.content_hash == digest:
                result.skipped.append(known)
                if progress:
                    progress("skip", path, len(result.skipped), len(files))
                continue
            todo.append((path, digest))
        # Parsing is Python-bound and embedding runs in onnxruntime threads: a background
        # thread parses up to PARSE_AHEAD files ahead while this one embeds and writes.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepread-parse") as pool:
            futures = deque(pool.submit(parse, path) for path, _ in todo[:PARSE_AHEAD])
            queued = len(futures)
            taken = 0
            while taken < len(todo):
                # Every document already parsed joins one embedding call: one call per
                # document cost ~10 % more on the devset (each document's short tail
                # batches are padded on their own), and a vector does not depend on its
                # batch companions, so the grouping changes nothing that is stored.
                group: list[tuple[int, Path, str, Structured]] = []
                size = 0
                while taken < len(todo) and (not group or (futures[0].done()
                                                           and size < GROUP_PARAGRAPHS)):
                    future = futures.popleft()
                    if queued < len(todo):
                        futures.append(pool.submit(parse, todo[queued][0]))
                        queued += 1
                    path, digest = todo[taken]
                    taken += 1
                    try:
                        structured = future.result()
                        if models.active:
                            structured = models.enrich(path, structured)
                    except (ParseError, OSError, ValueError) as exc:
                        self._failed(result, progress, path, exc, taken, len(todo))
                        continue
                    if progress:
                        progress("parsed", path, taken, len(todo))
                    group.append((taken, path, digest, structured))
                    size += len(structured.paragraphs)
                self._store_group(group, result, progress, len(todo))
        if result.documents and self._collection.count_paragraphs() >= OPTIMIZE_AT:
            if progress:
                progress("optimize", Path(self.name), len(todo), len(todo))
            self.optimize()
        return result

    def optimize(self) -> None:
        """Build the vector index of what was written since the last build.

        The embedded engine has no background optimizer: until this runs, new points are
        searched by brute force (8.8 ms at 21k paragraphs against 0.35 ms after; see
        docs/benchmarks.md). Ingest calls it for collections of ``OPTIMIZE_AT``
        paragraphs or more; a Qdrant server optimises by itself.
        """
        self._collection.backend.optimize()

    @staticmethod
    def _failed(result: IngestResult, progress: Progress | None, path: Path,
                exc: Exception, done: int, total: int) -> None:
        reason = exc.reason if isinstance(exc, ParseError) else str(exc)
        result.failures.append(IngestFailure(str(path), reason))
        if progress:
            progress("failed", path, done, total)

    def _store_group(self, group: list[tuple[int, Path, str, Structured]],
                     result: IngestResult, progress: Progress | None, total: int) -> None:
        """Embed the group's paragraphs in one call, then write document by document."""
        if not group:
            return
        texts = [search_texts(structured) for _, _, _, structured in group]
        try:
            vectors = embed_texts(self._embeddings, [t for doc in texts for t in doc])
        except (OSError, ValueError) as exc:
            if len(group) == 1:
                done, path, _, _ = group[0]
                self._failed(result, progress, path, exc, done, total)
                return
            # Find out which document the embedding backend refuses; store the others.
            for item in group:
                self._store_group([item], result, progress, total)
            return
        start = 0
        for (done, path, digest, structured), doc_texts in zip(group, texts, strict=True):
            stop = start + len(doc_texts)
            try:
                result.documents.append(self._collection.put_document(
                    source=str(path.resolve()), title=structured.title,
                    sections=structured.sections, paragraphs=structured.paragraphs,
                    vectors=vectors[start:stop], content_hash=digest, search_texts=doc_texts))
            except (OSError, ValueError) as exc:
                self._failed(result, progress, path, exc, done, total)
            else:
                if progress:
                    progress("stored", path, done, total)
            start = stop

    def remove(self, doc_id: int) -> None:
        """Delete a document and its paragraphs."""
        self._collection.delete_document(doc_id)

    # -- reading --------------------------------------------------------------------

    def documents(self) -> list[Document]:
        return self._collection.documents()

    def toc(self, doc_id: int | Sequence[int] | None = None) -> list[Document]:
        """Documents with their section trees; one document or several by id."""
        if doc_id is None:
            return self._collection.documents()
        ids = [doc_id] if isinstance(doc_id, int) else list(doc_id)
        return [self._collection.document(i) for i in ids]

    def search(self, query: str | Sequence[str], k: int = 5,
               window: tuple[int, int] = (0, 0), doc_id: int | Sequence[int] | None = None,
               mode: RetrievalMode | None = None) -> Retrieved:
        """:meth:`retrieve` with the ranked hits and their scores too."""
        queries = [query] if isinstance(query, str) else list(query)
        if not queries or not all(isinstance(q, str) and q.strip() for q in queries):
            raise ValueError("the query is empty")
        doc_ids = [doc_id] if isinstance(doc_id, int) else doc_id
        mode = mode or self.mode
        vectors = [None if mode == "bm25" else self._embeddings.embed_query(q)
                   for q in queries]
        return retrieve(self._collection, query if isinstance(query, str) else queries,
                        vectors[0] if isinstance(query, str) else vectors, k=k,
                        window=window, doc_ids=doc_ids, mode=mode, reranker=self.reranker)

    def retrieve(self, query: str | Sequence[str], k: int = 5,
                 window: tuple[int, int] = (0, 0), doc_id: int | Sequence[int] | None = None,
                 mode: RetrievalMode | None = None) -> list[Paragraph]:
        """Algorithm 1's Retrieve: top-k hits, each widened by ``window`` inside its
        section, de-duplicated keeping first occurrence, in that order. A list of
        queries merges their rankings in rank order."""
        return self.search(query, k=k, window=window, doc_id=doc_id, mode=mode).paragraphs

    def read_section(self, doc_id: int, sec_id: int, start: int = 0,
                     end: int = 10**9) -> list[Paragraph]:
        """Algorithm 1's ReadSection: paragraphs ``start..end`` (inclusive, clipped)."""
        return self.read(doc_id, sec_id, start, end).paragraphs

    def read(self, doc_id: int, sec_id: int, start: int = 0, end: int = 10**9) -> SectionRead:
        """:meth:`read_section` with the clipped range reported."""
        return read_section(self._collection, doc_id, sec_id, start, end)

    # -- lifecycle ------------------------------------------------------------------

    def close(self) -> None:
        """Flush and release the store (the embedded engine's lock included)."""
        self._collection.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Index", "IngestError", "IngestFailure", "IngestResult", "StoreError"]
