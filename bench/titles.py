"""Titles that identify every filing (issue 34, point 4): the title deepread gives each of
FinanceBench's 155 filings (``financebench-dev`` + ``financebench-val`` +
``financebench-library``), checked for company, form and period.

What it runs:

1. each PDF parsed once with deepread's own parser (``parse_file``, at most ``--jobs`` = 2
   processes) into what a title is made from — the parser's title, the front matter
   ingest stores (``front_matter``), the sections — cached as JSON in ``--cache`` (keyed
   by file name, size and mtime), so that iterating on the title code re-reads only the
   cache (seconds, not the ~5 min of CPU the parse costs);
2. the titles made as ``Index.documents()`` makes them (``deepread.corpus.library.
   Library``, from stored front matter only), in three kinds of collection: all 155 in
   one; each filing alone in its own; and collections of two — each filing with the next
   one in file-name order (often another filing of the same company, the hardest
   pair), a filing passing only if titled right in both pairs it belongs to.

How a title is judged (the metadata — ``documents.jsonl`` and the file names — is for
this check only; deepread never reads it):

* **company**: the file name's company part (``JOHNSON_JOHNSON`` in
  ``JOHNSON_JOHNSON_2022_10K.pdf``) or ``documents.jsonl``'s company, letters and digits
  only, lower case, is found in the title's letters and digits ("johnsonjohnson" in
  "Johnson & Johnson — …"; "mcdonalds" in "McDONALD'S CORPORATION"); a few aliases,
  here only, where the filing names itself otherwise (:data:`ALIASES`: AMD is "Advanced
  Micro Devices", Block was "Square" until December 2021, a misspelt file name);
* **form**: ``10K`` → "10-K" in the title (an ``annualreport`` too, or "annual
  report"), ``10Q`` → "10-Q", ``8K`` → "8-K"; ``EARNINGS`` → "press release",
  "earnings" or "results" — or "8-K", since FinanceBench's earnings releases are often
  the 8-K that furnishes them;
* **period**: the fiscal year or quarter the file name says (``2018``, ``2023Q2``), in
  the filing's own way of stating it: a 10-K's title holds the year P its fiscal year
  ends in (FinanceBench names fiscal years so: Best Buy's fiscal 2023 ends January 28,
  2023), or a date in the first week of P+1 (a 52/53-week year: Johnson & Johnson's
  "fiscal year ended January 1, 2017" is fiscal 2016); a quarter's (``PQn``) holds
  P or P-1 (a fiscal year ending in January puts its first quarters in the calendar
  year before); an 8-K's or release's with a date in the
  file name (``dated-2023-02-23``) holds a date at most 7 days from it (the report's
  event date and its filing date differ by days) — a release may instead name its
  quarter and year P or P-1 —, else P or P-1; an earnings release's
  ``PQn`` also passes with P+1 (a fourth quarter is released the next January).
  A title whose only year comes from nothing but a bare date printed somewhere still
  passes when that date is right: the check is what the title tells a reader. A title
  that is only the file name fails all three (it tells nothing the file name did not),
  and a filing whose file name gives the wrong form (:data:`MISLABELLED`, checked by
  hand) is judged as what it is.

Run:  python bench/titles.py [--cache DIR] [--jobs 2] [--data DIR] [--only NAME …]
Prints markdown (every failure listed) and writes bench/out/titles.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime
from pathlib import Path

from _common import BENCH_DIR, SHARED_DATA, Timer, machine, machine_line, table, write_json

from deepread.corpus.library import Library
from deepread.records.documents import Document

DATA = SHARED_DATA
FOLDERS = ("financebench-dev", "financebench-val", "financebench-library")
#: Where a filing calls itself otherwise than its file name does (the bench's only
#: knowledge of companies; deepread has none).
ALIASES = {
    "amd": ("advancedmicrodevices",),
    "block": ("square",),  # Square, Inc. was renamed Block, Inc. in December 2021
    "activsionblizzard": ("activisionblizzard",),  # the file name's misspelling
}
#: Filings whose file name gives the wrong form, checked by hand: judged as what they
#: are. LOCKHEEDMARTIN_2023Q2_10Q.pdf is the earnings release "Lockheed Martin Reports
#: Second Quarter 2023 Financial Results" (14 pages, no 10-Q cover).
MISLABELLED = {"LOCKHEEDMARTIN_2023Q2_10Q": "EARNINGS"}
_NAME = re.compile(
    r"^(?P<company>.+?)_(?:(?P<year>\d{4})(?:Q(?P<q>[1-4]))?_)?(?P<form>10K|10Q|8K|EARNINGS|"
    r"annualreport)(?:[-_]dated[-_](?P<dated>\d{4}-\d{2}-\d{2}))?$",
    re.I,
)
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_DATE_WORDS = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})\s*,?\s*(\d{4})",
    re.I,
)
_DATE_NUM = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b|\b(\d{4})-(\d{2})-(\d{2})\b")


def _letters(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _dates(text: str) -> list[date]:
    """The dates a title prints ("April 12, 2023", "4/12/2023", "2023-04-12"); a
    day that does not exist ("February 30") is no date, and skipped."""
    parts = [(int(m[3]), _MONTHS[m[1].lower()[:3]], int(m[2])) for m in _DATE_WORDS.finditer(text)]
    parts += [
        (int(m[3]), int(m[1]), int(m[2])) if m[1] else (int(m[4]), int(m[5]), int(m[6]))
        for m in _DATE_NUM.finditer(text)
    ]
    found = []
    for year, month, day in parts:
        with contextlib.suppress(ValueError):  # not a calendar day: not a date
            found.append(date(year, month, day))
    return found


def judge(title: str, stem: str, meta: dict | None) -> list[str]:
    """What ``title`` fails to say of the filing ``stem`` (file name without ``.pdf``):
    a subset of ``company``, ``form``, ``period``; empty when it identifies it."""
    name = _NAME.match(stem)
    if name is None:
        raise ValueError(f"file name {stem!r} does not say company, form and year")
    if _letters(title) == _letters(stem):
        return ["company", "form", "period", "(file name only)"]  # says nothing itself
    form = MISLABELLED.get(stem, name["form"].upper())
    failed: list[str] = []
    letters = _letters(title)
    company = _letters(name["company"])
    keys = {company, *ALIASES.get(company, ())}
    if meta:
        keys.add(_letters(meta["company"]))
    if not any(k in letters for k in keys):
        failed.append("company")
    low = title.lower()
    forms = {
        "10K": ("10-k", "annual report"),
        "ANNUALREPORT": ("10-k", "annual report"),
        "10Q": ("10-q",),
        "8K": ("8-k",),
        "EARNINGS": ("press release", "earnings", "results", "8-k"),
    }[form]
    if not any(f in low for f in forms):
        failed.append("form")
    year = int(name["year"] or (meta or {}).get("doc_period") or 0)
    years = {int(y) for y in re.findall(r"\b((?:19|20)\d\d)\b", title)}
    if name["dated"]:
        want = datetime.strptime(name["dated"], "%Y-%m-%d").date()
        ok = any(abs((d - want).days) <= 7 for d in _dates(title))
        # A release dated in its name is as well told by the quarter it reports.
        ok = ok or (form == "EARNINGS" and "quarter" in low and bool(years & {year - 1, year}))
    elif form in ("10K", "ANNUALREPORT"):
        # A 52/53-week year ends on the weekend nearest December 31: "fiscal year ended
        # January 1, 2017" is fiscal 2016.
        ok = year in years or any(
            d.year == year + 1 and d.month == 1 and d.day <= 7 for d in _dates(title)
        )
    elif form == "EARNINGS":
        ok = bool(years & {year - 1, year, year + 1})
    else:
        ok = bool(years & {year - 1, year})
    if not ok:
        failed.append("period")
    return failed


# -- parsing, cached -----------------------------------------------------------------


def _parse(path: str) -> dict:
    """What a title is made from, as ingest stores it (run in a worker process)."""
    from deepread.corpus.library.front import front_matter
    from deepread.corpus.parsing import parse_file

    structured = parse_file(path)
    doc = Document(
        doc_id=0,
        title=structured.title,
        source=path,
        sections=structured.sections,
        front=front_matter(structured),
    )
    data = doc.to_dict()
    data["front"] = doc.front.to_dict() if doc.front else None  # as the store keeps it
    return data


def _key(path: Path) -> str:
    st = path.stat()
    return f"{path.name}-{st.st_size}-{int(st.st_mtime)}.json"


def parsed(paths: Sequence[Path], cache: Path, jobs: int) -> list[Document]:
    """The documents of ``paths`` (doc_ids in order), parsed once into ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    todo = [p for p in paths if not (cache / _key(p)).is_file()]
    if todo:
        print(f"parsing {len(todo)} files with {jobs} processes …", file=sys.stderr)
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, (path, data) in enumerate(
                zip(todo, pool.map(_parse, map(str, todo)), strict=True), 1
            ):
                (cache / _key(path)).write_text(json.dumps(data), encoding="utf-8")
                print(f"  {i}/{len(todo)} {path.name}", file=sys.stderr)
    docs = []
    for doc_id, path in enumerate(paths):
        data = json.loads((cache / _key(path)).read_text(encoding="utf-8"))
        data["doc_id"] = doc_id
        docs.append(Document.from_dict(data))
    return docs


