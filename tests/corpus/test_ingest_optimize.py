"""A long ingest builds the store's vector index as it goes (issue 34 §1).

What the embedded engine has not optimized sits in one appendable segment whose indexes
live in the process's memory; an ingest that built the index only at its end held the
whole run's paragraphs there (RSS 0.3 → 2.06 GB over 184 filings) and then built them in
one go. Here the build interval is made small, and a library of small files is ingested
into the real engine: the index is built between files — each time over what was stored
since — and once at the end, and what is stored is whole and searchable.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pdf_builder import filler
from support.stores import HashEmbeddings, assert_whole

import deepread
from deepread.corpus import pipeline

FILES, PARAGRAPHS = 6, 30
#: One word only file ``f`` holds, to find it by.
ANIMALS = ("aardvark", "bison", "caribou", "dingo", "emu", "ferret")


def library(folder: Path) -> list[Path]:
    folder.mkdir()
    paths = []
    for f in range(FILES):
        path = folder / f"report-{f}.md"
        texts = [filler(20, seed=f * 100 + i) for i in range(PARAGRAPHS - 1)]
        body = "\n\n".join([*texts, f"The {ANIMALS[f]} ledger closes in March."])
        path.write_text(f"# Report {f}\n\n{body}\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_a_long_ingest_builds_the_index_between_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "OPTIMIZE_AT", 50)
    # (raising=False: the code before this had no interval, and fails on what it did)
    monkeypatch.setattr(pipeline, "OPTIMIZE_EVERY", 2 * PARAGRAPHS, raising=False)
    monkeypatch.setattr(pipeline, "GROUP_PARAGRAPHS", 1)  # one file per embedding call
    events: list[tuple[str, str]] = []
    built: list[int] = []  # the paragraphs each build indexed
    with deepread.Index.open(
        store=tmp_path / "store", collection="lib", embeddings=HashEmbeddings(), reranker="none"
    ) as idx:

        def progress(event: str, path: Path, done: int, total: int) -> None:
            events.append((event, Path(path).name))
            if event == "built":
                built.append(total)

        idx.ingest(library(tmp_path / "docs"), progress=progress)
        stored = [name for event, name in events if event == "stored"]
        builds = [i for i, (event, _) in enumerate(events) if event == "optimize"]
        # built after every second file, and at the end over the last files
        assert len(builds) >= FILES // 2
        assert builds[0] < events.index(("stored", stored[-1]))
        assert [e[0] for e in events[-2:]] == ["optimize", "built"]
        assert len(stored) == FILES
        assert sum(built) == FILES * PARAGRAPHS  # each paragraph in one build, timed
        assert_whole(idx)
        assert idx.collection.count_paragraphs() == FILES * PARAGRAPHS
        for f, animal in enumerate(ANIMALS):
            hits = idx.search(f"{animal} ledger", k=1, mode="bm25").hits
            found = idx.collection.document(hits[0].doc_id)
            assert Path(found.source).name == f"report-{f}.md"


def test_a_short_ingest_builds_the_index_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below the interval nothing changes: one build, at the end (as before)."""
    monkeypatch.setattr(pipeline, "OPTIMIZE_AT", 50)
    events: list[str] = []
    with deepread.Index.open(
        store=tmp_path / "store", collection="lib", embeddings=HashEmbeddings(), reranker="none"
    ) as idx:
        idx.ingest(library(tmp_path / "docs"), progress=lambda event, *_: events.append(event))
    assert events.count("optimize") == 1 and events[-2:] == ["optimize", "built"]


def test_a_long_ingest_lets_go_of_the_engine_after_each_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "OPTIMIZE_AT", 50)
    monkeypatch.setattr(pipeline, "OPTIMIZE_EVERY", 2 * PARAGRAPHS)
    monkeypatch.setattr(pipeline, "GROUP_PARAGRAPHS", 1)
    with deepread.Index.open(
        store=tmp_path / "store", collection="lib", embeddings=HashEmbeddings(), reranker="none"
    ) as idx:
        backend = idx.collection.backend
        released: list[bool] = []
        real_release = backend.release

        def release() -> None:
            real_release()
            released.append(backend.held())

        monkeypatch.setattr(backend, "release", release)
        idx.ingest(library(tmp_path / "docs"))
        # let go of after every build (its memory held no longer), opened again by the
        # next write; everything stored is there and found
        assert len(released) >= FILES // 2 and not any(released)
        assert len(idx.documents()) == FILES
        hits = idx.retrieve("ferret ledger", k=1, mode="bm25")
        assert "ferret" in hits[0].text
