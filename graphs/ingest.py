"""The ingestion graph: one node that parses files and stores them in a collection.

Exported to the LangGraph server as ``ingest``; the run's context names the store and
collection, exactly as for the agent graph.
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


def build_ingest_graph(index: Index | None = None) -> CompiledStateGraph:
    builder = StateGraph(IngestState, context_schema=Context, input_schema=IngestInput,
                         output_schema=IngestOutput)
    builder.add_node("ingest", make_ingest(Resources(index=index)))
    builder.add_edge(START, "ingest")
    builder.add_edge("ingest", END)
    return builder.compile(name="ingest")


graph = build_ingest_graph()
