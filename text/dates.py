"""Calendar days written any way, as one search term each.

A schedule writes "3/31", "Fri, Oct. 8" or "(May 23)"; a reader asks about "March 31st"
or "Friday, October 8th". No word of the one is a word of the other, so neither BM25 nor
the coverage reranker saw a match where the answer was, and a date question's hits were
whatever shared its other words. Each date written as a month and a day becomes the term
``monthday0331`` (month and day, two digits each; a year, when written, is left to the
words around it), added to what BM25 indexes and to the query, and to the words the
coverage reranker compares; the text shown is unchanged.

Forms read: a month's name or its abbreviation with a day ("March 31st", "Mar. 31",
"Oct 8"), a day with a month ("31 March", "8th of October"), and a numeric month/day
("3/31", "10/8", "3/31/2023"), month first as in the US; a day above 12 written first
("31/3") is read day first, as it can only be that. A range ("10/7 - 10/11", "March 13 to
17" is not read: both ends must be dates) names each day in it. A fraction written like a
date ("1/2 of the grade") gains a term no question about January 2 is likely to ask.
A month named alone, and on a document's side the month of each of its dates, is a
``month09`` term too (:func:`months`).
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, timedelta

_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
#: Each month's name and its abbreviations, as a pattern (the first three letters key
#: :data:`_MONTHS`).
_NAMES = (
    "jan(?:uary)?",
    "feb(?:ruary)?",
    "mar(?:ch)?",
    "apr(?:il)?",
    "may",
    "june?",
    "july?",
    "aug(?:ust)?",
    "sep(?:t(?:ember)?)?",
    "oct(?:ober)?",
    "nov(?:ember)?",
    "dec(?:ember)?",
)
_MONTH = f"({'|'.join(_NAMES)})"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b{_MONTH}\.?,?\s+{_DAY}\b", re.I)
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b", re.I)
# Not inside a longer run of digits, slashes or dots (a version "1.2/3", a path "a/10/8/b").
_NUMERIC = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})(?:/(?:\d{4}|\d{2}))?(?![\d/])")


#: What joins the two ends of a range of days: "10/7 - 10/11", "March 13 to March 17".
_RANGE = re.compile(r"\s*(?:-|–|—|to|through|thru|until)\s*", re.I)
#: The longest range read as every day in it (a month: a spring break, an exam week).
LONGEST_RANGE = 31
_LEAP_YEAR = 2024  # any leap year: a range running over February 29 keeps that day


def _dates(text: str) -> list[tuple[int, int, date]]:
    """Every month-and-day date in ``text``: (start, end, the day in a leap year)."""
    found: list[tuple[int, int, date]] = []

    def add(m: re.Match[str], month: int, day: int) -> None:
        # Only a day of the calendar ("13/13" and "2/30" are not).
        if 1 <= month <= 12 and 1 <= day <= monthrange(_LEAP_YEAR, month)[1]:
            found.append((m.start(), m.end(), date(_LEAP_YEAR, month, day)))

    for m in _MONTH_DAY.finditer(text):
        add(m, _MONTHS[m.group(1)[:3].lower()], int(m.group(2)))
    for m in _DAY_MONTH.finditer(text):
        add(m, _MONTHS[m.group(2)[:3].lower()], int(m.group(1)))
    for m in _NUMERIC.finditer(text):
        first, second = int(m.group(1)), int(m.group(2))
        add(m, *((first, second) if first <= 12 else (second, first)))
    return sorted(found)


def _term(day: date) -> str:
    return f"monthday{day.month:02d}{day.day:02d}"


def calendar_days(text: str) -> list[str]:
    """The ``monthdayMMDD`` term of every month-and-day date in ``text``, in order; a
    range of up to :data:`LONGEST_RANGE` days ("10/7 - 10/11") names every day in it,
    as "I am away 10/7 - 10/11" asks about each of them."""
    return _day_terms(text, _dates(text))


def _day_terms(text: str, dates: list[tuple[int, int, date]]) -> list[str]:
    return [term for group in _day_groups(text, dates) for term in group]


def _day_groups(text: str, dates: list[tuple[int, int, date]]) -> list[list[str]]:
    """The day terms of each date, a range's days (both ends too) as one group."""
    groups: list[list[str]] = []
    joined = False  # this date ended the range before it: already in that group
    for i, (_, end, day) in enumerate(dates):
        if not joined:
            groups.append([])
        groups[-1].append(_term(day))
        joined = False
        if i + 1 < len(dates):
            start, _, last = dates[i + 1]
            span = (last - day).days
            if 1 < span <= LONGEST_RANGE and _RANGE.fullmatch(text[end:start]):
                groups[-1] += [_term(day + timedelta(days=n)) for n in range(1, span)]
                joined = True
    return groups


#: A month named on its own ("in September", "the month of Nov."), capitalised as a name
#: is: "May" is left out, as a capitalised "May I …" is the verb far more often.
_MONTH_ALONE = re.compile(
    rf"\b({'|'.join(name.capitalize() for name in _NAMES if name != 'may')})\b"
)


def months(text: str, *, of_dates: bool) -> list[str]:
    """The ``monthMM`` term of every month ``text`` names on its own and, with
    ``of_dates``, of every month-and-day date in it: a document's "9/23" row is in
    September, which "How often does the class meet in September?" asks about. A query
    names only its lone months (``of_dates`` False): "on October 8" asks about that
    day, not every day of October."""
    return _read(text, _dates(text), of_dates)[1]


def _read(
    text: str, dates: list[tuple[int, int, date]], of_dates: bool
) -> tuple[list[tuple[int, int]], list[str]]:
    """Where ``text`` names dates and lone months, and their month terms."""
    spans = [(start, end) for start, end, _ in dates]
    out = [f"month{day.month:02d}" for _, _, day in dates] if of_dates else []
    for m in _MONTH_ALONE.finditer(text):
        if not any(start <= m.start() < end for start, end in spans):
            out.append(f"month{_MONTHS[m.group(1)[:3].lower()]:02d}")
            spans.append(m.span())
    return spans, out


def date_terms(text: str, *, query: bool = False) -> tuple[str, list[list[str]]]:
    """``text`` with each date and lone month it names blanked out, and their terms, one
    group per date, range or lone month (a query's as :func:`with_calendar_days` reads
    them; on a document's side a date's month term is a group of its own).

    For word-overlap judgements: "March 31st" is the term ``monthday0331`` and not also
    the words "march" and "31st", which a row written "3/31" does not hold, and "from
    9/23 through 9/30" is one thing asked, met by a row of any day in it.
    """
    dates = _dates(text)
    spans, months_named = _read(text, dates, of_dates=not query)
    rest = list(text)
    for start, end in spans:
        rest[start:end] = " " * (end - start)
    return "".join(rest), _day_groups(text, dates) + [[m] for m in months_named]


def with_calendar_days(text: str, *, query: bool = False) -> str:
    """``text`` followed by its dates' day terms and month terms (:func:`months`): what
    BM25 indexes (``query`` False) and is queried with (``query`` True)."""
    terms = [term for group in date_terms(text, query=query)[1] for term in group]
    return f"{text}\n{' '.join(terms)}" if terms else text
