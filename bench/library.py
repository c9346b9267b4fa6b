"""A library, not a document (issue 25): FinanceBench's dev and val filings in one
collection, every question asked scoped to its own filing and asked of the whole library.

What it runs, in one process:

1. ``Index.ingest`` of ``financebench-dev`` and ``financebench-val`` (48 filings) into one
   collection of ``--store`` — once: unchanged files are skipped on the next run, so keep
   the store between runs (``--force`` parses and stores them again, as
   ``deepread ingest --force`` does, after a parser or card change);
2. for each folder (dev: tuning, val: never tuned on), ``deepread eval``'s own runner
   (:func:`deepread.evaluation.run_eval`, the offline extractive policy) twice into
   ``--out``: *scoped*, each question to its filing (``Context(documents=[doc_id])``) with
   the flat PDF-window baseline at the agent's spend beside it, and *library*, each
   question asked of all 48 filings (``EvalConfig(library=True)``, no flat baseline).

Every figure is scored by :mod:`deepread.evaluation.benchmark` (issue 11's definitions):
*own document read* — something of the question's filing was shown; *gold page shown*;
*evidence read* — half of the evidence text's 24-character shingles shown. It prints them
beside issue 25's targets (unscoped own document ≥ 0.95, gold page and evidence read
≥ 0.9 × scoped on dev; scoped val gold page ≥ 0.75, evidence read ≥ 0.40 and ≥ 1.3 ×
flat), and checks the documents' titles: every title distinct, none shared.

Run:  python bench/library.py --store /work/tmp/library/store [--only dev|val] [--data DIR]
      [--modes scoped library] [--no-flat] [--force | --front] [--sample N] [--out DIR]
      [--teach-at N]
A fresh ``--out`` (the default: a new timestamped folder) answers every question again;
reusing one resumes it (questions answered with the same settings are not re-run — a
code change does not change the settings). Prints markdown and writes
bench/out/library.json.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from _common import SHARED_DATA, Timer, machine, machine_line, table, write_json

from deepread import Index
from deepread.evaluation import EvalConfig, run_eval

DATA = SHARED_DATA
SPLITS = {"dev": DATA / "financebench-dev", "val": DATA / "financebench-val"}
#: Filings ingested beside the questions' own with ``--shelf`` (issue 34): other years and
#: forms of the same companies and others, with no questions — the rest of a real library.
SHELF = [DATA / "financebench-library"]


def use_data(folder: Path) -> None:
    """Read the benchmarks' folders from ``folder`` (``--data``)."""
    SPLITS.update(dev=folder / "financebench-dev", val=folder / "financebench-val")
    SHELF[:] = [folder / "financebench-library"]


MODES = ("scoped", "library")
MEASURES = ("own_document_read", "gold_page_shown", "evidence_read")


def ingest(index: Index, force: bool, shelf: bool = False) -> float:
    """Ingest both folders' PDFs, and the shelf's with ``shelf`` (unchanged ones skipped
    unless ``force``); seconds."""
    folders = [*SPLITS.values(), *(SHELF if shelf else [])]
    pdfs = sorted(p for folder in folders for p in folder.glob("*.pdf"))

    def progress(event: str, path: Path, done: int, total: int) -> None:
        if event in ("stored", "failed"):
            print(f"  {event} {done}/{total} {path.name}", file=sys.stderr)

    with Timer() as t:
        # A file the ingest refuses (a PDF whose text comes out glyph by glyph) is that
        # file's failure, said here; the library is the rest.
        result = index.ingest_report(pdfs, progress=progress, force=force)
    for failure in result.failures:
        print(f"  {failure.path}: {failure.reason}", file=sys.stderr)
    # what the run's taught table embedded (deepread.corpus.taught_vectors), and its checks
    print(
        f"  texts embedded {result.texts_embedded:,}, by the taught table "
        f"{result.texts_by_table:,}; documents the probe gave the model "
        f"{getattr(result, 'documents_by_model', '–')}; table checks "
        f"{getattr(result, 'table_checks', '–')}",
        file=sys.stderr,
    )
    return t.s


def add_front_matter(index: Index) -> int:
    """Give documents stored before front matter theirs without embedding again: each
    PDF is parsed again and its front matter written into its document record through
    ``Collection.move_source``, which rewrites that record whole (its paragraphs,
    vectors and doc_id untouched). What ``ingest --force`` would store, since this
    branch changed no paragraph — in minutes instead of an hour of embedding; how many."""
    from deepread.corpus.library.front import front_matter
    from deepread.corpus.parsing import parse_file

    done = 0
    for doc in index.collection.documents():
        if doc.front is None and Path(doc.source).is_file():
            # move_source stores the collection's own record of the document whole
            # (``documents()`` hands out those records), so setting ``front`` on it
            # first writes the front matter with it.
            doc.front = front_matter(parse_file(doc.source))
            index.collection.move_source(doc.doc_id, doc.source)
            done += 1
    return done


def titles(index: Index) -> dict:
    """The library's document titles: how many, how many distinct, which are shared."""
    docs = index.documents()
    counts = Counter(" ".join(d.title.split()).lower() for d in docs)
    shared = sorted(t for t, n in counts.items() if n > 1)
    return {
        "documents": len(docs),
        "distinct": len(counts),
        "shared": shared,
        "titles": {Path(d.source).name: d.title for d in docs},
    }


