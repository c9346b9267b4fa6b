"""PDF reader: turn a PDF's text layer into :class:`Block` s in reading order.

Library choice (measured on the devset PDFs, 14-23 pages each): the text layer is read
with **PDFium** (``pypdfium2``, :mod:`deepread.corpus.parsing.pdf_lines`), with **pypdf**
for the outline, the metadata title and the encryption check.
``unstructured.partition.pdf`` (``strategy="fast"``) was the first choice, but in this
environment it cannot even be imported: its module imports ``pi_heif``, ``cv2`` and
``unstructured_inference`` (which in turn wants pandas, scipy, onnx, transformers and
torch), none of which are installed — gigabytes of dependencies for a path that only
calls pdfminer underneath. Even where it imports, its fast strategy returns
``category_depth=None`` for every title, so heading levels would have to come from a
second pass over the same file anyway. The next choice, pdfminer.six directly, gave the
same blocks as PDFium does now but took 2.5 s for the three devset PDFs against 0.6 s
(its content-stream parser is pure Python), and that was the largest ingest cost after
embedding.

How the blocks are built:

* Characters are grouped into lines and lines into text boxes with pdfminer's layout
  rules (:mod:`~deepread.corpus.parsing.pdf_lines`); a box is our first guess at a
  paragraph. Each line records its dominant font size, how much of it is monospace, and
  whether a small drawn shape (Chromium and most HTML-to-PDF printers draw list bullets
  as vector dots, not glyphs) sits just left of it.
* Lines are split into blocks at box boundaries, at bullets and at font-size changes.
  Mostly-monospace blocks become ``code`` (line breaks kept); neighbouring code boxes split
  at blank lines are merged back into one ``pre``.
* Lines repeated in the top/bottom margin on at least half the pages (digits ignored, so
  "Page 3 of 9" counts) are running headers/footers/page numbers and are dropped.
* A block that ends a page without ending a sentence and continues at the top of the next
  page in the same font and indentation is joined with it.
* Headings come from the PDF outline when there is one: titles are matched to text on
  the destination page (a section number may be missing on either side), levels are the
  outline depth, and an entry whose title is not printed still opens a section at its
  page. Otherwise they are short blocks set larger than the body text, levels ranked by
  size; a "4.8.3.2."-style number overrides the rank (depth = number of components).
  Headings before the first top-level heading (e.g. a printed sidebar's "Table of
  Contents" or "Navigation") are navigation, not structure: they are demoted to text, as
  are their later repeats.
* Rows of cells on shared baselines, aligned in columns, become one ``table`` paragraph
  in HTML, like the HTML reader's tables (:mod:`deepread.corpus.parsing.pdf_tables`).
* A block starting like a caption ("Figure 2: …", "Table 1. …") becomes a ``figure``
  paragraph or a labelled ``caption`` (:func:`deepread.corpus.parsing.figures.pdf_captions`);
  a "Table N" caption next to a detected table becomes that table's caption.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from deepread.corpus.parsing.blocks import Block, BlockKind, ParsedDocument
from deepread.corpus.parsing.figures import attach_captions, pdf_captions
from deepread.corpus.parsing.pdf_document import PdfError, read_document
from deepread.corpus.parsing.pdf_lines import Line
from deepread.corpus.parsing.pdf_tables import find_tables, table_html

__all__ = ["PdfError", "read_pdf"]


# Glyph bullets that never start an ordinary wrapped line, so they may split a box.
_STRONG_BULLET = re.compile(r"^\s*[•◦▪▫‣⁃∙●○■□►➢✓✔]\s*")
# Weaker markers ("- item", "1. item", "(a) item") count only at the start of a box,
# because a wrapped line can begin with a dash or a number.
_WEAK_MARKER = re.compile(
    r"^\s*(?:[-*–](?=\s)|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)](?=\s))")
_MARKER_ONLY = re.compile(r"^\s*(?:[•◦▪▫‣⁃∙●○■□►➢✓✔\-*–]|\(?(?:\d{1,3}|[a-zA-Z])[.)])\s*$")
# Section numbers: "4", "4.8.3.2.", "A.1" (a bare letter needs a dot, or "A Word" would match).
_NUMBERING = re.compile(r"^((?:\d{1,3}|[A-Z](?=\.\d))(?:\.\d{1,3})*)\.?\s+(?=\S)")
_SENTENCE_END = re.compile(r"[.!?:;]['\"’”)\]]*$")
_WORD = re.compile(r"[^\W\d_]+")
_USELESS_TITLE = re.compile(
    r"^(untitled|document\d*|microsoft word\b.*|.*\.(pdf|docx?|html?|tex|txt))$", re.I)

# Fraction of the page height treated as header/footer margin.
_MARGIN_BAND = 0.1


@dataclass(slots=True)
class _Para:
    lines: list[Line]
    page: int
    kind: BlockKind = "text"
    level: int | None = None
    # List items start with a marker; continuation lines sit at this x (the text column).
    text_x0: float = 0.0
    # Right edge of the text on the block's page, to tell full lines from short ones.
    right_edge: float = 0.0
    extra_pages: list[int] = field(default_factory=list)
    #: A table's cell texts, row by row.
    rows: list[list[str]] | None = None

    @property
    def size(self) -> float:
        return Counter(ln.size for ln in self.lines).most_common(1)[0][0]

    @property
    def mono(self) -> float:
        total = sum(len(ln.text.strip()) for ln in self.lines) or 1
        return sum(ln.mono * len(ln.text.strip()) for ln in self.lines) / total

    @property
    def raw(self) -> str:
        return " ".join(ln.text.strip() for ln in self.lines)


def read_pdf(path: Path) -> ParsedDocument:
    """Parse ``path`` into blocks in reading order; raise :class:`PdfError` if unreadable."""
    content = read_document(path)
    pages = [page.lines for page in content.pages]
    if not any(_WORD.search(ln.text) for page in pages for ln in page):
        raise PdfError(path, "the PDF has no extractable text; it looks scanned or image-only. "
                             "Run OCR on it first (e.g. `ocrmypdf in.pdf out.pdf`) and parse "
                             "the result.")
    _drop_running_lines(pages)
    paras = [p for i, page in enumerate(pages, start=1) for p in _segment(page, i)]
    paras = _merge_code(paras)
    paras = _join_page_breaks(paras)
    outline = [(e.title, e.level, e.page) for e in content.outline]
    if not (outline and _apply_outline(paras, outline)):
        _font_headings(paras, pages)
    vocab, hyphenated = _vocabulary(pages)
    blocks = [_to_block(p, vocab, hyphenated) for p in paras]
    blocks = attach_captions(pdf_captions([b for b in blocks if b.text]))
    return ParsedDocument(title=_title(content.title, blocks), blocks=blocks, pages=len(pages))


# --- running lines ---------------------------------------------------------------------

def _drop_running_lines(pages: list[list[Line]]) -> None:
    """Remove headers, footers and page numbers: margin lines repeated on many pages."""
    if len(pages) < 2:
        return
    tops = [max((ln.y1 for ln in page), default=0) for page in pages]
    height = max(tops) or 1

    def key(ln: Line) -> tuple[str, str] | None:
        if ln.y0 > height * (1 - _MARGIN_BAND):
            band = "top"
        elif ln.y1 < height * _MARGIN_BAND:
            band = "bottom"
        else:
            return None
        return band, re.sub(r"\d+", "#", _norm(ln.text).casefold())

    counts = Counter(k for page in pages for k in {key(ln) for ln in page} if k)
    repeated = {k for k, n in counts.items() if n >= max(2, len(pages) / 2)}
    for page in pages:
        page[:] = [ln for ln in page if key(ln) not in repeated]


# --- blocks -----------------------------------------------------------------------------

def _segment(lines: list[Line], page: int) -> Iterator[_Para]:
    """Split a page's lines into paragraphs, list items, code blocks and tables."""
    cur: _Para | None = None
    pending_marker = False
    right = max((ln.x1 for ln in lines), default=0.0)
    tables = {t.start: t for t in find_tables(lines)}
    skip_to = 0
    for i, ln in enumerate(lines):
        if i < skip_to:
            continue
        if i in tables:
            if cur is not None:
                yield cur
            table = tables[i]
            yield _Para(lines=lines[table.start:table.end], page=page, kind="table",
                        rows=table.rows)
            cur, pending_marker, skip_to = None, False, table.end
            continue
        strong = _STRONG_BULLET.match(ln.text) is not None
        new_box = cur is None or ln.box != cur.lines[-1].box
        item = ln.bullet or strong or (new_box and _WEAK_MARKER.match(ln.text) is not None)
        if cur is None or new_box or ln.bullet or strong or abs(ln.size - cur.lines[-1].size) > 1:
            if cur is not None and pending_marker:
                # A box holding only "•" or "1." is the marker of the item that follows.
                cur.lines.append(ln)
                cur.text_x0 = ln.x0
                pending_marker = False
                continue
            if cur is not None:
                yield cur
            cur = _Para(lines=[ln], page=page, kind="list_item" if item else "text", text_x0=ln.x0,
                        right_edge=right)
            pending_marker = _MARKER_ONLY.match(ln.text) is not None
        else:
            cur.lines.append(ln)
            if cur.kind == "list_item" and len(cur.lines) == 2:
                cur.text_x0 = ln.x0
    if cur is not None:
        yield cur


