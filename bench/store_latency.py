"""Latency of the reading primitives on a collection of >= 20,000 paragraphs.

What it measures (embedded store, the default engine):

* ``Index.read_section(doc_id, sec_id, 0, n_para-1)`` for random sections with
  paragraphs (a whole section each call);
* ``Index.retrieve(question, k=5, window=(1, 1))`` for modes dense, bm25 and hybrid,
  INCLUDING the query embedding (the devset questions, cycled);
* the store part alone: ``Collection.rank(question, vector, k=5, mode)`` with the
  query vector computed beforehand; and the query embedding alone (``embed_query``).

How the collection is built (kept under ~2 minutes): the 6 devset HTML pages are parsed
once and their ~1,600 paragraph texts embedded once with the local model. Then every
page is written ``--copies`` times as a separate synthetic document through
``Collection.put_document`` (real paragraph texts and real section trees; the real
vectors re-used, each copy with a little Gaussian jitter (sigma 0.01, re-normalised) so
copies are not exact duplicates). ``--vectors random`` uses random unit vectors instead.

Targets: read_section p50 <= 2 ms; retrieve p50 <= 50 ms including the embedding.

Run:  python bench/store_latency.py [--calls 200] [--min-paragraphs 20000] [--optimize]
Prints a markdown table and writes bench/out/store_latency.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time

import numpy as np
from _common import DEVSET, Timer, machine, machine_line, summary_ms, table, write_json

import deepread
from deepread.corpus.parsing import parse_file
from deepread.stores.embeddings import local_embeddings

MODES = ("dense", "bm25", "hybrid")


def build(idx: deepread.Index, min_paragraphs: int, vectors: str, seed: int) -> dict:
    """Write synthetic documents until the collection holds >= ``min_paragraphs``."""
    pages = sorted((DEVSET / "docs").glob("*.html"))
    with Timer() as t_parse:
        parsed = [(p, parse_file(p)) for p in pages]
    texts = [para.text for _, s in parsed for para in s.paragraphs]
    rng = np.random.default_rng(seed)
    with Timer() as t_embed:
        if vectors == "real":
            base = local_embeddings().embed_array(texts)
        else:
            base = rng.standard_normal((len(texts), 384)).astype(np.float32)
            base /= np.linalg.norm(base, axis=1, keepdims=True)
    per_copy = len(texts)
    copies = -(-min_paragraphs // per_copy)
    col = idx.collection
    with Timer() as t_write:
        for c in range(copies):
            vec = base
            if vectors == "real" and c > 0:
                vec = base + rng.normal(0, 0.01, base.shape).astype(np.float32)
                vec /= np.linalg.norm(vec, axis=1, keepdims=True)
            offset = 0
            for path, s in parsed:
                n = len(s.paragraphs)
                col.put_document(
                    source=f"synthetic://copy{c:03d}/{path.name}",
                    title=f"{s.title} (copy {c})",
                    sections=s.sections,
                    paragraphs=s.paragraphs,
                    vectors=vec[offset : offset + n],
                    content_hash=f"synthetic-{c}",
                )
                offset += n
    n_para = col.count_paragraphs()
    return {
        "pages": len(pages),
        "distinct_texts": per_copy,
        "copies": copies,
        "documents": len(col.documents()),
        "paragraphs": n_para,
        "vectors": vectors,
        "parse_s": t_parse.s,
        "embed_s": t_embed.s,
        "write_s": t_write.s,
    }


def measure(idx: deepread.Index, questions: list[str], calls: int, seed: int) -> dict:
    rng = random.Random(seed)
    col = idx.collection
    sections = [
        (d.doc_id, s.sec_id, s.n_para) for d in idx.documents() for s in d.sections if s.n_para > 0
    ]
    emb = local_embeddings()
    qs = [questions[i % len(questions)] for i in range(calls)]
    vectors = {q: emb.embed_query(q) for q in set(qs)}
    results: dict[str, dict] = {}

    def timed(name: str, fn, args: list[tuple]) -> None:
        for a in args[:5]:  # warm-up, not counted
            fn(*a)
        times = []
        for a in args:
            t0 = time.perf_counter()
            fn(*a)
            times.append(time.perf_counter() - t0)
        results[name] = summary_ms(times)

    picks = [rng.choice(sections) for _ in range(calls)]
    timed("read_section (whole section)", lambda d, s, n: idx.read_section(d, s, 0, n - 1), picks)
    timed("embed_query alone", lambda q: emb.embed_query(q), [(q,) for q in qs])
    for mode in MODES:
        timed(
            f"retrieve k=5 window=(1,1) {mode} incl. embedding",
            lambda q, m=mode: idx.retrieve(q, k=5, window=(1, 1), mode=m),
            [(q,) for q in qs],
        )
    for mode in MODES:
        timed(
            f"Collection.rank k=5 {mode} (store only)",
            lambda q, m=mode: col.rank(q, None if m == "bm25" else vectors[q], 5, m),
            [(q,) for q in qs],
        )
    mean_para = sum(n for *_, n in picks) / len(picks)
    results["read_section (whole section)"]["mean_paragraphs_read"] = mean_para
    return results


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--calls", type=int, default=200, help="timed calls per operation")
    ap.add_argument("--min-paragraphs", type=int, default=20_000)
    ap.add_argument("--vectors", choices=("real", "random"), default="real")
    ap.add_argument(
        "--optimize",
        action="store_true",
        help="also measure after the engine's optimize() (HNSW build)",
    )
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    questions = [
        json.loads(line)["question"]
        for line in (DEVSET / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    store = tempfile.mkdtemp(prefix="deepread-bench-latency-")
    idx = deepread.Index.open(store=store, collection="bench")
    setup = build(idx, a.min_paragraphs, a.vectors, a.seed)
    print(
        f"built {setup['paragraphs']} paragraphs in {setup['documents']} documents", file=sys.stderr
    )
    runs = {"as ingested": measure(idx, questions, a.calls, a.seed)}
    if a.optimize:
        with Timer() as t_opt:
            idx.collection.backend.optimize()
        setup["optimize_s"] = t_opt.s
        runs["after optimize()"] = measure(idx, questions, a.calls, a.seed)
    idx.close()

    m = machine()
    targets = {"read_section (whole section)": 2.0}
    targets |= {f"retrieve k=5 window=(1,1) {mode} incl. embedding": 50.0 for mode in MODES}
    rows = []
    for state, res in runs.items():
        for name, r in res.items():
            target = targets.get(name)
            verdict = (
                ""
                if target is None
                else (f"≤ {target:g} ms: {'PASS' if r['p50_ms'] <= target else 'FAIL'}")
            )
            rows.append(
                [
                    name + ("" if len(runs) == 1 else f" [{state}]"),
                    r["n"],
                    r["p50_ms"],
                    r["p95_ms"],
                    r["mean_ms"],
                    verdict,
                ]
            )
    print(machine_line(m))
    print(
        f"collection: {setup['paragraphs']} paragraphs, {setup['documents']} documents "
        f"({setup['copies']} copies of {setup['pages']} devset pages, "
        f"{setup['distinct_texts']} distinct texts, {setup['vectors']} vectors); setup: "
        f"parse {setup['parse_s']:.1f} s, embed {setup['embed_s']:.1f} s, "
        f"write {setup['write_s']:.1f} s"
        + (f", optimize() {setup['optimize_s']:.1f} s" if "optimize_s" in setup else "")
        + "\n"
    )
    print(table(["operation", "calls", "p50 ms", "p95 ms", "mean ms", "target (p50)"], rows))
    out = write_json(
        "store_latency", {"machine": m, "setup": setup, "results": runs, "targets_p50_ms": targets}
    )
    print(f"\nJSON: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
