"""Section structure recovered from real long PDFs, measured through the public API.

Issue 11's structure acceptance, per file, using only ``parse_file`` (what ``Index``
stores):

* **10-Ks** (``*10K*.pdf`` in the FinanceBench folder): the Items its own printed table of
  contents lists — read here independently of the parser, from PDFium's plain text of the
  first pages (lines starting "Item 1A", "ITEM 7." …) — and how many of them are sections;
  Part I–IV as sections; every Item section nested under the right Part (Items 1–4 under
  Part I, 5–9 under II, 10–14 under III, 15–16 under IV); the notes to the financial
  statements as sections (note numbers that begin lines after the notes start in the
  plain text, "Note 12"/"NOTE 12"/"12." — how many of them are section titles); and the
  largest share of the filing's tokens held by one section's *direct* paragraphs
  (target ≤ 10 %).
* **Other filings** (10-Q, 8-K, earnings releases): sections and the largest share.
* **Syllabi**: sections per syllabus (target: median ≥ 8) and the largest section's share
  of the syllabus's tokens (target: none above 40 %).

Run:  python bench/structure.py [--finance DIR] [--syllabi DIR]
Prints markdown tables and writes bench/out/structure.json.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

import pypdfium2
from _common import BENCH_DIR, machine, machine_line, table, write_json

from deepread.corpus.parsing import Structured, parse_file

DATA = BENCH_DIR.parent.parent / "shared" / "data"
_ITEM = re.compile(r"^\s*item\s*(\d{1,2}[a-c]?)\b", re.I)
# "ITEMS 10, 11, 12 and 13. DIRECTORS…": one section for several Items.
_ITEMS = re.compile(r"^\s*items?\s*((?:\d{1,2}[a-c]?\s*(?:,|and|&|-|–|through)?\s*)+)", re.I)
_PART = re.compile(r"^\s*part\s+(iv|i{1,3})\b", re.I)
_NOTE_LINE = re.compile(r"^\s*(?:note\s+(\d{1,2})\b|(\d{1,2})\.\s+[A-Z][A-Za-z])", re.I)
_NOTE_TITLE = re.compile(r"^\s*(?:note\s+(\d{1,2})\b|(\d{1,2})[.:]?\s+[A-Z])", re.I)
_PART_OF_ITEM = {
    **dict.fromkeys(range(1, 5), "I"),
    **dict.fromkeys(range(5, 10), "II"),
    **dict.fromkeys(range(10, 15), "III"),
    **dict.fromkeys(range(15, 17), "IV"),
}


def plain_pages(path: Path) -> list[list[str]]:
    """PDFium's plain text of every page, as lines (the reference, not the parser)."""
    pdf = pypdfium2.PdfDocument(str(path))
    try:
        out = []
        for i in range(len(pdf)):
            page = pdf[i]
            tp = page.get_textpage()
            out.append(tp.get_text_range().splitlines())
            tp.close()
            page.close()
        return out
    finally:
        pdf.close()


_TOC_ITEM = re.compile(r"^\s*(?:item\s*)?(\d{1,2}[a-c]?)[.:]?\s+\S", re.I)


def toc_items(pages: list[list[str]]) -> list[str]:
    """Item labels ("1", "1A", "7A") listed by the printed table of contents.

    The contents page is the early page with the most item rows after a "PART I" line;
    a row is "Item 1A. Risk Factors 12", "1A. Risk Factors 12" or "1A Risk Factors 12"
    (some filings put "Item" once, as a column title).
    """
    best: list[str] = []
    for lines in pages[:10]:
        start = next((i for i, ln in enumerate(lines) if _PART.match(ln)), None)
        if start is None:
            continue
        labels: list[str] = []
        for ln in lines[start:]:
            m = _TOC_ITEM.match(ln)
            if (
                m
                and m.group(1).upper() not in labels
                and int(re.match(r"\d+", m.group(1)).group()) <= 16
            ):
                labels.append(m.group(1).upper())
        if len(labels) > len(best):
            best = labels
    return best if len(best) >= 5 else []


def note_numbers(pages: list[list[str]]) -> list[int]:
    """Note numbers 1..N that begin lines, in order, after the notes start."""
    start = next(
        (
            i
            for i, lines in enumerate(pages)
            if i > 5
            and any(
                re.match(r"^\s*notes? to (the )?(consolidated )?financial statements", ln, re.I)
                for ln in lines
            )
        ),
        None,
    )
    if start is None:
        return []
    seen: list[int] = []
    want = 1
    for lines in pages[start:]:
        for ln in lines:
            m = _NOTE_LINE.match(ln)
            if m and len(ln) < 120:
                n = int(m.group(1) or m.group(2))
                if n == want:
                    seen.append(n)
                    want += 1
    return seen


def largest_share(doc: Structured) -> float:
    total = sum(s.n_tok for s in doc.sections) or 1
    return max(s.n_tok for s in doc.sections) / total


