"""An SEC filing's cover page: the form's particulars, printed large, are not sections.

A 10-K, 10-Q or 8-K opens with the Commission's cover: "UNITED STATES SECURITIES AND
EXCHANGE COMMISSION", "Washington, D.C. 20549", "FORM 10-Q", check boxes ("☒ QUARTERLY
REPORT…", "OR", "Yes ☒ No ☐"), the registrant's name, address and file number, each
line set in capitals or bold and standing alone — every cue of
:mod:`~deepread.corpus.parsing.pdf.typography` and
:mod:`~deepread.corpus.parsing.pdf.standalone` says "heading", and a filing's TOC began
with a dozen one-line sections no question is about. On the cover pages found here only
the line naming the form ("FORM 10-Q") stays a heading — the section that holds the
cover's lines as its text —; labels (an 8-K's "Item 5.07") and an outline's entries are
not touched.

The cover is the first of the first :data:`SEARCHED` pages that names the Commission
and a form (or the Exchange Act's "Section 13 or 15(d)"), and the pages right after it
that still read as the cover ("Indicate by check mark…", "Documents incorporated by
reference") before the first labelled heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deepread.corpus.parsing.pdf.labels import label_kind
from deepread.corpus.parsing.pdf.paragraphs import Para, norm

__all__ = ["FORM_LINE", "cover_pages"]

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


def _page_texts(paras: list[Para]) -> dict[int, str]:
    texts: dict[int, list[str]] = {}
    for p in paras:
        if p.page <= SEARCHED + LONGEST:
            texts.setdefault(p.page, []).append(p.raw)
    return {page: norm(" ".join(parts)) for page, parts in texts.items()}


def cover_pages(paras: list[Para], heads: Iterable[int]) -> set[int]:
    """The pages of ``paras`` that are an SEC form's cover (empty when it has none);
    ``heads``: the headings so far, a Part or an Item among them ending the cover."""
    texts = _page_texts(paras)
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
    labelled = {paras[i].page for i in heads if label_kind(norm(paras[i].raw)) in ("part", "item")}
    pages = {first}
    for page in range(first + 1, first + LONGEST):
        if page in labelled or page not in texts or not _COVER_TEXT.search(texts[page]):
            break
        pages.add(page)
    return pages
