"""The store's guarantees, against the real embedded engine (qdrant-edge).

* ``doc_id`` s are small positive integers, 1, 2, … in ingest order, stable per source;
* a re-ingest replaces a document all at once: a failure or a killed process midway
  leaves the old version (or the new one, once committed), never a mix, and
  ``Collection.repair`` (run on open) leaves no hidden ``live=0`` paragraphs behind;
* one process at a time may open an embedded store, and it says so;
* documents and their TOC survive closing and reopening;
* a folder ingest stores the good files and names the bad ones with a reason.

Embeddings come from the real local model, memoised by text within this module so the
600-paragraph document is embedded once; the killed ingests run in fresh processes that
are handed those same vectors (the store, not the model, is under test there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from deepread import Document, Index, IngestError
from deepread.stores.backend import PointData
from deepread.stores.embeddings import LOCAL_MODEL_ID, local_embeddings
from deepread.stores.location import open_backend
from deepread.stores.schema import Match

BIG = 600  # > 2 write batches of 256
HIDDEN = Match(equals={"record": "paragraph", "live": 0})


class MemoEmbeddings(Embeddings):
    """The local model with vectors memoised by text; same id, so stores are shared."""

    model_id = LOCAL_MODEL_ID

    def __init__(self) -> None:
        self._model = local_embeddings()
        self._memo: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            self._memo.update(zip(missing, self._model.embed_array(missing).tolist(), strict=True))
        return [self._memo[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._model.embed_query(text)


class SimulatedCrash(RuntimeError):
    """Raised by a patched backend to stop a write midway."""


@pytest.fixture(scope="module")
def embeddings() -> MemoEmbeddings:
    return MemoEmbeddings()


@pytest.fixture()
def open_index(store: Path, embeddings: MemoEmbeddings) -> Iterator[Callable[[str], Index]]:
    """Open collections of this test's store; whatever is still open is closed after."""
    opened: list[Index] = []

    def open_(collection: str = "docs") -> Index:
        idx = Index.open(store=store, collection=collection, embeddings=embeddings)
        opened.append(idx)
        return idx

    yield open_
    for idx in opened:
        idx.close()


