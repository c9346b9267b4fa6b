"""The note naming the process that holds an embedded collection (stores/holder.py): what a
waiting process says it waits for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepread.stores.holder import (
    Holder,
    holder_of,
    note_path,
    remove_note,
    this_command,
    write_note,
)


@pytest.mark.parametrize(
    ("argv", "called"),
    [
        (["/venv/bin/deepread", "chat", "--json"], "deepread chat"),
        (["/venv/bin/langgraph", "dev", "--port", "2024"], "langgraph dev"),
        (["/venv/bin/deepread", "--store", "s", "ask"], "deepread"),
        (["/repo/deepread/cli/__main__.py", "ingest", "a.md"], "python -m cli ingest"),
        (["/tmp/hold_store.py", "/tmp/a/store", "docs"], "hold_store.py"),
        ([""], "python"),
    ],
)
def test_a_process_is_called_by_its_program_and_subcommand(argv: list[str], called: str) -> None:
    assert this_command(argv) == called


def test_the_note_names_this_process_until_it_lets_go(tmp_path: Path) -> None:
    collection = tmp_path / "collections" / "docs"
    collection.mkdir(parents=True)

    write_note(collection)
    assert holder_of(collection) == Holder(os.getpid(), this_command())
    remove_note(collection)

    assert not note_path(collection).exists()
    assert holder_of(collection) is None


def test_a_note_left_by_a_process_that_is_gone_names_nobody(tmp_path: Path) -> None:
    collection = tmp_path / "collections" / "docs"
    collection.mkdir(parents=True)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    note_path(collection).write_text(
        json.dumps({"pid": int(gone.stdout), "command": "deepread chat"})
    )

    assert holder_of(collection) is None
    assert holder_of(collection, live_only=False) == Holder(int(gone.stdout), "deepread chat")
    remove_note(collection)  # not this process's: left alone
    assert note_path(collection).exists()


@pytest.mark.parametrize("text", ["", "{", "[]", '{"pid": "x", "command": 1}', '{"command": "a"}'])
def test_a_damaged_note_names_nobody(tmp_path: Path, text: str) -> None:
    collection = tmp_path / "docs"
    note_path(collection).write_text(text)

    assert holder_of(collection) is None
