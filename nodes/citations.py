"""Citations: the ``[doc_id:sec_id:para_idx]`` marks of an answer, and which count.

Ranges ``[1:4:2-5]`` and lists ``[1:4:2, 1:4:7]`` count too; an escaped ``\\[1:4:2]`` — a
marker inside document text, as observations and quotes show it — does not. Only
paragraphs the model was actually shown (the read-region memory) are kept; any other mark
is dropped, so a citation always points at evidence the model saw. The sufficiency check and
``finalize`` both read them here.

An answer is text a client can write into its own thread, or a model can be made to
emit, so reading its citations costs time linear in its length and no more than
:data:`MAX_CITATIONS` paragraphs are looked up: the marks past that many are counted,
not expanded, and reported as dropped (``citations_past_cap``). Each coordinate is
looked up in a set: checked against a list of those before it, 200 forged ranges held
a run worker 34 s and 60,000 citations held ``ask`` for 117 s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepread.nodes.read_memory import Regions, was_read

# A bracket after a backslash is text, not a citation: document text shows its own
# markers escaped (corpus/framing.py), so a quote copied from a document cites nothing.
_BRACKET = re.compile(r"(?<!\\)\[([\d\s:,;\-–]+)\]")
# A number starts where a run of digits starts: without the lookbehind a run of 100,000
# digits was tried from each of its digits (quadratic, ~50 s for a 100 KB bracket).
_COORD = re.compile(r"(?<!\d)(\d+):(\d+):(\d+)(?:\s*[-–]\s*(\d+))?")
_MAX_RANGE = 200  # a cited range wider than this is a typo, not a citation
#: Digits a coordinate may have: past this it names no paragraph (and Python refuses to
#: convert a number of over 4,300 digits, which had crashed ``finalize``).
_MAX_DIGITS = 18
#: Distinct paragraphs one answer's citations are read to: far above what an answer
#: cites (the sufficiency check reads 12); the marks past them are counted, not checked.
MAX_CITATIONS = 1_000
_NOWHERE = -1  # the coordinate of a number too long to be one: no paragraph has it

Coord = tuple[int, int, int]


@dataclass(frozen=True)
class Cited:
    """The paragraphs an answer cites, in order of first mention, ranges expanded — at
    most :data:`MAX_CITATIONS` — and how many citation marks (``d:s:p`` or a range)
    were left out past that cap."""

    coords: list[Coord]
    past_cap: int


def _number(digits: str) -> int:
    return int(digits) if len(digits) <= _MAX_DIGITS else _NOWHERE


def cited_in(text: str, cap: int = MAX_CITATIONS) -> Cited:
    """The citations of ``text`` (:class:`Cited`), in time linear in its length."""
    seen: dict[Coord, None] = {}  # insertion-ordered, looked up in constant time
    past = 0
    for group in _BRACKET.findall(text):
        for d, s, p, q in _COORD.findall(group):
            if len(seen) >= cap:
                past += 1  # counted, not expanded: its paragraphs are not looked up
                continue
            doc, sec, first = _number(d), _number(s), _number(p)
            last = _number(q) if q else first
            if first == _NOWHERE:
                seen.setdefault((doc, sec, _NOWHERE))
                continue
            if last == _NOWHERE:
                last = first + _MAX_RANGE
            for j in range(first, min(last, first + _MAX_RANGE) + 1):
                if len(seen) >= cap:
                    past += 1  # the rest of this range is left out
                    break
                seen.setdefault((doc, sec, j))
    return Cited(list(seen), past)


def parse_citations(text: str) -> list[Coord]:
    """Coordinates cited in ``text``, in order of first mention, ranges expanded (the
    first :data:`MAX_CITATIONS`)."""
    return cited_in(text).coords


def shown(cited: Cited, regions: Regions) -> list[Coord]:
    """The cited coordinates the model was shown."""
    return [c for c in cited.coords if was_read(regions, *c)]


def read_citations(text: str, regions: Regions) -> list[Coord]:
    """The coordinates cited in ``text`` that the model was shown."""
    return shown(cited_in(text), regions)
