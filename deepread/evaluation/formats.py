"""The benchmarks' own question files, read as they are published.

- **FinanceBench** (Islam et al. 2023): JSONL, one object per question with
  ``financebench_id``, ``doc_name`` (the PDF's name without ``.pdf``), ``question``,
  ``answer``, ``question_type`` and ``evidence``: ``{"evidence_text", "doc_name",
  "evidence_page_num"}`` with a **0-based** page number — stored here 1-based, as
  deepread's ``Paragraph.page`` counts pages.
- **SyllabusQA** (Fernandez et al. 2024): CSV with ``id``, ``syllabus_name`` (the PDF's
  name without ``.pdf``), ``question_type``, ``question``, ``answer`` and
  ``answer_span_1..5`` (verbatim passages holding the answer, blank when the type has
  none). ``no answer`` questions cannot be answered from the syllabus.

The format is told by the file itself (a CSV with ``syllabus_name``; JSON objects with
``financebench_id``), or named with ``--format``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deepread.evaluation.dataset import (
    DEEPREAD,
    UNTYPED,
    DatasetError,
    Evidence,
    Question,
    json_lines,
    read_deepread,
    unique,
)

FINANCEBENCH, SYLLABUSQA = "financebench", "syllabusqa"
SPANS = tuple(f"answer_span_{i}" for i in range(1, 6))
NO_ANSWER = "no answer"  # SyllabusQA's type of the questions the syllabus cannot answer
_SYLLABUS_COLUMNS = ("id", "syllabus_name", "question_type", "question", "answer")


def pdf_name(name: str) -> str:
    """The file name of a benchmark document named without its suffix."""
    name = name.strip()
    return name if name.lower().endswith(".pdf") else f"{name}.pdf"


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{where}: {key!r} must be a non-empty string")
    return value


def _financebench_question(data: Any, where: str) -> Question:
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(data).__name__}")
    doc = pdf_name(_text(data, "doc_name", where))
    evidence = []
    for i, item in enumerate(data.get("evidence") or []):
        if not isinstance(item, dict) or not isinstance(item.get("evidence_text"), str):
            raise DatasetError(f"{where}: evidence[{i}] needs a string 'evidence_text'")
        page = item.get("evidence_page_num")
        if page is not None and (not isinstance(page, int) or page < 0):
            raise DatasetError(f"{where}: evidence[{i}].evidence_page_num must be a "
                               f"0-based page number, got {page!r}")
        evidence.append(Evidence(doc=pdf_name(str(item.get("doc_name") or doc)),
                                 quote=item["evidence_text"],
                                 page=None if page is None else page + 1))
    return Question(id=_text(data, "financebench_id", where),
                    question=_text(data, "question", where),
                    answer=str(data.get("answer") or ""),
                    type=str(data.get("question_type") or UNTYPED),
                    evidence=tuple(evidence), doc=doc)


def read_financebench(path: Path) -> list[Question]:
    """FinanceBench's JSONL."""
    return unique([(f"{path}:{n}", _financebench_question(data, f"{path}:{n}"))
                   for n, data in json_lines(path)], path)


def read_syllabusqa(path: Path) -> list[Question]:
    """SyllabusQA's CSV."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in _SYLLABUS_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise DatasetError(f"{path}: not SyllabusQA's CSV: no column(s) "
                                   f"{', '.join(missing)}")
            rows = list(reader)
    except OSError as exc:
        raise DatasetError(f"cannot read dataset {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DatasetError(f"{path}: not a readable CSV ({exc})") from None
    out = []
    for n, row in enumerate(rows, 2):  # line 1 is the header
        where = f"{path}:{n}"
        doc = pdf_name(_text(row, "syllabus_name", where))
        kind = (row.get("question_type") or "").strip() or UNTYPED
        spans = [row[c] for c in SPANS if (row.get(c) or "").strip()]
        out.append((where, Question(
            id=_text(row, "id", where), question=_text(row, "question", where),
            answer=row.get("answer") or "", type=kind, doc=doc,
            evidence=tuple(Evidence(doc=doc, quote=s) for s in spans),
            answerable=kind != NO_ANSWER)))
    return unique(out, path)


READERS: dict[str, Callable[[Path], list[Question]]] = {
    DEEPREAD: read_deepread, FINANCEBENCH: read_financebench, SYLLABUSQA: read_syllabusqa}


def detect_format(path: Path) -> str:
    """The format of ``path`` told by its content; DatasetError if none fits."""
    if path.suffix.lower() == ".csv":
        try:
            with path.open(encoding="utf-8-sig", newline="") as fh:
                header = next(csv.reader(fh), [])
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise DatasetError(f"cannot read dataset {path}: {exc}") from None
        if "syllabus_name" in header:
            return SYLLABUSQA
        raise DatasetError(f"{path}: a CSV without a 'syllabus_name' column is no format "
                           f"deepread reads; pass --format")
    first = next((data for _, data in json_lines(path)), None)
    if isinstance(first, dict) and "financebench_id" in first:
        return FINANCEBENCH
    return DEEPREAD
