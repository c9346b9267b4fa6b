"""Evaluation metrics on hand-made data: no store, no model, milliseconds.

S(s→r) and C_s/C_r (paper Table 2) on hand-made trajectories, their summaries over
questions (share of questions; ratio of totals, ``inf`` when nothing was read), the
judge prompt and its verdict parsing, evidence normalisation and document matching,
token-window chunking, and what a trajectory's tool messages showed and cost.
"""

from __future__ import annotations

import json
import math

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from deepread.evaluation.chunks import cut
from deepread.evaluation.dataset import DatasetError, Evidence
from deepread.evaluation.evidence import DocResolver, coverage, normalize
from deepread.evaluation.formats import load_dataset
from deepread.evaluation.judge import judge_prompt, parse_verdict
from deepread.evaluation.metrics import behaviour, call_ratio, json_safe, summarize
from deepread.evaluation.modes import DEFAULT_MODES, parse_mode
from deepread.evaluation.records import read_records
from deepread.evaluation.synth import parse_pairs, prompts, user_message
from deepread.evaluation.trajectory import compact_coords, trace_agent
from deepread.records.documents import Document
from deepread.text.tokens import count_tokens, encoding


def calls(*names: str) -> list[dict]:
    return [{"name": n, "args": {}} for n in names]


def record(names: tuple[str, ...], **metrics) -> dict:
    return {"stop_reason": "answered", "metrics": behaviour(calls(*names)) | metrics}


# -- behaviour (Table 2, Fig. 3) --------------------------------------------------------


def test_retrieve_read_retrieve_counts_as_search_then_read_with_ratio_two():
    m = behaviour(calls("retrieve", "read_section", "retrieve"))
    assert m["s_to_r"] is True and m["cs_cr"] == 2.0
    assert m["first_action"] == "retrieve" and m["tool_calls"] == 3


def test_read_first_is_not_search_then_read():
    m = behaviour(calls("read_section", "retrieve"))
    assert m["s_to_r"] is False and m["cs_cr"] == 1.0 and m["first_action"] == "read_section"


def test_without_read_the_ratio_is_infinite_and_without_calls_undefined():
    assert behaviour(calls("retrieve", "retrieve"))["cs_cr"] == math.inf
    assert behaviour(calls("retrieve"))["s_to_r"] is False
    m = behaviour([])
    assert m["cs_cr"] is None and m["first_action"] is None and m["s_to_r"] is False
    assert call_ratio(0, 2) == 0.0


def test_summary_takes_s_as_a_share_of_questions_and_c_as_a_ratio_of_totals():
    rows = [
        record(("retrieve", "read_section", "retrieve")),  # S, 2 retrieve / 1 read
        record(("read_section", "retrieve")),  # no S, 1 / 1
        record(("retrieve",)),  # no S, 1 / 0
        record(("retrieve", "read_section")),
    ]  # S, 1 / 1
    s = summarize(rows)
    assert s["s_to_r"] == 0.5
    assert s["cs_cr"] == pytest.approx(5 / 3)
    assert s["first_action_retrieve"] == 0.75
    assert s["tool_calls"] == 2.0


def test_a_summary_without_reads_is_infinite_and_survives_json():
    s = summarize([record(("retrieve",)), record(("retrieve", "retrieve"))])
    assert s["cs_cr"] == math.inf
    assert json.loads(json.dumps(json_safe(s)))["cs_cr"] == "inf"


def test_accuracy_and_evidence_average_only_what_was_measured():
    rows = [
        record(("retrieve",), judge=True, evidence_read=1.0, evidence_located=0.5),
        record(("retrieve",), judge=False, evidence_read=0.5, evidence_located=0.0),
        record(("retrieve",), judge=None, evidence_read=None, evidence_located=None),
    ]
    s = summarize(rows)
    assert (s["judged"], s["accuracy"]) == (2, 0.5)
    assert s["evidence_read"] == 0.75 and s["evidence_located"] == 0.25
    assert s["with_evidence"] == 2
    assert summarize([record(("retrieve",), judge=None)])["accuracy"] is None


def test_flat_modes_have_no_search_then_read():
    flat = {
        "stop_reason": "answered",
        "metrics": behaviour([]) | {"s_to_r": None, "cs_cr": None, "first_action": None},
    }
    s = summarize([flat, flat])
    assert s["s_to_r"] is None and s["cs_cr"] is None and s["first_action_retrieve"] is None