def _is_code(p: _Para) -> bool:
    return p.kind != "heading" and p.mono >= 0.8


def _merge_code(paras: list[_Para]) -> list[_Para]:
    """Re-join code blocks split at blank lines inside one ``pre`` (one box per run of lines)."""
    out: list[_Para] = []
    for p in paras:
        if _is_code(p):
            p.kind = "code"
        prev = out[-1] if out else None
        if (prev is not None and prev.kind == p.kind == "code" and prev.page == p.page
                and abs(prev.lines[0].x0 - p.lines[0].x0) < 2):
            gap = prev.lines[-1].y0 - p.lines[0].y1
            if 0 <= gap < 1.6 * prev.lines[-1].height:
                blank = Line("", p.lines[0].x0, p.lines[0].x0, 0, 0, p.size, 1.0, -1, False)
                prev.lines.append(blank)
                prev.lines.extend(p.lines)
                continue
        out.append(p)
    return out


def _join_page_breaks(paras: list[_Para]) -> list[_Para]:
    """Join a block cut by a page break with its continuation on the next page."""
    out: list[_Para] = []
    for p in paras:
        prev = out[-1] if out else None
        last_page = prev.extra_pages[-1] if prev and prev.extra_pages else prev.page if prev else 0
        if prev is not None and p.page == last_page + 1 and _continues(prev, p):
            prev.lines.extend(p.lines)
            prev.extra_pages.append(p.page)
            continue
        out.append(p)
    return out


