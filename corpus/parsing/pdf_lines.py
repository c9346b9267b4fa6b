"""The text layer of a PDF as positioned lines grouped into boxes, read with PDFium.

:mod:`deepread.corpus.parsing.pdf` builds paragraphs, headings and code blocks from these
lines; this module only answers "what text is where, in which font".

Why PDFium (``pypdfium2``) and not pdfminer.six: pdfminer parses content streams in pure
Python, and on the devset PDFs that was 2.5 s of a 13 s ingest — the largest cost next to
embedding (docs/benchmarks.md). PDFium's C++ text page gives the same characters, boxes
and font sizes in about a seventh of the time. What pdfminer's layout analysis added on
top (lines grouped into text boxes) is re-done here with pdfminer's own rules and
defaults (``LAParams``: ``char_margin`` 2.0, ``line_margin`` 0.5), so the paragraph logic
built on its boxes keeps working:

* a **line** is a run of characters on one baseline, cut where PDFium starts a new line
  or where the horizontal gap exceeds ``char_margin`` × the font size (table cells and
  side-by-side columns stay apart, as in pdfminer);
* consecutive lines form one **box** when they have about the same font size, the next
  one starts within ``line_margin`` × size below the previous (pdfminer sizes every
  character by its font size; sizes, not PDFium's glyph-following boxes, are compared),
  and it overlaps horizontally and is left-, right- or centre-aligned within that
  tolerance with some line of the box. pdfminer also groups lines that are not
  consecutive in the content stream; here boxes follow the stream, which for printed web
  pages (Chromium, the common source of PDFs users get) is the DOM's reading order.

PDFium is not thread-safe (not even across documents), so every call into it holds
:data:`PDFIUM_LOCK`; the ingest pipeline parses in a background thread.
"""

from __future__ import annotations

import ctypes
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c

__all__ = ["PDFIUM_LOCK", "Line", "PdfTextError", "extract_lines"]

#: Held around every PDFium call in the process (PDFium has global state).
PDFIUM_LOCK = threading.RLock()

_MONO_FONT = re.compile(r"mono|courier|consol|menlo|typewriter|inconsolata|code|fixed", re.I)
# pdfminer's LAParams defaults, for the same grouping.
_CHAR_MARGIN = 2.0
_LINE_MARGIN = 0.5
# PDF font descriptor flag bit 1: FixedPitch.
_FIXED_PITCH = 1
_SHAPE_TYPES = (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE,
                pdfium_c.FPDF_PAGEOBJ_FORM)


class PdfTextError(Exception):
    """PDFium could not open the file or read a page's text (message says why)."""


@dataclass(slots=True)
class Line:
    """One line of text with its box (PDF points, y up) and font facts."""

    text: str
    x0: float
    x1: float
    y0: float
    y1: float
    #: Dominant font size of the running (non-monospace) text, rounded to 0.5 pt.
    size: float
    #: Fraction of the visible characters set in a monospace font.
    mono: float
    #: Number of the text box the line belongs to on its page; -1 for synthetic lines.
    box: int
    #: A small drawn shape (a vector list bullet) sits just left of the line.
    bullet: bool
    #: Left edge of each character of ``text`` (an inserted space: the gap's left edge),
    #: to cut a line where a table column starts.
    xs: tuple[float, ...] = ()

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(slots=True)
class _Run:
    """Characters of one line in the making."""

    chars: list[str]
    xs: list[float]
    x0: float
    x1: float
    y0: float
    y1: float
    sizes: list[float]
    monos: list[bool]

    @property
    def text_started(self) -> bool:
        return bool(self.sizes)


def extract_lines(path: Path) -> list[list[Line]]:
    """The lines of every page in content-stream order; raise :class:`PdfTextError`."""
    with PDFIUM_LOCK:
        try:
            pdf = pypdfium2.PdfDocument(str(path), password="")
        except pypdfium2.PdfiumError as exc:
            raise PdfTextError(str(exc)) from exc
        try:
            return [_page(pdf, i) for i in range(len(pdf))]
        except pypdfium2.PdfiumError as exc:  # a page that cannot be loaded or read
            raise PdfTextError(str(exc)) from exc
        finally:
            pdf.close()


