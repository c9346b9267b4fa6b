"""deepread: locate, then read — structure-aware QA over long documents (DeepRead).

The public face: :class:`Index` for ingesting and reading a collection, and the records
it returns; :func:`build_graph` for the DeepRead agent (a compiled LangGraph graph);
:class:`Context` for how one run is configured; :mod:`deepread.environment.settings` for what the
environment says; :func:`tools` and ``Index.as_retriever()`` to plug a collection into
other LangChain agents.

The names are loaded on first use (PEP 562), so ``import deepread`` and
``deepread --help`` do not pay for LangGraph, the parsers and the embedding runtime
until something needs them (docs/benchmarks.md, "Start-up, commands and the
install").
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names are, for type checkers and IDEs
    from deepread.corpus.index import Index, IngestError, IngestFailure, IngestResult
    from deepread.corpus.parsing import ParseError
    from deepread.graphs.agent import build_graph
    from deepread.graphs.ingest import build_ingest_graph
    from deepread.langchain_tools import tools
    from deepread.nodes.context import Context, ContextError, IngestContext
    from deepread.records.documents import Document, Hit, Paragraph, Section
    from deepread.records.errors import CoordinateError, StoreError
    from deepread.records.reads import Retrieved, SectionRead

#: public name -> module that defines it
_LAZY = {
    "Index": "deepread.corpus.index",
    "IngestError": "deepread.corpus.index",
    "IngestFailure": "deepread.corpus.index",
    "IngestResult": "deepread.corpus.index",
    "ParseError": "deepread.corpus.parsing",
    "build_graph": "deepread.graphs.agent",
    "build_ingest_graph": "deepread.graphs.ingest",
    "tools": "deepread.langchain_tools",
    "Context": "deepread.nodes.context",
    "ContextError": "deepread.nodes.context",
    "IngestContext": "deepread.nodes.context",
    "StoreError": "deepread.records.errors",
    "CoordinateError": "deepread.records.errors",
    "Retrieved": "deepread.records.reads",
    "SectionRead": "deepread.records.reads",
    "Document": "deepread.records.documents",
    "Hit": "deepread.records.documents",
    "Paragraph": "deepread.records.documents",
    "Section": "deepread.records.documents",
}

__all__ = [
    "Context",
    "ContextError",
    "CoordinateError",
    "Document",
    "Hit",
    "Index",
    "IngestContext",
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
__version__: str  # from the installed metadata, on first use (_version)


def _version() -> str:
    """The installed distribution's version: pyproject.toml is the one place it is
    written, and the wheel's metadata carries it here (and to ``deepread --version``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deepread")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":  # read on first use: importlib.metadata costs ~10 ms
        value = globals()["__version__"] = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'deepread' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, "__version__"})
