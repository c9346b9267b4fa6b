"""Store latency as a collection grows: 10k, 100k and 1M paragraphs in the embedded engine.

Synthetic documents (1,000 paragraphs each: 50 sections × 20 paragraphs) with random
unit vectors (384-d) and short random English-like texts for BM25 are written through
``Collection.put_document`` — the real write path, slots and payload indexes included.
At each size: ``read_section`` (a whole random section) and the store part of
``retrieve`` (``Collection.rank`` with a precomputed query vector, k=5, dense / bm25 /
hybrid) are timed over 200 calls each, after ``optimize()`` (HNSW built, as
``Index.ingest`` does from 20,000 paragraphs on) up to ``--optimize-up-to`` paragraphs,
as written (brute-force dense search) above it. Reported with the growth ratio of the
largest size to the smallest. Targets (issue 5): read_section p50 ≤ 2 ms and retrieve
store part ≤ 20 ms at 1M paragraphs.

Run:  python bench/scale.py [--sizes 10000 100000 1000000]
Prints a markdown table and writes bench/out/scale.json (updated after every size).
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import machine, machine_line, summary_ms, table, write_json

from deepread.records.documents import Paragraph, Section
from deepread.stores.collection import Collection
from deepread.stores.edge import EdgeBackend

WORDS = (
    "contract payment liability termination clause invoice warranty notice party "
    "agreement descriptor attribute lookup class instance method encoder decoder "
    "serialize namespace scope module package import test suite fixture assertion "
    "volcano glacier desert river forest ocean mountain valley"
).split()
PER_DOC, PER_SEC, DIM = 1000, 20, 384


def synthetic_document(rng: random.Random) -> tuple[list[Section], list[Paragraph]]:
    sections = [Section(0, "Root", 0, None, [], 0, 0)]
    paragraphs: list[Paragraph] = []
    for s in range(1, PER_DOC // PER_SEC + 1):
        sections.append(Section(s, f"Section {s}", 1, 0, [], PER_SEC, PER_SEC * 30))
        sections[0].children.append(s)
        for j in range(PER_SEC):
            text = " ".join(rng.choice(WORDS) for _ in range(25))
            paragraphs.append(Paragraph(0, s, j, text))
    return sections, paragraphs


def timed(fn, calls: int) -> dict:
    for _ in range(5):
        fn()
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return summary_ms(times)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument(
        "--optimize-up-to",
        type=int,
        default=100_000,
        help="build the HNSW index only up to this size; larger sizes are "
        "measured as written (brute-force dense search), because on 2 "
        "cores the build took 215 s at 100k paragraphs",
    )
    args = ap.parse_args()
    rng, nrng = random.Random(0), np.random.default_rng(0)
    root = Path(tempfile.mkdtemp(prefix="deepread-scale-"))
    backend = EdgeBackend(root / "c")
    coll = Collection(backend, "scale", "random-384")
    results: dict = {"machine": machine(), "sizes": {}}
    written = 0
    rows = []
    for size in sorted(args.sizes):
        t0 = time.perf_counter()
        while written < size:
            sections, paragraphs = synthetic_document(rng)
            vectors = nrng.standard_normal((len(paragraphs), DIM), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            coll.put_document(
                f"/synthetic/{written // PER_DOC}.txt",
                "Synthetic",
                sections,
                paragraphs,
                vectors,
                content_hash=str(written),
            )
            written += len(paragraphs)
        write_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        optimized = size <= args.optimize_up_to
        if optimized:
            backend.optimize()
        optimize_s = time.perf_counter() - t0
        n_docs = written // PER_DOC
        query = nrng.standard_normal(DIM, dtype=np.float32)
        query = (query / np.linalg.norm(query)).tolist()
        stats = {
            "read_section": timed(
                lambda n=n_docs: coll.paragraphs(
                    rng.randint(1, n), rng.randint(1, PER_DOC // PER_SEC), 0, PER_SEC - 1
                ),
                args.calls,
            ),
        }
        for mode in ("dense", "bm25", "hybrid"):
            stats[f"rank {mode}"] = timed(
                lambda m=mode, q=query: coll.rank(
                    " ".join(rng.choice(WORDS) for _ in range(4)), q, 5, m
                ),
                args.calls,
            )
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        disk = sum(f.stat().st_size for f in (root / "c").rglob("*") if f.is_file()) / 2**20
        results["sizes"][size] = {
            "write_s": write_s,
            "optimize_s": optimize_s,
            "optimized": optimized,
            "peak_rss_mb": rss,
            "disk_mb": disk,
            **stats,
        }
        for name, s in stats.items():
            rows.append(
                [
                    f"{size:,}{'' if optimized else ' (no HNSW)'}",
                    name,
                    f"{s['p50_ms']:.3f}",
                    f"{s['p95_ms']:.3f}",
                ]
            )
        print(
            f"{size:,} paragraphs: write {write_s:.1f} s, optimize {optimize_s:.1f} s, "
            f"peak RSS {rss:.0f} MB, files {disk:.0f} MB",
            flush=True,
        )
        write_json("scale", results)
    sizes = sorted(results["sizes"])
    if len(sizes) > 1:
        lo, hi = results["sizes"][sizes[0]], results["sizes"][sizes[-1]]
        results["growth"] = {
            k: hi[k]["p50_ms"] / lo[k]["p50_ms"] for k in lo if isinstance(lo[k], dict)
        }
        results["growth_sizes"] = [sizes[0], sizes[-1]]
        write_json("scale", results)
    backend.close()
    shutil.rmtree(root, ignore_errors=True)
    print(machine_line(results["machine"]))
    print(table(["paragraphs", "operation", "p50 ms", "p95 ms"], rows))
    if "growth" in results:
        print(
            "growth of p50 from smallest to largest: "
            + ", ".join(f"{k} ×{v:.1f}" for k, v in results["growth"].items())
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
