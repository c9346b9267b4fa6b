"""Headings where typography says little: short lines standing alone, run-in titles.

A syllabus typed in one font, or a section still holding a large part of the document,
gets its headings from weaker cues than :mod:`~deepread.corpus.parsing.pdf.typography`'s:
a short capitalised line standing alone with space above it, a short first line of a
block set over its paragraph ("Textbook" over its text, grouped in one box), and a
capitalised phrase run into its paragraph ("Late policy. 10% will be deducted…"). Both
kinds of split are made in one pass over the paragraphs (:func:`_split_pass`).
"""

from __future__ import annotations

import re
from collections import Counter

from deepread.corpus.parsing.pdf.contents import in_contents
from deepread.corpus.parsing.pdf.lines import Line, PageText
from deepread.corpus.parsing.pdf.paragraphs import Para, norm
from deepread.corpus.parsing.pdf.typography import (
    MAX_LEVEL,
    SENTENCE_END,
    Style,
    typographic_levels,
)

__all__ = ["BIG_SECTION", "in_big_sections", "standalone"]

_SHORT_END = re.compile(r"[.,;!?]['\"’”)\]]*$")


def _standalone_text(text: str) -> bool:
    """Could be a title: short, capitalised, no sentence end (a colon only after <= 4 words)."""
    words = text.split()
    return (
        0 < len(words) <= 8
        and len(text) <= 60
        and text[:1].isupper()
        and not _SHORT_END.search(text)
        and (not text.endswith(":") or len(words) <= 4)
    )


#: Share of the document's text above which a section is searched for weaker cues.
BIG_SECTION = 0.3


def in_big_sections(paras: list[Para], heads: dict[int, int | None]) -> set[int]:
    """Ids of the paragraphs of sections holding more than ``BIG_SECTION`` of the text."""
    owner: list[int] = []
    sizes: Counter[int] = Counter()
    current = -1
    for i, p in enumerate(paras):
        if i in heads:
            current = i
        owner.append(current)
        if i not in heads:
            sizes[current] += sum(len(ln.text) for ln in p.lines)
    total = sum(sizes.values()) or 1
    big = {s for s, n in sizes.items() if n > BIG_SECTION * total}
    return {id(p) for p, s in zip(paras, owner, strict=True) if s in big}


def standalone(
    paras: list[Para],
    pages: list[PageText],
    tocs: dict[int, tuple[list[str], float]],
    beside: set[int],
    heads: dict[int, int | None],
    styles: dict[int, Style],
    only: set[int] | None = None,
) -> None:
    """Mark short lines that stand alone, with extra space above, as headings (in place).

    A short first line of a block whose second line starts under it ("Textbook" over its
    paragraph, grouped in one box) is split off first.
    """

    def split_title(p: Para, prev: Para | None) -> tuple[Para, int | None] | None:
        if only is not None and id(p) not in only:
            return None
        if not (
            p.kind == "text"
            and len(p.lines) > 1
            and _standalone_text(norm(p.lines[0].text))
            and p.lines[0].x1 < 0.6 * max(p.right_edge, 1)
            and abs(p.lines[1].x0 - p.lines[0].x0) < 2
            and p.lines[1].x1 >= 0.8 * max(p.right_edge, 1)
        ):
            return None
        rest = Para(
            lines=p.lines[1:],
            page=p.page,
            kind="text",
            text_x0=p.text_x0,
            right_edge=p.right_edge,
            extra_pages=p.extra_pages,
        )
        p.lines, p.extra_pages = p.lines[:1], []
        if only is not None:
            only.add(id(rest))  # the part split off keeps its paragraph's place
        return rest, _UNMARKED

    _split_pass(paras, heads, styles, split_title)
    levels = typographic_levels(list(styles.values()))
    weak_level = min(MAX_LEVEL, max(levels.values(), default=2) + 1)
    _run_in(paras, tocs, heads, weak_level, only)
    for i, p in enumerate(paras):
        if only is not None and id(p) not in only:
            continue
        if (
            i in heads
            or p.kind != "text"
            or len(p.lines) != 1
            or in_contents(p, tocs)
            or id(p.lines[0]) in beside
            or not _standalone_text(norm(p.raw))
        ):
            continue
        prev = paras[i - 1] if i else None
        nxt = paras[i + 1] if i + 1 < len(paras) else None
        if nxt is None or nxt.kind == "heading":
            continue
        if prev is not None and prev.page == p.page and prev.lines:
            gap = prev.lines[-1].y0 - p.lines[0].y1
            if gap < 0.8 * p.lines[0].size:
                continue
        heads[i] = weak_level


