"""How much gold evidence a reader that already knew where it is could read at a budget.

``bench/ceiling.py`` bounds any reader by the whole parse (every paragraph shown, no
budget). This bounds it at the agent's own observation budget: for each question an
*oracle* reader, told which paragraphs hold each gold span, reads only those, each at
what ``read_section`` would cost to show it (the paragraph's coordinate line with
tiktoken, :class:`deepread.nodes.read_plan.Sections`, plus a typical read frame,
:data:`~deepread.nodes.read_plan.FRAME`, per section),
cheapest span first, until the budget is spent. No search is paid for: it is the most
any locate-then-read policy of deepread's parse and observation format can read at that
budget, however well it locates.

A span counts when one paragraph reads it (the benchmark's shingle rule, :mod:`deepread.
evaluation.shingles`) or, failing that, the fewest consecutive paragraphs (up to eight)
in reading order do — as the ``parse`` ceiling joins them.
Same per-question mean as the run's summary; the run's agent and flat figures beside.

Run:  python bench/oracle.py --out EVAL_OUT --store STORE --collection NAME [--budget 1500 …]
Writes bench/out/oracle-<collection>.json.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _common import write_json
from _runs import agent_and_flat, print_shares, run_parser, run_records

from deepread.corpus.index import Index
from deepread.evaluation.shingles import is_read, squash
from deepread.nodes.read_plan import FRAME, Sections

#: A paragraph of a document: (sec_id, para_idx, squashed text, tokens when shown).
Row = tuple[int, int, str, int]


def document_rows(index: Index) -> dict[str, list[Row]]:
    """Every paragraph of every document, by the document's file name."""
    sections = Sections(index)
    out: dict[str, list[Row]] = {}
    for doc in index.documents():
        rows: list[Row] = []
        for sec in doc.sections:
            if not sec.n_para:
                continue
            costs = sections.read_cost(doc.doc_id, sec.sec_id).lines
            for p, cost in zip(index.read(doc.doc_id, sec.sec_id).paragraphs, costs, strict=True):
                rows.append((sec.sec_id, p.para_idx, squash(p.text), cost))
        out[Path(doc.source).name] = rows
    return out


def showings(quote: str, rows: list[Row], longest: int = 8) -> list[list[Row]]:
    """The ways to show ``quote``: the shortest runs of consecutive paragraphs, in
    reading order (a run may cross into the next section), that read it together —
    one paragraph where one does, up to ``longest``."""
    for n in range(1, longest + 1):
        found = [
            rows[i : i + n]
            for i in range(len(rows) - n + 1)
            if is_read(quote, "".join(r[2] for r in rows[i : i + n]))
        ]
        if found:
            return found
    return []


def _extra(showing: list[Row], shown: set[tuple[int, int]], sections: set[int]) -> int:
    """Tokens ``showing`` adds to what is shown: its new paragraphs, a frame per new
    section."""
    paid = sum(r[3] for r in showing if (r[0], r[1]) not in shown)
    return paid + FRAME * len({r[0] for r in showing} - sections)


def oracle_share(quotes: list[str], rows: list[Row], budget: int) -> float:
    """Share of ``quotes`` the oracle reads within ``budget`` tokens: repeatedly the
    span whose cheapest showing adds least to what is already shown (a paragraph is
    paid once, a section's frame once)."""
    options = [showings(q, rows) for q in quotes]
    shown: set[tuple[int, int]] = set()
    sections: set[int] = set()
    spent, got = 0, 0
    todo = [i for i, o in enumerate(options) if o]
    while todo:
        best = min(
            ((_extra(s, shown, sections), i, s) for i in todo for s in options[i]),
            key=lambda t: (t[0], t[1]),
        )
        cost, i, showing = best
        if spent + cost > budget:
            break
        spent += cost
        got += 1
        shown |= {(r[0], r[1]) for r in showing}
        sections |= {r[0] for r in showing}
        todo.remove(i)
    return got / len(quotes)


def main() -> int:
    ap = run_parser(__doc__)
    ap.add_argument(
        "--budget",
        type=int,
        action="append",
        help="observation tokens (tiktoken); repeatable (default 1500)",
    )
    args = ap.parse_args()
    budgets = args.budget or [1500]
    records = run_records(args.out)
    with Index.open(args.store, args.collection) as index:
        docs = document_rows(index)
    rows: dict[str, list[float]] = {f"oracle @ {b:,}": [] for b in budgets}
    rows |= {"agent": [], "flat": []}
    for r in records:
        evidence = [e for e in r["gold"]["evidence"] if e.get("quote")]
        name = Path(r["gold"].get("doc") or (evidence[0]["doc"] if evidence else "")).name
        paragraphs = docs.get(name) or docs.get(f"{name}.pdf")
        quotes = [e["quote"] for e in evidence]
        if paragraphs is None or not quotes:
            continue
        for b in budgets:
            rows[f"oracle @ {b:,}"].append(oracle_share(quotes, paragraphs, b))
        agent, flat = agent_and_flat(r)
        rows["agent"].append(agent)
        rows["flat"].append(flat)
    m, means = print_shares(rows, args.out, "evidence read")
    write_json(
        f"oracle-{args.collection}",
        {"machine": m, "run": str(args.out), "budgets": budgets, "means": means},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
