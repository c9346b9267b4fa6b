"""A document's line spacing (leading), per font size, measured from its own lines.

pdfminer's box rule (:mod:`~deepread.corpus.parsing.pdf.lines`) puts two lines in one
box when the gap between them is at most half a font size: baselines at most 1.5 sizes
apart. That is ordinary single spacing. A document set at 1.5 or double spacing (a
syllabus written in a word processor at "double", 12 pt type on a 22 pt pitch) has
*every* line further apart than that, so each printed line came out as a box — and a
paragraph — of its own, and a sentence was torn at every line end.

The spacing that separates the lines of one paragraph is the one the document uses
most: most lines of a document are lines inside paragraphs, and paragraph breaks add
space (or end on a short line). So the leading of a size is the most common distance
between the baselines of consecutive lines of that size; a gap no wider than that (plus
a quarter of the size, less than any visible paragraph spacing) is a line break, not a
paragraph break.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import pairwise

from deepread.corpus.parsing.pdf.lines import PageText

__all__ = ["Leading", "leading"]

#: Fewest line pairs of one size for its spacing to be measured: a size used on a few
#: lines (a title, a table's notes) says nothing about how paragraphs are set.
MIN_PAIRS = 8
#: Widest spacing still counted, in font sizes: triple spacing. Beyond it, two lines are
#: a paragraph (or a page region) apart, whatever the document's spacing.
MAX_SPACING = 3.0
#: Slack on the measured leading, in font sizes: rounding of the baselines (PDFium's
#: boxes vary by a few tenths of a point) and less than any paragraph spacing a reader
#: would see (a quarter of an em is 3 pt in 12 pt type).
SLACK = 0.25
#: Share of the page's text width an upper line must span to be a wrapped line of prose.
LONG = 0.6


class Leading:
    """The most common baseline-to-baseline distance of each font size (0.5 pt steps)."""

    def __init__(self, by_size: dict[float, float]) -> None:
        self._by_size = by_size

    def strict(self, size: float) -> float:
        """Widest baseline distance of two lines of ``size`` inside one paragraph: the
        measured leading plus :data:`SLACK`; 1.5 sizes (the box rule's) when the size
        has too few lines to measure."""
        spacing = self._by_size.get(round(size * 2) / 2)
        return 1.5 * size if spacing is None else spacing + SLACK * size

    def limit(self, size: float) -> float:
        """:meth:`strict`, but at least 1.6 sizes: what the indentation rules (an indented
        first line, a hanging indent) always allowed, for lines that no edge aligns."""
        return max(1.6 * size, self.strict(size))


def leading(pages: list[PageText]) -> Leading:
    """The leading of the document whose pages (lines in reading order) are ``pages``.

    Pairs are consecutive lines of one size that start at the same x, the upper one a
    long line (at least :data:`LONG` of the page's text width: a wrapped line of prose,
    not a table row or a list of short entries, whose spacing is the table's), the
    second below the first by more than half a size and at most :data:`MAX_SPACING`
    sizes.
    """
    pitches: dict[float, Counter[float]] = defaultdict(Counter)
    for page in pages:
        if not page.lines:
            continue
        width = max(ln.x1 for ln in page.lines) - min(ln.x0 for ln in page.lines)
        for above, below in pairwise(page.lines):
            if (
                abs(above.size - below.size) > 0.25
                or abs(above.x0 - below.x0) > 1
                or above.x1 - above.x0 < LONG * width
            ):
                continue
            pitch = above.pitch_to(below)
            if 0.5 * above.size < pitch <= MAX_SPACING * above.size:
                pitches[round(above.size * 2) / 2][round(pitch * 2) / 2] += 1
    return Leading(
        {
            size: counts.most_common(1)[0][0]
            for size, counts in pitches.items()
            if counts.total() >= MIN_PAIRS
        }
    )