# -- modes, dataset, records --------------------------------------------------------------


def test_modes_parse_and_expand_labels_only_agent_modes():
    assert [parse_mode(m).name for m in DEFAULT_MODES] == list(DEFAULT_MODES)
    assert parse_mode("search-o1").tools == ("retrieve",)
    assert parse_mode("read-only").tools == ("read_section",)
    rag = parse_mode("dense-rag")
    assert (rag.chunk_size, rag.overlap, rag.top_k, rag.budget) == (800, 400, 10, None)
    flat = parse_mode("flat-270@1500")
    assert (flat.chunk_size, flat.overlap, flat.budget) == (270, 135, 1500)
    assert parse_mode("deepread").variant(True) == "deepread+expand"
    assert flat.variant(True) == "flat-270@1500"
    with pytest.raises(ValueError, match="unknown mode"):
        parse_mode("bm25-only")


def test_dataset_reads_the_devset_shape_and_names_bad_lines(tmp_path, devset):
    lines = (devset / "questions.jsonl").read_text(encoding="utf-8").split("\n")
    qs = load_dataset(devset / "questions.jsonl")
    assert len(qs) == sum(bool(line.strip()) for line in lines) > 3
    assert qs[0].evidence[0].doc.endswith(".html")
    assert len(load_dataset(devset / "questions.jsonl", limit=3)) == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "q", "answer": "a"}\n{"id": "b"}\n')
    with pytest.raises(DatasetError, match=r"bad.jsonl:2: missing key\(s\) question, answer"):
        load_dataset(bad)
    bad.write_text('{"id": "a", "question": "q", "answer": "a"}\n' * 2)
    with pytest.raises(DatasetError, match="duplicate id"):
        load_dataset(bad)


def test_records_keep_the_last_line_per_id_and_drop_a_torn_one(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"id": "a", "v": 1}\n{"id": "a", "v": 2, "r": "inf"}\n{"id": "b", "v"')
    got = read_records(path, repair=True)
    assert list(got) == ["a"] and got["a"]["v"] == 2 and got["a"]["r"] == math.inf
    assert path.read_text().endswith("}\n")  # the torn line is gone: appends start clean


# -- judge ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("True", True),
        ("False", False),
        ("**True**", True),
        ("false.", False),
        (" TRUE\n", True),
        ("Yes", True),
        ("incorrect", False),
        ("<think>Is it True or False? It says true.</think>\nFalse", False),
        ("The answer matches the golden answer. Verdict: True", True),
        ("I cannot tell.", None),
        ("", None),
    ],
)
def test_judge_verdicts_are_parsed_robustly(reply, verdict):
    assert parse_verdict(reply) is verdict


def test_judge_prompt_is_fig6_with_slots_filled_once():
    text = judge_prompt("Q <standard_answer>?", "pred", "gold")
    assert "Query: Q <standard_answer>?" in text  # a slot name in the question stays
    assert "- AI-Generated Answer: pred" in text and "- Golden Answer: gold" in text
    assert text.endswith("Your output should be ONLY a boolean value: True or False, nothing else.")


def test_synth_prompt_and_reply_parsing():
    system, template = prompts()
    assert "AT LEAST FOUR distinct LEAF sections" in system and "<docs_text>" not in system
    msg = user_message(template, 2, 3, "DOC <n>")
    assert "You will be given 2 Markdown documents" in msg and "exactly 3 QA pairs" in msg
    assert "DOC <n>" in msg  # document text is inserted verbatim
    assert parse_pairs('```json\n{"qas": [{"q": "Q1", "a": "A1"}, {"q": "", "a": "x"}]}\n```') == [
        ("Q1", "A1")
    ]
    assert parse_pairs("no json here") == []


# -- evidence ----------------------------------------------------------------------------


def test_normalisation_matches_the_probe():
    assert normalize("<td>a &amp; b</td>\n\n  c¶") == "a & b c"
    assert normalize("ﬁle  name") == "file name"  # NFKC


def docs(*sources: str) -> list[Document]:
    return [Document(doc_id=i, title=s, source=s) for i, s in enumerate(sources, 1)]


