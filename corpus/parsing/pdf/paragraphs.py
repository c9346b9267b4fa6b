"""The paragraph in the making that every step of the PDF reader passes along.

Lines (:mod:`~deepread.corpus.parsing.pdf.lines`) are grouped into :class:`Para` s per
page, then joined across page breaks, split into headings and text, and finally turned
into :class:`~deepread.corpus.parsing.blocks.Block` s. Each step lives in its own module
(margins, tables, headings, line joining); this one holds only the shared shape and the
text keys they compare by, so those modules do not import each other.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from deepread.corpus.parsing.blocks import BlockKind
from deepread.corpus.parsing.pdf.lines import Line

__all__ = ["BARE_LABEL", "Para", "key", "norm"]

#: A label that may stand alone ("Item 1.", "PART II", "NOTE 3", "4.2"), its title beside
#: or below it. Running-header detection must not mask its digits ("NOTE 1" on one page,
#: "NOTE 2" on the next are two headings, not one repeated header).
BARE_LABEL = re.compile(
    r"^\s*(?:(?:part|item|note|article|chapter|section|schedule|exhibit|week|unit|module)"
    r"\s+)?(?:[ivx]{1,4}|\d{1,2}(?:\.\d{1,2})*[a-c]?)[.:)]?\s*$",
    re.I,
)


@dataclass(slots=True)
class Para:
    """Consecutive lines of one page (plus continuations) that make one block."""

    lines: list[Line]
    page: int
    kind: BlockKind = "text"
    level: int | None = None
    # List items start with a marker; continuation lines sit at this x (the text column).
    text_x0: float = 0.0
    # Right edge of the text column on the block's page, to tell full lines from short ones.
    right_edge: float = 0.0
    extra_pages: list[int] = field(default_factory=list)
    #: A table's cell texts, row by row.
    rows: list[list[str]] | None = None
    #: A table's caption (a financial statement's title).
    caption: str | None = None

    @property
    def size(self) -> float:
        return Counter(ln.size for ln in self.lines).most_common(1)[0][0]

    @property
    def mono(self) -> float:
        total = sum(len(ln.text.strip()) for ln in self.lines) or 1
        return sum(ln.mono * len(ln.text.strip()) for ln in self.lines) / total

    @property
    def bold(self) -> float:
        total = sum(len(ln.text.strip()) for ln in self.lines) or 1
        return sum(ln.bold * len(ln.text.strip()) for ln in self.lines) / total

    @property
    def raw(self) -> str:
        return " ".join(ln.text.strip() for ln in self.lines)


def norm(text: str) -> str:
    """NFKC text with runs of whitespace as one space."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def key(text: str) -> str:
    """A heading's text as compared: normalised, case-folded, no trailing ``.:¶``."""
    return norm(text).rstrip("¶").strip().rstrip(".:").casefold()
