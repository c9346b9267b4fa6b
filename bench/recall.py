"""Recall@5 of ``Index.retrieve`` on the devset HTML pages, by question type and mode.

The 6 HTML pages are ingested into a fresh store. For each of the 30 questions and each
mode (dense, bm25, hybrid), ``retrieve(question, k=5, window=(0, 0), mode=mode)`` is
called; the question's recall is the share of its gold quotes contained in the joined
text of the 5 returned paragraphs. Both sides are normalised the same way: HTML entities
unescaped, Unicode NFKC, the pilcrow dropped, whitespace runs collapsed to one space; HTML
tags are stripped from ``table`` paragraphs (tables are stored as HTML). This is the
rule of /work/shared/tools/evidence_probe.py, except that the probe strips tag-like text
from every paragraph. Reported: the mean over the questions of each type, and overall.

Run:  python bench/recall.py [--data /work/shared/data/devset]
Prints a markdown table and writes bench/out/recall.json (per-question values too).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

from _common import DEVSET, Timer, machine, machine_line, table, write_json

import deepread
from deepread.stores.rerank import resolve_reranker

MODES = ("dense", "bm25", "hybrid", "dense+coverage", "bm25+coverage", "hybrid+coverage")
TYPES = ("fact", "list", "table", "multi_section", "multi_doc")


def norm(text: str, strip_tags: bool = False) -> str:
    if strip_tags:
        text = re.sub(r"<[^>]+>", " ", text)
    text = unicodedata.normalize("NFKC", html.unescape(text)).replace("\u00b6", " ")
    return re.sub(r"\s+", " ", text).strip()


def recall(paragraphs: list[deepread.Paragraph], quotes: list[str]) -> float:
    shown = " \n ".join(norm(p.text, strip_tags=p.kind == "table") for p in paragraphs)
    return sum(norm(q) in shown for q in quotes) / len(quotes)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DEVSET)
    ap.add_argument("--k", type=int, default=5)
    a = ap.parse_args()
    questions = [
        json.loads(line)
        for line in (a.data / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    pages = sorted((a.data / "docs").glob("*.html"))

    idx = deepread.Index.open(
        store=tempfile.mkdtemp(prefix="deepread-bench-recall-"), collection="pages"
    )
    with Timer() as t_ingest:
        idx.ingest([str(p) for p in pages])
    per_q: dict[str, dict[str, float]] = {m: {} for m in MODES}
    with Timer() as t_query:
        for mode in MODES:
            base, _, rerank = mode.partition("+")
            idx.reranker = resolve_reranker(rerank or "none")
            for q in questions:
                got = idx.retrieve(q["question"], k=a.k, window=(0, 0), mode=base)
                per_q[mode][q["id"]] = recall(got, [e["quote"] for e in q["evidence"]])
    n_para = idx.collection.count_paragraphs()
    idx.close()

    def mean(mode: str, qtype: str | None) -> float:
        vals = [per_q[mode][q["id"]] for q in questions if qtype in (None, q["type"])]
        return sum(vals) / len(vals)

    by_type = {m: {t: mean(m, t) for t in TYPES} | {"overall": mean(m, None)} for m in MODES}
    counts = {t: sum(q["type"] == t for q in questions) for t in TYPES}
    m = machine()
    print(machine_line(m))
    print(
        f"{len(pages)} HTML pages, {n_para} paragraphs, {len(questions)} questions; "
        f"recall@{a.k}, window (0, 0)\n"
    )
    headers = ["mode"] + [f"{t} ({counts[t]})" for t in TYPES] + [f"overall ({len(questions)})"]
    rows = [[mode] + [by_type[mode][t] for t in (*TYPES, "overall")] for mode in MODES]
    print(table(headers, rows))
    out = write_json(
        "recall",
        {
            "machine": m,
            "k": a.k,
            "paragraphs": n_para,
            "ingest_s": t_ingest.s,
            "queries_s": t_query.s,
            "by_type": by_type,
            "per_question": per_q,
        },
    )
    print(f"\nJSON: {out} (ingest {t_ingest.s:.1f} s, queries {t_query.s:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
