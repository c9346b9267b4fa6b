"""State of the DeepRead agent graph, kept JSON-friendly for checkpointers and servers.

Per thread, persisted across turns: the messages, the read-region memory (what the model
has already been shown, per collection and ``(doc_id, sec_id)`` as merged inclusive
intervals: keys ``scope/doc:sec``, see :func:`region_scope`) and the version of each
document it was shown from (``read_versions``: a document written again is shown
again). Per turn (reset by the ``toc`` node): the collection read (``scope``), the TOC
injected, rounds used, and the outputs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any, cast

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langchain_core.messages.utils import convert_to_messages
from langgraph.graph.message import Messages, add_messages
from typing_extensions import TypedDict  # the server's JSON schemas need it on Python < 3.12

from deepread.environment.settings import current as current_settings
from deepread.nodes.context import MAX_TOOL_CALLS
from deepread.records.locations import is_url

Regions = dict[str, list[list[int]]]  # "doc_id:sec_id" -> [[start, end], ...] sorted, merged


def section_key(doc_id: int, sec_id: int) -> str:
    """The key of a section in a view of one collection's memory (:func:`view`)."""
    return f"{doc_id}:{sec_id}"


def region_scope(store: str, collection: str) -> str:
    """Which collection read-region memory is about: ``collection@<store digest>``.

    Coordinates are only unique within a collection — ``[1:1:0]`` of collection ``a`` and
    of ``b`` are different paragraphs, as are those of two stores' ``docs`` — so a thread
    that reads several keeps one memory per scope. The store is a digest (a location may
    be a URL with secrets; the state is shown to clients), of the resolved directory or
    the URL as given.
    """
    where = store if is_url(store) else str(Path(store).expanduser().resolve())
    return f"{collection}@{hashlib.sha256(where.encode('utf-8')).hexdigest()[:10]}"


def index_scope(index: Any) -> str:
    """:func:`region_scope` of an open ``Index`` (its store and collection name)."""
    return region_scope(index.store, index.name)


def region_key(doc_id: int, sec_id: int, scope: str) -> str:
    """The key of a section in the thread's read-region memory: ``scope/doc:sec``."""
    return f"{scope}/{section_key(doc_id, sec_id)}"


def view(regions: Regions | None, scope: str, without: set[int] | None = None) -> Regions:
    """The memory of one collection, keyed ``doc:sec`` (what the nodes work with).

    Keys of other scopes are left out (and those of the documents ``without``: changed
    since they were shown, :func:`changed_documents`), and so are the unscoped ``doc:sec`` keys that
    threads written before memory was scoped hold: which collection they meant is not
    known, so they count as not shown — such a paragraph is shown again when asked for,
    and cited only once it is (never a pointer to another collection's text).
    """
    prefix = f"{scope}/"
    return {
        k[len(prefix) :]: [list(iv) for iv in v]
        for k, v in (regions or {}).items()
        if k.startswith(prefix) and not (without and region_doc(k) in without)
    }


def scoped(regions: Regions, scope: str) -> Regions:
    """A view's memory keyed for the thread's state (the inverse of :func:`view`)."""
    return {f"{scope}/{k}": v for k, v in regions.items()}


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
    """Reducer: the union of two read-region maps; a key ``update`` maps to ``None`` is
    forgotten (:func:`forget`)."""
    out = {k: [list(iv) for iv in v] for k, v in (current or {}).items()}
    for key, intervals in (update or {}).items():
        if intervals is None:
            out.pop(key, None)
            continue
        out[key] = merge_intervals(out.get(key, []) + [list(iv) for iv in intervals])
    return out


# -- which version of a document its read regions were shown from -----------------------
#
# A document written again under its doc_id (a re-ingest of a changed file, another
# process's write) or removed and its doc_id given to a new one keeps its coordinates,
# not its text: the memory of what the model was shown of it no longer says what the
# model saw. ``read_versions`` records, per ``scope/doc``, the committed version of the
# document (``Index.versions``) its paragraphs were shown from; a turn forgets the
# memory of every document whose version is no longer that one (the ``toc`` node), so
# its paragraphs are shown again, never pointed at as "shown above". Within a turn, an
# executor that finds a document changed since it was shown leaves its memory out of
# what it sees and marks its version mixed (:data:`MIXED`), which the next turn forgets.

#: A document shown from two versions within one turn: forgotten at the next turn.
MIXED = ""


