"""The text layer of one PDF page as positioned lines grouped into boxes, read with PDFium.

:mod:`deepread.corpus.parsing.pdf.reader` builds paragraphs, headings and tables from these
lines; this module only answers "what text is where, in which font".

Why it is built this way:

* **Bulk, not per character.** A 10-K page holds ~3,000 characters; a Python loop that
  asks PDFium for each character's code, box, object and font (the obvious way) ran at
  ~17 pages/s, slower than PDFium itself. Here the page text comes in one
  ``FPDFText_GetText`` call, the character boxes are written by PDFium straight into a
  NumPy array (one C call per character, driven by ``map`` so no Python bytecode runs per
  character), and everything else — spaces, line breaks, gaps, run boundaries — is
  array arithmetic. Font facts (size, monospace, bold) are properties of the *text
  object* a character belongs to, so they are read once per object (and once per font
  for its name and flags), not once per character.
* **pdfminer's grouping rules** (``LAParams``: ``char_margin`` 2.0, ``line_margin`` 0.5),
  re-done on PDFium's characters, because the paragraph logic was built on them:

  - a **line** is a run of characters on one baseline, cut where PDFium starts a new
    line or where the horizontal gap exceeds ``char_margin`` × the character width (table
    cells and side-by-side columns stay apart);
  - consecutive lines form one **box** when they have about the same font size, the
    next one starts within ``line_margin`` × size below the previous (sizes, not PDFium's
    glyph-following boxes, are compared), and it overlaps horizontally and is left-,
    right- or centre-aligned within that tolerance with some line of the box. Boxes
    follow the content stream, which for printed web pages and most filings is the
    reading order.

PDFium is not thread-safe (not even across documents), so every call into it holds
:data:`PDFIUM_LOCK`; the ingest pipeline parses in a background thread.
"""

from __future__ import annotations

import ctypes
import re
import threading
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import pypdfium2.raw as pdfium_c

__all__ = ["BULLET_GLYPHS", "PDFIUM_LOCK", "Line", "PageText", "PdfTextError", "read_page",
           "regroup"]

#: Held around every PDFium call in the process (PDFium has global state).
PDFIUM_LOCK = threading.RLock()
#: Printed list-bullet glyphs (a drawn bullet is :attr:`Line.bullet` instead).
BULLET_GLYPHS = "•◦▪▫‣⁃∙●○■□►➢✓✔"

_MONO_FONT = re.compile(r"mono|courier|consol|menlo|typewriter|inconsolata|code|fixed", re.I)
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|[-,]bd\b|extrab", re.I)
# pdfminer's LAParams defaults, for the same grouping.
_CHAR_MARGIN = 2.0
_LINE_MARGIN = 0.5
# PDF font descriptor flags: FixedPitch (bit 1) and ForceBold (bit 19).
_FIXED_PITCH = 1
_FORCE_BOLD = 1 << 18
_FILL_STROKE = 2  # text render mode "fill, then stroke": how many printers fake bold
_SHAPE_TYPES = (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE,
                pdfium_c.FPDF_PAGEOBJ_FORM)
_NEWLINES = np.array([0x0A, 0x0D, 0x85, 0x2028, 0x2029], dtype=np.uint32)
_SPACES = np.array([0x09, 0x0B, 0x0C, 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F,
                    0x205F, 0x3000], dtype=np.uint32)


class PdfTextError(Exception):
    """PDFium could not read a page's text (message says why)."""


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
    xs: np.ndarray | tuple[float, ...] = ()
    #: Fraction of the visible characters set in a bold face.
    bold: float = 0.0
    #: The last visible character is bold: a bold phrase runs on to the next line, where
    #: a line ending in plain type after a bold run-in title ("Grading: 15% homework") does
    #: not.
    bold_end: bool = False

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def pitch_to(self, below: Line) -> float:
        """How far ``below``'s centre line sits under this one's (points; a baseline
        distance that does not depend on glyph boxes)."""
        return (self.y0 + self.y1 - below.y0 - below.y1) / 2


@dataclass(slots=True)
class PageText:
    """A page's lines in content-stream order and the page's size in points."""

    lines: list[Line] = field(default_factory=list)
    width: float = 612.0
    height: float = 792.0


def _cfunc(restype: object, *argtypes: object, fn: object) -> object:
    """``fn`` re-typed to take and return plain integers (addresses), for ``map``.

    pypdfium2's bindings take typed pointers; converting each argument costs more than
    the C call itself when it is made once per character.
    """
    return ctypes.CFUNCTYPE(restype, *argtypes)(ctypes.cast(fn, ctypes.c_void_p).value)


