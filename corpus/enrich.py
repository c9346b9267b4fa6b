"""The optional model steps of an ingest: OCR of PDFs, figure descriptions, TOC lines.

:class:`IngestModels` gathers what ``Index.ingest`` was given — an OCR model
(:mod:`deepread.corpus.ocr`), a vision model (:mod:`deepread.corpus.vision`), a describe
model (:mod:`deepread.corpus.describe`) with its budget — plus the shared cache in the
store's sidecar directory and the folder for images extracted from PDFs. Each is off
unless configured; with none configured an ingest makes no model call at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Union

from deepread.corpus.describe import DescribeBudget
from deepread.corpus.parsing import ParseError, Structured, parse_file
from deepread.corpus.parsing.structure import build_structure
from deepread.records.locations import sidecar_dir
from deepread.stores.cache import ModelCache
from deepread.text.markup import shown_text
from deepread.text.tokens import count_tokens_batch

if TYPE_CHECKING:  # LangChain's chat models load only when a model step is asked for
    from langchain_core.language_models import BaseChatModel

# (A string annotation: an ingest without model steps never imports LangChain's chat
# models, ~1-1.7 s of imports.)
ModelLike = Union["BaseChatModel", str, None]


@dataclass(slots=True)
class IngestModels:
    """The model steps of one ingest call and where their outputs are cached."""

    ocr: BaseChatModel | None = None
    vision: BaseChatModel | None = None
    describe: BaseChatModel | None = None
    budget: DescribeBudget = field(default_factory=DescribeBudget)
    cache: ModelCache | None = None
    image_dir: Path | None = None

    @property
    def active(self) -> bool:
        return any((self.ocr, self.vision, self.describe))

    @classmethod
    def build(
        cls,
        store: str,
        *,
        ocr_model: ModelLike = None,
        vision_model: ModelLike = None,
        describe_model: ModelLike = None,
        describe_budget: DescribeBudget | None = None,
    ) -> IngestModels:
        """Resolve model names (OpenAI-compatible endpoints) and open the sidecar cache."""
        if not (ocr_model or vision_model or describe_model):  # none: nothing to load
            return cls(budget=describe_budget or DescribeBudget())
        from deepread.corpus.vision import resolve_model

        models = cls(
            ocr=resolve_model(ocr_model),
            vision=resolve_model(vision_model),
            describe=resolve_model(describe_model),
            budget=describe_budget or DescribeBudget(),
        )
        if models.active:
            side = sidecar_dir(store)
            models.cache = ModelCache.beside(side)
            models.image_dir = side / "images"
        return models

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()

    # -- the steps ------------------------------------------------------------------

    def parse(self, path: Path) -> Structured:
        """``parse_file``, or the OCR route for a PDF when an OCR model is set."""
        if self.ocr is None or path.suffix.lower() != ".pdf":
            return parse_file(path)
        from deepread.corpus.ocr import ocr_pdf

        structured = build_structure(ocr_pdf(path, self.ocr, self.cache), fallback_title=path.stem)
        if not structured.paragraphs:
            raise ParseError(path, "the OCR model found no text content")
        return structured

    def enrich(self, path: Path, structured: Structured) -> Structured:
        """Figure descriptions appended, section summaries filled (when configured)."""
        paragraphs = structured.paragraphs
        sections = structured.sections
        if self.vision is not None:
            from deepread.corpus.vision import describe_figures

            paragraphs, described = describe_figures(
                paragraphs, self.vision, self.cache, source=path, image_dir=self.image_dir
            )
            if described:
                sections = _recount(sections, structured.paragraphs, paragraphs)
        if self.describe is not None:
            from deepread.corpus.describe import describe_sections

            sections = describe_sections(
                sections, paragraphs, self.describe, self.cache, self.budget
            )
        return replace(structured, sections=sections, paragraphs=paragraphs)


def _recount(sections, before, after):
    """Sections with ``n_tok`` updated for paragraphs whose text changed."""
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a.text != b.text]
    if not changed:
        return sections
    old = count_tokens_batch([shown_text(a.text, a.kind) for a, _ in changed])
    new = count_tokens_batch([shown_text(b.text, b.kind) for _, b in changed])
    out = [replace(s, children=list(s.children)) for s in sections]
    for (a, _), o, n in zip(changed, old, new, strict=True):
        out[a.sec_id].n_tok += n - o
    return out
