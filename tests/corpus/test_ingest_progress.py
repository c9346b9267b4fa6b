"""Progress inside a long PDF: the page its embedding has reached, not only files done.

A many-page PDF written by the test (fpdf2), ingested with the embedding slice made small
so that a short document crosses several of them; the stored result is the same whatever
the slice.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pdf_builder import Doc, filler

import deepread
from deepread.corpus import pipeline

PAGES = 6


def long_pdf(path: Path) -> Path:
    doc = Doc()
    for page in range(1, PAGES + 1):
        doc.page()
        doc.line(f"Chapter {page}", size=16, bold=True)
        for i in range(4):
            doc.para(filler(30, seed=page * 10 + i))
    return doc.save(path)


def ingest_events(
    tmp_path: Path, collection: str
) -> tuple[list[tuple[str, int, int]], deepread.Index]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    pdf = long_pdf(tmp_path / "report.pdf")
    events: list[tuple[str, int, int]] = []
    idx = deepread.Index.open(store=tmp_path / "store", collection=collection)
    idx.ingest([pdf], progress=lambda event, path, done, total: events.append((event, done, total)))
    return events, idx


def test_a_long_pdf_reports_the_pages_its_embedding_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 5)

    events, idx = ingest_events(tmp_path, "pages")
    idx.close()

    kinds = [e[0] for e in events]
    pages = [(done, total) for kind, done, total in events if kind == "page"]
    assert kinds[:5] == ["plan", "parsing", "parsed", "parse_cost", "embedding"]
    assert kinds[-2:] == ["stored", "group_cost"]
    assert set(kinds[5:-2]) == {"page", "model_cost"}
    assert len(pages) >= 4
    assert [done for done, _ in pages] == sorted(done for done, _ in pages)
    assert pages[-1] == (PAGES, PAGES) and {total for _, total in pages} == {PAGES}


def test_slicing_the_embedding_changes_nothing_that_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 5)
    _, sliced = ingest_events(tmp_path / "a", "sliced")
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 10_000)
    _, whole = ingest_events(tmp_path / "b", "whole")

    with sliced, whole:
        for query in ("revenue segments", "board reviews each plan", "Chapter 4"):
            a = sliced.search(query, k=5, mode="dense").hits
            b = whole.search(query, k=5, mode="dense").hits
            assert [(h.sec_id, h.para_idx) for h in a] == [(h.sec_id, h.para_idx) for h in b]
            assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-5)


def test_a_text_file_has_no_pages_to_report(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(
        "# Notes\n\n" + "\n\n".join(filler(20, seed=i) for i in range(40)), encoding="utf-8"
    )
    events: list[str] = []
    with deepread.Index.open(store=tmp_path / "store", collection="md") as idx:
        idx.ingest([tmp_path / "notes.md"], progress=lambda event, *_: events.append(event))

    assert events == [
        "plan",
        "parsing",
        "parsed",
        "parse_cost",
        "embedding",
        "model_cost",
        "stored",
        "group_cost",
    ]


def test_each_file_is_named_before_its_parse_is_awaited(tmp_path: Path) -> None:
    """A bar names the file being parsed from the start, not once the parsers are up:
    two small files sat at "0file" for ~8 s (issue 36)."""
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(f"# {name}\n\nThe {name} widget hums.\n", encoding="utf-8")
    events: list[tuple[str, str, int, int]] = []
    with deepread.Index.open(store=tmp_path / "store", collection="md") as idx:
        idx.ingest(
            [tmp_path / "a.md", tmp_path / "b.md"],
            progress=lambda event, path, done, total: events.append(
                (event, Path(path).name, done, total)
            ),
        )

    assert events[0][0] == "plan" and events[1] == ("parsing", "a.md", 0, 2)
    assert [e for e in events if e[0] == "parsing"] == [
        ("parsing", "a.md", 0, 2),
        ("parsing", "b.md", 1, 2),
    ]
    # each file is named as being parsed before it is parsed, and stored after
    for name in ("a.md", "b.md"):
        kinds = [e[0] for e in events if e[1] == name]
        assert [k for k in kinds if not k.endswith("_cost")] == [
            "parsing",
            "parsed",
            "embedding",
            "stored",
        ]


def test_each_document_of_an_embedding_call_is_stored_as_soon_as_its_vectors_are_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every document already parsed joins one embedding call; the first is stored (and
    counted, and readable) before the next one's embedding begins, and the file named is
    the one being embedded."""
    monkeypatch.setattr(pipeline, "EMBED_SLICE", 4)
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.md").write_text(
            f"# {name}\n\n" + "\n\n".join(filler(15, seed=i) for i in range(6)),
            encoding="utf-8",
        )
    events: list[tuple[str, str]] = []
    with deepread.Index.open(store=tmp_path / "store", collection="md") as idx:
        idx.ingest(
            sorted(tmp_path.glob("*.md")),
            progress=lambda event, path, *_: events.append((event, Path(path).stem)),
        )

    told = [e for e in events if e[0] in ("embedding", "stored")]
    assert told == [(k, n) for n in ("a", "b", "c") for k in ("embedding", "stored")]