# -- collections ---------------------------------------------------------------------


def titles_in(collection: Sequence[Document]) -> dict[int, str]:
    """The titles ``Index.documents()`` gives a collection of these documents."""
    return {d.doc_id: d.title for d in Library().documents(list(collection))}


def score(
    docs: Sequence[Document], titles: dict[int, Iterable[str]], meta: dict[str, dict]
) -> tuple[int, list[tuple[str, str, str]]]:
    """How many documents every one of whose titles passes, and the failures (file,
    what failed, the title)."""
    passed, failures = 0, []
    for doc in docs:
        stem = Path(doc.source).stem
        bad = [(t, judge(t, stem, meta.get(stem))) for t in titles[doc.doc_id]]
        bad = [(t, f) for t, f in bad if f]
        if bad:
            failures += [(Path(doc.source).name, "+".join(f), t) for t, f in bad]
        else:
            passed += 1
    return passed, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cache", type=Path, default=BENCH_DIR / "out" / "titles-cache")
    parser.add_argument("--jobs", type=int, default=2, help="parse processes (at most 2 here)")
    parser.add_argument("--only", nargs="*", help="file names to report (all still parsed)")
    args = parser.parse_args()

    paths = sorted(
        (p for f in FOLDERS for p in (args.data / f).glob("*.pdf")), key=lambda p: p.name
    )
    meta = {}
    for line in (args.data / "financebench-library" / "documents.jsonl").read_text().splitlines():
        row = json.loads(line)
        meta[row["doc_name"]] = row
    with Timer() as t_parse:
        docs = parsed(paths, args.cache, args.jobs)
    n = len(docs)
    with Timer() as t_titles:
        together = titles_in(docs)
        alone = {t.doc_id: t.title for d in docs for t in Library().documents([d])}
        pairs: dict[int, list[str]] = {d.doc_id: [] for d in docs}
        for i in range(n):
            pair = [docs[i], docs[(i + 1) % n]]
            for doc_id, title in titles_in(pair).items():
                pairs[doc_id].append(title)
    runs = {
        f"all {n} in one collection": {k: [v] for k, v in together.items()},
        "each alone": {k: [v] for k, v in alone.items()},
        "collections of two": pairs,
    }
    m = machine()
    pages = sum(d.front.pages or 0 for d in docs if d.front)
    print(f"## Titles of {n} filings ({pages:,} pages)\n\n{machine_line(m)}\n")
    print(f"parse (or cache read) {t_parse.s:.0f} s; titles {t_titles.s:.1f} s\n")
    rows, report = [], {"machine": m, "filings": n, "pages": pages, "runs": {}}
    only = set(args.only or ())
    for label, titles in runs.items():
        passed, failures = score(docs, titles, meta)
        rows.append([label, f"{passed} of {n}", passed / n])
        report["runs"][label] = {
            "passed": passed,
            "of": n,
            "failures": failures,
            "titles": {Path(d.source).name: titles[d.doc_id] for d in docs},
        }
    print(table(["collection", "company + form + period", "share"], rows))
    for label in runs:
        failures = report["runs"][label]["failures"]
        print(f"\n### Failures, {label}: {len(failures)}\n")
        for file, what, title in failures:
            if not only or file in only:
                print(f"- `{file}` ({what}): {title}")
    print(f"\nwrote {write_json('titles', report)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
