"""What the offline answer shows, re-composed: the run's own answers against the ones
today's extractive policy composes from the very paragraphs each run was shown.

Reads a finished ``deepread eval`` run (its trajectories; the agent is not run again),
rebuilds what each answered question was shown from the coordinates of its observations
(in the order shown), with the first search's best hit, and has
:meth:`~deepread.extractive.composer.Composer.compose` answer it again. Both
answers are scored by ``deepread eval``'s own answer metrics
(:func:`~deepread.evaluation.answer_evidence.answer_metrics`): *evidence in the answer*,
*the answer cites a gold page* (FinanceBench), *the first quote holds gold evidence*, and
the mean answer length. So a change to how answers are composed (issue 35: the ranking
of quotes, a quote as a passage, the rows named for a quantity) is measured on the same
reads side by side, before a real run confirms it (the check may read once more after a
draft it does not accept — which a re-composition cannot show).

Run:  python bench/answers.py --out EVAL_OUT --store STORE --collection NAME --questions FILE
Writes bench/out/answers-<collection>.json.
"""

from __future__ import annotations

import statistics
from typing import Any

from _common import machine, machine_line, table, write_json
from _runs import run_parser, run_records
from abstention import shown_of

from deepread.corpus.index import Index
from deepread.evaluation.answer_evidence import answer_metrics, cited_paragraphs
from deepread.evaluation.evidence import DocResolver
from deepread.evaluation.formats import read_dataset
from deepread.extractive.policy import ExtractiveChatModel
from deepread.nodes.citations import parse_citations

METRICS = ("evidence_in_answer", "answer_cites_gold_page", "first_quote_gold")
#: A citation's keys, as eval records them.
KEYS = ("doc_id", "sec_id", "para_idx")


def scored(
    index: Index, resolver: DocResolver, question: Any, answer: str, scoped: bool
) -> dict[str, float]:
    """``answer``'s metrics (0 where a question has none of that kind) and its length."""
    cites = [dict(zip(KEYS, c, strict=True)) for c in parse_citations(answer)]
    got = answer_metrics(index, resolver, question, answer, cites, scoped)
    return {k: float(got.get(k) or 0) for k in METRICS} | {"chars": float(len(answer))}


def top_hit(record: dict) -> tuple[int, int, int] | None:
    """The first search's best hit in ``record`` (its observations' ``hits``), which
    the policy quotes first when it was shown."""
    for observation in record.get("observations") or []:
        if observation.get("hits"):
            d, s, p = map(int, observation["hits"][0].split(":"))
            return d, s, p
    return None


def main() -> None:
    ap = run_parser(__doc__)
    ap.add_argument("--questions", required=True, help="the run's question file")
    args = ap.parse_args()
    dataset = read_dataset(args.questions)
    questions = {q.id: q for q in dataset.questions}
    rows: dict[str, list[dict[str, float]]] = {"as run": [], "re-composed": []}
    with Index.open(store=args.store, collection=args.collection) as index:
        resolver = DocResolver(index.documents())
        composer = ExtractiveChatModel(index=index).composer
        for record in run_records(args.out):
            question = questions.get(record["id"])
            if question is None or record.get("stop_reason") != "answered":
                continue
            # in the order shown; one read per run of neighbours, what is gone skipped
            shown = [dict(zip(KEYS, coord, strict=True)) for coord in shown_of(record)]
            texts = {p.coord: p.text for p in cited_paragraphs(index, shown)}
            if not texts:
                continue
            again = composer.compose(record["question"], texts, top_hit(record))
            for name, answer in (("as run", record.get("answer") or ""), ("re-composed", again)):
                rows[name].append(scored(index, resolver, question, answer, dataset.scoped))
    means = {
        name: {k: statistics.fmean(r[k] for r in got) if got else 0.0 for k in [*METRICS, "chars"]}
        for name, got in rows.items()
    }
    m = machine()
    print(machine_line(m))
    print(f"{len(rows['as run'])} answered questions of {args.out}\n")
    print(
        table(
            ["answer", *METRICS, "mean chars"],
            [
                [name, *(f"{v[k]:.3f}" for k in METRICS), f"{v['chars']:,.0f}"]
                for name, v in means.items()
            ],
        )
    )
    path = write_json(
        f"answers-{args.collection}", {"machine": m, "run": str(args.out), "means": means}
    )
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
