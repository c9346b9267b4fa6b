"""Texts an ingest has already embedded, remembered so that a repeated text is not embedded
again.

A library repeats itself: the same company's filings of other years carry the same risk
factors, accounting policies and boilerplate word for word, and one filing repeats its page
banners and "See accompanying notes" lines. Embedding is what an ingest spends its time on
(~88 % of it), and a vector depends only on its text (the local model embeds
each text alone; a batch's other texts change nothing, :mod:`deepread.stores.local_model`),
so a text seen before takes the vector it got then: the same vector, not an approximation
— what is stored is exactly what embedding it again would store.

Measured on 26 FinanceBench filings (several years of five companies among them): 13 % of
the paragraphs, 8 % of the embedding tokens, repeat an earlier paragraph's search text.

The memory is one run's, bounded (oldest forgotten first): ~1.5 KB a text, 60,000 texts
~90 MB, which covers the last dozen filings — files are ingested in the order given, a
folder's in name order, so one company's years come together.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

#: Texts remembered at most (oldest forgotten first).
MEMO_TEXTS = 60_000


def _digest(text: str) -> bytes:
    # 16 bytes of BLAKE2b: a collision between two different paragraphs is out of reach.
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class VectorMemo:
    """Vectors of texts already embedded in this run, by the text's digest."""

    def __init__(self, limit: int = MEMO_TEXTS) -> None:
        self._limit = limit
        self._vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()
        #: Texts asked for, and of them embedded (the rest were remembered or repeated
        #: within one call).
        self.asked = 0
        self.embedded = 0

    def vectors(self, texts: list[str], embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """Vectors of ``texts`` in order: each distinct text not remembered is embedded
        once by ``embed`` (one call for all of them), the others are copied."""
        if not texts:
            return embed(texts)
        keys = [_digest(t) for t in texts]
        todo: dict[bytes, int] = {}  # digest -> its row in the embedded array
        new_texts: list[str] = []
        known: dict[bytes, np.ndarray] = {}  # taken before new ones push old ones out
        for key, text in zip(keys, texts, strict=True):
            if key in known or key in todo:
                continue
            if key in self._vectors:
                self._vectors.move_to_end(key)
                known[key] = self._vectors[key]
            else:
                todo[key] = len(todo)
                new_texts.append(text)
        self.asked += len(texts)
        self.embedded += len(todo)
        fresh = embed(new_texts) if todo else None
        if fresh is not None and len(todo) == len(texts):
            self._remember_all(todo, fresh)
            return fresh  # nothing repeated: the embedded array as it came
        dim = fresh.shape[1] if fresh is not None else next(iter(known.values())).shape[0]
        out = np.empty((len(texts), dim), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = fresh[todo[key]] if key in todo and fresh is not None else known[key]
        if fresh is not None:
            self._remember_all(todo, fresh)
        return out

    def _remember_all(self, rows: dict[bytes, int], fresh: np.ndarray) -> None:
        for key, row in rows.items():
            self._remember(key, fresh[row])

    def _remember(self, key: bytes, vector: np.ndarray) -> None:
        self._vectors[key] = np.array(vector, dtype=np.float32)  # a copy: not a view of a batch
        while len(self._vectors) > self._limit:
            self._vectors.popitem(last=False)
