"""Evidence notes: older observations compacted so long trajectories fit the model.

The paper lets a trajectory run for 50 rounds, and every tool result stays in the
conversation: on long documents that outgrows the model's context. When what the policy
is about to send exceeds ``notes_budget`` tokens (tiktoken), the oldest tool
observations are replaced — in what is *sent*, oldest first, until it fits — by compact
notes: per section shown, its coordinates, up to two exact short quotes (the sentences
sharing most words with the question), the words that make them matter, and the call
that re-reads the originals, ``read_section(d, s, i, j)``. The observations of the
latest round are never compacted.

Decision: the checkpointed messages stay intact (the trajectory, the artifacts and
the evaluation read them; the read-region memory still points at the originals, so a
re-read shows the text again rather than "already shown"). The notes are recomputed
deterministically before each model call (by the ``compact`` node, which records them
in the state for the policy to send), so the same history always yields the same
prompt. Notes are extractive — no extra model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from deepread.models.chat import message_text
from deepread.nodes.lru import Lru
from deepread.nodes.read_memory import Regions, regions_of
from deepread.nodes.tools.observation import Observation, ShownParagraph
from deepread.text.markup import plain
from deepread.text.terms import terms
from deepread.text.tokens import count_tokens

NOTE_MARK = "[note: an older observation, compacted to save context]"
_QUOTES = 2
_QUOTE_CHARS = 160
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(`])")


#: The same messages are measured before every model call of a run: their counts are
#: kept, keyed by the text's length and hash — never by the text itself, which a cache
#: would hold on to (4,096 texts of a 10 MB question held 5 GB).
_counts: Lru[tuple[int, int], int] = Lru(4096)


def _tokens(text: str) -> int:
    return _counts.get_or_make((len(text), hash(text)), lambda: count_tokens(text))


def message_tokens(message: BaseMessage) -> int:
    """Tokens a message costs: its text and its tool calls' names and arguments."""
    n = _tokens(message_text(message)) + 4
    if isinstance(message, AIMessage):
        n += sum(_tokens(f"{c['name']}{c['args']}") for c in message.tool_calls)
    return n


def _sentences(text: str) -> list[str]:
    flat = plain(text)
    return [s for s in _SENTENCE.split(flat) if s]


def _short(sentence: str) -> str:
    if len(sentence) <= _QUOTE_CHARS:
        return sentence
    return sentence[:_QUOTE_CHARS].rsplit(" ", 1)[0]


def note_for(message: ToolMessage, question: str) -> str:
    """The compact note standing for one tool observation."""
    rows = Observation.of(message).paragraphs
    head = f"{NOTE_MARK} {message.name or 'tool'} result"
    if not rows:
        first_line = message_text(message).split("\n")[0]
        return f"{head}: {_short(first_line)}"
    wanted = terms(question)
    groups: dict[tuple[int, int], list[ShownParagraph]] = {}
    for r in rows:
        groups.setdefault((r.doc_id, r.sec_id), []).append(r)
    lines = [f"{head}, {len(rows)} paragraph(s):"]
    for (d, s), group in groups.items():
        first, last = min(r.para_idx for r in group), max(r.para_idx for r in group)
        scored: list[tuple[int, int, str, set[str]]] = []
        for r in group:
            if r.repeat:
                continue
            for sentence in _sentences(r.text):
                shared = wanted & terms(sentence)
                if shared:
                    scored.append((len(shared), -r.para_idx, sentence, shared))
        scored.sort(key=lambda x: (-x[0], -x[1]))
        span = f"[{d}:{s}:{first}]" if first == last else f"[{d}:{s}:{first}-{last}]"
        line = f"- {span} re-read with read_section({d}, {s}, {first}, {last})"
        quotes = []
        for _, neg_idx, sentence, shared in scored[:_QUOTES]:
            why = ", ".join(sorted(shared)[:5])
            quotes.append(f'[{d}:{s}:{-neg_idx}] "{_short(sentence)}" (mentions {why})')
        lines.append(
            line
            + (
                "; " + "; ".join(quotes)
                if quotes
                else "; nothing in it matched the question's words"
            )
        )
    return "\n".join(lines)


def compact(
    messages: Sequence[BaseMessage], question: str, budget: int, keep_from: int | None = None
) -> list[BaseMessage]:
    """``messages`` with the oldest observations replaced by notes until the whole fits
    ``budget`` tokens (or nothing more may be compacted). Messages from ``keep_from``
    on (default: the latest round's observations) stay as they are."""
    return fit(messages, question, budget, keep_from)[0]


def fit(
    messages: Sequence[BaseMessage], question: str, budget: int, keep_from: int | None = None
) -> tuple[list[BaseMessage], int]:
    """:func:`compact`, and the tokens of what it returns (``budget <= 0``: no notes)."""
    out = list(messages)
    costs = [message_tokens(m) for m in out]
    total = sum(costs)
    if budget <= 0 or total <= budget:
        return out, total
    if keep_from is None:
        keep_from = len(out)
        while keep_from > 0 and isinstance(out[keep_from - 1], ToolMessage):
            keep_from -= 1
    for i in range(keep_from):
        if total <= budget:
            break
        msg = out[i]
        if not isinstance(msg, ToolMessage) or msg.status == "error":
            continue
        note = msg.model_copy(update={"content": note_for(msg, question)})
        cost = message_tokens(note)
        if cost < costs[i]:
            total += cost - costs[i]
            out[i], costs[i] = note, cost
    return out, total


def is_note(message: BaseMessage) -> bool:
    return isinstance(message, ToolMessage) and message_text(message).startswith(NOTE_MARK)


def noted_regions(messages: Sequence[BaseMessage]) -> Regions:
    """Paragraphs shown only in observations that are notes now: a re-read of them must
    show their text again rather than an "already shown" pointer."""
    noted: list[tuple[int, int, int]] = []
    full: set[tuple[int, int, int]] = set()
    for m in messages:
        if not isinstance(m, ToolMessage):
            continue
        rows = [p.coord for p in Observation.of(m).shown]
        if is_note(m):
            noted += rows
        else:
            full.update(rows)
    return regions_of([c for c in noted if c not in full])
