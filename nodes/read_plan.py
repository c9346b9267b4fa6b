"""Read sizing from real paragraph tokens: what a ``read_section`` range will cost, and
the range around a paragraph that fits a token budget.

A section's record gives only its total tokens and paragraph count; sizing a read from
their mean (:func:`deepread.nodes.tools.specs.read_window`) overshoots or undershoots
wherever paragraph sizes vary — a section of one 1,400-token statement table and forty
one-line paragraphs has a mean of 34. The planners here (the offline policy, the
sufficiency check's extra read) instead count, with tiktoken, exactly the text the
tool executors will show (:func:`deepread.nodes.tools.observation.format_paragraphs`, written
by the same line functions): the frame's tags, the section's line with the range read,
each paragraph's line ``[d:s:p] (p.N) text`` (the page named where it changes), and a
pointer line for each run of paragraphs already shown. The count is exact because the
tokenizer never merges across the start of a line (its pre-tokenizer splits there; at
most a line's trailing punctuation takes the line break with it), so the text's tokens
are the sum of each line's tokens counted with its line break. A table is one
paragraph, so it is read whole or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from deepread.corpus.framing import CLOSE, OPEN
from deepread.corpus.index import Index
from deepread.nodes.tools.observation import (
    extent,
    opens_with,
    paragraph_line,
    pointer_line,
    section_line,
)
from deepread.records.documents import Section
from deepread.records.outline import subtree
from deepread.text.tokens import count_tokens

#: Tokens of a typical read's frame — the tags and a section line with its title and
#: range (measured over SyllabusQA-dev's reads: median 31, 10–90 % 29–37). Only the
#: policy's "is there room for a read at all" cut-offs use it; a planned read counts its
#: own frame exactly.
FRAME = 30


def _line(text: str) -> int:
    """Tokens of ``text`` as a line followed by another (its line break included)."""
    return count_tokens(text + "\n")


@dataclass(frozen=True, slots=True)
class ReadCost:
    """What reading a range of one section shows, in tokens, part by part."""

    #: Each direct paragraph's line, its page marker counted where the page changes
    #: from the paragraph before (as the observation writes it when that one is shown).
    lines: Sequence[int]
    #: What each paragraph's page marker adds where :attr:`lines` left it out: on a
    #: line that opens what is shown (after the section line or a pointer line) the page
    #: is named even when the paragraph before is on it.
    marks: Sequence[int] = ()
    #: The frame of a read of ``start..end``: the tags and the section's line (its
    #: title left out when paragraph ``start`` is shown and begins with it;
    #: ``start_shown``: it is, as text rather than a pointer).
    frame: Callable[[int, int, bool], int] = lambda start, end, start_shown: 0
    #: The pointer line standing for paragraphs ``first..last`` shown before.
    pointer: Callable[[int, int], int] = lambda first, last: 0


class Sections:
    """The shown tokens of each section's direct paragraphs, read once per instance
    (make one per model call: the collection may change between calls)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._costs: dict[tuple[int, int], ReadCost] = {}
        self._tables: dict[tuple[int, int], bool] = {}

    def read_cost(self, doc_id: int, sec_id: int) -> ReadCost:
        """What a read of the section will show, in tokens, exactly as the ``tools``
        node writes it (see the module docstring)."""
        key = (doc_id, sec_id)
        if key not in self._costs:
            paragraphs = self.index.read(doc_id, sec_id).paragraphs
            self._tables[key] = any(p.kind == "table" for p in paragraphs)
            lines, marks = [], []
            for i, p in enumerate(paragraphs):
                plain, marked = _line(paragraph_line(p, False)), _line(paragraph_line(p, True))
                new_page = i == 0 or p.page != paragraphs[i - 1].page
                lines.append(marked if new_page else plain)
                marks.append(0 if new_page else marked - plain)
            sec = self.outline(doc_id)[sec_id]
            n_para = sec.n_para
            titled = [opens_with(p.text, sec.title) for p in paragraphs]
            tags = _line(OPEN) + count_tokens(CLOSE)

            def frame(start: int, end: int, start_shown: bool) -> int:
                title = "" if start_shown and titled[start] else sec.title
                return tags + _line(section_line(doc_id, sec_id, title, extent(start, end, n_para)))

            def pointer(first: int, last: int) -> int:
                return _line(pointer_line(doc_id, sec_id, first, last))

            self._costs[key] = ReadCost(lines, marks, frame, pointer)
        return self._costs[key]

    def holds_table(self, doc_id: int, sec_id: int) -> bool:
        """Whether one of the section's direct paragraphs is a table."""
        if (doc_id, sec_id) not in self._tables:
            self.read_cost(doc_id, sec_id)
        return self._tables[(doc_id, sec_id)]

    def outline(self, doc_id: int) -> list[Section]:
        """The document's sections, the deep ones a bounded TOC collapses included."""
        return self.index.document(doc_id).sections

    def subtree(self, doc_id: int, sec_id: int) -> list[int]:
        """The section and its descendants in reading order (each section's own
        paragraphs, then its children in order, depth first): what reading a section
        "with its subtree" reads. A statement whose title heads a one-line paragraph
        and whose table sits under a child heading (the table's header line parsed as
        a heading) is read whole this way."""
        return subtree(self.outline(doc_id), sec_id)

    def subtree_tokens(self, doc_id: int, sec_id: int) -> int:
        """Tokens of the section's paragraphs and all its descendants' (records)."""
        sections = self.outline(doc_id)
        return sum(sections[s].n_tok for s in self.subtree(doc_id, sec_id))


def range_cost(cost: ReadCost, start: int, end: int, shown: Collection[int]) -> int:
    """Tokens of reading paragraphs ``start..end``: the frame, the unshown paragraphs in
    full (with the page marks of those opening the range or following a pointer line)
    and a pointer line for each run of shown ones."""
    total, run, opens = cost.frame(start, end, start not in shown), None, True
    for i in range(start, end + 1):
        if i in shown:
            run = i if run is None else run
            opens = True
            continue
        if run is not None:
            total += cost.pointer(run, i - 1)
            run = None
        total += cost.lines[i] + (cost.marks[i] if opens and cost.marks else 0)
        opens = False
    if run is not None:
        total += cost.pointer(run, end)
    return total


def fit(
    cost: ReadCost, around: int, budget: int, shown: Collection[int] = ()
) -> tuple[int, int] | None:
    """The range to read: the whole section when it fits ``budget``, else the widest
    window around paragraph ``around`` that does, grown a paragraph at a time — two
    below for one above, as a passage is more often continued than introduced — and
    None when not even one unshown paragraph fits (or none is left to show)."""
    n = len(cost.lines)
    if n == 0 or all(i in shown for i in range(n)):
        return None
    if range_cost(cost, 0, n - 1, shown) <= budget:
        return 0, n - 1
    around = min(max(around, 0), n - 1)
    start = end = around
    if range_cost(cost, start, end, shown) > budget:
        return None
    step = 0
    while start > 0 or end < n - 1:
        down = end < n - 1 and (step % 3 != 2 or start == 0)
        lo, hi = (start, end + 1) if down else (start - 1, end)
        step += 1
        if range_cost(cost, lo, hi, shown) > budget:
            # The other side may still have room for a smaller paragraph.
            lo, hi = (start - 1, end) if down else (start, end + 1)
            if lo < 0 or hi > n - 1 or range_cost(cost, lo, hi, shown) > budget:
                break
        start, end = lo, hi
    if all(i in shown for i in range(start, end + 1)):
        return None
    return start, end