def version_key(doc_id: int, scope: str) -> str:
    """The key of a document in ``read_versions``: ``scope/doc``."""
    return f"{scope}/{doc_id}"


def merge_versions(
    current: dict[str, str] | None, update: dict[str, str | None] | None
) -> dict[str, str]:
    """Reducer: ``current`` updated by ``update``; a key mapped to ``None`` is dropped."""
    out = dict(current or {})
    for key, version in (update or {}).items():
        if version is None:
            out.pop(key, None)
        else:
            out[key] = version
    return out


def changed_documents(state: Any, scope: str, versions: dict[int, str]) -> set[int]:
    """The documents of ``scope`` the thread's memory holds regions of whose version now
    (``versions``: doc_id → committed version; absent when removed) is not the one they
    were shown from — or was never recorded (a thread from before versions were)."""
    shown = state.get("read_versions") or {}
    prefix = f"{scope}/"
    docs = {region_doc(k) for k in state.get("read_regions") or {} if k.startswith(prefix)}
    return {
        d
        for d in docs
        if (seen := shown.get(version_key(d, scope))) in (None, MIXED) or seen != versions.get(d)
    }


def forget(state: Any, scope: str, docs: set[int]) -> dict[str, Any]:
    """The state update forgetting what the memory holds of ``docs`` in ``scope``."""
    if not docs:
        return {}
    prefix = f"{scope}/"
    regions = {
        k: None
        for k in state.get("read_regions") or {}
        if k.startswith(prefix) and region_doc(k) in docs
    }
    return {
        "read_regions": regions,
        "read_versions": {version_key(d, scope): None for d in docs},
    }


def shown_versions(
    state: Any, scope: str, docs: set[int], versions: dict[int, str], changed: set[int]
) -> dict[str, str]:
    """The ``read_versions`` update for ``docs`` just shown from ``versions``: their
    version, or :data:`MIXED` for a document shown before from another version this turn
    (``changed``) or recorded with another."""
    shown = state.get("read_versions") or {}
    out: dict[str, str] = {}
    for d in docs:
        key, now = version_key(d, scope), versions.get(d, MIXED)
        seen = shown.get(key)
        out[key] = MIXED if d in changed or (seen is not None and seen != now) else now
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
                pieces = [
                    q
                    for p, e in pieces
                    for q in ([[p, min(e, a - 1)]] if p <= min(e, a - 1) else [])
                    + ([[max(p, b + 1), e]] if max(p, b + 1) <= e else [])
                ]
            kept += pieces
        if kept:
            out[key] = merge_intervals(kept)
    return out


def region_doc(key: str) -> int:
    """The doc_id of a read-region key: of a view's ``doc:sec`` and of the thread's
    scoped ``scope/doc:sec`` alike (a scope is ``collection@digest``, never holding a
    ``/``)."""
    return int(key.rsplit("/", 1)[-1].split(":")[0])


def was_read(regions: Regions, doc_id: int, sec_id: int, para_idx: int) -> bool:
    return any(a <= para_idx <= b for a, b in regions.get(section_key(doc_id, sec_id), []))


def regions_of(coords: list[tuple[int, int, int]]) -> Regions:
    """The read regions covering ``coords``."""
    out: Regions = {}
    for doc_id, sec_id, para_idx in coords:
        out.setdefault(section_key(doc_id, sec_id), []).append([para_idx, para_idx])
    return {k: merge_intervals(v) for k, v in out.items()}


def coords_of(regions: Regions, docs: list[int] | None = None) -> set[tuple[int, int, int]]:
    """The paragraph coordinates ``regions`` (a :func:`view`) cover (the inverse of
    :func:`regions_of`), only those of ``docs`` when given."""
    out: set[tuple[int, int, int]] = set()
    for key, spans in regions.items():
        doc_id, sec_id = map(int, key.split(":"))
        if docs is None or doc_id in docs:
            out.update((doc_id, sec_id, p) for a, b in spans for p in range(a, b + 1))
    return out


class MessageError(ValueError):
    """A message written into a thread cannot be one (the message says which and why).

    A ``ValueError``: the LangGraph server answers a state update that raises it with
    HTTP 400 and this text, and a run whose input raises it ends with it.
    """


def _message_chars(message: BaseMessage) -> int:
    """How much text a message holds: its content and its tool calls' arguments."""
    size = len(message.content) if isinstance(message.content, str) else len(str(message.content))
    if isinstance(message, AIMessage):
        size += sum(len(str(c.get("args"))) for c in message.tool_calls)
    return size


