"""PDF reader: turn a PDF's text layer into :class:`Block` s in reading order.

Why it is built this way:

* **PDFium, opened once** (:mod:`~deepread.corpus.parsing.pdf.document`): it gives the
  text layer, the outline and the metadata title in one pass, in C. Pure-Python
  parsers (pdfminer.six, pypdf) were 4-7x slower on the same files, and
  ``unstructured``'s PDF path needs gigabytes of optional dependencies (OpenCV, torch)
  only to call pdfminer underneath. Character data comes in bulk
  (:mod:`~deepread.corpus.parsing.pdf.lines`): a 10-K's 150+ pages parse at the speed
  of PDFium's own text layer, not of a Python loop per character.
* **Long filings and syllabi are the target**, not only printed web pages: their
  structure is in labels ("PART II", "Item 7.", "Note 12"), bold or larger lines, and a
  printed table of contents, rarely in an outline
  (:mod:`~deepread.corpus.parsing.pdf.headings`); their tables are financial statements
  whose rows must keep label and figures together (:mod:`~deepread.corpus.parsing.pdf.tables`);
  their pages carry running headers, page numbers and "Table of Contents" back-links that
  are not text (:mod:`~deepread.corpus.parsing.pdf.margins`).

The steps, per document:

1. Lines of every page; furniture (headers, footers, page numbers) removed.
2. Per page, tables first (rows of cells aligned in columns, statements with their
   figures), then paragraphs: lines split into blocks at box boundaries (pdfminer's
   rules), bullets and the next marker of a list
   (:mod:`~deepread.corpus.parsing.pdf.lists`), size or weight changes; a label alone on
   a baseline ("Item 1.") joined with the title beside it; a paragraph's indented first
   line, a list item's wrapped lines and the lines of a document set at 1.5 or double
   spacing (:mod:`~deepread.corpus.parsing.pdf.leading`) joined with the rest; pages
   whose text runs in two columns read column by column.
3. Blocks joined across page breaks when a sentence runs on; code boxes split at blank
   lines merged into one ``pre``.
4. Headings: the outline when it names printed text (plus the labelled and typographic
   headings under its entries), else labels, the printed contents and typography.
5. Lines joined into text, line-end hyphenation undone where the document says so
   (:mod:`~deepread.corpus.parsing.pdf.words`); captions attached to their tables and
   figures (:func:`deepread.corpus.parsing.figures.pdf_captions`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from deepread.corpus.parsing.blocks import Block, ParsedDocument
from deepread.corpus.parsing.figures import attach_captions, pdf_captions
from deepread.corpus.parsing.pdf.columns import reading_order
from deepread.corpus.parsing.pdf.document import PdfError, read_document
from deepread.corpus.parsing.pdf.headings import apply_headings, sub_headings
from deepread.corpus.parsing.pdf.labels import strong_label
from deepread.corpus.parsing.pdf.leading import Leading, leading
from deepread.corpus.parsing.pdf.lines import Line, PageText, baseline_rows
from deepread.corpus.parsing.pdf.lists import (
    MARKER_ONLY,
    STRONG_BULLET,
    WEAK_MARKER,
    Marker,
    marker_of,
    text_column,
)
from deepread.corpus.parsing.pdf.margins import drop_running_lines
from deepread.corpus.parsing.pdf.outline import apply_outline
from deepread.corpus.parsing.pdf.paragraphs import BARE_LABEL, Para, norm
from deepread.corpus.parsing.pdf.tables import find_figure_tables, find_tables, table_html
from deepread.corpus.parsing.pdf.words import Vocabulary, join_lines, vocabulary
from deepread.corpus.parsing.places import LineBox
from deepread.corpus.parsing.structure import CONTENTS_HEADING

__all__ = ["PdfError", "read_pdf"]


_SENTENCE_END = re.compile(r"[.!?:;]['\"’”)\]]*$")
_WORD = re.compile(r"[^\W\d_]+")
# A contents row: leader dots (or an ellipsis) up to a page number. It fills its line
# by design, so being full says nothing about the next row.
_CONTENTS_ROW = re.compile(r"(?:(?:\.\s*){3,}|…+\s*)(?:\d{1,4}|[ivxlc]{1,6})$", re.I)
_USELESS_TITLE = re.compile(
    r"^(untitled|document\d*|microsoft word\b.*|.*\.(pdf|docx?|html?|tex|txt))$", re.I
)


def read_pdf(path: Path) -> ParsedDocument:
    """Parse ``path`` into blocks in reading order; raise :class:`PdfError` if unreadable."""
    content = read_document(path)
    pages = content.pages
    if not any(_WORD.search(ln.text) for page in pages for ln in page.lines):
        raise PdfError(
            path,
            "the PDF has no extractable text; it looks scanned or image-only. "
            "Run OCR on it first (e.g. `ocrmypdf in.pdf out.pdf`) and parse "
            "the result.",
        )
    drop_running_lines(pages)
    for number, page in enumerate(pages, start=1):
        page.lines[:] = reading_order(page.lines, page.width)
        for ln in page.lines:
            ln.page = number
    spacing = leading(pages)
    paras: list[Para] = []
    for i, page in enumerate(pages, start=1):
        paras.extend(
            _join_indented(_merge_labels(list(_segment(page.lines, i, page.width))), spacing)
        )
    paras = _merge_code(paras)
    paras = _join_page_breaks(paras)
    if not (content.outline and apply_outline(paras, content.outline)):
        apply_headings(paras, pages)
    else:
        sub_headings(paras, pages)
    paras = [p for p in paras if p.lines]
    vocab = vocabulary(pages)
    blocks = [_to_block(p, vocab, pages) for p in paras]
    blocks = _absorb_lone_figures([b for b in blocks if b.text])
    blocks = attach_captions(pdf_captions(blocks))
    return ParsedDocument(
        title=_title(content.title, blocks),
        blocks=blocks,
        pages=len(pages),
        metadata=content.metadata,
    )


# --- blocks -----------------------------------------------------------------------------


def _segment(lines: list[Line], page: int, width: float) -> Iterator[Para]:
    """Split a page's lines into paragraphs, list items, code blocks and tables."""
    cur: Para | None = None
    pending_marker = False
    right = max((ln.x1 for ln in lines), default=0.0)
    edges: dict[int, float] = {}
    figures = find_figure_tables(lines)
    members = {i for t in figures for i in t.members}
    taken = {id(lines[i]) for i in members}
    starts = {t.start: t for t in figures}
    tables = {
        t.start: t for t in find_tables(lines) if not members.intersection(range(t.start, t.end))
    }
    skip_to = 0
    # The last list item's marker and its x: a line starting with the next marker there
    # is the next item, even inside a box (see pdf/lists.py).
    last: tuple[Marker, float] | None = None
    for i, ln in enumerate(lines):
        if i < skip_to:
            continue
        if i in starts or i in tables:
            if cur is not None:
                yield cur
            cur, pending_marker, last = None, False, None
            if i in starts:
                fig = starts[i]
                yield Para(
                    lines=[lines[m] for m in fig.members],
                    page=page,
                    kind="table",
                    rows=fig.rows,
                    caption=_caption(lines, fig.members, taken, width),
                )
            else:
                table = tables[i]
                yield Para(
                    lines=lines[table.start : table.end], page=page, kind="table", rows=table.rows
                )
                skip_to = table.end
            continue
        if i in members:
            continue
        strong = STRONG_BULLET.match(ln.text) is not None
        new_box = cur is None or ln.box != cur.lines[-1].box
        marker = marker_of(ln.text)
        nxt = (
            marker is not None
            and last is not None
            and last[0].followed_by(marker)
            and abs(ln.x0 - last[1]) <= 0.25 * ln.size
        )
        # A list's first marker ("1)", "a.", a dash) after a line that ended ("…the
        # following:") opens the list even inside a box; a wrapped line never starts so.
        nxt = nxt or (
            marker is not None
            and marker.ordinal <= 1
            and cur is not None
            and _SENTENCE_END.search(cur.lines[-1].text) is not None
        )
        item = ln.bullet or strong or nxt or (new_box and WEAK_MARKER.match(ln.text) is not None)
        if (
            cur is None
            or new_box
            or ln.bullet
            or strong
            or nxt
            or abs(ln.size - cur.lines[-1].size) > 1
            or _weight_changes(cur.lines[-1], ln)
            or _label_starts(cur.lines[-1], ln)
            or _label_ends(cur, ln, right)
            or _indent_starts(cur, ln)
        ):
            if cur is not None and pending_marker:
                # A box holding only "•" or "1." is the marker of the item that follows.
                cur.lines.append(ln)
                cur.text_x0 = ln.x0
                pending_marker = False
                continue
            if cur is not None:
                yield cur
            cur = Para(
                lines=[ln],
                page=page,
                kind="list_item" if item else "text",
                text_x0=text_column(ln) if item else ln.x0,
                right_edge=_right_edge(lines, ln, right, edges),
            )
            pending_marker = MARKER_ONLY.match(ln.text) is not None
            if item and marker is not None:
                last = (marker, ln.x0)
        else:
            cur.lines.append(ln)
            if cur.kind == "list_item" and len(cur.lines) == 2:
                cur.text_x0 = ln.x0
    if cur is not None:
        yield cur


