"""A static table taught by the local model: a paragraph's vector as the mean of its tokens'
rows, the rows fitted so that this mean lands where MiniLM puts the paragraph.

Embedding is what a long ingest spends its time on (~88 %): the int8 MiniLM
runs ~5,500 tokens/s on two cores, ~7 pages/s of filings. A static table embeds ~100×
faster — but a table *distilled* from single tokens (model2vec's method) lost 0.09 of
hybrid hit@10 on filings (docs/benchmarks.md): a token alone is not what the model makes of
it in a sentence. Fitted instead, as tokenlearn does, to the model's own vectors of real
paragraphs, the table lands near them (cosine ~0.86 on filings it never saw) and ranks the
gold page about as the model does (docs/benchmarks.md). It is a linear least-squares problem:
find rows ``W`` (one per vocabulary token) minimising ``‖X W − Y‖² + λ‖W‖²``, where a row
of ``X`` is a paragraph's token counts over its length and ``Y`` the model's vectors,
solved by conjugate gradients in numpy — no download, no new dependency.

The table lives in MiniLM's own space, so vectors from it sit beside the model's in one
collection and a query is still embedded by the model: stores and searches stay as they
are. Tokens are the model's WordPiece tokens, cut at its 256; a token the table was not
taught has no row, and a text of such tokens alone gets none (:meth:`TaughtTable.embed`
says which, for the model to embed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Ridge weight: rows of tokens seen rarely stay small rather than fit one paragraph.
RIDGE = 1e-3
#: Conjugate-gradient rounds (measured on filings: 25 rounds rank as the model does, 10
#: a little worse; ~35 s over 20,000 paragraphs here).
ROUNDS = 25
#: Gathered values per step of a product: small enough to stay in cache (measured: 512
#: values a step 3× faster than 32,768).
_CHUNK = 512


class _Bags:
    """Paragraphs as bags of tokens: a sparse matrix whose row ``i`` holds each token's
    count in text ``i`` over the text's length (the mean a table row-average takes), over
    the ``m`` tokens present (columns renumbered ``0..m-1``)."""

    def __init__(self, ids: Sequence[np.ndarray]) -> None:
        lengths = np.fromiter((len(x) for x in ids), np.int64, len(ids))
        rows = np.repeat(np.arange(len(ids), dtype=np.int64), lengths)
        flat = np.concatenate(ids).astype(np.int64) if len(ids) else np.zeros(0, np.int64)
        self.tokens, col = np.unique(flat, return_inverse=True)
        m = len(self.tokens)
        # np.unique on row * m + col: sorted by row, then column (the row-major order
        # the products below chunk by), with each token's count in its text
        codes, counts = np.unique(rows * m + col, return_counts=True)
        self.row, self.col = codes // m, codes % m
        self.val = (counts / lengths[self.row]).astype(np.float32)
        self.n = len(ids)
        self.starts = np.searchsorted(self.row, np.arange(self.n + 1))
        by_col = np.argsort(self.col, kind="stable")
        self._t_row, self._t_col, self._t_val = self.row[by_col], self.col[by_col], self.val[by_col]

    def dot(self, w: np.ndarray) -> np.ndarray:
        """``X @ w``: each text's mean of its tokens' rows."""
        out = np.zeros((self.n, w.shape[1]), np.float32)
        first = 0
        while first < self.n:
            # rows [first, last) whose values fit one chunk (at least one row)
            last = int(np.searchsorted(self.starts, self.starts[first] + _CHUNK, "right")) - 1
            last = min(max(last, first + 1), self.n)
            s, e = self.starts[first], self.starts[last]
            gathered = w[self.col[s:e]] * self.val[s:e, None]
            out[first:last] = np.add.reduceat(gathered, self.starts[first:last] - s)
            first = last
        return out

    def tdot(self, z: np.ndarray) -> np.ndarray:
        """``Xᵀ @ z``: each token's sum over the texts holding it, weighted as in ``X``."""
        out = np.zeros((len(self.tokens), z.shape[1]), np.float32)
        for s in range(0, len(self._t_col), _CHUNK):
            cols = self._t_col[s : s + _CHUNK]
            heads = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
            gathered = z[self._t_row[s : s + _CHUNK]] * self._t_val[s : s + _CHUNK, None]
            # a token's run may cross a chunk's edge: its two sums add up
            out[cols[heads]] += np.add.reduceat(gathered, heads)
        return out


def teach(
    ids: Sequence[np.ndarray],
    vectors: np.ndarray,
    vocabulary: int,
    *,
    ridge: float = RIDGE,
    rounds: int = ROUNDS,
) -> np.ndarray:
    """A ``(vocabulary, dim)`` table whose rows, averaged over a text's tokens, come
    closest to ``vectors`` (the model's, one per text of token ``ids``; every text holds at
    least one token). Tokens no text holds get zero rows."""
    if not len(ids) or any(len(x) == 0 for x in ids):
        raise ValueError("every text taught from must hold at least one token")
    bags = _Bags(ids)
    y = np.asarray(vectors, np.float32)

    def normal(w: np.ndarray) -> np.ndarray:  # (XᵀX + λI) w
        return bags.tdot(bags.dot(w)) + ridge * w

    # Conjugate gradients, each of the dim columns its own system solved side by side
    # (one matrix, so one pair of sparse products a round serves them all), preconditioned
    # by the normal matrix's diagonal: a common token's equation is ~10⁴× a rare one's, and
    # scaled each to its own the rounds needed fall several-fold (measured).
    diagonal = (np.bincount(bags.col, bags.val * bags.val, len(bags.tokens)) + ridge)[:, None]
    diagonal = diagonal.astype(np.float32)
    b = bags.tdot(y)
    w = np.zeros_like(b)
    r = b.copy()
    z = r / diagonal
    p = z.copy()
    rz = (r * z).sum(0)
    for _ in range(rounds):
        ap = normal(p)
        alpha = rz / np.maximum((p * ap).sum(0), 1e-30)
        w += p * alpha
        r -= ap * alpha
        z = r / diagonal
        rz_next = (r * z).sum(0)
        p = z + p * (rz_next / np.maximum(rz, 1e-30))
        rz = rz_next
    table = np.zeros((vocabulary, y.shape[1]), np.float32)
    table[bags.tokens] = w
    return table


class TaughtTable:
    """A taught table and the tokenizer whose ids index it (the local model's)."""

    def __init__(self, rows: np.ndarray, tokenizer: Any) -> None:
        self.rows = rows
        self.tokenizer = tokenizer
        self._known = np.abs(rows).sum(1) > 0

    def embed(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """L2-normalised vectors of ``texts``, and which of them the table could embed
        (a text with no taught token gets a zero row, marked ``False``)."""
        out = np.zeros((len(texts), self.rows.shape[1]), np.float32)
        ok = np.zeros(len(texts), bool)
        for i, ids in enumerate(token_ids(self.tokenizer, texts)):
            ids = ids[self._known[ids]]
            if len(ids):
                out[i] = self.rows[ids].mean(0)
                ok[i] = True
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        ok &= norms[:, 0] > 0
        return out / np.clip(norms, 1e-12, None), ok


def token_ids(tokenizer: Any, texts: list[str]) -> list[np.ndarray]:
    """Each text's WordPiece ids, without the model's [CLS]/[SEP]; cut where ``tokenizer``
    cuts (the model's own, :meth:`~deepread.stores.local_model.LocalModel.tokenizer`, at
    its 256 tokens)."""
    return [
        np.asarray(e.ids, np.int64) for e in tokenizer.encode_batch(texts, add_special_tokens=False)
    ]
