"""Headings of a PDF and their levels, from every cue the page offers, no model.

Cues, in order of trust:

1. **The outline** (bookmarks): titles matched to the text on their destination page
   (a section number may be missing on either side); levels are the outline depth; an
   entry whose title is not printed still opens a section at its page.
2. **A printed table of contents**: a page whose rows end in page numbers that run
   upwards. Its own lines are the contents, not headings; its entries are looked for,
   in order, among the short blocks after it, and a block that spells an entry is a
   heading even when its typography is plain.
3. **Labels** (``PART II``, ``Item 7.``, ``Item 1A.``, ``Note 12``, ``Article 5``,
   ``Chapter 4``, ``Week 3``, ``Schedule II``, ``Exhibit 10.1``, ``1.2.3 Title``) on a
   short block of its own. Their levels are fixed by what they are, so a filing nests
   the same way whatever its fonts: Part and Exhibit 1 (an exhibit attached to a filing
   is a document of its own), Item / Article / Chapter / Week 2, Note and Section 3, a
   number ``1.2.3`` 2 + its depth.
4. **Typography**: a short block set bold (when the body is not), larger than the body
   text, or in capitals, that does not read as a sentence. Levels rank the styles
   (larger first, then bold, then capitals) below the labels: 3 + rank, at most 6.

Headings before the first top-level heading of a label-less document (a printed
sidebar's "Table of Contents" or "Navigation") are navigation, not structure, and a
heading repeated at the top of the next pages ("… (continued)") is not a new section.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

from deepread.corpus.parsing.pdf.document import OutlineEntry
from deepread.corpus.parsing.pdf.lines import Line, PageText
from deepread.corpus.parsing.pdf.paragraphs import BARE_LABEL, Para, key, norm
from deepread.corpus.parsing.structure import CONTENTS_LABELS

__all__ = ["apply_headings", "apply_outline", "label_level", "strong_label", "sub_headings",
           "toc_pages"]

_LABEL = re.compile(
    r"""^\s*(?:
      (?P<part>part)\s+(?:[ivx]{1,4}|\d{1,2})\b
    | (?P<exhibit>exhibit)\s+\d{1,3}(?:\.\d{1,3})*[a-z]?\b
    | (?P<item>items?)\s*\d{1,2}[a-c]?\b
    | (?P<chapter>chapter|article|week|unit|module|lesson|lecture|schedule|appendix|annex)
        \s+(?:[ivxlc]{1,6}|\d{1,3}|[a-z])\b
    | (?P<note>note)\s+\d{1,2}[a-z]?\b
    | (?P<section>section)\s+\d{1,3}(?:\.\d{1,3})*\b
    | (?P<num>\d{1,2}(?:\.\d{1,2}){0,3})(?:[.)]\s*|\s+)(?=[^\W\d_])
    )""", re.I | re.X)
_FIXED_LEVEL = {"part": 1, "exhibit": 1, "item": 2, "chapter": 2, "note": 3, "section": 3}
_SENTENCE_END = re.compile(r"[.!?;,]['\"’”)\]]*$")
_WORD = re.compile(r"[^\W\d_]+")
_CONTINUED = re.compile(r"\(?\bcontinued\b\)?", re.I)
_TOC_TITLE = re.compile(rf"^({CONTENTS_LABELS})\b", re.I)
# A TOC row ends in a page number, maybe after dot leaders.
_TOC_ROW_END = re.compile(r"(?:\.{2,}|…|\s)\s*(\d{1,3}|[ivxlc]{1,6})$", re.I)
_LEADERS = re.compile(r"\s*(?:\.\s*){2,}|\s*…+\s*")
#: Deepest level a heading gets.
MAX_LEVEL = 6


def label_level(text: str) -> int | None:
    """The fixed level of a labelled heading ("Item 7." -> 2), ``None`` without a label."""
    m = _LABEL.match(text)
    if not m:
        return None
    kind = m.lastgroup
    if kind == "num":
        return 2 + m.group("num").count(".") + 1
    return _FIXED_LEVEL[kind]


def strong_label(text: str) -> bool:
    """``text`` starts with a named label (Part, Item, Note, Article…), not a bare number."""
    m = _LABEL.match(text)
    return m is not None and m.lastgroup != "num"


# --- printed tables of contents -----------------------------------------------------------

def _rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped by shared baseline, top to bottom."""
    rows: list[list[Line]] = []
    for ln in sorted(lines, key=lambda ln: -(ln.y0 + ln.y1)):
        mid = (ln.y0 + ln.y1) / 2
        if rows:
            last = rows[-1][0]
            if abs((last.y0 + last.y1) / 2 - mid) <= 0.4 * max(last.size, ln.size):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return [sorted(r, key=lambda ln: ln.x0) for r in rows]