def _continues(prev: _Para, nxt: _Para) -> bool:
    if nxt.kind == "list_item" or abs(prev.size - nxt.size) > 0.5:
        return False
    if prev.kind == nxt.kind == "code":
        return abs(prev.lines[0].x0 - nxt.lines[0].x0) < 3
    if ({"code", "table"} & {prev.kind, nxt.kind}
            or _SENTENCE_END.search(prev.lines[-1].text)):
        return False
    # A paragraph cut by the page break fills its last line; a short last line ("Note",
    # "Example:") means the block really ended there.
    if prev.lines[-1].x1 < 0.85 * prev.right_edge:
        return False
    column = prev.text_x0 if prev.kind == "list_item" else prev.lines[-1].x0
    return abs(column - nxt.lines[0].x0) < 3


# --- headings ---------------------------------------------------------------------------

def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _key(text: str) -> str:
    return _norm(text).rstrip("¶").strip().rstrip(".:").casefold()


def _numbering_depth(text: str) -> int | None:
    m = _NUMBERING.match(text)
    return m.group(1).count(".") + 1 if m else None


def _font_headings(paras: list[_Para], pages: list[list[Line]]) -> None:
    """Mark short blocks set larger than the body text as headings, ranked by size."""
    body = Counter()
    for page in pages:
        for ln in page:
            if ln.mono < 0.5:
                body[ln.size] += len(ln.text)
    if not body:
        return
    body_size = body.most_common(1)[0][0]
    candidates = [p for p in paras if p.kind not in ("code", "table") and len(p.lines) <= 3
                  and len(p.raw) <= 250 and p.size > body_size + 0.5 and _WORD.search(p.raw)]
    if not candidates:
        return
    rank = {s: i for i, s in enumerate(sorted({p.size for p in candidates}, reverse=True), start=1)}
    top = min(rank, key=rank.get)
    first_top = next(i for i, p in enumerate(candidates) if p.size == top)
    # Headings before the document's first top-level heading are navigation (a printed
    # sidebar, a table of contents); their later repeats are the same chrome again.
    chrome = {(_key(p.raw), p.size) for p in candidates[:first_top]}
    for p in candidates:
        if (_key(p.raw), p.size) in chrome:
            continue
        p.kind = "heading"
        p.level = _numbering_depth(p.raw) or rank[p.size]


