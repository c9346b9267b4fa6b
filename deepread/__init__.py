"""deepread: locate, then read — structure-aware QA over long documents (DeepRead).

The public face: :class:`Index` for ingesting and reading a collection, and the records
it returns; :func:`build_graph` for the DeepRead agent (a compiled LangGraph graph);
:func:`tools` and ``Index.as_retriever()`` to plug a collection into other LangChain
agents.
"""

from deepread.corpus.index import Index, IngestError, IngestFailure, IngestResult
from deepread.corpus.parsing import ParseError
from deepread.graphs.agent import build_graph
from deepread.graphs.ingest import build_ingest_graph
from deepread.langchain_tools import tools
from deepread.nodes.context import Context
from deepread.stores.backend import StoreError
from deepread.stores.reading import CoordinateError, Retrieved, SectionRead
from deepread.stores.records import Document, Hit, Paragraph, Section

__all__ = [
    "Context",
    "CoordinateError",
    "Document",
    "Hit",
    "Index",
    "IngestError",
    "IngestFailure",
    "IngestResult",
    "Paragraph",
    "ParseError",
    "Retrieved",
    "Section",
    "SectionRead",
    "StoreError",
    "build_graph",
    "build_ingest_graph",
    "tools",
]
__version__ = "0.1.0"
