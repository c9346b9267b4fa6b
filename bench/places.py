"""Where a run's results pages send the reader, and what other pages would have shown.

For a finished ``deepread eval`` run on a benchmark with evidence spans (SyllabusQA),
replays each question's searches against the store — the retrieve tool's ranking:
hybrid + the coverage reranker, scoped to the question's document — and scores pages of
hits against the gold spans with the benchmark's rule (:mod:`deepread.evaluation.
shingles`). No agent re-run; every figure is a share of a question's spans, averaged.

1. First page: the top ``k`` (what the run showed) vs the top ``k`` with at most one or
   two hits per section (section-diverse). ``hits``: spans read in the hits' paragraphs
   (what the page shows); ``sections``: read in the whole of the hits' sections (what
   reading every hit's section would add — the agent reads them while its budget lasts);
   ``n sections`` and their ``section tokens`` (tiktoken): what that reading costs.
2. Depth: spans read in the top 5, 10, … hits' paragraphs alone, with their tiktoken
   (paragraph text only; a page's frame adds ~30 tokens a hit): what showing more hits
   instead of reading sections would buy.
3. Next page (questions whose run asked one): with the paragraphs the run had shown
   before it excluded, the spans newly read by its hits and by their sections, for the
   run's query repeated vs the question's words the shown text lacks.

Run:  python bench/places.py --out EVAL_OUT --store STORE --collection NAME
Writes bench/out/places-<collection>.json.
"""

from __future__ import annotations

import re
import statistics
import sys
from collections import defaultdict

from _common import machine, machine_line, table, write_json
from _runs import run_parser, run_records
from read_value import shown_coords

from deepread.corpus.index import Index
from deepread.evaluation.shingles import is_read, shown_text
from deepread.text.markup import plain
from deepread.text.terms import content_words, stem, terms
from deepread.text.tokens import count_tokens

Coord = tuple[int, int, int]
DEPTHS = (5, 10, 15, 20, 30)


def ranking(index: Index, query: str, doc_id: int, depth: int) -> list[Coord]:
    """The coordinates of ``doc_id`` ranked for ``query`` by the retrieve tool's own
    search (first stage and reranker), ``depth`` deep."""
    return [
        (h.doc_id, h.sec_id, h.para_idx) for h in index.search(query, k=depth, doc_id=doc_id).hits
    ]


def diverse(ranked: list[Coord], k: int, per_section: int) -> list[Coord]:
    """The first ``k`` of ``ranked`` with at most ``per_section`` from one section."""
    out: list[Coord] = []
    count: dict[tuple[int, int], int] = defaultdict(int)
    for c in ranked:
        if count[c[:2]] < per_section:
            count[c[:2]] += 1
            out.append(c)
        if len(out) == k:
            break
    return out


def uncovered(query: str, shown: str) -> str:
    """The words of ``query`` (content words, in order) that ``shown`` lacks; the query
    itself when it lacks none."""
    have = content_words(shown)
    left = [
        w
        for w in dict.fromkeys(w.lower() for w in re.findall(r"[A-Za-z0-9_]+", query))
        if terms(w) and stem(w) not in have
    ]
    return " ".join(left) or query


def share(evidence: list[str], shown: list[str], before: list[bool] | None = None) -> float:
    """The share of ``evidence`` read in ``shown``; with ``before``, of the spans not
    read before only (newly read)."""
    got = [is_read(q, shown_text(shown)) for q in evidence]
    if before is not None:
        got = [g and not b for g, b in zip(got, before, strict=True)]
    return sum(got) / len(evidence)


