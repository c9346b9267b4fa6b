"""SyllabusQA dev by halves: abstention and spans read on the syllabi kept out of tuning.

Issue 25 asks that abstention hold on syllabi nobody tuned on. The split, fixed before any
figure was looked at (docs/history/benchmarks-2026.md §15): the dev folder's 11 syllabi sorted by
file name, those at odd positions (the 2nd, 4th, … — ENG 204, PSYCH 397D, SPP 697, Marine
Microbiome, vsyllabus 2022: 461 questions, 65 ``no answer``) are **kept out of tuning**;
the other six (496 questions, 70 ``no answer``) are where thresholds may be tuned.

It reads a finished ``deepread eval ../shared/data/syllabusqa-dev/questions.csv`` run and
prints, per half: answer spans read (agent and flat), abstention on ``no answer``
questions and on answerable ones.

Run:  python bench/syllabus_halves.py --out OUT   (the eval's --out folder)
"""

from __future__ import annotations

import argparse
import statistics
import sys

from _common import machine, machine_line, table, write_json
from _runs import run_records


def halves(names: list[str]) -> tuple[set[str], set[str]]:
    """(tuning, kept out): the syllabi at even and at odd positions by file name."""
    ordered = sorted(set(names))
    return set(ordered[0::2]), set(ordered[1::2])


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, help="a deepread eval output folder")
    args = ap.parse_args()
    records = run_records(args.out)
    tuning, kept = halves([r["gold"]["doc"] for r in records])
    rows, data = [], {}
    for name, docs in (("tuning half", tuning), ("kept out of tuning", kept)):
        mine = [r for r in records if r["gold"]["doc"] in docs]
        unanswerable = [r for r in mine if r["gold"].get("answerable") is False]
        answerable = [r for r in mine if r["gold"].get("answerable", True)]
        spans = [
            r["metrics"]["evidence_read"]
            for r in answerable
            if r["metrics"].get("evidence_read") is not None
        ]
        flat = [
            ((r.get("flat") or {}).get("metrics") or {}).get("evidence_read") or 0.0
            for r in answerable
            if r["metrics"].get("evidence_read") is not None
        ]
        row = {
            "syllabi": sorted(docs),
            "questions": len(mine),
            "spans_read": _mean(spans),
            "flat_spans_read": _mean(flat) if flat else None,
            "abstain_unanswerable": _mean(
                [r["stop_reason"] == "no_evidence" for r in unanswerable]
            ),
            "abstain_answerable": _mean([r["stop_reason"] == "no_evidence" for r in answerable]),
            "unanswerable": len(unanswerable),
        }
        data[name] = row
        rows.append(
            [
                name,
                len(docs),
                row["questions"],
                row["spans_read"],
                row["flat_spans_read"],
                f"{row['abstain_unanswerable']} of {row['unanswerable']}",
                row["abstain_answerable"],
            ]
        )
    m = machine()
    print(machine_line(m))
    print(
        table(
            [
                "half",
                "syllabi",
                "questions",
                "spans read",
                "flat",
                "abstains: no answer",
                "abstains: answerable",
            ],
            rows,
        )
    )
    print(f"\nwrote {write_json('syllabus_halves', {'machine': m, 'out': args.out} | data)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
