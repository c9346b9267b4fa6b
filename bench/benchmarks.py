"""FinanceBench and SyllabusQA (issue 11): ``deepread eval`` on both dev folders, judged
against the issue's targets.

For each benchmark this runs exactly what a user runs —
``deepread eval <folder>/<questions file> --store STORE --out OUT/<benchmark>`` (the
offline extractive policy, questions scoped to their PDF, the PDFs ingested on first
use, the flat PDF-window baseline paired in the same run) — then prints the figures
beside the targets:

- FinanceBench: gold page shown ≥ 0.65; evidence read ≥ 0.40 and ≥ 1.3× flat; the flat
  baseline's spend within ±10 % of the agent's; spend ~1,500 tokens (chars ÷ 4).
- SyllabusQA: answer spans read ≥ 0.85 and ≥ 1.1× flat; abstains on ≥ 0.30 of the
  `no answer` questions and on ≤ 0.10 of the answerable ones.

Run:  python bench/benchmarks.py --store /tmp/bench-store [--only syllabusqa]
      [--sample N] [--out DIR]
Resumes: an existing --out keeps the questions already answered with the same settings.
Prints a markdown table and writes bench/out/benchmarks.json.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _common import BENCH_DIR, Timer, machine, machine_line, table, write_json

from deepread.evaluation import EvalConfig, run_eval

DATA = BENCH_DIR.parent.parent / "shared" / "data"
SETS = {
    "financebench": DATA / "financebench-dev" / "questions.jsonl",
    "syllabusqa": DATA / "syllabusqa-dev" / "questions.csv",
}


def targets(name: str, row: dict) -> list[tuple[str, float | None, str, bool | None]]:
    """(measure, figure, target, met) rows for one benchmark's comparison row."""

    def at_least(v: float | None, t: float) -> bool | None:
        return None if v is None else v >= t

    def at_most(v: float | None, t: float) -> bool | None:
        return None if v is None else v <= t

    spend = row["spend_ratio"]
    out = [
        (
            "flat spend / agent spend",
            spend,
            "0.90–1.10",
            None if spend is None else 0.9 <= spend <= 1.1,
        ),
        ("agent spend (chars ÷ 4)", row["spend"], "~1,500", None),
    ]
    if name == "financebench":
        return [
            (
                "gold page shown",
                row["gold_page_shown"],
                "≥ 0.65",
                at_least(row["gold_page_shown"], 0.65),
            ),
            ("evidence read", row["evidence_read"], "≥ 0.40", at_least(row["evidence_read"], 0.40)),
            ("evidence read / flat", row["ratio"], "≥ 1.3", at_least(row["ratio"], 1.3)),
            ("flat evidence read", row["flat_evidence_read"], "", None),
            ("flat gold page shown", row["flat_gold_page_shown"], "", None),
            *out,
        ]
    return [
        ("answer spans read", row["evidence_read"], "≥ 0.85", at_least(row["evidence_read"], 0.85)),
        ("answer spans read / flat", row["ratio"], "≥ 1.1", at_least(row["ratio"], 1.1)),
        ("flat answer spans read", row["flat_evidence_read"], "", None),
        (
            "abstains on `no answer`",
            row["abstain_unanswerable"],
            "≥ 0.30",
            at_least(row["abstain_unanswerable"], 0.30),
        ),
        (
            "abstains on answerable",
            row["abstain_answerable"],
            "≤ 0.10",
            at_most(row["abstain_answerable"], 0.10),
        ),
        *out,
    ]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", required=True, help="store directory (PDFs ingested once)")
    ap.add_argument("--out", default="/tmp/deepread-benchmarks", help="eval output root")
    ap.add_argument("--only", choices=tuple(SETS), default=None)
    ap.add_argument(
        "--sample",
        type=int,
        default=None,
        help="a seeded random sample of N questions per benchmark (reported)",
    )
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    m = machine()
    results: dict = {"machine": m, "benchmarks": {}}
    print(machine_line(m))
    for name, dataset in SETS.items():
        if args.only and name != args.only:
            continue
        config = EvalConfig(
            dataset=dataset,
            store=args.store,
            collection=dataset.parent.name,
            out=Path(args.out) / name,
            workers=args.workers,
            sample=args.sample,
            plots=False,
        )
        with Timer() as t:
            result = run_eval(config, progress=sys.stderr.isatty())
        if result.failures:
            print(
                f"{len(result.failures)} question(s) failed, e.g. {result.failures[0]}",
                file=sys.stderr,
            )
        row = next(r for r in result.summary["benchmark"] if r["variant"] == "deepread")
        rows = targets(name, row)
        subset = result.summary.get("subset") or "all questions"
        print(
            f"\n## {name}: {row['n']} questions ({subset}), {t.s:.0f} s, outputs in {result.out}\n"
        )
        print(
            table(
                ["measure", "figure", "target", "met"],
                [
                    [
                        k,
                        "–" if v is None else float(v),
                        goal,
                        "" if ok is None else ("yes" if ok else "NO"),
                    ]
                    for k, v, goal, ok in rows
                ],
            )
        )
        results["benchmarks"][name] = {
            "seconds": round(t.s, 1),
            "subset": subset,
            "out": str(result.out),
            "row": row,
            "failures": result.failures,
        }
    print(f"\nwrote {write_json('benchmarks', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