def _toc_rows(rows: list[list[Line]]) -> tuple[list[str], int, float]:
    """Entry texts of the rows ending in a page number, how many rows have words, and the
    top of the first entry."""
    entries: list[tuple[str, int]] = []
    top = 0.0
    worded = 0
    for row in rows:
        text = norm(" ".join(ln.text for ln in row))
        if not _WORD.search(text):
            continue
        worded += 1
        m = _TOC_ROW_END.search(text)
        if m and _WORD.search(text[:m.start()]):
            value = m.group(1)
            number = int(value) if value.isdigit() else 0
            entries.append((_LEADERS.sub(" ", text[:m.start()]).strip(" .…"), number))
            top = max(top, max(ln.y1 for ln in row))
    if len(entries) < 5:
        return [], worded, top
    numbers = [n for _, n in entries if n]
    rising = sum(b >= a for a, b in itertools.pairwise(numbers))
    if numbers and rising < 0.8 * (len(numbers) - 1):
        return [], worded, top
    return [t for t, _ in entries], worded, top


def toc_pages(pages: list[PageText], rows: list[list[list[Line]]] | None = None
              ) -> dict[int, tuple[list[str], float]]:
    """1-based pages that are a printed table of contents: their entries in order and the
    top of the first entry (a heading above it, "Item 8." over an index, is still one).

    A contents page has at least five rows that end in one page number, the numbers
    running upwards, and those rows are at least half its rows with words (or the page
    is titled "Contents"/"Table of Contents"/"Index"). A financial statement's rows end
    in figures too, but several per row and not in rising order.
    """
    out: dict[int, tuple[list[str], float]] = {}
    rows = rows if rows is not None else [_rows(page.lines) for page in pages]
    for i, (page, page_rows) in enumerate(zip(pages, rows, strict=True), start=1):
        entries, worded, top = _toc_rows(page_rows)
        if not entries:
            continue
        titled = any(_TOC_TITLE.match(norm(ln.text)) for ln in page.lines[:6])
        if titled or len(entries) >= 0.5 * worded:
            out[i] = (entries, top)
    return out


# --- candidates -------------------------------------------------------------------------

def _body_style(pages: list[PageText]) -> tuple[float, bool]:
    """The size and boldness of most of the document's characters."""
    counts: Counter[tuple[float, bool]] = Counter()
    for page in pages:
        for ln in page.lines:
            if ln.mono < 0.5:
                counts[(ln.size, ln.bold >= 0.5)] += len(ln.text)
    if not counts:
        return 0.0, False
    return counts.most_common(1)[0][0]


