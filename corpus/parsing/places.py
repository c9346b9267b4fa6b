"""Where a paragraph is in its source file, kept at ingest so a citation can be shown.

Two kinds of place, one per kind of source:

* **A PDF paragraph: its rectangles on the page** (``boxes``), each
  ``(page, x0, top, x1, bottom)`` — page 1-based, PDF points from the top-left corner of
  the page as shown (crop box and rotation applied, as PDFium renders it). The reader
  knows every line's box; stored per line they would cost more than the paragraph's
  text, so the lines of a paragraph are **merged per run**: consecutive lines of one
  page, each starting within a line's height below the last, whose left and right
  edges match the run's within :data:`EDGE_TOLERANCE` line heights, are one rectangle
  (a justified paragraph is one; an indented first line or a short last one is a
  rectangle of its own, so the highlight follows the text's outline instead of covering
  the blank beside a short line). **A table is its rows**: one rectangle per row, never
  merged, so a row stays a place of its own. A block joined across a page break has
  rectangles on each page it covers. Coordinates are rounded outward to 0.1 pt, so a
  rectangle always holds its lines.
* **Any other source: a character range** (``span``, ``(start, end)``) of the source's
  text as :func:`deepread.corpus.parsing.source_text.source_text` reads it (the decoded
  file for text, Markdown and HTML; the document's paragraphs, one a line, for DOCX).
  The readers of those formats (unstructured) keep no positions, so the range is found
  after parsing: each paragraph's first and last words are looked for in the source's
  words, in reading order, from where the previous paragraph ended — linear in the
  source, and a paragraph whose words are not found keeps no range rather than a wrong
  one.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from deepread.records.documents import Box, Span

__all__ = ["Box", "LineBox", "Span", "cut_lines", "cut_span", "find_spans", "merge_runs"]

#: Largest difference between a line's left (or right) edge and its run's, in line
#: heights, for the line to join the run's rectangle.
EDGE_TOLERANCE = 0.6
#: Largest gap above a line, in its heights, for it to continue the run above it.
RUN_GAP = 0.8


@dataclass(frozen=True, slots=True)
class LineBox:
    """One line (or, in a table, one row) of a PDF paragraph on the page as shown, and
    the number of characters of the paragraph's text it holds (to cut a long block's
    lines where its text is cut)."""

    page: int
    x0: float
    top: float
    x1: float
    bottom: float
    chars: int


def _down(v: float) -> float:
    return round(math.floor(v * 10 + 1e-6) / 10, 1)


def _up(v: float) -> float:
    return round(math.ceil(v * 10 - 1e-6) / 10, 1)


def _box(page: int, x0: float, top: float, x1: float, bottom: float) -> Box:
    return (page, _down(x0), _down(top), _up(x1), _up(bottom))


def merge_runs(lines: Sequence[LineBox], *, rows: bool = False) -> tuple[Box, ...]:
    """The rectangles of a paragraph's ``lines`` (in reading order): merged per run, or
    one per row when ``rows`` (a table)."""
    if rows:
        return tuple(_box(ln.page, ln.x0, ln.top, ln.x1, ln.bottom) for ln in lines)
    out: list[Box] = []
    run: list[float] | None = None  # page, x0, top, x1, bottom of the open rectangle
    last_height = 0.0
    for ln in lines:
        height = max(ln.bottom - ln.top, 0.1)
        tol = max(2.0, EDGE_TOLERANCE * max(height, last_height))
        if (
            run is not None
            and run[0] == ln.page
            and ln.top >= run[2] - 0.5 * height
            and ln.top - run[4] <= RUN_GAP * height
            and abs(ln.x0 - run[1]) <= tol
            and abs(ln.x1 - run[3]) <= tol
        ):
            run[1], run[3] = min(run[1], ln.x0), max(run[3], ln.x1)
            run[2], run[4] = min(run[2], ln.top), max(run[4], ln.bottom)
        else:
            if run is not None:
                out.append(_box(int(run[0]), run[1], run[2], run[3], run[4]))
            run = [ln.page, ln.x0, ln.top, ln.x1, ln.bottom]
        last_height = height
    if run is not None:
        out.append(_box(int(run[0]), run[1], run[2], run[3], run[4]))
    return tuple(out)


def cut_lines(lines: Sequence[LineBox], lengths: Sequence[int]) -> list[tuple[LineBox, ...]]:
    """``lines`` shared among the pieces a long block was cut into (``lengths``: each
    piece's characters, in order): a line goes to the piece that holds its middle
    character, counted along the block's text."""
    total_lines = sum(ln.chars for ln in lines) or 1
    total_text = sum(lengths) or 1
    ends = []
    acc = 0
    for n in lengths:
        acc += n
        ends.append(acc / total_text)
    pieces: list[list[LineBox]] = [[] for _ in lengths]
    at = 0
    for ln in lines:
        middle = (at + ln.chars / 2) / total_lines
        at += ln.chars
        k = min(bisect.bisect_left(ends, middle), len(lengths) - 1)
        pieces[k].append(ln)
    return [tuple(p) for p in pieces]


# --- character ranges of text sources ---------------------------------------------------

#: A word (letters and digits), or — in markup — a tag or an entity, which are skipped.
#: A tag also stops at the next "<", so a "<" that never closes (unfenced C code) costs a
#: scan to the next "<", not to the end of the source: parsing stays linear.
_WORD = re.compile(r"[^\W_]+")
_MARKUP_WORD = re.compile(r"<[^<>]*>|&#?\w+;|([^\W_]+)")
_TAG = re.compile(r"<[^<>]*>")
#: What may close a paragraph after its last word (taken into its range).
_CLOSING = frozenset(".,;:!?)]}\"'’”%")
#: Words of a paragraph compared at each end (fewer when it has fewer).
_ANCHOR = 3
#: How far past the previous paragraph's end a paragraph's first words are looked for,
#: in source words, beyond its own length (a figure or a skipped block may lie between).
_LOOKAHEAD = 20_000


@dataclass(slots=True)
class _Words:
    words: list[str]
    starts: list[int]
    ends: list[int]
    where: dict[str, list[int]]


def _source_words(source: str, markup: bool) -> _Words:
    words: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    if markup:
        for m in _MARKUP_WORD.finditer(source):
            if m.group(1) is not None:
                words.append(m.group(1).casefold())
                starts.append(m.start())
                ends.append(m.end())
    else:
        for m in _WORD.finditer(source):
            words.append(m.group().casefold())
            starts.append(m.start())
            ends.append(m.end())
    where: dict[str, list[int]] = {}
    for i, w in enumerate(words):
        where.setdefault(w, []).append(i)
    return _Words(words, starts, ends, where)


def words_of(text: str) -> list[str]:
    """The words of a paragraph's text as a source's words are compared (tags of a
    table's HTML left out)."""
    return [w.casefold() for w in _WORD.findall(_TAG.sub(" ", text))]


def _find(src: _Words, gram: list[str], lo: int, hi: int) -> int | None:
    """The first index ``i`` in ``lo..hi`` where ``gram`` starts in the source's words."""
    spots = src.where.get(gram[0])
    if not spots:
        return None
    k = bisect.bisect_left(spots, lo)
    n = len(gram)
    while k < len(spots) and spots[k] <= hi:
        i = spots[k]
        if src.words[i : i + n] == gram:
            return i
        k += 1
    return None


def find_spans(source: str, texts: Sequence[str | None], *, markup: bool) -> list[Span | None]:
    """The character range of each of ``texts`` (paragraph texts in reading order; None:
    a block to pass over) in ``source`` (see the module docstring)."""
    src = _source_words(source, markup)
    out: list[Span | None] = []
    cursor = 0
    for text in texts:
        words = words_of(text) if text else []
        if not words:
            out.append(None)
            continue
        k = min(_ANCHOR, len(words))
        first = _find(src, words[:k], cursor, cursor + _LOOKAHEAD + len(words))
        if first is None:
            out.append(None)
            continue
        low = first + len(words) - k
        last = _find(src, words[-k:], low, low + 2 * len(words) + _LOOKAHEAD // 10)
        end_word = last + k - 1 if last is not None else min(first + k, len(src.words)) - 1
        end = src.ends[end_word]
        while end < len(source) and end - src.ends[end_word] < 3 and source[end] in _CLOSING:
            end += 1  # the sentence's full stop, a closing bracket or quote
        out.append((src.starts[first], end))
        cursor = end_word + 1
    return out


def cut_span(span: Span | None, lengths: Sequence[int]) -> list[Span | None]:
    """``span`` shared among the pieces a long block was cut into, in proportion to
    their lengths (the pieces of a long block are cut at its own line breaks and
    sentence ends, so the proportion is close)."""
    if span is None:
        return [None] * len(lengths)
    total = sum(lengths) or 1
    start, end = span
    out: list[Span | None] = []
    acc = 0
    for n in lengths:
        a = start + (end - start) * acc // total
        acc += n
        b = start + (end - start) * acc // total
        out.append((a, max(a, b)))
    return out
