"""Ingest on every core: files parsed in worker processes, embedded and stored in order.

``Index.ingest(..., workers=N)`` and ``deepread ingest --workers N`` parse files side by
side in N processes while the calling process embeds and writes them
(deepread/corpus/parse_ahead.py); what is stored, and in which order, is what one worker
stores. A worker that dies takes only the file it was parsing down with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import deepread
from deepread.corpus.parse_ahead import ParseAhead, default_workers
from deepread.corpus.parsing import ParseError, parse_file
from deepread.records.errors import UsageError


def folder(tmp_path: Path) -> Path:
    """Two HTML pages, a Markdown file, a text file, and an empty file (a failure)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, topic in (("library-json.html", "encoders"), ("tutorial-controlflow.html", "loops")):
        sections = "".join(
            f"<h2>{topic.title()} part {i}</h2><p>How {topic} work, step {i}."
            f"</p><ul><li>First {topic} item {i}.</li><li>Second item.</li>"
            "</ul>"
            for i in range(4)
        )
        (docs / name).write_text(
            f"<html><head><title>{topic}</title></head><body>"
            f"<h1>All about {topic}</h1>{sections}</body></html>",
            encoding="utf-8",
        )
    (docs / "notes.md").write_text(
        "# Notes\n\nWalruses rest on ice floes.\n\n## More\n\nNarwhals have one long tooth.\n",
        encoding="utf-8",
    )
    (docs / "plain.txt").write_text("A plain text file about otters.\n", encoding="utf-8")
    (docs / "empty.md").write_text("", encoding="utf-8")
    return docs


def stored(idx: deepread.Index) -> list[tuple]:
    return [
        (
            d.doc_id,
            Path(d.source).name,
            d.title,
            [(s.title, s.n_para, s.n_tok) for s in d.sections],
            [p.text for s in d.sections for p in idx.read_section(d.doc_id, s.sec_id)],
        )
        for d in idx.documents()
    ]


def test_two_workers_store_exactly_what_one_worker_stores_in_the_same_order(tmp_path: Path) -> None:
    docs = folder(tmp_path)
    with (
        deepread.Index.open(store=tmp_path / "store", collection="one") as one,
        deepread.Index.open(store=tmp_path / "store", collection="two") as two,
    ):
        events: dict[str, list[tuple[str, str]]] = {"one": [], "two": []}
        got = {}
        for name, idx, workers in (("one", one, 1), ("two", two, 2)):

            def progress(event, path, done, total, name=name):
                events[name].append((event, Path(path).name))

            got[name] = idx.ingest_report([docs], progress=progress, workers=workers)

        assert stored(one) == stored(two)
        assert [Path(d.source).name for d in two.documents()] == [
            "library-json.html",
            "notes.md",
            "plain.txt",
            "tutorial-controlflow.html",
        ]
        # (how parsed files group into embedding calls depends on timing; what is stored
        # or failed, and in which order, does not; "plan" names the collection)
        timed = ("parsing", "parsed", "plan", "parse_cost", "model_cost", "group_cost")
        assert [e for e in events["one"] if e[0] not in timed] == [
            e for e in events["two"] if e[0] not in timed
        ]
        assert [(Path(f.path).name, f.reason) for f in got["two"].failures] == [
            ("empty.md", "the file is empty (0 bytes)")
        ]


def test_a_worker_that_dies_fails_only_the_file_it_was_parsing(tmp_path: Path) -> None:
    docs = folder(tmp_path)
    (docs / "crash.md").write_text("# Crash\n\nThis one kills its parser.\n", encoding="utf-8")
    paths = sorted(p for p in docs.iterdir() if p.name != "empty.md")

    results: dict[str, object] = {}
    with ParseAhead(
        paths, parse_file, workers=2, worker="support.parse_crash:parse_or_die"
    ) as parsed:
        for path in paths:
            try:
                results[path.name] = parsed.take().title
            except ParseError as exc:
                results[path.name] = exc.reason

    assert results["crash.md"].startswith("its parser process died twice")
    assert {name: title for name, title in results.items() if name != "crash.md"} == {
        p.name: parse_file(p).title for p in paths if p.name != "crash.md"
    }


def test_a_failure_inside_a_worker_is_reported_as_that_file_s_reason(tmp_path: Path) -> None:
    docs = folder(tmp_path)
    paths = [docs / "empty.md", docs / "notes.md"]
    with ParseAhead(paths, parse_file, workers=2) as parsed:
        with pytest.raises(ParseError, match="the file is empty"):
            parsed.take()
        assert parsed.take().title == "Notes"


@pytest.mark.parametrize("workers", [1, 2])
def test_each_parse_comes_with_the_cpu_seconds_it_took(tmp_path: Path, workers: int) -> None:
    """What the time left prices the parsing still to do by (corpus/ingest_pace.py)."""
    docs = folder(tmp_path)
    paths = [docs / "library-json.html", docs / "notes.md"]
    taken = []
    with ParseAhead(paths, parse_file, workers=workers) as parsed:
        for _ in paths:
            title = parsed.take().title
            taken.append((title, parsed.seconds))
    assert [title for title, _ in taken] == [parse_file(p).title for p in paths]
    assert all(0 < seconds < 30 for _, seconds in taken)


def test_workers_must_be_at_least_one(tmp_path: Path) -> None:
    with (
        deepread.Index.open(store=tmp_path / "store") as idx,
        pytest.raises(UsageError, match="workers must be a whole number"),
    ):
        idx.ingest([folder(tmp_path)], workers=0)


def test_the_cli_ingests_with_one_worker_per_core_by_default(tmp_path: Path) -> None:
    docs = folder(tmp_path)
    assert default_workers() >= 1
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("deepread")),
            "ingest",
            str(docs),
            "--store",
            str(tmp_path / "store"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 1, done.stderr  # the empty file is a failure line
    report = json.loads(done.stdout)
    assert [(d["doc_id"], Path(d["source"]).name) for d in report["documents"]] == [
        (1, "library-json.html"),
        (2, "notes.md"),
        (3, "plain.txt"),
        (4, "tutorial-controlflow.html"),
    ]
    assert [Path(f["path"]).name for f in report["failures"]] == ["empty.md"]


def spy_on_parse_ahead(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The worker count each real ``ParseAhead`` of an ingest was started with."""
    import deepread.corpus.pipeline as pipeline

    counts: list[int] = []

    class Counted(ParseAhead):
        def __init__(self, paths: list[Path], parse: Any, workers: int = 1) -> None:
            counts.append(workers)
            super().__init__(paths, parse, workers)

    monkeypatch.setattr(pipeline, "ParseAhead", Counted)
    return counts


def test_index_ingest_parses_on_every_core_by_default_when_the_files_repay_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import deepread.corpus.parse_ahead as parse_ahead

    counts = spy_on_parse_ahead(monkeypatch)
    monkeypatch.setattr(parse_ahead, "WORKER_BYTES", 1)  # these small files count as big
    with deepread.Index.open(store=tmp_path / "store") as idx:
        idx.ingest_report([folder(tmp_path)])

    assert counts == [default_workers()]


def test_index_ingest_parses_small_files_in_a_thread_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = spy_on_parse_ahead(monkeypatch)
    with deepread.Index.open(store=tmp_path / "store") as idx:
        idx.ingest_report([folder(tmp_path)])

    assert counts == [1]
