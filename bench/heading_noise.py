"""PDF headings kept and noise dropped: what a filing's TOC shows, counted per class.

Issue 36 found a 10-Q's TOC opening with its cover page's lines as sections
("Washington, D.C. 20549", "OR", "Yes ☒ No ☐") and holding pieces of titles cut where a
line wrapped ("Fair Value at", "Accumulated Other"). For every PDF of the given folders
this counts the heading blocks ``read_blocks`` makes, by class:

* **labelled**: Part / Item / Note headings — a filing's structure, to be kept;
* **other**: every other heading;
* **cover**: headings of a filing's cover — in a document whose first page names the
  Securities and Exchange Commission, those on its first two pages before the first
  Part or Item heading, the form's own line ("FORM 10-Q") not counted;
* **dangling**: headings ending on a word that needs another ("at", "of", "and",
  "other"…; :data:`deepread.corpus.parsing.pdf.fragments.DANGLING`);
* **named**: the lines the issue names ("Washington, D.C. 20549", "OR", "Yes No",
  "Fair Value at", "Accumulated Other") as headings.

Run it before and after a parser change and compare (one line per file, totals last):

    python bench/heading_noise.py /work/shared/data/financebench-dev \
        /work/shared/data/financebench-val > after.tsv
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from _common import machine, machine_line

from deepread.corpus.parsing import read_blocks
from deepread.corpus.parsing.pdf.fragments import fragment

LABELLED = re.compile(r"^\W*(?:part\s+[ivx\d]|items?\s*\d|note\s+\d)", re.I)
FORM = re.compile(r"^\W*form\s+\d", re.I)
NAMED = re.compile(
    r"^(?:washington,? d\.?c\.? 20549|or|yes\W*no\W*|fair value at|accumulated other)$", re.I
)
CLASSES = ("labelled", "other", "cover", "dangling", "named")


def counts(path: Path) -> dict[str, int]:
    blocks = read_blocks(path).blocks
    headings = [b for b in blocks if b.kind == "heading"]
    first_page = " ".join(b.text for b in blocks if b.page == 1)
    sec_cover = bool(re.search(r"securities\s+and\s+exchange\s+commission", first_page, re.I))
    first_label = next((b.page for b in headings if LABELLED.match(b.text)), None) or 10**6
    out = dict.fromkeys(CLASSES, 0)
    seen_label = False
    for b in headings:
        text = " ".join(b.text.split())
        labelled = bool(LABELLED.match(text))
        seen_label = seen_label or labelled
        out["labelled" if labelled else "other"] += 1
        if (
            sec_cover
            and not seen_label
            and (b.page or 0) <= min(2, first_label)
            and not FORM.match(text)
        ):
            out["cover"] += 1
        out["dangling"] += fragment(text)
        out["named"] += bool(NAMED.match(text))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    total = dict.fromkeys(CLASSES, 0)
    print("file\t" + "\t".join(CLASSES))
    for folder in args.folders:
        for path in sorted(folder.glob("*.pdf")):
            found = counts(path)
            for name in CLASSES:
                total[name] += found[name]
            print(f"{folder.name}/{path.name}\t" + "\t".join(str(found[c]) for c in CLASSES))
            sys.stdout.flush()
    print("total\t" + "\t".join(str(total[c]) for c in CLASSES))
    print(f"# {machine_line(machine())}", file=sys.stderr)


if __name__ == "__main__":
    main()
