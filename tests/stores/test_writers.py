"""Many writers and readers, one collection (issue 26): each race as a deterministic test.

Every test runs on a simulated Qdrant server (qdrant-client's local mode, one request at
a time as a server applies them) and on the embedded engine (several views over one
open store: a process's threads), with the views as separate processes would have them
— each its own cache, its own clock where a test says so (tests/support/shared_store.py). A
writer is paused or killed *between its steps* through ``Collection.step``; nothing
waits on a sleep. Each test ends by checking that nothing is half-written: every
document holds exactly the paragraphs its record counts, no hidden paragraph, lease,
claim or stray source mapping is left (``assert_settled``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.local_http import LocalServer, QuietHandler
from support.shared_store import (
    Clock,
    Kill,
    Killed,
    Pause,
    Store,
    Writer,
    assert_settled,
    body,
    put,
    state,
    texts,
)

from deepread.records.errors import CoordinateError, StoreError, WriteConflict
from deepread.stores import collection as collection_module
from deepread.stores.backend import PointData
from deepread.stores.edge import EdgeBackend
from deepread.stores.schema import Match
from deepread.stores.server import ServerBackend
from deepread.stores.writers import LeaseLost


@pytest.fixture(params=["server", "edge"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    store = Store(request.param, tmp_path)
    yield store
    store.close()


@pytest.fixture()
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paragraphs written two at a time, so a 5-paragraph write has three batches."""
    monkeypatch.setattr(collection_module, "_WRITE_BATCH", 2)


def seeded(shared: Store) -> None:
    put(shared.view(), "seed.md", "seed")


# -- writers that cannot collide -----------------------------------------------------------


def test_two_writers_whose_lists_predate_both_writes_get_two_doc_ids(shared: Store) -> None:
    seeded(shared)
    a, b = shared.view(), shared.view()
    assert [d.source for d in a.documents()] == [d.source for d in b.documents()] == ["seed.md"]

    alpha = put(a, "alpha.md", "alpha")
    beta = put(b, "beta.md", "beta")  # b's list still holds only seed.md

    assert (alpha.doc_id, beta.doc_id) == (2, 3)
    fresh = shared.view()
    assert state(fresh) == {
        "seed.md": body("seed", 3),
        "alpha.md": body("alpha", 3),
        "beta.md": body("beta", 3),
    }
    assert_settled(fresh)


def test_a_doc_id_claimed_by_a_paused_writer_is_not_given_to_another(shared: Store) -> None:
    seeded(shared)
    a, b = shared.view(), shared.view()
    a.step = pause = Pause("claimed")
    writer = Writer(lambda: put(a, "alpha.md", "alpha"))
    writer.start()
    assert pause.reached.wait(20)

    beta = put(b, "beta.md", "beta")
    pause.go()
    alpha = writer.finish()

    assert (alpha.doc_id, beta.doc_id) == (2, 3)
    assert_settled(shared.view())


def test_one_new_file_stored_by_two_processes_at_once_becomes_one_document(shared: Store) -> None:
    a, b = shared.view(), shared.view()
    a.step = pause = Pause("claimed")  # a holds doc_id 1, the file not yet mapped to it
    writer = Writer(lambda: put(a, "same.md", "from-a"))
    writer.start()
    assert pause.reached.wait(20)

    from_b = put(b, "same.md", "from-b")  # maps the file first
    pause.go()
    from_a = writer.finish()  # gives its claim back, then writes b's document anew

    assert from_a.doc_id == from_b.doc_id == 2
    fresh = shared.view()
    assert state(fresh) == {"same.md": body("from-a", 3)}
    assert_settled(fresh)


@pytest.mark.parametrize("existing", [True, False], ids=["stored-before", "new"])
def test_a_file_being_written_is_refused_to_a_second_writer_which_is_told(
    shared: Store, existing: bool
) -> None:
    if existing:
        put(shared.view(), "same.md", "v1")
    a, b = shared.view(), shared.view()
    a.step = pause = Pause("acquired")
    writer = Writer(lambda: put(a, "same.md", "from-a"))
    writer.start()
    assert pause.reached.wait(20)

    with pytest.raises(WriteConflict, match="is being written by another writer"):
        put(b, "same.md", "from-b")
    pause.go()
    writer.finish()

    fresh = shared.view()
    assert state(fresh) == {"same.md": body("from-a", 3)}
    assert_settled(fresh)