def _caption(lines: list[Line], members: list[int], taken: set[int], width: float) -> str | None:
    """A table's title: the short title-like lines right above it (bold, centred, caps).

    A statement reads "Consolidated Statements of Cash Flows / ($ in millions)" above its
    rows; the caption makes the table findable by that title.
    """
    inside = set(members)
    top = max(lines[i].y1 for i in members)
    size = lines[members[0]].size
    above = sorted(
        (ln for i, ln in enumerate(lines) if i not in inside and ln.y0 >= top - 1),
        key=lambda ln: ln.y0,
    )
    picked: list[Line] = []
    edge = top
    for ln in above:
        if (
            ln.y0 - edge > 3 * max(size, ln.size)
            or len(ln.text) > 100
            or id(ln) in taken
            or any(c.isdigit() for c in ln.text[-3:])
        ):
            break
        centred = abs((ln.x0 + ln.x1) / 2 - width / 2) < 0.1 * width
        if not (ln.bold >= 0.6 or centred or ln.text.isupper()):
            break
        picked.append(ln)
        edge = ln.y1
        if len(picked) == 3:
            break
    if not picked:
        return None
    return norm(" ".join(ln.text for ln in reversed(picked)))


def _label_starts(above: Line, line: Line) -> bool:
    """``line`` opens a labelled part ("Item 1. Business" under "PART I") after a line
    that ended (a bare label, a sentence); "…discussed in / Item 7 of this report" does
    not."""
    return strong_label(line.text) and (
        BARE_LABEL.match(above.text) is not None
        or strong_label(above.text)
        or _SENTENCE_END.search(above.text) is not None
    )


