"""Headings of a PDF and their levels, from every cue the page offers, no model.

This module combines the cues; each cue is a module of its own. In order of trust:

1. **The outline** (bookmarks, :mod:`~deepread.corpus.parsing.pdf.outline`): titles
   matched to the text on their destination page (a section number may be missing on
   either side); levels are the outline depth; an entry whose title is not printed still
   opens a section at its page.
2. **A printed table of contents** (:mod:`~deepread.corpus.parsing.pdf.contents`): a page
   whose rows end in page numbers that run upwards. Its own lines are the contents, not
   headings; its entries are looked for, in order, among the short blocks after it, and
   a block that spells an entry is a heading even when its typography is plain.
3. **Labels** (:mod:`~deepread.corpus.parsing.pdf.labels`): ``PART II``, ``Item 7.``,
   ``Item 1A.``, ``Note 12``, ``Article 5``, ``Chapter 4``, ``Week 3``, ``Schedule II``,
   ``Exhibit 10.1``, ``1.2.3 Title`` on a short block of its own. Their levels are fixed
   by what they are, so a filing nests the same way whatever its fonts: Part and
   Exhibit 1 (an exhibit attached to a filing is a document of its own), Item / Article
   / Chapter / Week 2, Note and Section 3, a number ``1.2.3`` 2 + its depth.
4. **Typography** (:mod:`~deepread.corpus.parsing.pdf.typography`): a short block set
   bold (when the body is not), larger than the body text, or in capitals, that does not
   read as a sentence. Levels rank the styles (larger first, then bold, then capitals)
   below the labels: 3 + rank, at most 6. Where typography says little (one font
   throughout), short lines standing alone and run-in titles are the headings
   (:mod:`~deepread.corpus.parsing.pdf.standalone`).

Two kinds of candidate are text, whatever their typography: the lines of an SEC form's
cover page (:mod:`~deepread.corpus.parsing.pdf.cover`; the line naming the form stays,
holding the cover) and pieces of a title cut where a line wrapped ("Fair Value at",
:mod:`~deepread.corpus.parsing.pdf.fragments`).

Headings before the first top-level heading of a label-less document (a printed
sidebar's "Table of Contents" or "Navigation") are navigation, not structure, and a
heading repeated at the top of the next pages ("… (continued)") is not a new section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deepread.corpus.parsing.pdf.contents import in_contents, match_toc, toc_pages
from deepread.corpus.parsing.pdf.cover import cover_heading, cover_pages
from deepread.corpus.parsing.pdf.fragments import fragment
from deepread.corpus.parsing.pdf.labels import label_kind
from deepread.corpus.parsing.pdf.lines import PageText, baseline_rows
from deepread.corpus.parsing.pdf.paragraphs import BARE_LABEL, Para, key, norm
from deepread.corpus.parsing.pdf.standalone import in_big_sections, standalone
from deepread.corpus.parsing.pdf.typography import (
    MAX_LEVEL,
    Style,
    beside_cells,
    body_style,
    candidate,
    capitals,
    first_lines,
    typographic_levels,
)

__all__ = ["apply_headings", "sub_headings"]

_CONTINUED = re.compile(r"\(?\bcontinued\b\)?", re.I)


def _candidates(
    paras: list[Para], pages: list[PageText], skip: set[int] | frozenset[int] = frozenset()
) -> tuple[dict[int, tuple[list[str], float]], set[int], dict[int, int | None], dict[int, Style]]:
    """What both heading passes start from: the contents pages, the table-cell lines
    (``beside``), and the paragraphs outside contents pages and ``skip`` that labels or
    typography make headings (``heads``: label level or None; ``styles``)."""
    body_size, body_bold = body_style(pages)
    rows = [baseline_rows(page.lines) for page in pages]
    tocs = toc_pages(pages, rows)
    first = first_lines(paras)
    beside = beside_cells(rows)
    heads: dict[int, int | None] = {}
    styles: dict[int, Style] = {}
    for i, p in enumerate(paras):
        if i in skip or in_contents(p, tocs):
            continue
        found = candidate(p, body_size, body_bold, i in first, beside)
        if found is not None:
            heads[i], styles[i] = found
    return tocs, beside, heads, styles


def apply_headings(paras: list[Para], pages: list[PageText]) -> None:
    """Mark headings among ``paras`` by labels, contents pages and typography (in place)."""
    tocs, beside, heads, styles = _candidates(paras, pages)
    if len(heads) < len(pages):
        # Typography says little (a syllabus typed in one font): short lines standing
        # alone with space above them are the headings.
        standalone(paras, pages, tocs, beside, heads, styles)
    else:
        # Where one section still holds a large part of the document, look for the same
        # weaker cues inside it only.
        big = in_big_sections(paras, heads)
        if big:
            standalone(paras, pages, tocs, beside, heads, styles, big)
    _drop_noise(paras, heads, list(heads))
    match_toc(paras, tocs, heads)
    _label_with_title(paras, heads)
    for i in heads:
        styles.setdefault(i, Style(paras[i].size, paras[i].bold >= 0.6, capitals(paras[i].raw)))
    ranks = typographic_levels([styles[i] for i, lvl in heads.items() if lvl is None])
    labelled = any(lvl is not None and lvl <= 2 for lvl in heads.values())
    if not labelled:
        _drop_navigation(paras, heads, styles, ranks)
    last_key: dict[int, str] = {}
    for i in sorted(heads):
        p = paras[i]
        level = heads[i]
        if level is None:
            s = styles[i]
            level = ranks[(s.size, s.bold, s.caps)]
        k = key(_CONTINUED.sub("", p.raw))
        if _CONTINUED.search(p.raw) or last_key.get(level) == k:
            continue  # a heading repeated over its section's pages
        last_key[level] = k
        p.kind, p.level = "heading", level


def _drop_noise(paras: list[Para], heads: dict[int, int | None], known: Iterable[int]) -> None:
    """Candidates that are an SEC cover's lines or pieces of a wrapped title are text.

    On the cover pages (:func:`~deepread.corpus.parsing.pdf.cover.cover_pages`, found
    with the headings ``known`` so far) every candidate but a label (Part, Item, Note…)
    is dropped, numbered ones too (an address: "1 Water Street"), except the line naming
    the form when no other heading is there (``known`` beyond ``heads``: an outline's):
    one section holds the cover. Elsewhere a candidate ending on a word that needs
    another (:func:`~deepread.corpus.parsing.pdf.fragments.fragment`) is dropped.
    """
    known = set(known)
    cover = cover_pages(paras, known)

    def labelled(i: int) -> bool:
        return label_kind(norm(paras[i].raw)) not in (None, "num")

    on_cover = [i for i in sorted(heads) if paras[i].page in cover and not labelled(i)]
    named = any(paras[i].page in cover for i in known - set(heads))  # an outline's entry
    kept = None
    if on_cover and not named:
        kept = next((i for i in on_cover if cover_heading(norm(paras[i].raw))), on_cover[0])
    for i in on_cover:
        if i != kept:
            del heads[i]
    for i in sorted(heads):
        if paras[i].page not in cover and not labelled(i) and fragment(norm(paras[i].raw)):
            del heads[i]


def _label_with_title(paras: list[Para], heads: dict[int, int | None]) -> None:
    """A bare label heading ("NOTE 1") takes the title printed on the line below it."""
    for i in sorted(heads):
        nxt = i + 1
        if (
            nxt in heads
            and heads[nxt] is None
            and BARE_LABEL.match(norm(paras[i].raw))
            and paras[nxt].page == paras[i].page
        ):
            paras[i].lines = paras[i].lines + paras[nxt].lines
            paras[nxt].lines = []
            del heads[nxt]


def _drop_navigation(
    paras: list[Para],
    heads: dict[int, int | None],
    styles: dict[int, Style],
    ranks: dict[tuple[float, bool, bool], int],
) -> None:
    """Headings before the first top-level one are a printed sidebar, and so are repeats."""
    order = sorted(heads)
    if not order:
        return

    def level(i: int) -> int:
        lvl = heads[i]
        if lvl is not None:
            return lvl
        s = styles[i]
        return ranks[(s.size, s.bold, s.caps)]

    top = min(level(i) for i in order)
    first_top = next(i for i in order if level(i) == top)
    chrome = {(key(paras[i].raw), paras[i].size) for i in order if i < first_top}
    for i in order:
        if (key(paras[i].raw), paras[i].size) in chrome:
            del heads[i]


def sub_headings(paras: list[Para], pages: list[PageText]) -> None:
    """Below an outline: typographic and labelled headings the outline does not name.

    An outline often stops at Items; the notes and an Item's own headings are still
    printed. They nest under the outline entry they follow (its level + their rank).
    """
    outline = {i for i, p in enumerate(paras) if p.kind == "heading"}
    tocs, beside, heads, styles = _candidates(paras, pages, skip=outline)
    if len(heads) < len(pages):
        # Typography says little under the outline: short lines standing alone and run-in
        # titles, as without an outline (they come back marked at a level below the rest).
        for i in outline:
            heads[i] = paras[i].level
        standalone(paras, pages, tocs, beside, heads, styles)
        outline = {i for i, p in enumerate(paras) if p.kind == "heading"}
        for i in outline:
            heads.pop(i, None)
    # Where the outline names the cover, none of the cover's lines is a heading.
    _drop_noise(paras, heads, [*heads, *outline])
    ranks = typographic_levels(list(styles.values()))
    weak = max(ranks.values(), default=2) + 1 - 2
    current = 0
    last_key: dict[int, str] = {}
    for i, p in enumerate(paras):
        if i in outline:
            current = p.level or 1
            last_key.clear()
            continue
        if i not in heads:
            continue
        if i in styles:
            s = styles[i]
            rank = ranks[(s.size, s.bold, s.caps)] - 2 if heads[i] is None else 1
        else:
            rank = weak
        level = min(MAX_LEVEL + 2, current + rank)
        k = key(_CONTINUED.sub("", p.raw))
        if _CONTINUED.search(p.raw) or last_key.get(level) == k:
            continue
        last_key[level] = k
        p.kind, p.level = "heading", level