def test_a_removal_racing_a_write_is_told_and_the_write_stands(shared: Store) -> None:
    put(shared.view(), "doc.md", "v1")
    a, b = shared.view(), shared.view()
    a.step = pause = Pause("written")
    writer = Writer(lambda: put(a, "doc.md", "v2"))
    writer.start()
    assert pause.reached.wait(20)

    with pytest.raises(WriteConflict, match=r"document 1 .* is being written by another writer"):
        b.delete_document(1)
    pause.go()
    writer.finish()

    fresh = shared.view()
    assert state(fresh) == {"doc.md": body("v2", 3)}
    assert_settled(fresh)


def test_a_write_racing_a_removal_is_told_and_the_removal_stands(shared: Store) -> None:
    put(shared.view(), "doc.md", "v1")
    a, b = shared.view(), shared.view()
    b.step = pause = Pause("marked")
    remover = Writer(lambda: b.delete_document(1))
    remover.start()
    assert pause.reached.wait(20)

    with pytest.raises(WriteConflict, match="is being written by another writer"):
        put(a, "doc.md", "v2")
    pause.go()
    remover.finish()

    fresh = shared.view()
    assert state(fresh) == {}
    assert_settled(fresh)
    put(a, "doc.md", "v2")  # once the removal is done, the file is stored anew
    assert state(shared.view()) == {"doc.md": body("v2", 3)}


# -- repair that touches only the dead -----------------------------------------------------


def test_opening_the_collection_during_a_write_leaves_that_write_alone(
    shared: Store, small_batches: None
) -> None:
    seeded(shared)
    a = shared.view()
    a.step = pause = Pause("written")  # 2 of gamma's 5 paragraphs written, hidden
    writer = Writer(lambda: put(a, "gamma.md", "gamma", n=5))
    writer.start()
    assert pause.reached.wait(20)

    shared.view()  # another process opens the collection (and repairs at open)
    pause.go()
    gamma = writer.finish()

    fresh = shared.view()
    assert texts(fresh, fresh.document(gamma.doc_id)) == body("gamma", 5)
    assert state(fresh)["gamma.md"] == body("gamma", 5)
    assert_settled(fresh)


