"""Titles that identify documents among the others, and the cards that describe them.

A title is made when the collection is read, from each document's front matter
(:mod:`deepread.corpus.library.front`) and what the other documents share. Three parts,
each taken where the document prints it:

* **who or what** — in this order of trust, all but the third read from the document
  alone (issue 34: a collection of one or two documents teaches no banner, and a form
  says who filed it in its own fields):

  1. a form's *named field*: the value printed above a caption that says it is a name
     ("AMCOR PLC" over "(Exact name of registrant as specified in its charter)"), or
     before it on the same line ("COCA COLA CO (Exact name of Registrant …)");
  2. a *registrants table*'s first row: a combined filing lists its registrants under
     "Commission File Number | Exact Name of Registrant … | State | IRS Employer
     Identification Number" ("1-12609 PG&E Corporation California 94-3234914");
  3. a value above any other caption that other documents of the collection print too,
     no banner;
  4. an organisation named with its listing, ``Name (EXCHANGE: TICKER)``, as press
     releases name their company ("eBay Inc. (Nasdaq: EBAY)" included);
  5. an earnings release's own heading, "Amcor reports fiscal 2023 results";
  6. the filer a file's metadata title names, as filing services write it ("Form 10-K
     for Foot Locker INC filed 03/27/2023") — read before the banners, since a
     company's name printed by several of its filings is still its name;
  7. the line an SEC cover prints after "Commission File Number" (a cover whose name
     caption was lost: "MICROSOFT CORPORATION");
  8. the file's own title (a PDF's or DOCX's metadata title, else the parser's: the
     first page's main heading), when it is usable — words, not an accession number, a
     ``Microsoft Word - x.docx`` leftover, a label ("Course Frequency:") or a kind alone
     ("SYLLABUS", "FORM 10-K") — and no banner;
  9. the first line of the first page that is usable and no banner;
  10. the file name.

  Text the PDF's extraction broke is never a name or a title (:func:`broken`): words
  split from a first letter of another size ("ESORTS I NTERNATIONAL": small capitals,
  one letter lost, so the split is not mended; "as S pecified I n I ts C harter"),
  glyphs without their characters ("2 FAQ@PD"). A *banner* is text the collection
  itself shows does not identify: a line printed on the first pages of at least
  ``min(3, N)`` of its N documents ("UNITED STATES SECURITIES AND EXCHANGE
  COMMISSION", "FORM 10-K", "Course Description"), or one most of whose word pairs are
  ("UNITED STATES" alone). No list of banners is kept anywhere: a library of syllabi
  has its own. With one document there is no such evidence, and only steps 8–10 lose
  by it; nor is a short own title ("Ok") cover noise there.
* **kind** — a form's label printed alone ("FORM 10-K" → "Form 10-K", with "/A" and
  "Amendment No. N" when amended), an earnings release's heading ("earnings release"),
  a press release's signs ("FOR IMMEDIATE RELEASE", a listed name "today announced"),
  else a word naming a kind of document in the file name, metadata title or first lines
  ("syllabus");
* **period** — "fiscal year ended June 30, 2023", "quarterly period ended March 31,
  2021", an 8-K's date of report (after its caption, colon or not, or printed above
  it), a term ("Fall 2021"), a quarter ("fourth quarter 2022"), "fiscal 2023", "2022
  annual report", else the first date printed on the page; a cover laid out as a table
  ("December | 31, | 2015") is read across its cells.

The title is ``who — kind, period`` (a part already in it is not repeated), e.g.
"AMCOR PLC — Form 10-K, fiscal year ended June 30, 2023". Documents whose titles are
still the same (a 10-K and its re-filing, two copies) get their file names appended.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import PurePath

from deepread.records.documents import Card, Document, FrontMatter

#: Lines read for a title's parts: a cover's name, form and period come early.
_HEAD = 40
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
    r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE = rf"(?:{_MONTH}\.?\s+\d{{1,2}}\s*,?\s*\d{{4}}|\d{{1,2}}/\d{{1,2}}/\d{{4}})"
_PERIODS = [  # (pattern, how the period reads), first match wins
    (
        re.compile(
            rf"\b((?:fiscal\s+)?year|quarterly\s+period|quarter|"
            rf"(?:three|six|nine|twelve)\s+months)\s+ended:?\s+({_DATE})",
            re.I,
        ),
        lambda m: f"{' '.join(m[1].lower().split())} ended {_day(m[2])}",
    ),
    (
        # An 8-K's "Date of Report (Date of earliest event reported): May 5, 2023", the
        # colon often lost, or the date printed above its caption.
        re.compile(
            rf"\bdate\s+of\s+report\b(?:\s*\([^()]{{0,60}}\))?[\s:)]{{0,4}}({_DATE})",
            re.I,
        ),
        lambda m: f"report of {_day(m[1])}",
    ),
    (
        re.compile(rf"({_DATE})\s*\(\s*date\s+of\s+(?:report|earliest\s+event)", re.I),
        lambda m: f"report of {_day(m[1])}",
    ),
    (
        re.compile(
            r"\b(fall|spring|summer|winter|autumn)(?:\s+(?:semester|term|quarter))?"
            r",?\s+(\d{4})\b",
            re.I,
        ),
        lambda m: f"{m[1].capitalize()} {m[2]}",
    ),
    (
        re.compile(r"\b(\d{4})\s+(fall|spring|summer|winter|autumn)\b", re.I),
        lambda m: f"{m[2].capitalize()} {m[1]}",
    ),
    (
        re.compile(
            r"\b(first|second|third|fourth)[-\s]quarter(\s+and\s+full[-\s]year)?"
            r"(?:\s+(?:of\s+)?(fiscal))?\s+(\d{4})\b",
            re.I,
        ),
        lambda m: (
            f"{m[1].lower()} quarter{' and full year' if m[2] else ''}"
            f"{' fiscal' if m[3] else ''} {m[4]}"
        ),
    ),
    (
        re.compile(r"\b(\d{4})\s+(first|second|third|fourth)[-\s]quarter\b", re.I),
        lambda m: f"{m[2].lower()} quarter {m[1]}",
    ),
    (re.compile(r"\bfiscal\s+(?:year\s+)?(\d{4})\b", re.I), lambda m: f"fiscal {m[1]}"),
    (re.compile(r"\b(\d{4})\s+annual\s+report\b", re.I), lambda m: f"annual report {m[1]}"),
    (re.compile(rf"({_DATE})", re.I), lambda m: _day(m[1])),
]
#: Lines the last, bare-date reading looks in: a press release's dateline comes first,
#: a date further down is a deadline or a revision's.
_DATELINE = 6
#: A form's label printed alone on its line, or ending it ("… 20549 FORM 10-K").
_FORM = re.compile(r"(?:^|\s)form\s+(\d{1,2}-[a-z]{1,2}(?:/a)?)\s*$", re.I)
_FORM_ONLY = re.compile(r"form\s+\d{1,2}-[a-z]{1,2}(?:/a)?", re.I)
#: The cover line a registrant's name follows on an SEC form ("Commission File Number
#: 001-37845", then "MICROSOFT CORPORATION"), for covers printing no name caption.
_FILE_NUMBER = re.compile(r"\bcommission\s+file\s+(?:number|no\.?)\b", re.I)
#: A registrants table's header, and its rows: file number, name, state, IRS number.
_REGISTRANT_HEADER = re.compile(
    r"\bexact\s+name\b|\bname\s+of\s+(?:the\s+)?registrant|\bin\s+its\s+charter\b", re.I
)
_FILE_ROW = re.compile(r"^(?:\d{1,3}-\d{4,6})\s+(?P<rest>\S.*)$")
_EIN = re.compile(r"\s+\d{2}-\d{7}\b.*$")
#: The legal suffix a company's name ends with.
_SUFFIX = re.compile(
    r"\b(?:corporation|company|incorporated|inc|corp|co|plc|ltd|limited|llc|l\.p|n\.v|"
    r"s\.a|holdings)\b\.?",
    re.I,
)
_AMENDMENT = re.compile(r"\bamendment\s+no\.?\s*(\d+)", re.I)
#: An organisation named with its listing: "Johnson & Johnson (NYSE: JNJ)".
_LISTED = re.compile(
    r"\((?:NYSE|NASDAQ|Nasdaq|AMEX|TSX|LSE|ASX)[A-Za-z ]{0,20}:\s*"
    r"[A-Z][A-Z.]{0,6}\)"
)
#: An earnings release's own heading: "Costco Wholesale Corporation Reports Third
#: Quarter … Results", "Amcor reports fiscal 2023 results": who, and what it is.
_RESULTS = re.compile(
    r"^(?P<who>[A-Z0-9][^.!?:;]{1,80}?)\s+(?:reports?|announces?|posts?|delivers?)\s+"
    # the results of a period: a paper's "reports state-of-the-art results" is not one
    r"(?=.{0,100}?\b(?:quarter|fiscal|full[-\s]year|annual|q[1-4]|(?:19|20)\d\d)\b"
    r".{0,100}?\bresults\b)",
    re.I,
)
#: A metadata title naming the form and its filer ("Form 10-K for Foot Locker INC filed
#: 03/27/2023").
_FILED_FOR = re.compile(
    r"^form\s+\d{1,2}-[a-z]{1,2}(?:/a)?\s+(?:for|of)\s+(?P<who>.+?)(?:\s+filed\b.*)?$", re.I
)
#: The exhibit label a release furnished with an 8-K is headed by ("Exhibit 99.1").
_EXHIBIT = re.compile(r"^exhibit\s+\d+(?:\.\d+)?\s+", re.I)
#: Lines an earnings release's heading is looked for in.
_HEADLINE = 8
_RELEASE = re.compile(r"\b(?:for\s+immediate\s+release|press\s+release|news\s+release)\b", re.I)
#: Words naming a kind of document, looked for in the file name, metadata title and
#: first lines (a form and a press release are recognised above).
KINDS = (
    "syllabus",
    "handbook",
    "manual",
    "guide",
    "prospectus",
    "transcript",
    "specification",
    "agreement",
    "contract",
    "thesis",
    "dissertation",
    "minutes",
)
_CAPTION = re.compile(r"^\(([^()]{3,120})\)")
#: A value with its caption after it on the same line, as some covers are extracted.
_TRAILING_CAPTION = re.compile(r"^(.{2,120}?)\s*\(([^()]{3,120})\)\s*$")
#: What a caption says when its value is the document's name: "name of registrant",
#: "name of issuer", "exact name of …" (not "name of each exchange", a table header).
NAME_CAPTION = re.compile(
    r"\bname\s+of\s+(?:the\s+)?(?:registrant|issuer|company)|\bexact\s+name\b", re.I
)
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
_DIGITS = re.compile(r"\d{3,}")
_WORD3 = re.compile(r"[^\W\d_]{3,}")
_LETTER = re.compile(r"[^\W\d_]")
_NORM = re.compile(r"[\W_]+")
#: A file's title that says nothing of it (the PDF parser's list, and accession numbers).
_USELESS = re.compile(
    r"^(untitled|document\d*|microsoft word\b.*|.*\.(pdf|docx?|html?|tex|"
    r"txt)|[\d\s-]+)$",
    re.I,
)
_LABEL = re.compile(r"^([A-Z][A-Za-z ]{2,30}):\s+(\S.*)$")
_EDGES = " _-–—•·*:;,|"


def _tidy(text: str) -> str:
    return " ".join(text.replace(" ,", ",").split())


def _day(text: str) -> str:
    """A date as printed, its month capitalised ("MAY 31, 2019" → "May 31, 2019")."""
    return re.sub(_MONTH, lambda m: m[0].capitalize(), _tidy(text), flags=re.I)


def norm(text: str) -> str:
    """A line as compared across documents: lower case, words only."""
    return " ".join(_NORM.sub(" ", text.lower()).split())


def _grams(key: str) -> list[str]:
    words = key.split()
    return [" ".join(words[i : i + 2]) for i in range(len(words) - 1)] or words


def _lines_of(doc: Document) -> list[str]:
    """Every line a document says about itself: its title, metadata and front lines."""
    front = doc.front or FrontMatter()
    return [doc.title, *front.metadata.values(), *front.lines, *front.headings]


#: A line printed on the first pages of this many documents (fewer in a smaller
#: collection: all of them) is a banner; printed by two, it is printed elsewhere.
BANNER_FLOOR = 3


def printed(doc: Document) -> tuple[frozenset[str], frozenset[str]]:
    """What a document prints on its first page, as banners count it: its lines
    (:func:`norm`) and their word pairs."""
    keys = frozenset(k for k in map(norm, _lines_of(doc)) if k)
    return keys, frozenset(g for k in keys for g in _grams(k))


def captions(doc: Document) -> frozenset[str]:
    """The captions a document prints under a value ("(Exact name of registrant…)"),
    as banners count them: whether others print them too names a form's field."""
    lines = doc.front.lines if doc.front else ()
    return frozenset(norm(m[0]) for line in lines if (m := _CAPTION.match(line)))


