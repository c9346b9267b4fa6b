"""``deepread.Index``: open a collection, ingest files, and read it the DeepRead way.

The one facade over a collection: the CLI, the graphs' nodes, the evaluation and users'
Python all read and write through it (re-exported as ``deepread.Index``).

    >>> import deepread
    >>> idx = deepread.Index.open(store="./store", collection="docs")
    >>> idx.ingest(["manual.pdf", "notes/"])
    >>> idx.retrieve("How do I reset the device?", k=5, window=(1, 1))
    >>> idx.read_section(doc_id=1, sec_id=4, start=0, end=10)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

from typing_extensions import TypedDict, Unpack

from deepread.corpus.library import Library, Match
from deepread.environment.settings import current as current_settings
from deepread.records.documents import Document, Paragraph
from deepread.records.errors import StoreError, UsageError
from deepread.records.reads import Retrieved, SectionRead
from deepread.stores.backend import RetrievalMode
from deepread.stores.collection import Collection
from deepread.stores.local_model import LOCAL_MODEL_ID, local_model, names_local
from deepread.stores.location import list_collections, open_backend
from deepread.stores.reading import read_range, retrieve_windows
from deepread.stores.rerank import Reranker, resolve_reranker
from deepread.text.hygiene import brief, clean_query

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from deepread.corpus.describe import DescribeBudget
    from deepread.corpus.enrich import ModelLike
    from deepread.corpus.files import IngestFailure
    from deepread.corpus.pipeline import IngestError, IngestResult, Progress
    from deepread.corpus.retriever import DeepReadRetriever

#: The largest id or count the Index takes: what a signed 64-bit integer holds. Every
#: id, section, ``k`` and window is checked against it here, where all callers (the
#: CLI, the tools, MCP, users' Python) come through: past it the engine failed to
#: convert the number and the caller was told the store "could not be used", with its
#: internals and path.
MAX_WHOLE = 2**63 - 1


def whole(name: str, value: object, least: int = 0) -> int:
    """``value`` when it is a whole number from ``least`` to :data:`MAX_WHOLE`, else a
    :class:`UsageError` naming ``name`` and the range (``True`` is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_WHOLE:
        raise UsageError(
            f"{name} must be a whole number from {least} to {MAX_WHOLE} (got {brief(value)})"
        )
    return value


def doc_ids(value: int | Sequence[int] | None) -> list[int] | None:
    """The doc_ids of a scope (one, several, or ``None`` for all), each :func:`whole`."""
    if value is None:
        return None
    many = value if isinstance(value, Sequence) and not isinstance(value, str) else [value]
    return [whole("doc_id", d) for d in many]


def edge(name: str, value: object) -> int:
    """A read's section, ``start`` or ``end``: any whole number (the range is clipped to
    the section; a section that is not there is a ``CoordinateError`` naming those that
    are)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be a whole number (got {brief(value)})")
    return value


#: Names this module offers that load the ingest pipeline (its parsers and model steps)
#: only when asked for: a command that reads a collection never pays for them.
_INGEST_NAMES = {
    "IngestError": "deepread.corpus.pipeline",
    "IngestResult": "deepread.corpus.pipeline",
    "IngestFailure": "deepread.corpus.files",
}


def __getattr__(name: str) -> object:
    module = _INGEST_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)


class IngestOptions(TypedDict, total=False):
    """What :meth:`Index.ingest` and :meth:`Index.ingest_report` may be told besides
    the paths, every key optional (see :meth:`Index.ingest`)."""

    #: Called with each file's events (``parsed``, ``stored``, ``failed`` …); no default.
    progress: Progress | None
    #: Model steps (a model name, or a chat model object); none by default.
    ocr_model: ModelLike
    vision_model: ModelLike
    describe_model: ModelLike
    describe_budget: DescribeBudget | None
    #: Parse and store again files whose content is unchanged (default False).
    force: bool
    #: Processes parsing files side by side (default: one per core when the files to
    #: parse hold 1 MiB or more, else 1 — a background thread, no process).
    workers: int
    #: The local model for every paragraph, no taught table (default False).
    exact_vectors: bool


class Index:
    """A deepread collection: ingest documents, list their TOC, retrieve and read."""

    def __init__(
        self,
        collection: Collection,
        embeddings: Embeddings | Callable[[], Embeddings],
        store: str,
        mode: RetrievalMode = "hybrid",
        reranker: Reranker | None = None,
    ) -> None:
        """``embeddings``: the model, or what makes it on first use (a command that
        never embeds — listing, reading — then never loads it)."""
        self._collection = collection
        self._embeddings: Embeddings | None = None
        self._make_embeddings: Callable[[], Embeddings] | None = None
        if callable(embeddings) and not hasattr(embeddings, "embed_query"):
            self._make_embeddings = embeddings
        else:  # an Embeddings (a LangChain one need not be callable, nor be a subclass)
            self._embeddings = cast("Embeddings", embeddings)
        # A query's vector without LangChain's Embeddings (the local model: Index.open).
        self._encode_query: Callable[[str], list[float]] | None = None
        self.store = store
        self.mode: RetrievalMode = mode
        self.reranker = reranker
        self._library = Library()  # the documents' cards and the document search
        self._loading: threading.Thread | None = None  # the local model, loading

    @classmethod
    def open(
        cls,
        store: str | Path | None = None,
        collection: str = "default",
        *,
        embeddings: Embeddings | str | None = None,
        mode: RetrievalMode = "hybrid",
        reranker: Reranker | str | None = None,
        searching: bool | Literal["once"] = False,
    ) -> Index:
        """Open (or prepare to create) ``collection`` in ``store``.

        ``store``: a directory for the embedded engine, or a Qdrant server URL; default
        ``DEEPREAD_STORE`` / ``QDRANT_URL`` / the per-user data directory.
        ``embeddings``: any LangChain ``Embeddings``, or ``"local"`` / ``"openai:<model>"``;
        default ``$DEEPREAD_EMBEDDINGS``, else the offline local model. A collection
        remembers the model that built it and refuses queries with another.
        ``reranker``: ``"coverage"`` (default, ``$DEEPREAD_RERANK``), ``"none"``, or any
        :class:`~deepread.stores.rerank.Reranker`.
        ``searching``: a search will follow — the local model starts loading in a thread
        now, while the store opens (~0.3-0.5 s of a short command's run); ``"once"``:
        one search and the process ends (the ``search`` command), so the model's
        session skips graph optimisation (~0.2 CPU s less; each query ~30 ms more, and
        documents embedded later get the optimised session).
        """
        settings = current_settings()  # defaults for what the caller left out
        location = str(store) if store is not None else settings.store
        spec = embeddings if embeddings is not None else settings.embeddings
        local = isinstance(spec, str) and names_local(spec)
        loading = (
            local_model().load_beside(optimised=searching != "once")
            if local and searching
            else None
        )

        def model() -> Embeddings:
            from deepread.stores.embeddings import resolve_embeddings

            return resolve_embeddings(spec, openai_base_url=settings.openai_base_url)

        # The local model is named without being loaded (or LangChain imported): it
        # loads when something is embedded. Any other is resolved now, to learn its id.
        if local:
            chosen: Embeddings | Callable[[], Embeddings] = model
            model_id = LOCAL_MODEL_ID
        else:
            from deepread.stores.embeddings import embeddings_id

            chosen = model()
            model_id = embeddings_id(chosen)
        try:
            backend = open_backend(
                location,
                collection,
                api_key=settings.qdrant_api_key,
                timeout=settings.qdrant_timeout,
                wait=settings.store_wait,
            )
        except BaseException:
            if loading is not None:
                loading.join()  # (a process must not end while it builds its session)
            raise
        index = cls(
            Collection(backend, collection, model_id),
            chosen,
            location,
            mode,
            resolve_reranker(reranker if reranker is not None else settings.rerank),
        )
        if local:
            # The same process-wide model LocalEmbeddings runs: the same vectors, and a
            # search never imports LangChain for them (~0.3-0.8 s).
            index._encode_query = lambda text: local_model().embed_query(text)
        index._loading = loading
        return index

    @staticmethod
    def list_collections(
        store: str, *, api_key: str | None = None, timeout: float = 30.0
    ) -> list[str]:
        """The names of the collections ``store`` holds, without opening any (none for a
        store not yet made); ``api_key`` and ``timeout`` are for a Qdrant server URL."""
        return list_collections(store, api_key=api_key, timeout=timeout)

    @property
    def collection(self) -> Collection:
        return self._collection

    @property
    def embeddings(self) -> Embeddings:
        """The embedding backend this index ranks with (made on first use)."""
        if self._embeddings is None:
            assert self._make_embeddings is not None  # one of the two is always set
            self._embeddings = self._make_embeddings()
        return self._embeddings

    @property
    def name(self) -> str:
        return self._collection.name

    # -- ingest ---------------------------------------------------------------------

    def ingest(
        self, paths: Iterable[str | Path] | str | Path, **options: Unpack[IngestOptions]
    ) -> list[Document]:
        """Ingest files and folders; returns the stored (or unchanged) documents.

        ``workers``: processes that parse files side by side while this one embeds and
        stores them, in the order given; by default one per core when the files to parse
        hold 1 MiB or more (:func:`deepread.corpus.parse_ahead.workers_for`), as
        ``deepread ingest`` does; 1 parses in a background thread, starting no process.
        A file another process is writing at the same moment is reported as failed,
        naming it; nothing of it is stored by this call.

        An ingest that embeds more than 20,000 paragraphs with the local model (a shelf of
        filings) embeds the rest with a static table the model taught on those, ~100×
        faster and ranking as the model does, wherever the table is checked to match the
        model (:mod:`deepread.corpus.taught_vectors`); ``exact_vectors`` keeps the model
        for every paragraph.

        Documents come back as :meth:`documents` lists them: under the title that
        identifies each among the others, with its card. A file holding the same bytes
        as a stored document whose file still holds them is a copy: nothing is stored
        and it is not in the list (:meth:`ingest_report` names it in ``duplicates``).

        A file whose content is unchanged since its last ingest is skipped, unless
        ``force``: then it is parsed and stored again under its doc_id, as after an
        upgrade whose parser or search terms changed (a store keeps what the version that
        wrote it made of each file). A file that
        fails to parse is reported in :class:`IngestError` after all others are stored;
        a document is replaced all at once or not at all.

        Optional model steps (a model name for an OpenAI-compatible endpoint, or a chat
        model object; outputs cached beside the store): ``ocr_model`` reads PDFs page by
        page as images (:mod:`deepread.corpus.ocr`), ``vision_model`` describes figures
        (:mod:`deepread.corpus.vision`), ``describe_model`` writes a one-line summary per
        section for the TOC within ``describe_budget`` (:mod:`deepread.corpus.describe`).
        """
        result = self.ingest_report(paths, **options)
        if result.failures:
            from deepread.corpus.pipeline import IngestError

            raise IngestError(result.failures, result.documents + result.skipped)
        return result.documents + result.skipped

    def ingest_report(
        self, paths: Iterable[str | Path] | str | Path, **options: Unpack[IngestOptions]
    ) -> IngestResult:
        """Like :meth:`ingest`, but returns failures instead of raising them."""
        from deepread.corpus.enrich import IngestModels
        from deepread.corpus.pipeline import ingest_files

        unknown = sorted(set(options) - IngestOptions.__optional_keys__)
        if unknown:  # as a signature would: a misspelt option is not silently ignored
            raise TypeError(f"unexpected keyword argument(s) {', '.join(map(repr, unknown))}")
        models = IngestModels.build(
            self.store,
            ocr_model=options.get("ocr_model"),
            vision_model=options.get("vision_model"),
            describe_model=options.get("describe_model"),
            describe_budget=options.get("describe_budget"),
        )
        try:
            result = ingest_files(
                self._collection,
                self.embeddings,
                paths,
                options.get("progress"),
                models,
                force=options.get("force", False),
                workers=options.get("workers"),
                exact_vectors=options.get("exact_vectors", False),
            )
        finally:
            models.close()
        return self._titled(result)

    def _titled(self, result: IngestResult) -> IngestResult:
        """``result`` with its documents as :meth:`documents` gives them — under their
        identifying titles, with their cards — so ``ingest`` names a document as ``docs``
        does ("(8) Previous topic" was the parsed title of "Classes (tutorial-classes.pdf)").
        A document another process removed meanwhile keeps its stored record."""
        if not (result.documents or result.skipped or result.duplicates):
            return result
        titled = {d.doc_id: d for d in self.documents()}
        result.documents = [titled.get(d.doc_id, d) for d in result.documents]
        result.skipped = [titled.get(d.doc_id, d) for d in result.skipped]
        for copy in result.duplicates:
            copy.document = titled.get(copy.document.doc_id, copy.document)
        return result

    def optimize(self) -> None:
        """Build the vector index of what was written since the last build.

        The embedded engine has no background optimizer: until this runs, new points are
        searched by brute force (a dense rank 3.30 ms at 20,878 paragraphs against 0.26 ms
        after; docs/history/benchmarks-2026.md §1). Ingest calls it for collections of
        ``OPTIMIZE_AT`` paragraphs or more; a Qdrant server optimises by itself. The
        embedded store builds it on a copy, in a process of its own, answering reads
        meanwhile (writes wait): it needs room on the disk for that copy.
        """
        self._collection.backend.optimize()

    def remove(self, doc_id: int) -> None:
        """Delete a document and its paragraphs, all or nothing; a document another
        process is writing at that moment is a
        :class:`~deepread.stores.writers.WriteConflict` (nothing removed)."""
        self._collection.delete_document(whole("doc_id", doc_id))

    # -- reading --------------------------------------------------------------------

    def documents(self) -> list[Document]:
        """The collection's documents, each under the title that identifies it among the
        others and with its card (:mod:`deepread.corpus.library`)."""
        return self._library.documents(self._collection.documents())

    def document(self, doc_id: int) -> Document:
        """Document ``doc_id`` with its section tree, as :meth:`documents` gives it (its
        identifying title and card); ``CoordinateError`` (a ``KeyError``) naming the
        documents there are when it is not in the collection. A document stored since
        this index was opened, by this process or another, is found."""
        doc_id = whole("doc_id", doc_id)
        self._collection.document(doc_id)  # the error for an unknown id; finds new ones
        return self._library.document(self._collection.documents(), doc_id)

    def versions(self) -> dict[int, str]:
        """Each document's committed version, by doc_id, as of now: it changes whenever
        the document is written again (a re-ingest, another process's write) — what a
        thread's memory of what it was shown is checked against (nodes/state.py)."""
        return self._collection.versions()

    def toc(self, doc_id: int | Sequence[int] | None = None) -> list[Document]:
        """Documents with their section trees; one document or several by id."""
        if doc_id is None:
            return self.documents()
        return [self.document(i) for i in doc_ids(doc_id) or []]

    def find_documents(self, query: str, documents: Sequence[int] | None = None) -> list[Match]:
        """The documents ``query`` names — its companies, courses, years, forms matched
        with each document's card — best first; ``[]`` when it names none
        (:mod:`deepread.corpus.library.search`). ``documents``: search only these."""
        query = clean_query(query) if isinstance(query, str) else query
        if not isinstance(query, str) or not query.strip():
            raise UsageError("the query is empty")
        return self._library.find(self._collection.documents(), query, doc_ids(documents))

    def card_holds(self, word: str) -> tuple[bool, bool]:
        """Whether some document's card holds ``word`` (an abbreviation of its key's
        words included): anywhere on it, and in its key (title, file name, metadata)."""
        return self._library.holds(self._collection.documents(), word)

    def text_uses(self, word: str, documents: Sequence[int] | None = None) -> bool:
        """Whether any paragraph of the collection (of ``documents``) holds ``word``, as
        the BM25 index reads words."""
        word = clean_query(word).strip()
        if not word:
            return False
        return bool(
            retrieve_windows(
                self._collection,
                word,
                None,
                k=1,
                window=(0, 0),
                doc_ids=documents,
                mode="bm25",
                reranker=None,
            ).hits
        )

    def search(
        self,
        query: str | Sequence[str],
        k: int = 5,
        window: tuple[int, int] = (0, 0),
        doc_id: int | Sequence[int] | None = None,
        mode: RetrievalMode | None = None,
        exclude: Iterable[tuple[int, int, int]] = (),
    ) -> Retrieved:
        """:meth:`retrieve` with the ranked hits and their scores too. ``exclude``:
        coordinates never returned as hits (paragraphs already shown): the hits are the
        best ``k`` of the rest, the next results page."""
        # Lone surrogates and NULs (a tool call's JSON can carry them) never reach the
        # tokenizers or the engine (text/hygiene.py).
        if isinstance(query, str):
            query = clean_query(query)
        elif isinstance(query, Sequence):
            query = [clean_query(q) if isinstance(q, str) else q for q in query]
        else:
            raise UsageError(
                f"the query must be text or a list of texts, not {type(query).__name__}"
            )
        queries = [query] if isinstance(query, str) else list(query)
        if not queries or not all(isinstance(q, str) and q.strip() for q in queries):
            raise UsageError("the query is empty")
        whole("k", k, least=1)
        if (
            not isinstance(window, Sequence)
            or len(window) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) for w in window)
            or not all(0 <= w <= MAX_WHOLE for w in window)
        ):
            raise UsageError(
                f"window sizes must be whole numbers from 0 to {MAX_WHOLE} (got {brief(window)})"
            )
        scope = doc_ids(doc_id)
        mode = mode or self.mode
        encode = self._encode_query if self._embeddings is None else None
        encode = encode or self.embeddings.embed_query
        vectors = [None if mode == "bm25" else encode(q) for q in queries]
        return retrieve_windows(
            self._collection,
            query if isinstance(query, str) else queries,
            vectors[0] if isinstance(query, str) else vectors,
            k=k,
            window=(window[0], window[1]),
            doc_ids=scope,
            mode=mode,
            reranker=self.reranker,
            exclude=frozenset(exclude),
        )

    def retrieve(
        self,
        query: str | Sequence[str],
        k: int = 5,
        window: tuple[int, int] = (0, 0),
        doc_id: int | Sequence[int] | None = None,
        mode: RetrievalMode | None = None,
    ) -> list[Paragraph]:
        """Algorithm 1's Retrieve: top-k hits, each widened by ``window`` inside its
        section, de-duplicated keeping first occurrence, in that order. A list of
        queries merges their rankings in rank order."""
        return self.search(query, k=k, window=window, doc_id=doc_id, mode=mode).paragraphs

    def read_section(
        self, doc_id: int, sec_id: int, start: int = 0, end: int = 10**9
    ) -> list[Paragraph]:
        """Algorithm 1's ReadSection: paragraphs ``start..end`` (inclusive, clipped)."""
        return self.read(doc_id, sec_id, start, end).paragraphs

    def read(self, doc_id: int, sec_id: int, start: int = 0, end: int = 10**9) -> SectionRead:
        """:meth:`read_section` with the clipped range reported."""
        return read_range(
            self._collection,
            whole("doc_id", doc_id),
            # Any whole number: sections are looked up in the document's tree, not the
            # engine, and one that is not there is named with the valid range.
            edge("sec_id", sec_id),
            edge("start", start),
            edge("end", end),
        )

    def as_retriever(
        self, k: int = 5, window: tuple[int, int] = (0, 0), documents: Sequence[int] | None = None
    ) -> DeepReadRetriever:
        """This collection as a LangChain ``BaseRetriever`` (corpus/retriever.py): each
        Document is a paragraph with ``doc_id``, ``sec_id``, ``para_idx``, ``page``,
        ``source`` and ``section`` in its metadata."""
        from deepread.corpus.retriever import DeepReadRetriever

        return DeepReadRetriever(
            index=self,
            k=k,
            window=window,
            documents=list(documents) if documents is not None else None,
        )

    # -- lifecycle ------------------------------------------------------------------

    def release(self) -> None:
        """Let go of the store while idle: on the embedded engine, this process stops
        holding it (or stops reaching it through the process that holds it), and the next
        call that reads or writes takes it again — ~0.1-0.3 s on the README's store.
        Another process never waits for an index that holds the store (its calls are
        answered by this one, stores/relay.py), but a process that answers others must
        be running: release before idling for long. Call it between uses only, never
        while another thread reads or writes through this index. Nothing to do on a
        Qdrant server."""
        self._collection.release()

    def leave(self) -> None:
        """This process ends now without closing the index (a quick exit): other
        processes whose calls it answers are handed over first; the rest is left to the
        exit, which loses no acknowledged write."""
        self._joined()
        self._collection.leave()

    def _joined(self) -> None:
        """Wait for the local model's loading thread, if one was started: a process must
        not end while onnxruntime builds its session (it aborts)."""
        loading, self._loading = self._loading, None
        if loading is not None:
            loading.join()

    def close(self) -> None:
        """Flush and release the store (the embedded engine's lock included)."""
        self._joined()
        self._collection.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Index", "IngestError", "IngestFailure", "IngestResult", "StoreError"]
