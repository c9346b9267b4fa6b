"""Would a cheaper dense vector keep retrieval? Issue 34's question, asked on real filings.

Ingest is embedding-bound: ~750 MiniLM tokens a page, ~5,500 tokens/s on the two cores,
so 25 pages/s needs a third of today's tokens through the model or a cheaper encoder.
This measures what each cheaper vector costs in retrieval, on a store already built by
today's pipeline (``--store``, a copy: it is never written) holding FinanceBench filings
with dev/val questions:

* **MiniLM, as stored**: the baseline (dense, BM25 and hybrid through the real engine);
* **MiniLM, first N tokens** (``--caps``): each paragraph's search text cut to N tokens —
  the share of today's tokens it keeps is printed beside it;
* **static table** (model2vec's method on the shipped weights, nothing downloaded): every
  vocabulary token run alone through the shipped MiniLM ([CLS] token [SEP], mean-pooled),
  a paragraph's vector the weighted mean of its tokens' rows (weights log(rank + 2), the
  vocabulary's order standing for frequency, as model2vec's Zipf weighting does); run
  dense-only and, written into a copy of the store, hybrid through the real engine.

A question is scoped to its own filing; *gold page hit@k*: a paragraph of the evidence's
page among the first k. Retrieval is asked with the question's text as written.

Run:  python bench/cheaper_vectors.py --store /path/to/store [--collection NAME]
      [--caps 128 64] [--data /work/shared/data]
Prints a markdown table and writes bench/out/cheaper_vectors.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import machine, machine_line, table, write_json
from langchain_core.embeddings import Embeddings

from deepread import Index
from deepread.stores.local_model import LOCAL_MODEL_ID, LocalModel
from deepread.stores.search_text import search_text

KS = (5, 10, 20)


def distil(model: LocalModel) -> np.ndarray:
    """One row per vocabulary token: the shipped MiniLM's mean-pooled output for it alone."""
    tokenizer = model.tokenizer()
    session, inputs = model.session()
    size = tokenizer.get_vocab_size()
    rows = np.zeros((size, LocalModel.dim), np.float32)
    for start in range(0, size, 512):
        ids = np.arange(start, min(size, start + 512))
        x = np.stack([np.full(len(ids), 101), ids, np.full(len(ids), 102)], 1).astype(np.int64)
        feeds = {"input_ids": x, "attention_mask": np.ones_like(x)}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(x)
        rows[ids] = session.run(None, feeds)[0].mean(1)
    return rows


class StaticVectors(Embeddings):
    """The distilled table as an ``Embeddings`` (named as the local model, so the copy
    of the store accepts it)."""

    model_id = LOCAL_MODEL_ID

    def __init__(self, rows: np.ndarray, tokenizer: object) -> None:
        self.rows, self.tokenizer = rows, tokenizer
        self.weights = np.log(np.arange(rows.shape[0], dtype=np.float32) + 2)

    def array(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.rows.shape[1]), np.float32)
        for i, enc in enumerate(self.tokenizer.encode_batch(texts, add_special_tokens=False)):
            ids = np.asarray(enc.ids, np.int64)
            if len(ids):
                w = self.weights[ids]
                out[i] = (self.rows[ids] * w[:, None]).sum(0) / w.sum()
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.array([text])[0].tolist()


def paragraphs(index: Index) -> tuple[dict[int, str], list[dict]]:
    """Each document's file stem, and every paragraph with its search text and vector."""
    import qdrant_edge as qe

    backend = index.collection.backend
    stems: dict[int, str] = {}
    titles: dict[tuple[int, int], str] = {}
    found: list[dict] = []
    offset = None
    while True:
        request = qe.ScrollRequest(limit=2000, with_payload=True, with_vector=True, offset=offset)
        records, offset = backend.shard.scroll(request)
        for r in records:
            p = r.payload or {}
            if p.get("record") == "document":
                doc = p["document"]
                stems[p["doc_id"]] = Path(doc["source"]).stem
                titles.update({(p["doc_id"], s["sec_id"]): s["title"] for s in doc["sections"]})
            elif "text" in p and "doc_id" in p and isinstance(r.vector, dict):
                found.append({**p, "id": r.id, "vec": np.asarray(r.vector["dense"], np.float32)})
        if offset is None:
            break
    for p in found:
        title = titles.get((p["doc_id"], p["sec_id"]), "") if p["sec_id"] else ""
        p["search"] = search_text(p["text"], p["kind"], title)
    return stems, found


