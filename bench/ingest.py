"""Ingest throughput, its overhead over embedding alone, peak memory, and re-ingest time.

In one run, one after the other (never concurrently):

1. a subprocess opens a fresh store and runs ``Index.ingest`` on the devset folder
   (6 HTML pages + 3 PDFs): parse, embed, write. Its wall time is taken around the
   ``ingest`` call only (model load and imports are reported separately). The
   subprocess then closes the store, re-opens it and ingests the unchanged folder again
   (every file should be skipped), and finally ingests the folder once more into a
   fresh collection: the *warm* ingest, with the parser libraries imported and the
   model's first run done, as in a long-running process and as on the embedding-alone
   side below (which excludes its warm-up call). Its peak RSS is ``getrusage(RUSAGE_CHILDREN)
   .ru_maxrss`` read by this process after the subprocess exits.
2. this process parses the same files (``parse_file``) and times
   ``local_embeddings().embed_array(texts)`` over exactly the texts ingest embeds (each
   paragraph's search text: section title + text, tables as cell text), in one call,
   with the model already loaded and warmed up. The bare paragraph texts (shorter: no
   title) are timed too, for reference.

Reported: both times, paragraphs/s, the cold ingest/embedding ratio (issue 2: <= 1.5),
the warm throughput ratio embedding/ingest (issue 5: >= 0.8; the cold one is shown too:
its gap is the one-time import of unstructured and spaCy, ~0.9 s), peak RSS of
the ingest subprocess (target <= 1.5 GB) and the re-ingest time as % of the first.
``--repeats N`` repeats the pair N times, alternating, and reports the median.

PDF folders (issue 11): ``--data DIR`` ingests any folder (e.g. the FinanceBench dev
filings); the pages of its PDFs are counted and ingest's pages/s reported (target >= 6
pages/s, and ingest <= 1.5x embedding alone). ``--rss-pages 500`` instead builds one
PDF of that many pages by concatenating the folder's PDFs with PDFium (a long filing
with its exhibits), ingests only it in a fresh subprocess and reports that process's
peak RSS (target <= 1.5 GB).

Ingest on every core (issue 26): ``--workers 1,2`` runs, in one invocation and one after
the other, a cold ingest of the folder per worker count (``Index.ingest(workers=N)``: N
processes parse while the ingest's process embeds and writes; 1 = a parse thread) — the
order alternating between repeats — and embedding the same texts alone once per repeat.
Reported per worker count: the ingest time, pages/s, the ratio to embedding alone, and
the speed against one worker.

A shelf of filings (issue 34 §1): ``--taught`` ingests the same files twice, each into a
fresh store in a fresh process, one after the other (the order alternating between
repeats): today's default — the model for the first 20,000 paragraphs, then the table it
taught on them (:mod:`deepread.corpus.taught_vectors`) — and ``exact_vectors=True``, the
model for every paragraph, as before. ``--data`` may be given more than once (the PDFs of
all, in name order, as ``bench/library.py --shelf`` takes them); ``--files N`` takes the
first N; ``--workers N`` parsing processes on each side (default 2, as ``deepread ingest``
takes one per core). Reported per side: time, pages/s, the speed-up, peak RSS (the child's own
``ru_maxrss``), paragraphs embedded by the table, and the rate after the table was taught
(pages of the files stored after the "teach" event over the time since).

Run:  python bench/ingest.py [--data DIR] [--repeats 1] [--rss-pages N] [--workers 1,2]
      [--taught [--files N]]
Prints a markdown table and writes bench/out/ingest.json (ingest-rss.json for --rss-pages,
ingest-workers.json for --workers, ingest-taught.json for --taught).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DEVSET, Timer, machine, machine_line, table, write_json

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import deepread
t_import = time.perf_counter() - t0
store, folder = sys.argv[1], sys.argv[2]
t0 = time.perf_counter(); idx = deepread.Index.open(store=store, collection="bench")
t_open = time.perf_counter() - t0
t0 = time.perf_counter(); docs = idx.ingest([folder]); t_ingest = time.perf_counter() - t0
n_para = idx.collection.count_paragraphs()
idx.close()
if len(sys.argv) > 3:  # "once": the peak-RSS run ingests a single time
    print(json.dumps({"import_s": t_import, "open_s": t_open, "ingest_s": t_ingest,
                      "documents": len(docs), "paragraphs": n_para}))
    sys.exit(0)
t0 = time.perf_counter(); idx = deepread.Index.open(store=store, collection="bench")
t_reopen = time.perf_counter() - t0
t0 = time.perf_counter(); rep = idx.ingest_report([folder]); t_again = time.perf_counter() - t0
idx.close()
idx = deepread.Index.open(store=store, collection="bench-warm")
t0 = time.perf_counter(); idx.ingest([folder]); t_warm = time.perf_counter() - t0
idx.close()
print(json.dumps({"import_s": t_import, "open_s": t_open, "ingest_s": t_ingest,
                  "documents": len(docs), "paragraphs": n_para, "reopen_s": t_reopen,
                  "reingest_s": t_again, "reingest_skipped": len(rep.skipped),
                  "reingest_stored": len(rep.documents), "warm_ingest_s": t_warm}))
"""


