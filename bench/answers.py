"""What the offline answer shows, re-composed: the run's own answers against the ones
today's extractive policy composes from the very paragraphs each run was shown.

Reads a finished ``deepread eval`` run (its trajectories; the agent is not run again),
rebuilds what each answered question was shown from the coordinates of its observations
(in the order shown), with the first search's best hit, and has
:meth:`~deepread.extractive.composer.Composer.compose` answer it again. Both
answers are scored by ``deepread eval``'s own answer metrics
(:func:`~deepread.evaluation.answer_evidence.answer_metrics`): *evidence in the answer*
(and its ratio to *evidence read*), *the answer cites a gold page* (FinanceBench), *the
first quote holds gold evidence*, *the first line holds it*, and the answers' mean,
median and 90th-percentile lengths. Beside them, what a person reads: *the first line
states a figure of the gold answer* ("23%", "$2,018"; not a year), of the questions whose
answer holds such a figure that a paragraph shown prints (a ratio the answer computes is
in no paragraph, and no line can state it) — the page measure credits a first line on the
statement a rate is computed from, this one only the line that prints the rate. So a
change to how answers are composed (issue 35: the ranking of quotes, a quote as a
passage, the rows named for a quantity) is measured on the same reads side by side,
before a real run confirms it (the check may read once more after a draft it does not
accept — which a re-composition cannot show).

Run:  python bench/answers.py --out EVAL_OUT --store STORE --collection NAME --questions FILE
Writes bench/out/answers-<collection>.json.
"""

from __future__ import annotations

import re
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

METRICS = ("evidence_in_answer", "answer_cites_gold_page", "first_quote_gold", "first_line_gold")
#: A figure as answers and filings print it: "23%", "$2,018", "(0.6)", "1.47".
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def figures(text: str) -> set[str]:
    """The figures of ``text`` as plain numbers ("2,018" → "2018", "23.0" → "23"), but
    for years and for whole numbers under 10 (counts, footnotes, "one of 3")."""
    out = set()
    for raw in _FIGURE.findall(text):
        value = float(raw.replace(",", ""))
        whole = value == int(value)
        if whole and (value < 10 or (1990 <= value <= 2035 and "," not in raw)):
            continue
        out.add(f"{value:g}")
    return out


def states_figure(answer: str, gold: set[str]) -> float:
    """1.0 when the answer's first line prints a figure of ``gold``, else 0.0."""
    first = answer.strip().splitlines()[0] if answer.strip() else ""
    return float(bool(figures(first) & gold))


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


def _stated(rows: list[dict[str, float]]) -> list[float]:
    """``first_line_figure`` of the questions that have it."""
    return [r["first_line_figure"] for r in rows if "first_line_figure" in r]


def _p90(values: list[float]) -> float:
    """The 90th percentile of ``values`` (0 when empty)."""
    if not values:
        return 0.0
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def main() -> None:
    ap = run_parser(__doc__)
    ap.add_argument("--questions", required=True, help="the run's question file")
    ap.add_argument("--show", action="store_true", help="print every answer, both ways")
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
            paragraphs = cited_paragraphs(index, shown)
            if not paragraphs:
                continue
            again = composer.compose(
                record["question"],
                {p.coord: p.text for p in paragraphs},
                top_hit(record),
                kinds={p.coord: p.kind for p in paragraphs},
                pages={p.coord: p.page for p in paragraphs},
            )
            read = float((record.get("metrics") or {}).get("evidence_read") or 0)
            # the gold answer's figures that something shown prints: what a line can state
            printed = set().union(*(figures(p.text) for p in paragraphs))
            gold = figures(question.answer) & printed
            for name, answer in (("as run", record.get("answer") or ""), ("re-composed", again)):
                got = scored(index, resolver, question, answer, dataset.scoped)
                if gold:
                    got["first_line_figure"] = states_figure(answer, gold)
                rows[name].append(got | {"evidence_read": read, "id": record["id"]})
                if args.show:
                    print(f"--- {record['id']} {name}: {record['question'][:120]}\n{answer}\n")
    means = {
        name: {
            k: statistics.fmean(r[k] for r in got) if got else 0.0
            for k in [*METRICS, "chars", "evidence_read"]
        }
        | {
            "first_line_figure": statistics.fmean(stated) if (stated := _stated(got)) else 0.0,
            "figure_questions": float(len(stated)),
            "median_chars": statistics.median(r["chars"] for r in got) if got else 0.0,
            "p90_chars": _p90([r["chars"] for r in got]),
        }
        for name, got in rows.items()
    }
    m = machine()
    print(machine_line(m))
    print(f"{len(rows['as run'])} answered questions of {args.out}\n")
    print(
        table(
            [
                "answer",
                *METRICS,
                "first line states the figure",
                "in answer / read",
                "median chars",
                "p90 chars",
            ],
            [
                [
                    name,
                    *(f"{v[k]:.3f}" for k in METRICS),
                    f"{v['first_line_figure']:.3f} of {v['figure_questions']:.0f}",
                    f"{v['evidence_in_answer'] / v['evidence_read']:.2f}x"
                    if v["evidence_read"]
                    else "-",
                    f"{v['median_chars']:,.0f}",
                    f"{v['p90_chars']:,.0f}",
                ]
                for name, v in means.items()
            ],
        )
    )
    path = write_json(
        f"answers-{args.collection}",
        {"machine": m, "run": str(args.out), "means": means, "questions": rows},
    )
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
