"""TOC enrichment: a one-line description of each section, written at ingest.

``deepread ingest --describe-model NAME`` (or ``Index.ingest(..., describe_model=...)``)
asks a chat model for one line per section, stored as ``Section.summary`` and shown in
the TOC as ``| about: …`` (:mod:`deepread.corpus.toc_text`), where it is counted in the
TOC's token budget like the rest of the line.

What is sent: the section title and its *direct* paragraphs, cut to
:data:`MAX_SECTION_CHARS` characters (tables as cell text). Sections with no direct
paragraph are not described (their children are). Answers are cleaned to one line of at
most :data:`MAX_SUMMARY_CHARS` characters and cached by (sha256 of the text sent, model
name) in the store's sidecar cache, so an unchanged section is never described twice.

Budget (:class:`DescribeBudget`, per ingest call, shared by all its documents): at most
``max_sections`` model calls (default 200) and ``max_tokens`` prompt tokens (default
200,000, tiktoken). Cache hits cost nothing. Within a document, shallower sections are
described first (levels 1, then 2, …), so when the budget runs out it is the deepest
sections — the ones a collapsed TOC hides first — that go without a summary.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepread.prompts import load
from deepread.records.documents import Paragraph, Section
from deepread.stores.cache import ModelCache, sha256
from deepread.text.markup import plain_table
from deepread.text.tokens import count_tokens

if TYPE_CHECKING:  # loaded with a describe model only: DescribeBudget is imported by
    # every ingest, which must not pay for LangChain's chat models
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

MAX_SECTION_CHARS = 6000
MAX_SUMMARY_CHARS = 160


@dataclass(slots=True)
class DescribeBudget:
    """How much one ingest may spend on section descriptions (see module doc)."""

    max_sections: int = 200
    max_tokens: int = 200_000
    sections_used: int = 0
    tokens_used: int = 0

    def allows(self, tokens: int) -> bool:
        return (
            self.sections_used < self.max_sections and self.tokens_used + tokens <= self.max_tokens
        )

    def spend(self, tokens: int) -> None:
        self.sections_used += 1
        self.tokens_used += tokens


def section_text(paragraphs: Sequence[Paragraph]) -> str:
    """The direct paragraphs of one section as sent to the model (cut to the limit)."""
    parts = [plain_table(p.text) if p.kind == "table" else p.text for p in paragraphs]
    return "\n\n".join(parts)[:MAX_SECTION_CHARS]


def one_line(text: str) -> str:
    """A model answer as one clean line of at most :data:`MAX_SUMMARY_CHARS` chars."""
    line = " ".join(text.replace("|", "/").split()).strip("\"'` ")
    if len(line) > MAX_SUMMARY_CHARS:
        line = line[: MAX_SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return line


def describe_sections(
    sections: list[Section],
    paragraphs: Sequence[Paragraph],
    model: BaseChatModel,
    cache: ModelCache | None = None,
    budget: DescribeBudget | None = None,
) -> list[Section]:
    """``sections`` with ``summary`` filled where the budget allows (new objects)."""
    from langchain_core.messages import HumanMessage

    from deepread.corpus.vision import model_name
    from deepread.models.chat import message_text

    budget = budget or DescribeBudget()
    name = model_name(model)
    template = load("describe_section")
    by_section: dict[int, list[Paragraph]] = {}
    for p in paragraphs:
        by_section.setdefault(p.sec_id, []).append(p)
    out = [dataclasses.replace(s, children=list(s.children)) for s in sections]
    for sec in sorted(out, key=lambda s: (s.level, s.sec_id)):
        own = by_section.get(sec.sec_id)
        if not own:
            continue
        prompt = template.format(title=sec.title, text=section_text(own))
        digest = sha256(prompt)
        summary = cache.get("section", name, digest) if cache is not None else None
        if summary is None:
            tokens = count_tokens(prompt)
            if not budget.allows(tokens):
                continue
            budget.spend(tokens)
            try:
                reply = model.invoke([HumanMessage(content=prompt)])
            except Exception as exc:  # an undescribed section is still a section
                log.warning("describe model failed on section %r: %s", sec.title, exc)
                continue
            summary = one_line(message_text(reply))
            if cache is not None and summary:
                cache.put("section", name, digest, summary)
        sec.summary = summary or None
    return out
