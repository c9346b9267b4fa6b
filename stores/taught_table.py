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

What a table knows is what its sample held, so it says what it does not know:

- a token is *taught* only when :data:`MIN_TEXTS` texts of the sample hold it — one is
  enough: the ridge keeps the row of a word seen once small, and a paragraph whose one
  telling word ("cyclicality") the sample held once must keep that word (requiring three
  texts lost such paragraphs' gold pages on filings, docs/benchmarks.md);
- each token has a *weight*, ``a / (a + p)`` of its share ``p`` of the sample's tokens
  (smooth inverse frequency, ``a`` = :data:`SMOOTH`): "the", "of" — or whatever a sample is
  flooded with — weigh next to nothing, a word seen in a few paragraphs ~1, a token never
  taught 1;
- a text is the table's to embed only when its taught tokens carry :data:`MIN_MASS` of that
  weight and :data:`MIN_SHARE` of all its tokens' (:meth:`TaughtTable.embed_ids` says which);
  a text of stop-words, or of words the sample never held, goes to the model. So no row of
  a stop-word can carry a vector, whatever the sample was. The vector itself stays the
  plain mean of the taught tokens' rows: weighting the mean too fitted the model worse
  (cosine 0.734 against 0.773 on filings it was not taught from, docs/benchmarks.md).

Teaching is bounded whatever the text: at most :data:`MAX_PAIRS` (text, token) pairs are
fitted (20,000 paragraphs of filings hold ~0.9 M; 20,000 of 128 random tokens 2.6 M, then
fitted from a spread of the texts that fits), and the dimensions are solved
:data:`COLUMNS` at a time, so the solver's vectors stay a few MB per block.

The table lives in MiniLM's own space, so vectors from it sit beside the model's in one
collection and a query is still embedded by the model: stores and searches stay as they
are. Tokens are the model's WordPiece tokens, cut at its 256.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Ridge weight: rows of tokens seen rarely stay small rather than fit one paragraph.
RIDGE = 1e-3
#: Conjugate-gradient rounds (measured on filings: 25 rounds rank as the model does, 10
#: a little worse).
ROUNDS = 25
#: Texts of the sample a token must appear in to be taught (a token the sample never
#: holds has no row).
MIN_TEXTS = 1
#: Smooth inverse frequency's ``a``: a token making up 0.1 % of the sample weighs ½.
SMOOTH = 1e-3
#: The weight a text's taught tokens must carry (about two ordinary words) …
MIN_MASS = 2.0
#: … and their share of the weight of all its tokens, for the table to embed it.
MIN_SHARE = 0.6
#: (text, token) pairs one teaching fits at most: its time and memory, whatever the text.
MAX_PAIRS = 1_000_000
#: Dimensions solved side by side (the solver's vectors: tokens × COLUMNS floats each).
COLUMNS = 96
#: Gathered floats per step of a product: small enough to stay in cache (measured: 512
#: values of 384 floats a step 3× faster than 32,768).
_CHUNK = 512 * 384


def weights(ids: Sequence[np.ndarray], vocabulary: int) -> tuple[np.ndarray, np.ndarray]:
    """Each vocabulary token's weight over the texts of token ``ids`` (1 for a token they
    never hold), and whether it is taught (held by :data:`MIN_TEXTS` texts or more)."""
    flat = np.concatenate(ids) if len(ids) else np.zeros(0, np.int64)
    share = np.bincount(flat, minlength=vocabulary)[:vocabulary] / max(1, len(flat))
    texts = np.zeros(vocabulary, np.int64)
    for one in ids:
        texts[np.unique(one)] += 1
    return (SMOOTH / (SMOOTH + share)).astype(np.float32), texts >= MIN_TEXTS


def _within_budget(ids: Sequence[np.ndarray], taught: np.ndarray) -> list[int]:
    """Which texts to fit: all when their distinct taught (text, token) pairs are at most
    :data:`MAX_PAIRS`, else an even spread of them that is."""
    pairs = np.fromiter((len(np.unique(x[taught[x]])) for x in ids), np.int64, len(ids))
    total = int(pairs.sum())
    if total <= MAX_PAIRS:
        return [i for i in range(len(ids)) if pairs[i]]
    keep = np.linspace(0, len(ids) - 1, max(1, int(len(ids) * MAX_PAIRS / total))).astype(int)
    chosen = np.unique(keep)
    chosen = chosen[np.cumsum(pairs[chosen]) <= MAX_PAIRS]
    return [int(i) for i in chosen if pairs[i]]


class _Product:
    """``M @ w`` for a sparse ``M`` given row-major (``row`` sorted, ``col``, ``val``), its
    chunks planned once: each a run of whole rows whose values fit :data:`_CHUNK` floats
    at :data:`COLUMNS` columns, gathered, scaled and summed row by row into the output
    (measured: planned, 96 columns at a time, 30 % faster than 384 columns chunked as it
    goes)."""

    def __init__(self, row: np.ndarray, col: np.ndarray, val: np.ndarray, rows: int) -> None:
        starts = np.searchsorted(row, np.arange(rows + 1))
        chunk = max(1, _CHUNK // COLUMNS)
        self.rows = rows
        self.parts: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray]] = []
        first = 0
        while first < rows:
            # rows [first, last) whose values fit one chunk (at least one row)
            last = int(np.searchsorted(starts, starts[first] + chunk, "right")) - 1
            last = min(max(last, first + 1), rows)
            s, e = int(starts[first]), int(starts[last])
            offsets = (starts[first:last] - s).astype(np.intp)
            self.parts.append((first, last, col[s:e].astype(np.intp), val[s:e, None], offsets))
            first = last

    def __call__(self, w: np.ndarray) -> np.ndarray:
        out = np.empty((self.rows, w.shape[1]), np.float32)
        for first, last, cols, vals, offsets in self.parts:
            gathered = np.take(w, cols, axis=0)
            gathered *= vals
            np.add.reduceat(gathered, offsets, axis=0, out=out[first:last])
        return out


