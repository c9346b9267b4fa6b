"""Evidence notes: past ``notes_budget`` tokens, older observations are sent to the model
as compact notes (coordinates, exact short quotes, a re-read call), so a 50-round
trajectory stays within budget; the checkpointed messages stay whole and noted
paragraphs can be re-read in full.
"""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from support.scripted import ScriptedChatModel, ai, call

import deepread
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.model_input.notes import NOTE_MARK, compact, message_tokens, note_for

BUDGET = 12_000
ROUNDS = 50
_READ = re.compile(r"read_section\((\d+), (\d+), (\d+), (\d+)\)")
_QUOTE = re.compile(r'\[(\d+):(\d+):(\d+)\] "([^"]+)"')


def tokens(messages: list[BaseMessage]) -> int:
    return sum(message_tokens(m) for m in messages)


def flat(text: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", text).split())


@pytest.fixture(scope="module")
def long_trajectory(devset_index: deepread.Index):
    """50 rounds of read_section over the devset page's sections, then an answer."""
    sections = [
        (d.doc_id, s.sec_id, s.n_para)
        for d in devset_index.documents()
        for s in d.sections
        if s.n_para
    ]
    reads = [
        ai(call("read_section", {"doc_id": d, "sec_id": s, "start": 0, "end": n - 1}))
        for d, s, n in (sections[i % len(sections)] for i in range(ROUNDS))
    ]
    model = ScriptedChatModel(steps=[*reads, ai(content="Done.")])
    graph = build_graph(index=devset_index, model=model, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "long"}}
    out = graph.invoke(
        {"question": "How does json encode NaN and Infinity values?"},
        config,
        context=Context(max_rounds=ROUNDS + 5, notes_budget=BUDGET),
    )
    return model, graph.get_state(config).values, out


def test_fifty_rounds_of_reading_stay_under_the_notes_budget(long_trajectory):
    model, state, out = long_trajectory

    assert len(model.calls) == ROUNDS + 1
    assert out["stop_reason"] == "answered"
    sent = [tokens(messages) for messages in model.calls]
    assert max(sent) <= BUDGET, sent
    system = model.calls[-1][0]
    assert isinstance(system, SystemMessage)
    # without notes the last call would have been far over the budget
    assert tokens([system, *state["messages"]]) > 2 * BUDGET


def test_the_notes_name_coordinates_that_can_be_re_read(long_trajectory, devset_index):
    model, _, _ = long_trajectory
    notes = [
        str(m.content)
        for m in model.calls[-1]
        if isinstance(m, ToolMessage) and str(m.content).startswith(NOTE_MARK)
    ]

    assert len(notes) >= ROUNDS // 2
    quoted = 0
    for note in notes:
        reads = _READ.findall(note)
        assert reads, note
        for d, s, i, j in reads:
            assert devset_index.read_section(int(d), int(s), int(i), int(j))
        for d, s, p, quote in _QUOTE.findall(note):
            [paragraph] = devset_index.read_section(int(d), int(s), int(p), int(p))
            assert quote in flat(paragraph.text), (quote, paragraph.text[:200])
            quoted += 1
    assert quoted >= len(notes)  # most notes quote what matters for the question


def test_the_checkpointed_messages_keep_the_original_observations(long_trajectory):
    _, state, _ = long_trajectory
    results = [m for m in state["messages"] if isinstance(m, ToolMessage)]

    assert len(results) == ROUNDS
    assert not any(str(m.content).startswith(NOTE_MARK) for m in results)


def test_a_section_seen_only_as_a_note_is_shown_in_full_when_read_again(long_trajectory):
    _, state, _ = long_trajectory
    seen: set[tuple[int, int]] = set()
    reread_in_full = 0
    for m in state["messages"]:
        if not isinstance(m, ToolMessage):
            continue
        rows = m.artifact["paragraphs"]
        key = (rows[0]["doc_id"], rows[0]["sec_id"])
        if key in seen and not any(r["repeat"] for r in rows):
            reread_in_full += 1
        seen.add(key)
    assert reread_in_full > 0


def test_compaction_keeps_the_latest_observations_and_fits_when_it_can():
    rows = [
        {
            "doc_id": 1,
            "sec_id": 2,
            "para_idx": i,
            "repeat": False,
            "text": f"Filler sentence number {i} about nothing. NaN values are "
            f"encoded as the literal NaN in case {i}. " * 8,
        }
        for i in range(6)
    ]
    old = ToolMessage(
        content="x " * 3000, tool_call_id="a", name="read_section", artifact={"paragraphs": rows}
    )
    new = ToolMessage(
        content="y " * 200, tool_call_id="b", name="read_section", artifact={"paragraphs": rows[:1]}
    )
    messages = [
        AIMessage(content="", tool_calls=[call("read_section", {}, "a")]),
        old,
        AIMessage(content="", tool_calls=[call("read_section", {}, "b")]),
        new,
    ]

    out = compact(messages, "How is NaN encoded?", budget=1000)

    assert out[3] is new
    assert str(out[1].content) == note_for(old, "How is NaN encoded?")
    assert "read_section(1, 2, 0, 5)" in str(out[1].content)
    assert '"NaN values are encoded as the literal NaN in case' in str(out[1].content)
    assert tokens(out) <= 1000
    assert compact(messages, "q", budget=10**6) == messages
