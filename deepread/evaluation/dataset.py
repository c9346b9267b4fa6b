"""Evaluation datasets: one JSON object per line with a question and its gold answer.

Required keys: ``id``, ``question``, ``answer``. Optional: ``type`` (questions are
summarised by it; missing means ``"untyped"``) and ``evidence``, a list of
``{"doc", "quote"}`` objects (``section`` and other keys are kept but unused) naming
the verbatim passages that hold the answer. The devset's ``questions.jsonl`` is read
as is; ``deepread synth`` writes files of the same shape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UNTYPED = "untyped"


class DatasetError(ValueError):
    """The dataset file cannot be used; the message names the line."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """A gold passage: the file name of its document and a verbatim quote."""

    doc: str
    quote: str


@dataclass(frozen=True, slots=True)
class Question:
    """One dataset item."""

    id: str
    question: str
    answer: str
    type: str = UNTYPED
    evidence: tuple[Evidence, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question, "answer": self.answer,
                "type": self.type,
                "evidence": [{"doc": e.doc, "quote": e.quote} for e in self.evidence]}


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
        evidence.append(Evidence(doc=str(item.get("doc") or ""), quote=item["quote"]))
    return Question(id=str(data["id"]), question=str(data["question"]),
                    answer=str(data["answer"]), type=str(data.get("type") or UNTYPED),
                    evidence=tuple(evidence))


def load_dataset(path: str | Path, limit: int | None = None) -> list[Question]:
    """The questions of ``path`` in file order (the first ``limit`` if given)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"cannot read dataset {path}: {exc.strerror or exc}") from None
    questions: list[Question] = []
    seen: set[str] = set()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        q = _question(data, f"{path}:{n}")
        if q.id in seen:  # ids key the trajectories and resumption: they must be unique
            raise DatasetError(f"{path}:{n}: duplicate id {q.id!r}")
        seen.add(q.id)
        questions.append(q)
        if limit is not None and len(questions) >= limit:
            break
    if not questions:
        raise DatasetError(f"{path}: no questions")
    return questions
