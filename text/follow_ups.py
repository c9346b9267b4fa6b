"""A follow-up that asks the topic's question again of something else: "and the year
before?", "what about Boeing?", "and in the 10-Q?".

Such a follow-up names only a *slot* of the question that started the topic — a period,
or a name of a kind the caller recognises (a company the library holds, a form a kind of
document is filed as) — and leans on that question for everything else: the quantity,
the company, the form it does not name. :func:`in_topic` writes the question it asks:
the topic's question with that slot replaced ("What was Corning's effective tax rate in
2022?" + "and the year before?" → "... in 2021?"). Searched, quoted for and checked, this
question asks for the topic's quantity of the new year, where the two questions glued
together searched the old year's words and the follow-up's ("year before") besides.

The slots read here are periods, which any document may be of:

* a year named anew ("in 2021", "fiscal 2015"): the topic's years move by as many years
  as its latest is from it (one year: it is replaced);
* a year said relatively ("the year before", "the prior year", "a year earlier", "two
  years earlier", "the following year"): the topic's years move by that many;
* a quarter named anew ("in Q3", "the third quarter") replaces the topic's; said
  relatively ("the previous quarter", "last quarter"), it moves it (Q1 2023 → Q4 2022).

Names come from the caller (:class:`Slot`): what a span of text names, and the word that
joins it to a question lacking one ("for Boeing", "in the 10-Q"). A follow-up is
rewritten only when nothing is left of it beside its slots and the words any follow-up
is made of ("and", "what about", "in the", "same quarter"): "And what was its revenue in
2021?" asks something new, and :func:`in_topic` says ``None`` — the caller keeps the
conversation's words instead. It says ``None`` too when a slot cannot be placed: a year
said relatively of a topic that names none, a name replacing one of two names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: A span of a text: ``(start, end)``.
Span = tuple[int, int]


@dataclass(frozen=True)
class Slot:
    """A kind of name a follow-up may give anew: ``find`` its spans in a text, and the
    words that join one to a question that gives none ("for", "in the")."""

    find: Callable[[str], list[Span]]
    joined_by: str


#: A year: "2022", "FY2022", "fiscal 2022" (the digits are the group).
_YEAR = re.compile(r"(?<![\d.,$])(?:FY\s?'?)?((?:19|20)\d{2})(?![\d,%])", re.IGNORECASE)
_COUNTS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_COUNT = r"(?:(?P<n>\d|one|two|three|four|five|a)\s+)?"
#: A year said relatively, earlier: "the year before", "the prior year", "two years earlier".
_YEARS_BEFORE = re.compile(
    r"\b(?:the\s+)?(?:(?:prior|previous|preceding|last)\s+(?:fiscal\s+)?year"
    rf"|{_COUNT}(?:fiscal\s+)?years?\s+(?:before|earlier|prior|ago)(?:\s+that)?)\b",
    re.IGNORECASE,
)
#: ... and later: "the following year", "the next year", "a year later".
_YEARS_AFTER = re.compile(
    r"\b(?:the\s+)?(?:(?:following|next|subsequent)\s+(?:fiscal\s+)?year"
    rf"|{_COUNT}(?:fiscal\s+)?years?\s+(?:after|later)(?:\s+that)?)\b",
    re.IGNORECASE,
)
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}
#: A quarter: "Q3", "3Q", "the third quarter", "third fiscal quarter".
_QUARTER = re.compile(
    r"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth)[-\s]+(?:fiscal\s+)?quarter)(?![\d])",
    re.IGNORECASE,
)
#: A quarter said relatively: "the previous quarter", "last quarter", "the quarter before".
_QUARTER_BEFORE = re.compile(
    r"\b(?:the\s+)?(?:(?:prior|previous|preceding|last)\s+quarter|quarter\s+(?:before|earlier))\b",
    re.IGNORECASE,
)
#: The words a follow-up is made of besides its slots.
_FILLER = frozenset(
    "and but so then also or plus what how about in for the a an of per from at on to "
    "during same that this those was is were are it its their they them please too again "
    "instead one s period quarter year fiscal figure number value case there".split()
)
_WORD = re.compile(r"[A-Za-z0-9]+")


def _years(text: str) -> list[re.Match[str]]:
    return list(_YEAR.finditer(text))


def _relative_years(text: str) -> tuple[int, list[Span]]:
    """How many years ``text`` says it moves (negative: earlier), and where it says it."""
    move, spans = 0, []
    for pattern, sign in ((_YEARS_BEFORE, -1), (_YEARS_AFTER, 1)):
        for m in pattern.finditer(text):
            count = m.group("n")
            n = int(count) if count and count.isdigit() else _COUNTS.get((count or "").lower(), 1)
            move += sign * n
            spans.append(m.span())
    return move, spans


def _quarter_of(m: re.Match[str]) -> int:
    digit = m.group(1) or m.group(2)
    return int(digit) if digit else _ORDINAL[m.group(3).lower()]


def _replaced(text: str, edits: Sequence[tuple[Span, str]]) -> str:
    """``text`` with each span replaced by its new text (spans do not overlap)."""
    out, at = [], 0
    for (start, end), new in sorted(edits):
        out += [text[at:start], new]
        at = end
    return "".join([*out, text[at:]])


def _joined(question: str, phrase: str) -> str:
    """``phrase`` added to ``question`` before its closing question mark."""
    body = question.rstrip()
    mark = "?" if body.endswith("?") else ""
    return f"{body.rstrip('?').rstrip()} {phrase}{mark}"


def _only_filler(text: str, used: Sequence[Span]) -> bool:
    """Whether nothing of ``text`` is left beside the spans ``used`` and filler words."""
    left = _replaced(text, [(s, " ") for s in used])
    return all(w.lower() in _FILLER for w in _WORD.findall(left))


def _disjoint(spans: Sequence[Span], taken: Sequence[Span]) -> list[Span]:
    return [s for s in spans if all(s[1] <= t[0] or s[0] >= t[1] for t in taken)]


def _moved_periods(topic: str, follow_up: str, taken: list[Span]) -> str | None:
    """``topic`` with the period ``follow_up`` names in place of its own; ``topic`` as
    it is when the follow-up names none; ``None`` when it cannot be placed. The spans
    read in ``follow_up`` are added to ``taken``."""
    years = _years(topic)
    latest = max((int(m.group(1)) for m in years), default=None)
    move, relative = _relative_years(follow_up)
    named = [m for m in _years(follow_up) if _disjoint([m.span()], relative)]
    quarters_named = [m for m in _QUARTER.finditer(follow_up) if _disjoint([m.span()], taken)]
    quarter_back = [m.span() for m in _QUARTER_BEFORE.finditer(follow_up)]
    taken += relative + [m.span() for m in named] + [m.span() for m in quarters_named]
    taken += quarter_back
    if named:
        target = int(named[-1].group(1))
        if latest is None:
            return _joined(topic, f"in {named[-1].group(0)}")
        move += target - latest
    edits: list[tuple[Span, str]] = []
    topic_quarters = list(_QUARTER.finditer(topic))
    if quarter_back:
        if len(topic_quarters) != 1:
            return None
        q = _quarter_of(topic_quarters[0]) - len(quarter_back)
        while q < 1:
            q, move = q + 4, move - 1
        edits.append((topic_quarters[0].span(), f"Q{q}"))
    elif quarters_named:
        new = quarters_named[-1].group(0)
        if len(topic_quarters) > 1:
            return None
        if not topic_quarters:
            topic = _joined(topic, f"in {new}")
            years = _years(topic)
        else:
            edits.append((topic_quarters[0].span(), new))
    if move:
        if latest is None:
            return None
        edits += [(m.span(1), str(int(m.group(1)) + move)) for m in years]
    return _replaced(topic, edits)


def _named(topic: str, follow_up: str, slot: Slot, taken: list[Span]) -> str | None:
    """``topic`` with the name of ``slot``'s kind ``follow_up`` gives in place of its
    own (every mention of it); as it is when the follow-up gives none of a new name;
    ``None`` when the topic gives two names and which one to replace is not said."""
    given = _disjoint(slot.find(follow_up), taken)
    taken += given
    if not given:
        return topic
    new = follow_up[given[0][0] : given[0][1]]
    own = slot.find(topic)
    names = {topic[a:b].casefold() for a, b in own}
    if new.casefold() in names:
        return topic
    if not own:
        return _joined(topic, f"{slot.joined_by} {new}".strip())
    if len(names) > 1:
        return None
    return _replaced(topic, [(span, new) for span in own])


def in_topic(topic: str, follow_up: str, slots: Sequence[Slot] = ()) -> str | None:
    """The question ``follow_up`` asks when it names only slots of ``topic`` — its
    periods and names of the kinds ``slots`` find (see the module docstring) — or
    ``None`` when it names none, asks more than that, or a slot cannot be placed."""
    taken: list[Span] = []
    question: str | None = topic
    # Names first: a form such as "10-Q" holds no year, but a name may hold digits.
    for slot in slots:
        question = _named(question, follow_up, slot, taken) if question is not None else None
    if question is not None:
        question = _moved_periods(question, follow_up, taken)
    if question is None or not taken or not _only_filler(follow_up, taken):
        return None
    return question
