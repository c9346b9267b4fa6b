"""No call is repeated into the same error (nodes/repeats.py): a call whose arguments were
refused is not run again with the same arguments, and a policy that keeps sending it
answers with what it has instead of spending its rounds on one failure."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from support.scripted import ScriptedChatModel, ai, call

from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.nodes.model_input.prompt import NOTICE_KEY

MISSING = {"doc_id": 999, "sec_id": 0, "start": 0, "end": 3}


def stubborn(messages: list[BaseMessage]) -> AIMessage:
    """A model that reads a document that does not exist until told to answer."""
    if messages[-1].additional_kwargs.get(NOTICE_KEY) == "repeats":
        return ai(content="The documents shown do not give it.")
    return ai(call("read_section", MISSING))


def tool_results(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def test_a_call_that_failed_on_its_arguments_is_not_run_again(shapes):
    model = ScriptedChatModel(steps=[stubborn], cycle=True)
    out = build_graph(index=shapes, model=model).invoke(
        {"question": "What does document 999 say?"}, context=Context(max_rounds=10)
    )

    first, second, third = tool_results(out["messages"])
    assert "999" in first.content and "made before" not in first.content
    assert "made before in this turn with the same arguments" in second.content
    assert "999" in second.content  # the error it met is named
    assert "made before" in third.content


def test_a_policy_repeating_a_failed_call_answers_instead_of_spending_its_rounds(shapes):
    model = ScriptedChatModel(steps=[stubborn], cycle=True)
    out = build_graph(index=shapes, model=model).invoke(
        {"question": "What does document 999 say?"}, context=Context(max_rounds=50)
    )

    assert out["answer"] == "The documents shown do not give it."
    assert out["stop_reason"] == "answered"
    assert len(model.calls) == 4  # three failures, then one call without tools
    assert model.calls[-1][-1].additional_kwargs[NOTICE_KEY] == "repeats"


def test_the_same_bad_call_twice_in_one_reply_is_run_once(shapes):
    model = ScriptedChatModel(
        steps=[
            ai(call("read_section", MISSING, id="a"), call("read_section", MISSING, id="b")),
            ai(content="Nothing."),
        ]
    )
    out = build_graph(index=shapes, model=model).invoke({"question": "q?"}, context=Context())

    first, second = tool_results(out["messages"])
    assert first.tool_call_id == "a" and "made before" not in first.content
    assert second.tool_call_id == "b" and "made before" in second.content


def test_a_call_past_the_replys_cap_may_be_sent_again(shapes):
    calls = [call("retrieve", {"query": f"shape {i}"}, id=f"c{i}") for i in range(3)]
    model = ScriptedChatModel(
        steps=[
            ai(*calls),
            ai(call("retrieve", {"query": "shape 2"}, id="again")),
            ai(content="Done."),
        ]
    )
    out = build_graph(index=shapes, model=model).invoke(
        {"question": "shapes?"}, context=Context(max_tool_calls=2)
    )

    by_id = {m.tool_call_id: m for m in tool_results(out["messages"])}
    assert by_id["c2"].status == "error"  # refused: past the cap, not its arguments' fault
    assert by_id["again"].status == "success"
