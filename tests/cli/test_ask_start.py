"""``deepread ask``'s start (issue 36): its first line, before the agent graph is imported.

The first line names the collection (its documents counted), the model and the thread,
once the store is open and before LangGraph and LangChain are imported (~1-2 s): these
tests check what a process has loaded when that line reaches its stderr, that the run
then goes on to answer (the line is not printed instead of work), and what is refused
before it. Not a timed test: ``bench/first_line.py`` times it (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepread import cli

QUESTION = "What pulls the sea twice a day?"

#: What ``ask`` must not have loaded when its first line is written: the agent graph and
#: what it stands on (LangGraph, LangChain, LangSmith through LangChain's tracers), the
#: checkpointer, and what the graph's first node loads (tiktoken's BPE, the local model).
NOT_BEFORE_THE_FIRST_LINE = (
    "langgraph",
    "langchain_core",
    "langsmith",
    "deepread.graphs.agent",
    "deepread.checkpointers",
    "deepread.models.chat",
    "tiktoken",
    "onnxruntime",
)

#: Runs ``deepread ARGV[2:]`` in this process's interpreter; at the first write to stderr
#: it notes that text and the modules loaded at that moment (one JSON line in ARGV[1]).
PROBE = """
import json, sys
from deepread.cli import main

report = open(sys.argv[1], "w", encoding="utf-8")
real = sys.stderr

class FirstWrite:
    seen = False

    def write(self, text):
        if not FirstWrite.seen and text.strip():
            FirstWrite.seen = True
            report.write(json.dumps({"text": text, "modules": sorted(sys.modules)}) + "\\n")
            report.flush()
        return real.write(text)

    def flush(self):
        real.flush()

sys.stderr = FirstWrite()
sys.exit(main(sys.argv[2:]))
"""


@pytest.fixture(scope="module")
def tides_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import deepread

    folder = tmp_path_factory.mktemp("ask-start")
    (folder / "tides.md").write_text(
        "# Tides\n\n## Causes\n\nThe moon pulls the sea twice a day.\n\n"
        "## The harbour\n\nAt the harbour the tides turn at six in the morning and at six "
        "in the evening.\n",
        encoding="utf-8",
    )
    with deepread.Index.open(store=folder / "store") as index:
        index.ingest([folder / "tides.md"])
    return folder / "store"


def ask_in_a_process(store: Path, report: Path) -> tuple[dict, subprocess.CompletedProcess]:
    """``deepread ask QUESTION --store STORE`` in a fresh interpreter: what it had loaded
    at its first stderr line (and that line), and the finished process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPREAD_", "OPENAI_"))}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(report), "ask", QUESTION, "--store", str(store)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    lines = report.read_text(encoding="utf-8").splitlines() if report.exists() else []
    assert lines, done.stderr
    return json.loads(lines[0]), done


def test_the_first_line_names_the_collection_before_the_graph_is_imported(
    tides_store: Path, tmp_path: Path
) -> None:
    first, done = ask_in_a_process(tides_store, tmp_path / "first-line.json")

    line = first["text"].strip()
    assert line.startswith("deepread ask — collection 'default' (1 document), ")
    assert "the extractive policy (no LLM), thread " in line
    assert not set(first["modules"]) & set(NOT_BEFORE_THE_FIRST_LINE)
    assert "qdrant_edge" in first["modules"]  # the line counts what the open store holds
    # … and the run goes on to answer, on the thread the line named.
    assert done.returncode == 0, done.stderr
    thread = line.rsplit("thread ", 1)[1]
    assert f"[stop: answered; thread {thread} " in done.stderr
    assert "The moon pulls the sea twice a day." in done.stdout
    assert done.stderr.index(line) < done.stderr.index("→ ")


def test_the_first_line_names_the_documents_asked(tides_store: Path, capsys):
    code = cli.main(["ask", QUESTION, "--doc", "1", "--store", str(tides_store)])

    assert code == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("deepread ask — collection 'default' (document 1 of 1), ")


def test_ask_json_writes_no_first_line(tides_store: Path, capsys):
    code = cli.main(["ask", QUESTION, "--store", str(tides_store), "--json"])

    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["stop_reason"] == "answered"
    assert "deepread ask —" not in err


def test_an_unknown_document_is_refused_before_the_first_line(tides_store: Path, capsys):
    code = cli.main(["ask", QUESTION, "--doc", "7", "--store", str(tides_store)])

    err = capsys.readouterr().err
    assert code == 2  # a usage error, as chat and search say it; not "the model failed"
    assert "no document 7 in collection 'default'" in err
    assert "deepread ask —" not in err
