"""State of the DeepRead agent graph, kept JSON-friendly for checkpointers and servers.

Per thread, persisted across turns: the messages, the read-region memory (what the model
has already been shown, per ``(doc_id, sec_id)`` as merged inclusive intervals). Per turn
(reset by the ``toc`` node): the TOC injected, rounds used, and the outputs.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict  # the server's JSON schemas need it on Python < 3.12

Regions = dict[str, list[list[int]]]  # "doc_id:sec_id" -> [[start, end], ...] sorted, merged


def region_key(doc_id: int, sec_id: int) -> str:
    return f"{doc_id}:{sec_id}"


def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
    """Sort and merge inclusive integer intervals (adjacent ones join)."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def merge_regions(current: Regions | None, update: Regions | None) -> Regions:
    """Reducer: the union of two read-region maps."""
    out = {k: [list(iv) for iv in v] for k, v in (current or {}).items()}
    for key, intervals in (update or {}).items():
        out[key] = merge_intervals(out.get(key, []) + [list(iv) for iv in intervals])
    return out


def subtract_regions(regions: Regions, removed: Regions | None) -> Regions:
    """``regions`` without the paragraphs of ``removed``."""
    out: Regions = {}
    for key, intervals in regions.items():
        cut = removed.get(key) if removed else None
        if not cut:
            out[key] = [list(iv) for iv in intervals]
            continue
        kept: list[list[int]] = []
        for start, end in intervals:
            pieces = [[start, end]]
            for a, b in cut:
                pieces = [q for p, e in pieces
                          for q in ([[p, min(e, a - 1)]] if p <= min(e, a - 1) else [])
                          + ([[max(p, b + 1), e]] if max(p, b + 1) <= e else [])]
            kept += pieces
        if kept:
            out[key] = merge_intervals(kept)
    return out


def region_doc(key: str) -> int:
    """The doc_id of a read-region key."""
    return int(key.split(":")[0])


def was_read(regions: Regions, doc_id: int, sec_id: int, para_idx: int) -> bool:
    return any(a <= para_idx <= b for a, b in regions.get(region_key(doc_id, sec_id), []))


def regions_of(coords: list[tuple[int, int, int]]) -> Regions:
    """The read regions covering ``coords``."""
    out: Regions = {}
    for doc_id, sec_id, para_idx in coords:
        out.setdefault(region_key(doc_id, sec_id), []).append([para_idx, para_idx])
    return {k: merge_intervals(v) for k, v in out.items()}


def coords_of(regions: Regions, docs: list[int] | None = None) -> set[tuple[int, int, int]]:
    """The paragraph coordinates ``regions`` cover (the inverse of :func:`regions_of`),
    only those of ``docs`` when given."""
    out: set[tuple[int, int, int]] = set()
    for key, spans in regions.items():
        doc_id, sec_id = map(int, key.split(":"))
        if docs is None or doc_id in docs:
            out.update((doc_id, sec_id, p) for a, b in spans for p in range(a, b + 1))
    return out


class Citation(TypedDict):
    doc_id: int
    sec_id: int
    para_idx: int


class InputState(TypedDict, total=False):
    """What a caller passes in: a question (or chat messages ending with one)."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]


class OutputState(TypedDict, total=False):
    """What the graph returns (``output_schema``).

    ``messages`` is the thread's chat: the turn's answer is its last AI message, with
    the checked citations in ``response_metadata["citations"]`` (response metadata,
    because it describes the reply and is never sent back to a model API, as
    ``additional_kwargs`` may be).
    """

    messages: Annotated[list[AnyMessage], add_messages]
    answer: str
    citations: list[Citation]
    dropped_citations: int
    stop_reason: str  # "answered" | "budget" | "no_evidence" | "error"
    #: The sufficiency check's verdict (nodes/sufficiency/support.py): "supported",
    #: "insufficient" (the answer abstains), "uncited", "unchecked" or "off".
    sufficiency: str
    error: str | None
    usage: dict[str, int]
    tool_calls: list[dict[str, Any]]
    #: Tokens the latest model call was sent, system prompt and TOC included (after
    #: evidence notes): how close the conversation runs to the budget.
    prompt_tokens: int


def union_ids(current: list[int] | None, update: list[int] | None) -> list[int]:
    """Reducer: ``current`` then the new ids of ``update``, each once, in order."""
    out = list(current or [])
    out += [i for i in dict.fromkeys(update or []) if i not in out]
    return out


class AgentState(InputState, OutputState, total=False):
    """Everything the nodes share."""

    toc: str
    turn_start: int
    rounds: int
    read_regions: Annotated[Regions, merge_regions]
    # Bounded interaction space (nodes/model_input/space.py): whether the TOC is bounded, the
    # documents whose TOCs the prompt shows, and the space the current ``toc`` renders.
    bounded: bool
    space: Annotated[list[int], union_ids]
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
    checks: int
    retry_reason: str
    check_usage: dict[str, int]


#: The key of an answer's ``response_metadata`` under which a policy says what its answer
#: is, for the nodes after it: ``label`` (a line every answer of that policy begins with,
#: e.g. the offline policy's "No LLM was used"; the check's abstention keeps it) and
#: ``budget_left`` (the observation tokens a budgeted policy has left; the check's extra
#: read stays within them).
ANSWER_METADATA = "deepread"


def answer_metadata(message: BaseMessage | None) -> dict[str, Any]:
    """What ``message`` says of itself under :data:`ANSWER_METADATA` (empty if nothing)."""
    found = (message.response_metadata or {}).get(ANSWER_METADATA) if message else None
    return found if isinstance(found, dict) else {}


def turn_messages(state: AgentState) -> list[AnyMessage]:
    return state.get("messages", [])[state.get("turn_start", 0):]


def pending_tool_calls(messages: list[AnyMessage]) -> list[dict[str, Any]]:
    """Tool calls of the last AI message that no ``ToolMessage`` has answered yet.

    Malformed calls (``invalid_tool_calls``: arguments that were not JSON) are included,
    marked ``"invalid": True``, because every call id needs exactly one answer.
    """
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        if isinstance(msg, AIMessage):
            answered = {m.tool_call_id for m in messages[i + 1:] if isinstance(m, ToolMessage)}
            calls = [dict(c) for c in msg.tool_calls]
            calls += [dict(c) | {"invalid": True} for c in msg.invalid_tool_calls]
            return [c for c in calls if c.get("id") not in answered]
        if not isinstance(msg, ToolMessage):
            return []
    return []


def final_answer(messages: list[AnyMessage]) -> AIMessage | None:
    """The last AI message of ``messages`` that calls no tool: the turn's answer."""
    for msg in reversed(messages):
        if isinstance(msg, AIMessage) and not msg.tool_calls and not msg.invalid_tool_calls:
            return msg
    return None