def ancestors(doc: Structured, sec_id: int) -> list[int]:
    out = []
    parent = doc.sections[sec_id].parent
    while parent is not None:
        out.append(parent)
        parent = doc.sections[parent].parent
    return out


def tenk_row(path: Path) -> dict:
    doc = parse_file(path)
    pages = plain_pages(path)
    expected = toc_items(pages)
    titles = [s.title for s in doc.sections]
    item_secs: dict[str, int] = {}
    for s in doc.sections[1:]:
        m = _ITEMS.match(s.title)
        if m:
            for label in re.findall(r"\d{1,2}[a-c]?", m.group(1), re.I):
                item_secs.setdefault(label.upper(), s.sec_id)
    part_secs: dict[str, int] = {}
    for s in doc.sections[1:]:
        m = _PART.match(s.title)
        if m:
            part_secs.setdefault(m.group(1).upper(), s.sec_id)
    found = [i for i in expected if i in item_secs]
    nested = 0
    for label in found:
        part = _PART_OF_ITEM.get(int(re.match(r"\d+", label).group()))
        want = part_secs.get(part) if part else None
        if want is not None and want in ancestors(doc, item_secs[label]):
            nested += 1
    notes = note_numbers(pages)
    note_titles = set()
    for t in titles:
        m = _NOTE_TITLE.match(t)
        if m:
            note_titles.add(int(m.group(1) or m.group(2)))
    notes_found = [n for n in notes if n in note_titles]
    share = largest_share(doc)
    return {
        "file": path.name,
        "pages": len(pages),
        "sections": len(doc.sections) - 1,
        "parts": sorted(part_secs),
        "items_expected": len(expected),
        "items_found": len(found),
        "items_nested": nested,
        "missing": [i for i in expected if i not in item_secs],
        "notes_expected": len(notes),
        "notes_found": len(notes_found),
        "largest_share": share,
        "pass": (
            all(p in part_secs for p in ("I", "II", "III", "IV"))
            and len(found) >= 0.9 * len(expected)
            and nested == len(found)
            and len(notes_found) >= 0.9 * len(notes)
            and share <= 0.10
        ),
    }


def other_row(path: Path) -> dict:
    doc = parse_file(path)
    return {
        "file": path.name,
        "pages": len(plain_pages(path)),
        "sections": len(doc.sections) - 1,
        "largest_share": largest_share(doc),
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--finance", type=Path, default=DATA / "financebench-dev")
    ap.add_argument("--syllabi", type=Path, default=DATA / "syllabusqa-dev")
    a = ap.parse_args()
    m = machine()
    print(machine_line(m))
    out: dict = {"machine": m}
    if a.finance.is_dir():
        files = sorted(a.finance.glob("*.pdf"))
        tenks = [tenk_row(f) for f in files if "10K" in f.name.upper()]
        others = [other_row(f) for f in files if "10K" not in f.name.upper()]
        print(f"\n10-Ks ({a.finance.name}):\n")
        print(
            table(
                [
                    "file",
                    "pages",
                    "sections",
                    "Parts",
                    "Items (TOC)",
                    "found",
                    "nested",
                    "notes found",
                    "largest section",
                    "pass",
                ],
                [
                    [
                        r["file"],
                        r["pages"],
                        r["sections"],
                        " ".join(r["parts"]),
                        r["items_expected"],
                        r["items_found"],
                        r["items_nested"],
                        f"{r['notes_found']}/{r['notes_expected']}",
                        f"{100 * r['largest_share']:.1f} %",
                        "PASS" if r["pass"] else "FAIL",
                    ]
                    for r in tenks
                ],
            )
        )
        for r in tenks:
            if r["missing"]:
                print(f"  {r['file']}: Items not found: {', '.join(r['missing'])}")
        print(f"\nOther filings ({a.finance.name}):\n")
        print(
            table(
                ["file", "pages", "sections", "largest section"],
                [
                    [r["file"], r["pages"], r["sections"], f"{100 * r['largest_share']:.1f} %"]
                    for r in others
                ],
            )
        )
        out["tenk"], out["other"] = tenks, others
    if a.syllabi.is_dir():
        rows = [other_row(f) for f in sorted(a.syllabi.glob("*.pdf"))]
        med = statistics.median(r["sections"] for r in rows)
        worst = max(r["largest_share"] for r in rows)
        print(f"\nSyllabi ({a.syllabi.name}):\n")
        print(
            table(
                ["file", "pages", "sections", "largest section"],
                [
                    [r["file"], r["pages"], r["sections"], f"{100 * r['largest_share']:.1f} %"]
                    for r in rows
                ],
            )
        )
        print(
            f"\nmedian sections {med} (target ≥ 8: {'PASS' if med >= 8 else 'FAIL'}); "
            f"largest section {100 * worst:.1f} % (target ≤ 40 %: "
            f"{'PASS' if worst <= 0.40 else 'FAIL'})"
        )
        out["syllabi"] = {"rows": rows, "median_sections": med, "worst_largest_share": worst}
    print(f"\nJSON: {write_json('structure', out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
