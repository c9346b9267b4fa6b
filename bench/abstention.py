"""Calibrating abstention: how well candidate signals separate unanswerable questions.

Reads a finished ``deepread eval`` run on a benchmark whose questions are marked
answerable or not (SyllabusQA's ``no answer``), rebuilds what each question was shown
from its trajectory (the coordinates of every observation) and computes, per question,
candidate "is the answer in what was read?" signals:

- ``cover_all``: share of the question's content words found anywhere in the shown text
  (section titles included);
- ``cover_best``: the best single shown paragraph's share (with its section title);
- ``idf_all`` / ``idf_best``: the same, each word weighted by its inverse document
  frequency over the paragraphs of the question's document (a word the document never
  uses weighs most);
- ``in_doc``: the idf-weighted share of the question's words the document uses at all;
- ``dense_shown``: the best cosine between the question and a shown paragraph (the
  collection's embedding model); ``dense_top``: the best in the whole document.

For each signal and each ceiling on false abstention (answerable questions abstained
on) it prints the threshold that keeps under the ceiling and the share of unanswerable
questions it would abstain on. The shipped signal and its threshold are chosen from this
table (docs/benchmarks.md §12).

Run:  python bench/abstention.py --out EVAL_OUT --store STORE --collection NAME
Writes bench/out/abstention-<collection>.json.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from _common import machine, machine_line, table, write_json

from deepread.corpus.index import Index
from deepread.nodes.sufficiency import content_words

_COORD = re.compile(r"^(\d+):(\d+):(\d+)(?:-(\d+))?$")
_TAGS = re.compile(r"<[^>]+>")
CEILINGS = (0.03, 0.05, 0.08, 0.10)


def shown_of(record: dict) -> list[tuple[int, int, int]]:
    out = []
    for obs in record.get("observations") or []:
        for coord in obs.get("shown") or []:
            m = _COORD.match(coord)
            if m:
                d, s, a = int(m[1]), int(m[2]), int(m[3])
                out += [(d, s, p) for p in range(a, int(m[4] or a) + 1)]
    return list(dict.fromkeys(out))


class DocStats:
    """Document frequencies of content words over one document's paragraphs."""

    def __init__(self, index: Index, doc_id: int) -> None:
        doc = index.collection.document(doc_id)
        self.df: Counter[str] = Counter()
        self.n = 0
        for sec in doc.sections:
            if not sec.n_para:
                continue
            for p in index.read(doc_id, sec.sec_id).paragraphs:
                self.df.update(content_words(_TAGS.sub(" ", p.text)))
                self.n += 1

    def idf(self, word: str) -> float:
        return math.log((self.n + 1) / (self.df.get(word, 0) + 0.5))


def weighted(wanted: set[str], have: set[str], weight) -> float:
    total = sum(weight(w) for w in wanted)
    return sum(weight(w) for w in wanted & have) / total if total else 1.0


def cosine_best(index: Index, question: str, raw: list[str]) -> float:
    """The highest cosine similarity between the question and a shown paragraph."""
    if not raw:
        return 0.0
    q = np.array(index.embeddings.embed_query(question))
    m = np.array(index.embeddings.embed_documents(raw))
    return float(np.max(m @ q / (np.linalg.norm(m, axis=1) * np.linalg.norm(q) + 1e-9)))


def features(record: dict, index: Index, stats: dict[int, DocStats]) -> dict[str, float]:
    wanted = content_words(record["question"])
    coords = shown_of(record)
    texts, raw = [], []
    for d, s, p in coords:
        got = index.read(d, s, p, p).paragraphs
        title = index.collection.document(d).sections[s].title
        if got:
            texts.append(content_words(f"{title} {_TAGS.sub(' ', got[0].text)}"))
            raw.append(_TAGS.sub(" ", got[0].text))
    doc_id = coords[0][0] if coords else None
    if doc_id is not None and doc_id not in stats:
        stats[doc_id] = DocStats(index, doc_id)
    st = stats.get(doc_id)
    every = set().union(*texts) if texts else set()

    def plain(_: str) -> float:
        return 1.0

    idf = st.idf if st else plain
    vector = index.embeddings.embed_query(record["question"])
    top = index.collection.rank(record["question"], vector, 1, "dense",
                                [doc_id] if doc_id is not None else None)
    return {
        "dense_top": top[0][0].score if top else 0.0,
        "dense_shown": cosine_best(index, record["question"], raw),
        "cover_all": weighted(wanted, every, plain),
        "cover_best": max((weighted(wanted, t, plain) for t in texts), default=0.0),
        "idf_all": weighted(wanted, every, idf),
        "idf_best": max((weighted(wanted, t, idf) for t in texts), default=0.0),
        "in_doc": weighted(wanted, set(st.df) if st else set(), idf),
    }


def sweep(rows: list[tuple[bool, float]], ceiling: float) -> tuple[float, float, float]:
    """The highest threshold whose false abstention stays ≤ ``ceiling``: (threshold,
    false abstention, abstention on unanswerable). Abstain when signal < threshold."""
    answerable = sorted(v for a, v in rows if a)
    unanswerable = [v for a, v in rows if not a]
    best = (0.0, 0.0, 0.0)
    for t in sorted({v for _, v in rows} | {1.01}):
        false = sum(v < t for v in answerable) / len(answerable)
        if false > ceiling:
            break
        caught = sum(v < t for v in unanswerable) / len(unanswerable) if unanswerable else 0
        best = (t, false, caught)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="a deepread eval output folder")
    ap.add_argument("--variant", default="deepread")
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", required=True)
    args = ap.parse_args()
    path = Path(args.out) / "trajectories" / f"{args.variant}.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    stats: dict[int, DocStats] = {}
    per: list[dict] = []
    with Index.open(args.store, args.collection) as index:
        for r in records:
            answerable = r["gold"].get("answerable", True)
            per.append({"id": r["id"], "answerable": answerable,
                        "abstained": r["stop_reason"] == "no_evidence",
                        **features(r, index, stats)})
    names = [k for k in per[0] if k not in ("id", "answerable", "abstained")]
    m = machine()
    print(machine_line(m))
    n_ans = sum(p["answerable"] for p in per)
    n_un = len(per) - n_ans

    def share(kept: list[bool]) -> str:
        return f"{sum(kept) / len(kept):.3f}" if kept else "–"

    print(f"{len(per)} questions, {n_un} unanswerable; as run: abstains on "
          f"{share([p['abstained'] for p in per if not p['answerable']])} of unanswerable, "
          f"{share([p['abstained'] for p in per if p['answerable']])} of answerable\n")
    rows = []
    found = {}
    for name in names:
        pairs = [(p["answerable"], p[name]) for p in per]
        for ceiling in CEILINGS:
            t, false, caught = sweep(pairs, ceiling)
            rows.append([name, ceiling, t, false, caught])
            found[f"{name}@{ceiling}"] = {"threshold": t, "false": false, "caught": caught}
    print(table(["signal", "false-abstention ceiling", "threshold", "false abstention",
                 "abstains on unanswerable"], rows))
    write_json(f"abstention-{args.collection}",
               {"machine": m, "run": str(args.out), "sweep": found, "questions": per})
    return 0


if __name__ == "__main__":
    sys.exit(main())
