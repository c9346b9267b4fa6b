"""``deepread ingest FOLDER`` as a person lives with a long one: what it prints on a
terminal, in a log and with ``--json``, and the same command again after ``kill -9``.

Real processes with the shipped model, on small generated folders; what is checked is
what is printed (the figures' shape and their counts), never how fast.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

import pytest
from support.pdf_builder import Doc, filler
from support.processes import deepread, deepread_command, environment
from support.stores import assert_whole

import deepread as dr
from deepread.corpus.ingest_pace import PAGE_BYTES

#: A file's line without a terminal: its outcome and path, then where the run stands.
LINE = re.compile(
    r"\s*(?P<event>stored|skip|failed|same) (?P<path>\S+)  \[(?P<done>\d+)/(?P<files>\d+) "
    r"files, (?P<pages>\d+)/(?P<total>\d+) pages(?:, (?P<rate>[\d.]+) pages/s"
    r"(?:, ~(?P<left>[\w ]+) left)?)?\]"
)


def ledger(path: Path, n: int) -> Path:
    body = [f"# Ledger {path.stem}", ""]
    body += [f"Entry {i} of {path.stem}: {filler(12, seed=i)}\n" for i in range(n)]
    path.write_text("\n".join(body), encoding="utf-8")
    return path


def library(folder: Path) -> dict[str, int]:
    """A 3-page PDF and four Markdown files, the third long; each file's weight in pages."""
    folder.mkdir(parents=True)
    doc = Doc()
    for page in range(3):
        doc.page().line(f"Part {page + 1}", size=16, bold=True)
        for i in range(3):
            doc.para(filler(25, seed=page * 5 + i))
    doc.save(folder / "a-report.pdf")
    for name, n in (("b", 12), ("c", 160), ("d", 10), ("e", 14)):
        ledger(folder / f"{name}.md", n)
    return {
        p.name: 3 if p.suffix == ".pdf" else -(-p.stat().st_size // PAGE_BYTES)
        for p in folder.iterdir()
    }


def snapshot(idx: dr.Index) -> dict[str, Any]:
    assert_whole(idx)
    documents, paragraphs = [], []
    for doc in idx.documents():
        documents.append((doc.doc_id, doc.source, doc.title, [s.title for s in doc.sections]))
        for section in doc.sections:
            paragraphs += [
                (p.doc_id, p.sec_id, p.para_idx, p.text, p.kind, p.page)
                for p in idx.read_section(doc.doc_id, section.sec_id)
            ]
    return {"documents": documents, "paragraphs": paragraphs}


def test_kill_9_midway_then_the_same_command_ends_as_an_uninterrupted_ingest(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "filings"
    weights = library(folder)
    store = tmp_path / "store"
    # two parse workers: processes of the ingest that must die with it
    command = [*deepread_command(), "ingest", str(folder), "--store", str(store), "--workers", "2"]
    env = environment()

    killed = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert killed.stderr is not None
    seen = []
    for line in killed.stderr:
        seen.append(line.rstrip("\n"))
        if LINE.fullmatch(seen[-1]) and "[2/5 files" in seen[-1]:
            break
    killed.send_signal(signal.SIGKILL)  # two files in, the long one next
    _, rest = killed.communicate(timeout=60)  # EOF: no process of it lives on
    assert killed.returncode == -signal.SIGKILL, "\n".join(seen) + rest
    stored_before = {
        Path(m["path"]).name for m in map(LINE.fullmatch, seen + rest.splitlines()) if m
    }
    assert {"a-report.pdf", "b.md"} <= stored_before

    again = deepread(*command[len(deepread_command()) :], env=env)  # the same command

    assert again.returncode == 0, again.stderr
    lines = [LINE.fullmatch(line) for line in again.stderr.splitlines()]
    files = [m for m in lines if m]
    assert [Path(m["path"]).name for m in files] == sorted(weights)  # every file, in order
    assert {Path(m["path"]).name for m in files if m["event"] == "skip"} >= stored_before
    assert {m["event"] for m in files} == {"skip", "stored"}
    # files done of all, pages done of all: each line one more file, its pages more
    assert [int(m["done"]) for m in files] == [1, 2, 3, 4, 5]
    assert {int(m["files"]) for m in files} == {5}
    assert {int(m["total"]) for m in files} == {sum(weights.values())}
    assert [int(m["pages"]) for m in files] == [
        sum(weights[n] for n in sorted(weights)[: i + 1]) for i in range(5)
    ]
    # the rate once this run has stored something (the time left once its pace has
    # been seen for a while: tests/corpus/test_ingest_pace.py), none left at the end
    worked = [m for m in files if m["event"] == "stored"]
    assert all(m["rate"] for m in worked) and not worked[-1]["left"]
    skipped = sum(m["event"] == "skip" for m in files)
    assert again.stderr.strip().splitlines()[-1] == (
        f"{5 - skipped} stored, {skipped} unchanged, 0 failed (collection 'default' of "
        f"the store {store})"
    )

    with dr.Index.open(store=store) as resumed, dr.Index.open(store=tmp_path / "whole") as whole:
        whole.ingest([folder])  # the same folder, never interrupted
        assert snapshot(resumed) == snapshot(whole)


def test_a_terminal_gets_one_live_line_naming_the_file_at_work(tmp_path: Path) -> None:
    folder = tmp_path / "filings"
    weights = library(folder)
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    proc = subprocess.Popen(
        [*deepread_command(), "ingest", str(folder), "--store", str(tmp_path / "store")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env=environment(),
    )
    os.close(terminal)
    shown, deadline = b"", time.monotonic() + 120
    while True:
        # bounded: a process that never lets go of the terminal fails the test, not the run
        if not select.select([master], [], [], max(0.0, deadline - time.monotonic()))[0]:
            proc.kill()
            raise AssertionError(f"the terminal was still open after 120 s: {shown[-2000:]!r}")
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other end closed: the process is gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0
    screen = shown.decode("utf-8", "replace")

    # one line redrawn in place (carriage returns), never a line per file
    states = [s.strip() for s in screen.split("\r") if s.strip()]
    assert not any(LINE.fullmatch(s) for s in states)
    total = sum(weights.values())
    assert any(f"5/5 files, {total}/{total} pages" in s for s in states), states
    live = [s for s in states if "pages/s" in s and " · " in s]
    assert live, states  # the rate while files remain
    assert any("parsing c.md" in s or "embedding c.md" in s for s in states), states
    others = [s for s in states if not s.startswith("ingest")]
    assert others == [
        f"5 stored, 0 unchanged, 0 failed (collection 'default' of the store {tmp_path / 'store'})"
    ], others


def test_json_prints_the_result_alone_and_no_progress(tmp_path: Path) -> None:
    folder = tmp_path / "filings"
    folder.mkdir()
    ledger(folder / "b.md", 5)
    ledger(folder / "d.md", 4)

    done = deepread("ingest", folder, "--store", tmp_path / "store", "--json", env=environment())

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # the whole of stdout: one document
    assert [Path(d["source"]).name for d in result["documents"]] == ["b.md", "d.md"]
    assert "pages" not in done.stderr and "files" not in done.stderr, done.stderr


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_the_interrupted_line_says_what_is_in_and_that_the_same_command_resumes(
    force: bool,
) -> None:
    """The line itself (the signal test is tests/cli/test_hostile_input.py)."""
    from deepread.cli.ingest import IngestProgress, interrupted_line

    files = [Path(f"/nowhere/f{i}.md") for i in range(4)]
    progress = IngestProgress("c", files, quiet=True)
    for i, event in enumerate(["skip", "stored", "failed"]):
        progress(event, files[i], i + 1, 4)
    line = interrupted_line(progress, force=force)
    progress.close()
    if force:
        assert line == (
            "interrupted; 2 of 4 files stored again, the others keep their earlier parse; "
            "re-run with --force to continue"
        )
    else:
        assert line == (
            "interrupted; 2 of 4 files stored (2 of 4 pages), each whole; the same command "
            "again stores the other 2 and skips those already in"
        )


def test_a_log_gets_lines_while_the_vector_index_is_built(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The embedded engine's build holds Python's lock for its whole 20–40 s, so no
    thread of the ingest can speak meanwhile: a process of its own says the build goes
    on, and stops once it is done."""
    from deepread.cli import ingest as cli_ingest

    monkeypatch.setattr(cli_ingest, "HEARTBEAT_S", 0.2)
    files = [Path(f"/nowhere/f{i}.md") for i in range(2)]
    progress = cli_ingest.IngestProgress("c", files, quiet=False)
    progress("optimize", Path("c"), 1, 2)
    said = ""
    deadline = time.monotonic() + 30
    while "building the vector index (" not in said and time.monotonic() < deadline:
        time.sleep(0.1)
        said += capfd.readouterr().err
    progress("built", Path("c"), 1200, 40)
    time.sleep(0.5)
    after = capfd.readouterr().err
    progress.close()
    assert re.search(r"working building the vector index \(\d+ s\)  \[0/2 files", said)
    assert "building the vector index (" not in after
