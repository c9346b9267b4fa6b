"""Evaluation datasets: questions, their gold answers and the evidence that holds them.

The records every reader returns and every part of the harness uses; the files they
come from, in each format, are read by :mod:`deepread.evaluation.formats`. A benchmark
question is about one document (``Question.doc``, a file name) and is answered scoped to
it; its evidence may carry the page it is printed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UNTYPED = "untyped"


class DatasetError(ValueError):
    """The dataset file cannot be used; the message names the line."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """A gold passage: the file name of its document, its text, and (1-based) its page."""

    doc: str
    quote: str
    page: int | None = None


@dataclass(frozen=True, slots=True)
class Question:
    """One dataset item. ``doc``: the one document it is about (scopes the run), or ""."""

    id: str
    question: str
    answer: str
    type: str = UNTYPED
    evidence: tuple[Evidence, ...] = field(default_factory=tuple)
    doc: str = ""
    answerable: bool = True  # False: the right answer is that the document does not say

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "question": self.question,
            "answer": self.answer,
            "type": self.type,
            "evidence": [
                {"doc": e.doc, "quote": e.quote} | ({"page": e.page} if e.page is not None else {})
                for e in self.evidence
            ],
        }
        if self.doc:
            out["doc"] = self.doc
        if not self.answerable:
            out["answerable"] = False
        return out


@dataclass(slots=True)
class Dataset:
    """The questions of one file and the format they were read in."""

    path: Path
    format: str
    questions: list[Question]

    @property
    def folder(self) -> Path:
        """Where the benchmark's documents are (beside its questions file)."""
        return self.path.parent

    @property
    def scoped(self) -> bool:
        """Whether every question names its document (benchmark formats)."""
        return all(q.doc for q in self.questions)
