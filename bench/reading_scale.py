"""Reading a big library with bounded memory (issue 34 §5 and the RSS half of §1).

Two steps, each a subcommand:

``grow``: a store of ~N paragraphs without an hour of embedding. The source store (a
real ingest of FinanceBench filings; give a copy: opening a store writes its settings)
is read, and its documents are written into a new collection at ``--to`` — or, with
``--copy-files``, into a file-by-file copy of the source — then again and again
under other names — ``/library/copy007/AMCOR_2023_10K.pdf``, the company's name in the
front matter replaced by a generated one (``bench/library_scale.py``'s names), so every
copy is a document of its own to ``find_documents`` — through
``Collection.put_document``, the real write path: the stored vectors, the same
sections and paragraphs, BM25 over the search texts ingest would index
(``corpus.pipeline.search_texts``). Copies are added until the collection holds
``--paragraphs``. ``--optimize`` then builds the engine's vector index, as ingest does.

``measure``: each figure in a fresh process of its own, so one's memory is not the
other's:

* a reader: ``Index.open`` → ``documents()`` → the first ``retrieve`` (time to serve
  the first read, cold), then ``retrieve`` (hybrid, k=5, the query embedding included)
  and ``find_documents`` over ``--calls`` questions naming a company and a year: p50/p95;
  its peak RSS (``VmHWM``) and the most anonymous / file-backed memory seen
  (``RssAnon`` / ``RssFile`` sampled every 50 ms by a thread — mapped store files are
  page cache the kernel may drop, anonymous memory is not);
* an ingest: ``Index.ingest`` of one real filing (``--filing``) into the big collection,
  the engine's optimize included (what ``deepread ingest`` runs); its peak RSS, same
  samples; the filing is removed again afterwards so a re-run measures the same thing.

Run:  python bench/reading_scale.py grow --from /work/tmp/library/store \\
          --to /work/tmp/scale/x1 --paragraphs 230000
      python bench/reading_scale.py measure --store /work/tmp/scale/x1 \\
          --filing ../shared/data/financebench-dev/AMCOR_2023Q4_EARNINGS.pdf
Prints markdown tables and writes bench/out/reading_scale-<name>.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _common import machine, machine_line, summary_ms, table, write_json

COLLECTION = "financebench-library"
QUESTIONS = (
    "What was {company}'s total revenue in fiscal {year}?",
    "How much did {company} spend on capital expenditures in {year}?",
    "What was {company}'s net income attributable to shareholders in {year}?",
    "What were {company}'s cash dividends per share in {year}?",
    "What is {company}'s long-term debt at the end of {year}?",
)


def memory() -> dict[str, int]:
    """This process's resident memory now, in MB: total, anonymous, file-backed, peak."""
    fields = dict(
        line.split(":", 1)
        for line in Path("/proc/self/status").read_text().splitlines()
        if ":" in line
    )
    return {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "RssAnon", "RssFile", "VmHWM")}