def _indent_starts(cur: Para, line: Line) -> bool:
    """``line`` starts a new paragraph in the same box: the line above stopped short (the
    next word would have fitted, so the break was deliberate) and either ended a sentence
    or this line starts further right or left (an indented first line, a run-in title
    back at the margin). A list item's first wrapped line moves right to the item's text
    column by design: that is no new paragraph."""
    above = cur.lines[-1]
    if above.mono >= 0.5:
        return False
    if (
        cur.kind == "list_item"
        and len(cur.lines) == 1
        and abs(line.x0 - cur.text_x0) <= 0.5 * line.size
    ):
        return False
    moved = abs(line.x0 - above.x0) > 0.8 * line.size
    if len(cur.lines) < 2 and not moved:
        return False
    first_word = line.text.split(" ", 1)[0]
    short = above.x1 + len(first_word) * 0.5 * line.size < cur.right_edge - 0.5 * line.size
    return short and (moved or _SENTENCE_END.search(above.text) is not None)


def _label_ends(cur: Para, line: Line, right: float) -> bool:
    """``cur`` is a short labelled line standing alone ("Note 2 - Revenue"): its title."""
    first = cur.lines[0]
    return (
        len(cur.lines) == 1
        and strong_label(first.text)
        and first.x1 < 0.7 * right
        and line.x1 > first.x1
    )


def _weight_changes(above: Line, line: Line) -> bool:
    """A wholly bold line next to a plain one: a heading above its text, or the reverse.

    A line with a few bold words is neither, with one exception: a mostly plain line that
    ends in plain type (a run-in title's line, "**Grading:** 15% homework, 50% labs")
    above a wholly bold line. The bold line stands alone: a bold phrase that wraps
    onto it would end the line above in bold type.
    """
    if (above.bold >= 0.9) == (line.bold >= 0.9):
        return False
    if min(above.bold, line.bold) < 0.1:
        return True
    return line.bold >= 0.9 and above.bold < 0.5 and not above.bold_end


