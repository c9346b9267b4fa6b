"""The time left of a long ingest, judged on a recorded run: every progress event of one
whole ingest kept with its second, then replayed through
:class:`~deepread.corpus.ingest_pace.Pace` on a clock of its own.

A 155-filing ingest takes a quarter of an hour here, and its time left is worth judging
only over a whole run (the pace changes once the table is taught, about 45 % in). So one
run is recorded — ``deepread ingest``'s own call (``Index.ingest_report`` with the
defaults, its ``progress`` callback) in a fresh process and a fresh store — and any
version of ``Pace`` is replayed on it in a second: at each tenth of the run's wall time,
the time left it would say then beside the time that was really left (issue 46's target:
within ±30 % from the first tenth on). A change to how the time left is priced is then
judged on one recording and checked on another (other folders, another load) before a
real ``deepread ingest`` confirms it (``bench/readers_beside_ingest.py --phases alone``).

Run:  python bench/pace_replay.py record TRACE [--data FOLDER …] [--store S --collection C]
      python bench/pace_replay.py replay TRACE [TRACE …]
A trace is JSON lines: a header (the files and what each weighs, the machine, the load),
then ``[seconds, event, path, done, total]`` per event. Prints a markdown table and
writes bench/out/pace-replay.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, machine_line, table, write_json
from readers_beside_ingest import ENV, LIBRARY

CHILD = r"""
import json, sys, time
import deepread
from deepread.corpus.files import expand_paths
from deepread.corpus.ingest_pace import pages_of
store, collection, folders, trace = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
found, _ = expand_paths(folders)
with open(trace, "w", encoding="utf-8") as out:
    weights = {str(p.resolve()): pages_of(p) for p in found}
    out.write(json.dumps({"weights": weights}) + "\n")
    t0 = time.monotonic()
    def progress(event, path, done, total):
        at = round(time.monotonic() - t0, 3)
        out.write(json.dumps([at, event, str(path), done, total]) + "\n")
    idx = deepread.Index.open(store=store, collection=collection)
    try:
        idx.ingest_report(folders, progress=progress)
    finally:
        idx.close()
    out.write(json.dumps({"seconds": time.monotonic() - t0}) + "\n")
"""


def record(
    trace: Path, folders: list[Path], store: Path | None = None, collection: str = "default"
) -> None:
    """One whole ingest of ``folders`` into ``store`` (a fresh one if ``None``), every
    event into ``trace``."""
    where = str(store or tempfile.mkdtemp(prefix="deepread-bench-pace-"))
    trace.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", CHILD, where, collection]
    subprocess.run([*argv, json.dumps([str(f) for f in folders]), str(trace)], check=True, env=ENV)
    lines = trace.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header |= {"machine": machine(), "load": os.getloadavg(), "folders": list(map(str, folders))}
    trace.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")


def read_trace(trace: Path) -> tuple[dict[str, int], list[list[Any]], float]:
    """A trace's files and their weights, its events, and its wall seconds."""
    lines = trace.read_text(encoding="utf-8").splitlines()
    weights = json.loads(lines[0])["weights"]
    events = [json.loads(line) for line in lines[1:-1]]
    return weights, events, float(json.loads(lines[-1])["seconds"])


def replay(trace: Path, points: int = 10) -> list[dict[str, Any]]:
    """Today's :class:`Pace` over ``trace``: at each ``1/points`` of its wall time, the
    time left it last said, counted down since, beside the time really left."""
    from deepread.corpus.ingest_pace import Pace

    weights, events, total_s = read_trace(trace)
    now = [0.0]
    pace = Pace([Path(p) for p in weights], weigh=lambda p: weights[str(p)], clock=lambda: now[0])
    out, at_event = [], 0
    last: tuple[float, float] | None = None  # the last time left said, and when
    for k in range(1, points):
        at = total_s * k / points
        while at_event < len(events) and events[at_event][0] <= at:
            t, event, path, done, total = events[at_event]
            now[0] = t
            pace.event(event, Path(path), done, total)
            if (left := pace.seconds_left) is not None:
                last = (t, left)
            at_event += 1
        now[0] = at
        # what a person reads then: the last time left said, counted down since (the
        # command line says none while the new pace settles after teaching)
        said = None if last is None else last[1] - (at - last[0])
        real = total_s - at
        out.append(
            {
                "at": k,
                "said_s": None if said is None else round(said, 1),
                "real_s": round(real, 1),
                "ratio": None if said is None else round(said / real, 2),
            }
        )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="ingest once, keeping every progress event")
    rec.add_argument("trace", type=Path)
    rec.add_argument("--data", type=Path, nargs="+", default=LIBRARY)
    rec.add_argument("--store", type=Path, default=None, help="a fresh store (default: a new one)")
    rec.add_argument("--collection", default="default")
    rep = sub.add_parser("replay", help="today's time left over recorded runs")
    rep.add_argument("traces", type=Path, nargs="+")
    args = ap.parse_args()
    print(machine_line(machine()), flush=True)
    if args.command == "record":
        record(args.trace, args.data, args.store, args.collection)
        print(f"recorded {args.trace}")
        return 0
    rows, out = [], {}
    for trace in args.traces:
        said = replay(trace)
        out[str(trace)] = said
        within = sum(1 for s in said if s["ratio"] is not None and 0.7 <= s["ratio"] <= 1.3)
        ratios = " ".join("–" if s["ratio"] is None else f"{s['ratio']:.2f}" for s in said)
        rows.append([trace.name, ratios, f"{within} of {len(said)}"])
    print(table(["trace", "time left said / real at tenths 1–9", "within ±30 %"], rows))
    write_json("pace-replay", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
