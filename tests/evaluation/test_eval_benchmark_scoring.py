"""Benchmark datasets and scoring on hand-made data: no store, no model, milliseconds.

FinanceBench's JSONL and SyllabusQA's CSV read as published (written here in the test),
format detection, the shingle definition of a passage *read*, the flat baseline's word
windows and budget, and gold pages shown — the definitions the held-out judge uses.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from deepread.evaluation.benchmark import Shown, score
from deepread.evaluation.dataset import DatasetError, Evidence, Question
from deepread.evaluation.evidence import DocResolver
from deepread.evaluation.flat_windows import take, windows
from deepread.evaluation.formats import read_dataset
from deepread.evaluation.shingles import is_read, read_share, shingles, squash
from deepread.records.documents import Document, Paragraph

FINANCEBENCH = [
    {
        "financebench_id": "fb_1",
        "company": "Acme",
        "doc_name": "ACME_2022_10K",
        "question_type": "metrics-generated",
        "question": "What was Acme's FY2022 revenue?",
        "answer": "$5,363 million",
        "justification": "",
        "evidence": [
            {
                "evidence_text": "Total revenue 5,363",
                "doc_name": "ACME_2022_10K",
                "evidence_page_num": 0,
                "evidence_text_full_page": "…",
            },
            {
                "evidence_text": "Revenue grew 4%",
                "doc_name": "ACME_2022_10K",
                "evidence_page_num": 41,
            },
        ],
    },
]
SYLLABUS_HEADER = [
    "id",
    "syllabus_name",
    "question_type",
    "question",
    "answer",
    *(f"answer_span_{i}" for i in range(1, 6)),
    *(f"reasoning_step_{i}" for i in range(1, 6)),
]


def syllabus_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, SYLLABUS_HEADER)
        writer.writeheader()
        writer.writerows(rows)
    return path


def fb_jsonl(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


# -- formats -----------------------------------------------------------------------------


def test_financebench_jsonl_is_detected_and_its_zero_based_pages_become_one_based(tmp_path):
    data = read_dataset(fb_jsonl(tmp_path / "q.jsonl", FINANCEBENCH))
    assert data.format == "financebench" and data.scoped
    q = data.questions[0]
    assert (q.id, q.doc, q.type, q.answer) == (
        "fb_1",
        "ACME_2022_10K.pdf",
        "metrics-generated",
        "$5,363 million",
    )
    assert q.evidence == (
        Evidence("ACME_2022_10K.pdf", "Total revenue 5,363", 1),
        Evidence("ACME_2022_10K.pdf", "Revenue grew 4%", 42),
    )
    assert data.folder == tmp_path


def test_syllabusqa_csv_keeps_its_spans_and_marks_no_answer_questions(tmp_path):
    rows = [
        {
            "id": "a1",
            "syllabus_name": "Chem 101",
            "question_type": "single factual",
            "question": "When is the exam?",
            "answer": "May 3",
            "answer_span_1": "The final exam is on May 3.",
            "answer_span_2": "  ",
        },
        {
            "id": "a2",
            "syllabus_name": "Chem 101",
            "question_type": "no answer",
            "question": "Is there a field trip?",
            "answer": "No/insufficient information",
        },
    ]
    data = read_dataset(syllabus_csv(tmp_path / "questions.csv", rows))
    assert data.format == "syllabusqa"
    first, second = data.questions
    assert first.doc == "Chem 101.pdf" and first.answerable
    assert [e.quote for e in first.evidence] == ["The final exam is on May 3."]
    assert second.evidence == () and not second.answerable


def test_a_syllabusqa_row_without_a_question_names_its_line(tmp_path):
    rows = [
        {"id": "a1", "syllabus_name": "S", "question_type": "yes/no", "question": "", "answer": "x"}
    ]
    with pytest.raises(DatasetError, match=r"questions.csv:2: 'question' must be"):
        read_dataset(syllabus_csv(tmp_path / "questions.csv", rows))


def test_a_csv_of_another_shape_asks_for_a_format(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="pass --format"):
        read_dataset(path)


def test_a_named_format_overrides_detection_and_explains_a_mismatch(tmp_path):
    path = fb_jsonl(tmp_path / "q.jsonl", [{"id": "x", "question": "q?", "answer": "a"}])
    assert read_dataset(path).format == "deepread"
    with pytest.raises(DatasetError, match=r"q.jsonl:1: 'doc_name' must be a non-empty string"):
        read_dataset(path, "financebench")


def test_a_sample_is_seeded_and_keeps_file_order(tmp_path):
    items = [{"id": str(i), "question": f"q{i}?", "answer": "a"} for i in range(20)]
    path = fb_jsonl(tmp_path / "q.jsonl", items)
    first = [q.id for q in read_dataset(path, sample=5, seed=3).questions]
    assert first == [q.id for q in read_dataset(path, sample=5, seed=3).questions]
    assert len(first) == 5 and first == sorted(first, key=int)


# -- shingles ----------------------------------------------------------------------------


def test_squashing_drops_whitespace_case_markup_and_ligatures():
    assert squash("<td>Total  Revenue</td>\n<td>5,363 &amp; ﬁne</td>") == "totalrevenue5,363&fine"
    assert squash("a < b and c > d") == "a<bandc>d"  # a bare "<" is text, not a tag


def test_shingles_are_24_characters_every_8():
    text = "abcdefghijklmnopqrstuvwxyz0123456789"  # 36 characters
    assert shingles(text) == [text[0:24], text[8:32]]
    assert shingles("short span") == ["shortspan"]
    assert shingles("  \n ") == []


def test_a_passage_is_read_when_at_least_half_its_shingles_were_shown():
    passage = "The final examination takes place on Friday May 3 in Hasbrouck Hall, room 204"
    n = len(shingles(passage))
    assert n == 6

    def prefix(k: int) -> str:  # the squashed passage up to its k-th shingle's end
        return squash(passage)[: 24 + 8 * (k - 1)]

    assert read_share(passage, prefix(3)) == 0.5 and is_read(passage, prefix(3))
    assert not is_read(passage, prefix(2))
    assert is_read(
        passage,
        squash("THE final\nexamination takes place on Friday May 3 in Hasbrouck Hall, room 204."),
    )


# -- flat windows ------------------------------------------------------------------------


def test_flat_windows_are_200_words_every_100_with_their_pages():
    words = [(f"w{i}", 1 + i // 150) for i in range(450)]  # three pages of 150 words
    cut = windows(words)
    assert [len(text.split()) for text, _ in cut] == [200, 200, 200, 150]
    assert cut[1][0].split()[0] == "w100" and cut[-1][0].endswith("w449")
    assert [sorted(pages) for _, pages in cut] == [[1, 2], [1, 2], [2, 3], [3]]
    assert windows([("only", 1)]) == [("only", frozenset({1}))]


def test_flat_windows_are_taken_in_rank_order_until_the_next_passes_the_budget():
    ranked = [Paragraph(1, 0, i, "x" * n) for i, n in enumerate((2000, 2000, 2400, 100))]
    assert [p.para_idx for p in take(ranked, 1500)] == [0, 1]  # 4,000 chars = 1,000 tokens
    assert [p.para_idx for p in take(ranked, 1600)] == [0, 1, 2]
    assert take(ranked, 100) == []


# -- scoring -----------------------------------------------------------------------------


def resolver() -> DocResolver:
    return DocResolver(
        [Document(1, "Acme", "/d/ACME_2022_10K.pdf"), Document(2, "Beta", "/d/BETA_2022_10K.pdf")]
    )


def test_a_gold_page_counts_only_when_shown_from_the_questions_document():
    q = Question(
        "q",
        "Revenue?",
        "5",
        evidence=(Evidence("ACME_2022_10K.pdf", "Total revenue was 5,363 million dollars", 2),),
        doc="ACME_2022_10K.pdf",
    )
    other = [
        Shown("/d/BETA_2022_10K.pdf", "Total revenue was 5,363 million dollars", frozenset({2}))
    ]
    assert score(q, other, resolver())["gold_page_shown"] == 0.0
    assert score(q, other, resolver())["evidence_read"] == 0.0
    mine = [
        Shown("/d/ACME_2022_10K.pdf", "<td>Total revenue was</td><td>5,363</td>", frozenset({2})),
        Shown("/d/ACME_2022_10K.pdf", "million dollars", frozenset({3})),
    ]
    got = score(q, mine, resolver())
    assert (got["gold_page_shown"], got["evidence_read"]) == (1.0, 1.0)


def test_a_question_scores_the_share_of_its_evidence_items_and_pages():
    q = Question(
        "q",
        "?",
        "",
        evidence=(
            Evidence("ACME_2022_10K.pdf", "first passage of the gold evidence", 1),
            Evidence("ACME_2022_10K.pdf", "second passage, never shown to anyone", 7),
        ),
    )
    got = score(
        q,
        [Shown("/d/ACME_2022_10K.pdf", "First passage of the gold evidence.", frozenset({1}))],
        resolver(),
    )
    assert got["evidence_found"] == [True, False] and got["evidence_read"] == 0.5
    assert got["pages_found"] == [True, False] and got["gold_page_shown"] == 0.5
    bare = score(Question("n", "?", "", answerable=False), [], resolver())
    assert bare["evidence_read"] is None and bare["gold_page_shown"] is None


def test_own_document_read_is_whether_anything_of_the_questions_document_was_shown():
    q = Question(
        "q",
        "Revenue?",
        "5",
        evidence=(Evidence("ACME_2022_10K.pdf", "Total revenue was 5,363 million dollars", 2),),
        doc="ACME_2022_10K.pdf",
    )
    other = [Shown("/d/BETA_2022_10K.pdf", "Beta's revenue", frozenset({2}))]
    assert score(q, other, resolver())["own_document_read"] is False
    both = [*other, Shown("/d/ACME_2022_10K.pdf", "Risk factors", frozenset({9}))]
    assert score(q, both, resolver())["own_document_read"] is True
    assert score(Question("n", "?", ""), both, resolver())["own_document_read"] is None
