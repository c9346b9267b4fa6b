"""A long ingest's vectors: the model's for its first paragraphs, then a table's the model
taught on them — where the table is known to match the model.

A shelf of filings is ~750 MiniLM tokens a page, and the int8 MiniLM embeds ~5,500 tokens/s
on two cores: ~7 pages/s, two hours for FinanceBench's public filings. So an
ingest embeds its first :data:`TEACH_AT` paragraphs with the model, as always, keeping each
one's tokens and vector; once it has that many it fits a static table to them
(:mod:`deepread.stores.taught_table`) and embeds later paragraphs with the table, ~100×
faster. The table lives in the model's own space: a query is still embedded by the model,
and measured on the 155-filing library the gold page is found as often as with the model's
vectors (docs/benchmarks.md).

What teaches the table must not be able to spoil it (21 files of stop-word lines
taught a table that collapsed every later document onto a few rows; a syllabus after a
shelf of filings was embedded from the filings' words). So:

- **what it is taught from** is drawn across the run's documents — the paragraphs the
  model embedded, each document's share bounded (:func:`spread`), and every later document
  adds a few of its own (its probe, below), so a table taught again has seen them;
- **stop-words cannot carry a vector**, and a paragraph whose taught tokens are too few or
  too common goes to the model (:meth:`~deepread.stores.taught_table.TaughtTable.embed_ids`);
- **it is checked before it is used**: a twentieth of what it could be taught from is held
  back, and the table embeds it; below :data:`FLOOR` of cosine to the model's vectors, or
  embedding less than :data:`MIN_USE` of it, the table is not used: the run keeps the
  model, and says so (:class:`TableCheck`, the pipeline's "untaught" event);
- **each later document is probed**: :data:`PROBE` of its paragraphs, spread over it, are
  embedded by the model (those vectors are the ones stored) and by the table; where they
  differ — the mean cosine below :data:`DOC_FLOOR` — the whole document is the model's.
  When documents the table does not know have given the model :data:`RETEACH` paragraphs,
  the table is taught again, from a spread that holds them.

Only an ingest that embeds more than :data:`TEACH_AT` paragraphs changes at all: a
collection of a few dozen filings, and every test collection, is embedded by the model
alone. The table is the run's: nothing is stored beside the collection, and a later run
teaches its own if it is long enough. ``exact_vectors`` (``deepread ingest
--exact-vectors``) keeps the model for every paragraph.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from deepread.stores.embeddings import LocalEmbeddings
from deepread.stores.taught_table import TaughtTable, token_ids

#: Paragraphs an ingest embeds with the model before it teaches the table the rest take
#: (~1,800 pages of filings, ~4 min here). Measured on filings: taught from 20,000 the
#: table ranks gold pages as the model does; from 5,000–10,000, a little worse.
TEACH_AT = 20_000
#: The held-back paragraphs' mean cosine to the model's vectors a table must reach to be
#: used (filings it was not taught from: 0.78 taught from 14 filings, 0.86 from 106).
FLOOR = 0.7
#: … and the share of them it must embed itself (the rest going to the model).
MIN_USE = 0.5
#: Paragraphs held back to check a table: one in twenty of its sample, or every tenth
#: document of a sample of HELD_DOCUMENTS or more; at most HELD_BACK paragraphs.
HELD_BACK = 1_000
HELD_DOCUMENTS = 10
#: A later document's paragraphs the model embeds to probe the table: one in sixteen,
#: from 8 to 32 (a document of fewer than twice 8 is the model's whole).
PROBE = (8, 32, 16)
#: A document is the table's when its probe's mean cosine to the model's vectors is at
#: least the held-back paragraphs' less DOC_MARGIN, and never under DOC_FLOOR (measured, a
#: table taught on 14 filings, 0.89 on those held back: five filings of other companies
#: 0.73–0.82, syllabi 0.31–0.46, Python's documentation pages 0.28–0.38; docs/benchmarks.md).
DOC_MARGIN = 0.2
DOC_FLOOR = 0.6
#: Paragraphs the model embeds for documents the table did not match before the table is
#: taught again, from a spread that holds them.
RETEACH = 4_000
#: Teachings one run may do (each bounded, :mod:`deepread.stores.taught_table`).
MAX_TEACHINGS = 4
#: Paragraphs kept to teach from (~60 MB); past it the documents holding most are thinned.
POOL = 40_000


@dataclass(frozen=True, slots=True)
class TableCheck:
    """One teaching and its check on the paragraphs held back."""

    #: paragraphs the table was taught from, of how many documents
    taught_from: int
    documents: int
    #: paragraphs held back, the share of them the table embedded, their mean cosine to
    #: the model's vectors
    held: int
    embedded: float
    cosine: float
    #: whether the table is used from now on
    used: bool
    seconds: float

    def why_not(self) -> str:
        """Why the table was not used ("" when it is)."""
        if self.used:
            return ""
        if self.embedded < MIN_USE:
            return (
                f"it could embed only {self.embedded:.0%} of {self.held:,} paragraphs held back "
                f"(the others' taught words too few or too common; at least {MIN_USE:.0%})"
            )
        return (
            f"its vectors of {self.held:,} paragraphs held back were at a cosine of "
            f"{self.cosine:.2f} to the model's (at least {FLOOR})"
        )


def _held_for(count: int) -> int:
    """Paragraphs held back from a sample of ``count``."""
    return max(1, min(HELD_BACK, count // 20))


def _held_back(sample: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Which of ``sample`` (indices into ``docs``, each item's document) are held back to
    check a table: of a sample of :data:`HELD_DOCUMENTS` documents or more, every tenth
    document — so the check measures what a later document will get, not what the
    documents it was taught on get (measured on filings: 0.78 against 0.89) —, else one
    paragraph in twenty; at most :data:`HELD_BACK` paragraphs either way."""
    keys = np.unique(docs[sample])
    if len(keys) >= HELD_DOCUMENTS:
        out = sample[np.isin(docs[sample], keys[len(keys) // 20 :: 10])]
        return out[spread(docs[out], HELD_BACK)]
    return sample[:: max(2, len(sample) // _held_for(len(sample)))]


def spread(docs: np.ndarray, count: int) -> np.ndarray:
    """Indices of ``count`` of the items of ``docs`` (each item's document), each document's
    share as equal as their sizes allow (a document smaller than its share gives all it
    has), each spread evenly over its document; in their original order."""
    keys, sizes = np.unique(docs, return_counts=True)
    if count >= len(docs):
        return np.arange(len(docs))
    # the largest per-document quota q with sum(min(size, q)) <= count
    low, high = 0, int(sizes.max())
    while low < high:
        mid = (low + high + 1) // 2
        if np.minimum(sizes, mid).sum() <= count:
            low = mid
        else:
            high = mid - 1
    chosen: list[np.ndarray] = []
    for key in keys:
        where = np.flatnonzero(docs == key)
        take = min(len(where), low)
        chosen.append(where[np.linspace(0, len(where) - 1, take).astype(int)][:take])
    return np.sort(np.concatenate(chosen))


class TaughtVectors:
    """One ingest's embedding: the model until :data:`TEACH_AT` paragraphs, then the table
    taught on them where it matches the model (call :meth:`teach` when :attr:`ready`;
    :meth:`plan` the documents of each embedding call)."""

    def __init__(self, model: LocalEmbeddings, teach_at: int | None = None) -> None:
        self._model = model
        self._teach_at = TEACH_AT if teach_at is None else teach_at
        # what the model embedded: each text's tokens, vector (float16: ~0.8 KB) and document
        self._ids: list[np.ndarray] = []
        self._vectors: list[np.ndarray] = []
        self._docs: list[int] = []
        self.table: TaughtTable | None = None
        self.checks: list[TableCheck] = []
        self._in_use: TableCheck  # the check of the table in use (set with it)
        #: Texts embedded by the model, and by the table; documents the table did not match.
        self.by_model = 0
        self.by_table = 0
        self.documents_by_model = 0
        #: Texts the model embedded, probes included, and the seconds it took them: what
        #: an ingest's time left prices the model's share of later documents by.
        self.model_texts = 0
        self.model_seconds = 0.0
        # the documents of the embedding call under way: each text's document, each
        # document's texts and route ("model" or "table"), the probes' vectors
        self._doc_of: dict[str, int] = {}
        self._texts: dict[int, list[str]] = {}
        self._route: dict[int, str] = {}
        self._probed: dict[str, np.ndarray] = {}
        self._documents = 0
        self._unknown = 0  # model texts of documents the table did not know, since teaching

    @property
    def first_teaching(self) -> int:
        """The paragraphs the model embeds before the table is first taught (those it is
        taught from and those held back to check it)."""
        return self._teach_at + _held_for(self._teach_at)

    @property
    def ready(self) -> bool:
        """Whether it is time to teach: :data:`TEACH_AT` paragraphs kept and no table yet,
        or :data:`RETEACH` paragraphs of documents the table did not know."""
        if len(self.checks) >= MAX_TEACHINGS:
            return False
        if not self.checks:
            return len(self._ids) >= self.first_teaching
        return self._unknown >= RETEACH

    def plan(self, documents: list[list[str]]) -> None:
        """The texts of the next embedding call, document by document (a text in several
        documents counts for its first): each document is probed when first embedded."""
        self._doc_of, self._texts, self._route, self._probed = {}, {}, {}, {}
        for texts in documents:
            key = self._documents
            self._documents += 1
            self._texts[key] = texts
            for text in texts:
                self._doc_of.setdefault(text, key)

    def __call__(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` (L2-normalised, in the model's space)."""
        out = np.zeros((len(texts), self._model.dim), np.float32)
        todo: list[int] = []  # for the model
        table: list[int] = []
        for i, text in enumerate(texts):
            doc = self._doc_of.get(text)
            if text in self._probed:
                out[i] = self._probed[text]
            elif self.table is not None and (doc is None or self._route_of(doc) == "table"):
                table.append(i)
            else:
                todo.append(i)
        if table:
            vectors, ok = self.table.embed([texts[i] for i in table])  # type: ignore[union-attr]
            for j, i in enumerate(table):
                if ok[j]:
                    out[i] = vectors[j]
                else:
                    todo.append(i)
            self.by_table += int(ok.sum())
        if todo:
            unknown = [
                self.table is not None
                and self._route.get(self._doc_of.get(texts[i], -1)) == "model"
                for i in todo
            ]
            out[todo] = self._by_model([texts[i] for i in todo], unknown=unknown)
        return out

    def _by_model(self, texts: list[str], *, unknown: bool | list[bool]) -> np.ndarray:
        """The model's vectors of ``texts``, kept to teach from (``unknown``: of documents
        the table in use did not match, one flag or one per text)."""
        began = time.perf_counter()
        vectors = self._model.embed_array(texts)
        self.model_seconds += time.perf_counter() - began
        self.model_texts += len(texts)
        self.by_model += len(texts)
        flags = unknown if isinstance(unknown, list) else [unknown] * len(texts)
        for text, ids, vector, new in zip(
            texts, token_ids(self._model.tokenizer(), texts), vectors, flags, strict=True
        ):
            if len(ids):  # (a text of no token teaches nothing)
                self._ids.append(ids.astype(np.int32))
                self._vectors.append(vector.astype(np.float16))
                self._docs.append(self._doc_of.get(text, -1))
                self._unknown += new
        if len(self._ids) > POOL:
            self._thin()
        return vectors

    def _route_of(self, doc: int) -> str:
        """Whether the table or the model embeds document ``doc``: decided when it is first
        embedded, on its probe."""
        if doc not in self._route:
            self._route[doc] = self._probe(self._texts[doc])
        return self._route[doc]

    def _probe(self, texts: list[str]) -> str:
        least, most, every = PROBE
        distinct = list(dict.fromkeys(texts))
        if len(distinct) < 2 * least:
            return "model"
        count = min(most, max(least, len(distinct) // every))
        probe = [distinct[i] for i in np.linspace(0, len(distinct) - 1, count).astype(int)]
        model = self._by_model(probe, unknown=False)
        assert self.table is not None and self.checks
        vectors, ok = self.table.embed(probe)
        floor = max(DOC_FLOOR, self._in_use.cosine - DOC_MARGIN)
        if ok.any() and float((vectors[ok] * model[ok]).sum(1).mean()) < floor:
            self.documents_by_model += 1
            self._probed.update(zip(probe, model, strict=True))
            return "model"
        # a document is embedded one way: the probe's paragraphs as the others are
        self._probed.update(zip(probe, np.where(ok[:, None], vectors, model), strict=True))
        self.by_table += int(ok.sum())
        self.by_model -= int(ok.sum())
        return "table"

    def teach(self) -> TableCheck:
        """Teach a table from a spread of the paragraphs kept, check it on those held back,
        and embed with it from now on if it passes (else keep the model, or the table in
        use)."""
        started = time.perf_counter()
        docs = np.asarray(self._docs)
        sample = spread(docs, self._teach_at + _held_for(self._teach_at))
        held = _held_back(sample, docs)
        taught = np.setdiff1d(sample, held)
        table = TaughtTable.learn(
            [self._ids[i] for i in taught],
            np.stack([self._vectors[i] for i in taught]).astype(np.float32),
            self._model.tokenizer(),
        )
        vectors, ok = table.embed_ids([self._ids[i] for i in held])
        model = np.stack([self._vectors[i] for i in held]).astype(np.float32)
        model /= np.linalg.norm(model, axis=1, keepdims=True)
        cosine = float((vectors[ok] * model[ok]).sum(1).mean()) if ok.any() else 0.0
        used = bool(ok.mean() >= MIN_USE and cosine >= FLOOR)
        check = TableCheck(
            taught_from=len(taught),
            documents=len(np.unique(docs[taught])),
            held=len(held),
            embedded=float(ok.mean()),
            cosine=cosine,
            used=used,
            seconds=time.perf_counter() - started,
        )
        self.checks.append(check)
        if used:
            self.table, self._in_use = table, check
        self._unknown = 0
        return check

    def _thin(self) -> None:
        """Keep a spread of three quarters of :data:`POOL` paragraphs (the documents holding
        most give up the most)."""
        keep = spread(np.asarray(self._docs), POOL * 3 // 4)
        self._ids = [self._ids[i] for i in keep]
        self._vectors = [self._vectors[i] for i in keep]
        self._docs = [self._docs[i] for i in keep]