_P, _I, _F = ctypes.c_size_t, ctypes.c_int, ctypes.c_double
_loose_box = _cfunc(_I, _P, _I, _P, fn=pdfium_c.FPDFText_GetLooseCharBox)
_text_object = _cfunc(_P, _P, _I, fn=pdfium_c.FPDFText_GetTextObject)
_is_generated = _cfunc(_I, _P, _I, fn=pdfium_c.FPDFText_IsGenerated)
_unicode = _cfunc(ctypes.c_uint, _P, _I, fn=pdfium_c.FPDFText_GetUnicode)
_font_size = _cfunc(_F, _P, _I, fn=pdfium_c.FPDFText_GetFontSize)
_object_matrix = _cfunc(_I, _P, _P, fn=pdfium_c.FPDFPageObj_GetMatrix)
_object_font = _cfunc(_P, _P, fn=pdfium_c.FPDFTextObj_GetFont)
_render_mode = _cfunc(_I, _P, fn=pdfium_c.FPDFTextObj_GetTextRenderMode)
_page_object = _cfunc(_P, _P, _I, fn=pdfium_c.FPDFPage_GetObject)
_object_type = _cfunc(_I, _P, fn=pdfium_c.FPDFPageObj_GetType)
_object_bounds = _cfunc(_I, _P, _P, _P, _P, _P, fn=pdfium_c.FPDFPageObj_GetBounds)
_count_chars = _cfunc(_I, _P, fn=pdfium_c.FPDFText_CountChars)
_get_text = _cfunc(_I, _P, _I, _I, _P, fn=pdfium_c.FPDFText_GetText)
_font_name = _cfunc(ctypes.c_ulong, _P, _P, ctypes.c_ulong, fn=pdfium_c.FPDFFont_GetBaseFontName)
_font_flags = _cfunc(_I, _P, fn=pdfium_c.FPDFFont_GetFlags)
_font_weight = _cfunc(_I, _P, fn=pdfium_c.FPDFFont_GetWeight)


def _address(handle: object) -> int:
    return ctypes.cast(handle, ctypes.c_void_p).value or 0


def read_page(doc: object, index: int) -> PageText:
    """Lines of page ``index`` (0-based) of the open PDFium document ``doc``.

    The caller holds :data:`PDFIUM_LOCK`.
    """
    page = pdfium_c.FPDF_LoadPage(doc, index)
    if not page:
        raise PdfTextError(f"page {index + 1} cannot be loaded")
    try:
        textpage = pdfium_c.FPDFText_LoadPage(page)
        if not textpage:
            raise PdfTextError(f"the text of page {index + 1} cannot be read")
        try:
            runs = _runs(_address(textpage))
        finally:
            pdfium_c.FPDFText_ClosePage(textpage)
        shapes = _shapes(_address(page), pdfium_c.FPDFPage_CountObjects(page))
        width, height = pdfium_c.FPDF_GetPageWidthF(page), pdfium_c.FPDF_GetPageHeightF(page)
    finally:
        pdfium_c.FPDF_ClosePage(page)
    return PageText(_group(runs, shapes), float(width), float(height))


@dataclass(slots=True)
class _Run:
    """One line in the making: its text, each character's left edge, box and font facts."""

    text: str
    xs: np.ndarray
    x0: float
    x1: float
    y0: float
    y1: float
    #: Most common size (0.5 pt steps) of the running text; 0 when nothing is visible.
    size: float
    mono: float
    bold: float
    bold_end: bool


def _page_text(tp: int, n: int) -> np.ndarray:
    """The page's characters as code points, one per PDFium character index."""
    buf = ctypes.create_string_buffer(2 * (n + 1))
    got = _get_text(tp, 0, n, ctypes.addressof(buf))
    text = buf.raw[:2 * max(0, got - 1)].decode("utf-16-le", "surrogatepass")
    if len(text) == n:
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    else:  # characters outside the BMP or without Unicode: ask per character
        codes = np.fromiter(map(_unicode, repeat(tp), range(n)), dtype=np.uint32, count=n)
    # PDFium reports a hyphen that ends a line as 0x02 (0xFFFE in the bulk text); it is a
    # printed "-", and whether a word was broken is decided when lines are joined.
    codes[(codes == 0x02) | (codes == 0xFFFE)] = ord("-")
    return codes


