"""BM25 sparse vectors, computed locally by Qdrant's own tokenizer (no model files).

The engine applies IDF (the vectors are created with the IDF modifier), so a document
vector holds only term frequencies; the same encoder feeds a Qdrant server, which keeps
embedded and server collections scoring alike.
"""

from __future__ import annotations

from functools import lru_cache

import qdrant_edge as qe

# Mean words per paragraph over the devset pages (HTML and PDF), rounded.
AVG_PARAGRAPH_WORDS = 40.0


@lru_cache(maxsize=1)
def bm25_encoder() -> qe.Bm25:
    """English BM25 (stemming, stop words, k=1.2, b=0.75).

    ``avg_len`` is the length normalisation's reference: paragraphs, not the 256-token
    chunks Qdrant's default assumes, so a long paragraph is not favoured over a short one.
    """
    return qe.Bm25(qe.Bm25Config(language="english", avg_len=AVG_PARAGRAPH_WORDS))
