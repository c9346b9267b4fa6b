"""What ``ask`` and ``chat`` show of a run as it happens: each tool call and its result.

One line per call (``→ retrieve(query='…')``) and one per result (``← retrieve: 5 hits,
7 paragraphs (2 already read) [1:3:0] …``), from the graph's ``updates`` stream, whichever
node wrote them (the sufficiency check's extra read included).
"""

from __future__ import annotations

from typing import Any

from deepread.cli.common import clip

#: Documents a ``find_documents`` line names; the rest are counted.
DOCUMENTS_SHOWN = 4


def call_line(call: dict[str, Any]) -> str:
    """``→ name(arg=value, …)`` for one tool call."""
    args = ", ".join(f"{k}={clip(repr(v))}" for k, v in (call.get("args") or {}).items())
    return f"→ {call.get('name')}({args})"


def step_lines(update: dict[str, Any]) -> list[str]:
    """Human lines for one streamed graph update (any node's)."""
    from deepread.nodes.tools.observation import Observation

    lines = []
    for msg in update.get("messages") or []:
        for call in getattr(msg, "tool_calls", None) or []:
            lines.append(call_line(call))
        if getattr(msg, "tool_call_id", None):
            lines.append(result_line(msg, Observation.of(msg)))
    return lines


def result_line(msg: Any, obs: Any) -> str:
    """``← name: …`` for one tool result."""
    if msg.status == "error":
        return f"← {msg.name}: {obs.error or msg.content}"
    rows = obs.paragraphs
    if not rows and obs.hits is None:  # a text result (a TOC, a resolution, documents)
        lines = [ln.strip() for ln in str(msg.content).splitlines() if ln.strip()]
        first = lines[0] if lines else ""
        if obs.documents and len(lines) > 1:
            return f"← {msg.name}: {first} {documents_found(lines[1:])}"
        return f"← {msg.name}: {first[:100]}{' …' if len(first) > 100 else ''}"
    repeats = sum(r.repeat for r in rows)
    coords = " ".join(f"[{r.doc_id}:{r.sec_id}:{r.para_idx}]" for r in rows[:4])
    more = " …" if len(rows) > 4 else ""
    hits = f"{len(obs.hits)} hits, " if obs.hits is not None else ""
    return (
        f"← {msg.name}: {hits}{len(rows)} paragraphs"
        f"{f' ({repeats} already read)' if repeats else ''} {coords}{more}"
    )


def documents_found(lines: list[str]) -> str:
    """The documents a ``find_documents`` result lists, one ``(doc_id) Title`` each (its
    card's fields after `` | `` left to ``docs``): its first line only introduces them."""
    shown = [clip(line.split(" | ")[0], 80) for line in lines[:DOCUMENTS_SHOWN]]
    more = f" … (+{len(lines) - DOCUMENTS_SHOWN} more)" if len(lines) > DOCUMENTS_SHOWN else ""
    return "; ".join(shown) + more