def checked_messages(update: Messages) -> list[BaseMessage]:
    """``update`` as messages, each checked: a form LangChain cannot read (a tool message
    without the id of the call it answers) and a message longer than
    ``DEEPREAD_MAX_MESSAGE_CHARS`` are a :class:`MessageError` naming it."""
    items = update if isinstance(update, list) else [update]
    cap = current_settings().max_message_chars
    out: list[BaseMessage] = []
    for i, item in enumerate(items):
        try:
            [message] = convert_to_messages([item])
        except KeyError as exc:  # LangChain reads the required fields with item[...]
            kind = item.get("type") or item.get("role") if isinstance(item, dict) else "?"
            raise MessageError(
                f"messages[{i}]: a {kind!r} message needs {exc.args[0]!r}"
                + (" (the id of the tool call it answers)" if exc.args[0] == "tool_call_id" else "")
            ) from None
        except (ValueError, TypeError, NotImplementedError) as exc:
            raise MessageError(f"messages[{i}]: not a message: {exc}") from None
        size = _message_chars(message)
        if size > cap:
            raise MessageError(
                f"messages[{i}]: {size} characters, over the "
                f"{cap} a message may hold (DEEPREAD_MAX_MESSAGE_CHARS)"
            )
        out.append(message)
    return out


def add_checked_messages(current: Messages, update: Messages) -> Messages:
    """Reducer of ``messages``: LangGraph's ``add_messages``, after
    :func:`checked_messages` of what is written (by a node, a run's input, or a client's
    ``POST /threads/T/state``)."""
    # a list of messages is Messages; mypy's list invariance does not see it
    return add_messages(current, cast(Messages, checked_messages(update)))


class Citation(TypedDict):
    doc_id: int
    sec_id: int
    para_idx: int


class InputState(TypedDict, total=False):
    """What a caller passes in: a question (or chat messages ending with one)."""

    question: str
    messages: Annotated[list[AnyMessage], add_checked_messages]


class OutputState(TypedDict, total=False):
    """What the graph returns (``output_schema``).

    ``messages`` is the thread's chat: the turn's answer is its last AI message, with
    the checked citations in ``response_metadata["citations"]`` (response metadata,
    because it describes the reply and is never sent back to a model API, as
    ``additional_kwargs`` may be).
    """

    messages: Annotated[list[AnyMessage], add_checked_messages]
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
    #: The thread's read-region memory, keys ``scope/doc:sec`` (:func:`region_key`).
    read_regions: Annotated[Regions, merge_regions]
    #: The version of each document (``scope/doc``) its read regions were shown from.
    read_versions: Annotated[dict[str, str], merge_versions]
    #: The collection this turn reads (:func:`region_scope`), set by the ``toc`` node:
    #: the part of ``read_regions`` the turn's nodes see (:func:`view`).
    scope: str
    # Bounded interaction space (nodes/model_input/space.py): whether the TOC is bounded, the
    # documents whose TOCs the prompt shows, and the space the current ``toc`` renders.
    bounded: bool
    # Whether the scope holds several documents (find_documents is then on offer).
    library: bool
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
    return state.get("messages", [])[state.get("turn_start", 0) :]


def pending_tool_calls(
    messages: list[AnyMessage], max_calls: int = MAX_TOOL_CALLS
) -> list[dict[str, Any]]:
    """Tool calls of the last AI message that no ``ToolMessage`` has answered yet.

    Malformed calls (``invalid_tool_calls``: arguments that were not JSON) are included,
    marked ``"invalid": True``, because every call id needs exactly one answer. So are
    the calls past the first ``max_calls`` of the message (``Context.max_tool_calls``),
    marked ``"refused"`` with the reason: they are answered with it, not run.
    """
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        if isinstance(msg, AIMessage):
            answered = {m.tool_call_id for m in messages[i + 1 :] if isinstance(m, ToolMessage)}
            calls = [dict(c) for c in msg.tool_calls]
            calls += [dict(c) | {"invalid": True} for c in msg.invalid_tool_calls]
            if len(calls) > max_calls:
                why = (
                    f"not run: at most {max_calls} tool calls of one reply are run and "
                    f"this one made {len(calls)}; call it again in the next round"
                )
                calls = calls[:max_calls] + [c | {"refused": why} for c in calls[max_calls:]]
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
