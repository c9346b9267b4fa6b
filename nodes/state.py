"""State of the DeepRead agent graph, kept JSON-friendly for checkpointers and servers.

Per thread, persisted across turns: the messages (reducer in :mod:`deepread.nodes.messages`)
and the read-region memory (:mod:`deepread.nodes.read_memory`). Per turn: the collection
read (``scope``), the TOC injected, rounds used, the checks, and the outputs — each key a
turn starts afresh is marked :class:`PerTurn` beside its type, with the value it starts
from, and :func:`turn_fields` reads them off the schema (the ``toc`` node starts a turn with
it): a new per-turn key is one edit.

Nodes return :class:`AgentState` too (every key optional): an update is a partial state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, NotRequired, Protocol, get_type_hints

from langchain_core.messages import AnyMessage
from langgraph.runtime import Runtime
from pydantic import Field
from typing_extensions import TypedDict  # the server's JSON schemas need it on Python < 3.12

from deepread.nodes.checked_channel import Checked
from deepread.nodes.context import Context
from deepread.nodes.messages import add_checked_messages
from deepread.nodes.read_memory import Regions, merge_regions, merge_versions


@dataclass(frozen=True, slots=True)
class PerTurn:
    """Marks a state key that every turn starts afresh, from ``start()`` (a factory, so
    that each turn gets its own list or dict). Not callable: LangGraph takes a callable
    last ``Annotated`` item for the key's reducer."""

    start: Callable[[], Any]


class Citation(TypedDict):
    """A paragraph the answer cites: its coordinates, and — set by ``finalize`` from the
    store (nodes/places.py; absent when the store could not be read) — what a person
    shown the citation reads of it."""

    doc_id: int
    sec_id: int
    para_idx: int
    #: The page it is printed on (its first, when it runs on), ``None`` for a source
    #: without pages; ``pages``: every page it is printed on, in order (``[]``: none).
    page: NotRequired[int | None]
    pages: NotRequired[list[int]]
    #: The paragraph's text as stored, a table shown as its rows (as the reading tools
    #: show it).
    text: NotRequired[str]
    #: Its document's title (without the note on documents sharing it: ``source`` tells
    #: them apart) and source file, as ingested.
    title: NotRequired[str]
    source: NotRequired[str]
    #: Where the paragraph is in its source, for a UI to show it (its page images:
    #: docs/deployment.md, "Page images"): rectangles ``[page, x0, top, x1, bottom]`` in
    #: PDF points from the page's top-left corner, or the character range ``[start, end]``
    #: of a source without pages; ``None`` when the store was written before places
    #: were kept. Set by ``finalize`` (nodes/places.py).
    boxes: NotRequired[list[list[float]] | None]
    span: NotRequired[list[int] | None]


class InputState(TypedDict, total=False):
    """What a caller passes in: a question (or chat messages ending with one).

    Each field's description is what Studio's input form shows beside it (the JSON
    schema of ``input_schema``)."""

    question: Annotated[
        str,
        Field(
            description="The question to answer from the collection's documents, in plain "
            "words; the thread remembers what earlier turns read. Empty: the newest user "
            "message in messages is the question."
        ),
    ]
    messages: Annotated[
        list[AnyMessage],
        Field(
            description="Chat messages to add to the thread before the turn (a chat view's "
            "input); the last user message is the question when question is empty."
        ),
        Checked(list, add_checked_messages),
    ]


class OutputState(TypedDict, total=False):
    """What the graph returns (``output_schema``).

    ``messages`` is the thread's chat: the turn's answer is its last AI message, with
    the checked citations in ``response_metadata["citations"]`` (response metadata,
    because it describes the reply and is never sent back to a model API, as
    ``additional_kwargs`` may be).
    """

    messages: Annotated[list[AnyMessage], Checked(list, add_checked_messages)]
    answer: Annotated[str, PerTurn(str)]
    citations: Annotated[list[Citation], PerTurn(list)]
    dropped_citations: Annotated[int, PerTurn(int)]
    #: Citation marks past the paragraphs an answer's citations are read to
    #: (nodes/citations.py, MAX_CITATIONS): not checked, counted in dropped_citations.
    citations_past_cap: Annotated[int, PerTurn(int)]
    stop_reason: Annotated[str, PerTurn(str)]  # "answered" | "budget" | "no_evidence" | "error"
    #: The sufficiency check's verdict (nodes/sufficiency/support.py): "supported",
    #: "insufficient" (the answer abstains), "uncited", "unchecked" or "off".
    sufficiency: Annotated[str, PerTurn(str)]
    error: Annotated[str | None, PerTurn(lambda: None)]
    usage: Annotated[dict[str, int], PerTurn(dict)]
    tool_calls: Annotated[list[dict[str, Any]], PerTurn(list)]
    #: Tokens the latest model call was sent, system prompt and TOC included (after
    #: evidence notes): how close the conversation runs to the budget.
    prompt_tokens: int


