"""Dense vectors for the floors above the corpus: the local MiniLM model's, for a
similarity that must not depend on which embeddings a collection was built with (the
extractive policy's title and sentence choices, the sufficiency check's support), and any
backend's, for the evaluation's flat baselines ranked by the index's own model.

The store owns the models (:mod:`deepread.stores.embeddings`); nodes and the face reach
them here, as they reach the store only through :class:`~deepread.corpus.index.Index`.
"""

from __future__ import annotations

import numpy as np
from langchain_core.embeddings import Embeddings

from deepread.stores.embeddings import embed_texts, local_embeddings


def local_vectors(texts: list[str]) -> np.ndarray:
    """L2-normalised vectors of ``texts`` by the process-wide local MiniLM model."""
    return local_embeddings().embed_array(texts)


def vectors(embeddings: Embeddings, texts: list[str]) -> np.ndarray:
    """Vectors of ``texts`` from any embeddings backend, as a float32 array."""
    return embed_texts(embeddings, texts)