CHILD_WORKERS = r"""
import json, sys, time
import deepread
store, folder, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
idx = deepread.Index.open(store=store, collection="bench")
t0 = time.perf_counter(); docs = idx.ingest([folder], workers=workers)
t_ingest = time.perf_counter() - t0
n_para = idx.collection.count_paragraphs()
idx.close()
print(json.dumps({"workers": workers, "ingest_s": t_ingest, "documents": len(docs),
                  "paragraphs": n_para}))
"""


CHILD_TAUGHT = r"""
import json, resource, sys, time
import deepread
store, listing, exact = sys.argv[1], sys.argv[2], sys.argv[3] == "exact"
workers = int(sys.argv[4])
paths = json.loads(open(listing).read())
events = []
def progress(event, path, done, total):
    if event in ("stored", "failed", "teach"):
        events.append((time.perf_counter(), event, str(path)))
idx = deepread.Index.open(store=store, collection="bench")
t0 = time.perf_counter()
result = idx.ingest_report(paths, progress=progress, exact_vectors=exact, workers=workers)
t_ingest = time.perf_counter() - t0
n_para = idx.collection.count_paragraphs()
idx.close()
print(json.dumps({"ingest_s": t_ingest, "documents": len(result.documents),
                  "failures": len(result.failures), "paragraphs": n_para,
                  "texts_embedded": result.texts_embedded,
                  "texts_by_table": result.texts_by_table,
                  "events": [(t - t0, e, p) for t, e, p in events],
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def taught_run(folders: list[Path], files_limit: int, repeats: int, workers: int) -> int:
    """Today's ingest (a taught table past 20,000 paragraphs) and the model for every
    paragraph, side by side on the same files."""
    files = sorted((p for f in folders for p in f.glob("*.pdf")), key=lambda p: p.name)
    if files_limit:
        files = files[:files_limit]
    pages_of = {str(f.resolve()): pdf_pages([f]) for f in files}
    pages = sum(pages_of.values())
    listing = Path(tempfile.mkdtemp(prefix="deepread-bench-taught-")) / "files.json"
    listing.write_text(json.dumps([str(f.resolve()) for f in files]))
    sides = ("taught", "exact")
    runs = []
    for r in range(repeats):
        got = {}
        for side in sides if r % 2 == 0 else tuple(reversed(sides)):
            store = tempfile.mkdtemp(prefix=f"deepread-bench-{side}-")
            proc = subprocess.run(
                [sys.executable, "-c", CHILD_TAUGHT, store, str(listing), side, str(workers)],
                capture_output=True,
                text=True,
                check=True,
            )
            got[side] = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"run {r + 1}: {side}: {got[side]['ingest_s']:.0f} s, "
                f"load {os.getloadavg()[0]:.1f}",
                file=sys.stderr,
            )
        runs.append(got)
    rows = []
    med = lambda f: statistics.median(f(x) for x in runs)  # noqa: E731
    exact_s = med(lambda x: x["exact"]["ingest_s"])
    for side, label in (
        ("exact", "the model for every paragraph (`exact_vectors=True`)"),
        ("taught", "default: the model, then the table it taught"),
    ):
        ingest_s = med(lambda x, s=side: x[s]["ingest_s"])
        after = []
        for x in runs:
            events = x[side]["events"]
            taught_at = next((t for t, e, _ in events if e == "teach"), None)
            if taught_at is not None:
                later = [(t, p) for t, e, p in events if e == "stored" and t > taught_at]
                if later:
                    done = sum(pages_of.get(p, 0) for _, p in later)
                    after.append(done / (later[-1][0] - taught_at))
        rows.append(
            [
                label,
                f"{ingest_s:.0f} s",
                f"{pages / ingest_s:.1f}",
                f"{exact_s / ingest_s:.2f}×",
                f"{statistics.median(after):.1f}" if after else "–",
                f"{med(lambda x, s=side: x[s]['peak_rss_mb']) / 1024:.2f} GB",
                f"{runs[0][side]['texts_by_table']:,} of {runs[0][side]['texts_embedded']:,}",
            ]
        )
    m = machine()
    print(machine_line(m))
    print(
        f"input: {len(files)} PDFs ({pages:,} pages) from "
        f"{', '.join(f.name for f in folders)}, {runs[0]['exact']['paragraphs']:,} "
        f"paragraphs stored; {workers} parsing process(es) each, as `deepread ingest` "
        f"uses one per core; {repeats} run(s), medians; load average "
        f"{os.getloadavg()[0]:.1f} at the end\n"
    )
    print(
        table(
            [
                "ingest",
                "time",
                "pages/s",
                "speed",
                "pages/s after teaching",
                "peak RSS",
                "texts embedded by the table",
            ],
            rows,
        )
    )
    out = write_json(
        "ingest-taught",
        {"machine": m, "files": [f.name for f in files], "pdf_pages": pages, "runs": runs},
    )
    print(f"\nJSON: {out}", file=sys.stderr)
    return 0


def run_workers_child(folder: Path, workers: int) -> dict:
    """A cold ingest of ``folder`` with ``workers`` parsing processes, in a fresh process."""
    store = tempfile.mkdtemp(prefix="deepread-bench-workers-")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD_WORKERS, store, str(folder), str(workers)],
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["child_wall_s"] = time.perf_counter() - t0
    return out


def workers_run(folder: Path, counts: list[int], repeats: int) -> int:
    """Cold ingests with each worker count side by side, and embedding alone."""
    files = sorted(p for p in folder.iterdir() if p.suffix in (".html", ".pdf"))
    pages = pdf_pages(files)
    runs = []
    for r in range(repeats):
        order = counts if r % 2 == 0 else list(reversed(counts))
        ingests = {}
        for n in order:
            ingests[n] = run_workers_child(folder, n)
            print(
                f"run {r + 1}: {n} worker(s): ingest {ingests[n]['ingest_s']:.1f} s, "
                f"load {os.getloadavg()[0]:.1f}",
                file=sys.stderr,
            )
        alone = embed_alone(files, plain_too=False)
        print(f"run {r + 1}: embedding alone {alone['embed_s']:.1f} s", file=sys.stderr)
        runs.append(
            {
                "ingest": {str(n): v for n, v in ingests.items()},
                "embed_alone": alone,
                "load_after": os.getloadavg()[0],
            }
        )
    med = lambda f: statistics.median(f(x) for x in runs)  # noqa: E731
    embed_s = med(lambda x: x["embed_alone"]["embed_s"])
    base = med(lambda x: x["ingest"][str(counts[0])]["ingest_s"])
    rows = []
    for n in counts:
        ingest_s = med(lambda x, n=n: x["ingest"][str(n)]["ingest_s"])
        ratio = med(lambda x, n=n: x["ingest"][str(n)]["ingest_s"] / x["embed_alone"]["embed_s"])
        rows.append(
            [
                f"`Index.ingest(workers={n})`, cold process",
                f"{ingest_s:.1f} s",
                f"{pages / ingest_s:.2f} pages/s",
                f"{ratio:.2f}",
                f"{base / ingest_s:.2f}×",
            ]
        )
    rows.append(
        [
            "`embed_array` over the same texts alone",
            f"{embed_s:.1f} s",
            f"{pages / embed_s:.2f} pages/s",
            "1.00",
            "",
        ]
    )
    m = machine()
    print(machine_line(m))
    print(
        f"input: {folder.name}: {len(files)} files ({pages} PDF pages), "
        f"{runs[0]['ingest'][str(counts[0])]['paragraphs']} paragraphs stored; "
        f"{repeats} run(s), medians; load average {os.getloadavg()[0]:.1f} at the end\n"
    )
    print(
        table(
            [
                "measure",
                "time",
                "rate",
                "ratio to embedding alone",
                f"speed vs {counts[0]} worker(s)",
            ],
            rows,
        )
    )
    out = write_json(
        "ingest-workers",
        {"machine": m, "folder": str(folder), "pdf_pages": pages, "workers": counts, "runs": runs},
    )
    print(f"\nJSON: {out}", file=sys.stderr)
    return 0


def run_child(folder: Path, once: bool = False) -> dict:
    store = tempfile.mkdtemp(prefix="deepread-bench-ingest-")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, store, str(folder), *(["once"] if once else [])],
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # ru_maxrss is KiB on Linux; the max over all waited-for children so far, which is
    # this one as long as it is the largest (they all do the same work).
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return out


def embed_alone(files: list[Path], plain_too: bool = True) -> dict:
    from deepread.corpus.parsing import parse_file
    from deepread.corpus.pipeline import search_texts
    from deepread.stores.embeddings import local_embeddings

    model = local_embeddings()
    with Timer() as t_parse:
        docs = [parse_file(f) for f in files]
    # Exactly what ingest embeds: each paragraph's search text (section title + text,
    # tables as cell text), all in one call — the cheapest way to embed them.
    texts = [t for d in docs for t in search_texts(d)]
    plain = [p.text for d in docs for p in d.paragraphs]
    model.embed_array(texts[:64])  # warm-up
    with Timer() as t_embed:
        model.embed_array(texts)
    t_plain = None
    if plain_too:
        with Timer() as t_plain:
            model.embed_array(plain)
    return {
        "paragraphs": len(texts),
        "parse_s": t_parse.s,
        "embed_s": t_embed.s,
        "embed_plain_s": t_plain.s if t_plain else None,
    }


def pdf_pages(files: list[Path]) -> int:
    import pypdfium2

    total = 0
    for f in files:
        if f.suffix == ".pdf":
            pdf = pypdfium2.PdfDocument(str(f))
            total += len(pdf)
            pdf.close()
    return total


def build_long_pdf(folder: Path, pages: int, out: Path) -> int:
    """One PDF of ``pages`` pages: the folder's PDFs one after another (repeated if short)."""
    import pypdfium2

    sources = sorted(folder.glob("*.pdf"))
    dest = pypdfium2.PdfDocument.new()
    while len(dest) < pages:
        for src_path in sources:
            src = pypdfium2.PdfDocument(str(src_path))
            take = min(len(src), pages - len(dest))
            dest.import_pages(src, list(range(take)))
            src.close()
            if len(dest) >= pages:
                break
    dest.save(str(out))
    n = len(dest)
    dest.close()
    return n


