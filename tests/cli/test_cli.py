"""The ``deepread`` command line, run in-process through ``deepread.cli.main``.

JSON schemas of ingest/toc/search/read, exit codes (1 some input failed, 2 bad
coordinates, 4 the model failed), and ``ask``: offline with the extractive policy, an
unreachable OpenAI-compatible endpoint, and a conversation continued with ``--thread``.
No test touches the network or needs an API key.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from support.documents import SHAPES_MD

from deepread import cli

COORD = r"\[\d+:\d+:\d+\]"
JSON_QUESTION = (
    "In which respects does Python's json module accept or produce things "
    "that a strict reading of the JSON RFC would not allow?"
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings, keys or proxies from the environment (conftest: no retry sleeps)."""
    for name in list(os.environ):
        if name.startswith(("DEEPREAD_", "OPENAI_")) or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """``deepread ARGV`` in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def shapes_cli(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """``SHAPES_MD`` ingested once by ``deepread ingest --json``: store, file, output."""
    root = tmp_path_factory.mktemp("cli-shapes")
    path = root / "shapes.md"
    path.write_text(SHAPES_MD, encoding="utf-8")
    store = root / "store"
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = cli.main(["ingest", str(path), "--store", str(store), "--json"])
    assert code == 0
    return store, path, json.loads(out.getvalue())


@pytest.fixture()
def shapes_store(shapes_cli: tuple[Path, Path, dict[str, Any]]) -> Path:
    return shapes_cli[0]


@pytest.fixture(scope="module")
def json_store(tmp_path_factory: pytest.TempPathFactory, devset: Path) -> Path:
    """A store with one devset page (library-json.html), ingested by the CLI once."""
    store = tmp_path_factory.mktemp("cli-devset") / "store"
    code = cli.main(
        ["ingest", str(devset / "docs" / "library-json.html"), "--store", str(store), "--json"]
    )
    assert code == 0
    return store


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- ingest, toc, search, read ------------------------------------------------------


def test_ingest_json_lists_the_stored_documents(shapes_cli):
    _, _, data = shapes_cli  # the module fixture's `deepread ingest --json` output

    [doc] = data["documents"]
    assert {"doc_id", "source", "title", "sections", "paragraphs", "tokens"} <= set(doc)
    assert isinstance(doc["doc_id"], int)
    assert Path(doc["source"]).name == "shapes.md"
    assert doc["title"] == "Shapes"
    assert doc["sections"] == 5
    assert doc["paragraphs"] == 7  # preamble, Five (5), One
    assert doc["tokens"] > 0
    assert doc["unchanged"] is False
    assert data["failures"] == []


def test_ingesting_the_same_file_again_reports_it_unchanged(shapes_cli, capsys):
    store, path, first = shapes_cli
    data = run_json(capsys, "ingest", path, "--store", store)

    assert [d["unchanged"] for d in data["documents"]] == [True]
    assert data["documents"][0]["doc_id"] == first["documents"][0]["doc_id"]


def test_ingest_force_stores_an_unchanged_file_again(shapes_cli, capsys):
    store, path, first = shapes_cli
    data = run_json(capsys, "ingest", path, "--store", store, "--force")

    assert [d["unchanged"] for d in data["documents"]] == [False]
    assert data["documents"][0]["doc_id"] == first["documents"][0]["doc_id"]


def test_ingest_of_a_missing_path_exits_1_and_does_the_rest(tmp_path: Path, capsys):
    tiny = tmp_path / "tiny.md"
    tiny.write_text("# Tiny\n\nOne paragraph.\n", encoding="utf-8")
    missing = tmp_path / "nope.md"

    code, out, _ = run(capsys, "ingest", missing, tiny, "--store", tmp_path / "store", "--json")

    assert code == 1
    data = json.loads(out)
    assert [(d["title"], d["unchanged"]) for d in data["documents"]] == [("Tiny", False)]
    assert data["failures"] == [{"path": str(missing), "reason": "no such file or directory"}]


def test_ingest_of_only_a_missing_path_exits_1(tmp_path: Path, capsys):
    code, _, err = run(capsys, "ingest", tmp_path / "nope.md", "--store", tmp_path / "store")

    assert code == 1
    assert "nope.md" in err and "no such file or directory" in err


def test_toc_json_has_documents_with_their_section_trees(shapes_store: Path, capsys):
    data = run_json(capsys, "toc", "--store", shapes_store)

    [doc] = data["documents"]
    assert set(doc) == {"doc_id", "title", "source", "sections", "card"}
    assert doc["card"]["file"] == "shapes.md" and doc["card"]["title"] == doc["title"]
    assert [s["title"] for s in doc["sections"]] == ["Shapes", "Shapes", "Five", "Empty", "One"]
    for sec in doc["sections"]:
        assert set(sec) == {"sec_id", "title", "level", "parent", "children", "n_para", "n_tok"}
    five = doc["sections"][2]
    assert (five["sec_id"], five["level"], five["n_para"], five["children"]) == (2, 2, 5, [])


def test_toc_text_prints_one_line_per_section(shapes_store: Path, capsys):
    code, out, _ = run(capsys, "toc", "--store", shapes_store)

    assert code == 0
    assert "[2] Five | paragraphs=5 | tokens=" in out
    assert len(out.strip().splitlines()) == 5


def test_search_json_has_ranked_hits_and_their_paragraphs(shapes_store: Path, capsys):
    data = run_json(capsys, "search", "cherries", "--k", "2", "--store", shapes_store)

    assert data["query"] == "cherries"
    assert len(data["hits"]) == 2
    for hit in data["hits"]:
        # with where the paragraph is in its source (an .md here: a character range)
        assert set(hit) == {"doc_id", "sec_id", "para_idx", "score", "boxes", "span"}
        assert hit["boxes"] == [] and len(hit["span"]) == 2
    scores = [h["score"] for h in data["hits"]]
    assert scores == sorted(scores, reverse=True)
    for para in data["paragraphs"]:
        assert {"doc_id", "sec_id", "para_idx", "text"} <= set(para)
    best = data["paragraphs"][0]
    assert best["text"] == "Charlie paragraph about cherries."
    assert (best["doc_id"], best["sec_id"], best["para_idx"]) == tuple(
        data["hits"][0][k] for k in ("doc_id", "sec_id", "para_idx")
    )


def test_read_json_clips_the_range_to_the_section(shapes_store: Path, capsys):
    data = run_json(capsys, "read", "1", "2", "3", "99", "--store", shapes_store)

    assert (data["doc_id"], data["sec_id"], data["start"], data["end"]) == (1, 2, 3, 4)
    assert [p["para_idx"] for p in data["paragraphs"]] == [3, 4]
    assert [p["text"] for p in data["paragraphs"]] == [
        "Delta paragraph about dates.",
        "Echo paragraph about elderberries.",
    ]


def test_a_read_past_the_sections_end_exits_2_naming_its_size(shapes_store: Path, capsys):
    code, out, err = run(capsys, "read", "1", "2", "50", "60", "--store", shapes_store)

    assert code == 2 and out == ""
    assert "section [2] of document 1 has paragraphs 0-4: 50..60 is past its end" in err


def test_read_prints_a_table_as_its_rows_and_json_keeps_its_html(tmp_path: Path, capsys):
    report = tmp_path / "report.md"
    report.write_text(
        "# Report\n\n## Sales\n\n| Region | 2023 |\n|---|---|\n| Americas | 1,690 |\n",
        encoding="utf-8",
    )
    assert run(capsys, "ingest", report, "--store", tmp_path / "store")[0] == 0

    code, out, _ = run(capsys, "read", "1", "2", "--store", tmp_path / "store")
    data = run_json(capsys, "read", "1", "2", "--store", tmp_path / "store")

    assert code == 0 and "Region | 2023\nAmericas | 1,690" in out
    assert "<td>Americas</td>" in data["paragraphs"][0]["text"]


def test_read_of_an_unknown_document_exits_2_with_a_clear_message(shapes_store: Path, capsys):
    code, out, err = run(capsys, "read", "42", "0", "--store", shapes_store)

    assert code == 2
    assert out == ""
    assert "no document 42" in err
    assert "(documents: 1)" in err


def test_read_of_an_unknown_section_exits_2_naming_the_valid_ones(shapes_store: Path, capsys):
    code, _, err = run(capsys, "read", "1", "9", "--store", shapes_store)

    assert code == 2
    assert "document 1 has no section 9 (valid: 0..4)" in err


# -- ask ----------------------------------------------------------------------------


def test_ask_offline_answers_with_citations_without_a_key(json_store: Path, capsys):
    data = run_json(capsys, "ask", JSON_QUESTION, "--store", json_store)

    assert data["stop_reason"] == "answered"
    # no preface: the answer opens with the line that answers, cited
    assert "No LLM was used" not in data["answer"]
    assert re.search(COORD, data["answer"].splitlines()[0])
    assert data["citations"]
    assert data["dropped_citations"] == 0
    names = [c["name"] for c in data["tool_calls"]]
    # retrieve, then reads until the observation budget is spent (at most 8), with at
    # most one next results page (a second retrieve) between them
    assert names[0] == "retrieve" and names.count("retrieve") <= 2
    assert 1 <= names.count("read_section") == len(names) - names.count("retrieve") <= 8
    assert data["thread_id"]


def test_ask_text_output_lists_citations_and_the_thread(json_store: Path, capsys):
    code, out, err = run(capsys, "ask", JSON_QUESTION, "--store", json_store)

    assert code == 0
    # that no LLM answered is said where the run is described, not in the answer
    assert "the extractive policy (no LLM)" in err.splitlines()[0]
    assert "No LLM was used" not in out and re.search(COORD, out.splitlines()[0])
    assert "\nCitations:\n" in out
    assert "→ retrieve(query=" in err and "→ read_section(" in err
    assert "[stop: answered; thread " in err


def test_ask_with_an_unreachable_endpoint_exits_4_naming_it(json_store: Path, capsys, monkeypatch):
    endpoint = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", endpoint)

    code, _, err = run(
        capsys, "ask", "What is JSON?", "--model", "gpt-4o-mini", "--store", json_store, "--json"
    )

    assert code == 4
    assert f"cannot reach {endpoint}" in err
    assert err.startswith("deepread: the model failed:")


def test_ask_with_a_model_but_no_key_or_endpoint_exits_4_saying_what_to_set(
    json_store: Path, capsys
):
    code, _, err = run(
        capsys, "ask", "What is JSON?", "--model", "gpt-4o-mini", "--store", json_store
    )

    assert code == 4
    assert "OPENAI_API_KEY" in err


def test_ask_on_an_empty_collection_exits_2(tmp_path: Path, capsys):
    code, _, err = run(capsys, "ask", "anything?", "--store", tmp_path / "store")

    assert code == 2
    assert "is empty; run deepread ingest first" in err


def _coord(citation: dict) -> tuple[int, int, int]:
    return citation["doc_id"], citation["sec_id"], citation["para_idx"]


def test_ask_with_thread_continues_the_conversation(json_store: Path, capsys):
    first = run_json(capsys, "ask", JSON_QUESTION, "--store", json_store, "--thread", "conv")
    second = run_json(capsys, "ask", JSON_QUESTION, "--store", json_store, "--thread", "conv")

    assert first["thread_id"] == second["thread_id"] == "conv"
    assert second["stop_reason"] == "answered"
    # the same passages cited, the same one first (two quotes scoring within a
    # thousandth of each other may trade places between quoted and pointed at)
    assert second["citations"][0] == first["citations"][0]
    assert sorted(map(_coord, second["citations"])) == sorted(map(_coord, first["citations"]))
    assert second["dropped_citations"] == 0
    # The second turn's observations point back at what the first turn read.
    from langgraph.checkpoint.sqlite import SqliteSaver

    from deepread.graphs.agent import build_graph
    from deepread.records.locations import sidecar_dir

    with SqliteSaver.from_conn_string(
        str(sidecar_dir(str(json_store)) / "checkpoints.sqlite")
    ) as saver:
        state = (
            build_graph(checkpointer=saver)
            .get_state({"configurable": {"thread_id": "conv"}})
            .values
        )
    messages = state["messages"]
    assert [m.type for m in messages].count("human") == 2
    second_turn = messages[state["turn_start"] :]
    read = [m for m in second_turn if m.type == "tool" and m.name == "read_section"]
    # The first read is the section the first turn read first: all pointers. (With the
    # budget those pointers leave, later reads may show sections not read before.)
    assert read and all(r["repeat"] for r in read[0].artifact["paragraphs"])
    assert "(shown above)" in read[0].content


def test_ask_without_thread_starts_a_new_conversation(json_store: Path, capsys):
    first = run_json(capsys, "ask", JSON_QUESTION, "--store", json_store)
    second = run_json(capsys, "ask", JSON_QUESTION, "--store", json_store)

    assert first["thread_id"] != second["thread_id"]


def test_the_cli_runs_as_a_module(tmp_path: Path):
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "deepread.cli",
            "read",
            "1",
            "0",
            "--store",
            str(tmp_path / "store"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 2
    assert "no document 1" in result.stderr


def test_ask_step_lines_show_tool_results_from_every_node():
    from langchain_core.messages import AIMessage, ToolMessage

    from deepread.cli.steps import step_lines as _one_line

    reference = ToolMessage(
        content="'Section 4.2' → section (1) [7] Defining Functions",
        tool_call_id="c1",
        name="follow_reference",
        artifact={"paragraphs": []},
    )
    extra = AIMessage(
        content="",
        tool_calls=[{"name": "read_section", "id": "c2", "args": {"doc_id": 1, "sec_id": 2}}],
    )
    read = ToolMessage(
        content="…",
        tool_call_id="c2",
        name="read_section",
        artifact={"paragraphs": [{"doc_id": 1, "sec_id": 2, "para_idx": 0}]},
    )

    lines = _one_line({"messages": [reference]}) + _one_line({"messages": [extra, read]})

    assert lines == [
        "← follow_reference: 'Section 4.2' → section (1) [7] Defining Functions",
        "→ read_section(doc_id=1, sec_id=2)",
        "← read_section: 1 paragraphs [1:2:0]",
    ]


# -- papercuts (issue 36) -------------------------------------------------------------


def test_ask_doc_takes_ids_and_leaves_the_question_positional(json_store: Path, capsys):
    # `--doc` once swallowed the question ("argument --doc: invalid int value").
    data = run_json(capsys, "ask", "--doc", "1", "What does sort_keys do?", "--store", json_store)

    assert data["stop_reason"] == "answered"
    assert data["question"] == "What does sort_keys do?"
    assert {c["doc_id"] for c in data["citations"]} == {1}


@pytest.mark.parametrize(
    ("given", "doc"),
    [(["--doc", "4"], [4]), (["--doc", "4,7"], [4, 7]), (["--doc", "4", "--doc", "7"], [4, 7])],
)
def test_doc_takes_one_id_per_flag_or_a_comma_separated_list(given: list[str], doc: list[int]):
    from deepread.cli.parser import build_parser

    for argv in (["ask", *given, "a question"], ["search", *given, "a query"], ["toc", *given]):
        args = build_parser().parse_args(argv)
        assert args.doc == doc, argv
        assert getattr(args, "question", getattr(args, "query", None)) in (
            None,
            "a question",
            "a query",
        )


def test_a_doc_that_is_not_an_id_is_a_usage_error_naming_the_forms(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["ask", "--doc", "four", "a question"])

    assert exited.value.code == 2
    assert "(4 or 4,7), not 'four'" in capsys.readouterr().err


def test_ask_json_prints_the_question_asked(json_store: Path, capsys):
    data = run_json(capsys, "ask", f"  {JSON_QUESTION}\n", "--store", json_store)

    assert data["question"] == JSON_QUESTION


def test_the_find_documents_step_line_names_the_documents_found():
    from langchain_core.messages import ToolMessage

    from deepread.cli.steps import step_lines

    found = ToolMessage(
        content="Documents the query names, best first:\n"
        "(3) 3M 10-K 2022 | file=3M_2022_10K.pdf | annual report, FY2022 | holds: 3m, 2022\n"
        "(5) 3M 10-Q Q2 2023 | file=3M_2023Q2_10Q.pdf | quarterly report | holds: 3m\n",
        tool_call_id="c1",
        name="find_documents",
        artifact={"paragraphs": [], "documents": [3, 5]},
    )

    assert step_lines({"messages": [found]}) == [
        "← find_documents: Documents the query names, best first: (3) 3M 10-K 2022; "
        "(5) 3M 10-Q Q2 2023"
    ]


def test_ingest_prints_the_title_docs_shows(tmp_path: Path, capsys):
    for name, text in (("a.md", "Apples are red."), ("b.md", "Pears are green.")):
        (tmp_path / name).write_text(f"# Notes\n\n{text}\n", encoding="utf-8")
    store = tmp_path / "store"

    code, out, _ = run(capsys, "ingest", tmp_path / "a.md", tmp_path / "b.md", "--store", store)
    docs = run_json(capsys, "docs", "--store", store)["documents"]

    assert code == 0
    assert [line.split(" — ")[0] for line in out.splitlines()] == [
        f"({d['doc_id']}) {d['title']}" for d in docs
    ]
    assert [d["title"] for d in docs] != ["Notes", "Notes"]
