"""Flat chunk indexes for the baselines: the documents' text in overlapping token windows.

The paper's single-pass baseline follows the OpenAI File Search configuration: chunks
of 800 tokens overlapping by 400 (§4.2). Each document of a collection is reassembled
from its sections and paragraphs in reading order (headings as lines, tables as their
cell text, as a flat text extractor gives them), cut into windows of real tiktoken
tokens, and stored as a one-section document of one paragraph per chunk in a sibling
collection ``<collection>__chunks<size>`` of the same store, so chunks are ranked by
exactly the same retriever (embeddings, BM25, reranker) as the agent's paragraphs. The
chunk documents keep their original's source path, and are rebuilt only when the
original changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from langchain_core.embeddings import Embeddings

from deepread.corpus.index import Index
from deepread.corpus.vectors import vectors
from deepread.records.documents import Document, Paragraph, Section
from deepread.text.markup import plain_table
from deepread.text.tokens import count_tokens, encoding

CHUNK_VERSION = "1"  # bump when the reassembly or cutting changes: chunk indexes rebuild


def chunk_collection(collection: str, size: int) -> str:
    """Name of the chunk collection of ``collection`` for ``size``-token chunks."""
    return f"{collection}__chunks{size}"


def document_parts(index: Index, doc: Document) -> list[tuple[Section, list[Paragraph]]]:
    """Each section of ``doc`` in reading order with its direct paragraphs.

    Sections are numbered as their headings occur and a section's direct paragraphs
    precede its first subsection, so ``sec_id`` order is reading order.
    """
    return [
        (sec, index.read(doc.doc_id, sec.sec_id).paragraphs if sec.n_para else [])
        for sec in doc.sections
    ]


def document_markdown(index: Index, doc: Document) -> str:
    """``doc`` as Markdown: ``#`` headings by level, paragraphs as stored (tables HTML)."""
    lines: list[str] = []
    for sec, paragraphs in document_parts(index, doc):
        lines.append(f"{'#' * max(1, sec.level)} {' '.join(sec.title.split())}")
        lines += [p.text for p in paragraphs]
    return "\n\n".join(lines) + "\n"


def document_plain(index: Index, doc: Document) -> str:
    """``doc`` as plain text: heading lines, paragraphs, tables as ``cell | cell`` rows."""
    blocks: list[str] = []
    for sec, paragraphs in document_parts(index, doc):
        blocks.append(sec.title)
        blocks += [plain_table(p.text) if p.kind == "table" else p.text for p in paragraphs]
    return "\n\n".join(b for b in blocks if b.strip())


def cut(text: str, size: int, overlap: int) -> list[str]:
    """Windows of ``size`` tokens starting every ``size - overlap`` tokens.

    The last window ends at the text's end; a tail already inside the previous window
    starts no new one. Whitespace inside a chunk collapses to single spaces.
    """
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, size), got size={size} overlap={overlap}")
    tokens = encoding().encode_ordinary(text)
    step = size - overlap
    starts = range(0, max(1, len(tokens) - overlap), step)
    chunks = [" ".join(encoding().decode(tokens[s : s + size]).split()) for s in starts]
    return [c for c in chunks if c]


def _digest(doc: Document, size: int, overlap: int) -> str:
    key = f"{doc.content_hash}|{size}|{overlap}|v{CHUNK_VERSION}"
    return hashlib.sha256(key.encode()).hexdigest()


def ensure_chunks(
    index: Index,
    chunks: Index,
    embeddings: Embeddings,
    size: int,
    overlap: int,
    say: Callable[[str], None] = lambda _: None,
) -> int:
    """Bring the chunk index ``chunks`` in line with ``index``'s documents.

    Returns the number of chunk documents (re)built; unchanged ones are kept and chunk
    documents whose original left the collection are removed.
    """
    wanted = {doc.source: doc for doc in index.documents()}
    built = 0
    for old in chunks.documents():
        if old.source not in wanted:
            chunks.remove(old.doc_id)
    for source, doc in wanted.items():
        digest = _digest(doc, size, overlap)
        known = chunks.collection.find_source(source)
        if known is not None and known.content_hash == digest:
            continue
        if not built:
            say(f"building the {size}-token chunk index {chunks.name!r}…")
        texts = cut(document_plain(index, doc), size, overlap)
        sizes = [count_tokens(t) for t in texts]
        section = Section(
            sec_id=0, title=doc.title, level=0, parent=None, n_para=len(texts), n_tok=sum(sizes)
        )
        paragraphs = [
            Paragraph(doc_id=0, sec_id=0, para_idx=i, text=t) for i, t in enumerate(texts)
        ]
        chunks.collection.put_document(
            source=source,
            title=doc.title,
            sections=[section],
            paragraphs=paragraphs,
            vectors=vectors(embeddings, texts),
            content_hash=digest,
        )
        built += 1
    return built