def _apply_outline(paras: list[_Para], outline: list[tuple[str, int, int]]) -> bool:
    """Turn the blocks named by the outline into headings; False if none could be matched."""
    for p in paras:
        if p.kind == "heading":
            p.kind, p.level = "text", None
    matched = 0
    cursor = 0
    for title, level, page in outline:
        want = _key(title)
        bare = _key(_NUMBERING.sub("", title))
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
            at = next((i for i in range(cursor, len(paras)) if paras[i].page >= page), len(paras))
            fake = Line(title, 0, 0, 0, 0, 0, 0, -1, False)
            paras.insert(at, _Para(lines=[fake], page=page, kind="heading", level=level))
            cursor = at + 1
            continue
        i, k = hit
        p = paras[i]
        if k < len(p.lines):
            # The heading was grouped with the text under it: split them.
            rest = _Para(lines=p.lines[k:], page=p.page, kind=p.kind, text_x0=p.text_x0,
                         extra_pages=p.extra_pages)
            p.lines, p.extra_pages = p.lines[:k], []
            paras.insert(i + 1, rest)
        p.kind, p.level = "heading", level
        matched += 1
        cursor = i + 1
    return matched > 0


def _match_lines(p: _Para, want: str, bare: str) -> int:
    """How many leading lines of ``p`` spell the outline title (0 = no match)."""
    for k in range(1, min(len(p.lines), 4) + 1):
        key = _key(" ".join(ln.text for ln in p.lines[:k]))
        if key in (want, bare) or _key(_NUMBERING.sub("", key)) in (want, bare):
            return k
        if len(key) > len(want) + 10:
            break
    return 0


# --- text -------------------------------------------------------------------------------

def _vocabulary(pages: list[list[Line]]) -> tuple[set[str], set[str]]:
    """Words and hyphenated compounds of the document, to judge line-end hyphens."""
    text = " ".join(ln.text for page in pages for ln in page).casefold()
    return set(_WORD.findall(text)), set(re.findall(r"[^\W\d_]+-[^\W\d_]+", text))


def _join_lines(lines: list[Line], vocab: set[str], hyphenated: set[str]) -> str:
    out = ""
    for ln in lines:
        text = ln.text.strip()
        if not out:
            out = text
            continue
        m = re.search(r"(?:^|\s)(\S*?)([^\W\d_]+)-$", out)
        if m and not m.group(1) and ln.mono < 0.5 and re.match(r"[^\W\d_]", text):
            # A word broken at a line end. Drop the hyphen only when the document uses the
            # joined word and never the hyphenated one ("imple-/mentation"); keep it for
            # real compounds ("next-/to-last") and anything code-like ("--json-/lines").
            head = m.group(2)
            tail = _WORD.match(text).group(0)
            if (head + tail).casefold() in vocab and f"{head}-{tail}".casefold() not in hyphenated:
                out = out[:-1] + text
            else:
                out += text
        elif m:
            out += text
        else:
            out += " " + text
    return out


def _to_block(p: _Para, vocab: set[str], hyphenated: set[str]) -> Block:
    if p.kind == "table":
        return Block(kind="table", text=table_html(p.rows or []), page=p.page)
    if p.kind == "code":
        text = "\n".join(ln.text.rstrip() for ln in p.lines).strip("\n")
    else:
        text = _join_lines(p.lines, vocab, hyphenated)
        if p.kind == "list_item":
            text = _STRONG_BULLET.sub("", text, count=1)
            text = re.sub(r"^[-*–]\s+", "", text)
        text = _norm(text)
    if p.kind == "heading":
        text = text.rstrip("¶").strip()
    level = p.level if p.kind == "heading" else None
    return Block(kind=p.kind, text=text, level=level, page=p.page)


def _title(meta: str | None, blocks: list[Block]) -> str | None:
    """The metadata title when it says something, else the top heading."""
    meta = _norm(meta or "")
    if meta and _WORD.search(meta) and not _USELESS_TITLE.match(meta):
        return meta
    headings = [b for b in blocks if b.kind == "heading"]
    if not headings:
        return None
    top = min(b.level or 99 for b in headings)
    return next(b.text for b in headings if (b.level or 99) == top)