@dataclass(slots=True)
class Banners:
    """What the documents of a collection share: how many print each line, and each
    word pair, on their first pages (see the module docstring)."""

    documents: int
    lines: Counter[str]
    grams: Counter[str]

    @classmethod
    def of(cls, documents: Sequence[Document]) -> Banners:
        banners = cls(0, Counter(), Counter())
        for doc in documents:
            banners.add(*printed(doc))
        return banners

    def add(self, lines: frozenset[str], grams: frozenset[str]) -> None:
        """Count a document printing ``lines`` and ``grams`` (:func:`printed`)."""
        self.documents += 1
        self.lines.update(lines)
        self.grams.update(grams)

    def remove(self, lines: frozenset[str], grams: frozenset[str]) -> None:
        """Count out a document :meth:`add` counted."""
        self.documents -= 1
        self.lines.subtract(lines)
        self.grams.subtract(grams)

    @property
    def floor(self) -> int:
        return min(BANNER_FLOOR, self.documents)

    def printed_elsewhere(self, line: str) -> bool:
        """Printed on the first pages of other documents too (a form's caption)."""
        return self.documents > 1 and self.lines[norm(line)] >= 2

    def banner(self, line: str) -> bool:
        """Whether ``line`` is text the collection shows identifies no document."""
        if self.documents < 2:
            return False
        key = norm(line)
        if not key or self.lines[key] >= self.floor:
            return True
        if self.documents < 3:
            return False
        grams = _grams(key)
        return sum(self.grams[g] >= self.floor for g in grams) / len(grams) >= 0.6


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