def union_ids(current: list[int] | None, update: list[int] | None) -> list[int]:
    """Reducer: ``current`` then the new ids of ``update``, each once, in order."""
    out = list(current or [])
    have = set(out)  # a set: a forged update of 100,000 ids was a list scan per id
    out += [i for i in dict.fromkeys(update or []) if i not in have]
    return out


class AgentState(InputState, OutputState, total=False):
    """Everything the nodes share."""

    toc: str
    #: ``[doc_id, sec_id]`` of the sections the Directory Structure (``toc``) lists, in
    #: its order: what a policy without an LLM chooses among, as data (the extractive
    #: policy's TOC, :meth:`deepread.extractive.policy.ExtractiveChatModel.for_turn`).
    toc_sections: list[list[int]]
    turn_start: int
    rounds: Annotated[int, PerTurn(int)]
    #: The thread's read-region memory, keys ``scope/doc:sec``
    #: (:func:`~deepread.nodes.read_memory.region_key`).
    read_regions: Annotated[Regions, Checked(dict, merge_regions)]
    #: The version of each document (``scope/doc``) its read regions were shown from.
    read_versions: Annotated[dict[str, str], Checked(dict, merge_versions)]
    #: The collection this turn reads (:func:`~deepread.nodes.read_memory.region_scope`),
    #: set by the ``toc`` node: the part of ``read_regions`` the turn's nodes see
    #: (:func:`~deepread.nodes.read_memory.view`).
    scope: str
    # Bounded interaction space (nodes/model_input/space.py): whether the TOC is bounded, the
    # documents whose TOCs the prompt shows, and the space the current ``toc`` renders.
    bounded: bool
    # Whether the scope holds several documents (find_documents is then on offer).
    library: bool
    space: Annotated[list[int], Checked(list, union_ids)]
    toc_space: list[int]
    # Evidence notes (nodes/model_input/notes.py): paragraphs whose observations the last model call
    # saw only as notes — re-reading them shows their text again.
    noted_regions: Regions
    # Whether follow_reference is on offer this round (corpus/references.py).
    references: bool
    # The tools the last model call was offered (policy); the tool executors refuse others.
    offered: list[str]
    # The compact node: observations the next model call is sent as evidence notes
    # (message id -> note); ``prompt_tokens`` (an output) is what that call is sent.
    notes: dict[str, str]
    # The sufficiency check (nodes/check.py): how often it ran this turn, why it asked
    # for another answer (the policy answers again without tools while this is set), and
    # the tokens its judge calls used.
    checks: Annotated[int, PerTurn(int)]
    retry_reason: Annotated[str, PerTurn(str)]
    check_usage: Annotated[dict[str, int], PerTurn(dict)]


class AgentNode(Protocol):
    """A node of the agent graph: the state and the run's runtime in, a partial state out
    (what each ``make_*`` factory of :mod:`deepread.nodes` returns)."""

    def __call__(self, state: AgentState, runtime: Runtime[Context]) -> AgentState: ...


@cache
def _per_turn() -> dict[str, PerTurn]:
    hints = get_type_hints(AgentState, include_extras=True)
    return {
        key: mark
        for key, hint in hints.items()
        for mark in getattr(hint, "__metadata__", ())
        if isinstance(mark, PerTurn)
    }


def turn_fields() -> AgentState:
    """The per-turn keys as a turn starts them (new lists and dicts each call): every key
    of :class:`AgentState` marked :class:`PerTurn`."""
    return {key: mark.start() for key, mark in _per_turn().items()}  # type: ignore[return-value]  # keys are AgentState's own