class _Bags:
    """Paragraphs as bags of tokens: a sparse matrix ``X`` whose row ``i`` holds each
    token's count in text ``i`` over the text's length (the mean a table row-average
    takes), over the ``m`` tokens present (columns renumbered ``0..m-1``); every text
    holds a token and every token a text."""

    def __init__(self, ids: Sequence[np.ndarray]) -> None:
        lengths = np.fromiter((len(x) for x in ids), np.int64, len(ids))
        rows = np.repeat(np.arange(len(ids), dtype=np.int64), lengths)
        flat = np.concatenate(ids).astype(np.int64) if len(ids) else np.zeros(0, np.int64)
        self.tokens, col = np.unique(flat, return_inverse=True)
        m = len(self.tokens)
        # np.unique on row * m + col: sorted by row, then column, with each token's count
        # in its text
        codes, counts = np.unique(rows * m + col, return_counts=True)
        del rows, col, flat
        row, col = (codes // m).astype(np.int32), (codes % m).astype(np.int32)
        del codes
        val = (counts / lengths[row]).astype(np.float32)
        self.n = len(ids)
        #: each token's sum of squares over the texts: the normal matrix's diagonal
        self.squares = np.bincount(col, val * val, m)
        self.dot = _Product(row, col, val, self.n)  # X @ w: each text's mean of its rows
        by_col = np.argsort(col, kind="stable")
        # Xᵀ @ z: each token's sum over the texts holding it, weighted as in X
        self.tdot = _Product(col[by_col], row[by_col], val[by_col], m)


def _solve(bags: _Bags, y: np.ndarray, ridge: float, rounds: int) -> np.ndarray:
    """Rows ``w`` (one per token of ``bags``) minimising ``‖X w − y‖² + ridge ‖w‖²``."""

    def normal(w: np.ndarray) -> np.ndarray:  # (XᵀX + λI) w
        return bags.tdot(bags.dot(w)) + ridge * w

    # Conjugate gradients, each column its own system solved side by side (one matrix, so
    # one pair of sparse products a round serves them all), preconditioned by the normal
    # matrix's diagonal: a common token's equation is ~10⁴× a rare one's, and scaled each
    # to its own the rounds needed fall several-fold (measured).
    diagonal = (bags.squares + ridge)[:, None].astype(np.float32)
    r = bags.tdot(y)
    w = np.zeros_like(r)
    p = r / diagonal
    rz = (r * p).sum(0)
    for _ in range(rounds):
        ap = normal(p)
        alpha = rz / np.maximum((p * ap).sum(0), 1e-30)
        w += p * alpha
        r -= ap * alpha
        del ap
        z = r / diagonal
        rz_next = (r * z).sum(0)
        z += p * (rz_next / np.maximum(rz, 1e-30))
        p, rz = z, rz_next
    return w


def teach(
    ids: Sequence[np.ndarray],
    vectors: np.ndarray,
    vocabulary: int,
    *,
    taught: np.ndarray | None = None,
    ridge: float = RIDGE,
    rounds: int = ROUNDS,
) -> np.ndarray:
    """A ``(vocabulary, dim)`` table whose rows, averaged over a text's ``taught`` tokens
    (default: every token), come closest to ``vectors`` (the model's, one per text of
    token ``ids``). Tokens not taught get zero rows; texts with no taught token teach
    nothing; past :data:`MAX_PAIRS` an even spread of the texts is fitted."""
    if not len(ids) or any(len(x) == 0 for x in ids):
        raise ValueError("every text taught from must hold at least one token")
    taught = np.ones(vocabulary, bool) if taught is None else taught
    chosen = _within_budget(ids, taught)
    table = np.zeros((vocabulary, vectors.shape[1]), np.float32)
    if not chosen:
        return table
    bags = _Bags([ids[i][taught[ids[i]]] for i in chosen])
    y = np.asarray(vectors)[chosen]
    for start in range(0, y.shape[1], COLUMNS):
        block = np.ascontiguousarray(y[:, start : start + COLUMNS], np.float32)
        table[bags.tokens, start : start + COLUMNS] = _solve(bags, block, ridge, rounds)
    return table


class TaughtTable:
    """A taught table, its tokens' weights and which are taught, and the tokenizer whose
    ids index it (the local model's)."""

    def __init__(
        self,
        rows: np.ndarray,
        tokenizer: Any,
        *,
        weight: np.ndarray | None = None,
        taught: np.ndarray | None = None,
    ) -> None:
        self.rows = rows
        self.tokenizer = tokenizer
        self.weight = np.ones(len(rows), np.float32) if weight is None else weight
        known = np.abs(rows).sum(1) > 0
        self.taught = known if taught is None else taught & known

    @classmethod
    def learn(cls, ids: Sequence[np.ndarray], vectors: np.ndarray, tokenizer: Any) -> TaughtTable:
        """The table taught on texts of token ``ids`` and the model's ``vectors`` of them."""
        vocabulary = tokenizer.get_vocab_size()
        weight, taught = weights(ids, vocabulary)
        rows = teach(ids, vectors, vocabulary, taught=taught)
        return cls(rows, tokenizer, weight=weight, taught=taught)

    def embed_ids(self, ids: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """L2-normalised vectors of texts of token ``ids``, and which of them the table may
        embed (its taught tokens carry :data:`MIN_MASS` and :data:`MIN_SHARE` of the
        weight); the others get zero rows, marked ``False``, for the model."""
        out = np.zeros((len(ids), self.rows.shape[1]), np.float32)
        ok = np.zeros(len(ids), bool)
        for i, one in enumerate(ids):
            if not len(one):
                continue
            weight, known = self.weight[one], self.taught[one]
            mass = float(weight[known].sum())
            if mass < MIN_MASS or mass < MIN_SHARE * float(weight.sum()):
                continue
            out[i] = self.rows[one[known]].mean(0)
            ok[i] = True
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        ok &= norms[:, 0] > 0
        return out / np.clip(norms, 1e-12, None), ok

    def embed(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`embed_ids` of ``texts``."""
        return self.embed_ids(token_ids(self.tokenizer, texts))


def token_ids(tokenizer: Any, texts: list[str]) -> list[np.ndarray]:
    """Each text's WordPiece ids, without the model's [CLS]/[SEP]; cut where ``tokenizer``
    cuts (the model's own, :meth:`~deepread.stores.local_model.LocalModel.tokenizer`, at
    its 256 tokens)."""
    return [
        np.asarray(e.ids, np.int64) for e in tokenizer.encode_batch(texts, add_special_tokens=False)
    ]
