"""Time to a command's first line of output: ``deepread ask``'s start, as a person sees it.

Runs the command given after ``--`` with stdout and stderr on one pipe, waits for the
first complete line (with ``--until TEXT``, the first that starts with it), prints the
seconds it took (and the line) on stderr, then ends the command (SIGTERM, then SIGKILL)
and its whole process group, so a run leaves nothing working behind it to load the next.
A whole-process timer run over this script measures the same span plus this
interpreter's own start (~0.02-0.05 s), which is why the figure is also printed from
inside.

Run:  python bench/first_line.py [--runs 5] -- deepread ask "QUESTION" --store S
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time


def first_line(cmd: list[str], until: str = "") -> tuple[float, str]:
    """Seconds from the command's start to its first line (its first starting with
    ``until``, given), and that line; ``inf`` when it ends without one."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    while line and not line.decode(errors="replace").startswith(until):
        line = proc.stdout.readline()
    elapsed = time.perf_counter() - start if line else float("inf")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=5)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.stdout.close()
    return elapsed, line.decode(errors="replace").rstrip("\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument(
        "--until",
        default="",
        help="time the first line that starts with this text (e.g. '→', ask's first step)",
    )
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- COMMAND [ARG …]")
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("give the command after --")
    times = []
    for _ in range(args.runs):
        seconds, line = first_line(cmd, args.until)
        times.append(seconds)
        print(f"{seconds:.3f} s  {line[:100]}", file=sys.stderr)
    if args.runs > 1:
        print(
            f"median {statistics.median(times):.3f} s (min {min(times):.3f}, "
            f"max {max(times):.3f}) over {args.runs} runs",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