def _page(pdf: pypdfium2.PdfDocument, index: int) -> list[Line]:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            runs = _runs(textpage.raw)
        finally:
            textpage.close()
        shapes = _shapes(page.raw)
    finally:
        page.close()
    return _group(runs, shapes)


# The same C functions, typed to take and return a plain address: comparing text
# objects per character through ctypes pointer objects cost a fifth of the page time.
_text_object = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
    ctypes.cast(pdfium_c.FPDFText_GetTextObject, ctypes.c_void_p).value)
_object_matrix = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
    ctypes.cast(pdfium_c.FPDFPageObj_GetMatrix, ctypes.c_void_p).value)


def _runs(tp: object) -> list[_Run]:
    """Split the text page's characters into lines (PDFium order, cut at big gaps)."""
    n = pdfium_c.FPDFText_CountChars(tp)
    rect = pdfium_c.FS_RECTF()
    rect_p = ctypes.byref(rect)
    flags = ctypes.c_int()
    flags_p = ctypes.byref(flags)
    matrix = pdfium_c.FS_MATRIX()
    matrix_p = ctypes.byref(matrix)
    name_buf = ctypes.create_string_buffer(128)
    get_unicode = pdfium_c.FPDFText_GetUnicode
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    is_generated = pdfium_c.FPDFText_IsGenerated
    runs: list[_Run] = []
    cur: _Run | None = None
    last_obj: int | None = None
    mono = False
    size = 0.0
    pending_space = False
    prev_width = 0.0
    last_mono = False
    for i in range(n):
        ch = chr(get_unicode(tp, i))
        if ch.isspace() and is_generated(tp, i):  # PDFium generates only breaks and spaces
            if ch in "\r\n":
                cur = None
            else:
                pending_space = True
            continue
        if ch in "\r\n":
            cur = None
            continue
        if ch == "\x02":
            # PDFium reports a hyphen that ends a line as 0x02; it is a printed "-", and
            # whether the word was broken or is a compound is decided when lines are joined.
            ch = "-"
        get_box(tp, i, rect_p)
        x0, x1, y0, y1 = rect.left, rect.right, rect.bottom, rect.top
        if ch.isspace() and x1 - x0 <= 0:
            pending_space = True
            continue
        obj = _text_object(tp, i)
        if obj != last_obj:
            # Font and size are properties of the text object: look them up once per run.
            last_obj = obj
            pdfium_c.FPDFText_GetFontInfo(tp, i, name_buf, len(name_buf), flags_p)
            mono = (bool(flags.value & _FIXED_PITCH)
                    or _MONO_FONT.search(name_buf.value.decode("latin-1")) is not None)
            # The font size is in text space; the object's matrix (which includes the
            # page's CTM) scales it to the points the reader sees.
            scale = (math.hypot(matrix.c, matrix.d) or 1.0
                     if obj and _object_matrix(obj, matrix_p) else 1.0)
            size = pdfium_c.FPDFText_GetFontSize(tp, i) * scale
        width = x1 - x0
        if cur is not None:
            # Code is aligned by position (indentation, a column of comments): any gap
            # between monospace characters on one baseline stays inside the line.
            gap = x0 - cur.x1
            if cur.text_started and (
                    not cur.y0 <= (y0 + y1) / 2 <= cur.y1 or x0 < cur.x0 - 1
                    or (gap > _CHAR_MARGIN * max(prev_width, width)
                        and not (mono and last_mono))):
                cur = None
        if cur is None:
            cur = _Run([], [], x0, x1, y0, y1, [], [])
            runs.append(cur)
        elif mono and last_mono and width > 0 and gap > 0.5 * width:
            # Code is laid out by position, not by space glyphs: restore its columns.
            spaces = max(1, round(gap / width))
            cur.chars.append(" " * spaces)
            cur.xs.extend([cur.x1] * spaces)
        elif pending_space and cur.chars and not cur.chars[-1].isspace() and not ch.isspace():
            cur.chars.append(" ")
            cur.xs.append(cur.x1)
        pending_space = False
        prev_width = width
        last_mono = mono
        cur.chars.append(ch)
        cur.xs.append(x0)
        cur.x0, cur.x1 = min(cur.x0, x0), max(cur.x1, x1)
        cur.y0, cur.y1 = min(cur.y0, y0), max(cur.y1, y1)
        if not ch.isspace():
            cur.sizes.append(size)
            cur.monos.append(mono)
    return runs