def rss_run(folder: Path, pages: int) -> int:
    """Peak RSS of a fresh process ingesting one long PDF built from ``folder``."""
    work = Path(tempfile.mkdtemp(prefix="deepread-bench-rss-"))
    (work / "in").mkdir()
    n = build_long_pdf(folder, pages, work / "in" / "long-filing.pdf")
    t0 = time.perf_counter()
    child = run_child(work / "in", once=True)
    wall = time.perf_counter() - t0
    m = machine()
    print(machine_line(m))
    print(f"input: one PDF of {n} pages built from {folder.name}\n")
    print(
        table(
            ["measure", "value", "target"],
            [
                [
                    "peak RSS of the ingest subprocess",
                    f"{child['peak_rss_mb']:.0f} MB",
                    f"≤ 1.5 GB: {'PASS' if child['peak_rss_mb'] <= 1536 else 'FAIL'}",
                ],
                [
                    "Index.ingest (cold process)",
                    f"{child['ingest_s']:.1f} s",
                    f"{n / child['ingest_s']:.1f} pages/s",
                ],
                ["paragraphs stored", str(child["paragraphs"]), ""],
                ["subprocess wall time (imports, model load, one ingest)", f"{wall:.0f} s", ""],
            ],
        )
    )
    print(
        f"\nJSON: {write_json('ingest-rss', {'machine': m, 'pages': n, 'child': child})}",
        file=sys.stderr,
    )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--data",
        "--folder",
        dest="folders",
        type=Path,
        action="append",
        help="folder to ingest (default: the devset's docs; more than one with --taught)",
    )
    ap.add_argument(
        "--taught",
        action="store_true",
        help="today's ingest and the model for every paragraph, side by side",
    )
    ap.add_argument("--files", type=int, default=0, help="with --taught: the first N PDFs")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument(
        "--rss-pages",
        type=int,
        default=0,
        help="measure peak RSS on one PDF of this many pages built from the folder",
    )
    ap.add_argument(
        "--workers",
        default="",
        help="compare cold ingests with these numbers of parsing processes "
        "(e.g. 1,2) side by side, and embedding alone",
    )
    ap.add_argument(
        "--cold-only",
        action="store_true",
        help="only the cold ingest and embedding its texts alone (no re-ingest, "
        "no warm ingest, no bare-text reference): half the time, for a "
        "large folder on a machine that is quiet only briefly",
    )
    a = ap.parse_args()
    folders = a.folders or [DEVSET / "docs"]
    if a.taught:
        return taught_run(folders, a.files, a.repeats, int(a.workers or 2))
    a.folder = folders[0]
    if a.rss_pages:
        return rss_run(a.folder, a.rss_pages)
    if a.workers:
        return workers_run(a.folder, [int(n) for n in a.workers.split(",")], a.repeats)
    files = sorted(p for p in a.folder.iterdir() if p.suffix in (".html", ".pdf"))
    pages = pdf_pages(files)

    runs = []
    for r in range(a.repeats):
        t0 = time.perf_counter()
        child = run_child(a.folder, once=a.cold_only)
        child["child_wall_s"] = time.perf_counter() - t0
        alone = embed_alone(files, plain_too=not a.cold_only)
        runs.append({"ingest": child, "embed_alone": alone})
        print(
            f"run {r + 1}: ingest {child['ingest_s']:.1f} s (warm "
            f"{child.get('warm_ingest_s', float('nan')):.1f} s), embedding alone "
            f"{alone['embed_s']:.1f} s",
            file=sys.stderr,
        )

    med = lambda f: statistics.median(f(x) for x in runs)  # noqa: E731
    ingest_s = med(lambda x: x["ingest"]["ingest_s"])
    embed_s = med(lambda x: x["embed_alone"]["embed_s"])
    ratio = med(lambda x: x["ingest"]["ingest_s"] / x["embed_alone"]["embed_s"])
    if a.cold_only:
        return report_cold(a, files, pages, runs, ingest_s, embed_s, ratio)
    warm_s = med(lambda x: x["ingest"]["warm_ingest_s"])
    warm_tp = med(lambda x: x["embed_alone"]["embed_s"] / x["ingest"]["warm_ingest_s"])
    reingest_pct = med(lambda x: 100 * x["ingest"]["reingest_s"] / x["ingest"]["ingest_s"])
    peak_mb = max(x["ingest"]["peak_rss_mb"] for x in runs)
    n_ingest = runs[0]["ingest"]["paragraphs"]
    n_embed = runs[0]["embed_alone"]["paragraphs"]
    first = runs[0]["ingest"]

    m = machine()
    rows = [
        [
            "Index.ingest, fresh store (parse + embed + write)",
            f"{ingest_s:.1f} s",
            f"{n_ingest / ingest_s:.0f} paragraphs/s",
            "",
        ],
        *(
            [
                [
                    "PDF pages ingested per second (cold process)",
                    f"{pages} pages",
                    f"{pages / ingest_s:.1f} pages/s",
                    f"≥ 6: {'PASS' if pages / ingest_s >= 6 else 'FAIL'}",
                ]
            ]
            if pages
            else []
        ),
        [
            "embed_array over the same texts alone",
            f"{embed_s:.1f} s",
            f"{n_embed / embed_s:.0f} paragraphs/s",
            "",
        ],
        [
            "ratio ingest / embedding (cold process)",
            f"{ratio:.2f}",
            "",
            f"≤ 1.5: {'PASS' if ratio <= 1.5 else 'FAIL'}",
        ],
        [
            "Index.ingest again into a fresh collection (warm process)",
            f"{warm_s:.1f} s",
            f"{n_ingest / warm_s:.0f} paragraphs/s",
            "",
        ],
        [
            "throughput ingest / embedding (warm process)",
            f"{warm_tp:.2f}",
            "",
            f"≥ 0.8: {'PASS' if warm_tp >= 0.8 else 'FAIL'}",
        ],
        ["throughput ingest / embedding (cold process)", f"{1 / ratio:.2f}", "", ""],
        [
            "(reference) embed_array over the bare paragraph texts",
            f"{med(lambda x: x['embed_alone']['embed_plain_s']):.1f} s",
            "",
            "ingest embeds title + text",
        ],
        [
            "peak RSS of the ingest subprocess",
            f"{peak_mb:.0f} MB",
            "",
            f"≤ 1.5 GB: {'PASS' if peak_mb <= 1536 else 'FAIL'}",
        ],
        [
            "re-ingest, unchanged folder",
            f"{med(lambda x: x['ingest']['reingest_s']):.3f} s",
            f"{reingest_pct:.1f} % of first ingest",
            f"{first['reingest_skipped']} skipped, {first['reingest_stored']} stored",
        ],
        [
            "(not in the ingest time) import deepread / Index.open (model load)",
            f"{first['import_s']:.1f} s / {first['open_s']:.1f} s",
            "",
            "",
        ],
        [
            "(not in the ingest time) parse_file of all files, alone",
            f"{runs[0]['embed_alone']['parse_s']:.1f} s",
            "",
            "",
        ],
    ]
    return report(
        m,
        a,
        files,
        pages,
        runs,
        rows,
        "",
        {
            "median": {
                "ingest_s": ingest_s,
                "embed_s": embed_s,
                "ratio": ratio,
                "reingest_pct": reingest_pct,
                "warm_ingest_s": warm_s,
                "warm_throughput_ratio": warm_tp,
            },
            "peak_rss_mb": peak_mb,
        },
    )


