"""Store helpers: fast deterministic embeddings and the check that nothing is half-written."""

from __future__ import annotations

import hashlib

from langchain_core.embeddings import Embeddings

from deepread import Index
from deepread.stores.schema import Match


class HashEmbeddings(Embeddings):
    """A deterministic 16-d vector per text: fast, and enough for the store's logic."""

    model_id = "reliability-hash-16"

    @staticmethod
    def _vector(text: str) -> list[float]:
        digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        return [b / 255 + 0.01 for b in digest]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def assert_whole(idx: Index) -> None:
    """Every document holds exactly the paragraphs its TOC counts; nothing hidden."""
    for doc in idx.documents():
        assert idx.collection.count_paragraphs(doc.doc_id) == doc.n_para, doc.source
    if idx.collection.backend.exists():
        hidden = Match(equals={"record": "paragraph", "live": 0})
        assert idx.collection.backend.count(hidden) == 0


def stored_text(idx: Index) -> str:
    """Every stored paragraph's text, document by document, section by section."""
    return " ".join(
        p.text
        for d in idx.documents()
        for s in d.sections
        for p in idx.read_section(d.doc_id, s.sec_id)
    )
