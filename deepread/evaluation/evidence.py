"""Gold-evidence matching: which quotes appear in the text a mode surfaced.

Both sides are normalised as ``shared/tools/evidence_probe.py`` does (HTML tags
stripped, entities unescaped, NFKC, ``¶`` removed, whitespace collapsed), so a quote
counts whether the paragraph is prose, a list item or an HTML table cell. Texts are
joined per document in the order they were shown, as the probe joins them, and a quote
is looked for only in the documents its ``doc`` names (file name first, the same stem
with another suffix as fallback — a PDF print of an HTML page); a ``doc`` the
collection does not hold falls back to all documents.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from deepread.evaluation.dataset import Evidence
from deepread.records.documents import Document
from deepread.text.markup import untagged

_SPACE = re.compile(r"\s+")

#: A piece of text shown to the model: the source path of its document, and the text.
Piece = tuple[str, str]


def normalize(text: str) -> str:
    """Text as compared: tags stripped, unescaped, NFKC, no pilcrows, one-space runs."""
    text = html.unescape(untagged(text or ""))
    text = unicodedata.normalize("NFKC", text).replace("\u00b6", " ")
    return _SPACE.sub(" ", text).strip()


class DocResolver:
    """Maps an evidence ``doc`` name to the sources of the collection's documents."""

    def __init__(self, documents: Iterable[Document]) -> None:
        self.by_id: dict[int, str] = {}
        self._names: dict[str, set[str]] = {}
        self._stems: dict[str, set[str]] = {}
        for doc in documents:
            self.by_id[doc.doc_id] = doc.source
            path = PurePath(doc.source)
            self._names.setdefault(path.name, set()).add(doc.source)
            self._stems.setdefault(path.stem, set()).add(doc.source)

    def resolve(self, name: str) -> set[str] | None:
        """Sources holding ``name``: exact file name, else same stem; None if unknown."""
        if not name:
            return None
        base = PurePath(name).name
        return self._names.get(base) or self._stems.get(PurePath(base).stem) or None

    def missing(self, evidence: Sequence[Evidence]) -> list[str]:
        """Evidence document names the collection does not hold (each once)."""
        return sorted({e.doc for e in evidence if e.doc and self.resolve(e.doc) is None})


@dataclass(frozen=True, slots=True)
class Coverage:
    """Which gold quotes were found; ``share`` is None when there is no gold evidence."""

    found: tuple[bool, ...]

    @property
    def share(self) -> float | None:
        return sum(self.found) / len(self.found) if self.found else None


def coverage(
    evidence: Sequence[Evidence], pieces: Iterable[Piece], resolver: DocResolver
) -> Coverage:
    """The gold quotes of ``evidence`` that occur in ``pieces``."""
    joined: dict[str, list[str]] = {}
    for source, text in pieces:
        joined.setdefault(source, []).append(text)
    haystacks = {source: normalize(" \n ".join(texts)) for source, texts in joined.items()}
    found = []
    for item in evidence:
        quote = normalize(item.quote)
        allowed = resolver.resolve(item.doc)
        places = (
            haystacks.values()
            if allowed is None
            else (haystacks[s] for s in allowed if s in haystacks)
        )
        found.append(bool(quote) and any(quote in h for h in places))
    return Coverage(tuple(found))