def _caps(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return (len(letters) >= 4 and sum(c.isupper() for c in letters) >= 0.9 * len(letters)
            and (len(text.split()) >= 2 or len(letters) >= 8))


@dataclass(slots=True)
class _Style:
    size: float
    bold: bool
    caps: bool


_BULLET_START = re.compile(r"^\s*[•◦▪▫‣⁃∙●○■□►➢✓✔\-*–]")


def _candidate(p: Para, body_size: float, body_bold: bool, first_on_page: bool,
               beside: set[int]) -> tuple[int | None, _Style] | None:
    """``(label level or None, style)`` when ``p`` reads as a heading, else ``None``.

    ``beside``: ids of lines that share their baseline with a table-like neighbour (a
    short cell): a column title or a row label is not a heading.
    """
    if p.kind not in ("text", "list_item", "heading") or len(p.lines) > 3:
        return None
    if any(id(ln) in beside for ln in p.lines):
        return None
    raw = norm(p.raw)
    # A wholly bold block of up to three lines is a title even as a sentence (a 10-K's
    # risk factors are headed by one bold sentence each).
    headline = p.bold >= 0.9 and not body_bold and len(raw) <= 300
    if (len(raw) > 200 and not headline) or not _WORD.search(raw) or _BULLET_START.match(raw):
        return None
    if raw.startswith("(") and raw.endswith(")"):
        return None  # "($ in millions)": a note on the figures, not a title
    bold = p.bold >= 0.6 and not body_bold
    larger = p.size >= body_size + 1
    caps = _caps(raw) and len(raw) <= 120
    style = _Style(p.size, bold, caps)
    styled = bold or larger or caps
    m = _LABEL.match(raw)
    sentence = _SENTENCE_END.search(raw) is not None
    if m:
        kind = m.lastgroup
        level = label_level(raw)
        if kind == "exhibit" and not first_on_page:
            return None  # an exhibit starts a page; elsewhere "Exhibit 10.1" is a reference
        if kind == "num":
            if styled and len(raw) <= 150 and not (sentence and len(raw) > 60):
                return level, style
            return None
        short = len(p.lines) == 1 and len(raw) <= 100
        # "Note 12 'Equity' included in Item 8 of this 10-K." (plain type, a sentence) is
        # a reference, not a title.
        if styled:
            return level, style
        if short and not sentence:
            return level, style
        if short and len(raw) <= 40:  # "Item 1A. Risk Factors."
            return level, style
        return None
    if p.kind == "list_item":
        return None
    if headline:
        return None, style
    if not styled or len(raw) > 150 or (sentence and not raw.endswith(":") and len(raw) > 40):
        return None
    if sentence and not bold and not larger:
        return None
    return None, style


def _prominence(style: tuple[float, bool, bool]) -> tuple[float, bool, bool]:
    return -style[0], not style[1], not style[2]


def _typographic_levels(styles: list[_Style]) -> dict[tuple[float, bool, bool], int]:
    """Level of each heading style: 3 + how many recurring styles stand out more.

    Only styles used at least twice take a rank of their own; a style seen once (a cover
    page's 20 pt company name) slots in by prominence without pushing the others down.
    """
    counts = Counter((s.size, s.bold, s.caps) for s in styles)
    recurring = sorted((s for s, n in counts.items() if n >= 2), key=_prominence)
    return {s: min(MAX_LEVEL, 3 + sum(_prominence(r) < _prominence(s) for r in recurring))
            for s in counts}


def _beside(rows: list[list[list[Line]]]) -> set[int]:
    """Ids of lines sharing their baseline with a short line or two others (table cells).

    A heading in the left column of a two-column page shares its baseline with a long
    prose line of the right column; that does not count.
    """
    out: set[int] = set()
    for page_rows in rows:
        for row in page_rows:
            if len(row) < 2:
                continue
            if len(row) == 2 and BARE_LABEL.match(row[0].text):
                continue  # "2." and its title, set apart by a tab
            for ln in row:
                others = [o for o in row if o is not ln]
                if len(row) >= 3 or any(len(o.text.strip()) <= 40 for o in others):
                    out.add(id(ln))
    return out


def _first_lines(paras: list[Para]) -> set[int]:
    """Indexes of paragraphs that open their page (within its first few lines)."""
    out = set()
    seen: Counter[int] = Counter()
    for i, p in enumerate(paras):
        if seen[p.page] < 4:
            out.add(i)
        seen[p.page] += len(p.lines)
    return out


def _in_contents(p: Para, tocs: dict[int, tuple[list[str], float]]) -> bool:
    """``p`` is part of a contents page's list (not a heading printed above it)."""
    return p.page in tocs and p.lines[0].y0 <= tocs[p.page][1] + 1


def _match_toc(paras: list[Para], tocs: dict[int, tuple[list[str], float]],
               heads: dict[int, int | None]) -> None:
    """Mark the blocks that spell the printed contents' entries, in order, as headings.

    Linear in entries + blocks: the first block after each contents page is found by a
    pointer that only moves forward (blocks are in page order), and a block's letters are
    computed once however many entries look at it (an entry not printed in the body looks
    at up to 400).
    """
    if not tocs:
        return
    cursor = after = 0
    spelled: dict[int, str] = {}
    for toc_page in sorted(tocs):
        while after < len(paras) and paras[after].page <= toc_page:
            after += 1
        cursor = max(cursor, after)
        for entry in tocs[toc_page][0]:
            want = _alnum(entry)
            if len(want) < 4:
                continue
            for i in range(cursor, min(len(paras), cursor + 400)):
                p = paras[i]
                if p.kind not in ("text", "list_item") or len(p.lines) > 3:
                    continue
                have = spelled.get(i)
                if have is None:
                    have = spelled[i] = _alnum(p.raw)
                if have == want or (have.startswith(want) and len(have) <= len(want) + 12):
                    heads.setdefault(i, label_level(norm(p.raw)))
                    cursor = i + 1
                    break


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _candidates(paras: list[Para], pages: list[PageText],
                skip: set[int] | frozenset[int] = frozenset()
                ) -> tuple[dict[int, tuple[list[str], float]], set[int],
                           dict[int, int | None], dict[int, _Style]]:
    """What both heading passes start from: the contents pages, the table-cell lines
    (``beside``), and the paragraphs outside contents pages and ``skip`` that labels or
    typography make headings (``heads``: label level or None; ``styles``)."""
    body_size, body_bold = _body_style(pages)
    rows = [_rows(page.lines) for page in pages]
    tocs = toc_pages(pages, rows)
    first = _first_lines(paras)
    beside = _beside(rows)
    heads: dict[int, int | None] = {}
    styles: dict[int, _Style] = {}
    for i, p in enumerate(paras):
        if i in skip or _in_contents(p, tocs):
            continue
        found = _candidate(p, body_size, body_bold, i in first, beside)
        if found is not None:
            heads[i], styles[i] = found
    return tocs, beside, heads, styles


def apply_headings(paras: list[Para], pages: list[PageText]) -> None:
    """Mark headings among ``paras`` by labels, contents pages and typography (in place)."""
    tocs, beside, heads, styles = _candidates(paras, pages)
    if len(heads) < len(pages):
        # Typography says little (a syllabus typed in one font): short lines standing
        # alone with space above them are the headings.
        _standalone(paras, pages, tocs, beside, heads, styles)
    else:
        # Where one section still holds a large part of the document, look for the same
        # weaker cues inside it only.
        big = _in_big_sections(paras, heads)
        if big:
            _standalone(paras, pages, tocs, beside, heads, styles, big)
    _match_toc(paras, tocs, heads)
    _label_with_title(paras, heads)
    for i in heads:
        styles.setdefault(i, _Style(paras[i].size, paras[i].bold >= 0.6, _caps(paras[i].raw)))
    ranks = _typographic_levels([styles[i] for i, lvl in heads.items() if lvl is None])
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


_SHORT_END = re.compile(r"[.,;!?]['\"’”)\]]*$")


def _standalone_text(text: str) -> bool:
    """Could be a title: short, capitalised, no sentence end (a colon only after <= 4 words)."""
    words = text.split()
    return (0 < len(words) <= 8 and len(text) <= 60 and text[:1].isupper()
            and not _SHORT_END.search(text) and (not text.endswith(":") or len(words) <= 4))


#: Share of the document's text above which a section is searched for weaker cues.
BIG_SECTION = 0.3


def _in_big_sections(paras: list[Para], heads: dict[int, int | None]) -> set[int]:
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


def _standalone(paras: list[Para], pages: list[PageText],
                tocs: dict[int, tuple[list[str], float]], beside: set[int],
                heads: dict[int, int | None], styles: dict[int, _Style],
                only: set[int] | None = None) -> None:
    """Mark short lines that stand alone, with extra space above, as headings (in place).

    A short first line of a block whose second line starts under it ("Textbook" over its
    paragraph, grouped in one box) is split off first.
    """
    def split_title(p: Para, prev: Para | None) -> tuple[Para, int | None] | None:
        if only is not None and id(p) not in only:
            return None
        if not (p.kind == "text" and len(p.lines) > 1
                and _standalone_text(norm(p.lines[0].text))
                and p.lines[0].x1 < 0.6 * max(p.right_edge, 1)
                and abs(p.lines[1].x0 - p.lines[0].x0) < 2
                and p.lines[1].x1 >= 0.8 * max(p.right_edge, 1)):
            return None
        rest = Para(lines=p.lines[1:], page=p.page, kind="text", text_x0=p.text_x0,
                    right_edge=p.right_edge, extra_pages=p.extra_pages)
        p.lines, p.extra_pages = p.lines[:1], []
        if only is not None:
            only.add(id(rest))  # the part split off keeps its paragraph's place
        return rest, _UNMARKED

    _split_pass(paras, heads, styles, split_title)
    levels = _typographic_levels(list(styles.values()))
    weak_level = min(MAX_LEVEL, max(levels.values(), default=2) + 1)
    _run_in(paras, tocs, heads, weak_level, only)
    for i, p in enumerate(paras):
        if only is not None and id(p) not in only:
            continue
        if (i in heads or p.kind != "text" or len(p.lines) != 1 or _in_contents(p, tocs)
                or id(p.lines[0]) in beside or not _standalone_text(norm(p.raw))):
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


def _run_in(paras: list[Para], tocs: dict[int, tuple[list[str], float]],
            heads: dict[int, int | None], level: int, only: set[int] | None = None) -> None:
    """Split run-in headings off their paragraphs and mark them (in place)."""
    def split(p: Para, prev: Para | None) -> tuple[Para, int | None] | None:
        if only is not None and id(p) not in only:
            return None
        m = _RUN_IN.match(p.lines[0].text) if p.kind == "text" and p.lines else None
        if m is None or _in_contents(p, tocs):
            return None
        words = m.group(1).split()
        capitalised = sum(w[:1].isupper() for w in words)
        # After a sentence's end only: a wrapped reference or a sentence cut by a page
        # break starts with capitalised words too.
        ended = prev is None or not prev.lines or prev.kind != "text" or \
            _SENTENCE_END.search(prev.lines[-1].text.rstrip()) is not None
        if (len(words) > 2 and capitalised < 0.5 * len(words)) or not ended:
            return None
        first = p.lines[0]
        cut = m.end()
        # The title keeps the separator the page printed ("Exams:", "Late policy."): it is
        # also the contextual header of the paragraph (structure.py), which should read
        # as the page does, "Exams: Two preliminary exams.", not "Exams / Two …".
        printed = m.group(1) + m.group(2)
        head = Line(printed, first.x0, first.x0, first.y0, first.y1, first.size, first.mono,
                    first.box, False, first.xs[:len(printed)], first.bold)
        rest = Line(first.text[cut:], first.x0, first.x1, first.y0, first.y1, first.size,
                    first.mono, first.box, first.bullet, first.xs[cut:], first.bold,
                    first.bold_end)
        body = Para(lines=[rest, *p.lines[1:]], page=p.page, kind="text", text_x0=p.text_x0,
                    right_edge=p.right_edge, extra_pages=p.extra_pages)
        p.lines, p.extra_pages = [head], []
        if only is not None:
            only.add(id(body))
        return body, level

    _split_pass(paras, heads, {}, split)


#: ``_split_pass``: the first part is not marked as a heading by the split itself.
_UNMARKED = -1


def _split_pass(paras: list[Para], heads: dict[int, int | None], styles: dict[int, _Style],
                split) -> None:
    """Split paragraphs in one pass (``split(p, prev)`` -> ``(rest, level)`` or ``None``),
    renumbering ``heads`` and ``styles`` once: inserting into the list per split, and
    shifting every index after it, made thousands of run-in headings quadratic."""
    out: list[Para] = []
    new_heads: dict[int, int | None] = {}
    new_styles: dict[int, _Style] = {}
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


def _label_with_title(paras: list[Para], heads: dict[int, int | None]) -> None:
    """A bare label heading ("NOTE 1") takes the title printed on the line below it."""
    for i in sorted(heads):
        nxt = i + 1
        if (nxt in heads and heads[nxt] is None and BARE_LABEL.match(norm(paras[i].raw))
                and paras[nxt].page == paras[i].page):
            paras[i].lines = paras[i].lines + paras[nxt].lines
            paras[nxt].lines = []
            del heads[nxt]


def _drop_navigation(paras: list[Para], heads: dict[int, int | None],
                     styles: dict[int, _Style], ranks: dict[tuple[float, bool, bool], int]
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


# --- outline ----------------------------------------------------------------------------

_NUMBERING = re.compile(r"^((?:\d{1,3}|[A-Z](?=\.\d))(?:\.\d{1,3})*)\.?\s+(?=\S)")


def apply_outline(paras: list[Para], outline: list[OutlineEntry]) -> bool:
    """Turn the blocks named by the outline into headings; False if none could be matched."""
    matched = 0
    cursor = 0
    for entry in outline:
        title, level, page = entry.title, entry.level, entry.page
        want = key(title)
        bare = key(_NUMBERING.sub("", title))
        hit = None
        for i in range(cursor, len(paras)):
            p = paras[i]
            if p.page > page + 1:
                break
            if p.page < page or p.kind in ("code", "table"):
                continue
            k = _match_lines(p, want, bare)
            if k:
                hit = (i, k)
                break
        if hit is None:
            # The title is not printed as text (or is an image): keep the section anyway.
            at = next((i for i in range(cursor, len(paras)) if paras[i].page >= page),
                      len(paras))
            fake = Line(title, 0, 0, 0, 0, 0, 0, -1, False)
            paras.insert(at, Para(lines=[fake], page=page, kind="heading", level=level))
            cursor = at + 1
            continue
        i, k = hit
        p = paras[i]
        if k < len(p.lines):
            # The heading was grouped with the text under it: split them.
            rest = Para(lines=p.lines[k:], page=p.page, kind=p.kind, text_x0=p.text_x0,
                        right_edge=p.right_edge, extra_pages=p.extra_pages)
            p.lines, p.extra_pages = p.lines[:k], []
            paras.insert(i + 1, rest)
        p.kind, p.level = "heading", level
        matched += 1
        cursor = i + 1
    return matched > 0


def _match_lines(p: Para, want: str, bare: str) -> int:
    """How many leading lines of ``p`` spell the outline title (0 = no match)."""
    for k in range(1, min(len(p.lines), 4) + 1):
        got = key(" ".join(ln.text for ln in p.lines[:k]))
        if got in (want, bare) or key(_NUMBERING.sub("", got)) in (want, bare):
            return k
        if len(got) > len(want) + 10:
            break
    return 0


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
        _standalone(paras, pages, tocs, beside, heads, styles)
        outline = {i for i, p in enumerate(paras) if p.kind == "heading"}
        for i in outline:
            heads.pop(i, None)
    ranks = _typographic_levels(list(styles.values()))
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
