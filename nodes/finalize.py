"""The ``finalize`` node: the answer, checked citations, usage and the trajectory.

Citations are the ``[doc_id:sec_id:para_idx]`` marks in the answer (ranges
``[1:4:2-5]`` and lists ``[1:4:2, 1:4:7]`` too). Only paragraphs the model was actually
shown (the read-region memory) count; any other mark is dropped and counted, so a
citation always points at evidence the model saw.

The node the graph runs (:func:`make_finalize`) first checks that the cited evidence
supports the answer (:mod:`deepread.nodes.sufficiency`): it may read once more and
re-answer, or abstain with ``stop_reason="no_evidence"``. Doing this inside
``finalize`` keeps the graph's shape (toc → policy ⇄ tools → finalize) for callers
that stream node updates.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from deepread.nodes.context import Context
from deepread.nodes.state import AgentState, Citation, merge_regions, turn_messages, was_read

if TYPE_CHECKING:
    from deepread.nodes.resources import Resources

_BRACKET = re.compile(r"\[([\d\s:,;\-–]+)\]")
_COORD = re.compile(r"(\d+):(\d+):(\d+)(?:\s*[-–]\s*(\d+))?")
_MAX_RANGE = 200  # a cited range wider than this is a typo, not a citation


def parse_citations(text: str) -> list[tuple[int, int, int]]:
    """Coordinates cited in ``text``, in order of first mention, ranges expanded."""
    out: list[tuple[int, int, int]] = []
    for group in _BRACKET.findall(text):
        for d, s, p, q in _COORD.findall(group):
            first, last = int(p), int(q) if q else int(p)
            for j in range(first, min(last, first + _MAX_RANGE) + 1):
                if (int(d), int(s), j) not in out:
                    out.append((int(d), int(s), j))
    return out


def finalize(state: AgentState) -> dict[str, Any]:
    messages = turn_messages(state)
    replies = [m for m in messages if isinstance(m, AIMessage)]
    last = replies[-1] if replies else None
    answer = ""
    if last is not None and not last.tool_calls:
        answer = last.content if isinstance(last.content, str) else "".join(
            part.get("text", "") if isinstance(part, dict) else str(part)
            for part in last.content)
    regions = state.get("read_regions") or {}
    cited = parse_citations(answer)
    kept = [c for c in cited if was_read(regions, *c)]
    usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    for reply in replies:
        for key in usage:
            usage[key] += int((reply.usage_metadata or {}).get(key, 0))
    calls = [{"name": c["name"], "args": c["args"]} for r in replies for c in r.tool_calls]
    stop = state.get("stop_reason") or ("answered" if answer else "error")
    error = state.get("error")
    if stop == "error" and not error:
        error = "the model returned an empty reply"
    return {
        "question": "",  # consumed: a later chat-message turn brings its own
        "answer": answer,
        "citations": [Citation(doc_id=d, sec_id=s, para_idx=p) for d, s, p in kept],
        "dropped_citations": len(cited) - len(kept),
        "stop_reason": stop,
        "error": error,
        "usage": usage,
        "tool_calls": calls,
        "sufficiency": state.get("sufficiency") or "unchecked",
    }


def make_finalize(resources: Resources, can_read: bool = True):
    """The ``finalize`` node: the sufficiency check (and its one extra step), then
    :func:`finalize` on the result."""
    from deepread.nodes.sufficiency import check  # it uses parse_citations from here

    def finalize_node(state: AgentState, runtime: Runtime[Context]) -> dict[str, Any]:
        context = runtime.context or Context()
        update, judge_usage = check(state, resources, context, can_read)
        merged: dict[str, Any] = dict(state)
        merged["messages"] = [*state.get("messages", []), *update.get("messages", [])]
        merged["read_regions"] = merge_regions(state.get("read_regions"),
                                               update.get("read_regions"))
        for key in ("stop_reason", "sufficiency"):
            if key in update:
                merged[key] = update[key]
        out = finalize(merged)  # type: ignore[arg-type]
        for key, value in judge_usage.items():
            if key in out["usage"]:
                out["usage"][key] += value
        if update.get("messages"):
            out["messages"] = update["messages"]
        if update.get("read_regions"):
            out["read_regions"] = update["read_regions"]
        return out

    return finalize_node