class Sampler:
    """The most ``RssAnon`` / ``RssFile`` seen, sampled every 50 ms while running
    (the kernel keeps a peak of the total only, ``VmHWM``)."""

    def __init__(self) -> None:
        self.peak = {"RssAnon": 0, "RssFile": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.sample()

    def sample(self) -> None:
        now = memory()
        for k in self.peak:
            self.peak[k] = max(self.peak[k], now[k])

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def figures(self) -> dict[str, int]:
        now = memory()
        return {
            "peak_rss_mb": now["VmHWM"],
            "peak_rss_anon_mb": self.peak["RssAnon"],
            "peak_rss_file_mb": self.peak["RssFile"],
            "end_rss_anon_mb": now["RssAnon"],
            "end_rss_file_mb": now["RssFile"],
        }


def company_of(title: str) -> str:
    """The company an identifying title names ("Amcor plc — Form 10-K …" → "Amcor plc")."""
    return title.split(" — ", 1)[0].strip()


def year_of(doc: Any) -> str:
    found = re.findall(r"(?:19|20)\d\d", (doc.card.period if doc.card else None) or doc.title)
    return found[-1] if found else "2022"


# -- grow -------------------------------------------------------------------------------


def grow(args: argparse.Namespace) -> int:
    import numpy as np
    from library_scale import company
    from qdrant_edge import Filter, ScrollRequest

    import deepread
    from deepread.corpus.pipeline import search_texts
    from deepread.records.documents import FrontMatter
    from deepread.stores.edge import edge_filter
    from deepread.stores.schema import live_paragraphs

    source, target = Path(args.source), Path(args.to)
    if target.exists():
        raise SystemExit(f"{target} exists: grow writes a new store (remove it first)")
    if args.copy_files:  # the source's own segments, as they are, and copies added
        shutil.copytree(source, target)
        source = target
    index = deepread.Index.open(store=source, collection=args.collection)
    originals = list(index.documents())
    collection = index.collection
    shard = collection.backend.shard  # the stored vectors: read once per original
    templates = []
    for doc in originals:
        rows, offset = [], None
        flt: Filter = edge_filter(live_paragraphs(doc_ids=(doc.doc_id,)))
        while True:
            records, offset = shard.scroll(
                ScrollRequest(
                    filter=flt, limit=2048, offset=offset, with_payload=True, with_vector=True
                )
            )
            rows += records
            if offset is None:
                break
        rows.sort(key=lambda r: (r.payload["sec_id"], r.payload["para_idx"]))
        paragraphs = [collection_paragraph(r.payload) for r in rows]
        vectors = np.array([r.vector["dense"] for r in rows], dtype=np.float32)
        texts = search_texts(Structured(doc.sections, paragraphs))
        templates.append((doc, paragraphs, vectors, texts))
    if not args.copy_files:  # a new collection, made as deepread makes one now
        index.close()
        index = deepread.Index.open(store=target, collection=args.collection)
        collection = index.collection
    have = collection.count_paragraphs()
    started, copy, since = time.perf_counter(), 0 if args.copy_files else -1, 0
    while have < args.paragraphs:
        copy += 1
        for i, (doc, paragraphs, vectors, texts) in enumerate(templates):
            if have >= args.paragraphs:
                break
            if copy == 0:  # the originals, under their own names
                collection.put_document(
                    source=doc.source,
                    title=doc.title,
                    sections=doc.sections,
                    paragraphs=paragraphs,
                    vectors=vectors,
                    content_hash=doc.content_hash,
                    search_texts=texts,
                    front=doc.front,
                )
                have += len(paragraphs)
                since += len(paragraphs)
                continue
            new = company(copy * len(templates) + i)
            front = doc.front
            if front is not None:
                pattern = re.compile(re.escape(company_of(doc.title)), re.I)
                front = FrontMatter(
                    metadata={},
                    lines=tuple(pattern.sub(new, x) for x in front.lines),
                    headings=front.headings,
                    pages=front.pages,
                )
            collection.put_document(
                source=f"/library/copy{copy:03d}/{Path(doc.source).name}",
                title=doc.title.replace(company_of(doc.title), new),
                sections=doc.sections,
                paragraphs=paragraphs,
                vectors=vectors,
                content_hash=f"copy-{copy}-{doc.content_hash}",
                search_texts=texts,
                front=front,
            )
            have += len(paragraphs)
            since += len(paragraphs)
            if args.optimize_every and since >= args.optimize_every:
                index.optimize()  # as a long ingest does (corpus/pipeline.py)
                since = 0
        print(
            f"  copy {copy}: {have:,} paragraphs, {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    figures: dict[str, Any] = {"write_s": round(time.perf_counter() - started, 1)}
    if args.optimize:
        t = time.perf_counter()
        index.optimize()
        figures["optimize_s"] = round(time.perf_counter() - t, 1)
    figures |= {
        "documents": len(index.documents()),
        "paragraphs": collection.count_paragraphs(),
    }
    index.close()
    figures["disk_mb"] = round(
        sum(f.stat().st_size for f in target.rglob("*") if f.is_file()) / 2**20
    )
    print(json.dumps(figures))
    return 0


class Structured:
    """What ``search_texts`` reads of a parse: its sections and paragraphs."""

    def __init__(self, sections: list[Any], paragraphs: list[Any]) -> None:
        self.sections, self.paragraphs = sections, paragraphs


def collection_paragraph(payload: dict[str, Any]) -> Any:
    from deepread.stores.collection import paragraph_of

    return paragraph_of(payload)


# -- measure: one process per figure ----------------------------------------------------


def reader(args: argparse.Namespace) -> dict[str, Any]:
    """The reader's figures (run in a process of its own)."""
    with Sampler() as sampler:
        t = time.perf_counter()
        import deepread

        imported = time.perf_counter() - t
        t = time.perf_counter()
        index = deepread.Index.open(store=args.store, collection=args.collection)
        opened = time.perf_counter() - t
        docs = index.documents()
        listed = time.perf_counter() - t
        index.retrieve("What was the total revenue in fiscal 2022?", k=5)
        first = time.perf_counter() - t
        rng = random.Random(0)
        questions = []
        for n in range(args.calls):
            doc = rng.choice(docs)
            questions.append(
                QUESTIONS[n % len(QUESTIONS)].format(
                    company=company_of(doc.title), year=year_of(doc)
                )
            )
        found, retrieved = [], []
        for q in questions:
            s = time.perf_counter()
            index.find_documents(q)
            found.append(time.perf_counter() - s)
        for q in questions:
            s = time.perf_counter()
            index.retrieve(q, k=5)
            retrieved.append(time.perf_counter() - s)
        paragraphs = index.collection.count_paragraphs()
        index.close()
    return {
        "documents": len(docs),
        "paragraphs": paragraphs,
        "import_s": round(imported, 2),
        "open_s": round(opened, 2),
        "open_and_documents_s": round(listed, 2),
        "open_to_first_retrieve_s": round(first, 2),
        "find_documents": summary_ms(found),
        "retrieve": summary_ms(retrieved),
        **sampler.figures(),
    }


def ingester(args: argparse.Namespace) -> dict[str, Any]:
    """An ingest's figures: one filing into the big collection (a process of its own)."""
    with Sampler() as sampler:
        import deepread
        from deepread.corpus import pipeline

        if args.no_optimize:  # the store's own backlog is not this filing's to build
            pipeline.OPTIMIZE_AT = pipeline.OPTIMIZE_EVERY = 1 << 62
        index = deepread.Index.open(store=args.store, collection=args.collection)
        left = index.collection.find_source(str(args.filing.resolve()))
        if left is not None:  # an earlier run's, not removed (killed): measured anew
            index.remove(left.doc_id)
        before = len(index.documents())
        t = time.perf_counter()
        result = index.ingest_report([args.filing])
        seconds = time.perf_counter() - t
        if result.failures:
            raise SystemExit(f"ingest failed: {result.failures}")
        stored = [d.doc_id for d in result.documents]
        figures = sampler.figures()
        for doc_id in stored:  # measured again from scratch on the next run
            index.remove(doc_id)
        index.close()
    return {
        "documents_before": before,
        "stored": len(stored),
        "ingest_s": round(seconds, 1),
        "optimized": not args.no_optimize,
    } | figures


def measure(args: argparse.Namespace) -> int:
    name = Path(args.store).name
    m = machine()
    results: dict[str, Any] = {"machine": m, "store": str(args.store)}
    for role in args.roles:
        cmd = [sys.executable, __file__, role, "--store", str(args.store)]
        cmd += ["--collection", args.collection, "--calls", str(args.calls)]
        if role == "ingester":
            cmd += ["--filing", str(args.filing)] + (["--no-optimize"] * args.no_optimize)
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
        results[role] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{role}: {results[role]}", file=sys.stderr, flush=True)
    print(machine_line(m))
    rows = []
    if "reader" in results:
        r = results["reader"]
        rows += [
            ["documents / paragraphs", f"{r['documents']:,} / {r['paragraphs']:,}", ""],
            ["open → documents → first retrieve (s)", r["open_to_first_retrieve_s"], "≤ 2"],
            ["  of which Index.open (s)", r["open_s"], ""],
            [
                "retrieve p50 / p95 (ms)",
                f"{r['retrieve']['p50_ms']:.1f} / {r['retrieve']['p95_ms']:.1f}",
                "p95 ≤ 100",
            ],
            [
                "find_documents p50 / p95 (ms)",
                f"{r['find_documents']['p50_ms']:.1f} / {r['find_documents']['p95_ms']:.1f}",
                "p95 ≤ 50",
            ],
            [
                "reader peak RSS (MB): total / anon / file",
                f"{r['peak_rss_mb']} / {r['peak_rss_anon_mb']} / {r['peak_rss_file_mb']}",
                "≤ 1,536",
            ],
        ]
    if "ingester" in results:
        r = results["ingester"]
        rows += [
            ["ingest of one filing (s)", r["ingest_s"], ""],
            [
                "ingest peak RSS (MB): total / anon / file",
                f"{r['peak_rss_mb']} / {r['peak_rss_anon_mb']} / {r['peak_rss_file_mb']}",
                "≤ 1,536",
            ],
        ]
    print(table(["measure", "figure", "target"], rows))
    print(f"\nwrote {write_json(f'reading_scale-{args.label or name}', results)}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grow")
    g.add_argument("--from", dest="source", required=True)
    g.add_argument("--to", required=True)
    g.add_argument("--paragraphs", type=int, required=True)
    g.add_argument("--optimize", action="store_true", help="build the index at the end")
    g.add_argument(
        "--optimize-every",
        type=int,
        default=0,
        help="build the index after every N paragraphs written, as a long ingest does",
    )
    g.add_argument(
        "--copy-files",
        action="store_true",
        help="start from a copy of the source's files (its segments as they are) rather "
        "than a new collection the documents are written into",
    )
    g.add_argument("--collection", default=COLLECTION)
    for role in ("measure", "reader", "ingester"):
        p = sub.add_parser(role)
        p.add_argument("--store", required=True)
        p.add_argument("--collection", default=COLLECTION)
        p.add_argument("--calls", type=int, default=100)
        p.add_argument("--filing", type=Path)
        p.add_argument(
            "--no-optimize",
            action="store_true",
            help="the ingest skips its index build: for a store whose written points were "
            "never built (grow without --optimize), where the build would be the whole "
            "store's, not the filing's",
        )
        if role == "measure":
            p.add_argument("--roles", nargs="+", default=["reader", "ingester"])
            p.add_argument("--label", help="the JSON's name (default: the store's folder)")
    args = ap.parse_args()
    if args.command == "grow":
        return grow(args)
    if args.command == "measure":
        return measure(args)
    print(json.dumps(reader(args) if args.command == "reader" else ingester(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
