"""The DeepRead agent graph: TOC → policy ⇄ Retrieve / ReadSection → finalize.

(``open_toc`` joins the executors when a large collection's prompt shows a bounded
interaction space, see nodes/space.py; ``follow_reference`` when the turn mentions
"Table 3", "Section 4.2"…, see corpus/references.py. ``finalize`` checks that the cited
evidence supports the answer first, see nodes/sufficiency.py.)

``build_graph(index=…, model=…)`` returns a compiled graph for Python use (and as a
subgraph of a larger one). ``graph`` is what ``langgraph.json`` serves: a graph factory
that applies the operator's policy to each client's context
(:mod:`deepread.graphs.served`) and returns the same graph with nothing fixed, built on
first use, where the run's context picks the collection and the operator's environment
the store and model; the server supplies persistence. :func:`served_graph` is that
compiled graph, for Python callers that want the served behaviour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from deepread.corpus.index import Index
from deepread.graphs.served import served_factory, served_schema
from deepread.nodes.context import Context
from deepread.nodes.finalize import make_finalize
from deepread.nodes.follow_reference import make_follow_reference
from deepread.nodes.open_toc import make_open_toc
from deepread.nodes.policy import make_policy, offered_tools
from deepread.nodes.read_section import make_read_section
from deepread.nodes.resources import Resources
from deepread.nodes.retrieve import make_retrieve
from deepread.nodes.state import AgentState, InputState, OutputState, pending_tool_calls
from deepread.nodes.toc import make_toc
from deepread.nodes.tools import FOLLOW_REFERENCE, TOOL_NAMES

Route = Literal["retrieve", "read_section", "open_toc", "follow_reference", "policy",
                "finalize"]


def make_router(tools: tuple[str, ...] = TOOL_NAMES):
    def route_after_policy(state: AgentState) -> Route:
        """To the executor of the next pending call, or to finalize once the model answered."""
        if state.get("stop_reason") == "error":
            return "finalize"
        pending = pending_tool_calls(state.get("messages", []))
        if pending:
            name = pending[0].get("name")
            # policy answers unknown, unoffered and malformed calls itself, then routes again
            offered = offered_tools(state, tools)
            return name if name in offered and not pending[0].get("invalid") else "policy"
        last = state.get("messages", [])[-1:] or [None]
        if isinstance(last[0], AIMessage) and not last[0].tool_calls:
            return "finalize"
        return "policy"

    return route_after_policy



def build_graph(index: Index | None = None, model: BaseChatModel | None = None, *,
                checkpointer: Checkpointer = None, tools: Sequence[str] = TOOL_NAMES,
                name: str = "deepread") -> CompiledStateGraph:
    """The compiled agent. ``index``/``model`` default to those named by the context.

    ``tools`` restricts what the model is offered — ``("retrieve",)`` is the paper's
    Search-o1 baseline (TOC still injected), ``("read_section",)`` its Read-only
    ablation; the graph's shape stays the same.
    """
    tools = tuple(tools)
    unknown = set(tools) - set(TOOL_NAMES)
    if unknown or not tools:
        raise ValueError(f"tools must be a non-empty subset of {TOOL_NAMES}, got {tools}")
    resources = Resources(index=index, model=model)
    builder = StateGraph(AgentState, context_schema=Context, input_schema=InputState,
                         output_schema=OutputState)
    builder.add_node("toc", make_toc(resources))
    builder.add_node("policy", make_policy(resources, tools))
    builder.add_node("retrieve", make_retrieve(resources))
    builder.add_node("read_section", make_read_section(resources))
    builder.add_node("open_toc", make_open_toc(resources))
    builder.add_node(FOLLOW_REFERENCE, make_follow_reference(resources))
    builder.add_node("finalize", make_finalize(resources, "read_section" in tools))
    builder.add_edge(START, "toc")
    builder.add_conditional_edges(
        "toc", lambda state: "finalize" if state.get("stop_reason") == "error" else "policy",
        ["policy", "finalize"])
    builder.add_conditional_edges("policy", make_router(tools),
                                  ["retrieve", "read_section", "open_toc",
                                   FOLLOW_REFERENCE, "policy", "finalize"])
    builder.add_edge("retrieve", "policy")
    builder.add_edge("read_section", "policy")
    builder.add_edge("open_toc", "policy")
    builder.add_edge(FOLLOW_REFERENCE, "policy")
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer, name=name)


def served_graph() -> CompiledStateGraph:
    """The graph a server runs: nothing fixed, its context schema under the policy."""
    return build_graph().copy(update={"context_schema": served_schema(Context)})


#: The factory ``langgraph.json`` serves as ``deepread`` (no graph is built at import).
graph = served_factory(Context, served_graph)
