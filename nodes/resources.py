"""What the nodes work with: the index to read and the chat model to ask.

``deepread.build_graph(index=…, model=…)`` fixes both; the graph exported to the
LangGraph server has neither and resolves them from the run's context (store,
collection, model), keeping one open index per store and collection per process — the
embedded engine admits a single opener — among a bounded set of open collections
(``nodes/open_collections.py``): each node that opens one holds a lease on it while it
runs (:meth:`Resources.leasing`), and idle ones past the cap are closed.

An index is either given or named by the context, never both: a graph built with a
fixed index refuses a context that names a store or collection (it would otherwise be
silently ignored). The agent reads only collections that exist — an unknown name ends
the turn with an error naming it, and neither the other collections nor the store (a
served client reads that error; the names may be other users') — while the ingest
graph creates the collection it names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar, runtime_checkable

from langchain_core.language_models import BaseChatModel

from deepread.corpus.index import Index
from deepread.environment.settings import current as current_settings
from deepread.models.chat import chat_model
from deepread.nodes.context import ContextError
from deepread.nodes.open_collections import OPEN, Key
from deepread.nodes.read_memory import index_scope, region_scope
from deepread.records.errors import StoreError
from deepread.records.locations import check_collection_name

F = TypeVar("F", bound=Callable[..., Any])

#: The policy a run gets when no model is configured, made with the index it reads and
#: the run's context: the graphs inject the extractive policy (deepread.extractive), which
#: sits above the nodes since it drives them through tool calls.
DefaultModel = Callable[[Index, Any], BaseChatModel]


@runtime_checkable
class TurnReader(Protocol):
    """A chat model that reads, beside the messages it is sent, the run's context and
    the turn's state: the offline policy, whose calls are cut to the context's limits
    and whose reads are chosen among the sections the turn's TOC lists (the state's
    ``toc_sections``). :meth:`Resources.model` gives it both for each call."""

    def for_turn(self, context: Any, state: Mapping[str, Any]) -> BaseChatModel: ...


#: The leases the running node holds, by (store, collection): set by ``Resources.leasing``.
_HELD: ContextVar[dict[Key, Index] | None] = ContextVar("deepread_leases", default=None)


class UnknownCollection(StoreError):
    """The context names a collection the store does not hold."""


def opener(store: str, collection: str, *, create: bool) -> Callable[[], Index]:
    """What opens ``collection`` in ``store`` for :data:`~deepread.nodes.open_collections.
    OPEN`. With ``create=False`` a collection that does not exist yet is refused (nothing
    is opened or created)."""

    def open_it() -> Index:
        if not create:
            check_collection_name(collection)
            settings = current_settings()
            known = Index.list_collections(
                store, api_key=settings.qdrant_api_key, timeout=settings.qdrant_timeout
            )
            if collection not in known:
                # Neither the other collections nor the store are named: the error is
                # the thread's, which a served client reads, and on a shared server the
                # names are other users' and the location the operator's.
                raise UnknownCollection(
                    f"collection {collection!r} does not exist (ingest documents into it first)"
                )
        return Index.open(store=store, collection=collection)

    return open_it


@contextmanager
def shared_index(store: str, collection: str, *, create: bool = True) -> Iterator[Index]:
    """The process-wide open index of ``collection`` in ``store``, leased for the block
    (outside a graph: tests, tools)."""
    with OPEN.lease((store, collection), opener(store, collection, create=create)) as index:
        yield index


class Resources:
    """The index and model a graph uses: fixed at build time, or taken from the context.

    ``create``: whether a collection the context names may be created (the ingest
    graph) or must exist already (the agent).
    """

    def __init__(
        self,
        index: Index | None = None,
        model: BaseChatModel | None = None,
        *,
        default_model: DefaultModel | None = None,
        create: bool = False,
    ) -> None:
        self._index = index
        self._model = model
        self._default_model = default_model
        self._create = create

    @staticmethod
    def leasing(node: F) -> F:
        """``node`` holding a lease on every collection it opens through :meth:`index`
        while it runs (``nodes/open_collections.py``): none is closed under it."""

        @functools.wraps(node)  # LangGraph reads the node's signature (runtime, config)
        def run(*args: Any, **kwargs: Any) -> Any:
            held: dict[Key, Index] = {}
            token = _HELD.set(held)
            try:
                return node(*args, **kwargs)
            finally:
                _HELD.reset(token)
                for key in held:
                    OPEN.release(key)

        return run  # type: ignore[return-value]

    def index(self, context) -> Index:  # Context or IngestContext
        """The index the run reads: the fixed one, or the collection its context names,
        leased to the running node (which :meth:`leasing` must wrap)."""
        if self._index is not None:
            named = sorted({"store", "collection"} & getattr(context, "given", frozenset()))
            if named:
                raise ContextError(
                    f"this graph was built with a fixed index (collection "
                    f"{self._index.name!r} in {self._index.store}), so the context may not "
                    f"name {' or '.join(named)} too; build the graph without an index to "
                    "let the context choose"
                )
            return self._index
        store = context.store or current_settings().store
        held = _HELD.get()
        if held is None:
            raise RuntimeError(
                "Resources.index() outside a leasing node: wrap the node "
                "with Resources.leasing so the collection it opens is not "
                "closed under it"
            )
        key = (store, context.collection)
        if key not in held:
            held[key] = OPEN.acquire(key, opener(store, context.collection, create=self._create))
        return held[key]

    def scope(self, context) -> str:
        """Which collection ``context`` reads, as read-region memory names it
        (:func:`~deepread.nodes.read_memory.region_scope`), without opening it."""
        if self._index is not None:
            return index_scope(self._index)
        return region_scope(context.store or current_settings().store, context.collection)

    def model(self, context, state: Mapping[str, Any] | None = None) -> BaseChatModel:
        """The policy's chat model for a call of the turn whose ``state`` is given: the
        one fixed at build time, the one the context names, or — no model configured —
        the default the graph was built with (the extractive policy,
        :func:`~deepread.extractive.policy.extractive_policy`), made with the index it
        reads. A :class:`TurnReader` (the offline policy) is given the context and the
        state."""
        model = self._configured(context)
        return model.for_turn(context, state or {}) if isinstance(model, TurnReader) else model

    def _configured(self, context) -> BaseChatModel:
        if self._model is not None:
            return self._model
        if context.model:
            # The client's per-read timeout and its own retries (models/chat.py); the
            # total deadline of a response is the policy's (Context.model_timeout).
            return chat_model(
                context.model,
                context.temperature,
                timeout=context.model_timeout or 120.0,
                retries=context.model_retries,
            )
        if self._default_model is None:
            raise ContextError(
                "no chat model: set the context's model (or OPENAI_API_KEY and --model), "
                "or build the graph with a model"
            )
        return self._default_model(self.index(context), context)

    def judge(self, context) -> BaseChatModel | None:
        """The model the sufficiency check may ask whether an answer is supported: the
        policy's LLM, or None when no LLM is configured (the offline policy has none to
        ask). A fixed model is asked unless it declares ``can_judge = False``, as the
        offline policy does."""
        if self._model is not None:
            return self._model if getattr(self._model, "can_judge", True) else None
        return self.model(context) if context.model else None