def _right_edge(lines: list[Line], line: Line, page_right: float, cache: dict[int, float]) -> float:
    """Right edge of the text column ``line`` is in: the farthest line starting near it.

    Paragraphs of a page start at a few x positions; ``cache`` (by whole point) keeps the
    page's cost linear in its lines instead of lines x paragraphs.
    """
    at = round(line.x0)
    if at not in cache:
        cache[at] = max(
            (ln.x1 for ln in lines if abs(ln.x0 - at) < 40 and ln.x1 > at), default=page_right
        )
    return cache[at]


def _merge_labels(paras: list[Para]) -> list[Para]:
    """Join a label or a cell with the text beside it on its baseline.

    - A bare label ("Item 1.", "PART II", "Note 3") and the title beside it.
    - A row set with tabs: a schedule's "Th | 9/23 | John Okada, No-No Boy (1957)", a
      form's "Office: | GSE 439". Each piece is a box of its own, so each came out a
      paragraph: a lone "9/23" that no question about the reading matches, and a
      reading no question naming the day finds. A one-line paragraph of a few words
      (:func:`_is_cell`) followed by text starting to its right on the same baseline,
      in the same type, is one row: the text's wrapped lines below stay with it.
      Aligned rows of cells were taken as tables before this step.
    """
    out: list[Para] = []
    for p in paras:
        prev = out[-1] if out else None
        # prev is one line, or the cells of one row so far ("Th", "9/23").
        if (
            prev is not None
            and prev.kind in ("text", "list_item")
            and p.kind == "text"
            and all(_same_baseline(ln, p.lines[0]) for ln in prev.lines)
            and p.lines[0].x0 > prev.lines[-1].x1
        ):
            label, beside = prev.lines[-1], p.lines[0]
            if len(prev.lines) == 1 and len(p.lines) == 1 and BARE_LABEL.match(label.text):
                gap = " " * max(1, round((beside.x0 - label.x1) / max(label.size * 0.25, 1)))
                prev.lines[0] = Line(
                    f"{label.text}{gap}{beside.text}",
                    label.x0,
                    beside.x1,
                    min(label.y0, beside.y0),
                    max(label.y1, beside.y1),
                    label.size,
                    0.0,
                    label.box,
                    label.bullet,
                    bold=min(label.bold, beside.bold),
                    bold_end=beside.bold_end,
                    page=label.page,
                )
                prev.kind = "text"
                continue
            if _is_cell(label, beside):
                # The cells stay lines of their own: the heading pass knows them as
                # cells (a row of a table is no title), and the text joins them.
                prev.lines.extend(p.lines)
                continue
        out.append(p)
    return out


#: Most characters in the first cell of a tab-set row: a day, a date, a week, a short key
#: ("Th", "9/23", "Fri, Sep. 3", "Office hours:"). A longer line beside a text is a title
#: of its own ("Consolidated Balance Sheets" left of the company's name) or a column.
_CELL_CHARS = 16


def _is_cell(label: Line, beside: Line) -> bool:
    """``label`` is the first cell of a row whose next cell is ``beside``: a few words,
    no numbered label ("Section 1.2" heads the clause beside it), in the size and weight
    of the text beside it (a bold run-in heading left of its text stays a heading)."""
    text = label.text.strip()
    return (
        len(text) <= _CELL_CHARS
        and BARE_LABEL.match(text) is None
        and not strong_label(text)
        and abs(label.size - beside.size) <= 1
        and not _weight_changes(label, beside)
        and label.mono < 0.5
    )


def _same_baseline(a: Line, b: Line) -> bool:
    return abs((a.y0 + a.y1) - (b.y0 + b.y1)) / 2 <= 0.4 * max(a.size, b.size)


def _join_indented(paras: list[Para], spacing: Leading) -> list[Para]:
    """Join a paragraph cut into boxes by its indentation or its line spacing.

    pdfminer's box rule needs lines aligned on some edge and at most 1.5 font sizes
    apart. An indented first line of a ragged-right paragraph aligns with nothing below
    it, the indented continuation lines of a hanging-indent paragraph (a reference list,
    a list item's wrapped lines) with nothing above them, and in a document set at 1.5
    or double spacing no two lines are close enough: each comes out as a box of its
    own. The next box continues the paragraph when it starts one line below (at most
    the document's own leading, :mod:`~deepread.corpus.parsing.pdf.leading`), in the
    same font, and the line above it was full (its next word would not have fitted):
    a line that stops short ends its paragraph, wherever the next one starts.
    """
    out: list[Para] = []
    for p in paras:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind in ("text", "list_item")
            and p.kind == "text"
            and _runs_on(prev, p.lines[0], spacing)
        ):
            prev.lines.extend(p.lines)
            continue
        out.append(p)
    return out


