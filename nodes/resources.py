"""What the nodes work with: the index to read and the chat model to ask.

``deepread.build_graph(index=…, model=…)`` fixes both; the graph exported to the
LangGraph server has neither and resolves them from the run's :class:`Context` (store,
collection, model), keeping one open index per store and collection per process —
the embedded engine admits a single opener.
"""

from __future__ import annotations

import threading

from langchain_core.language_models import BaseChatModel

from deepread.corpus.index import Index
from deepread.corpus.models import chat_model
from deepread.nodes.context import Context
from deepread.nodes.extractive import ExtractiveChatModel
from deepread.stores.location import default_store

_OPEN: dict[tuple[str, str], Index] = {}
_LOCK = threading.Lock()


def shared_index(store: str, collection: str) -> Index:
    """The process-wide open index of ``collection`` in ``store``."""
    key = (store, collection)
    with _LOCK:
        if key not in _OPEN:
            _OPEN[key] = Index.open(store=store, collection=collection)
        return _OPEN[key]


class Resources:
    """The index and model a graph uses: fixed at build time, or taken from the context."""

    def __init__(self, index: Index | None = None, model: BaseChatModel | None = None) -> None:
        self._index = index
        self._model = model

    def index(self, context: Context) -> Index:
        if self._index is not None:
            return self._index
        return shared_index(context.store or default_store(), context.collection)

    def model(self, context: Context) -> BaseChatModel:
        if self._model is not None:
            return self._model
        if context.model:
            # The client's per-read timeout and its own retries (corpus/models.py); the
            # total deadline of a response is the policy's (Context.model_timeout).
            return chat_model(context.model, context.temperature,
                              timeout=context.model_timeout or 120.0,
                              retries=context.model_retries)
        return ExtractiveChatModel()