# "Late policy. 10% will be deducted…", "Accommodations: The University…": a short
# capitalised phrase run into its paragraph.
_RUN_IN = re.compile(r"^([A-Z][^\W\d_]*(?:[ /&-]+[^\W\d_]{2,}){0,3})([.:])\s+(?=[A-Z\"“]\w)")


def _run_in(
    paras: list[Para],
    tocs: dict[int, tuple[list[str], float]],
    heads: dict[int, int | None],
    level: int,
    only: set[int] | None = None,
) -> None:
    """Split run-in headings off their paragraphs and mark them (in place)."""

    def split(p: Para, prev: Para | None) -> tuple[Para, int | None] | None:
        if only is not None and id(p) not in only:
            return None
        m = _RUN_IN.match(p.lines[0].text) if p.kind == "text" and p.lines else None
        if m is None or in_contents(p, tocs):
            return None
        words = m.group(1).split()
        capitalised = sum(w[:1].isupper() for w in words)
        # After a sentence's end only: a wrapped reference or a sentence cut by a page
        # break starts with capitalised words too.
        ended = (
            prev is None
            or not prev.lines
            or prev.kind != "text"
            or SENTENCE_END.search(prev.lines[-1].text.rstrip()) is not None
        )
        if (len(words) > 2 and capitalised < 0.5 * len(words)) or not ended:
            return None
        first = p.lines[0]
        cut = m.end()
        # The title keeps the separator the page printed ("Exams:", "Late policy."): it is
        # also the contextual header of the paragraph (structure.py), which should read
        # as the page does, "Exams: Two preliminary exams.", not "Exams / Two …".
        printed = m.group(1) + m.group(2)
        head = Line(
            printed,
            first.x0,
            first.x0,
            first.y0,
            first.y1,
            first.size,
            first.mono,
            first.box,
            False,
            first.xs[: len(printed)],
            first.bold,
        )
        rest = Line(
            first.text[cut:],
            first.x0,
            first.x1,
            first.y0,
            first.y1,
            first.size,
            first.mono,
            first.box,
            first.bullet,
            first.xs[cut:],
            first.bold,
            first.bold_end,
        )
        body = Para(
            lines=[rest, *p.lines[1:]],
            page=p.page,
            kind="text",
            text_x0=p.text_x0,
            right_edge=p.right_edge,
            extra_pages=p.extra_pages,
        )
        p.lines, p.extra_pages = [head], []
        if only is not None:
            only.add(id(body))
        return body, level

    _split_pass(paras, heads, {}, split)


#: ``_split_pass``: the first part is not marked as a heading by the split itself.
_UNMARKED = -1


def _split_pass(
    paras: list[Para], heads: dict[int, int | None], styles: dict[int, Style], split
) -> None:
    """Split paragraphs in one pass (``split(p, prev)`` -> ``(rest, level)`` or ``None``),
    renumbering ``heads`` and ``styles`` once: inserting into the list per split, and
    shifting every index after it, made thousands of run-in headings quadratic."""
    out: list[Para] = []
    new_heads: dict[int, int | None] = {}
    new_styles: dict[int, Style] = {}
    for i, p in enumerate(paras):
        at = len(out)
        if i in heads:
            new_heads[at] = heads[i]
        if i in styles:
            new_styles[at] = styles[i]
        found = None if i in heads else split(p, out[-1] if out else None)
        out.append(p)
        if found is not None:
            rest, level = found
            if level != _UNMARKED:
                new_heads[at] = level
            out.append(rest)
    paras[:] = out
    heads.clear()
    heads.update(new_heads)
    styles.clear()
    styles.update(new_styles)
