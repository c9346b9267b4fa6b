"""The agent graph's routers (graphs/routes.py): each pending tool call goes to the executor
of its tool, in order, and the round ends once every call is answered; their return types
name exactly the executor nodes the graph has."""

from __future__ import annotations

from typing import get_args

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from support.scripted import call
from support.scripted import calls_state as asked

from deepread.graphs.routes import Executor, after_check, after_policy, next_call
from deepread.nodes.executors import HANDLERS
from deepread.nodes.names import AFTER_TOOLS, CHECK, FINALIZE, INVALID_CALL


def test_the_executor_type_names_every_handler_and_invalid_call():
    assert set(get_args(Executor)) == {*HANDLERS, INVALID_CALL}


@pytest.mark.parametrize(
    ("calls", "offered", "route"),
    [
        ([call("retrieve", {"query": "q"})], ("retrieve", "read_section"), "retrieve"),
        (
            [call("read_section", {"doc_id": 1, "sec_id": 0})],
            ("retrieve", "read_section"),
            "read_section",
        ),
        ([call("open_toc", {"doc_id": 1})], ("retrieve", "read_section"), INVALID_CALL),
        ([call("nonsense", {})], ("retrieve",), INVALID_CALL),
    ],
)
def test_each_pending_call_is_routed_to_the_executor_of_its_tool(calls, offered, route):
    assert next_call(asked(*calls, offered=offered)) == route


def test_calls_are_routed_in_order_and_the_round_ends_when_all_are_answered():
    first, second = (
        call("retrieve", {"query": "a"}, id="c1"),
        call("read_section", {"doc_id": 1, "sec_id": 0}, id="c2"),
    )
    state = asked(first, second)
    answered = ToolMessage(content="ok", tool_call_id="c1", name="retrieve")

    assert next_call(state) == "retrieve"
    state["messages"].append(answered)
    assert next_call(state) == "read_section"
    state["messages"].append(ToolMessage(content="ok", tool_call_id="c2", name="read_section"))
    assert next_call(state) == AFTER_TOOLS


def test_an_answer_goes_to_the_check_and_a_checked_answer_is_final():
    answered = {"messages": [HumanMessage(content="q"), AIMessage(content="The answer.")]}

    assert after_policy(answered) == CHECK
    assert after_check(answered) == FINALIZE


def test_a_call_the_check_makes_goes_to_its_executor():
    state = asked(call("read_section", {"doc_id": 1, "sec_id": 0}))

    assert after_check(state) == "read_section"