def _name_like(line: str) -> bool:
    """Short, worded, no long number, not broken: what a name or title looks like."""
    text = line.strip(_EDGES)
    return (
        not broken(text)
        and 2 <= len(text) <= 120
        and not _DIGITS.search(text)
        and len(text.split()) <= 12
        and bool(_WORD3.search(text))
        and not text.startswith("(")
    )


def _kind_only(line: str) -> bool:
    """A line that names a kind of document and nothing else ("SYLLABUS", "FORM 10-K")."""
    words = norm(line).split()
    return bool(words) and (
        bool(_RELEASE.fullmatch(" ".join(words)))
        or (len(words) <= 2 and words[-1] in KINDS)
        or bool(_FORM_ONLY.fullmatch(line.strip(_EDGES)))
    )


def _usable(line: str, banners: Banners) -> bool:
    text = line.strip(_EDGES)
    # In a library a word of three letters tells a title from cover noise ("OR", "☒");
    # a document alone has no noise to tell apart, and "# Ok" is its title.
    worded = _WORD3 if banners.documents > 1 else _LETTER
    return (
        bool(worded.search(text))
        and not broken(text)
        and not _USELESS.match(text)
        and not _label_only(line)
        and not line.lstrip().startswith(("(", "•"))  # a caption, a bullet point
        and not _kind_only(text)
        and not _only_date(text)
        and not banners.banner(text)
    )


