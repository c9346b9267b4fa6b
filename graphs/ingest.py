"""The ingestion graph: one node that parses documents and stores them in a collection.

Exported to the LangGraph server as ``ingest`` (``served=True``: paths only under
``DEEPREAD_INGEST_ROOT``, none without it; documents sent as content always); the run's
context names the collection, exactly as for the agent graph. Each file's progress is a
``custom`` stream event.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.ingest import IngestInput, IngestOutput, make_ingest
from deepread.nodes.resources import Resources


class IngestState(IngestInput, IngestOutput):
    """Input paths and the report, in one state."""


def build_ingest_graph(index: Index | None = None, *, served: bool = False,
                       ) -> CompiledStateGraph:
    """The compiled ingest graph. ``served``: the caller is a client of a server, not the
    person running the process — paths are then read only under ``DEEPREAD_INGEST_ROOT``
    and not at all without it (nodes/ingest.py)."""
    builder = StateGraph(IngestState, context_schema=Context, input_schema=IngestInput,
                         output_schema=IngestOutput)
    builder.add_node("ingest", make_ingest(Resources(index=index), served=served))
    builder.add_edge(START, "ingest")
    builder.add_edge("ingest", END)
    return builder.compile(name="ingest")


graph = build_ingest_graph(served=True)
