"""PDF parsing speed: pages per second of ``parse_file`` on real filings and syllabi.

Per file, ``parse_file`` (the public entry point: PDFium text, furniture, tables,
headings, the section tree with tiktoken counts) is timed once after one warm-up parse of
the first file (imports, tiktoken's tables). Beside it, on the same file in the same
run, PDFium's own work — loading each page and building its text page, with nothing
read out of it — is timed: the floor no parser built on PDFium can go under, and a
yardstick for how loaded the machine was (the ratio parse / PDFium is what to compare
across runs on a shared machine).

Target (issue 11): >= 40 pages/s over the FinanceBench dev filings.

Run:  python bench/parse.py [--folder DIR ...]
Prints a markdown table and writes bench/out/parse.json.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c
from _common import BENCH_DIR, machine, machine_line, table, write_json

from deepread.corpus.parsing import parse_file

DATA = BENCH_DIR.parent.parent / "shared" / "data"


def pdfium_floor(path: Path) -> float:
    """Seconds PDFium takes to load every page and build its text page."""
    t0 = time.perf_counter()
    pdf = pypdfium2.PdfDocument(str(path))
    for i in range(len(pdf)):
        page = pdfium_c.FPDF_LoadPage(pdf.raw, i)
        textpage = pdfium_c.FPDFText_LoadPage(page)
        pdfium_c.FPDFText_ClosePage(textpage)
        pdfium_c.FPDF_ClosePage(page)
    pdf.close()
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--folder",
        type=Path,
        action="append",
        help="folder of PDFs (repeatable; default: the FinanceBench dev filings)",
    )
    a = ap.parse_args()
    folders = a.folder or [DATA / "financebench-dev"]
    files = sorted(f for d in folders for f in d.glob("*.pdf"))
    if not files:
        print("no PDFs found", file=sys.stderr)
        return 1
    parse_file(files[0])  # warm-up: imports, tiktoken tables
    load = os.getloadavg()[0]
    rows, out = [], []
    total_pages = total_s = total_floor = 0.0
    for f in files:
        floor = pdfium_floor(f)
        t0 = time.perf_counter()
        doc = parse_file(f)
        dt = time.perf_counter() - t0
        pages = len(pypdfium2.PdfDocument(str(f)))
        total_pages += pages
        total_s += dt
        total_floor += floor
        out.append(
            {
                "file": f.name,
                "pages": pages,
                "parse_s": dt,
                "pdfium_s": floor,
                "sections": len(doc.sections) - 1,
                "paragraphs": len(doc.paragraphs),
            }
        )
        rows.append(
            [
                f.name,
                pages,
                f"{dt:.2f}",
                f"{pages / dt:.1f}",
                f"{floor:.2f}",
                f"{dt / floor:.1f}x",
                len(doc.paragraphs),
            ]
        )
    rate = total_pages / total_s
    rows.append(
        [
            "**total**",
            int(total_pages),
            f"{total_s:.1f}",
            f"**{rate:.1f}**",
            f"{total_floor:.1f}",
            f"{total_s / total_floor:.1f}x",
            "",
        ]
    )
    m = machine()
    print(machine_line(m))
    print(f"load average at start: {load:.2f} (2 cores shared by other sessions)\n")
    print(
        table(
            ["file", "pages", "parse s", "pages/s", "PDFium alone s", "parse/PDFium", "paragraphs"],
            rows,
        )
    )
    print(
        f"\ntarget >= 40 pages/s: {'PASS' if rate >= 40 else 'FAIL'} ({rate:.1f}); "
        f"PDFium alone: {total_pages / total_floor:.1f} pages/s"
    )
    path = write_json(
        "parse",
        {
            "machine": m,
            "load_average": load,
            "files": out,
            "pages_per_s": rate,
            "pdfium_pages_per_s": total_pages / total_floor,
        },
    )
    print(f"JSON: {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