def _label_only(line: str) -> bool:
    """A field's label without its value ("Course Frequency:")."""
    return line.rstrip().endswith(":") and len(line.split()) <= 5


def _only_date(text: str) -> bool:
    return bool(re.fullmatch(rf"\W*{_DATE}\W*", text, re.I))


def _clean(text: str, limit: int = 120) -> str:
    text = _tidy(text.replace(" .", ".")).strip(_EDGES)
    label = _LABEL.match(text)
    if label and len(label[1].split()) <= 3:  # "Course Title: ECE 4670: … Author: …"
        text = re.split(r"\s+[A-Z][a-z]+:\s", label[2])[0]
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + "…"
    return text


def _says_name(caption: str) -> bool:
    """A caption that says its value is a name ("Exact name of registrant as specified
    in its charter"): the form itself says what the line above it is."""
    return bool(NAME_CAPTION.search(caption))


def named_field(lines: Sequence[str], banners: Banners, names_only: bool = False) -> str | None:
    """A form's named value: the line above a caption in parentheses, or the text
    before it on the same line ("COCA COLA CO (Exact name of Registrant …)"). A caption
    that says "name" is the form's own word and is trusted in a document alone; any
    other caption (not with ``names_only``) only when other documents of the collection
    print it too. A value ending in a colon is a label, not a value."""
    fields: list[tuple[bool, str]] = []
    for value, below in pairwise(["", *lines]):
        same = _TRAILING_CAPTION.match(below)
        if same and _says_name(same[2]) and _name_like(same[1]):
            fields.append((True, same[1]))
            continue
        caption = _CAPTION.match(below)
        if not caption or not _name_like(value) or _kind_only(value) or value.endswith(":"):
            continue
        if _says_name(caption[1]):
            fields.append((True, value))
        elif not names_only and banners.printed_elsewhere(caption[0]):
            fields.append((False, value))
    for says_name, value in fields:
        if says_name:
            return _clean(value)
    return next((_clean(v) for _, v in fields if not banners.banner(v)), None)


