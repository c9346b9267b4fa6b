"""Shared machinery of the tool-executor nodes (``retrieve``, ``read_section``,
``follow_reference``).

An executor answers the run of pending tool calls of its own tool at the front of the
queue, in order, each with exactly one ``ToolMessage`` carrying the call's id. A call
that cannot run — bad arguments, an unknown document or section, a store failure —
is answered with an error message the model can act on; the graph never crashes on a
bad tool call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolMessage
from pydantic import BaseModel

from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.observation import format_paragraphs
from deepread.nodes.state import (
    AgentState,
    Regions,
    merge_regions,
    pending_tool_calls,
    regions_of,
    subtract_regions,
)
from deepread.nodes.tools import ToolArgumentError, parse_args
from deepread.stores.backend import StoreError
from deepread.stores.records import Paragraph


@dataclass(slots=True)
class Outcome:
    """What a tool produced: paragraphs to show, and extra artifact fields."""

    paragraphs: list[Paragraph]
    extra: dict[str, Any]
    header: str = ""


Handler = Callable[[BaseModel, Index, Context], Outcome]


def run_calls(state: AgentState, name: str, handler: Handler, index: Index,
              context: Context) -> dict[str, Any]:
    """Answer the leading pending ``name`` calls; the state update for the node."""
    # Paragraphs the model now sees only as evidence notes (nodes/notes.py) count as
    # unread: re-reading them shows their text again.
    regions: Regions = subtract_regions(dict(state.get("read_regions") or {}),
                                        state.get("noted_regions"))
    shown: Regions = {}
    messages: list[ToolMessage] = []
    for call in pending_tool_calls(state.get("messages", [])):
        if call.get("name") != name or call.get("invalid"):
            break
        try:
            args = parse_args(name, call.get("args"))
            outcome = handler(args, index, context)
        except (ToolArgumentError, KeyError, ValueError) as exc:
            messages.append(error_message(call, _message(exc)))
            continue
        except StoreError as exc:
            messages.append(error_message(call, f"the document store failed: {exc}"))
            continue
        documents = {d.doc_id: d for d in index.documents()}
        text, rows = format_paragraphs(outcome.paragraphs, documents,
                                       merge_regions(regions, shown))
        new = regions_of([p.coord for p in outcome.paragraphs])
        shown = merge_regions(shown, new)
        messages.append(ToolMessage(
            content=f"{outcome.header}\n{text}" if outcome.header else text,
            tool_call_id=call["id"], name=name,
            artifact={"paragraphs": rows, **outcome.extra}))
    return {"messages": messages, "read_regions": shown}


def error_message(call: dict[str, Any], reason: str) -> ToolMessage:
    return ToolMessage(content=f"Error: {reason}", tool_call_id=call.get("id") or "",
                       name=call.get("name") or "unknown", status="error",
                       artifact={"paragraphs": [], "error": reason})


def _message(exc: Exception) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)