def test_a_writer_whose_lease_ran_out_and_was_taken_over_fails_and_commits_nothing(
    shared: Store, small_batches: None
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    a.step = pause = Pause("written")
    writer = Writer(lambda: put(a, "doc.md", "v2", n=5))
    writer.start()
    assert pause.reached.wait(20)

    shared.clock.advance(shared.lease_s + 1)  # the writer stalls past its lease
    repairer = shared.view()  # repair at open takes the lease over
    pause.go()

    with pytest.raises(LeaseLost, match="took longer than its lease"):
        writer.finish()
    assert state(repairer) == {"doc.md": body("v1", 3)}
    assert_settled(shared.view())


def test_a_writer_whose_lease_ran_out_unnoticed_still_commits(
    shared: Store, small_batches: None
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    a.step = pause = Pause("written")
    writer = Writer(lambda: put(a, "doc.md", "v2", n=5))
    writer.start()
    assert pause.reached.wait(20)

    shared.clock.advance(shared.lease_s + 1)  # expired, but nobody took it
    pause.go()
    writer.finish()

    assert state(shared.view()) == {"doc.md": body("v2", 5)}


def test_a_commit_after_a_takeover_does_not_apply(shared: Store) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    lease = a.writers.acquire("doc.md")  # renewed for the last time here
    shared.clock.advance(shared.lease_s + 1)
    shared.view()  # repair takes the lease over

    with pytest.raises(LeaseLost):
        a.writers.commit(lease, {"document": {"title": "never"}})

    fresh = shared.view()
    assert [d.title for d in fresh.documents()] == ["doc.md (v1)"]
    assert_settled(fresh)


def test_a_repairer_whose_clock_jumps_ahead_takes_a_live_lease_and_its_writer_fails_cleanly(
    shared: Store, small_batches: None
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    a.step = pause = Pause("written")
    writer = Writer(lambda: put(a, "doc.md", "v2", n=5))
    writer.start()
    assert pause.reached.wait(20)

    shared.view(clock=Clock(shared.clock.now + 3600))  # an hour ahead
    pause.go()

    with pytest.raises(LeaseLost):
        writer.finish()
    fresh = shared.view()
    assert state(fresh) == {"doc.md": body("v1", 3)}
    assert_settled(fresh)


def test_a_writer_whose_clock_jumped_back_loses_its_lease_and_nothing_mixes(
    shared: Store, small_batches: None
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view(clock=Clock(shared.clock.now - 3600))  # its leases end in the past
    a.step = pause = Pause("written")
    writer = Writer(lambda: put(a, "doc.md", "v2", n=5))
    writer.start()
    assert pause.reached.wait(20)

    shared.view()  # a repairer with the right time sees the lease expired
    pause.go()

    with pytest.raises(LeaseLost):
        writer.finish()
    fresh = shared.view()
    assert state(fresh) == {"doc.md": body("v1", 3)}
    assert_settled(fresh)


def test_a_repairer_whose_clock_jumps_back_leaves_a_dead_write_until_it_is_due(
    shared: Store, small_batches: None
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    a.step = Kill("written")
    with pytest.raises(Killed):
        put(a, "doc.md", "v2", n=5)
    shared.clock.advance(shared.lease_s + 1)
    behind = shared.view(clock=Clock(shared.clock.now - 3600))
    assert behind.backend.count(Match(equals={"record": "paragraph", "live": 0})) == 2
    assert state(behind) == {"doc.md": body("v1", 3)}  # readers unaffected meanwhile

    after = shared.restart()
    assert state(after) == {"doc.md": body("v1", 3)}
    assert_settled(after)


NEW_STEPS = ["claimed", "acquired", "written", "committed", "published", "cleaned"]
REWRITE_STEPS = ["acquired", "written", "committed", "published", "cleaned"]
REMOVE_STEPS = ["acquired", "marked", "emptied", "unmapped"]
COMMITTED = {"committed", "published", "cleaned"}


@pytest.mark.parametrize("step", NEW_STEPS)
def test_a_writer_of_a_new_document_killed_at_any_step_leaves_it_absent_or_whole(
    shared: Store, small_batches: None, step: str
) -> None:
    seeded(shared)
    a = shared.view()
    a.step = Kill(step)
    with pytest.raises(Killed):
        put(a, "new.md", "new", n=5)

    after = shared.restart()
    expected = {"seed.md": body("seed", 3)}
    if step in COMMITTED:
        expected["new.md"] = body("new", 5)
    assert state(after) == expected
    assert_settled(after)
    put(after, "new.md", "again", n=4)  # the re-run
    assert state(after) == {"seed.md": body("seed", 3), "new.md": body("again", 4)}
    assert_settled(after)


@pytest.mark.parametrize("step", REWRITE_STEPS)
def test_a_rewrite_killed_at_any_step_leaves_the_old_version_or_the_new_whole(
    shared: Store, small_batches: None, step: str
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    a.step = Kill(step)
    with pytest.raises(Killed):
        put(a, "doc.md", "v2", n=5)

    after = shared.restart()
    assert state(after) == {"doc.md": body("v2", 5) if step in COMMITTED else body("v1", 3)}
    assert_settled(after)
    put(after, "doc.md", "v3", n=2)
    assert state(after) == {"doc.md": body("v3", 2)}
    assert_settled(after)


@pytest.mark.parametrize("step", REMOVE_STEPS)
def test_a_removal_killed_at_any_step_leaves_the_document_whole_or_gone(
    shared: Store, step: str
) -> None:
    put(shared.view(), "doc.md", "v1")
    a = shared.view()
    a.step = Kill(step)
    with pytest.raises(Killed):
        a.delete_document(1)

    after = shared.restart()
    assert state(after) == ({"doc.md": body("v1", 3)} if step == "acquired" else {})
    assert_settled(after)


# -- readers that stay exact ---------------------------------------------------------------


def test_a_reader_sees_documents_stored_and_removed_elsewhere_without_reopening(
    shared: Store,
) -> None:
    reader, writer = shared.view(), shared.view()
    assert reader.documents() == []

    alpha = put(writer, "alpha.md", "alpha")
    assert [d.source for d in reader.documents()] == ["alpha.md"]

    writer.delete_document(alpha.doc_id)
    assert reader.documents() == []
    with pytest.raises(CoordinateError, match="no document 1"):
        reader.document(1)


def test_a_reader_reads_again_only_the_records_written_since_it_last_read(
    shared: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer, reader = shared.view(), shared.view()
    alpha, beta = put(writer, "alpha.md", "alpha"), put(writer, "beta.md", "beta")
    before = {d.doc_id: d for d in reader.documents()}
    read: list[int] = []
    from_dict = collection_module.Document.from_dict
    monkeypatch.setattr(
        collection_module.Document,
        "from_dict",
        staticmethod(lambda data: read.append(data["doc_id"]) or from_dict(data)),
    )

    gamma = put(writer, "gamma.md", "gamma")
    put(writer, "beta.md", "beta again")  # rewritten: a new version of the same doc_id
    after = {d.doc_id: d for d in reader.documents()}

    assert sorted(read) == sorted([gamma.doc_id, beta.doc_id])
    assert after[alpha.doc_id] is before[alpha.doc_id]  # the same record, kept
    assert texts(reader, after[beta.doc_id]) == body("beta again", 3)


def test_a_document_asked_for_by_id_is_looked_up_when_the_reader_has_not_seen_it(
    shared: Store,
) -> None:
    seeded(shared)
    reader = shared.view()
    assert len(reader.documents()) == 1

    alpha = put(shared.view(), "alpha.md", "alpha")

    assert reader.document(alpha.doc_id).source == "alpha.md"  # no documents() between
    assert texts(reader, reader.document(alpha.doc_id)) == body("alpha", 3)


@pytest.mark.parametrize("step", ["committed", "published"])
def test_a_reader_never_sees_half_of_a_rewrite(shared: Store, step: str) -> None:
    put(shared.view(), "doc.md", "v1")
    reader = shared.view()
    held = reader.document(1)  # a record of v1, read before the rewrite
    writer_view = shared.view()
    writer_view.step = pause = Pause(step)
    writer = Writer(lambda: put(writer_view, "doc.md", "v2", n=5))
    writer.start()
    assert pause.reached.wait(20)

    assert texts(reader, held) == body("v1", 3)  # the version its record names, whole
    (now,) = reader.documents()  # v2 is committed: listed, and read whole
    assert texts(reader, now) == body("v2", 5)
    hits = reader.rank("paragraph version", None, k=20, mode="bm25")
    assert {p.text for _, p in hits} <= set(body("v2", 5))  # never a v1 hit beside v2
    pause.go()
    writer.finish()

    assert state(reader) == {"doc.md": body("v2", 5)}
    assert {p.text for _, p in reader.rank("paragraph version", None, k=20, mode="bm25")} == set(
        body("v2", 5)
    )


class HalfDeletes:
    """A backend that applies a delete of a version's paragraphs in two requests, pausing
    between them — as a server may apply one large delete in chunks readers can see."""

    def __init__(self, backend, pause: Pause) -> None:
        self._backend = backend
        self._pause = pause

    def __getattr__(self, name: str):
        return getattr(self._backend, name)

    def delete(self, match: Match) -> None:
        if match.equals.get("record") == "paragraph" and "version" in match.equals:
            self._backend.delete(Match(equals=match.equals, ranges={"para_idx": (0, 0)}))
            self._pause("half-deleted", 0)
        self._backend.delete(match)


def test_a_reader_of_a_version_deleted_under_it_rereads_the_new_one_whole(shared: Store) -> None:
    put(shared.view(), "doc.md", "v1")
    put(shared.view(), "doc.md", "v2")  # v1 is now a version with version ids
    reader = shared.view()
    reader.document(1)  # the reader holds v2's record
    pause = Pause("half-deleted")
    writer_view = shared.view()
    writer_view.backend = writer_view.writers.backend = HalfDeletes(writer_view.backend, pause)
    writer = Writer(lambda: put(writer_view, "doc.md", "v3", n=4))
    writer.start()
    assert pause.reached.wait(20)  # v2's first paragraph gone, the rest still there

    # not two thirds of v2: the reader finds v2 short, rereads the record, reads v3 whole
    assert [p.text for p in reader.paragraphs(1, 1, 0, 10)] == body("v3", 4)
    pause.go()
    writer.finish()
    assert_settled(shared.view())


# -- one process, many threads -------------------------------------------------------------


def test_creating_a_collection_again_in_the_same_process_uses_the_shard_already_open(
    tmp_path: Path,
) -> None:
    backend = EdgeBackend(tmp_path / "store" / "c")
    backend.create(4)

    backend.create(4)  # another thread finding it created meanwhile

    assert backend.exists()
    backend.close()


def test_first_writes_into_a_new_collection_from_many_threads_all_land(shared: Store) -> None:
    view = shared.view()  # one open collection, as a server process shares it
    names = [f"upload-{i}.md" for i in range(4)]
    writers = [Writer(lambda name=name: put(view, name, name)) for name in names]
    for writer in writers:
        writer.start()
    docs = [writer.finish() for writer in writers]

    assert sorted(d.doc_id for d in docs) == [1, 2, 3, 4]
    assert state(shared.view()) == {name: body(name, 3) for name in names}
    assert_settled(shared.view())


# -- stores written before versions (schema 1) ---------------------------------------------


def test_a_store_written_before_versions_is_read_then_rewritten_whole(shared: Store) -> None:
    view = shared.view()
    view._ensure_created(4)
    backend = view.backend
    old = body("old", 3)
    backend.set_payload(Match(ids=(0,)), {"schema": 1})
    backend.upsert(
        [
            PointData(
                1 << 34 | 2 << 32,
                {
                    "record": "document",
                    "doc_id": 1,
                    "slot": 0,
                    "source": "old.md",
                    "document": {
                        "doc_id": 1,
                        "title": "Old",
                        "source": "old.md",
                        "content_hash": "h",
                        "sections": [
                            {
                                "sec_id": 0,
                                "title": "Old",
                                "level": 0,
                                "parent": None,
                                "children": [1],
                            },
                            {"sec_id": 1, "title": "Body", "level": 1, "parent": 0, "n_para": 3},
                        ],
                    },
                },
            )
        ]
    )
    backend.upsert(
        [
            PointData(
                1 << 34 | i,
                {
                    "record": "paragraph",
                    "doc_id": 1,
                    "sec_id": 1,
                    "para_idx": i,
                    "text": t,
                    "kind": "text",
                    "slot": 0,
                    "live": 1,
                },
                dense=[1.0, 0.5, 0.2, 0.1],
                bm25_text=t,
            )
            for i, t in enumerate(old)
        ]
    )

    reopened = shared.restart()
    assert state(reopened) == {"old.md": old}
    put(reopened, "old.md", "new")  # found by its source, under its doc_id

    fresh = shared.view()
    assert [d.doc_id for d in fresh.documents()] == [1]
    assert state(fresh) == {"old.md": body("new", 3)}
    assert_settled(fresh)


# -- the server's version -------------------------------------------------------------------


class OldQdrant(QuietHandler):
    """Answers like a Qdrant 1.16 server: it has no insert-only mode."""

    def do_GET(self) -> None:
        data = json.dumps({"title": "qdrant - vector search engine", "version": "1.16.3"})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data.encode())


def test_a_qdrant_server_older_than_1_17_is_refused_before_its_first_insert() -> None:
    server = LocalServer(OldQdrant)
    try:
        url = server.url.removesuffix("/v1")
        backend = ServerBackend(url, "deepread_c", timeout=5)
        with pytest.raises(StoreError, match=r"version 1\.16\.3; deepread needs 1\.17\.0"):
            backend.insert([PointData(1, {"record": "document"})])
        backend.close()
    finally:
        server.close()