def write_md(path: Path, title: str, paragraphs: list[str]) -> Path:
    path.write_text(f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


def stored(title: str, paragraphs: list[str]) -> list[str]:
    """The texts :func:`write_md`'s file is stored as: its first paragraph carries the
    heading above it as its first line (corpus/parsing/structure.py)."""
    return [f"{title}\n{paragraphs[0]}", *paragraphs[1:]]


def old_paragraphs() -> list[str]:
    return [f"Old version paragraph {i} about walruses." for i in range(3)]


FRESH = ["Fresh paragraph about otters.", "Fresh paragraph about beavers."]


def big_paragraphs() -> list[str]:
    return [f"New version paragraph {i} about narwhals." for i in range(BIG)]


def all_texts(idx: Index, doc: Document) -> list[str]:
    return [p.text for s in doc.sections for p in idx.read_section(doc.doc_id, s.sec_id)]


def hidden_points(idx: Index) -> int:
    return idx.collection.backend.count(HIDDEN)


def reopen(idx: Index, open_: Callable[[str], Index]) -> Index:
    idx.close()
    return open_(idx.name)


# -- doc_ids and replacement -----------------------------------------------------------


def test_doc_ids_are_assigned_one_two_three_in_ingest_order(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    names = ["charlie", "alpha", "bravo"]
    files = [write_md(tmp_path / f"{n}.md", n.title(), [f"All about {n}."]) for n in names]

    ids = [idx.ingest([f])[0].doc_id for f in files]

    assert ids == [1, 2, 3]
    assert [(d.doc_id, Path(d.source).stem) for d in idx.documents()] == [
        (1, "charlie"),
        (2, "alpha"),
        (3, "bravo"),
    ]


def test_reingesting_changed_content_keeps_the_doc_id(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    first = write_md(tmp_path / "first.md", "First", ["The first file, version one."])
    second = write_md(tmp_path / "second.md", "Second", ["The second file."])
    idx.ingest([first, second])

    write_md(first, "First", ["The first file, version two.", "It grew a paragraph."])
    (doc,) = idx.ingest([first])

    assert doc.doc_id == 1
    assert [d.doc_id for d in idx.documents()] == [1, 2]


def test_reingesting_changed_content_replaces_the_paragraphs_without_duplicates(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    path = write_md(
        tmp_path / "fruit.md", "Fruit", ["Quinces ripen late.", "Medlars are eaten bletted."]
    )
    idx.ingest([path])
    write_md(
        path,
        "Fruit",
        ["Persimmons are astringent.", "Loquats flower in winter.", "Jujubes taste like dates."],
    )

    (doc,) = idx.ingest([path])

    assert idx.collection.count_paragraphs(doc.doc_id) == doc.n_para == 3
    assert all_texts(idx, doc) == stored(
        "Fruit",
        ["Persimmons are astringent.", "Loquats flower in winter.", "Jujubes taste like dates."],
    )
    assert [p.text for p in idx.retrieve("persimmons", k=5, mode="bm25")] == [
        "Fruit\nPersimmons are astringent."
    ]
    assert idx.retrieve("quinces medlars", k=5, mode="bm25") == []
    assert hidden_points(idx) == 0


def test_reingesting_unchanged_content_is_skipped(
    open_index: Callable[[str], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    idx = open_index("docs")
    path = write_md(tmp_path / "same.md", "Same", ["Nothing changes here."])
    (first,) = idx.ingest([path])
    events: list[str] = []

    def no_writes(points: list[PointData]) -> None:
        raise AssertionError("an unchanged file was written again")

    monkeypatch.setattr(idx.collection.backend, "upsert", no_writes)
    (again,) = idx.ingest([path], progress=lambda event, *_: events.append(event))

    assert again == first
    assert events == ["skip"]
    assert idx.collection.count_paragraphs(first.doc_id) == 1


# -- a failed rewrite --------------------------------------------------------------------


def fail_rewrite(idx: Index, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-ingest ``path`` as the 600-paragraph version, crashing after one batch."""
    write_md(path, "Big", big_paragraphs())
    backend = idx.collection.backend
    real_upsert = backend.upsert
    calls: list[int] = []

    def upsert_then_crash(points: list[PointData]) -> None:
        calls.append(len(points))
        if len(calls) > 1:
            raise SimulatedCrash("disk on fire")
        real_upsert(points)

    monkeypatch.setattr(backend, "upsert", upsert_then_crash)
    try:
        result = idx.ingest_report([path])
    finally:
        monkeypatch.setattr(backend, "upsert", real_upsert)
    # reported as that file's failure (test_a_failed_write_is_that_files_failure_...)
    assert [Path(f.path).name for f in result.failures] == [path.name]
    assert not result.documents
    assert calls == [256, 256], "the crash should hit the second paragraph batch"


@pytest.fixture()
def failed_rewrite(
    open_index: Callable[[str], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Index, Path]:
    """A collection whose 3-paragraph doc 1 just failed to become 600 paragraphs."""
    idx = open_index("docs")
    path = write_md(tmp_path / "doc.md", "Old", old_paragraphs())
    idx.ingest([path])
    fail_rewrite(idx, path, monkeypatch)
    return idx, path


def test_a_failed_write_is_that_files_failure_naming_the_error(
    open_index: Callable[[str], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 15: any exception while storing one file is that file's failure (only a
    # StoreError, which concerns the whole store, ends the run).
    idx = open_index("docs")
    path = write_md(tmp_path / "doc.md", "Old", old_paragraphs())
    idx.ingest([path])
    write_md(path, "New", ["A new version that never lands."])

    def crash(points: list[PointData]) -> None:
        raise SimulatedCrash("disk on fire")

    monkeypatch.setattr(idx.collection.backend, "upsert", crash)
    with pytest.raises(IngestError) as info:
        idx.ingest([path])
    assert [(f.path, f.reason) for f in info.value.failures] == [
        (str(path), "unexpected SimulatedCrash: disk on fire")
    ]


def test_a_failed_rewrite_leaves_the_old_version_fully_readable(
    failed_rewrite: tuple[Index, Path],
) -> None:
    idx, _ = failed_rewrite

    (doc,) = idx.documents()
    assert doc.doc_id == 1
    assert idx.collection.count_paragraphs(1) == doc.n_para == 3
    assert all_texts(idx, doc) == stored("Old", old_paragraphs())
    assert idx.retrieve("narwhals", k=5, mode="bm25") == []


def test_reopening_after_a_failed_rewrite_leaves_no_hidden_paragraphs(
    failed_rewrite: tuple[Index, Path], open_index: Callable[[str], Index]
) -> None:
    idx = reopen(failed_rewrite[0], open_index)

    assert hidden_points(idx) == 0
    (doc,) = idx.documents()
    assert idx.collection.count_paragraphs(1) == doc.n_para == 3
    assert all_texts(idx, doc) == stored("Old", old_paragraphs())


def test_a_failed_rewrite_can_be_retried(failed_rewrite: tuple[Index, Path]) -> None:
    idx, path = failed_rewrite

    (doc,) = idx.ingest([path])

    assert doc.doc_id == 1
    assert idx.collection.count_paragraphs(1) == doc.n_para == BIG
    assert all_texts(idx, doc) == stored("Big", big_paragraphs())
    assert hidden_points(idx) == 0


# -- a killed process --------------------------------------------------------------------

_KILLED_INGEST = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    from langchain_core.embeddings import Embeddings
    import deepread
    from deepread.stores.embeddings import LOCAL_MODEL_ID, local_embeddings

    store, collection, path, where, vectors = sys.argv[1:]
    memo = dict(zip(json.load(open(vectors + ".json")), np.load(vectors + ".npy").tolist()))

    class Precomputed(Embeddings):  # the local model's vectors, computed by the test
        model_id = LOCAL_MODEL_ID

        def embed_documents(self, texts):
            if all(t in memo for t in texts):
                return [memo[t] for t in texts]
            return local_embeddings().embed_documents(texts)

        def embed_query(self, text):
            return local_embeddings().embed_query(text)

    idx = deepread.Index.open(store=store, collection=collection, embeddings=Precomputed())
    backend = idx.collection.backend
    calls = {"upsert": 0, "delete": 0}

    def dying(name, real, nth):
        def method(*args, **kwargs):
            calls[name] += 1
            if calls[name] == nth:
                os._exit(1)
            return real(*args, **kwargs)
        return method

    if where == "before-commit":  # during the second paragraph batch
        backend.upsert = dying("upsert", backend.upsert, 2)
    elif where in ("after-commit", "mid-publish"):
        # after-commit: the document point names the new version, still hidden;
        # mid-publish: the new version live, the old one not yet deleted
        dies = "committed" if where == "after-commit" else "published"
        idx.collection.step = lambda name, doc_id: os._exit(1) if name == dies else None
    idx.ingest([path])
    print("the ingest was not killed")
""")


@pytest.fixture(scope="module")
def big_vectors(tmp_path_factory: pytest.TempPathFactory, embeddings: MemoEmbeddings) -> Path:
    """Vectors of the killed processes' documents, saved as ``<stem>.npy/.json``."""
    texts = big_paragraphs() + FRESH
    stem = tmp_path_factory.mktemp("vectors") / "big"
    np.save(stem.with_suffix(".npy"), np.asarray(embeddings.embed_documents(texts)))
    stem.with_suffix(".json").write_text(json.dumps(texts), encoding="utf-8")
    return stem


def killed_ingest(store: Path, path: Path, where: str, vectors: Path) -> None:
    """Ingest ``path`` into "docs" in a fresh process that dies (``os._exit``) at ``where``."""
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_INGEST, str(store), "docs", str(path), where, str(vectors)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr


def raw_counts(store: Path, collection: str, doc_id: int) -> tuple[int, int]:
    """(live, hidden) paragraphs of ``doc_id`` as the killed process left them."""
    backend = open_backend(str(store), collection)
    try:
        live = backend.count(Match(equals={"record": "paragraph", "doc_id": doc_id, "live": 1}))
        return live, backend.count(
            Match(equals={"record": "paragraph", "doc_id": doc_id, "live": 0})
        )
    finally:
        backend.close()


@pytest.fixture()
def old_version(open_index: Callable[[str], Index], store: Path, tmp_path: Path) -> Path:
    """doc 1 stored as its 3-paragraph old version; the store is closed again."""
    path = write_md(tmp_path / "doc.md", "Old", old_paragraphs())
    idx = open_index("docs")
    idx.ingest([path])
    idx.close()
    return path


def test_killed_before_the_commit_the_old_version_survives_whole(
    old_version: Path, store: Path, open_index: Callable[[str], Index], big_vectors: Path
) -> None:
    write_md(old_version, "Big", big_paragraphs())

    killed_ingest(store, old_version, "before-commit", big_vectors)

    assert raw_counts(store, "docs", 1) == (3, 256)  # old live, first new batch hidden
    idx = open_index("docs")
    (doc,) = idx.documents()
    assert doc.title == "Old"
    assert idx.collection.count_paragraphs(1) == doc.n_para == 3
    assert all_texts(idx, doc) == stored("Old", old_paragraphs())
    assert hidden_points(idx) == 0


def test_killed_after_the_commit_the_new_version_is_published_whole(
    old_version: Path, store: Path, open_index: Callable[[str], Index], big_vectors: Path
) -> None:
    write_md(old_version, "Big", big_paragraphs())

    killed_ingest(store, old_version, "after-commit", big_vectors)

    assert raw_counts(store, "docs", 1) == (3, BIG)  # committed, not yet published
    idx = open_index("docs")
    (doc,) = idx.documents()
    assert doc.doc_id == 1
    assert doc.title == "Big"
    assert idx.collection.count_paragraphs(1) == doc.n_para == BIG
    assert all_texts(idx, doc) == stored("Big", big_paragraphs())
    assert hidden_points(idx) == 0


def test_killed_while_publishing_the_old_version_is_dropped(
    old_version: Path, store: Path, open_index: Callable[[str], Index], big_vectors: Path
) -> None:
    write_md(old_version, "Small", FRESH)

    killed_ingest(store, old_version, "mid-publish", big_vectors)

    assert raw_counts(store, "docs", 1) == (3 + 2, 0)  # both versions visible
    idx = open_index("docs")
    (doc,) = idx.documents()
    assert idx.collection.count_paragraphs(1) == doc.n_para == 2
    assert all_texts(idx, doc) == stored("Small", FRESH)
    assert hidden_points(idx) == 0


def test_an_interrupted_remove_leaves_no_orphan_paragraphs(
    open_index: Callable[[str], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    idx = open_index("docs")
    path = write_md(tmp_path / "doc.md", "Doomed", ["A paragraph about lemmings."])
    idx.ingest([path])
    backend = idx.collection.backend
    real_delete = backend.delete

    def delete_once(match: Match) -> None:
        if match.equals.get("record") == "paragraph":
            raise SimulatedCrash("killed between the two deletes")
        real_delete(match)

    monkeypatch.setattr(backend, "delete", delete_once)
    with pytest.raises(SimulatedCrash):
        idx.remove(1)
    monkeypatch.setattr(backend, "delete", real_delete)
    idx = reopen(idx, open_index)

    assert idx.documents() == []
    assert idx.retrieve("lemmings", k=5, mode="bm25") == []


# -- one holder, every process served ------------------------------------------------------

_READ_STORE = textwrap.dedent("""
    import sys
    import deepread

    try:
        idx = deepread.Index.open(store=sys.argv[1], collection=sys.argv[2])
        print([d.title for d in idx.documents()])
        print(idx.read_section(doc_id=1, sec_id=1, start=0, end=0)[0].text)
    except deepread.StoreError as exc:
        print(exc)
        sys.exit(3)
""")


def test_a_second_process_reads_the_collection_through_the_process_holding_it(
    open_index: Callable[[str], Index], store: Path, tmp_path: Path
) -> None:
    idx = open_index("docs")
    idx.ingest([write_md(tmp_path / "doc.md", "Doc", ["Held open by the test."])])

    done = subprocess.run(
        [sys.executable, "-c", _READ_STORE, str(store), "docs"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=os.environ | {"DEEPREAD_STORE_WAIT": "0"},  # (no waiting: it is answered)
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["['Doc']", "Doc", "Held open by the test."]
    assert idx._collection.backend.held()  # this process kept the engine throughout


def test_a_second_index_in_the_same_process_reads_through_the_first(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    idx.ingest([write_md(tmp_path / "doc.md", "Doc", ["Held open by the test."])])

    second = open_index("docs")

    assert [d.title for d in second.documents()] == ["Doc"]
    assert not second._collection.backend.held()
    second.close()
    assert [d.title for d in idx.documents()] == ["Doc"]  # the first still holds it


def test_closing_releases_the_store(open_index: Callable[[str], Index], tmp_path: Path) -> None:
    idx = open_index("docs")
    idx.ingest([write_md(tmp_path / "doc.md", "Doc", ["Released on close."])])
    idx.close()

    again = open_index("docs")

    assert [d.title for d in again.documents()] == ["Doc"]


def test_other_collections_of_the_store_stay_usable(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    idx.ingest([write_md(tmp_path / "doc.md", "Doc", ["In the first collection."])])

    other = open_index("other")
    (doc,) = other.ingest([write_md(tmp_path / "b.md", "B", ["In the second collection."])])

    assert doc.doc_id == 1
    assert [d.title for d in idx.documents()] == ["Doc"]


# -- persistence ---------------------------------------------------------------------------


def test_documents_and_toc_survive_close_and_reopen(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    idx.ingest(
        [
            write_md(tmp_path / "a.md", "A", ["Intro to A.", "## Part\n\nA part of A."]),
            write_md(tmp_path / "b.md", "B", ["Only paragraph of B."]),
        ]
    )
    before = [d.to_dict() | {"hash": d.content_hash} for d in idx.toc()]
    texts = {d.doc_id: all_texts(idx, d) for d in idx.documents()}

    idx = reopen(idx, open_index)

    assert [d.to_dict() | {"hash": d.content_hash} for d in idx.toc()] == before
    assert {d.doc_id: all_texts(idx, d) for d in idx.documents()} == texts
    assert [p.text for p in idx.retrieve("part", k=1, mode="bm25")] == ["Part\nA part of A."]


def test_a_moved_file_is_the_same_document_under_its_new_path(
    open_index: Callable[[str], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    idx = open_index("docs")
    old = write_md(tmp_path / "report.md", "Report", ["Walruses haul out in spring."])
    (first,) = idx.ingest([old])
    new = tmp_path / "archive" / "report-2024.md"
    new.parent.mkdir()
    old.rename(new)

    def no_writes(points: list[PointData]) -> None:
        raise AssertionError("a moved file was stored again")

    monkeypatch.setattr(idx.collection.backend, "upsert", no_writes)
    (again,) = idx.ingest([new])

    assert again.doc_id == first.doc_id
    assert [(d.doc_id, d.source) for d in idx.documents()] == [(first.doc_id, str(new.resolve()))]


def test_a_moved_files_new_path_survives_reopening(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    old = write_md(tmp_path / "a.md", "A", ["Otters hold hands."])
    idx.ingest([old])
    new = old.rename(tmp_path / "b.md")
    idx.ingest([new])
    idx = reopen(idx, open_index)
    events: list[str] = []

    idx.ingest([new], progress=lambda event, *_: events.append(event))

    assert [d.source for d in idx.documents()] == [str(new.resolve())]
    assert events == ["skip"]


def test_a_copy_beside_its_original_stores_nothing_and_leaves_the_original_its_document(
    open_index: Callable[[str], Index], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy once printed "[unchanged]" while re-pointing the stored document to itself,
    # and a later `rm` of the copy removed the original's document (issue 36).
    idx = open_index("docs")
    original = write_md(tmp_path / "report.md", "Report", ["Walruses haul out in spring."])
    (first,) = idx.ingest([original])
    copy = tmp_path / "copy-of-report.md"
    copy.write_bytes(original.read_bytes())

    def no_writes(points: list[PointData]) -> None:
        raise AssertionError("a copy was stored")

    monkeypatch.setattr(idx.collection.backend, "upsert", no_writes)
    events: list[str] = []
    report = idx.ingest_report([copy], progress=lambda event, *_: events.append(event))

    assert (report.documents, report.skipped, report.failures) == ([], [], [])
    assert [(c.path, c.document.doc_id) for c in report.duplicates] == [(str(copy), 1)]
    assert report.duplicates[0].document.source == str(original.resolve())
    assert events == ["same"]
    assert idx.ingest([copy]) == []
    assert [(d.doc_id, d.source) for d in idx.documents()] == [
        (first.doc_id, str(original.resolve()))
    ]


def test_copies_within_one_ingest_are_stored_once(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    a = write_md(tmp_path / "a.md", "A", ["Otters hold hands."])
    b = tmp_path / "b.md"
    b.write_bytes(a.read_bytes())

    report = idx.ingest_report([a, b])

    [stored] = report.documents
    assert stored.source == str(a.resolve())
    assert [(c.path, c.document.doc_id) for c in report.duplicates] == [(str(b), stored.doc_id)]
    assert [d.doc_id for d in idx.documents()] == [stored.doc_id]


def test_a_copy_of_a_file_that_failed_fails_too(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    bad = tmp_path / "a.pdf"
    bad.write_bytes(b"%PDF-1.4 not really")
    (tmp_path / "b.pdf").write_bytes(bad.read_bytes())

    report = idx.ingest_report([bad, tmp_path / "b.pdf"])

    assert report.documents == [] and report.duplicates == []
    assert [Path(f.path).name for f in report.failures] == ["a.pdf", "b.pdf"]
    assert report.failures[1].reason == f"same bytes as {bad}, which failed"


def test_ingest_returns_the_identifying_titles_documents_lists(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    # Both parse as "Notes": ingest printed that where docs showed the title that tells
    # them apart (issue 36).
    idx = open_index("docs")
    files = [
        write_md(tmp_path / "a.md", "Notes", ["Apples are red."]),
        write_md(tmp_path / "b.md", "Notes", ["Pears are green."]),
    ]

    stored = idx.ingest(files)
    again = idx.ingest(files)  # unchanged: the same titles

    listed = [(d.doc_id, d.title) for d in idx.documents()]
    assert [(d.doc_id, d.title) for d in stored] == listed
    assert [(d.doc_id, d.title) for d in again] == listed
    assert [title for _, title in listed] != ["Notes", "Notes"]
    assert all(d.card is not None for d in stored)


def test_a_forced_ingest_stores_an_unchanged_file_again_under_its_doc_id(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    path = write_md(tmp_path / "same.md", "Same", ["Nothing changes here.", "Nor here."])
    (first,) = idx.ingest([path])
    events: list[str] = []

    (again,) = idx.ingest([path], force=True, progress=lambda event, *_: events.append(event))

    assert "skip" not in events and "stored" in events
    assert (again.doc_id, again.n_para) == (first.doc_id, first.n_para)
    assert [d.doc_id for d in idx.documents()] == [first.doc_id]
    assert idx.collection.count_paragraphs(first.doc_id) == 2
    assert hidden_points(idx) == 0


def test_reopened_store_still_skips_unchanged_files(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    idx = open_index("docs")
    path = write_md(tmp_path / "a.md", "A", ["Unchanged across reopen."])
    idx.ingest([path])
    idx = reopen(idx, open_index)
    events: list[str] = []

    idx.ingest([path], progress=lambda event, *_: events.append(event))

    assert events == ["skip"]


# -- bad files in a folder -------------------------------------------------------------------


@pytest.fixture()
def mixed_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mixed"
    folder.mkdir()
    write_md(folder / "good.md", "Good", ["A perfectly good paragraph."])
    (folder / "empty.md").write_bytes(b"")
    (folder / "notes.xyz").write_text("not a supported type", encoding="utf-8")
    (folder / "binary.md").write_bytes(b"# Bin\n\n\x00\x01\x02\x00 junk\n")
    return folder


def test_folder_ingest_names_each_bad_file_with_a_reason(
    open_index: Callable[[str], Index], mixed_folder: Path
) -> None:
    idx = open_index("docs")

    with pytest.raises(IngestError) as info:
        idx.ingest(mixed_folder)

    reasons = {Path(f.path).name: f.reason for f in info.value.failures}
    assert set(reasons) == {"empty.md", "binary.md"}
    assert "empty" in reasons["empty.md"]
    assert "binary" in reasons["binary.md"] or "NUL" in reasons["binary.md"]
    assert "binary.md" in str(info.value) and "empty.md" in str(info.value)


def test_folder_ingest_stores_the_good_file_despite_bad_ones(
    open_index: Callable[[str], Index], mixed_folder: Path
) -> None:
    idx = open_index("docs")

    with pytest.raises(IngestError) as info:
        idx.ingest(mixed_folder)

    assert [Path(d.source).name for d in info.value.documents] == ["good.md"]
    assert [Path(d.source).name for d in idx.documents()] == ["good.md"]
    assert [p.text for p in idx.read_section(1, 1)] == stored(
        "Good", ["A perfectly good paragraph."]
    )


class RefusingEmbeddings(MemoEmbeddings):
    """Refuses any batch holding a text with "poison" in it, as a remote API might."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if any("poison" in t for t in texts):
            raise ValueError("the embedding service refused a text")
        return super().embed_documents(texts)


def test_an_embedding_refusal_fails_only_the_document_it_concerns(
    store: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "three"
    folder.mkdir()
    for name, text in [
        ("a", "Alpha text about otters."),
        ("b", "A poison paragraph."),
        ("c", "Gamma text about beavers."),
    ]:
        write_md(folder / f"{name}.md", name.upper(), [text])
    idx = Index.open(store=store, collection="refuse", embeddings=RefusingEmbeddings())
    try:
        report = idx.ingest_report(folder)
        stored = [Path(d.source).name for d in report.documents]
        failed = {Path(f.path).name: f.reason for f in report.failures}
        documents = [Path(d.source).name for d in idx.documents()]
    finally:
        idx.close()

    assert stored == documents == ["a.md", "c.md"]
    assert failed == {"b.md": "the embedding service refused a text"}


def test_a_folder_ingest_reports_each_file_parsed_then_stored_in_order(
    open_index: Callable[[str], Index], tmp_path: Path
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(7):
        write_md(folder / f"doc{i}.md", f"Doc {i}", [f"Paragraph about topic {i}."])
    events: list[tuple[str, str, int, int]] = []

    open_index("docs").ingest(folder, progress=lambda e, p, d, t: events.append((e, p.name, d, t)))

    for i in range(7):
        name = f"doc{i}.md"
        mine = [e for e in events if e[1] == name and not e[0].endswith("_cost")]
        assert mine == [
            ("parsing", name, i, 7),
            ("parsed", name, i + 1, 7),
            ("embedding", name, 0, 0),  # (a file without pages: 0 of them)
            ("stored", name, i + 1, 7),
        ]
    assert [e[1] for e in events if e[0] == "stored"] == [f"doc{i}.md" for i in range(7)]


def test_folder_ingest_ignores_unsupported_file_types(
    open_index: Callable[[str], Index], mixed_folder: Path
) -> None:
    idx = open_index("docs")

    report = idx.ingest_report(mixed_folder)

    names = {Path(f.path).name for f in report.failures}
    names |= {Path(d.source).name for d in report.documents}
    assert "notes.xyz" not in names
