"""Embedding backends: an offline local model by default, any LangChain ``Embeddings``.

The default is all-MiniLM-L6-v2 (384-d), int8 ONNX (:mod:`deepread.stores.local_model`:
the model, its files and its encoder), given LangChain's ``Embeddings`` face here by
:class:`LocalEmbeddings`. Which backend a name means is decided here from explicit values; the
environment (``DEEPREAD_EMBEDDINGS``) is read by :mod:`deepread.environment.settings`.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from deepread.records.errors import UsageError
from deepread.stores.local_model import (
    LOCAL_MODEL_ID,
    MODEL_SHA256,
    TOKENIZER_FILE,
    EmbeddingModelError,
    LocalModel,
    _model_file,
    check_sha256,
    local_model,
    names_local,
)

__all__ = [
    "LOCAL_MODEL_ID",
    "MODEL_SHA256",
    "TOKENIZER_FILE",
    "EmbeddingModelError",
    "LocalEmbeddings",
    "_model_file",
    "check_sha256",
    "embed_texts",
    "embeddings_id",
    "local_embeddings",
    "resolve_embeddings",
]


class LocalEmbeddings(Embeddings):
    """The local model (:class:`~deepread.stores.local_model.LocalModel`) as a LangChain
    ``Embeddings``: all-MiniLM-L6-v2, int8 ONNX, on the CPU. Made with ``threads``, it
    runs its own copy of the model; without, the process-wide one."""

    model_id = LOCAL_MODEL_ID
    dim = LocalModel.dim

    def __init__(self, threads: int | None = None) -> None:
        self._model = local_model() if threads is None else LocalModel(threads)

    def load(self) -> None:
        """Load the model now rather than at the first text embedded."""
        self._model.load()

    def load_beside(self) -> threading.Thread:
        """Load the model in a thread (:meth:`LocalModel.load_beside`; join it)."""
        return self._model.load_beside()

    def tokenizer(self) -> Any:
        """The model's WordPiece tokenizer (:meth:`LocalModel.tokenizer`)."""
        return self._model.tokenizer()

    def embed_array(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` as one ``(n, 384)`` array, in input order."""
        return self._model.embed_array(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._model.embed_query(text)


@lru_cache(maxsize=1)
def local_embeddings() -> LocalEmbeddings:
    """The process-wide local model (loading it costs ~0.3 s and ~60 MB)."""
    return LocalEmbeddings()


def resolve_embeddings(
    spec: str | Embeddings | None = None, *, openai_base_url: str | None = None
) -> Embeddings:
    """The embedding backend for ``spec``.

    ``None``/``""``/``"local"``: the offline local model; ``"openai:<model>"``:
    ``OpenAIEmbeddings`` at ``openai_base_url`` (the client reads ``OPENAI_API_KEY``
    itself); an ``Embeddings`` object is used as is.
    """
    if isinstance(spec, Embeddings):
        return spec
    name = (spec or "").strip()
    if names_local(name):
        return local_embeddings()
    provider, _, model = name.partition(":")
    if provider == "openai" and model:
        from langchain_openai import OpenAIEmbeddings

        # openai_api_base is the field `base_url` aliases (the typed constructor's name)
        return OpenAIEmbeddings(model=model, openai_api_base=openai_base_url or None)
    raise UsageError(
        f"unknown embeddings {name!r}: use 'local' or 'openai:<model>', or pass "
        "a LangChain Embeddings object from Python"
    )


def embeddings_id(embeddings: Embeddings) -> str:
    """A stable name for a backend, stored with a collection to catch mismatches."""
    model_id = getattr(embeddings, "model_id", None)
    if model_id:
        return str(model_id)
    model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
    name = type(embeddings).__name__
    return f"{name}:{model}" if model else name


def embed_texts(embeddings: Embeddings, texts: list[str]) -> np.ndarray:
    """Vectors for ``texts`` from any backend, as a float32 array."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    if isinstance(embeddings, LocalEmbeddings):
        return embeddings.embed_array(texts)
    return np.asarray(embeddings.embed_documents(texts), dtype=np.float32)