def registrant_row(lines: Sequence[str]) -> str | None:
    """The first registrant of a cover that lists its registrants in a table — a
    combined filing's "Commission File Number | Exact Name of Registrant as Specified
    in its Charter | State | IRS Employer Identification Number" header, then rows
    such as "1-12609 PG&E Corporation California 94-3234914". The name runs from the
    file number to its legal suffix ("Corporation", "Inc."), else over the upper-case
    words that open the row."""
    for i, line in enumerate(lines[:_HEAD]):
        if not _REGISTRANT_HEADER.search(line):
            continue
        for row in lines[i + 1 : i + 10]:
            found = _FILE_ROW.match(row)
            if not found:
                continue
            rest = _EIN.sub("", found["rest"]).strip(_EDGES)
            suffixes = list(_SUFFIX.finditer(rest))
            if suffixes:
                name = rest[: suffixes[-1].end()]
            else:
                name = " ".join(
                    itertools.takewhile(lambda w: not any(c.islower() for c in w), rest.split())
                )
            return _clean(name) if _name_like(name) else None
        return None
    return None


def after_file_number(lines: Sequence[str]) -> str | None:
    """The name an SEC cover prints right after its "Commission File Number" line —
    the form's order of fields — when it is name-like and no caption or listing said
    who (a cover whose caption under the name was lost)."""
    for i, line in enumerate(lines[:_HEAD]):
        if not _FILE_NUMBER.search(line):
            continue
        following = next((x for x in lines[i + 1 : i + 3] if not _DIGITS.fullmatch(x)), "")
        if _name_like(following) and not _kind_only(following):
            return _clean(following)
        return None
    return None


def listed_name(lines: Sequence[str]) -> str | None:
    """An organisation named with its listing: the capitalised words before
    ``(EXCHANGE: TICKER)``."""
    for line in lines:
        found = _LISTED.search(line)
        if not found:
            continue
        words: list[str] = []
        for word in reversed(line[: found.start()].split()):
            if (
                # "eBay", "iRobot": a capital inside names a name too
                not (any(c.isupper() for c in word[:2]) or word in ("&", "and", "of", "de"))
                or any(c in word for c in "()–—")
                or word.startswith("-")
            ):
                break
            words.insert(0, word)
        while words and words[0] in ("&", "and", "of", "de"):
            words.pop(0)
        if words:
            return _clean(" ".join(words))
    return None


