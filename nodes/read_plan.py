"""Read sizing from real paragraph tokens: what a ``read_section`` range will cost, and
the range around a paragraph that fits a token budget.

A section's record gives only its total tokens and paragraph count; sizing a read from
their mean (:func:`deepread.nodes.tool_specs.read_window`) overshoots or undershoots
wherever paragraph sizes vary — a section of one 1,400-token statement table and forty
one-line paragraphs has a mean of 34. The planners here (the offline policy, the
sufficiency check's extra read) instead count the lines the ``tools`` node will show
(``[d:s:p] (p.N) text``, the page named where it changes; :func:`deepread.nodes.
observation.format_paragraphs`) with tiktoken, paragraph by paragraph, and count
paragraphs already shown as the one pointer line they become. A table is one
paragraph, so it is read whole or not at all.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from deepread.corpus.framing import escape
from deepread.corpus.index import Index
from deepread.stores.records import Section
from deepread.stores.tokens import count_tokens

#: Tokens of a read's frame: the header line, the ``<document_content>`` tags and the
#: section's title line (measured: 25–45 with a title of a few words).
FRAME = 45
#: Tokens of one "[d:s:a-b] (already shown above; not repeated)" pointer line.
POINTER = 16

class Sections:
    """The shown tokens of each section's direct paragraphs, read once per instance
    (make one per model call: the collection may change between calls)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._costs: dict[tuple[int, int], tuple[list[int], list[int]]] = {}

    def costs(self, doc_id: int, sec_id: int) -> list[int]:
        """Tokens each direct paragraph of the section takes when shown, in order, its
        page marker counted where the page changes (as the observation writes it when
        the paragraph before was shown too)."""
        return self._measure(doc_id, sec_id)[0]

    def marks(self, doc_id: int, sec_id: int) -> list[int]:
        """Tokens each paragraph's page marker adds where :meth:`costs` left it out: on
        a line that opens what is shown (after the title line or a pointer line), the
        observation names the page even when the paragraph before is on it."""
        return self._measure(doc_id, sec_id)[1]

    def _measure(self, doc_id: int, sec_id: int) -> tuple[list[int], list[int]]:
        key = (doc_id, sec_id)
        if key not in self._costs:
            paragraphs = self.index.read(doc_id, sec_id).paragraphs
            costs, marks = [], []
            for i, p in enumerate(paragraphs):
                head = f"[{p.doc_id}:{p.sec_id}:{p.para_idx}]"
                plain = count_tokens(f"{head} {escape(p.text)}") + 1
                marked = (count_tokens(f"{head} (p.{p.page}) {escape(p.text)}") + 1
                          if p.page else plain)
                new_page = i == 0 or p.page != paragraphs[i - 1].page
                costs.append(marked if new_page else plain)
                marks.append(0 if new_page else marked - plain)
            self._costs[key] = (costs, marks)
        return self._costs[key]

    def outline(self, doc_id: int) -> list[Section]:
        """The document's sections, the deep ones a bounded TOC collapses included."""
        return self.index.collection.document(doc_id).sections

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


def subtree(sections: Sequence[Section], sec_id: int) -> list[int]:
    """``sec_id`` and its descendants in ``sections`` (a document's outline), in reading
    order: each section, then its children in order, depth first."""
    out: list[int] = []
    stack = [sec_id]
    while stack:
        sec = sections[stack.pop()]
        out.append(sec.sec_id)
        stack.extend(reversed(sec.children))
    return out


def range_cost(sizes: list[int], start: int, end: int, shown: Collection[int],
               marks: Sequence[int] = ()) -> int:
    """Tokens of reading paragraphs ``start..end``: the unshown ones in full (with the
    page ``marks`` of those opening the range or following a pointer line), each run of
    shown ones as a pointer line, plus the frame."""
    total, in_run, opens = FRAME, False, True
    for i in range(start, end + 1):
        if i in shown:
            total += 0 if in_run else POINTER
            in_run = opens = True
        else:
            total += sizes[i] + (marks[i] if opens and marks else 0)
            in_run = opens = False
    return total


def fit(sizes: list[int], around: int, budget: int, shown: Collection[int] = (),
        marks: Sequence[int] = ()) -> tuple[int, int] | None:
    """The range to read: the whole section when it fits ``budget``, else the widest
    window around paragraph ``around`` that does, grown a paragraph at a time — two
    below for one above, as a passage is more often continued than introduced — and
    None when not even one unshown paragraph fits (or none is left to show)."""
    n = len(sizes)
    if n == 0 or all(i in shown for i in range(n)):
        return None
    if range_cost(sizes, 0, n - 1, shown, marks) <= budget:
        return 0, n - 1
    around = min(max(around, 0), n - 1)
    start = end = around
    if range_cost(sizes, start, end, shown, marks) > budget:
        return None
    step = 0
    while start > 0 or end < n - 1:
        down = end < n - 1 and (step % 3 != 2 or start == 0)
        lo, hi = (start, end + 1) if down else (start - 1, end)
        step += 1
        if range_cost(sizes, lo, hi, shown, marks) > budget:
            # The other side may still have room for a smaller paragraph.
            lo, hi = (start - 1, end) if down else (start, end + 1)
            if lo < 0 or hi > n - 1 or range_cost(sizes, lo, hi, shown, marks) > budget:
                break
        start, end = lo, hi
    if all(i in shown for i in range(start, end + 1)):
        return None
    return start, end