def hits(ranked: list[list[int | None]], gold: list[set[int]]) -> dict[int, float]:
    """Gold page hit@k over the questions, from each question's ranked pages."""
    return {
        k: float(
            np.mean(
                [any(pg in g for pg in pages[:k]) for pages, g in zip(ranked, gold, strict=True)]
            )
        )
        for k in KS
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", required=True, help="a store built by today's pipeline (copied)")
    ap.add_argument("--collection", default="financebench-library")
    ap.add_argument("--caps", type=int, nargs="*", default=[64])
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    a = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="deepread-cheaper-"))
    store = scratch / "store"
    shutil.copytree(a.store, store)
    questions = [
        json.loads(line)
        for split in ("financebench-dev", "financebench-val")
        for line in (a.data / split / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    index = Index.open(store=str(store), collection=a.collection)
    stems, paras = paragraphs(index)
    doc_of = {stem: doc for doc, stem in stems.items()}
    questions = [q for q in questions if q["doc_name"] in doc_of]
    gold = [{e["evidence_page_num"] + 1 for e in q["evidence"]} for q in questions]
    rows_of: dict[int, list[int]] = {}
    for i, p in enumerate(paras):
        rows_of.setdefault(p["doc_id"], []).append(i)
    model = LocalModel()
    results: dict[str, dict] = {}

    def engine(idx: Index, label: str, modes: tuple[str, ...]) -> None:
        for mode in modes:
            ranked = [
                [
                    h.page
                    for h in idx.retrieve(
                        q["question"], k=max(KS), doc_id=doc_of[q["doc_name"]], mode=mode
                    )
                ]
                for q in questions
            ]
            results[f"{label}, {mode} (engine)"] = {"hit": hits(ranked, gold), "tokens": None}

    def exact(vectors: np.ndarray, queries: np.ndarray, label: str, tokens: float) -> None:
        ranked = []
        for qi, q in enumerate(questions):
            rows = rows_of[doc_of[q["doc_name"]]]
            order = np.argsort(-(vectors[rows] @ queries[qi]), kind="stable")
            ranked.append([paras[rows[j]]["page"] for j in order[: max(KS)]])
        results[label] = {"hit": hits(ranked, gold), "tokens": tokens}

    engine(index, "MiniLM as stored", ("dense", "bm25", "hybrid"))
    index.close()
    texts = [p["search"] for p in paras]
    tokenizer = model.tokenizer()
    lengths = np.array([len(e.ids) for e in tokenizer.encode_batch(texts)])
    queries = np.stack([np.asarray(model.embed_query(q["question"])) for q in questions])
    exact(np.stack([p["vec"] for p in paras]), queries, "MiniLM as stored, dense (exact)", 1.0)
    for cap in a.caps:
        capped = LocalModel(max_tokens=cap)  # the cut a capped model would make
        began = time.perf_counter()
        vectors = capped.embed_array(texts)
        seconds = time.perf_counter() - began
        share = float(np.minimum(lengths, cap).sum() / lengths.sum())
        exact(vectors, queries, f"MiniLM first {cap} tokens, dense ({seconds:.0f} s)", share)
    static = StaticVectors(distil(model), tokenizer)
    began = time.perf_counter()
    vectors = static.array(texts)
    seconds = time.perf_counter() - began
    exact(vectors, static.array([q["question"] for q in questions]), "static table, dense", 0.0)
    results["static table, dense"]["paragraphs_per_s"] = len(texts) / seconds
    index = Index.open(store=str(store), collection=a.collection, embeddings=static)
    import qdrant_edge as qe

    backend = index.collection.backend
    for start in range(0, len(paras), 2000):
        chunk = paras[start : start + 2000]
        update = [
            qe.PointVectors(p["id"], {"dense": v.tolist()})
            for p, v in zip(chunk, vectors[start : start + 2000], strict=True)
        ]
        backend.shard.update(qe.UpdateOperation.update_vectors(update))
    engine(index, "static table", ("dense", "hybrid"))
    index.close()
    shutil.rmtree(scratch, ignore_errors=True)
    m = machine()
    print(machine_line(m))
    print(f"{len(questions)} questions scoped to their filing, {len(paras)} paragraphs\n")
    print(
        table(
            ["vector", *(f"gold page hit@{k}" for k in KS), "MiniLM tokens"],
            [
                [name, *(r["hit"][k] for k in KS), "–" if r["tokens"] is None else r["tokens"]]
                for name, r in results.items()
            ],
        )
    )
    print(f"\nwrote {write_json('cheaper_vectors', {'machine': m, 'results': results})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
