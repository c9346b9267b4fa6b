"""Many real processes on one embedded store, each outcome compared with the same work done
one after another: ``bench/store_stress.py``, a run of each of three of its scenarios
(two ingests at once; two ingests with the one holding the store killed with SIGKILL and
run again; an idle chat, an ingest, ``rm`` and ``docs`` at once). docs/benchmarks.md
gives its 20-run figures; before the engine lock, the first and third differed in two of
three runs (whole runs lost with exit 0).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
ARGUMENTS = "--repeats 1 --scenarios disjoint kill-holder mixed --seed 7"


def test_processes_at_once_on_one_store_end_as_if_they_had_run_one_after_another(
    tmp_path: Path,
) -> None:
    script = [sys.executable, str(BENCH / "store_stress.py")]
    options = ["--keep", str(tmp_path / "run"), "--out", str(tmp_path / "stress.json")]
    done = subprocess.run(
        [*script, *ARGUMENTS.split(), *options],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        cwd=BENCH,
    )

    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert done.stdout.count(" agrees ") == 3, done.stdout
