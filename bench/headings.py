"""PDF heading cost against the number of headings: outline insertion and contents matching.

A long report or a regulation can carry thousands of bookmarks or contents rows. The
parser matches each outline entry to the text of its page (inserting a section for an
entry whose title is not printed) and each printed-contents row to the blocks after the
contents pages; both must cost time linear in the number of headings, not headings x
paragraphs. This script builds synthetic PDFs with fpdf2 (``tests/support/pdf_builder.py``, 20
headings a page, each over one line of text) at growing sizes and times ``parse_file``
on each, after one warm-up parse:

* **outline, printed**: N bookmarks whose titles are printed in bold on their page;
* **outline, not printed**: N bookmarks with no printed title (each becomes an inserted
  section);
* **printed contents**: N contents rows ("Topic 7 overview .... 12") on contents pages,
  then N plain title lines in the body.

Linear cost shows as a flat *ms per heading* down each kind's rows; the last column is
the ratio to the smallest size's figure.

Run:  python bench/headings.py [--sizes 500 1000 2000 4000]   (needs the dev extra: fpdf2)
Prints a markdown table and writes bench/out/headings.json.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import machine, machine_line, table, test_support, write_json

from deepread.corpus.parsing import parse_file

_pdf = test_support("pdf_builder")  # the tests' PDF writer, not a copy
RIGHT, Doc, filler = _pdf.RIGHT, _pdf.Doc, _pdf.filler

PER_PAGE = 20
ROWS_PER_CONTENTS_PAGE = 40


def outline_pdf(n: int, path: Path, *, printed: bool) -> Path:
    doc = Doc()
    for k in range(n):
        if k % PER_PAGE == 0:
            doc.page()
        doc.section(f"Topic {k} overview", 0 if k % 5 == 0 else 1)
        if printed:
            doc.line(f"Topic {k} overview", bold=True)
        doc.line(filler(8, k))
    return doc.save(path)


def contents_pdf(n: int, path: Path) -> Path:
    doc = Doc()
    contents_pages = -(-n // ROWS_PER_CONTENTS_PAGE)
    for k in range(n):
        if k % ROWS_PER_CONTENTS_PAGE == 0:
            doc.page()
            if k == 0:
                doc.line("Table of Contents", bold=True)
        doc.line(f"Topic {k} overview", size=9, advance=False)
        doc.right(str(contents_pages + 1 + k // PER_PAGE), RIGHT, size=9).gap(11)
    for k in range(n):
        if k % PER_PAGE == 0:
            doc.page()
        doc.line(f"Topic {k} overview").gap(8).line(filler(8, k)).gap(8)
    return doc.save(path)


KINDS: dict[str, Callable[[int, Path], Path]] = {
    "outline, printed": lambda n, p: outline_pdf(n, p, printed=True),
    "outline, not printed": lambda n, p: outline_pdf(n, p, printed=False),
    "printed contents": contents_pdf,
}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    a = ap.parse_args()
    load = os.getloadavg()[0]
    rows, out = [], []
    with tempfile.TemporaryDirectory() as tmp:
        parse_file(outline_pdf(20, Path(tmp) / "warm.pdf", printed=True))
        for kind, build in KINDS.items():
            first = None
            for n in a.sizes:
                path = build(n, Path(tmp) / f"{kind.replace(' ', '_')}_{n}.pdf")
                t0 = time.perf_counter()
                parsed = parse_file(path)
                dt = time.perf_counter() - t0
                per = 1000 * dt / n
                first = first or per
                out.append(
                    {
                        "kind": kind,
                        "headings": n,
                        "parse_s": dt,
                        "ms_per_heading": per,
                        "sections": len(parsed.sections) - 1,
                    }
                )
                rows.append(
                    [
                        kind,
                        n,
                        f"{dt:.2f}",
                        f"{per:.2f}",
                        len(parsed.sections) - 1,
                        f"{per / first:.2f}",
                    ]
                )
    m = machine()
    print(machine_line(m))
    print(f"load average at start: {load:.2f}\n")
    print(table(["kind", "headings", "parse s", "ms/heading", "sections", "vs smallest"], rows))
    print(f"\nJSON: {write_json('headings', {'machine': m, 'load': load, 'runs': out})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
