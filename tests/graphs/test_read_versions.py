"""Read-region memory is kept per document version: a document written again (a changed
file re-ingested, another process's write) or removed and its doc_id given to another is
shown again in full, never pointed at as "shown above" — the model never saw its text.

One real collection; a thread that reads ``[1:1:0]``, then a write, then the same read
(a scripted policy emitting real tool calls; a real checkpointer).
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from support.scripted import ScriptedChatModel, ai, call

import deepread
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.read_memory import (
    MIXED,
    changed_documents,
    index_scope,
    region_key,
    shown_versions,
    version_key,
)

THREAD = {"configurable": {"thread_id": "t"}}
POINTER = "(shown above)"
FEES = "# Fees\n\nThe annual fee is {fee} dollars, due in March.\n"


def reader() -> ScriptedChatModel:
    """Each turn: read [1:1:0], then answer."""
    return ScriptedChatModel(
        steps=[
            ai(call("read_section", {"doc_id": 1, "sec_id": 1, "start": 0, "end": 0})),
            ai(content="Read [1:1:0]."),
        ],
        cycle=True,
    )


def read_twice(tmp_path: Path, between) -> list[str]:
    """The read's result in a first and a second turn of one thread, ``between(index,
    folder)`` run between them."""
    (tmp_path / "fees.md").write_text(FEES.format(fee=100), encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="c") as idx:
        idx.ingest([tmp_path / "fees.md"])
        graph = build_graph(index=idx, model=reader(), checkpointer=InMemorySaver())
        results = []
        for turn in range(2):
            if turn:
                between(idx, tmp_path)
            graph.invoke(
                {"question": "What is the fee?"}, THREAD, context=Context(check_sufficiency=False)
            )
            messages = graph.get_state(THREAD).values["messages"]
            results.append(str([m for m in messages if isinstance(m, ToolMessage)][-1].content))
    return results


def test_a_paragraph_read_again_from_the_same_version_is_pointed_at(tmp_path):
    first, second = read_twice(tmp_path, lambda idx, folder: None)

    assert "100 dollars" in first and POINTER in second and "100 dollars" not in second


def test_a_document_written_again_is_shown_again_not_pointed_at(tmp_path):
    def rewrite(idx: deepread.Index, folder: Path) -> None:
        (folder / "fees.md").write_text(FEES.format(fee=250), encoding="utf-8")
        idx.ingest([folder / "fees.md"])

    first, second = read_twice(tmp_path, rewrite)

    assert "100 dollars" in first
    assert "250 dollars" in second and POINTER not in second


def test_a_doc_id_given_to_another_document_after_a_removal_is_shown_in_full(tmp_path):
    def replace(idx: deepread.Index, folder: Path) -> None:
        idx.remove(1)
        (folder / "other.md").write_text(FEES.format(fee=7), encoding="utf-8")
        assert [d.doc_id for d in idx.ingest([folder / "other.md"])] == [1]

    _, second = read_twice(tmp_path, replace)

    assert "7 dollars" in second and POINTER not in second


def test_a_thread_from_before_versions_were_recorded_is_shown_its_paragraphs_again(tmp_path):
    (tmp_path / "fees.md").write_text(FEES.format(fee=100), encoding="utf-8")
    with deepread.Index.open(store=tmp_path / "store", collection="c") as idx:
        idx.ingest([tmp_path / "fees.md"])
        graph = build_graph(index=idx, model=reader(), checkpointer=InMemorySaver())
        graph.update_state(
            THREAD,
            {"read_regions": {region_key(1, 1, index_scope(idx)): [[0, 0]]}},
            as_node="finalize",
        )

        graph.invoke(
            {"question": "What is the fee?"}, THREAD, context=Context(check_sufficiency=False)
        )
        messages = graph.get_state(THREAD).values["messages"]

    result = str([m for m in messages if isinstance(m, ToolMessage)][-1].content)
    assert "100 dollars" in result and POINTER not in result


def test_a_document_changed_since_it_was_shown_this_turn_is_recorded_as_mixed():
    state = {
        "read_regions": {"s/1:1": [[0, 0]], "s/2:1": [[0, 0]]},
        "read_versions": {version_key(1, "s"): "v1", version_key(2, "s"): "w1"},
    }
    now = {1: "v2", 2: "w1"}

    changed = changed_documents(state, "s", now)

    assert changed == {1}
    assert shown_versions(state, "s", {1, 2}, now, changed) == {
        version_key(1, "s"): MIXED,
        version_key(2, "s"): "w1",
    }