def _runs_on(prev: Para, below: Line, spacing: Leading) -> bool:
    """``below`` continues the paragraph ``prev``."""
    above = prev.lines[-1]
    if abs(above.size - below.size) > 0.5 or _weight_changes(above, below):
        return False
    pitch = above.pitch_to(below)
    if not 0 < pitch <= spacing.limit(max(above.size, below.size)):
        return False
    first_word = below.text.split(" ", 1)[0]
    full = above.x1 + len(first_word) * 0.5 * below.size >= prev.right_edge - 0.5 * below.size
    if not full or _CONTENTS_ROW.search(above.text):
        return False
    if prev.kind == "list_item":
        # A list item goes on only at its text column; a line back at the marker's x
        # (or further left) after the last item is the text after the list.
        return abs(below.x0 - prev.text_x0) <= 0.5 * below.size
    if len(prev.lines) == 1 and below.x0 <= above.x0 + 0.5 * below.size:
        return below.x0 >= above.x0 - 4 * below.size  # an indented first line
    if abs(below.x0 - above.x0) <= 0.5 * below.size:
        # Aligned with the paragraph's body lines: one more line of it when no further
        # below than the document's own leading (the boxes split only because its lines
        # are further apart than the box rule allows; a wider gap is a paragraph break).
        return pitch <= spacing.strict(max(above.size, below.size))
    # A hanging indent: every line after the first sits further right.
    first = prev.lines[0]
    return (
        below.x0 > first.x0 + 0.5 * below.size
        and all(abs(ln.x0 - below.x0) < 2 for ln in prev.lines[1:])
        and not _SENTENCE_END.search(above.text)
    )


def _is_code(p: Para) -> bool:
    return p.kind != "heading" and p.mono >= 0.8


def _merge_code(paras: list[Para]) -> list[Para]:
    """Re-join code blocks split at blank lines inside one ``pre`` (one box per run of lines)."""
    out: list[Para] = []
    for p in paras:
        if _is_code(p):
            p.kind = "code"
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == p.kind == "code"
            and prev.page == p.page
            and abs(prev.lines[0].x0 - p.lines[0].x0) < 2
        ):
            gap = prev.lines[-1].y0 - p.lines[0].y1
            if 0 <= gap < 1.6 * prev.lines[-1].height:
                blank = Line("", p.lines[0].x0, p.lines[0].x0, 0, 0, p.size, 1.0, -1, False)
                prev.lines.append(blank)
                prev.lines.extend(p.lines)
                continue
        out.append(p)
    return out


def _join_page_breaks(paras: list[Para]) -> list[Para]:
    """Join a block cut by a page break with its continuation on the next page."""
    out: list[Para] = []
    for p in paras:
        prev = out[-1] if out else None
        last_page = prev.extra_pages[-1] if prev and prev.extra_pages else prev.page if prev else 0
        if prev is not None and p.page == last_page + 1 and _continues(prev, p):
            prev.lines.extend(p.lines)
            prev.extra_pages.append(p.page)
            continue
        out.append(p)
    return out


def _continues(prev: Para, nxt: Para) -> bool:
    if nxt.kind == "list_item" or abs(prev.size - nxt.size) > 0.5:
        return False
    if prev.kind == nxt.kind == "code":
        return abs(prev.lines[0].x0 - nxt.lines[0].x0) < 3
    if {"code", "table"} & {prev.kind, nxt.kind} or _SENTENCE_END.search(prev.lines[-1].text):
        return False
    # A paragraph cut by the page break fills its last line; a short last line ("Note",
    # "Example:") means the block really ended there.
    if prev.lines[-1].x1 < 0.85 * prev.right_edge:
        return False
    column = prev.text_x0 if prev.kind == "list_item" else prev.lines[-1].x0
    return abs(column - nxt.lines[0].x0) < 3