def _fonts(tp: int, objs: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, ...]:
    """Size (points), monospace and bold of each text object (``first``: a char of it)."""
    k = len(objs)
    matrices = np.zeros((k, 6), dtype=np.float32)
    ok = np.fromiter(map(_object_matrix, objs.tolist(),
                         range(matrices.ctypes.data, matrices.ctypes.data + 24 * k, 24)),
                     dtype=np.int32, count=k)
    # The font size is in text space; the object's matrix (which includes the page's CTM)
    # scales it to the points the reader sees.
    scale = np.where(ok != 0, np.hypot(matrices[:, 2], matrices[:, 3]), 1.0)
    scale[scale == 0] = 1.0
    sizes = np.fromiter(map(_font_size, repeat(tp), first.tolist()), dtype=np.float64,
                        count=k) * scale
    fonts = list(map(_object_font, objs.tolist()))
    modes = list(map(_render_mode, objs.tolist()))
    facts = {f: _font_facts(f) for f in set(fonts)}
    mono = np.array([facts[f][0] for f in fonts], dtype=bool)
    bold = np.array([facts[f][1] or m == _FILL_STROKE for f, m in zip(fonts, modes,
                                                                       strict=True)], dtype=bool)
    return sizes, mono, bold


def _font_facts(font: int) -> tuple[bool, bool]:
    """(monospace, bold) of one PDFium font handle."""
    if not font:
        return False, False
    name_buf = ctypes.create_string_buffer(256)
    got = _font_name(font, ctypes.addressof(name_buf), len(name_buf))
    name = name_buf.value.decode("latin-1") if got else ""
    flags = _font_flags(font)
    weight = _font_weight(font)
    mono = bool(flags & _FIXED_PITCH) or _MONO_FONT.search(name) is not None
    bold = bool(flags & _FORCE_BOLD) or weight >= 600 or _BOLD_FONT.search(name) is not None
    return mono, bold


def _fetch_boxes(tp: int, boxes: np.ndarray, which: np.ndarray) -> None:
    """Fill ``boxes[which]`` with PDFium's loose character boxes (one C call each)."""
    if not len(which):
        return
    tmp = np.zeros((len(which), 4), dtype=np.float32)  # FS_RECTF: left, top, right, bottom
    base = tmp.ctypes.data
    for _ in map(_loose_box, repeat(tp), which.tolist(),
                 range(base, base + 16 * len(which), 16)):
        pass
    boxes[which] = tmp


def _word_boxes(tp: int, codes: np.ndarray, newline: np.ndarray, space: np.ndarray
                ) -> np.ndarray:
    """Every character's box, asking PDFium only for the first and last of each word.

    Lines are cut, cells told apart and spaces restored at gaps, and PDFium puts a space
    or a line break of its own into every gap wider than a fraction of a character; so
    inside a word (characters with nothing between them) there is no gap to find, and
    its characters are laid out evenly between its first and last. Spaces are asked
    too: a printed space with a width is text, one without is only a word break.
    """
    n = len(codes)
    boxes = np.zeros((n, 4), dtype=np.float32)
    # Hyphens end words too: PDFium marks a line-end hyphen but may not add a line break
    # after it, and "pretty-" / "printed" then sit on two lines.
    hyphen = codes == ord("-")
    letter = ~newline & ~space & ~hyphen
    start = letter.copy()
    start[1:] &= ~letter[:-1]
    end = letter.copy()
    end[:-1] &= ~letter[1:]
    _fetch_boxes(tp, boxes, np.flatnonzero(start | end | space | hyphen))
    starts, ends = np.flatnonzero(start), np.flatnonzero(end)
    # A "word" whose ends are not on one baseline, left to right, was broken over lines
    # without a mark: ask for each of its characters.
    height = np.maximum(boxes[starts, 1] - boxes[starts, 3], 1e-3)
    broken = ((np.abs(boxes[ends, 3] - boxes[starts, 3]) > 0.5 * height)
              | (boxes[ends, 2] < boxes[starts, 0]))
    if broken.any():
        whole = np.concatenate([np.arange(a + 1, b) for a, b in
                                zip(starts[broken].tolist(), ends[broken].tolist(),
                                    strict=True)] or [np.zeros(0, dtype=np.int64)])
        _fetch_boxes(tp, boxes, whole.astype(np.int64))
        start[whole] = True
        end[whole] = True
    inner = letter & ~start & ~end
    if inner.any():
        starts, ends = np.flatnonzero(start), np.flatnonzero(end)
        word = np.cumsum(start) - 1  # word number of every character (valid on letters)
        idx = np.flatnonzero(inner)
        a, b = starts[word[idx]], ends[word[idx]]
        frac = ((idx - a) / (b - a + 1)).astype(np.float32)
        step = ((boxes[b, 2] - boxes[a, 0]) / (b - a + 1)).astype(np.float32)
        boxes[idx, 0] = boxes[a, 0] + frac * (boxes[b, 2] - boxes[a, 0])
        boxes[idx, 2] = boxes[idx, 0] + step
        boxes[idx, 1] = boxes[a, 1]
        boxes[idx, 3] = boxes[a, 3]
    return boxes


