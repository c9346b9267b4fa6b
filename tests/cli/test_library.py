"""``deepread collections`` and ``deepread rm``: what a store holds, and taking documents out.

Real stores written by ``deepread ingest``; every bad input (an unknown collection, an
unknown doc_id or path, a store in use) with the README's exit code, and nothing removed
or created by a refused command.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from support.cli_run import offline, run
from support.documents import SHAPES_MD
from support.hold_store import stopped_holder

import deepread


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    offline(monkeypatch)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """Two collections: ``shapes`` (two documents) and ``notes`` (one)."""
    (tmp_path / "shapes.md").write_text(SHAPES_MD, encoding="utf-8")
    (tmp_path / "tides.md").write_text(
        "# Tides\n\nThe moon pulls the sea.\n\nTwice a day.\n", encoding="utf-8"
    )
    (tmp_path / "notes.md").write_text("# Notes\n\nOne note.\n", encoding="utf-8")
    store = tmp_path / "store"
    assert (
        run(
            "ingest",
            tmp_path / "shapes.md",
            tmp_path / "tides.md",
            "--store",
            store,
            "--collection",
            "shapes",
        )[0]
        == 0
    )
    assert run("ingest", tmp_path / "notes.md", "--store", store, "--collection", "notes")[0] == 0
    return store


def collections(store: Path) -> dict[str, dict]:
    code, out, err = run("collections", "--store", store, "--json")
    assert code == 0, err
    return {c["name"]: c for c in json.loads(out)["collections"]}


def test_collections_lists_each_with_its_documents_paragraphs_and_size(store: Path) -> None:
    listed = collections(store)

    assert list(listed) == ["notes", "shapes"]
    assert (listed["shapes"]["documents"], listed["shapes"]["paragraphs"]) == (2, 9)
    assert (listed["notes"]["documents"], listed["notes"]["paragraphs"]) == (1, 1)
    assert listed["shapes"]["bytes"] == du(store / "collections" / "shapes") > 0


def du(folder: Path) -> int:
    """What ``du`` says ``folder`` takes on disk, in bytes (allocated blocks)."""
    out = subprocess.run(
        ["du", "-s", "--block-size=1", str(folder)], capture_output=True, text=True, check=True
    ).stdout
    return int(out.split()[0])


def test_collections_counts_the_blocks_a_sparse_file_takes_not_its_apparent_size(
    store: Path,
) -> None:
    # The engine's files are sized far past what they hold: the size is du's, 12.8 MiB,
    # not 225.5 MiB of apparent sizes (issue 36).
    with (store / "collections" / "notes" / "sparse.bin").open("wb") as sparse:
        sparse.truncate(64 * 2**20)

    listed = collections(store)["notes"]["bytes"]

    assert listed == du(store / "collections" / "notes") < 64 * 2**20


def test_collections_as_text_is_a_table(store: Path) -> None:
    code, out, _ = run("collections", "--store", store)

    assert code == 0, out
    header, _, shapes = out.splitlines()
    assert header.split() == ["collection", "documents", "paragraphs", "size"]
    assert shapes.split()[:3] == ["shapes", "2", "9"]
    assert re.search(r" \d+\.\d (KiB|MiB|GiB)$", shapes), shapes


def test_collections_of_a_store_not_made_yet_is_empty_and_creates_nothing(tmp_path: Path) -> None:
    code, out, _ = run("collections", "--store", tmp_path / "none", "--json")

    assert code == 0 and json.loads(out)["collections"] == []
    assert not (tmp_path / "none").exists()


def test_rm_removes_documents_by_doc_id_and_by_path(store: Path, tmp_path: Path) -> None:
    code, out, err = run(
        "rm", "1", tmp_path / "tides.md", "--store", store, "--collection", "shapes", "--json"
    )

    assert code == 0, err
    removed = json.loads(out)["removed"]
    assert [(r["doc_id"], r["title"]) for r in removed] == [(1, "Shapes"), (2, "Tides")]
    assert collections(store)["shapes"]["documents"] == 0
    with deepread.Index.open(store=store, collection="shapes") as idx:
        assert idx.search("cherries").hits == []


def test_rm_says_what_it_removed(store: Path) -> None:
    code, out, _ = run("rm", "2", "--store", store, "--collection", "shapes")

    assert code == 0
    assert out.startswith("removed (2) Tides — ") and out.rstrip().endswith("tides.md")


@pytest.mark.parametrize(
    ("docs", "says"),
    [
        (["1", "7"], "no document 7 in collection 'shapes' (documents: 1-2)"),
        (["1", "missing.md"], "no document was ingested from 'missing.md'"),
    ],
)
def test_rm_of_an_unknown_document_exits_2_and_removes_nothing(
    store: Path, docs: list[str], says: str
) -> None:
    code, _, err = run("rm", *docs, "--store", store, "--collection", "shapes")

    assert code == 2 and says in err, err
    assert collections(store)["shapes"]["documents"] == 2


def test_rm_in_an_unknown_collection_exits_2_naming_those_there_and_creates_nothing(
    store: Path,
) -> None:
    code, _, err = run("rm", "1", "--store", store, "--collection", "nope")

    assert code == 2
    assert "no collection 'nope' in store" in err and "'notes', 'shapes'" in err
    assert not (store / "collections" / "nope").exists()


@pytest.mark.parametrize("command", [["rm", "1", "--collection", "shapes"], ["collections"]])
def test_a_store_held_by_a_process_that_does_not_answer_exits_3(
    store: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_STORE_WAIT", "0")  # (the hand-over's seconds only)
    with stopped_holder(store, "shapes"):
        code, _, err = run(*command, "--store", store)

    assert code == 3 and "is in use by another" in err, err
    assert collections(store)["shapes"]["documents"] == 2


def test_rm_beside_a_process_holding_the_store_removes_through_it(store: Path) -> None:
    with deepread.Index.open(store=store, collection="shapes") as holder:
        code, _, err = run("rm", "1", "--collection", "shapes", "--store", store)

        assert code == 0, err
        assert [d.doc_id for d in holder.documents()] == [2]  # the holder sees it gone
    assert collections(store)["shapes"]["documents"] == 1


def test_a_negative_doc_id_is_refused_as_usage(store: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        run("toc", "--doc", "-1", "--store", store)

    assert exited.value.code == 2


def test_documents_sharing_a_title_are_flagged_where_they_are_listed(tmp_path: Path) -> None:
    # An impostor claiming another's name: the same heading, another file.
    report = "# Acme Corporation Annual Report 2019\n\nRevenue grew to 12 million.\n"
    (tmp_path / "acme.md").write_text(report, encoding="utf-8")
    (tmp_path / "acme-investor-update.md").write_text(
        report.replace("12 million", "90 million"), encoding="utf-8"
    )
    (tmp_path / "beta.md").write_text("# Beta Annual Report\n\nBeta sold boats.\n", "utf-8")
    store = tmp_path / "store"
    files = [tmp_path / n for n in ("acme.md", "acme-investor-update.md", "beta.md")]
    assert run("ingest", *files, "--store", store)[0] == 0

    code, docs, _ = run("docs", "--store", store)
    _, toc, _ = run("toc", "--store", store)

    assert code == 0
    for listing in (docs, toc):
        assert "(same title as doc 2; file: acme.md)" in listing
        assert "(same title as doc 1; file: acme-investor-update.md)" in listing
        assert "Beta Annual Report" in listing and "same title as doc 3" not in listing
    with deepread.Index.open(store=store) as idx:  # what a model is shown: the same
        assert "same title as doc 2; file: acme.md" in idx.toc()[0].title


def test_a_copy_is_named_as_one_and_rm_of_its_path_leaves_the_original(
    store: Path, tmp_path: Path
) -> None:
    # The copy once re-pointed the stored document to itself: rm of the copy removed
    # the original's document (issue 36).
    copy = tmp_path / "tides-copy.md"
    copy.write_bytes((tmp_path / "tides.md").read_bytes())

    code, out, _ = run("ingest", copy, "--store", store, "--collection", "shapes")
    assert code == 0
    assert out == f"{copy} [same as doc 2: {(tmp_path / 'tides.md').resolve()}] not stored\n"

    code, _, err = run("rm", copy, "--store", store, "--collection", "shapes")
    assert code == 2 and f"no document was ingested from '{copy}'" in err, err
    with deepread.Index.open(store=store, collection="shapes") as idx:
        assert [(d.doc_id, Path(d.source).name) for d in idx.documents()] == [
            (1, "shapes.md"),
            (2, "tides.md"),
        ]


def test_ingest_json_names_copies(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "notes-copy.md"
    copy.write_bytes((tmp_path / "notes.md").read_bytes())

    code, out, _ = run("ingest", copy, "--store", store, "--collection", "notes", "--json")

    assert code == 0
    data = json.loads(out)
    assert data["documents"] == []
    assert data["duplicates"] == [
        {"path": str(copy), "doc_id": 1, "source": str((tmp_path / "notes.md").resolve())}
    ]
