"""deepread: locate, then read — structure-aware QA over long documents (DeepRead).

The public face: :class:`Index` for ingesting and reading a collection, and the records
it returns. The agent graph lives in :mod:`deepread.graphs`.
"""

from deepread.nodes.index import Index, IngestError, IngestFailure, IngestResult
from deepread.nodes.parsing import ParseError
from deepread.stores.backend import StoreError
from deepread.stores.reading import CoordinateError, Retrieved, SectionRead
from deepread.stores.records import Document, Hit, Paragraph, Section

__all__ = [
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
]
__version__ = "0.1.0"
