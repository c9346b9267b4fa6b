"""A whole library ingested with the defaults a person runs: ``deepread ingest FOLDER…``
and ``Index.ingest(paths)``, beside ``Index.ingest(paths, workers=1)`` (a parse thread,
what ``Index.ingest`` did by default before it took the cores there are).

Each side ingests the same folders, in the same order, into a fresh store in a fresh
process, one side after the other (never two at once: the machine has few cores). Nothing
is passed but the paths (and, for the thread side, ``workers=1``): the defaults are
what is measured. For each side: wall time (the command's, or the ``ingest`` call's),
pages/s, peak RSS, documents stored, and the pages/s of each tenth of the run's pages
(the time from the stored file that passed ``k−1`` tenths of the pages to the one that
passed ``k``) — whether the per-page cost stays flat from the first filing to the last
as the store grows.

The CLI side's curve comes from its log without a terminal (a line per stored file, with
the pages done); the library sides' from their ``progress`` callback's ``stored``
events, each file weighed by its PDF pages.

Run:  python bench/ingest_defaults.py [--data DIR …] [--sides cli,library,thread]
Default data: the 155-filing library (FinanceBench dev, val and library). Prints a
markdown table and writes bench/out/ingest-defaults.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, machine_line, table, write_json
from ingest import pdf_pages
from readers_beside_ingest import LIBRARY, STANDS, ingest

CHILD = r"""
import json, resource, sys, time
import deepread
store, folders, workers = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
events = []
def progress(event, path, done, total):
    if event in ("stored", "failed"):
        events.append((time.perf_counter(), event, str(path)))
idx = deepread.Index.open(store=store)
options = {} if workers == "default" else {"workers": int(workers)}
t0 = time.perf_counter()
result = idx.ingest_report(folders, progress=progress, **options)
took = time.perf_counter() - t0
print(json.dumps({"seconds": took, "documents": len(result.documents),
                  "failures": len(result.failures),
                  "paragraphs": idx.collection.count_paragraphs(),
                  "events": [(t - t0, e, p) for t, e, p in events],
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
idx.close()
"""


def pages_of(folders: list[Path]) -> dict[str, int]:
    """Each PDF of ``folders`` (resolved path) and its pages."""
    return {
        str(path.resolve()): pdf_pages([path])
        for folder in folders
        for path in sorted(folder.glob("*.pdf"))
    }


def library_side(folders: list[Path], workers: str, pages: dict[str, int]) -> dict[str, Any]:
    """``Index.ingest_report(folders)`` in a fresh process; its curve from ``stored``."""
    store = tempfile.mkdtemp(prefix=f"deepread-bench-defaults-{workers}-")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, store, json.dumps([str(f) for f in folders]), workers],
        capture_output=True,
        text=True,
        check=True,
    )
    run = json.loads(done.stdout.strip().splitlines()[-1])
    curve, so_far = [], 0
    for t, event, path in run.pop("events"):
        if event == "stored":
            so_far += pages.get(str(Path(path).resolve()), 0)
            curve.append((t, so_far))
    run["curve"] = curve
    return run


def cli_side(folders: list[Path]) -> dict[str, Any]:
    """``deepread ingest FOLDER…`` as a person runs it (a log, no terminal), timed."""
    run = ingest(Path(tempfile.mkdtemp(prefix="deepread-bench-defaults-cli-")), folders)
    curve, last = [], 0
    for t, line in run["lines"]:
        m = STANDS.search(line)
        if m and (pages := int(m["pages"].replace(",", ""))) > last:
            last = pages
            curve.append((t, pages))
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"seconds": run["seconds"], "exit": run["exit"], "curve": curve, "peak_rss_mb": rss}


def tenths(curve: list[tuple[float, int]], total: int) -> list[float | None]:
    """Pages/s over each tenth of ``total`` pages, from a (seconds, pages done) curve."""
    rates: list[float | None] = []
    before_t, before_p = 0.0, 0
    for k in range(1, 11):
        reached = next(((t, p) for t, p in curve if p >= total * k / 10), None)
        if reached is None:
            rates.append(None)
            continue
        t, p = reached
        rates.append((p - before_p) / (t - before_t) if t > before_t else None)
        before_t, before_p = t, p
    return rates


SIDES = {
    "cli": "`deepread ingest FOLDER…` (defaults)",
    "library": "`Index.ingest(paths)` (defaults)",
    "thread": "`Index.ingest(paths, workers=1)` (a parse thread: the library's default before)",
}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", dest="folders", type=Path, action="append")
    ap.add_argument("--sides", default="cli,library,thread")
    a = ap.parse_args()
    folders = a.folders or LIBRARY
    sides = a.sides.split(",")
    pages = pages_of(folders)
    total = sum(pages.values())
    runs: dict[str, Any] = {}
    for side in sides:
        load = os.getloadavg()[0]
        if side == "cli":
            runs[side] = cli_side(folders)
        else:
            runs[side] = library_side(folders, "default" if side == "library" else "1", pages)
        runs[side]["load"] = [load, os.getloadavg()[0]]
        print(f"{side}: {runs[side]['seconds']:.0f} s, load {load:.1f}", file=sys.stderr)
    # Pages/s over the pages the side got through (a file that fails adds none).
    rows = []
    for side in sides:
        run = runs[side]
        done = run["curve"][-1][1] if run["curve"] else 0
        rates = tenths(run["curve"], done)
        rows.append(
            [
                SIDES[side],
                f"{run['seconds']:.0f} s",
                f"**{done / run['seconds']:.1f}**",
                f"{run['peak_rss_mb'] / 1024:.2f} GB",
                " ".join("–" if r is None else f"{r:.0f}" for r in rates),
                f"{run['load'][0]:.1f}–{run['load'][1]:.1f}",
            ]
        )
    m = machine()
    print(machine_line(m))
    print(
        f"input: {len(pages)} PDFs ({total:,} pages) from "
        f"{', '.join(f.name for f in folders)}; one side after the other, each a fresh "
        "store in a fresh process\n"
    )
    print(
        table(
            ["ingest", "wall", "pages/s", "peak RSS", "pages/s per tenth of the pages", "load"],
            rows,
        )
    )
    out = write_json(
        "ingest-defaults", {"machine": m, "pages": total, "files": len(pages), "runs": runs}
    )
    print(f"\nJSON: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
