"""A table with a row stating the quantity a question asks for.

"What was Best Buy's total revenue in the quarter ended July 29, 2023?" — the offline
answer read the statement of earnings (its row ``Revenue | $9,583 | $10,329 …``) and quoted
first the revenue-mix tables, whose words are closer to the question's ("Revenue Mix",
"Total 100 %") but which state shares, not revenue. An analyst reads the row
named for the quantity. So when a question asks for a financial quantity
(:func:`~deepread.profiles.kinds.sec_filing.statements.statements_asked`), the offline answer quotes
first the tables holding a row whose label names it (:func:`states_row_of`): every word of
the label but "total", "net" and "other" is a word of the question, or all but one of a
label holding two words asked or more, when that one does not make it another measure
(:data:`OTHER_MEASURE`: "adjusted", "non-GAAP" …) — so "Total net revenue" names "total
revenue", "Effective income tax rate" an effective tax rate; "Total" alone names nothing,
"Loss before income taxes" no tax rate, "Adjusted net earnings per share (Diluted)" no
diluted earnings per share; "% of revenue" names a share — and a cell of the row is a
figure.

Nothing here knows a benchmark's wording: a label is a row's first cell, a figure a
number as statements print them ("$9,583", "(7)", "$(491)", "23.2 %"; the pattern
:data:`~deepread.text.headed_rows.FIGURE`, as the answer's rows read them).
"""

from __future__ import annotations

import re
from collections.abc import Set

from deepread.text.headed_rows import FIGURE, QUALIFIERS
from deepread.text.markup import plain_table
from deepread.text.terms import content_words

#: Words that make a label another measure of the quantity, not the quantity with one
#: word more: "Adjusted net earnings per share" is no diluted earnings per share.
OTHER_MEASURE = content_words(
    "adjusted non-GAAP pro forma core organic comparable underlying operational constant"
)
#: A label naming a share of a quantity rather than the quantity.
_SHARE = re.compile(r"%|\bper ?cent(?:age)?\b", re.IGNORECASE)


#: A row printed as a line of text, no table around it: a label, then two figures or
#: more and nothing else ("Effective income tax rate (0.6) % 14.8 % 17.5 %").
_PRINTED_ROW = re.compile(
    r"^(?P<label>[A-Za-z][^\d|]*?)[\s.:$]*"
    r"(?P<figures>(?:[$(]{0,2}\s?[-−–]?\d[\d,]*(?:\.\d+)?\s?\)?\s?%?\)?\s*){2,})$"
)


def states_row_of(text: str, words: Set[str]) -> bool:
    """Whether ``text`` is a table with a row whose label names the quantity of
    ``words`` (the question's content words, :func:`~deepread.text.terms.content_words`;
    see the module docstring) and which holds a figure — or is such a row printed as a
    line of text (:data:`_PRINTED_ROW`)."""
    if not words:
        return False
    if "<table" not in text.lower():
        printed = _PRINTED_ROW.match(" ".join(text.split()))
        return printed is not None and _names(printed["label"], words)
    for row in plain_table(text).splitlines():
        label, *cells = row.split(" | ")
        if _names(label, words) and any(FIGURE.match(c.strip()) for c in cells):
            return True
    return False


def _names(label: str, words: Set[str]) -> bool:
    """Whether a row's ``label`` names the quantity of ``words`` (see
    :func:`states_row_of`)."""
    if _SHARE.search(label):
        return False  # "% of revenue", "as a percent of sales": a share, not the quantity
    # a header row ("2022 | 2021", its empty first cell dropped) names no quantity
    named = {w for w in content_words(label) - QUALIFIERS if not w.isdigit()}
    asked = named & words
    # every word asked, or all but one of a label holding two words asked or more:
    # "Effective income tax rate" names an effective tax rate, "Net cash provided by
    # operating activities" the cash from operating activities; "Loss before income
    # taxes" (one word asked, two not) names no tax rate
    extra = named - asked
    return bool(named) and (
        not extra or (len(asked) >= 2 and len(extra) == 1 and not extra & OTHER_MEASURE)
    )
