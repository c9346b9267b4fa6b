"""The period a question names, and the passages that state figures of it.

"What was Adobe's operating margin in FY2022?" names a year; a person answering it quotes
the statement whose columns give 2022's figures, not the product description that shares
the most words with the question, nor the fourth quarter's figure when the question asks
for the year ("Ulta Beauty's total net sales in fiscal 2022" was answered with Q4's $3.2B
while the year's $10.2B was in a paragraph read). So when the question names a
year, the offline answer quotes first the passages that state figures *of that year*
(:func:`states_figures_of`): the year written in the passage beside at least
:data:`MIN_FIGURES` figures — and, unless the question itself asks about a quarter, not a
passage about a quarter alone (one that says "quarter" or "three months" and never "year").

Nothing here knows a benchmark's wording: a year is four digits (with "FY" or not), a
figure is a number written with thousands separators, decimals or a percent sign.
"""

from __future__ import annotations

import re

#: A year the question names: "2022", "FY2022", "FY 2022", "fiscal 2022".
_YEAR = re.compile(r"(?<![\d.,$])(?:FY\s?'?)?((?:19|20)\d{2})(?![\d,])", re.IGNORECASE)
#: A period shorter than a year.
_QUARTER = re.compile(
    r"\b(?:quarters?|Q[1-4]|(?:three|six|nine) months|(?:thirteen|twelve|13|12) weeks)\b",
    re.IGNORECASE,
)
#: Words that make a passage about a whole year, even when it names a quarter too ("the
#: fourth quarter of fiscal 2022" is a quarter: a year's name alone does not count).
_YEAR_WORDS = re.compile(r"\b(?:years?|annual(?:ly)?|twelve months)\b", re.IGNORECASE)
#: A figure: "$16,388", "(1,234)", "36.8", "34.6%", "12%" (a bare integer may be a year,
#: a page or a note number).
_FIGURE = re.compile(
    r"(?<![\w.])\$?\(?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?|(?<![\w.,])\d+\.\d+%?|(?<![\w.,])\d+%"
)
#: Figures a passage must hold to be "figures of" the year (a sentence that merely
#: mentions it holds fewer).
MIN_FIGURES = 3


def years_named(question: str) -> frozenset[str]:
    """The years ``question`` names, as four digits."""
    return frozenset(_YEAR.findall(question))


def asks_quarter(question: str) -> bool:
    """Whether ``question`` asks about a period shorter than a year."""
    return _QUARTER.search(question) is not None


def states_figures_of(text: str, years: frozenset[str], quarter: bool) -> bool:
    """Whether ``text`` states figures of one of ``years``: the year written in it beside
    at least :data:`MIN_FIGURES` figures, and — unless ``quarter`` (the question asks
    about a quarter) — not about a quarter alone."""
    if not years or not any(year in text for year in years):
        return False
    if len(_FIGURE.findall(text)) < MIN_FIGURES:
        return False
    return quarter or not (_QUARTER.search(text) and not _YEAR_WORDS.search(text))
