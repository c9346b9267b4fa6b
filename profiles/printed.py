"""How a line printed on a document's first pages is read, for its title: whatever the
kind of document.

A title's parts are read from the lines ingest keeps of a document's front
(:mod:`deepread.corpus.library.front`). What a name looks like (:func:`name_like`), what
the PDF's extraction broke (:func:`broken`), how a line is tidied to be shown
(:func:`clean`) and compared across documents (:func:`norm`), and how a date is written
(:data:`DATE`, :func:`day`) are the same for every kind: the title core
(:mod:`deepread.corpus.library.titles`) and the profiles (:mod:`deepread.profiles`) read
lines by these rules.
"""

from __future__ import annotations

import re

#: Lines read for a title's parts: a cover's name, form and period come early.
HEAD = 40
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
    r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
#: A date as printed: "June 30, 2023", "MAY 31 2019", "03/27/2023".
DATE = rf"(?:{MONTH}\.?\s+\d{{1,2}}\s*,?\s*\d{{4}}|\d{{1,2}}/\d{{1,2}}/\d{{4}})"
#: What a shown part is stripped of at its ends.
EDGES = " _-–—•·*:;,|"
#: A number of three digits or more: no part of a name.
DIGITS = re.compile(r"\d{3,}")
WORD3 = re.compile(r"[^\W\d_]{3,}")
#: A word split from its first letter in an upper-case run: a lone capital (not "A",
#: a word) between capitals, before an upper-case word ("ESORTS I NTERNATIONAL").
_SPLIT_WORD = re.compile(
    r"(?:^|(?<=[A-Z] ))[B-Z] [A-Z]{2,}\b(?=\s+[A-Z]{2,}|\s*$)|[A-Z]{3,} [B-Z] [A-Z]{3,}"
)
#: The same in a mixed-case line: a capital (not "A" or "I", words) apart from the rest
#: of its word ("as S pecified I n I ts C harter"); two of them, since "Class B shares"
#: has one.
_SPLIT_LOWER = re.compile(r"(?<![\w.&])[B-HJ-Z] [a-z]{2,}\b")
#: Characters a name or title does not print: a font's glyphs extracted without their
#: characters ("2 FAQ@PD"), the replacement character of a failed decoding. ("C#
#: Programming", "E*TRADE", "Annual Report | Acme", a redacted "Prof. <PROF_FULL_NAME>"
#: print theirs; a line of glyphs, "!\"#$!%&'", is told by having more marks than
#: letters. Control characters are a document's own, shown escaped, not broken text.)
_GARBLED = re.compile(r"[@\ufffd]")
_NORM = re.compile(r"[\W_]+")
_LABEL = re.compile(r"^([A-Z][A-Za-z ]{2,30}):\s+(\S.*)$")


def tidy(text: str) -> str:
    return " ".join(text.replace(" ,", ",").split())


def day(text: str) -> str:
    """A date as printed, its month capitalised ("MAY 31, 2019" → "May 31, 2019")."""
    return re.sub(MONTH, lambda m: m[0].capitalize(), tidy(text), flags=re.I)


def norm(text: str) -> str:
    """A line as compared across documents: lower case, words only."""
    return " ".join(_NORM.sub(" ", text.lower()).split())


def broken(text: str) -> bool:
    """Text the PDF's extraction broke, not to be shown as a name: words split at a
    letter of another size ("ESORTS I NTERNATIONAL" — small capitals whose larger
    first letters came out apart, one of them lost), glyphs without their characters
    ("2 FAQ@PD", "!\"#$!%&'"), control or private-use code points. A split cannot be
    mended safely — the letter lost is not known — so the line is passed over."""
    marks = sum(not c.isalnum() and not c.isspace() and c.isprintable() for c in text)
    return bool(
        _SPLIT_WORD.search(text)
        or len(_SPLIT_LOWER.findall(text)) >= 2
        or _GARBLED.search(text)
        or marks > sum(c.isalpha() for c in text)
    )


def name_like(line: str) -> bool:
    """Short, worded, no long number, not broken: what a name or title looks like."""
    text = line.strip(EDGES)
    return (
        not broken(text)
        and 2 <= len(text) <= 120
        and not DIGITS.search(text)
        and len(text.split()) <= 12
        and bool(WORD3.search(text))
        and not text.startswith("(")
    )


def clean(text: str, limit: int = 120) -> str:
    """A line as a title shows it: tidied, its edges stripped, a field's label left out
    ("Course Title: ECE 4670: …" → "ECE 4670: …"), cut to ``limit`` characters."""
    text = tidy(text.replace(" .", ".")).strip(EDGES)
    label = _LABEL.match(text)
    if label and len(label[1].split()) <= 3:  # "Course Title: ECE 4670: … Author: …"
        text = re.split(r"\s+[A-Z][a-z]+:\s", label[2])[0]
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + "…"
    return text