def results_heading(lines: Sequence[str]) -> str | None:
    """Who an earnings release's own heading says reports its results ("Amcor" in
    "Amcor reports fiscal 2023 results"), when one of its first lines is one."""
    for line in lines[:_HEADLINE]:
        if len(line.split()) > 30:  # a heading, not a paragraph that says so
            continue
        found = _RESULTS.match(_EXHIBIT.sub("", line.strip(_EDGES)))
        if found and _name_like(found["who"]) and not _kind_only(found["who"]):
            return _clean(found["who"])
    return None


def kind_of(doc: Document, lines: Sequence[str]) -> str | None:
    """The document's kind (see the module docstring)."""
    for line in lines[:_HEAD]:
        found = _FORM.search(line)
        if found and len(line.split()) <= 12:
            kind = f"Form {found[1].upper()}"
            amended = next((m for m in map(_AMENDMENT.search, lines[:_HEAD]) if m), None)
            return f"{kind}, Amendment No. {amended[1]}" if amended else kind
    if results_heading(lines):
        return "earnings release"
    head = lines[:12]
    if any(_RELEASE.search(line) for line in head) or any(
        (m := _LISTED.search(line))
        and re.search(r"\btoday\s+(?:announced|reported)\b", line[m.end() : m.end() + 80], re.I)
        for line in head
    ):
        return "press release"
    front = doc.front or FrontMatter()
    places = [PurePath(doc.source).stem, front.metadata.get("title", ""), *lines[:3]]
    for place in places:
        words = set(norm(place).split())
        for kind in KINDS:
            if kind in words:
                return kind
    return None


def period_of(doc: Document, lines: Sequence[str]) -> str | None:
    """The period or date the document is of (see the module docstring)."""
    # A cover laid out as a table comes as "December | 31, | 2015": its cells read on.
    head = " ".join(lines[:_HEAD]).replace(" | ", " ")
    names = " ".join([PurePath(doc.source).stem.replace("_", " "), doc.title])
    for pattern, read in _PERIODS:
        bare = pattern is _PERIODS[-1][0]
        for text in (" ".join(lines[:_DATELINE]),) if bare else (head, names):
            found = pattern.search(text)
            if found:
                return read(found)
    return None


def _own_title(doc: Document) -> str:
    meta = (doc.front.metadata.get("title") if doc.front else None) or ""
    return meta if meta and not _USELESS.match(meta.strip()) else doc.title


def filer_named(doc: Document) -> str | None:
    """The filer a file's metadata title names, as filing services write it: "Form
    10-K for Foot Locker INC filed 03/27/2023" → "Foot Locker INC". Read before the
    banners judge the title: a company's name printed by several of its filings is
    still its name."""
    meta = (doc.front.metadata.get("title") if doc.front else None) or ""
    found = _FILED_FOR.match(" ".join(meta.split()))
    return _clean(found["who"]) if found and _name_like(found["who"]) else None


def _first_line(lines: Sequence[str], banners: Banners) -> str | None:
    return next((_clean(line) for line in lines[:15] if _usable(line, banners)), None)


def _compose(who: str, kind: str | None, period: str | None) -> str:
    parts = [p for p in (kind, period) if p and norm(p) not in norm(who)]
    return f"{who} — {', '.join(parts)}" if parts else who


def card_of(doc: Document, banners: Banners) -> Card:
    """The document's card with its identifying title (duplicates not yet resolved)."""
    front = doc.front
    lines = list(front.lines) if front else []
    file = PurePath(doc.source).name
    kind = kind_of(doc, lines)
    period = period_of(doc, lines) if front else None
    own = _own_title(doc)
    # A form's own fields need no other documents to be read: a collection of one or
    # two documents titles its filings as a library of hundreds does.
    who = (
        named_field(lines, banners, names_only=True)
        or registrant_row(lines)
        or named_field(lines, banners)
        or listed_name(lines[:_HEAD])
        or results_heading(lines)
        or filer_named(doc)
        or after_file_number(lines)
        or (_clean(own) if _usable(own, banners) else None)
        or _first_line(lines, banners)
        or PurePath(doc.source).stem
    )
    sections = tuple(_clean(s.title, 80) for s in doc.sections[1:] if s.level == 1)
    return Card(
        title=_compose(who, kind, period),
        file=file,
        kind=kind,
        period=period,
        pages=front.pages if front else None,
        sections=sections,
    )
