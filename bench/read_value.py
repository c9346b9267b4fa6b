"""Where each part of the offline agent's observation budget pays, from a finished run.

For a ``deepread eval`` run on a benchmark with evidence spans (SyllabusQA, FinanceBench),
replays each question's tool calls in order against the store and credits every gold span
to the call whose shown paragraphs first make it *read* (the benchmark's shingle rule,
:mod:`deepread.evaluation.shingles`). Calls are grouped by what the policy did:

- ``first retrieve`` and ``next page`` (a retrieve with ``exclude_shown``);
- reads of a section holding a first-page hit, of one holding a next-page hit only;
- ``other reads``: sections chosen by their TOC titles (or statements).

It prints, per group, the calls, the tiktoken they cost per question, the share of a
question's spans they first showed and that share per 100 tokens — what the last tokens
of the budget are best spent on. No re-run is needed.

Run:  python bench/read_value.py --out EVAL_OUT --store STORE --collection NAME
Writes bench/out/read-value-<collection>.json.
"""

from __future__ import annotations

import sys
from collections import Counter

from _common import machine, machine_line, table, write_json
from _runs import run_parser, run_records

from deepread.corpus.index import Index
from deepread.evaluation.shingles import is_read, shown_text

GROUPS = (
    "first retrieve",
    "first-page hit reads",
    "next page",
    "next-page hit reads",
    "other reads",
)


def shown_coords(observation: dict) -> list[tuple[int, int, int]]:
    """The coordinates an observation record shows ("d:s:a-b" regions)."""
    out = []
    for region in observation.get("shown") or []:
        doc, sec, span = region.split(":")
        first, _, last = span.partition("-")
        out += [(int(doc), int(sec), p) for p in range(int(first), int(last or first) + 1)]
    return out


def group(observation: dict, first_page: set, next_page: set) -> str:
    """What the call was, ``first_page``/``next_page`` updated with a retrieve's hits."""
    args = observation.get("args") or {}
    if observation.get("tool") == "retrieve":
        hits = {tuple(map(int, h.split(":")[:2])) for h in observation.get("hits") or []}
        if args.get("exclude_shown"):
            next_page.update(hits)
            return "next page"
        first_page.update(hits)
        return "first retrieve"
    key = (args.get("doc_id"), args.get("sec_id"))
    if key in first_page:
        return "first-page hit reads"
    return "next-page hit reads" if key in next_page else "other reads"


def main() -> int:
    ap = run_parser(__doc__)
    args = ap.parse_args()
    records = run_records(args.out)
    calls: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    credit: Counter[str] = Counter()
    with Index.open(args.store, args.collection) as index:
        texts: dict[tuple[int, int], dict[int, str]] = {}

        def text(doc: int, sec: int, para: int) -> str:
            if (doc, sec) not in texts:
                texts[(doc, sec)] = {p.para_idx: p.text for p in index.read(doc, sec).paragraphs}
            return texts[(doc, sec)].get(para, "")

        for r in records:
            evidence = [e["quote"] for e in r["gold"].get("evidence") or []]
            first_page: set = set()
            next_page: set = set()
            shown: dict[tuple[int, int, int], str] = {}
            found: set[int] = set()
            for obs in r.get("observations") or []:
                kind = group(obs, first_page, next_page)
                calls[kind] += 1
                tokens[kind] += obs.get("tokens") or 0
                for coord in shown_coords(obs):
                    shown.setdefault(coord, text(*coord))
                squashed = shown_text(shown.values())
                for i, quote in enumerate(evidence):
                    if i not in found and is_read(quote, squashed):
                        found.add(i)
                        credit[kind] += 1 / len(evidence)
    n = max(1, len(records))
    rows = [
        [
            g,
            calls[g],
            round(tokens[g] / n),
            round(credit[g] / n, 4),
            round(100 * credit[g] / tokens[g], 4) if tokens[g] else "–",
        ]
        for g in GROUPS
        if calls[g]
    ]
    m = machine()
    print(machine_line(m))
    print(f"{len(records)} questions ({args.out})\n")
    print(
        table(
            ["calls", "n", "tiktoken / question", "spans read / question", "per 100 tokens"], rows
        )
    )
    write_json(f"read-value-{args.collection}", {"machine": m, "run": str(args.out), "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
