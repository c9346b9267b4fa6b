"""The DeepRead agent graph: TOC → policy ⇄ Retrieve / ReadSection executors → check → finalize.

::

    START → toc → compact → policy ─(a call pending)→ retrieve | read_section | open_toc
                   ▲                │                  | follow_reference | find_documents
                   │                │                  | invalid_call
                   │                │                      │ (next call, or none left)
                   └────────────────┼──────────────────────┘
                                    └─(answer)→ check ─(supported)→ finalize → END
                                                      └─(read more)→ read_section → compact …

``toc`` starts the turn and injects the Directory Structure (paper §3.3); ``compact``
prepares each model call (the interaction space's TOC, evidence notes); ``policy`` is
the model's decision (Algorithm 1, l. 4); each pending tool call goes, one at a time and
in order, to the executor node of its tool (:mod:`deepread.nodes.executors`:
Algorithm 1's Retrieve and ReadSection, and ``open_toc`` / ``follow_reference`` /
``find_documents`` when on offer), a call no executor takes to ``invalid_call``;
``check`` tests that the cited evidence supports the answer and may read once more;
``finalize`` reports the answer, its citations and usage.

Faults are LangGraph's to route: every node but ``finalize`` has the error handler of
:mod:`deepread.nodes.failure`, which ends a failed turn in ``finalize`` with
``stop_reason="error"``, and the nodes that read the store retry a Qdrant server's
transient failures (``retry_policy``). The routers say only where the work goes.

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

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from deepread.corpus.index import Index
from deepread.extractive.policy import extractive_policy
from deepread.graphs.routes import after_check, after_policy, next_call
from deepread.graphs.served import served_factory, served_schema
from deepread.nodes.check import make_check
from deepread.nodes.compact import make_compact
from deepread.nodes.context import Context
from deepread.nodes.executors import HANDLERS, invalid_call, make_executor
from deepread.nodes.failure import STORE_RETRY, on_error
from deepread.nodes.names import CHECK, COMPACT, FINALIZE, INVALID_CALL, POLICY, TOC
from deepread.nodes.places import make_finalize
from deepread.nodes.policy import make_policy
from deepread.nodes.resources import Resources
from deepread.nodes.state import AgentState, InputState, OutputState
from deepread.nodes.toc import make_toc
from deepread.nodes.tools.specs import READ_SECTION, TOOL_NAMES

#: LangGraph's step limit, a backstop only: ``max_rounds`` bounds the loop (a round is
#: compact, policy and one step per tool call), so this leaves room for ~300 rounds of
#: one call each.
RECURSION_LIMIT = 1000


def build_graph(
    index: Index | None = None,
    model: BaseChatModel | None = None,
    *,
    checkpointer: Checkpointer = None,
    tools: Sequence[str] = TOOL_NAMES,
    name: str = "deepread",
) -> CompiledStateGraph[AgentState, Context, InputState, OutputState]:
    """The compiled agent. ``index``/``model`` default to those named by the context.

    ``tools`` restricts what the model is offered — ``("retrieve",)`` is the paper's
    Search-o1 baseline (TOC still injected), ``("read_section",)`` its Read-only
    ablation; the graph's shape stays the same.
    """
    tools = tuple(tools)
    unknown = set(tools) - set(TOOL_NAMES)
    if unknown or not tools:
        raise ValueError(f"tools must be a non-empty subset of {TOOL_NAMES}, got {tools}")
    resources = Resources(index=index, model=model, default_model=extractive_policy)
    builder = StateGraph(
        AgentState, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    # LangGraph's node protocols do not list the (state, NodeError) signature its error
    # handlers are called with (langgraph.errors.NodeError).
    builder.set_node_defaults(error_handler=on_error)  # type: ignore[arg-type]
    builder.add_node(TOC, make_toc(resources), retry_policy=STORE_RETRY)
    builder.add_node(COMPACT, make_compact(resources), retry_policy=STORE_RETRY)
    builder.add_node(POLICY, make_policy(resources, tools))
    for tool in HANDLERS:
        builder.add_node(tool, make_executor(resources, tool), retry_policy=STORE_RETRY)
    builder.add_node(INVALID_CALL, invalid_call)
    builder.add_node(CHECK, make_check(resources, READ_SECTION in tools), retry_policy=STORE_RETRY)
    builder.add_node(FINALIZE, make_finalize(resources))
    builder.add_edge(START, TOC)
    builder.add_edge(TOC, COMPACT)
    builder.add_edge(COMPACT, POLICY)
    # Conditional edges: each router's return type names where it may go (graphs/routes.py).
    builder.add_conditional_edges(POLICY, after_policy)
    for executor in (*HANDLERS, INVALID_CALL):
        builder.add_conditional_edges(executor, next_call)
    builder.add_conditional_edges(CHECK, after_check)
    builder.add_edge(FINALIZE, END)
    compiled = builder.compile(checkpointer=checkpointer, name=name)
    return compiled.with_config(recursion_limit=RECURSION_LIMIT)


def served_graph() -> CompiledStateGraph[AgentState, Context, InputState, OutputState]:
    """The graph a server runs: nothing fixed, its context schema under the policy."""
    return build_graph().copy(update={"context_schema": served_schema(Context)})


#: The factory ``langgraph.json`` serves as ``deepread`` (no graph is built at import).
graph = served_factory(Context, served_graph)
