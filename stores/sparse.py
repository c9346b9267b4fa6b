"""BM25 sparse vectors, computed locally by Qdrant's own tokenizer (no model files).

The engine applies IDF (the vectors are created with the IDF modifier), so a document
vector holds only term frequencies; the same encoder feeds a Qdrant server, which keeps
embedded and server collections scoring alike. Both sides are encoded with their dates'
calendar-day terms (:mod:`deepread.text.dates`), so "March 31st" meets "3/31".
"""

from __future__ import annotations

from functools import lru_cache

import qdrant_edge as qe

from deepread.text.dates import with_calendar_days

# Mean words per paragraph over the devset pages (HTML and PDF), rounded.
AVG_PARAGRAPH_WORDS = 40.0


@lru_cache(maxsize=1)
def bm25_encoder() -> qe.Bm25:
    """English BM25 (stemming, stop words, k=1.2, b=0.75).

    ``avg_len`` is the length normalisation's reference: paragraphs, not the 256-token
    chunks Qdrant's default assumes, so a long paragraph is not favoured over a short one.
    """
    return qe.Bm25(qe.Bm25Config(language="english", avg_len=AVG_PARAGRAPH_WORDS))


def bm25_document(text: str) -> qe.SparseVector:
    """The BM25 vector a paragraph's search text is indexed by."""
    return bm25_encoder().embed_document(with_calendar_days(text))


def bm25_query(text: str) -> qe.SparseVector:
    """The BM25 vector a query searches with."""
    return bm25_encoder().embed_query(with_calendar_days(text, query=True))
