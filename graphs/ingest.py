"""The ingestion graph: one node that parses documents and stores them in a collection.

Its context (:class:`~deepread.nodes.context.IngestContext`) is smaller than the
agent's: the store, the collection — created if it does not exist yet — and the
optional OCR / vision / describe models. ``graph`` is what ``langgraph.json`` serves as
``ingest``: a factory that applies the operator's policy to each client's context
(:mod:`deepread.graphs.served`: a client names only the collection) and returns the
graph built with ``served=True`` (paths only under ``DEEPREAD_INGEST_ROOT``, none
without it; documents sent as content always), built on first use. Each file's progress
is a ``custom`` stream event.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from deepread.corpus.index import Index
from deepread.graphs.served import served_factory, served_schema
from deepread.nodes.context import IngestContext
from deepread.nodes.ingest import IngestInput, IngestOutput, make_ingest
from deepread.nodes.resources import Resources


class IngestState(IngestInput, IngestOutput):
    """Input paths and the report, in one state."""


def build_ingest_graph(
    index: Index | None = None,
    *,
    served: bool = False,
    context_schema: type[IngestContext] = IngestContext,
) -> CompiledStateGraph[IngestState, IngestContext, IngestInput, IngestOutput]:
    """The compiled ingest graph; ``index`` fixed, or the one the context names.

    ``served``: the caller is a client of a server, not the person running the process —
    paths are then read only under ``DEEPREAD_INGEST_ROOT`` and not at all without it
    (nodes/ingest.py).
    """
    builder = StateGraph(
        IngestState,
        context_schema=context_schema,
        input_schema=IngestInput,
        output_schema=IngestOutput,
    )
    builder.add_node("ingest", make_ingest(Resources(index=index, create=True), served=served))
    builder.add_edge(START, "ingest")
    builder.add_edge("ingest", END)
    return builder.compile(name="ingest")


def served_graph() -> CompiledStateGraph[IngestState, IngestContext, IngestInput, IngestOutput]:
    """The graph a server runs: nothing fixed, served path rules, its context schema
    under the policy."""
    return build_ingest_graph(served=True, context_schema=served_schema(IngestContext))


#: The factory ``langgraph.json`` serves as ``ingest`` (no graph is built at import).
graph = served_factory(IngestContext, served_graph)
