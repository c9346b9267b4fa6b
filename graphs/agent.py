"""The DeepRead agent graph: TOC → policy ⇄ tools → check → finalize.

::

    START → toc → compact → policy ─(tool calls)→ tools → compact → policy …
                                   └─(answer)→ check ─(supported)→ finalize → END
                                                     └─(read more)→ tools → compact → policy

``toc`` starts the turn and injects the Directory Structure (paper §3.3); ``compact``
prepares each model call (the interaction space's TOC, evidence notes); ``policy`` is
the model's decision (Algorithm 1, l. 4); ``tools`` runs its calls (retrieve,
read_section, and open_toc / follow_reference when on offer); ``check`` tests that the
cited evidence supports the answer and may read once more; ``finalize`` reports the
answer, its citations and usage. A failure (store, model, tool) goes to ``finalize``
with ``stop_reason="error"``.

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
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from deepread.corpus.index import Index
from deepread.graphs.served import served_factory, served_schema
from deepread.nodes.check import make_check
from deepread.nodes.compact import make_compact
from deepread.nodes.context import Context
from deepread.nodes.finalize import finalize
from deepread.nodes.policy import make_policy
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentState, InputState, OutputState, pending_tool_calls
from deepread.nodes.toc import make_toc
from deepread.nodes.tools.executor import make_tools
from deepread.nodes.tools.specs import READ_SECTION, TOOL_NAMES

#: LangGraph's step limit, a backstop only: ``max_rounds`` bounds the loop (a round is
#: compact, policy and tools — three steps), so this leaves room for ~300 rounds.
RECURSION_LIMIT = 1000


def after_toc(state: AgentState) -> Literal["compact", "finalize"]:
    return "finalize" if state.get("stop_reason") == "error" else "compact"


def after_compact(state: AgentState) -> Literal["policy", "finalize"]:
    return "finalize" if state.get("stop_reason") == "error" else "policy"


def after_policy(state: AgentState) -> Literal["tools", "check", "finalize"]:
    """To the tools while calls are pending; to the check once the model answered."""
    if state.get("stop_reason") == "error":
        return "finalize"
    return "tools" if pending_tool_calls(state.get("messages", [])) else "check"


def after_tools(state: AgentState) -> Literal["compact", "finalize"]:
    return "finalize" if state.get("stop_reason") == "error" else "compact"


def after_check(state: AgentState) -> Literal["tools", "finalize"]:
    """To the tools when the check asked to read more; else the answer is final."""
    return "tools" if pending_tool_calls(state.get("messages", [])) else "finalize"


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
    builder.add_node("compact", make_compact(resources))
    builder.add_node("policy", make_policy(resources, tools))
    builder.add_node("tools", make_tools(resources))
    builder.add_node("check", make_check(resources, READ_SECTION in tools))
    builder.add_node("finalize", finalize)
    builder.add_edge(START, "toc")
    builder.add_conditional_edges("toc", after_toc)
    builder.add_conditional_edges("compact", after_compact)
    builder.add_conditional_edges("policy", after_policy)
    builder.add_conditional_edges("tools", after_tools)
    builder.add_conditional_edges("check", after_check)
    builder.add_edge("finalize", END)
    compiled = builder.compile(checkpointer=checkpointer, name=name)
    return compiled.with_config(recursion_limit=RECURSION_LIMIT)


def served_graph() -> CompiledStateGraph:
    """The graph a server runs: nothing fixed, its context schema under the policy."""
    return build_graph().copy(update={"context_schema": served_schema(Context)})


#: The factory ``langgraph.json`` serves as ``deepread`` (no graph is built at import).
graph = served_factory(Context, served_graph)
