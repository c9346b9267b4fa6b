"""The thread's messages as the nodes read and write them: the checked ``messages``
reducer (every message written — by a node, a run's input or a client's state update — is
one LangChain can read and within the size cap), the turn's messages, the tool calls still
pending, the turn's answer and what a policy says of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import convert_to_messages
from langgraph.graph.message import Messages, add_messages

from deepread.environment.settings import current as current_settings
from deepread.nodes.context import MAX_TOOL_CALLS
from deepread.nodes.model_input.prompt import is_notice
from deepread.text.follow_ups import Slot, in_topic
from deepread.text.questions import continues


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


#: Tool calls one message may hold. Past ``max_tool_calls`` (16) they are answered "not
#: run", but every one is answered, with a message of its own: 50,000 one-word calls fit
#: in a megabyte and cost 71 s of a worker to answer.
MAX_CALLS_PER_MESSAGE = 1000


def oversize(message: BaseMessage) -> str | None:
    """Why ``message`` is larger than a thread's messages may be
    (``DEEPREAD_MAX_MESSAGE_CHARS``; :data:`MAX_CALLS_PER_MESSAGE`), or ``None``."""
    if isinstance(message, AIMessage):
        calls = len(message.tool_calls) + len(message.invalid_tool_calls)
        if calls > MAX_CALLS_PER_MESSAGE:
            return f"{calls} tool calls, over the {MAX_CALLS_PER_MESSAGE} a message may hold"
    cap = current_settings().max_message_chars
    size = _message_chars(message)
    if size <= cap:
        return None
    return f"{size} characters, over the {cap} a message may hold (DEEPREAD_MAX_MESSAGE_CHARS)"


def checked_messages(update: Messages) -> list[BaseMessage]:
    """``update`` as messages, each checked: a form LangChain cannot read (a tool message
    without the id of the call it answers) and a message longer than
    ``DEEPREAD_MAX_MESSAGE_CHARS`` are a :class:`MessageError` naming it."""
    items = update if isinstance(update, list) else [update]
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
        too_long = oversize(message)
        if too_long:
            raise MessageError(f"messages[{i}]: {too_long}")
        out.append(message)
    return out


def add_checked_messages(current: Messages, update: Messages) -> Messages:
    """Reducer of ``messages``: LangGraph's ``add_messages``, after
    :func:`checked_messages` of what is written (by a node, a run's input, or a client's
    ``POST /threads/T/state``)."""
    # a list of messages is Messages; mypy's list invariance does not see it
    return add_messages(current, cast(Messages, checked_messages(update)))


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


def turn_messages(state: Any) -> list[AnyMessage]:
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


#: How many earlier questions a chain of follow-ups reaches back to.
FOLLOW_UPS = 3


@dataclass(frozen=True)
class InConversation:
    """A question as it is searched, quoted for and checked (``question``), and whether
    that is the topic's question with the slots a follow-up named replaced
    (``rewritten``: "and the year before?" → "What was Corning's effective tax rate in
    2021?"), not the question as asked or glued to the earlier ones."""

    question: str
    rewritten: bool = False


def conversation_question(
    question: str, earlier: Sequence[BaseMessage], slots: Sequence[Slot] = ()
) -> InConversation:
    """``question`` as it is searched, quoted for and checked (``earlier``: the thread's
    messages before the turn).

    A fresh question is as it is. One that continues the conversation ("and the year
    before?", :func:`~deepread.text.questions.continues`) is read against the earlier
    questions it follows on from, back to the one that started the topic (at most
    :data:`FOLLOW_UPS`), each in turn: a follow-up that only names a new period or a new
    name of the kinds ``slots`` find (a company, a form: :mod:`deepread.nodes.follow_ups`)
    makes the topic's question with that slot replaced
    (:func:`~deepread.text.follow_ups.in_topic`: "What was Corning's effective tax rate
    in 2022?" + "and the year before?" → "... in 2021?"); any other follow-up is added to
    the topic's words ("How does json encode NaN? And how do I make it raise an error
    instead?"), so that what the conversation is about is searched too."""
    if not continues(question):
        return InConversation(question)
    asks = [str(m.content) for m in earlier if isinstance(m, HumanMessage) and not is_notice(m)]
    chain: list[str] = []
    for before in reversed(asks[-FOLLOW_UPS:]):
        chain.insert(0, before)
        if not continues(before):
            break
    if not chain:
        return InConversation(question)
    topic, rewritten = chain[0], False
    for follow_up in [*chain[1:], question]:
        moved = in_topic(topic, follow_up, slots)
        topic, rewritten = (moved, True) if moved is not None else (f"{topic} {follow_up}", False)
    return InConversation(topic, rewritten)


def in_conversation(
    question: str, earlier: Sequence[BaseMessage], slots: Sequence[Slot] = ()
) -> str:
    """:func:`conversation_question`'s question: ``question`` as it is searched, quoted
    for and checked."""
    return conversation_question(question, earlier, slots).question