def run(index: Index, split: str, mode: str, out: Path, args: argparse.Namespace) -> dict:
    config = EvalConfig(
        dataset=SPLITS[split] / "questions.jsonl",
        store=index.store,
        collection=index.name,
        out=out / f"{split}-{mode}",
        workers=args.workers,
        sample=args.sample,
        plots=False,
        flat=not args.no_flat and mode == "scoped",
        library=mode == "library",
    )
    with Timer() as t:
        result = run_eval(config, index=index, progress=sys.stderr.isatty())
    if result.failures:
        print(
            f"{split} {mode}: {len(result.failures)} question(s) failed, e.g. {result.failures[0]}",
            file=sys.stderr,
        )
    variants = result.summary["variants"]
    agent = variants["deepread"]["overall"]
    flat = (variants.get("flat-pdf200w@deepread") or {}).get("overall") or {}
    return {
        "seconds": round(t.s, 1),
        "out": str(result.out),
        "n": agent["n"],
        "failures": result.failures,
        "stop_reasons": agent["stop_reasons"],
        "spend": agent["spend"],
        "abstain_answerable": agent["abstain_answerable"],
        **{m: agent[m] for m in MEASURES},
        "flat_evidence_read": flat.get("evidence_read"),
        "flat_gold_page_shown": flat.get("gold_page_shown"),
        "flat_spend": flat.get("spend"),
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def checks(rows: dict[str, dict[str, dict]], names: dict) -> list[list[object]]:
    """(target, figure, met) rows for what this run measured."""
    out: list[list[object]] = []

    def add(label: str, value: float | None, goal: float) -> None:
        out.append(
            [
                label,
                "–" if value is None else float(value),
                f"≥ {goal}",
                "" if value is None else ("yes" if value >= goal else "NO"),
            ]
        )

    dev = rows.get("dev", {})
    if "library" in dev:
        add("dev library: own document read", dev["library"]["own_document_read"], 0.95)
        if "scoped" in dev:
            for m in ("gold_page_shown", "evidence_read"):
                add(f"dev library / scoped: {m}", _ratio(dev["library"][m], dev["scoped"][m]), 0.9)
    val = rows.get("val", {}).get("scoped")
    if val:
        add("val scoped: gold page shown", val["gold_page_shown"], 0.75)
        add("val scoped: evidence read", val["evidence_read"], 0.40)
        add(
            "val scoped: evidence read / flat",
            _ratio(val["evidence_read"], val["flat_evidence_read"]),
            1.3,
        )
    out.append(
        [
            "titles distinct",
            f"{names['distinct']} of {names['documents']}",
            "all",
            "yes" if names["distinct"] == names["documents"] else "NO",
        ]
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", required=True, help="store directory, kept between runs")
    ap.add_argument("--collection", default="financebench-library")
    ap.add_argument(
        "--out", default=None, help="eval output root (default: a new /tmp/deepread-library/<time>)"
    )
    ap.add_argument("--only", choices=tuple(SPLITS), default=None)
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    ap.add_argument("--no-flat", action="store_true", help="skip the flat baseline")
    rebuild = ap.add_mutually_exclusive_group()
    rebuild.add_argument(
        "--force",
        action="store_true",
        help="parse and store the filings again (after a parser or card change)",
    )
    rebuild.add_argument(
        "--front",
        action="store_true",
        help="give documents stored without front matter theirs (parse "
        "only, no embedding; see add_front_matter)",
    )
    ap.add_argument(
        "--sample",
        type=int,
        default=None,
        help="a seeded random sample of N questions per folder (reported)",
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--teach-at",
        type=int,
        default=None,
        help="paragraphs an ingest embeds with the model before it teaches the table "
        "(deepread.corpus.taught_vectors.TEACH_AT, 20,000), so a shorter library engages it",
    )
    ap.add_argument(
        "--shelf",
        action="store_true",
        help="also ingest financebench-library's 107 filings (no questions): 155 in all",
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help=f"folder of financebench-dev and -val (default {DATA})",
    )
    args = ap.parse_args()
    use_data(args.data)
    if args.teach_at is not None:
        from deepread.corpus import taught_vectors

        taught_vectors.TEACH_AT = args.teach_at
    out = Path(args.out or f"/tmp/deepread-library/{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}")
    m = machine()
    print(machine_line(m))
    results: dict = {"machine": m, "out": str(out), "runs": {}}
    with Index.open(store=args.store, collection=args.collection) as index:
        seconds = ingest(index, args.force, args.shelf)
        print(
            f"ingest: {seconds:.0f} s ({len(index.documents())} documents in "
            f"{args.collection!r} of {args.store})"
        )
        if args.front:
            with Timer() as t:
                added = add_front_matter(index)
            print(f"front matter: {added} documents, {t.s:.0f} s")
        names = results["titles"] = titles(index)
        for split in SPLITS:
            if args.only and split != args.only:
                continue
            for mode in args.modes:
                row = run(index, split, mode, out, args)
                results["runs"].setdefault(split, {})[mode] = row
                print(
                    f"{split} {mode}: {row['n']} questions, {row['seconds']:.0f} s", file=sys.stderr
                )
    rows = results["runs"]
    print(f"\noutputs in {out}\n")
    print(
        table(
            [
                "folder",
                "asked",
                "n",
                "own document read",
                "gold page shown",
                "evidence read",
                "flat read",
                "spend",
                "flat spend",
                "false abstention",
            ],
            [
                [
                    split,
                    mode,
                    r["n"],
                    *(r[k] if r[k] is not None else "–" for k in MEASURES),
                    r["flat_evidence_read"] if r["flat_evidence_read"] is not None else "–",
                    r["spend"],
                    r["flat_spend"] or "–",
                    r["abstain_answerable"],
                ]
                for split, modes in rows.items()
                for mode, r in modes.items()
            ],
        )
    )
    print()
    print(table(["target", "figure", "goal", "met"], checks(rows, names)))
    if names["shared"]:
        print("\ntitles shared by several documents: " + "; ".join(names["shared"]))
    print(f"\nwrote {write_json('library', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
