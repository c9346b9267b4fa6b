"""What an SEC filing's front says it is: who filed it, which form, for which period.

A filing says who it is from in its form's own fields — the value above the caption
"(Exact name of registrant as specified in its charter)" (:data:`NAME_CAPTION`, read by
the title core like any form's captioned name), a combined filing's *registrants
table* (:func:`registrant_row`) — and, where its cover printed none, as its kind names
itself (:func:`own_name`, in this order of trust): an organisation named with its
listing, ``Name (EXCHANGE: TICKER)``, as press releases name their company; an earnings
release's own heading ("Amcor reports fiscal 2023 results"); the filer a file's metadata
title names, as filing services write it ("Form 10-K for Foot Locker INC filed
03/27/2023"); the line an SEC cover prints after "Commission File Number".

Its kind (:func:`kind`): the form's label printed alone ("FORM 10-K" → "Form 10-K",
with ", Amendment No. N" when amended), an earnings release's heading ("earnings
release"), a press release's signs ("FOR IMMEDIATE RELEASE", a listed name "today
announced"). Its period (:data:`PERIODS`): "fiscal year ended June 30, 2023",
"quarterly period ended March 31, 2021", an 8-K's date of report (after its caption,
colon or not, or printed above it) — stated periods —, then a quarter ("fourth quarter
2022"), "fiscal 2023", "2022 annual report".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from deepread.profiles.printed import DATE, DIGITS, EDGES, HEAD, clean, day, name_like, norm
from deepread.profiles.profile import Front, Period

#: What a caption says when its value is the document's name: "name of registrant",
#: "name of issuer", "exact name of …" (not "name of each exchange", a table header).
NAME_CAPTION = re.compile(
    r"\bname\s+of\s+(?:the\s+)?(?:registrant|issuer|company)|\bexact\s+name\b", re.I
)
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


def kind_only(line: str) -> bool:
    """A line naming a filing's kind and nothing else ("FORM 10-K", "PRESS RELEASE")."""
    return bool(_RELEASE.fullmatch(" ".join(norm(line).split()))) or bool(
        _FORM_ONLY.fullmatch(line.strip(EDGES))
    )


def registrant_row(front: Front) -> str | None:
    """The first registrant of a cover that lists its registrants in a table — a
    combined filing's "Commission File Number | Exact Name of Registrant as Specified
    in its Charter | State | IRS Employer Identification Number" header, then rows
    such as "1-12609 PG&E Corporation California 94-3234914". The name runs from the
    file number to its legal suffix ("Corporation", "Inc."), else over the upper-case
    words that open the row."""
    lines = front.lines
    for i, line in enumerate(lines[:HEAD]):
        if not _REGISTRANT_HEADER.search(line):
            continue
        for row in lines[i + 1 : i + 10]:
            found = _FILE_ROW.match(row)
            if not found:
                continue
            rest = _EIN.sub("", found["rest"]).strip(EDGES)
            suffixes = list(_SUFFIX.finditer(rest))
            if suffixes:
                name = rest[: suffixes[-1].end()]
            else:
                name = " ".join(
                    itertools.takewhile(lambda w: not any(c.islower() for c in w), rest.split())
                )
            return clean(name) if name_like(name) else None
        return None
    return None


def after_file_number(front: Front) -> str | None:
    """The name an SEC cover prints right after its "Commission File Number" line —
    the form's order of fields — when it is name-like and no caption or listing said
    who (a cover whose caption under the name was lost)."""
    lines = front.lines
    for i, line in enumerate(lines[:HEAD]):
        if not _FILE_NUMBER.search(line):
            continue
        following = next((x for x in lines[i + 1 : i + 3] if not DIGITS.fullmatch(x)), "")
        if name_like(following) and not front.kind_only(following):
            return clean(following)
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
            return clean(" ".join(words))
    return None


def results_heading(front: Front) -> str | None:
    """Who an earnings release's own heading says reports its results ("Amcor" in
    "Amcor reports fiscal 2023 results"), when one of its first lines is one."""
    for line in front.lines[:_HEADLINE]:
        if len(line.split()) > 30:  # a heading, not a paragraph that says so
            continue
        found = _RESULTS.match(_EXHIBIT.sub("", line.strip(EDGES)))
        if found and name_like(found["who"]) and not front.kind_only(found["who"]):
            return clean(found["who"])
    return None


def filer_named(front: Front) -> str | None:
    """The filer a file's metadata title names, as filing services write it: "Form
    10-K for Foot Locker INC filed 03/27/2023" → "Foot Locker INC". Read before the
    banners judge the title: a company's name printed by several of its filings is
    still its name."""
    doc = front.doc
    meta = (doc.front.metadata.get("title") if doc.front else None) or ""
    found = _FILED_FOR.match(" ".join(meta.split()))
    return clean(found["who"]) if found and name_like(found["who"]) else None


def own_name(front: Front) -> str | None:
    """Who the filing is from where its cover's fields do not say (see the module
    docstring)."""
    return (
        listed_name(front.lines[:HEAD])
        or results_heading(front)
        or filer_named(front)
        or after_file_number(front)
    )


def kind(front: Front) -> str | None:
    """The filing's kind as it prints it (see the module docstring)."""
    lines = front.lines
    for line in lines[:HEAD]:
        found = _FORM.search(line)
        if found and len(line.split()) <= 12:
            form = f"Form {found[1].upper()}"
            amended = next((m for m in map(_AMENDMENT.search, lines[:HEAD]) if m), None)
            return f"{form}, Amendment No. {amended[1]}" if amended else form
    if results_heading(front):
        return "earnings release"
    head = lines[:12]
    if any(_RELEASE.search(line) for line in head) or any(
        (m := _LISTED.search(line))
        and re.search(r"\btoday\s+(?:announced|reported)\b", line[m.end() : m.end() + 80], re.I)
        for line in head
    ):
        return "press release"
    return None


#: A filing's periods: stated with what ends them, then named alone.
PERIODS = (
    Period(
        re.compile(
            rf"\b((?:fiscal\s+)?year|quarterly\s+period|quarter|"
            rf"(?:three|six|nine|twelve)\s+months)\s+ended:?\s+({DATE})",
            re.I,
        ),
        lambda m: f"{' '.join(m[1].lower().split())} ended {day(m[2])}",
        stated=True,
    ),
    Period(
        # An 8-K's "Date of Report (Date of earliest event reported): May 5, 2023", the
        # colon often lost, or the date printed above its caption.
        re.compile(
            rf"\bdate\s+of\s+report\b(?:\s*\([^()]{{0,60}}\))?[\s:)]{{0,4}}({DATE})",
            re.I,
        ),
        lambda m: f"report of {day(m[1])}",
        stated=True,
    ),
    Period(
        re.compile(rf"({DATE})\s*\(\s*date\s+of\s+(?:report|earliest\s+event)", re.I),
        lambda m: f"report of {day(m[1])}",
        stated=True,
    ),
    Period(
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
    Period(
        re.compile(r"\b(\d{4})\s+(first|second|third|fourth)[-\s]quarter\b", re.I),
        lambda m: f"{m[2].lower()} quarter {m[1]}",
    ),
    Period(re.compile(r"\bfiscal\s+(?:year\s+)?(\d{4})\b", re.I), lambda m: f"fiscal {m[1]}"),
    Period(re.compile(r"\b(\d{4})\s+annual\s+report\b", re.I), lambda m: f"annual report {m[1]}"),
)
