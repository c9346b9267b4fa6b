"""Several processes on one embedded store: a chat left open never locks the others out.

Real processes on a real store: ``deepread chat`` idle at its prompt, driven by a pipe
on stdin, while ``deepread docs``, ``ask`` and ``ingest`` run beside it — each with
``DEEPREAD_STORE_WAIT=0``, so one that found the store held and unanswered would fail
instead of waiting — and the chat's next answer reads what the ingest stored. A writer
beside a process holding the store writes through it (stores/relay.py), at once. (A
holder that does not answer: tests/stores/test_faults.py.)
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from support.processes import Running, deepread, deepread_command, environment

import deepread as dr

ALPHA = "# Alpha\n\nThe alpha widget turns the crank to the left.\n"
BETA = "# Beta\n\nThe beta gadget hums a low note when it is wound.\n"
HOLD = Path(__file__).resolve().parents[1] / "support" / "hold_store.py"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    (tmp_path / "alpha.md").write_text(ALPHA, encoding="utf-8")
    (tmp_path / "beta.md").write_text(BETA, encoding="utf-8")
    store = tmp_path / "store"
    with dr.Index.open(store=store) as index:
        index.ingest([tmp_path / "alpha.md"])
    return store


def test_ask_docs_and_ingest_run_beside_an_idle_chat_which_then_reads_what_was_stored(
    store: Path, tmp_path: Path
) -> None:
    chat = Running([*deepread_command(), "chat", "--store", str(store), "--json"], environment())
    try:
        chat.wait_for("deepread chat — collection 'default'")  # at its prompt, idle
        others = environment(DEEPREAD_STORE_WAIT="0")  # held: fail at once, not wait

        docs = deepread("docs", "--store", store, "--json", env=others)
        assert docs.returncode == 0, docs.stderr
        assert [d["title"] for d in json.loads(docs.stdout)["documents"]] == ["Alpha"]

        ask = deepread(
            "ask", "Which way does the alpha widget turn the crank?", "--store", store,
            "--json", env=others,
        )  # fmt: skip
        assert ask.returncode == 0, ask.stderr
        assert {c["doc_id"] for c in json.loads(ask.stdout)["citations"]} == {1}

        ingest = deepread("ingest", tmp_path / "beta.md", "--store", store, "--json", env=others)
        assert ingest.returncode == 0, ingest.stderr
        assert [d["doc_id"] for d in json.loads(ingest.stdout)["documents"]] == [2]

        chat.send("What does the beta gadget do when it is wound?")
        answer = json.loads(chat.line("out"))
        assert answer["stop_reason"] == "answered", answer
        assert 2 in {c["doc_id"] for c in answer["citations"]}  # stored while it waited

        chat.send("/docs")
        listed = json.loads(chat.line("out"))
        assert [d["doc_id"] for d in listed["documents"]] == [1, 2]
        assert chat.finish() == 0
    finally:
        chat.kill()


def test_a_writer_beside_the_process_holding_the_store_writes_through_it_at_once(
    store: Path, tmp_path: Path
) -> None:
    holder = Running([sys.executable, str(HOLD), str(store), "default"], environment())
    try:
        assert holder.line("out") == "held"
        ingest = deepread(
            "ingest",
            tmp_path / "beta.md",
            "--store",
            store,
            env=environment(DEEPREAD_STORE_WAIT="0"),
        )
        assert ingest.returncode == 0, ingest.stderr
        assert "1 stored, 0 unchanged, 0 failed" in ingest.stderr
        assert "waiting" not in ingest.stderr
        holder.send("")  # let go
        assert holder.line("out") == "released"
    finally:
        holder.kill()
    with dr.Index.open(store=store) as index:
        assert [d.title for d in index.documents()] == ["Alpha", "Beta"]


DOCS = Path(__file__).resolve().parents[1] / "data" / "docs"


def test_docs_search_and_read_answer_while_an_ingest_runs_seeing_what_it_stored(
    store: Path, tmp_path: Path
) -> None:
    ingest = Running(
        [*deepread_command(), "ingest", str(DOCS), "--store", str(store)], environment()
    )
    try:
        ingest.wait_for("stored ")  # its first document is in; the others are to come
        others = environment(DEEPREAD_STORE_WAIT="0")  # answered, not waited for

        docs = deepread("docs", "--store", store, "--json", env=others)
        search = deepread("search", "sort_keys", "--store", store, "--json", env=others)
        read = deepread("read", "1", "1", "0", "0", "--store", store, "--json", env=others)

        assert docs.returncode == 0, docs.stderr
        listed = [d["title"] for d in json.loads(docs.stdout)["documents"]]
        assert listed[0] == "Alpha" and len(listed) >= 2  # what is stored so far, whole
        assert search.returncode == 0, search.stderr
        assert read.returncode == 0, read.stderr
        assert ingest.process.poll() is None, "the ingest ended before the readers asked"
        assert ingest.finish(timeout=600) == 0, ingest.err_seen  # (nine pages: minutes, loaded)
    finally:
        ingest.kill()
    with dr.Index.open(store=store) as index:
        assert len(index.documents()) == 1 + 9


def test_a_chat_beside_a_stopped_holder_waits_saying_so_then_answers_and_names_its_thread(
    store: Path,
) -> None:
    holder = Running([sys.executable, str(HOLD), str(store), "default"], environment())
    chat = None
    try:
        assert holder.line("out") == "held"
        os.kill(holder.process.pid, signal.SIGSTOP)  # it holds the store and answers nobody
        chat = Running(
            [*deepread_command(), "chat", "--store", str(store), "--json"],
            environment(DEEPREAD_STORE_WAIT="0"),
        )
        waiting = chat.wait_for("waiting for the store")
        assert f"hold_store.py (pid {holder.process.pid})" in waiting
        os.kill(holder.process.pid, signal.SIGCONT)
        holder.send("")  # resumed, it lets go
        chat.wait_for("deepread chat — collection 'default'")
        chat.send("Which way does the alpha widget turn the crank?")
        answer = json.loads(chat.line("out"))
        assert answer["stop_reason"] == "answered", answer
        assert chat.finish() == 0  # (end of input: Ctrl-D)
        assert chat.wait_for("[thread ").startswith(f"[thread {answer['thread_id']} ")
    finally:
        os.kill(holder.process.pid, signal.SIGCONT)
        holder.kill()
        if chat is not None:
            chat.kill()
