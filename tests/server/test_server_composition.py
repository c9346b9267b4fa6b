"""deepread as a node of a larger graph: what docs/api.md's "Inside a larger graph" says, shown.

Inside a parent graph with a checkpointer, the agent keeps its thread memory (messages,
read regions) across the parent's turns only when built with ``checkpointer=True``. (The
served agent as a ``RemoteGraph`` node is shown in tests/server/test_server.py, on its server.)
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

import deepread


class Review(TypedDict, total=False):
    question: str
    answer: str
    citations: list
    log: Annotated[list[str], operator.add]


@dataclass
class ParentContext:
    collection: str = "default"


def parent_with(node: Any, checkpointer: Any = None):
    builder = StateGraph(Review, context_schema=ParentContext)
    builder.add_node("reader", node)
    builder.add_edge(START, "reader")
    builder.add_edge("reader", END)
    return builder.compile(checkpointer=checkpointer)


# -- checkpointer=True inside a checkpointed parent ---------------------------------------


def two_turns(idx: deepread.Index, checkpointer: Any) -> dict[str, list[Any]]:
    """Ask the same question twice on one parent thread (the parent has a checkpointer);
    the messages the agent kept, per checkpoint namespace, as its latest checkpoint."""
    saver = InMemorySaver()
    parent = parent_with(
        deepread.build_graph(index=idx, checkpointer=checkpointer), checkpointer=saver
    )
    config = {"configurable": {"thread_id": "review-1"}}
    for _ in range(2):
        out = parent.invoke({"question": "Which paragraph is about bananas?"}, config)
        assert out["citations"]
    kept: dict[str, list[Any]] = {}
    for item in saver.list({"configurable": {"thread_id": "review-1"}}):  # newest first
        namespace = item.config["configurable"].get("checkpoint_ns", "")
        if namespace.startswith("reader") and namespace not in kept:
            kept[namespace] = item.checkpoint["channel_values"].get("messages", [])
    return kept


def test_with_checkpointer_true_the_agent_remembers_its_thread_inside_a_parent(
    shapes: deepread.Index,
) -> None:
    kept = two_turns(shapes, checkpointer=True)

    [messages] = kept.values()  # one thread of its own, across both parent turns
    turns = [i for i, m in enumerate(messages) if m.type == "human"]
    assert len(turns) == 2
    first_tool = [next(m for m in messages[i:] if m.type == "tool") for i in turns]
    # turn 2's first retrieve shows what turn 1 read as pointers: the memory persisted
    assert "(shown above)" not in first_tool[0].content
    assert "(shown above)" in first_tool[1].content


def test_without_it_the_agent_starts_afresh_on_every_parent_turn(shapes: deepread.Index) -> None:
    kept = two_turns(shapes, checkpointer=None)

    assert kept  # the parent's checkpointer saved the agent's runs, each on its own
    for messages in kept.values():
        assert [m.type for m in messages].count("human") == 1