def test_evidence_docs_match_by_file_name_then_by_stem():
    both = DocResolver(docs("/d/library-json.html", "/d/library-json.pdf", "/d/other.md"))
    assert both.resolve("library-json.html") == {"/d/library-json.html"}
    pdf_only = DocResolver(docs("/d/library-json.pdf"))
    assert pdf_only.resolve("library-json.html") == {"/d/library-json.pdf"}
    assert pdf_only.resolve("nothing.html") is None
    assert pdf_only.missing(
        [Evidence("nothing.html", "q"), Evidence("library-json.html", "q")]
    ) == ["nothing.html"]


def test_a_quote_counts_only_in_its_own_document():
    r = DocResolver(docs("/d/a.html", "/d/b.html"))
    ev = [
        Evidence("a.html", "the quick brown fox"),
        Evidence("b.html", "lazy dog"),
        Evidence("gone.html", "jumps over"),
    ]
    pieces = [
        ("/d/b.html", "<p>The quick brown fox</p> the quick brown fox"),
        ("/d/b.html", "the lazy"),
        ("/d/b.html", "dog jumps over"),
    ]
    got = coverage(ev, pieces, r)
    # a's quote is only in b; b's spans two shown pieces (joined as the probe joins them);
    # an unknown document's quote is looked for everywhere
    assert got.found == (False, True, True)
    assert got.share == pytest.approx(2 / 3)
    assert coverage([], pieces, r).share is None


# -- chunks and trajectories ---------------------------------------------------------------


def test_chunks_are_token_windows_with_the_overlap():
    text = " ".join(f"w{i}" for i in range(1000))
    n = len(encoding().encode_ordinary(text))
    chunks = cut(text, 200, 100)
    assert all(count_tokens(c) <= 201 for c in chunks)
    assert len(chunks) == math.ceil((n - 100) / 100)
    assert chunks[0].split()[-1] in chunks[1]  # half of each chunk repeats in the next
    assert chunks[-1].endswith("w999")
    assert cut("short text", 800, 400) == ["short text"]
    with pytest.raises(ValueError):
        cut(text, 100, 100)


def test_compact_coords_merge_consecutive_paragraphs_of_a_section():
    rows = [{"doc_id": 1, "sec_id": 2, "para_idx": i} for i in (0, 1, 2, 5)]
    rows.append({"doc_id": 1, "sec_id": 3, "para_idx": 6})
    assert compact_coords(rows) == ["1:2:0-2", "1:2:5", "1:3:6"]


def test_trace_counts_what_the_tool_messages_showed():
    row = {"doc_id": 1, "sec_id": 2, "para_idx": 0, "text": "alpha beta"}
    retrieved = ToolMessage(
        content="1 hit\n[1:2:0] alpha beta",
        tool_call_id="c1",
        name="retrieve",
        artifact={"paragraphs": [row], "hits": [row | {"score": 1.0}]},
    )
    read = ToolMessage(
        content="section\n[1:2:1] gamma delta",
        tool_call_id="c2",
        name="read_section",
        artifact={"paragraphs": [row | {"para_idx": 1, "text": "gamma delta"}]},
    )
    values = {
        "toc": "",
        "turn_start": 0,
        "messages": [
            HumanMessage(content="q?"),
            AIMessage(
                content="", tool_calls=[{"name": "retrieve", "args": {"query": "q"}, "id": "c1"}]
            ),
            retrieved,
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "read_section",
                        "id": "c2",
                        "args": {"doc_id": 1, "sec_id": 2, "start": 1, "end": 1},
                    }
                ],
            ),
            read,
            AIMessage(content="answer"),
        ],
    }
    trace = trace_agent(values, DocResolver(docs("/d/a.html")), ("retrieve", "read_section"))
    assert trace.observation_tokens == count_tokens(str(retrieved.content)) + count_tokens(
        str(read.content)
    )
    assert trace.located == [("/d/a.html", "alpha beta")]
    assert trace.shown == [("/d/a.html", "alpha beta"), ("/d/a.html", "gamma delta")]
    assert [o["tool"] for o in trace.observations] == ["retrieve", "read_section"]
    assert trace.observations[0]["hits"] == ["1:2:0"]
    assert trace.observations[1] | {"tokens": 0} == {
        "tool": "read_section",
        "args": {"doc_id": 1, "sec_id": 2, "start": 1, "end": 1},
        "shown": ["1:2:1"],
        "tokens": 0,
    }
    # three model calls, each prompted with everything before it
    assert trace.input_tokens_est > 3 * count_tokens("q?")
    assert trace.output_tokens_est >= count_tokens("answer")
