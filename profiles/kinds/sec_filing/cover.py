"""An SEC filing's cover page: the form's particulars, printed large, are not sections.

A 10-K, 10-Q or 8-K opens with the Commission's cover: "UNITED STATES SECURITIES AND
EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-Q", check boxes ("☒ QUARTERLY
REPORT…", "OR", "Yes ☒ No ☐"), the registrant's name, address and file number, each
line set in capitals or bold and standing alone — every typographic cue says "heading",
and a filing's TOC began with a dozen one-line sections no question is about. On the
cover pages found here only the line naming the form ("FORM 10-Q") stays a heading —
the section that holds the cover's lines as its text (:data:`COVER`, which the PDF
reader's :mod:`deepread.corpus.parsing.pdf.cover` applies).

The cover is the first of the first :data:`SEARCHED` pages that names the Commission
and a form (or the Exchange Act's "Section 13 or 15(d)"), and the pages right after it
that still read as the cover ("Indicate by check mark…", "Documents incorporated by
reference") before the first labelled heading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set

from deepread.profiles.profile import Cover

#: Pages searched for the cover: a filing's is its first, after at most a printed
#: wrapper or a blank page.
SEARCHED = 3
#: Pages a cover runs over at most (a 10-K's registrant details often take a second).
LONGEST = 3

_COMMISSION = re.compile(r"securities\s+and\s+exchange\s+commission", re.I)
_FORM = re.compile(
    r"\bform\s+(?:10-?k|10-?q|8-?k|20-?f|40-?f|6-?k|11-?k|10-?kt|10-?qt)\b"
    r"|\bsection\s+13\s+or\s+15\s*\(d\)",
    re.I,
)
#: A heading that names the form: the one line of the cover kept as a heading.
FORM_LINE = re.compile(
    r"^\W*form\s+(?:10-?k|10-?q|8-?k|20-?f|40-?f|6-?k|11-?k|10-?kt|10-?qt)\b\W*$", re.I
)
#: What only a cover page says.
_COVER_TEXT = re.compile(
    r"indicate\s+by\s+check\s+mark|incorporated\s+by\s+reference|aggregate\s+market\s+value"
    r"|commission\s+file\s+(?:number|no)|exact\s+name\s+of\s+registrant"
    r"|registered\s+pursuant\s+to\s+section\s+12",
    re.I,
)


def cover_pages(texts: Mapping[int, str], labelled: Set[int]) -> set[int]:
    """The pages of ``texts`` (page → its normalised text) that are an SEC form's cover
    (empty when it has none); ``labelled``: the pages of the headings so far that are a
    Part or an Item, which end the cover."""
    first = next(
        (
            page
            for page in sorted(texts)
            if page <= SEARCHED and _COMMISSION.search(texts[page]) and _FORM.search(texts[page])
        ),
        None,
    )
    if first is None:
        return set()
    pages = {first}
    for page in range(first + 1, first + LONGEST):
        if page in labelled or page not in texts or not _COVER_TEXT.search(texts[page]):
            break
        pages.add(page)
    return pages


COVER = Cover(
    pages_read=SEARCHED + LONGEST,
    find=cover_pages,
    heading=lambda line: FORM_LINE.match(line) is not None,
)