def _char_fonts(tp: int, kept: np.ndarray, boxes: np.ndarray, space: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Size, monospace and bold of every kept character.

    Asking PDFium which text object each character belongs to is the costliest call left
    (some producers make every glyph an object of its own). Fonts change at word starts,
    and a change of font or size inside a word changes the character's loose box (its
    height comes from the font's ascent and descent, its bottom from the baseline), so
    only those characters are asked; the others take the answer of the one before.
    """
    height = boxes[kept, 1] - boxes[kept, 3]
    bottom = boxes[kept, 3]
    ask = np.ones(len(kept), dtype=bool)
    ask[1:] = ((np.diff(kept) > 1) | space[kept[:-1]]
               | (np.abs(np.diff(height)) > 0.05) | (np.abs(np.diff(bottom)) > 0.5))
    asked = np.flatnonzero(ask)
    objs = np.fromiter(map(_text_object, repeat(tp), kept[asked].tolist()), dtype=np.uint64,
                       count=len(asked))
    uniq, first_pos, inverse = np.unique(objs, return_index=True, return_inverse=True)
    sizes_u, mono_u, bold_u = _fonts(tp, uniq, kept[asked[first_pos]])
    # Each character takes the answer of the last asked character at or before it.
    owner = np.maximum.accumulate(np.where(ask, np.arange(len(kept)), 0))
    which = np.empty(len(kept), dtype=np.int64)
    which[asked] = inverse
    which = which[owner]
    return sizes_u[which], mono_u[which], bold_u[which]


def _runs(tp: int) -> list[_Run]:
    """Split the text page's characters into lines (PDFium order, cut at big gaps)."""
    n = _count_chars(tp)
    if n <= 0:
        return []
    codes = _page_text(tp, n)
    newline = np.isin(codes, _NEWLINES)
    space = np.isin(codes, _SPACES)
    boxes = _word_boxes(tp, codes, newline, space)
    width = boxes[:, 2] - boxes[:, 0]
    # A space PDFium generated (between words it judged apart) or one without width only
    # says "a space goes here"; a printed space with a width is kept as a character.
    skip_space = space & (width <= 0)
    wide = np.flatnonzero(space & (width > 0))
    if len(wide):
        generated = np.fromiter(map(_is_generated, repeat(tp), wide.tolist()), dtype=np.int32,
                                count=len(wide))
        skip_space[wide[generated != 0]] = True
    kept = np.flatnonzero(~newline & ~skip_space & (codes != 0))
    if not len(kept):
        return []
    size, mono, bold = _char_fonts(tp, kept, boxes, space)

    x0, top, x1, y0 = (boxes[kept, c].astype(np.float64) for c in range(4))
    y1 = top
    w = x1 - x0
    mid = (y0 + y1) / 2
    # What lies between a kept character and the one before it: a line break, a space.
    nl_cum = np.cumsum(newline)[kept]
    sp_cum = np.cumsum(skip_space)[kept]
    nl_before = np.diff(nl_cum, prepend=0) > 0
    sp_before = np.diff(sp_cum, prepend=0) > 0
    gap = np.empty_like(x0)
    gap[0] = 0.0
    gap[1:] = x0[1:] - x1[:-1]
    both_mono = np.zeros(len(kept), dtype=bool)
    both_mono[1:] = mono[1:] & mono[:-1]
    off_line = np.zeros(len(kept), dtype=bool)
    # Neither character's middle lies within the other's height: another baseline. (A
    # superscript's middle lies within its neighbour's box, so it stays on the line.)
    off_line[1:] = (((mid[1:] < y0[:-1]) | (mid[1:] > y1[:-1]))
                    & ((mid[:-1] < y0[1:]) | (mid[:-1] > y1[1:])))
    backwards = np.zeros(len(kept), dtype=bool)
    backwards[1:] = x0[1:] < x0[:-1] - 1
    wmax = np.zeros(len(kept))
    wmax[1:] = np.maximum(w[1:], w[:-1])
    far = (gap > _CHAR_MARGIN * wmax) & ~both_mono
    cut = nl_before | off_line | backwards | far
    cut[0] = True
    # Code is laid out by position, not by space glyphs: restore its columns.
    code_gap = both_mono & (w > 0) & (gap > 0.5 * np.where(w > 0, w, 1))
    n_spaces = np.where(code_gap, np.maximum(1, np.round(gap / np.where(w > 0, w, 1))), 0)
    is_space = space[kept]
    plain_space = sp_before & ~code_gap
    plain_space[1:] &= ~is_space[1:] & ~is_space[:-1]
    n_spaces = np.where(plain_space, 1, n_spaces).astype(np.int64)
    n_spaces[cut] = 0
    return _assemble(np.flatnonzero(cut), codes[kept], n_spaces, x0, x1, y0, y1, size, mono,
                     bold, is_space)


def _assemble(starts: np.ndarray, codes: np.ndarray, n_spaces: np.ndarray, x0: np.ndarray,
              x1: np.ndarray, y0: np.ndarray, y1: np.ndarray, size: np.ndarray,
              mono: np.ndarray, bold: np.ndarray, is_space: np.ndarray) -> list[_Run]:
    """The runs starting at ``starts``: text with the spaces put back, and their facts."""
    n = len(codes)
    is_start = np.zeros(n, dtype=bool)
    is_start[starts] = True
    run_of = np.cumsum(is_start) - 1
    # Text: the kept characters decoded in one call, the inserted spaces put in at the
    # (few) places that have them; each run is then a slice of that one string.
    base = codes.astype("<u4").tobytes().decode("utf-32-le", "replace")
    pieces: list[str] = []
    prev = 0
    for i in np.flatnonzero(n_spaces).tolist():
        pieces.append(base[prev:i])
        pieces.append(" " * int(n_spaces[i]))
        prev = i
    pieces.append(base[prev:])
    full = "".join(pieces)
    # Left edge of every output character; an inserted space sits at the gap's left edge.
    prev_x1 = np.concatenate(([0.0], x1[:-1]))
    width = n_spaces + 1
    xs = np.repeat(prev_x1, width)
    out_end = np.cumsum(width)
    xs[out_end - 1] = x0
    out_start = np.concatenate(([0], out_end[starts[1:] - 1])) if len(starts) > 1 else \
        np.array([0])
    out_stop = np.concatenate((out_end[starts[1:] - 1], [out_end[-1]]))
    texts = [full[a:b] for a, b in zip(out_start.tolist(), out_stop.tolist(), strict=True)]
    lo_x, hi_x = np.minimum.reduceat(x0, starts), np.maximum.reduceat(x1, starts)
    lo_y, hi_y = np.minimum.reduceat(y0, starts), np.maximum.reduceat(y1, starts)
    visible = ~is_space
    n_vis = np.bincount(run_of, weights=visible, minlength=len(starts))
    mono_f = np.bincount(run_of, weights=visible & mono, minlength=len(starts)) / \
        np.maximum(n_vis, 1)
    bold_f = np.bincount(run_of, weights=visible & bold, minlength=len(starts)) / \
        np.maximum(n_vis, 1)
    # Index of each run's last visible character (-1: none), in one pass over the runs.
    last_vis = np.maximum.reduceat(np.where(visible, np.arange(n), -1), starts)
    bold_end = (last_vis >= 0) & bold[np.maximum(last_vis, 0)]
    run_size = _mode_size(run_of, np.round(size * 2) / 2, visible, mono, len(starts))
    return [_Run(texts[r], xs[out_start[r]:out_stop[r]], float(lo_x[r]), float(hi_x[r]),
                 float(lo_y[r]), float(hi_y[r]), max(float(run_size[r]), 0.5) if n_vis[r] else 0.0,
                 float(mono_f[r]), float(bold_f[r]), bool(bold_end[r]))
            for r in range(len(starts))]


def _mode_size(run_of: np.ndarray, half: np.ndarray, visible: np.ndarray, mono: np.ndarray,
               n_runs: int) -> np.ndarray:
    """Most common font size of each run's running text (monospace only if nothing else).

    Browsers shrink inline code, so the size of a line is that of its prose.
    """
    prose = visible & ~mono
    has_prose = np.bincount(run_of, weights=prose, minlength=n_runs) > 0
    use = np.where(has_prose[run_of], prose, visible)
    r, h = run_of[use], half[use]
    out = np.zeros(n_runs)
    if not len(r):
        return out
    # One integer per (run, size in half points): a 1-D unique is far cheaper than 2-D.
    halves = np.clip(np.round(h * 2), 0, 4095).astype(np.int64)
    keys, counts = np.unique(r.astype(np.int64) * 4096 + halves, return_counts=True)
    runs, sizes = keys // 4096, (keys % 4096) / 2
    # Per run, the size with the largest count; on a tie the larger one (a label with a
    # footnote marker, "net(1)", is set in the label's size, not the marker's).
    order = np.lexsort((-sizes, -counts, runs))
    first = order[np.concatenate(([True], np.diff(runs[order]) != 0))]
    out[runs[first]] = sizes[first]
    return out


#: Pages with more objects than this are not searched for drawn bullets (see _shapes).
MAX_SHAPE_SCAN = 1500


def _shapes(page: int, count: int) -> np.ndarray:
    """Bounds (x0, y0, x1, y1) of the page's small drawn marks that may be list bullets.

    Browsers draw list bullets as little vector dots; every page object has to be asked
    its type to find them. Pages of thousands of objects come from printers that place
    every glyph as an object of its own (some filing printers: 4,000 per page), whose
    bullets are glyphs ("•") the text already holds; scanning them cost a fifth of the
    parse, so they are skipped.
    """
    if count <= 0 or count > MAX_SHAPE_SCAN:
        return np.zeros((0, 4))
    objs = list(map(_page_object, repeat(page), range(count)))
    types = list(map(_object_type, objs))
    marks = [o for o, t in zip(objs, types, strict=True) if t in _SHAPE_TYPES]
    if not marks:
        return np.zeros((0, 4))
    k = len(marks)
    bounds = np.zeros((k, 4), dtype=np.float32)
    b = bounds.ctypes.data
    for _ in map(_object_bounds, marks, range(b, b + 16 * k, 16), range(b + 4, b + 16 * k, 16),
                 range(b + 8, b + 16 * k, 16), range(b + 12, b + 16 * k, 16)):
        pass
    w, h = bounds[:, 2] - bounds[:, 0], bounds[:, 3] - bounds[:, 1]
    # Bullets are small, roughly square marks; link underlines and rules are flat.
    small = (w >= 1.5) & (w <= 9) & (h >= 1.5) & (h <= 9) & (w <= 2 * h) & (h <= 2 * w)
    return bounds[small].astype(np.float64)


def _group(runs: list[_Run], shapes: np.ndarray) -> list[Line]:
    """Lines with their box numbers (pdfminer's neighbour rule over consecutive lines)."""
    lines: list[Line] = []
    box = -1
    members: list[Line] = []  # lines of the current box
    sx1 = shapes[:, 2]
    smid = (shapes[:, 1] + shapes[:, 3]) / 2
    for run in runs:
        # "¶" at a line end is a web permalink glyph, never content.
        text = run.text.rstrip().rstrip("¶").rstrip()
        if not text.strip() or not run.size:
            continue
        bullet = bool(len(shapes)) and bool(np.any(
            (sx1 >= run.x0 - 24) & (sx1 <= run.x0) & (smid >= run.y0) & (smid <= run.y1)))
        line = Line(text=text, x0=run.x0, x1=run.x1, y0=run.y0, y1=run.y1, size=run.size,
                    mono=run.mono, box=box, bullet=bullet, xs=run.xs[:len(text)],
                    bold=run.bold, bold_end=run.bold_end)
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
    pitch = above.pitch_to(line)
    if not (abs(above.size - line.size) <= d and 0 < pitch <= max(above.size, line.size) + d):
        return False
    return any(line.x0 < other.x1 and line.x1 > other.x0
               and (abs(other.x0 - line.x0) <= d or abs(other.x1 - line.x1) <= d
                    or abs((other.x0 + other.x1) - (line.x0 + line.x1)) / 2 <= d)
               for other in box)


def regroup(lines: list[Line]) -> None:
    """Renumber the boxes of ``lines`` after they were put in another order (in place)."""
    box = -1
    members: list[Line] = []
    for line in lines:
        if not members or not _joins(members, line):
            box += 1
            members = []
        line.box = box
        members.append(line)
