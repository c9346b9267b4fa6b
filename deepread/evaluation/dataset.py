"""Evaluation datasets: questions, their gold answers and the evidence that holds them.

Three formats are read as they are (:mod:`deepread.evaluation.formats` parses the two
benchmarks' own files): deepread's JSONL (``id``, ``question``, ``answer``, optional
``type`` and ``evidence``: ``{"doc", "quote"}`` objects — the devset's
``questions.jsonl`` and ``deepread synth``'s output), FinanceBench's JSONL and
SyllabusQA's CSV. A benchmark question is about one document (``Question.doc``, a file
name) and is answered scoped to it; its evidence may carry the page it is printed on.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UNTYPED = "untyped"
DEEPREAD = "deepread"


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
            "id": self.id, "question": self.question, "answer": self.answer,
            "type": self.type,
            "evidence": [{"doc": e.doc, "quote": e.quote}
                         | ({"page": e.page} if e.page is not None else {})
                         for e in self.evidence]}
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


def _question(data: Any, where: str) -> Question:
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(data).__name__}")
    missing = [k for k in ("id", "question", "answer") if k not in data]
    if missing:
        raise DatasetError(f"{where}: missing key(s) {', '.join(missing)}")
    evidence = []
    for i, item in enumerate(data.get("evidence") or []):
        if not isinstance(item, dict) or not isinstance(item.get("quote"), str):
            raise DatasetError(f"{where}: evidence[{i}] needs a string 'quote'")
        page = item.get("page")
        evidence.append(Evidence(doc=str(item.get("doc") or ""), quote=item["quote"],
                                 page=int(page) if isinstance(page, int) else None))
    return Question(id=str(data["id"]), question=str(data["question"]),
                    answer=str(data["answer"]), type=str(data.get("type") or UNTYPED),
                    evidence=tuple(evidence), doc=str(data.get("doc") or ""),
                    answerable=data.get("answerable") is not False)


def json_lines(path: Path) -> list[tuple[int, Any]]:
    """``(line number, object)`` of each non-blank line; a bad line is a DatasetError."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"cannot read dataset {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: not UTF-8 text") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
    return out


def read_deepread(path: Path) -> list[Question]:
    """deepread's own JSONL."""
    return unique([(f"{path}:{n}", _question(data, f"{path}:{n}"))
                   for n, data in json_lines(path)], path)


def unique(questions: list[tuple[str, Question]], path: Path) -> list[Question]:
    """The questions, refusing a repeated id (``where`` names its line)."""
    seen: set[str] = set()
    for where, q in questions:
        if q.id in seen:  # ids key the trajectories and resumption: they must be unique
            raise DatasetError(f"{where}: duplicate id {q.id!r}")
        seen.add(q.id)
    if not questions:
        raise DatasetError(f"{path}: no questions")
    return [q for _, q in questions]


def subset(questions: list[Question], limit: int | None = None, sample: int | None = None,
           seed: int = 0) -> list[Question]:
    """The first ``limit`` questions, or ``sample`` drawn at random (seeded), file order."""
    if sample is not None and sample < len(questions):
        keep = set(random.Random(seed).sample(range(len(questions)), sample))
        questions = [q for i, q in enumerate(questions) if i in keep]
    if limit is not None:
        questions = questions[:limit]
    return questions


def read_dataset(path: str | Path, format: str | None = None, *, limit: int | None = None,
                 sample: int | None = None, seed: int = 0) -> Dataset:
    """The questions of ``path`` in ``format`` (detected when None), file order."""
    from deepread.evaluation.formats import READERS, detect_format

    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"cannot read dataset {path}: no such file")
    fmt = format or detect_format(path)
    if fmt not in READERS:
        raise DatasetError(f"unknown dataset format {fmt!r}; formats: {', '.join(READERS)}")
    questions = READERS[fmt](path)
    return Dataset(path, fmt, subset(questions, limit, sample, seed))


def load_dataset(path: str | Path, limit: int | None = None) -> list[Question]:
    """The questions of ``path`` in file order (the first ``limit`` if given)."""
    return read_dataset(path, limit=limit).questions