def _line_boxes(p: Para, pages: list[PageText]) -> tuple[LineBox, ...]:
    """Where ``p``'s lines are on their pages as shown (a table's: its rows)."""
    lines = [ln for ln in p.lines if ln.text and ln.page]
    if p.kind == "table":
        groups: list[list[Line]] = []
        for number in dict.fromkeys(ln.page for ln in lines):
            groups.extend(baseline_rows([ln for ln in lines if ln.page == number]))
    else:
        groups = [[ln] for ln in lines]
    out = []
    for group in groups:
        a, b, c, d, e, f = pages[group[0].page - 1].shown
        x0, x1 = min(ln.x0 for ln in group), max(ln.x1 for ln in group)
        y0, y1 = min(ln.y0 for ln in group), max(ln.y1 for ln in group)
        # the corners of the group's box on the page as shown (a rotated page swaps axes)
        xs = [a * x + c * y + e for x, y in ((x0, y0), (x1, y1), (x0, y1), (x1, y0))]
        ys = [b * x + d * y + f for x, y in ((x0, y0), (x1, y1), (x0, y1), (x1, y0))]
        chars = sum(len(ln.text) + 1 for ln in group)
        out.append(LineBox(group[0].page, min(xs), min(ys), max(xs), max(ys), chars))
    return tuple(out)


def _to_block(p: Para, vocab: Vocabulary, pages: list[PageText]) -> Block:
    lines = _line_boxes(p, pages)
    if p.kind == "table":
        html = table_html(p.rows or [])
        if p.caption:
            return Block(
                kind="table",
                text=f"{p.caption}\n{html}",
                page=p.page,
                caption=p.caption,
                lines=lines,
            )
        return Block(kind="table", text=html, page=p.page, lines=lines)
    if p.kind == "code":
        text = "\n".join(ln.text.rstrip() for ln in p.lines).strip("\n")
    else:
        # A list item keeps the marker the page printed ("• Backcasting", "* Available on
        # Moodle."): it is the document's text (a quote of the page holds it) and it tells
        # a reader the paragraph is one of a list. Markup readers (HTML, Markdown, DOCX)
        # have no printed marker: there the list is markup, and their text is the item's.
        text = norm(join_lines(p.lines, vocab))
    if p.kind == "heading":
        text = text.rstrip("¶").strip()
    level = p.level if p.kind == "heading" else None
    return Block(kind=p.kind, text=text, level=level, page=p.page, lines=lines)


_LONE_FIGURE = re.compile(r"[\s$€£¥()\d,.%—–-]*")


def _absorb_lone_figures(blocks: list[Block]) -> list[Block]:
    """No paragraph of a figure alone: a chart's labels ("20%", "1,821") join their
    neighbours on the page (the text before them, else the next), so retrieval never
    returns a bare number and the figures stay in reading order."""
    out: list[Block] = []
    pending: list[Block] = []

    def flush(nxt: Block | None) -> None:
        if not pending:
            return
        text = " ".join(b.text for b in pending)
        lines = tuple(ln for b in pending for ln in b.lines)
        page = pending[0].page
        prev = out[-1] if out else None
        if prev is not None and prev.kind in ("text", "list_item") and prev.page == page:
            prev.text = f"{prev.text} {text}"
            prev.lines += lines
        elif nxt is not None and nxt.kind in ("text", "list_item") and nxt.page == page:
            nxt.text = f"{text} {nxt.text}"
            nxt.lines = lines + nxt.lines
        else:
            out.append(Block("text", text, page=page, lines=lines))
        pending.clear()

    for b in blocks:
        if b.kind in ("text", "list_item") and _LONE_FIGURE.fullmatch(b.text):
            if pending and pending[-1].page != b.page:
                flush(None)
            pending.append(b)
            continue
        flush(b)
        out.append(b)
    flush(None)
    return out


def _title(meta: str | None, blocks: list[Block]) -> str | None:
    """The metadata title when it says something, else the first page's main heading
    (a contents label is never one: :data:`~deepread.corpus.parsing.structure.
    CONTENTS_HEADING`)."""
    meta = norm(meta or "")
    if meta and _WORD.search(meta) and not _USELESS_TITLE.match(meta):
        return meta
    headings = [b for b in blocks if b.kind == "heading" and not CONTENTS_HEADING.match(b.text)]
    if not headings:
        return None
    first_page = [b for b in headings if b.page == headings[0].page and (b.level or 99) >= 3]
    if first_page and headings[0].page == 1:
        return first_page[0].text
    top = min(b.level or 99 for b in headings)
    return next(b.text for b in headings if (b.level or 99) == top)
