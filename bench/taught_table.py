"""Does a table taught on the model's vectors rank as the model does? Issue 34 §1, on filings.

A long ingest embeds its first 20,000 paragraphs with MiniLM and the rest with a static
table fitted to those vectors (``deepread.corpus.taught_vectors``). This asks how close the
table comes, on a store built by the pipeline with the model for every paragraph
(``--store``; only read): it teaches tables from ``--teach`` paragraphs sampled (seeded)
from the filings that no question asks about, embeds with each table every paragraph of
the filings the questions ask about, and ranks them for each question (scoped to its
filing, the query embedded by MiniLM as retrieval does) — beside the same ranking by the
stored MiniLM vectors. *Gold page hit@k*: a paragraph of the evidence's page among the
first k (dense only, exact search); *cosine*: the table's vector against the model's,
averaged over the paragraphs ranked.

Run:  python bench/taught_table.py --store /path/to/store [--collection NAME]
      [--teach 5000 10000 20000] [--data /work/shared/data]
Prints a markdown table and writes bench/out/taught_table.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from _common import SHARED_DATA, machine, machine_line, table, write_json
from cheaper_vectors import KS, hits, paragraphs

from deepread import Index
from deepread.stores.embeddings import local_embeddings
from deepread.stores.taught_table import TaughtTable, teach, token_ids


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", required=True, help="a store built with --exact-vectors")
    ap.add_argument("--collection", default="financebench-library")
    ap.add_argument("--teach", type=int, nargs="*", default=[5_000, 10_000, 20_000])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    a = ap.parse_args()
    questions = [
        json.loads(line)
        for split in ("financebench-dev", "financebench-val")
        for line in (a.data / split / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    index = Index.open(store=a.store, collection=a.collection)
    stems, paras = paragraphs(index)
    index.close()
    doc_of = {stem: doc for doc, stem in stems.items()}
    questions = [q for q in questions if q["doc_name"] in doc_of]
    asked = {doc_of[q["doc_name"]] for q in questions}
    gold = [{e["evidence_page_num"] + 1 for e in q["evidence"]} for q in questions]
    ranked_rows = [i for i, p in enumerate(paras) if p["doc_id"] in asked]
    others = [i for i, p in enumerate(paras) if p["doc_id"] not in asked]
    rows_of: dict[int, list[int]] = {}
    for j, i in enumerate(ranked_rows):
        rows_of.setdefault(paras[i]["doc_id"], []).append(j)
    model = local_embeddings()
    tokenizer = model.tokenizer()
    queries = np.stack([np.asarray(model.embed_query(q["question"])) for q in questions])
    stored = np.stack([paras[i]["vec"] for i in ranked_rows])

    def rank(vectors: np.ndarray) -> dict[int, float]:
        ranked = []
        for qi, q in enumerate(questions):
            rows = rows_of[doc_of[q["doc_name"]]]
            order = np.argsort(-(vectors[rows] @ queries[qi]), kind="stable")
            ranked.append([paras[ranked_rows[rows[j]]]["page"] for j in order[: max(KS)]])
        return hits(ranked, gold)

    results: dict[str, dict] = {"MiniLM as stored": {"hit": rank(stored), "cosine": 1.0}}
    ranked_texts = [paras[i]["search"] for i in ranked_rows]
    rng = np.random.default_rng(0)
    for n in a.teach:
        sample = rng.choice(others, min(n, len(others)), replace=False)
        ids = token_ids(tokenizer, [paras[i]["search"] for i in sample])
        keep = [j for j, x in enumerate(ids) if len(x)]
        began = time.perf_counter()
        rows = teach(
            [ids[j] for j in keep],
            np.stack([paras[sample[j]]["vec"] for j in keep]),
            tokenizer.get_vocab_size(),
        )
        seconds = time.perf_counter() - began
        taught = TaughtTable(rows, tokenizer)
        began = time.perf_counter()
        vectors, ok = taught.embed(ranked_texts)
        embed_s = time.perf_counter() - began
        untaught = [t for t, known in zip(ranked_texts, ok, strict=True) if not known]
        vectors[~ok] = model.embed_array(untaught)  # as the ingest does
        results[f"table taught from {len(keep):,} paragraphs of other filings"] = {
            "hit": rank(vectors),
            "cosine": float((vectors * stored).sum(1).mean()),
            "teach_s": seconds,
            "paragraphs_per_s": len(ranked_texts) / embed_s,
        }
    m = machine()
    print(machine_line(m))
    print(
        f"{len(questions)} questions scoped to their filing; {len(ranked_rows):,} paragraphs "
        f"of their {len(asked)} filings ranked; tables taught from the other "
        f"{len(stems) - len(asked)} filings' {len(others):,}\n"
    )
    print(
        table(
            ["vectors", *(f"gold page hit@{k}" for k in KS), "cosine to MiniLM", "teach"],
            [
                [
                    name,
                    *(r["hit"][k] for k in KS),
                    f"{r['cosine']:.3f}",
                    f"{r['teach_s']:.0f} s" if "teach_s" in r else "–",
                ]
                for name, r in results.items()
            ],
        )
    )
    print(f"\nwrote {write_json('taught_table', {'machine': m, 'results': results})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
