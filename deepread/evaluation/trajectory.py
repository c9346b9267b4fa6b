"""What an agent run showed the model, read back from the graph's final state.

Every tool observation is a ``ToolMessage`` carrying an
:class:`~deepread.nodes.tools.observation.Observation`: the paragraphs it showed (and the
hits, for Retrieve). From them come the compact trajectory
written to disk (tool, arguments, coordinates shown, tokens), the texts that evidence is
looked for in, and token counts: the observation tokens (the tool messages as the model
saw them) and, for models that report no usage (the extractive policy), an estimate of
the input and output tokens from the messages of each model call.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage

from deepread.evaluation.evidence import DocResolver, Piece
from deepread.models.chat import message_text
from deepread.nodes.model_input.prompt import system_prompt
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import tool_schemas
from deepread.text.tokens import count_tokens

RETRIEVE = "retrieve"


@dataclass(slots=True)
class AgentTrace:
    """The observations of one run and what they showed."""

    observations: list[dict[str, Any]] = field(default_factory=list)
    located: list[Piece] = field(default_factory=list)  # retrieve results only
    shown: list[Piece] = field(default_factory=list)  # every observation
    observation_tokens: int = 0
    observation_chars: int = 0  # the benchmarks count tokens as characters ÷ 4
    input_tokens_est: int = 0
    output_tokens_est: int = 0


def compact_coords(rows: list[dict[str, Any]]) -> list[str]:
    """``["d:s:a-b", …]``: consecutive paragraphs of one section as one range, in order."""
    out: list[list[int]] = []
    for r in rows:
        d, s, p = int(r["doc_id"]), int(r["sec_id"]), int(r["para_idx"])
        if out and out[-1][:2] == [d, s] and out[-1][3] + 1 == p:
            out[-1][3] = p
        else:
            out.append([d, s, p, p])
    return [f"{d}:{s}:{a}" if a == b else f"{d}:{s}:{a}-{b}" for d, s, a, b in out]


def message_tokens(message: BaseMessage) -> int:
    """Tokens of a message's text and of its tool calls' names and arguments."""
    content = (
        message.content
        if isinstance(message.content, str)
        else json.dumps(message.content, ensure_ascii=False)
    )
    calls = getattr(message, "tool_calls", None) or []
    extra = (
        json.dumps([{"name": c["name"], "args": c["args"]} for c in calls], ensure_ascii=False)
        if calls
        else ""
    )
    return count_tokens(content) + (count_tokens(extra) if extra else 0)


def trace_agent(
    values: dict[str, Any], resolver: DocResolver, tools: tuple[str, ...]
) -> AgentTrace:
    """The trace of the last turn in the graph state ``values``."""
    messages: list[BaseMessage] = list(values.get("messages") or [])
    start = int(values.get("turn_start") or 0)
    trace = AgentTrace()
    calls: dict[str, ToolCall] = {}
    # Prompt cost of each model call: system prompt (with the TOC) and tool schemas,
    # plus every message before the reply. Tokens of each message are counted once.
    prefix = count_tokens(message_text(system_prompt(values.get("toc") or "")))
    prefix += count_tokens(json.dumps(tool_schemas(tools), ensure_ascii=False))
    history = 0
    for i, msg in enumerate(messages):
        n = message_tokens(msg)
        if isinstance(msg, AIMessage) and i >= start:
            trace.input_tokens_est += prefix + history
            trace.output_tokens_est += n
            for c in msg.tool_calls:
                calls[c.get("id") or ""] = c
        history += n
        if not isinstance(msg, ToolMessage) or i < start:
            continue
        obs = Observation.of(msg)
        tokens = count_tokens(message_text(msg))
        trace.observation_tokens += tokens
        trace.observation_chars += len(message_text(msg))
        pieces = [(resolver.by_id.get(r.doc_id, ""), r.text) for r in obs.paragraphs]
        trace.shown += pieces
        if msg.name == RETRIEVE:
            trace.located += pieces
        call = calls.get(msg.tool_call_id)
        record: dict[str, Any] = {
            "tool": msg.name,
            "args": call.get("args") if call else None,
            "shown": compact_coords([asdict(r) for r in obs.paragraphs]),
            "tokens": tokens,
        }
        if obs.hits is not None:
            record["hits"] = [f"{h.doc_id}:{h.sec_id}:{h.para_idx}" for h in obs.hits]
        if obs.documents is not None:  # find_documents: the documents it found
            record["documents"] = list(obs.documents)
        if repeats := sum(r.repeat for r in obs.paragraphs):
            record["repeats"] = repeats
        if msg.status == "error":
            record["error"] = obs.error or message_text(msg)
        trace.observations.append(record)
    return trace
