"""Dataset files in the formats deepread reads, each read as it is published.

- **deepread's JSONL**: ``id``, ``question``, ``answer``, optional ``type`` and
  ``evidence``: ``{"doc", "quote"}`` objects (the devset's ``questions.jsonl`` and
  ``deepread synth``'s output).
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
``financebench_id``), or named with ``--format``; :func:`read_dataset` reads a file in
either way. The records they make are :mod:`deepread.evaluation.dataset`'s.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deepread.evaluation.dataset import UNTYPED, Dataset, DatasetError, Evidence, Question
from deepread.text.hygiene import brief

DEEPREAD, FINANCEBENCH, SYLLABUSQA = "deepread", "financebench", "syllabusqa"
SPANS = tuple(f"answer_span_{i}" for i in range(1, 6))
NO_ANSWER = "no answer"  # SyllabusQA's type of the questions the syllabus cannot answer
_SYLLABUS_COLUMNS = ("id", "syllabus_name", "question_type", "question", "answer")


def _question(data: Any, where: str) -> Question:
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object, got {type(data).__name__}")
    missing = [k for k in ("id", "question", "answer") if k not in data]
    if missing:
        raise DatasetError(f"{where}: missing key(s) {', '.join(missing)}")
    item_id, answer = data["id"], data["answer"]
    # An id keys the item's records (a resumed run finds them by it) and is read back as
    # text: a string or a whole number; an object or null would be keyed by its repr.
    if isinstance(item_id, bool) or not isinstance(item_id, str | int):
        raise DatasetError(
            f"{where}: 'id' must be a string or a whole number, got {brief(item_id)}"
        )
    # A gold answer may be written as a number (42); null or an object is no answer.
    if isinstance(answer, bool) or not isinstance(answer, str | int | float):
        raise DatasetError(f"{where}: 'answer' must be text (or a number), got {brief(answer)}")
    evidence = []
    for i, item in enumerate(data.get("evidence") or []):
        if not isinstance(item, dict) or not isinstance(item.get("quote"), str):
            raise DatasetError(f"{where}: evidence[{i}] needs a string 'quote'")
        page = item.get("page")
        evidence.append(
            Evidence(
                doc=str(item.get("doc") or ""),
                quote=item["quote"],
                page=int(page) if isinstance(page, int) else None,
            )
        )
    return Question(
        id=str(item_id),
        question=_text(data, "question", where),
        answer=str(answer),
        type=str(data.get("type") or UNTYPED),
        evidence=tuple(evidence),
        doc=str(data.get("doc") or ""),
        answerable=data.get("answerable") is not False,
    )


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
        except RecursionError:  # arrays or objects nested past Python's recursion limit
            raise DatasetError(f"{path}:{n}: JSON nested too deeply") from None
    return out


def read_deepread(path: Path) -> list[Question]:
    """deepread's own JSONL."""
    return unique(
        [(f"{path}:{n}", _question(data, f"{path}:{n}")) for n, data in json_lines(path)], path
    )


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
            raise DatasetError(
                f"{where}: evidence[{i}].evidence_page_num must be a "
                f"0-based page number, got {page!r}"
            )
        evidence.append(
            Evidence(
                doc=pdf_name(str(item.get("doc_name") or doc)),
                quote=item["evidence_text"],
                page=None if page is None else page + 1,
            )
        )
    return Question(
        id=_text(data, "financebench_id", where),
        question=_text(data, "question", where),
        answer=str(data.get("answer") or ""),
        type=str(data.get("question_type") or UNTYPED),
        evidence=tuple(evidence),
        doc=doc,
    )


def read_financebench(path: Path) -> list[Question]:
    """FinanceBench's JSONL."""
    return unique(
        [
            (f"{path}:{n}", _financebench_question(data, f"{path}:{n}"))
            for n, data in json_lines(path)
        ],
        path,
    )


def read_syllabusqa(path: Path) -> list[Question]:
    """SyllabusQA's CSV."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in _SYLLABUS_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise DatasetError(
                    f"{path}: not SyllabusQA's CSV: no column(s) {', '.join(missing)}"
                )
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
        out.append(
            (
                where,
                Question(
                    id=_text(row, "id", where),
                    question=_text(row, "question", where),
                    answer=row.get("answer") or "",
                    type=kind,
                    doc=doc,
                    evidence=tuple(Evidence(doc=doc, quote=s) for s in spans),
                    answerable=kind != NO_ANSWER,
                ),
            )
        )
    return unique(out, path)


READERS: dict[str, Callable[[Path], list[Question]]] = {
    DEEPREAD: read_deepread,
    FINANCEBENCH: read_financebench,
    SYLLABUSQA: read_syllabusqa,
}


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
        raise DatasetError(
            f"{path}: a CSV without a 'syllabus_name' column is no format "
            f"deepread reads; pass --format"
        )
    first = next((data for _, data in json_lines(path)), None)
    if isinstance(first, dict) and "financebench_id" in first:
        return FINANCEBENCH
    return DEEPREAD


def subset(
    questions: list[Question], limit: int | None = None, sample: int | None = None, seed: int = 0
) -> list[Question]:
    """The first ``limit`` questions, or ``sample`` drawn at random (seeded), file order."""
    if sample is not None and sample < len(questions):
        keep = set(random.Random(seed).sample(range(len(questions)), sample))
        questions = [q for i, q in enumerate(questions) if i in keep]
    if limit is not None:
        questions = questions[:limit]
    return questions


def read_dataset(
    path: str | Path,
    format: str | None = None,
    *,
    limit: int | None = None,
    sample: int | None = None,
    seed: int = 0,
) -> Dataset:
    """The questions of ``path`` in ``format`` (detected when None), file order."""
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
