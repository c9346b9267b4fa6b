"""Follow-ups that keep the topic, over SEC filings: after a figure question, "and the
year before?", "what about Boeing?", "and in the 10-K?" must answer the same quantity
for the new year, company or form.

The set: ``bench/data/filing_followups.jsonl`` — 34 pairs over the FinanceBench dev
filings, written from the filings' text before any tuning: a first question about a
figure, then a follow-up that names only a new year (relatively or by number), a new
company or a new form; each follow-up with the filing's verbatim sentence or table row
that states its answer (several where more than one filing states it). ``kind`` says
which slot the follow-up names. A gold marked ``added`` was added after the first run:
the financial statement's row of the same figure where the first gold was a discussion's
sentence or row; for Corning's 2021 figures, the Corning 2021 10-K the library holds (a
validation filing); and (2026-12-03) the year's own filing on the shelf where an answer
quoted it for the year asked — Boeing's, Adobe's and Corning's 2021 10-Ks state their
2021 figures as the 2022 ones do. Both are reported, ``as written`` (the first golds
only) and ``with added``.

Each pair is one thread of the agent graph (the offline extractive policy, an in-memory
LangGraph checkpointer), asked of the whole collection, as a person chatting with a
library would. Of the second turn it reports: *gold found* (≥ half of a gold passage's
24-character shingles in the paragraphs the turn's tools showed), *in the answer* (the
same test on the answer) and *first 300* (on the answer's first 300 characters). The
shingle test asks for the gold's own print: an answer that states the gold row as
``Net income: 2022 $7,514, 2021 $8,060`` where the filing prints ``Net income $ 7,514
$ 8,060`` fails it. So *first line states* asks what a person reads: whether the
answer's first line holds every figure of a gold passage (its numbers but the years,
"(0.6) %" as 0.6, "1,469.5" as 1469.5) and half of its words — the fact, in any print.
Run it with two installs side by side (before/after) on the same store:

    python bench/filing_followups.py --store STORE --collection NAME --label after
    /other/.venv/bin/python bench/filing_followups.py --store STORE --collection NAME --label before

The store must hold the dev filings (deepread ingest /…/financebench-dev). Prints a
markdown table (all pairs, then by kind) and writes bench/out/filing-followups-<label>.json.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from pathlib import Path

from followups import report, second_turn
from langgraph.checkpoint.memory import InMemorySaver

import deepread
from deepread.evaluation.shingles import is_read, squash

DATA = Path(__file__).resolve().parent / "data" / "filing_followups.jsonl"
#: The answer's opening a person reads first.
FIRST_CHARS = 300


#: What is scored of each pair: gold found, in the answer, first, first line states —
#: with the first golds only, then with the added ones too.
SCORES = ("found", "in_answer", "first", "states", "found+", "in_answer+", "first+", "states+")
#: A number as filings print it: "7,514", "(0.6)", "1.47", "23".
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
#: A year, which a headed row prints as a column's head, not as a figure.
_YEAR = re.compile(r"^(?:19|20)\d\d$")
#: A word, for the words a gold passage and a line share.
_WORD = re.compile(r"[a-z]{3,}")


def _figures(text: str) -> set[str]:
    """The numbers of ``text`` but the years, without thousands separators."""
    found = (m.group().replace(",", "").rstrip(".") for m in _NUMBER.finditer(text))
    return {n for n in found if not _YEAR.match(n)}


def states(gold: str, line: str) -> bool:
    """Whether ``line`` holds every figure of ``gold`` (at least one) and half of its
    words: the fact stated, whatever its print."""
    figures, words = _figures(gold), set(_WORD.findall(gold.lower()))
    if not figures or not figures <= _figures(line):
        return False
    return len(words & set(_WORD.findall(line.lower()))) * 2 >= len(words)


def scored(evidence: list[dict], shown: str, answer: str) -> dict[str, bool]:
    """Whether any gold quote was read, is in the answer, is in its opening: of the golds
    as first written, and (``+``) with those added."""
    seen, said, first = squash(shown), squash(answer), squash(answer[:FIRST_CHARS])
    line = answer.split("\n", 1)[0]
    written = [e["quote"] for e in evidence if not e.get("added")]
    every = [e["quote"] for e in evidence]
    out: dict[str, bool] = {}
    for suffix, quotes in (("", written), ("+", every)):
        out["found" + suffix] = any(is_read(q, seen) for q in quotes)
        out["in_answer" + suffix] = any(is_read(q, said) for q in quotes)
        out["first" + suffix] = any(is_read(q, first) for q in quotes)
        out["states" + suffix] = any(states(q, line) for q in quotes)
    return out


def row(name: str, results: list[dict[str, bool]], seconds: float | None = None) -> list[object]:
    n = len(results)
    shares = [f"{sum(r[k] for r in results) / n:.3f}" for k in SCORES]
    return [name, n, *shares, "" if seconds is None else f"{seconds:.0f}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True, help="a store holding the dev filings")
    ap.add_argument("--collection", required=True)
    ap.add_argument("--label", default="run")
    ap.add_argument("--only", default="", help="comma-separated pair ids (default: all)")
    args = ap.parse_args()
    pairs = [json.loads(line) for line in DATA.open() if line.strip()]
    if args.only:
        pairs = [p for p in pairs if p["id"] in args.only.split(",")]
    index = deepread.Index.open(store=args.store, collection=args.collection)
    graph = deepread.build_graph(index=index, checkpointer=InMemorySaver())
    items: dict[str, dict] = {}
    by_kind: dict[str, list[dict[str, bool]]] = defaultdict(list)
    started = time.perf_counter()
    for pair in pairs:
        shown, answer = second_turn(graph, pair["id"], pair["first"], pair["question"])
        got = scored(pair["evidence"], shown, answer)
        items[pair["id"]] = got | {"kind": pair["kind"], "answer": answer}
        by_kind[pair["kind"]].append(got)
        print(pair["id"], pair["kind"], got, flush=True)
    seconds = time.perf_counter() - started
    index.close()
    results = [r for kind in by_kind.values() for r in kind]
    rows = [row("all pairs", results, seconds)] + [
        row(kind, got) for kind, got in sorted(by_kind.items())
    ]
    headers = ["set", "pairs", "gold found", "in the answer", "first 300", "first line states"]
    headers += [f"{h} (with added)" for h in headers[2:]] + ["seconds"]
    report(f"filing-followups-{args.label}", args.label, headers, rows, items)


if __name__ == "__main__":
    main()