def report_cold(
    a: argparse.Namespace,
    files: list[Path],
    pages: int,
    runs: list[dict],
    ingest_s: float,
    embed_s: float,
    ratio: float,
) -> int:
    """The ``--cold-only`` table: pages/s, paragraphs/s and the ingest/embedding ratio."""
    n_ingest = runs[0]["ingest"]["paragraphs"]
    n_embed = runs[0]["embed_alone"]["paragraphs"]
    rows = [
        [
            "Index.ingest, fresh store, cold process (parse + embed + write)",
            f"{ingest_s:.1f} s",
            f"{n_ingest / ingest_s:.0f} paragraphs/s",
            "",
        ],
        [
            "PDF pages ingested per second",
            f"{pages} pages",
            f"{pages / ingest_s:.1f} pages/s",
            f"≥ 6: {'PASS' if pages / ingest_s >= 6 else 'FAIL'}",
        ],
        [
            "embed_array over the same texts alone",
            f"{embed_s:.1f} s",
            f"{n_embed / embed_s:.0f} paragraphs/s",
            "",
        ],
        [
            "ratio ingest / embedding alone",
            f"{ratio:.2f}",
            "",
            f"≤ 1.5: {'PASS' if ratio <= 1.5 else 'FAIL'}",
        ],
        [
            "peak RSS of the ingest subprocess",
            f"{max(x['ingest']['peak_rss_mb'] for x in runs):.0f} MB",
            "",
            "",
        ],
        [
            "(not in the ingest time) parse_file of all files, alone",
            f"{runs[0]['embed_alone']['parse_s']:.1f} s",
            "",
            "",
        ],
    ]
    return report(
        machine(),
        a,
        files,
        pages,
        runs,
        rows,
        "cold only, ",
        {"cold_only": True, "median": {"ingest_s": ingest_s, "embed_s": embed_s, "ratio": ratio}},
    )


def report(
    m: dict,
    a: argparse.Namespace,
    files: list[Path],
    pages: int,
    runs: list[dict],
    rows: list[list[str]],
    how: str,
    figures: dict,
) -> int:
    """Print the machine, the input and ``rows`` as a table; write bench/out/ingest.json."""
    n_ingest = runs[0]["ingest"]["paragraphs"]
    n_embed = runs[0]["embed_alone"]["paragraphs"]
    print(machine_line(m))
    print(
        f"input: {a.folder.name}: {len(files)} files ({pages} PDF pages), {n_ingest} "
        f"paragraphs stored / {n_embed} parsed; {how}{a.repeats} run(s), medians; load "
        f"average {os.getloadavg()[0]:.1f} at the end\n"
    )
    print(table(["measure", "value", "rate", "target"], rows))
    out = write_json(
        "ingest",
        {
            "machine": m,
            "folder": str(a.folder),
            "pdf_pages": pages,
            "files": [f.name for f in files],
            "runs": runs,
            **figures,
        },
    )
    print(f"\nJSON: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
