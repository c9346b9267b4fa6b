"""Titles that identify documents among the others, and the cards that describe them.

A title is made when the collection is read, from each document's front matter
(:mod:`deepread.corpus.library.front`) and what the other documents share. Three parts,
each taken where the document prints it; what a kind of document adds to the general
rules comes from its profile (:mod:`deepread.profiles`: an SEC filing's registrant,
form and fiscal period, a syllabus's term), asked through :data:`~deepread.profiles.
PROFILES`:

* **who or what** — in this order of trust, all but the third read from the document
  alone (a collection of one or two documents teaches no banner, and a form says who
  filed it in its own fields):

  1. a form's *named field*: the value printed above a caption that says it is a name
     (a profile's ``name_caption``: "AMCOR PLC" over "(Exact name of registrant as
     specified in its charter)"), or before it on the same line ("COCA COLA CO (Exact
     name of Registrant …)");
  2. what the form's other fields say (a profile's ``form_name``: a filing's
     registrants table);
  3. a value above any other caption that other documents of the collection print too,
     no banner;
  4. how the document's kind names itself where no field does (a profile's
     ``own_name``: a filing's listed name, "eBay Inc. (Nasdaq: EBAY)", an earnings
     release's heading, the filer its metadata title names, the line after its
     "Commission File Number");
  5. the file's own title (a PDF's or DOCX's metadata title, else the parser's: the
     first page's main heading), when it is usable — words, not an accession number, a
     ``Microsoft Word - x.docx`` leftover, a label ("Course Frequency:") or a kind alone
     ("SYLLABUS", "FORM 10-K") — and no banner;
  6. the first line of the first page that is usable and no banner;
  7. the file name.

  Text the PDF's extraction broke is never a name or a title
  (:func:`~deepread.profiles.printed.broken`): words split from a first letter of
  another size ("ESORTS I NTERNATIONAL"), glyphs without their characters ("2
  FAQ@PD"). A *banner* is text the collection itself shows does not identify: a line
  printed on the first pages of at least ``min(3, N)`` of its N documents ("UNITED
  STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K", "Course Description"), or
  one most of whose word pairs are ("UNITED STATES" alone). No list of banners is kept
  anywhere: a library of syllabi has its own. With one document there is no such
  evidence, and only steps 5–7 lose by it; nor is a short own title ("Ok") cover noise
  there.
* **kind** — as the document's kind prints it (a profile's ``kind``: a form's label
  printed alone, "Form 10-K"), else a word naming a kind of document in the file name,
  metadata title or first lines (a profile's ``kinds``, then :data:`KINDS`: "syllabus",
  "manual", "thesis" …);
* **period** — as the document's kind states it (a profile's ``periods``: "fiscal year
  ended June 30, 2023", an 8-K's date of report — stated with what ends them first —,
  "Fall 2021", "fiscal 2023"), else the first date printed on the page; a cover laid
  out as a table ("December | 31, | 2015") is read across its cells.

The title is ``who — kind, period`` (a part already in it is not repeated), e.g.
"AMCOR PLC — Form 10-K, fiscal year ended June 30, 2023"; a manual with nothing but
its title is titled by it ("Widget 3000 User Manual — manual"). Documents whose titles
are still the same (a 10-K and its re-filing, two copies) get their file names
appended.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import PurePath

from deepread.profiles import PROFILES
from deepread.profiles.printed import (
    DATE,
    EDGES,
    HEAD,
    WORD3,
    broken,
    clean,
    day,
    name_like,
    norm,
)
from deepread.profiles.profile import Front
from deepread.records.documents import Card, Document, FrontMatter

__all__ = ["BANNER_FLOOR", "KINDS", "Banners", "broken", "captions", "card_of", "norm", "printed"]

#: A date alone, the period of last resort.
_BARE_DATE = re.compile(rf"({DATE})", re.I)
#: Lines the last, bare-date reading looks in: a press release's dateline comes first,
#: a date further down is a deadline or a revision's.
_DATELINE = 6
#: Words naming a kind of document, looked for in the file name, metadata title and
#: first lines after the profiles' own kinds.
KINDS = (
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
_LETTER = re.compile(r"[^\W\d_]")
#: A file's title that says nothing of it (the PDF parser's list, and accession numbers).
_USELESS = re.compile(
    r"^(untitled|document\d*|microsoft word\b.*|.*\.(pdf|docx?|html?|tex|"
    r"txt)|[\d\s-]+)$",
    re.I,
)


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


def _kind_only(line: str) -> bool:
    """A line that names a kind of document and nothing else ("SYLLABUS", "FORM 10-K"):
    at most two words, the last a kind's word, or what a profile reads so."""
    words = norm(line).split()
    return bool(words) and (
        (len(words) <= 2 and words[-1] in (*PROFILES.kinds, *KINDS)) or PROFILES.kind_only(line)
    )


