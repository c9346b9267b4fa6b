"""A long ingest's vectors: the model's for its first paragraphs, then a table's the model
taught on them.

A shelf of filings is ~750 MiniLM tokens a page, and the int8 MiniLM embeds ~5,500 tokens/s
on two cores: ~7 pages/s, two hours for FinanceBench's public filings. So an
ingest embeds its first :data:`TEACH_AT` paragraphs with the model, as always, keeping each
one's tokens and vector; once it has that many it fits a static table to them
(:mod:`deepread.stores.taught_table`, ~30 s) and embeds every later paragraph of the run
with the table, ~100× faster. The table lives in the model's own space: a query is still
embedded by the model, and measured on the 155-filing library the gold page is found as
often as with the model's vectors (docs/benchmarks.md). A text holding no token the table was
taught is embedded by the model.

Only an ingest that embeds more than :data:`TEACH_AT` paragraphs changes at all: a
collection of a few dozen filings, and every test collection, is embedded by the model
alone. The table is the run's: nothing is stored beside the collection, and a later run
teaches its own if it is long enough. ``exact_vectors`` (``deepread ingest
--exact-vectors``) keeps the model for every paragraph.
"""

from __future__ import annotations

import numpy as np

from deepread.stores.embeddings import LocalEmbeddings
from deepread.stores.taught_table import TaughtTable, teach, token_ids

#: Paragraphs an ingest embeds with the model before it teaches the table the rest take
#: (~1,800 pages of filings, ~4 min here). Measured on filings: taught from 20,000 the
#: table ranks gold pages as the model does; from 5,000–10,000, a little worse.
TEACH_AT = 20_000


class TaughtVectors:
    """One ingest's embedding: the model until :data:`TEACH_AT` paragraphs, then the
    table taught on them (call :meth:`teach` when :attr:`ready`)."""

    def __init__(self, model: LocalEmbeddings, teach_at: int | None = None) -> None:
        self._model = model
        self._teach_at = TEACH_AT if teach_at is None else teach_at
        self._ids: list[np.ndarray] = []
        self._vectors: list[np.ndarray] = []
        self.table: TaughtTable | None = None
        #: Texts embedded by the model, and by the table.
        self.by_model = 0
        self.by_table = 0

    @property
    def ready(self) -> bool:
        """Whether enough paragraphs are kept to teach the table, and it is not taught."""
        return self.table is None and len(self._ids) >= self._teach_at

    def __call__(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` (L2-normalised, in the model's space)."""
        if self.table is None:
            vectors = self._model.embed_array(texts)
            self.by_model += len(texts)
            for ids, vector in zip(token_ids(self._model.tokenizer(), texts), vectors, strict=True):
                if len(ids):  # (a text of no token teaches nothing)
                    self._ids.append(ids)
                    self._vectors.append(vector)
            return vectors
        vectors, ok = self.table.embed(texts)
        self.by_table += int(ok.sum())
        if not ok.all():
            rest = [t for t, known in zip(texts, ok, strict=True) if not known]
            vectors[~ok] = self._model.embed_array(rest)
            self.by_model += len(rest)
        return vectors

    def teach(self) -> None:
        """Fit the table to the paragraphs kept, and embed with it from now on."""
        tokenizer = self._model.tokenizer()
        rows = teach(self._ids, np.stack(self._vectors), tokenizer.get_vocab_size())
        self.table = TaughtTable(rows, tokenizer)
        self._ids, self._vectors = [], []
