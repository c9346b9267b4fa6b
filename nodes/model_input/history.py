"""A history every model API accepts: each tool call answered before anything else.

OpenAI-compatible APIs reject a conversation in which an assistant message's tool calls
are not each followed by a tool message answering it ("an assistant message with
'tool_calls' must be followed by tool messages responding to each 'tool_call_id'").
Within a run the tool executors answer every call, but a run can stop between the
policy's call and its answer: a server run cancelled (``client.runs.cancel``), a
Python ``interrupt_after=["policy"]``, the recursion limit, a process killed. The next
run on the thread would send that history and, with a real model, fail from then on.

:func:`repair` answers each such call with a ``ToolMessage`` saying it was not run,
right after the calls it belongs to — the approach of the deep-agents
``PatchToolCallsMiddleware``. The ``compact`` node applies it before every model call
and writes the result to the thread's state, so Studio and the next run see the same
history. Such a call marks nothing as read (its result shows no paragraph).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

from deepread.nodes.tools.observation import error_message

NOT_RUN = (
    "not run: the run stopped before this call was answered (it was cancelled, "
    "interrupted or failed); call it again if you still need it"
)


def _calls(message: AIMessage) -> list[dict[str, Any]]:
    return [dict(c) for c in [*message.tool_calls, *message.invalid_tool_calls]]


def repair(messages: list[AnyMessage]) -> list[AnyMessage] | None:
    """``messages`` with a "not run" answer after each unanswered tool call (after the
    answers its message did get); None when every call is answered already."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    out: list[AnyMessage] = []
    owed: list[ToolMessage] = []  # answers due before the next message that is no answer
    for message in messages:
        if owed and not isinstance(message, ToolMessage):
            out += owed
            owed = []
        out.append(message)
        if isinstance(message, AIMessage):
            owed = [
                error_message(c, NOT_RUN) for c in _calls(message) if c.get("id") not in answered
            ]
    out += owed
    return out if len(out) != len(messages) else None
