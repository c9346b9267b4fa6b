"""``deepread ingest`` runs below the commands asked beside it: at niceness 10 by default
(``--nice N``), never raising a priority it was started at.

Each ingest runs in a process of its own (a niceness is a process's and cannot be undone
by it), on a small Markdown file, and says the niceness it ended at.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.processes import deepread, environment

#: The console script's ingest in this process (its niceness is then this process's),
#: then the niceness it left.
CHILD = """
import os, sys
from deepread.cli.main import main
sys.argv = ["deepread", "ingest", *sys.argv[1:]]
code = main()
print("niceness", os.getpriority(os.PRIO_PROCESS, 0), "exit", code)
"""
#: The same ingest called from a program (``main(argv)``).
CALLED = """
import os, sys
from deepread.cli.main import main
code = main(["ingest", *sys.argv[1:]])
print("niceness", os.getpriority(os.PRIO_PROCESS, 0), "exit", code)
"""


def niceness_after(
    tmp_path: Path, *options: str, nicer_by: int = 0, child: str = CHILD
) -> tuple[int, int]:
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nA short note about the harbour's tides.\n", encoding="utf-8")
    argv = [sys.executable, "-c", child, str(note), "--store", str(tmp_path / "store"), *options]
    if nicer_by:
        argv = ["nice", "-n", str(nicer_by), *argv]
    done = subprocess.run(argv, capture_output=True, text=True, env=environment(), check=True)
    said = done.stdout.split()
    return int(said[said.index("niceness") + 1]), int(said[said.index("exit") + 1])


def here() -> int:
    """The niceness this test runs at (0, unless the suite was started nicer)."""
    return os.getpriority(os.PRIO_PROCESS, 0)


def test_an_ingest_runs_at_niceness_ten_by_default(tmp_path: Path) -> None:
    assert niceness_after(tmp_path) == (max(10, here()), 0)


def test_nice_zero_keeps_the_priority_the_ingest_was_started_at(tmp_path: Path) -> None:
    assert niceness_after(tmp_path, "--nice", "0") == (here(), 0)


def test_an_ingest_started_nicer_stays_as_nice(tmp_path: Path) -> None:
    assert niceness_after(tmp_path, "--nice", "5", nicer_by=15) == (min(19, here() + 15), 0)


def test_a_program_calling_main_keeps_its_priority(tmp_path: Path) -> None:
    assert niceness_after(tmp_path, child=CALLED) == (here(), 0)


def test_a_niceness_outside_zero_to_nineteen_is_a_usage_error(tmp_path: Path) -> None:
    done = deepread("ingest", tmp_path, "--nice", "25", env=environment())
    assert done.returncode == 2
    assert "a niceness is 0 to 19, not 25" in done.stderr