def _shapes(page: object) -> list[tuple[float, float, float, float]]:
    """Bounds of the page's small drawn marks that may be list bullets."""
    out = []
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    for i in range(pdfium_c.FPDFPage_CountObjects(page)):
        obj = pdfium_c.FPDFPage_GetObject(page, i)
        if pdfium_c.FPDFPageObj_GetType(obj) not in _SHAPE_TYPES:
            continue
        if not pdfium_c.FPDFPageObj_GetBounds(obj, ctypes.byref(left), ctypes.byref(bottom),
                                              ctypes.byref(right), ctypes.byref(top)):
            continue
        w, h = right.value - left.value, top.value - bottom.value
        # Bullets are small, roughly square marks; link underlines and rules are flat.
        if 1.5 <= w <= 9 and 1.5 <= h <= 9 and 0.5 <= w / h <= 2:
            out.append((left.value, bottom.value, right.value, top.value))
    return out


def _half(size: float) -> float:
    """Round a font size to 0.5 pt so rendering jitter does not create new sizes."""
    return round(size * 2) / 2


def _group(runs: list[_Run], shapes: list[tuple[float, float, float, float]]) -> list[Line]:
    """Lines with their box numbers (pdfminer's neighbour rule over consecutive lines)."""
    lines: list[Line] = []
    box = -1
    members: list[Line] = []  # lines of the current box
    for run in runs:
        # "¶" at a line end is a web permalink glyph, never content.
        text = "".join(run.chars).rstrip().rstrip("¶").rstrip()
        if not text.strip() or not run.sizes:
            continue
        sizes = Counter(_half(s) for s, m in zip(run.sizes, run.monos, strict=True) if not m)
        if not sizes:  # size of the running text, not of inline code (browsers shrink it)
            sizes = Counter(_half(s) for s in run.sizes)
        bullet = any(run.x0 - 24 <= x1 <= run.x0 and run.y0 <= (y0 + y1) / 2 <= run.y1
                     for x0, y0, x1, y1 in shapes)
        line = Line(text=text, x0=run.x0, x1=run.x1, y0=run.y0, y1=run.y1,
                    size=sizes.most_common(1)[0][0], mono=sum(run.monos) / len(run.monos),
                    box=box, bullet=bullet, xs=tuple(run.xs[:len(text)]))
        if not members or not _joins(members, line):
            box += 1
            members = []
        line.box = box
        members.append(line)
        lines.append(line)
    return lines


def _joins(box: list[Line], line: Line) -> bool:
    """pdfminer's ``find_neighbors`` test, for the next line in the stream.

    pdfminer gives every character the height of its font size, so two lines are close
    when the gap between them is at most ``line_margin`` × size, i.e. their baselines are
    at most 1.5 sizes apart. PDFium's character boxes follow the glyphs for fonts without
    ascent/descent metrics, so the test is made on line centres and font sizes instead
    of box edges. Like pdfminer's transitive grouping, the line may be aligned with *any*
    line of the box (an indented line of a listing, then one back at the margin).
    """
    above = box[-1]
    d = _LINE_MARGIN * max(above.size, line.size)
    pitch = (above.y0 + above.y1 - line.y0 - line.y1) / 2
    if not (abs(above.size - line.size) <= d and 0 < pitch <= max(above.size, line.size) + d):
        return False
    return any(line.x0 < other.x1 and line.x1 > other.x0
               and (abs(other.x0 - line.x0) <= d or abs(other.x1 - line.x1) <= d
                    or abs((other.x0 + other.x1) - (line.x0 + line.x1)) / 2 <= d)
               for other in box)
