"""The offline local embedding model's name and tokenizer file, known without loading it.

Kept apart from :mod:`deepread.stores.embeddings` (which defines the model as a LangChain
``Embeddings`` and so imports LangChain): a command that only reads a collection checks
the collection was built with this model by its name, and the common-words list reads
this tokenizer's vocabulary, without paying ~0.3 s for LangChain's import (issue 36).
"""

from __future__ import annotations

from pathlib import Path

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
TOKENIZER_FILE = Path(__file__).with_name("minilm") / "tokenizer.json"


def names_local(spec: str | None) -> bool:
    """Whether the embeddings name ``spec`` means the local model (the default)."""
    return (spec or "").strip() in ("", "local", LOCAL_MODEL_ID)