def _usable(line: str, banners: Banners) -> bool:
    text = line.strip(EDGES)
    # In a library a word of three letters tells a title from cover noise ("OR", "☒");
    # a document alone has no noise to tell apart, and "# Ok" is its title.
    worded = WORD3 if banners.documents > 1 else _LETTER
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
    return bool(re.fullmatch(rf"\W*{DATE}\W*", text, re.I))


def named_field(lines: Sequence[str], banners: Banners, names_only: bool = False) -> str | None:
    """A form's named value: the line above a caption in parentheses, or the text
    before it on the same line ("COCA COLA CO (Exact name of Registrant …)"). A caption
    that says "name" (:meth:`~deepread.profiles.profile.Profiles.says_name`) is the
    form's own word and is trusted in a document alone; any other caption (not with
    ``names_only``) only when other documents of the collection print it too. A value
    ending in a colon is a label, not a value."""
    fields: list[tuple[bool, str]] = []
    for value, below in pairwise(["", *lines]):
        same = _TRAILING_CAPTION.match(below)
        if same and PROFILES.says_name(same[2]) and name_like(same[1]):
            fields.append((True, same[1]))
            continue
        caption = _CAPTION.match(below)
        if not caption or not name_like(value) or _kind_only(value) or value.endswith(":"):
            continue
        if PROFILES.says_name(caption[1]):
            fields.append((True, value))
        elif not names_only and banners.printed_elsewhere(caption[0]):
            fields.append((False, value))
    for says_name, value in fields:
        if says_name:
            return clean(value)
    return next((clean(v) for _, v in fields if not banners.banner(v)), None)


def kind_of(doc: Document, lines: Sequence[str]) -> str | None:
    """The document's kind (see the module docstring)."""
    said = PROFILES.kind(Front(doc, lines, _kind_only))
    if said:
        return said
    front = doc.front or FrontMatter()
    places = [PurePath(doc.source).stem, front.metadata.get("title", ""), *lines[:3]]
    for place in places:
        words = set(norm(place).split())
        for kind in (*PROFILES.kinds, *KINDS):
            if kind in words:
                return kind
    return None


def period_of(doc: Document, lines: Sequence[str]) -> str | None:
    """The period or date the document is of (see the module docstring)."""
    # A cover laid out as a table comes as "December | 31, | 2015": its cells read on.
    head = " ".join(lines[:HEAD]).replace(" | ", " ")
    names = " ".join([PurePath(doc.source).stem.replace("_", " "), doc.title])
    for period in PROFILES.periods:
        for text in (head, names):
            found = period.pattern.search(text)
            if found:
                return period.read(found)
    found = _BARE_DATE.search(" ".join(lines[:_DATELINE]))
    return day(found[1]) if found else None


def _own_title(doc: Document) -> str:
    meta = (doc.front.metadata.get("title") if doc.front else None) or ""
    return meta if meta and not _USELESS.match(meta.strip()) else doc.title


def _first_line(lines: Sequence[str], banners: Banners) -> str | None:
    return next((clean(line) for line in lines[:15] if _usable(line, banners)), None)


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
    said = Front(doc, lines, _kind_only)
    # A form's own fields need no other documents to be read: a collection of one or
    # two documents titles its filings as a library of hundreds does.
    who = (
        named_field(lines, banners, names_only=True)
        or PROFILES.form_name(said)
        or named_field(lines, banners)
        or PROFILES.own_name(said)
        or (clean(own) if _usable(own, banners) else None)
        or _first_line(lines, banners)
        or PurePath(doc.source).stem
    )
    sections = tuple(clean(s.title, 80) for s in doc.sections[1:] if s.level == 1)
    return Card(
        title=_compose(who, kind, period),
        file=file,
        kind=kind,
        period=period,
        pages=front.pages if front else None,
        sections=sections,
    )
