"""Calls repeated into the same error: a tool call whose arguments were refused (not valid,
a document or section that does not exist, a query too long) fails the same way when it
is sent again with the same arguments, so it is never run twice in a turn, and a turn
whose policy keeps repeating such calls answers with what it has instead of spending its
rounds on one failure.

A call's identity is its tool and its arguments (canonical JSON). Only errors marked
``final`` count (:class:`~deepread.nodes.tools.observation.Observation`): a store that
failed may work on the next try.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from deepread.nodes.tools.observation import Observation

#: Repeated failures after which the policy answers with what it has (no tools offered).
REPEATS_BEFORE_ANSWER = 2


def call_key(call: dict[str, Any]) -> str:
    """A call's identity: its tool and its arguments."""
    return json.dumps([call.get("name"), call.get("args")], sort_keys=True, default=str)


def _final_failures(messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
    """(call key, error) of each call of ``messages`` answered with a final error, in order.

    Most turns have none: the calls' keys are made only when one failed."""
    failed = [
        (message.tool_call_id, observation.error or str(message.content))
        for message in messages
        if isinstance(message, ToolMessage) and message.status == "error"
        if (observation := Observation.of(message)).final
    ]
    if not failed:
        return []
    ids = {call_id for call_id, _ in failed}
    keys = {
        str(call.get("id")): call_key(dict(call))
        for message in messages
        if isinstance(message, AIMessage)
        for call in [*message.tool_calls, *message.invalid_tool_calls]
        if call.get("id") in ids
    }
    return [(keys[call_id], error) for call_id, error in failed if call_id in keys]


def earlier_failure(messages: Sequence[BaseMessage], call: dict[str, Any]) -> str | None:
    """The error the same call (same tool, same arguments) already met in ``messages``
    (a turn's), when that error was the call's own; None otherwise."""
    key = call_key(call)
    return next((error for k, error in _final_failures(messages) if k == key), None)


def repeated_failures(messages: Sequence[BaseMessage]) -> int:
    """How many calls of ``messages`` repeated a call that had already failed on its
    arguments."""
    seen: set[str] = set()
    repeats = 0
    for key, _ in _final_failures(messages):
        repeats += key in seen
        seen.add(key)
    return repeats


def repeat_reason(error: str) -> str:
    """The answer to a call that already failed: what it met, and what to do instead."""
    return (
        f"this call was made before in this turn with the same arguments and failed "
        f"({error.rstrip('.')}); it fails again the same way: change its arguments, call "
        "another tool, or answer with what you have"
    )
