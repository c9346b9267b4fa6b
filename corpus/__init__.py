"""The corpus layer: documents, from files to a readable, addressed collection.

Parsing (``parsing/``), the ingest pipeline and the folder walker, the optional model
steps of an ingest (OCR, figure descriptions, section summaries), the TOC renderer, the
reference resolver, and :class:`~deepread.corpus.index.Index`, the facade users and
the graph nodes read through. It knows nothing of LangGraph; it stores through
``deepread.stores``.
"""
