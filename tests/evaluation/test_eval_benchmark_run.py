"""``deepread eval`` on the benchmarks' own formats, end to end on PDFs written here.

Two small multi-page "filings" and a "syllabus" are written as PDFs by the test (a
minimal PDF writer, Helvetica text layer), with questions in FinanceBench's JSONL and
SyllabusQA's CSV beside them — the layout of both benchmarks' folders. The run ingests
the PDFs itself, answers each question scoped to its document with the offline policy,
and pairs it with the flat PDF-window baseline at its spend. Store, parser, embeddings
and retriever are real.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from support.pdf_builder import lines_pdf

from deepread import cli
from deepread.evaluation import EvalConfig, run_eval
from deepread.evaluation.records import trajectory_path
from deepread.evaluation.runner import EvalError

ACME = [
    [
        "ACME CORPORATION ANNUAL REPORT",
        "The company designs, manufactures and sells "
        "widgets to customers in many markets through a network of distributors.",
    ],
    [
        "Results of Operations",
        "Total revenue of Acme was 5,363 million dollars in fiscal "
        "2022, up from 4,869 million dollars in fiscal 2021.",
        "Gadget sales rose in every region, led by the Americas.",
    ],
    [
        "Employees",
        "Acme employed 12,000 people at the end of fiscal 2022.",
        "Most of them work in the three factories in Ohio.",
    ],
]
BETA = [
    ["BETA INDUSTRIES ANNUAL REPORT", "Beta makes industrial pumps and valves."],
    [
        "Results of Operations",
        "Total revenue of Beta was 777 million dollars in fiscal "
        "2022, down from 801 million dollars in fiscal 2021.",
        "Pump orders fell as customers delayed their projects.",
    ],
]
SYLLABUS = [
    [
        "Chemistry 101 Syllabus",
        "Instructor: Dr. Ada Lovelace. Office hours are on Tuesdays "
        "from 2 to 4 pm in Hasbrouck Hall room 204.",
    ],
    [
        "Grading",
        "The final examination counts for forty percent of the course grade and "
        "takes place on Friday May 3.",
        "Homework counts for twenty percent of the grade.",
    ],
]


@pytest.fixture(scope="module")
def financebench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A FinanceBench-shaped folder: two filings and their questions."""
    folder = tmp_path_factory.mktemp("financebench")
    (folder / "ACME_2022_10K.pdf").write_bytes(lines_pdf(ACME))
    (folder / "BETA_2022_10K.pdf").write_bytes(lines_pdf(BETA))
    questions = [
        {
            "financebench_id": "fb_acme",
            "doc_name": "ACME_2022_10K",
            "question_type": "metrics-generated",
            "question": "What was the total revenue in fiscal 2022?",
            "answer": "$5,363 million",
            "evidence": [
                {
                    "evidence_text": "Total revenue of Acme was 5,363 million dollars in "
                    "fiscal 2022, up from 4,869 million",
                    "doc_name": "ACME_2022_10K",
                    "evidence_page_num": 1,
                }
            ],
        },
        {
            "financebench_id": "fb_beta",
            "doc_name": "BETA_2022_10K",
            "question_type": "metrics-generated",
            "question": "What was the total revenue in fiscal 2022?",
            "answer": "$777 million",
            "evidence": [
                {
                    "evidence_text": "Total revenue of Beta was 777 million dollars in fiscal 2022",
                    "doc_name": "BETA_2022_10K",
                    "evidence_page_num": 1,
                }
            ],
        },
    ]
    path = folder / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def syllabusqa(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("syllabusqa")
    (folder / "Chem 101.pdf").write_bytes(lines_pdf(SYLLABUS))
    header = [
        "id",
        "syllabus_name",
        "question_type",
        "question",
        "answer",
        *(f"answer_span_{i}" for i in range(1, 6)),
    ]
    rows = [
        {
            "id": "s1",
            "syllabus_name": "Chem 101",
            "question_type": "single factual",
            "question": "How much does the final examination count for the course grade?",
            "answer": "40%",
            "answer_span_1": "The final examination counts for forty percent of the course grade",
        },
        {
            "id": "s2",
            "syllabus_name": "Chem 101",
            "question_type": "no answer",
            "question": "Is parking on campus free for visiting parents?",
            "answer": "No/insufficient information",
        },
    ]
    path = folder / "questions.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, header)
        writer.writeheader()
        writer.writerows(rows)
    return path


def records(out: Path, variant: str = "deepread") -> dict[str, dict]:
    lines = trajectory_path(out, variant).read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


@pytest.fixture(scope="module")
def fb_run(financebench: Path, tmp_path_factory: pytest.TempPathFactory):
    """One FinanceBench run into a fresh store: what it said, returned and wrote."""
    root = tmp_path_factory.mktemp("fb-run")
    said: list[str] = []
    config = EvalConfig(
        dataset=financebench,
        store=str(root / "store"),
        collection="fb",
        out=root / "out",
        workers=1,
        plots=False,
    )
    result = run_eval(config, progress=False, say=said.append)
    return config, result, said


def test_a_financebench_run_ingests_the_pdfs_of_its_folder_itself(fb_run):
    _, result, said = fb_run
    assert any("ingesting 2 document(s)" in s for s in said)
    assert result.failures == [] and result.ran == 2
    assert list(result.summary["variants"]) == ["deepread", "flat-pdf200w@deepread"]


def test_each_question_is_answered_from_its_own_document_only(fb_run):
    config, _, _ = fb_run
    got = records(config.out)
    for qid, doc in (("fb_acme", "ACME"), ("fb_beta", "BETA")):
        r = got[qid]
        assert r["gold"]["doc"] == f"{doc}_2022_10K.pdf"
        shown = {c.split(":")[0] for o in r["observations"] for c in o["shown"]}
        assert len(shown) == 1  # one doc_id: the question's
        assert r["metrics"]["evidence_read"] == 1.0  # the other filing's figure is no help


def test_the_gold_page_is_the_evidence_page_plus_one(fb_run):
    config, result, _ = fb_run
    for r in records(config.out).values():
        assert r["metrics"]["gold_page_shown"] == 1.0  # page_num 1 (0-based) is page 2
    assert result.summary["variants"]["deepread"]["overall"]["gold_page_shown"] == 1.0


def test_the_flat_baseline_spends_at_least_1500_tokens_or_the_agents_spend(fb_run):
    config, result, _ = fb_run
    for r in records(config.out).values():
        flat = r["flat"]["metrics"]
        assert flat["budget"] == max(1500.0, r["metrics"]["spend"])
        assert 0 < flat["spend"] <= flat["budget"]
        assert flat["evidence_read"] == 1.0 and flat["gold_page_shown"] == 1.0
    row = result.summary["benchmark"][0]
    assert (row["variant"], row["flat"]) == ("deepread", "flat-pdf200w@deepread")
    assert row["ratio"] == 1.0
    text = (config.out / "summary.md").read_text(encoding="utf-8")
    assert "## Benchmark measures (agent vs flat PDF windows at its spend)" in text
    assert "gold page shown %" in text


def test_a_second_run_reuses_the_ingested_pdfs_and_their_flat_windows(fb_run, tmp_path):
    config, _, _ = fb_run
    said: list[str] = []
    again = EvalConfig(
        dataset=config.dataset,
        store=config.store,
        collection="fb",
        out=tmp_path,
        workers=1,
        plots=False,
    )
    result = run_eval(again, progress=False, say=said.append)
    assert result.ran == 2 and not any("ingesting" in s for s in said)
    flat = Path(config.store) / "flat-text" / "fb"
    assert sorted(p.name for p in flat.iterdir()) == ["ACME_2022_10K.txt", "BETA_2022_10K.txt"]


def test_a_library_run_asks_every_question_of_the_whole_collection(fb_run, tmp_path):
    config, _, _ = fb_run
    again = EvalConfig(
        dataset=config.dataset,
        store=config.store,
        collection="fb",
        out=tmp_path,
        workers=1,
        plots=False,
        library=True,
    )
    result = run_eval(again, progress=False)
    assert result.ran == 2 and list(result.summary["variants"]) == ["deepread"]  # no flat
    got = records(tmp_path)
    for r in got.values():
        assert r["settings"]["library"] is True
        assert r["metrics"]["own_document_read"] in (True, False)
    # Asked of both filings, the same question's search sees both: no scope was set.
    calls = [c for r in got.values() for c in r["tool_calls"] if c["name"] == "retrieve"]
    assert calls and all("doc_id" not in c["args"] for c in calls)
    overall = result.summary["variants"]["deepread"]["overall"]
    assert overall["own_document_read"] is not None


def test_a_scoped_run_reads_its_own_document(fb_run):
    config, result, _ = fb_run
    assert all(r["metrics"]["own_document_read"] for r in records(config.out).values())
    assert result.summary["variants"]["deepread"]["overall"]["own_document_read"] == 1.0


def test_without_ingest_the_run_says_exactly_what_to_ingest(financebench, tmp_path):
    config = EvalConfig(
        dataset=financebench,
        store=str(tmp_path / "store"),
        collection="empty",
        out=tmp_path / "out",
        ingest=False,
        plots=False,
    )
    with pytest.raises(EvalError) as caught:
        run_eval(config, progress=False)
    message = str(caught.value)
    assert "2 question document(s) are not in collection 'empty'" in message
    assert f"deepread ingest --store {tmp_path / 'store'} --collection empty " in message
    assert str(financebench.parent / "ACME_2022_10K.pdf") in message


def test_a_question_whose_pdf_is_nowhere_is_named(financebench, tmp_path):
    lines = financebench.read_text(encoding="utf-8").replace("BETA_2022_10K", "GONE_2022")
    (tmp_path / "questions.jsonl").write_text(lines, encoding="utf-8")
    acme = financebench.parent / "ACME_2022_10K.pdf"
    (tmp_path / acme.name).write_bytes(acme.read_bytes())
    config = EvalConfig(
        dataset=tmp_path / "questions.jsonl",
        store=str(tmp_path / "store"),
        collection="c",
        out=tmp_path / "out",
        plots=False,
    )
    with pytest.raises(
        EvalError,
        match=r"1 question document\(s\) are neither in collection "
        r"'c' nor in .*: GONE_2022.pdf$",
    ):
        run_eval(config, progress=False)


def test_syllabusqa_counts_abstentions_apart_for_unanswerable_questions(syllabusqa, tmp_path):
    config = EvalConfig(
        dataset=syllabusqa,
        store=str(tmp_path / "store"),
        collection="syllabi",
        out=tmp_path / "out",
        workers=1,
        plots=False,
    )
    result = run_eval(config, progress=False, say=lambda _: None)
    got = records(tmp_path / "out")
    assert got["s1"]["metrics"]["evidence_read"] == 1.0
    assert got["s1"]["metrics"]["answerable"] and not got["s2"]["metrics"]["answerable"]
    overall = result.summary["variants"]["deepread"]["overall"]
    assert overall["unanswerable"] == 1
    assert overall["abstain_unanswerable"] == float(got["s2"]["stop_reason"] == "no_evidence")
    assert overall["abstain_answerable"] == float(got["s1"]["stop_reason"] == "no_evidence")
    text = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "abstains, unanswerable %" in text and "gold page shown %" not in text


def test_cli_eval_names_the_benchmark_collection_after_its_folder(syllabusqa, tmp_path, capsys):
    code = cli.main(
        [
            "eval",
            str(syllabusqa),
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
            "--limit",
            "1",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["format"] == "syllabusqa" and out["ran"] == 1
    assert out["collection"] == syllabusqa.parent.name
    assert out["subset"] == "the first 1"
    assert (
        cli.main(
            [
                "eval",
                str(syllabusqa),
                "--format",
                "financebench",
                "--store",
                str(tmp_path / "store"),
            ]
        )
        == 2
    )
    assert "not valid JSON" in capsys.readouterr().err


def test_cli_eval_without_flat_runs_no_baseline(syllabusqa, tmp_path, capsys):
    store = tmp_path / "store"
    code = cli.main(
        [
            "eval",
            str(syllabusqa),
            "--store",
            str(store),
            "--out",
            str(tmp_path / "out"),
            "--limit",
            "1",
            "--no-flat",
            "--json",
        ]
    )
    assert code == 0 and json.loads(capsys.readouterr().out)["ran"] == 1
    assert "flat" not in records(tmp_path / "out")["s1"]
    assert not (store / "flat-text").exists()
