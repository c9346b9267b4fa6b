"""The benchmarks' flat baseline: each PDF's PDFium text layer in overlapping word windows.

Definition (shared with the benchmarks' held-out judge): each PDF's PDFium text layer is
cut into 200-word windows every 100 words, written as one ``.txt`` per PDF (one window
per paragraph, blank lines between, as ``shared/tools/evidence_probe.py`` writes them)
and ingested into a collection of its own, ``<collection>__flatpdf200``, so windows are
ranked by exactly the agent's retriever. For a question, the windows of its document
are taken in rank order until the next would pass the budget: the agent's own spend on
that question, at least 1,500 tokens, tokens counted as characters ÷ 4 on both sides.

The ``.txt`` files live beside the store (``flat-text/<collection>/``) so a second run
finds them unchanged and skips their ingest. Each window remembers the pages its words
came from, so the baseline's pages can be compared with the agent's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.embeddings import Embeddings

from deepread.corpus.index import Index
from deepread.records.documents import Paragraph
from deepread.records.locations import sidecar_dir

WORDS, STEP = 200, 100
MIN_BUDGET = 1500  # tokens: the flat baseline never gets less, whatever the agent spent
CANDIDATES = 40  # windows ranked per question, as the probe (a budget holds ~6)
CHARS_PER_TOKEN = 4


def char_tokens(chars: int) -> float:
    """Tokens as the benchmarks count them on both sides: characters ÷ 4."""
    return chars / CHARS_PER_TOKEN


def flat_collection(collection: str) -> str:
    return f"{collection}__flatpdf{WORDS}"


def text_layer(path: Path) -> list[tuple[str, int]]:
    """The words of the PDF's PDFium text layer, each with its 1-based page."""
    import pypdfium2 as pdfium

    words: list[tuple[str, int]] = []
    pdf = pdfium.PdfDocument(str(path))
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            try:
                words += [(w, i + 1) for w in textpage.get_text_range().split()]
            finally:
                textpage.close()
                page.close()
    finally:
        pdf.close()
    return words


def windows(words: list[tuple[str, int]]) -> list[tuple[str, frozenset[int]]]:
    """200-word windows every 100 words (the probe's cut) with the pages they span."""
    out = []
    for i in range(0, max(1, len(words) - STEP), STEP):
        part = words[i : i + WORDS]
        if part:
            out.append((" ".join(w for w, _ in part), frozenset(p for _, p in part)))
    return out


def take(ranked: list[Paragraph], budget: float) -> list[Paragraph]:
    """``ranked`` in order until the next would pass ``budget`` tokens (chars ÷ 4)."""
    shown, chars = [], 0
    for p in ranked:
        if char_tokens(chars + len(p.text)) > budget:
            break
        shown.append(p)
        chars += len(p.text)
    return shown


@dataclass(slots=True)
class FlatDoc:
    """One PDF's flat document: its id in the flat collection and its windows' pages."""

    doc_id: int
    pages: dict[str, frozenset[int]] = field(default_factory=dict)  # window text -> pages

    def pages_of(self, paragraph: Paragraph) -> frozenset[int]:
        """Pages of a shown window (a paragraph the text reader split: its window's)."""
        if paragraph.text in self.pages:
            return self.pages[paragraph.text]
        return next(
            (pages for text, pages in self.pages.items() if paragraph.text in text), frozenset()
        )


class FlatWindows:
    """The flat-window collection of the PDFs a benchmark run asks about."""

    def __init__(self, store: str, collection: str, embeddings: Embeddings) -> None:
        self.index = Index.open(store, flat_collection(collection), embeddings=embeddings)
        self.folder = sidecar_dir(store) / "flat-text" / collection
        self.docs: dict[str, FlatDoc] = {}  # PDF source path -> its flat document

    def close(self) -> None:
        self.index.close()

    def prepare(self, pdfs: list[Path], say: Callable[[str], None] = lambda _: None) -> None:
        """Write and ingest the ``.txt`` of each PDF (unchanged ones are skipped)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        texts: dict[Path, tuple[Path, list[tuple[str, frozenset[int]]]]] = {}
        for pdf in pdfs:
            cut = windows(text_layer(pdf))
            txt = self.folder / f"{pdf.stem}.txt"
            body = "\n\n".join(text for text, _ in cut) + "\n"
            if not txt.exists() or txt.read_text(encoding="utf-8") != body:
                txt.write_text(body, encoding="utf-8")
            if cut:  # a PDF without a text layer has no flat baseline: it shows nothing
                texts[pdf] = (txt, cut)
        if not texts:
            return
        say(
            f"flat baseline: {len(texts)} PDF text layer(s) in {WORDS}-word windows, "
            f"collection {self.index.name!r}…"
        )
        stored = {
            Path(d.source).resolve(): d
            for d in self.index.ingest([txt for txt, _ in texts.values()])
        }
        for pdf, (txt, cut) in texts.items():
            doc = stored[txt.resolve()]
            self.docs[str(pdf)] = FlatDoc(doc.doc_id, {text: pages for text, pages in cut})

    def select(
        self, question: str, pdf: str, budget: float
    ) -> tuple[list[Paragraph], FlatDoc | None]:
        """The windows of ``pdf`` shown for ``question`` within ``budget`` tokens."""
        doc = self.docs.get(pdf)
        if doc is None:
            return [], None
        ranked = self.index.retrieve(question, k=CANDIDATES, window=(0, 0), doc_id=doc.doc_id)
        return take(ranked, budget), doc