def main() -> int:
    ap = run_parser(__doc__)
    ap.add_argument("--k", type=int, default=5)
    args = ap.parse_args()
    records = run_records(args.out)
    first: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    depth: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    nxt: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with Index.open(args.store, args.collection) as index:
        texts: dict[tuple[int, int], dict[int, str]] = {}

        def section(doc: int, sec: int) -> dict[int, str]:
            if (doc, sec) not in texts:
                texts[(doc, sec)] = {p.para_idx: p.text for p in index.read(doc, sec).paragraphs}
            return texts[(doc, sec)]

        def text(c: Coord) -> str:
            return section(*c[:2]).get(c[2], "")

        for r in records:
            evidence = [e["quote"] for e in r["gold"].get("evidence") or []]
            obs = r.get("observations") or []
            retrieves = [i for i, o in enumerate(obs) if o.get("tool") == "retrieve"]
            if not evidence or not retrieves or not obs[retrieves[0]].get("hits"):
                continue
            doc_id = int(obs[retrieves[0]]["hits"][0].split(":")[0])

            ranked = ranking(index, obs[retrieves[0]]["args"]["query"], doc_id, max(DEPTHS))
            pages = {
                "top k": ranked[: args.k],
                "≤ 2 a section": diverse(ranked, args.k, 2),
                "≤ 1 a section": diverse(ranked, args.k, 1),
            }
            for name, hits in pages.items():
                secs = list(dict.fromkeys(c[:2] for c in hits))
                whole = [t for s in secs for t in section(*s).values()]
                row = first[name]
                row["hits"].append(share(evidence, [text(c) for c in hits]))
                row["sections"].append(share(evidence, whole))
                row["n sections"].append(len(secs))
                row["section tokens"].append(sum(count_tokens(t) for t in whole))
            for k in DEPTHS:
                shown = [text(c) for c in ranked[:k]]
                depth[k]["hits"].append(share(evidence, shown))
                depth[k]["tokens"].append(sum(count_tokens(t) for t in shown))
            later = [i for i in retrieves if (obs[i].get("args") or {}).get("exclude_shown")]
            if not later:
                continue
            before = [c for o in obs[: later[0]] for c in shown_coords(o)]
            seen = [text(c) for c in before]
            already = [is_read(q, shown_text(seen)) for q in evidence]
            query = obs[later[0]]["args"]["query"]
            for name, q in (
                ("same query", query),
                ("words not shown", uncovered(query, " ".join(map(plain, seen)))),
            ):
                got = index.search(q, k=args.k, doc_id=doc_id, exclude=set(before))
                secs = list(dict.fromkeys((h.doc_id, h.sec_id) for h in got.hits))
                row = nxt[name]
                page = [p.text for p in got.paragraphs]
                whole = [t for s in secs for t in section(*s).values()]
                row["hits"].append(share(evidence, seen + page, already))
                row["sections"].append(share(evidence, seen + whole, already))
                row["hit tokens"].append(sum(count_tokens(p.text) for p in got.paragraphs))

    def mean(rows: dict, cols: list[str]) -> list[list]:
        return [
            [name, *[round(statistics.mean(row[c]), 3) for c in cols]] for name, row in rows.items()
        ]

    m = machine()
    print(machine_line(m))
    n = len(first["top k"]["hits"])
    print(f"{n} questions with evidence ({args.out}), k={args.k}\n")
    cols1 = ["hits", "sections", "n sections", "section tokens"]
    rows1 = mean(first, cols1)
    print("First page\n" + table(["page", *cols1], rows1))
    rows2 = mean({f"top {k}": depth[k] for k in DEPTHS}, ["hits", "tokens"])
    print("\nHits only, by depth\n" + table(["hits", "spans read", "paragraph tokens"], rows2))
    cols3 = ["hits", "sections", "hit tokens"]
    rows3 = mean(nxt, cols3)
    print(
        f"\nNext page ({len(nxt['same query']['hits'])} questions): spans newly read\n"
        + table(["query", *cols3], rows3)
    )
    write_json(
        f"places-{args.collection}",
        {
            "machine": m,
            "run": str(args.out),
            "first page": rows1,
            "depth": rows2,
            "next page": rows3,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
