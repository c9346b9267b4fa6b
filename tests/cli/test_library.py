"""``deepread collections`` and ``deepread rm``: what a store holds, and taking documents out.

Real stores written by ``deepread ingest``; every bad input (an unknown collection, an
unknown doc_id or path, a store in use) with the README's exit code, and nothing removed
or created by a refused command.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest
from support.documents import SHAPES_MD

import deepread
from deepread import cli


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DEEPREAD_", "OPENAI_")):
            monkeypatch.delenv(name)


def run(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


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
    on_disk = sum(
        f.stat().st_size for f in (store / "collections" / "shapes").rglob("*") if f.is_file()
    )
    assert listed["shapes"]["bytes"] == on_disk > 0


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
def test_a_store_in_use_exits_3(store: Path, command: list[str]) -> None:
    with deepread.Index.open(store=store, collection="shapes"):
        code, _, err = run(*command, "--store", store)

    assert code == 3 and "is in use by another" in err, err
    assert collections(store)["shapes"]["documents"] == 2


def test_a_negative_doc_id_is_refused_as_usage(store: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        run("toc", "--doc", "-1", "--store", store)

    assert exited.value.code == 2
