"""Reading a finished ``deepread eval`` run, for the scripts that analyse one after the
fact (ceiling, oracle, read_value): their common arguments, the run's records, and the
run's own agent and flat figures to print beside theirs."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from _common import machine, machine_line, table

from deepread.evaluation.records import read_records, trajectory_path


def run_parser(description: str | None) -> argparse.ArgumentParser:
    """``--out`` (the run's output folder), ``--store`` and ``--collection``."""
    ap = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True, help="a deepread eval output folder")
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", required=True)
    return ap


def run_records(out: str | Path) -> list[dict]:
    """The deepread mode's records, the last per question (as the run's summary counts
    a resumed run)."""
    return list(read_records(trajectory_path(Path(out), "deepread")).values())


def agent_and_flat(record: dict) -> tuple[float, float]:
    """The evidence read by the agent and by the flat baseline on one question."""
    flat = ((record.get("flat") or {}).get("metrics") or {}).get("evidence_read")
    return record["metrics"].get("evidence_read") or 0.0, flat or 0.0


def print_shares(
    rows: dict[str, list[float]], out: str | Path, heading: str
) -> tuple[dict, dict[str, float]]:
    """Print the machine and each row's per-question mean; returns both."""
    m = machine()
    print(machine_line(m))
    means = {k: round(statistics.mean(v), 3) for k, v in rows.items() if v}
    print(f"{len(next(iter(rows.values()), []))} questions with evidence ({out})\n")
    print(table([heading, "share"], [[k, v] for k, v in means.items()]))
    return m, means
