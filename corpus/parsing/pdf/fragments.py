"""A heading candidate that is a piece of a longer title, cut where a line wrapped.

A table's column heads and a title set over two lines come apart into one-line blocks:
"Fair Value at" / "March 31, 2023", "Accumulated Other" / "Comprehensive Loss". Each
piece is short, bold or capitalised and stands alone, so typography reads it as a
heading, and a filing's TOC filled with sections that end mid-phrase. A title does not
end on a word that needs another after it — a preposition, an article, a conjunction,
"other" (but "Corporate and Other", where it is a noun) —, so such a line is text, not
a heading.
"""

from __future__ import annotations

import re

__all__ = ["fragment"]

#: Words no title ends on (a title of one word is left alone: "Other" is a heading).
DANGLING = frozenset(
    """a an the of at and or nor for in into to on onto by with from as per than via
    between among under over upon within without versus vs other""".split()
)

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


#: Words after which "other" is a noun and ends a title ("Corporate and Other").
_JOINED = frozenset({"and", "or", "all"})
_LISTED_OTHER = re.compile(r"[&,]\s*other\W*$", re.I)


def fragment(text: str) -> bool:
    """Whether heading candidate ``text`` ends on a word that needs another after it."""
    words = [w.casefold() for w in _WORD.findall(text)]
    if len(words) < 2 or text.rstrip()[-1:] in ".:?!)":
        return False
    if words[-1] == "other" and (words[-2] in _JOINED or _LISTED_OTHER.search(text)):
        return False
    return words[-1] in DANGLING
