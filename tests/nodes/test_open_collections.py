"""The collections a process keeps open are bounded (issue 29 §3): a least-recently-used
set of at most ``DEEPREAD_MAX_OPEN_COLLECTIONS``, idle ones closed past it, and never one
that a running node holds.

Real embedded collections. A collection this process holds open holds its engine lock
(stores/file_locks.py), so "closed" is shown by that lock being free.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.scripted import ScriptedChatModel, ai, call

import deepread
from deepread.graphs.agent import build_graph
from deepread.graphs.ingest import build_ingest_graph
from deepread.nodes.context import Context
from deepread.nodes.open_collections import OPEN, OpenCollections
from deepread.nodes.resources import opener
from deepread.stores.file_locks import EngineLock

NAMES = ["c0", "c1", "c2", "c3", "c4"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store of five one-document collections (made once: embedding takes a while)."""
    folder = tmp_path_factory.mktemp("open")
    store = str(folder / "store")
    for name in NAMES:
        doc = folder / f"{name}.md"
        doc.write_text(f"# {name}\n\nThe note of collection {name} mentions walruses.\n")
        with deepread.Index.open(store=store, collection=name) as idx:
            idx.ingest([doc])
    return store


@pytest.fixture()
def store(made: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """That store, named by DEEPREAD_STORE; whatever a test left open is closed after."""
    monkeypatch.setenv("DEEPREAD_STORE", made)
    yield made
    OPEN.close(made)


def is_closed(store: str, name: str) -> bool:
    """Whether no process holds ``name``'s engine now (its lock is free)."""
    lock = EngineLock(Path(store) / "collections" / name)
    if not lock.take():
        return False
    lock.release()
    return True


def use(open_set: OpenCollections, store: str, name: str) -> None:
    with open_set.lease((store, name), opener(store, name, create=False)):
        pass


def test_past_the_cap_the_least_recently_used_idle_collection_is_closed(store: str) -> None:
    open_set = OpenCollections(cap=lambda: 2)

    for name in ["c0", "c1", "c2", "c0", "c3"]:
        use(open_set, store, name)

    assert open_set.opened() == [(store, "c0"), (store, "c3")]
    assert is_closed(store, "c1") and is_closed(store, "c2")
    # c0 stays in the set but, idle, has let go of the engine, so another process may
    # open it between requests (issue 36); its next lease is the same index, which
    # takes the engine again at its first read
    assert is_closed(store, "c0")
    kept = open_set.acquire((store, "c0"), opener(store, "c0", create=False))
    assert kept.documents()[0].title == "c0" and not is_closed(store, "c0")
    open_set.release((store, "c0"))
    assert is_closed(store, "c0")
    open_set.close()


def test_a_held_collection_is_not_closed_however_many_others_are_opened(store: str) -> None:
    open_set = OpenCollections(cap=lambda: 1)
    key = (store, "c0")
    held = open_set.acquire(key, opener(store, "c0", create=False))

    for name in NAMES[1:]:
        use(open_set, store, name)

    assert held.documents()[0].title == "c0"  # still open and usable
    assert open_set.opened() == [key] and all(is_closed(store, n) for n in NAMES[1:])
    assert open_set.acquire(key, opener(store, "c0", create=False)) is held  # not reopened
    open_set.release(key)
    open_set.release(key)
    assert open_set.users(key) == 0 and open_set.opened() == [key]  # idle, within the cap
    open_set.close()
    assert is_closed(store, "c0")


def test_the_cap_is_the_operators_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepread.environment.settings import SettingsError
    from deepread.environment.settings import current as current_settings

    monkeypatch.setenv("DEEPREAD_MAX_OPEN_COLLECTIONS", "3")
    assert current_settings().max_open_collections == 3
    monkeypatch.setenv("DEEPREAD_MAX_OPEN_COLLECTIONS", "0")
    with pytest.raises(
        SettingsError, match="DEEPREAD_MAX_OPEN_COLLECTIONS must be a whole number of at least 1"
    ):
        current_settings()


def test_the_served_ingest_graph_keeps_at_most_the_cap_open(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPREAD_MAX_OPEN_COLLECTIONS", "2")
    graph = build_ingest_graph(served=True)

    for i in range(6):
        out = graph.invoke(
            {"files": [{"name": "n.md", "text": f"# N\n\nNote {i}.\n"}]},
            context=deepread.IngestContext(collection=f"new{i}"),
        )
        assert out["failures"] == []

    assert [k for k in OPEN.opened() if k[0] == store] == [(store, "new4"), (store, "new5")]
    assert all(is_closed(store, f"new{i}") for i in range(4))


def test_a_collection_a_running_turn_holds_is_not_closed_under_it(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the policy node of a turn on c0 runs (it holds c0), four other collections
    are used with a cap of 1: c0 stays open, and the turn's retrieve reads it."""
    monkeypatch.setenv("DEEPREAD_MAX_OPEN_COLLECTIONS", "1")
    seen: list[int] = []

    def crowd_then_search(messages):
        for name in NAMES[1:]:
            use(OPEN, store, name)
        seen.append(OPEN.users((store, "c0")))
        return ai(call("retrieve", {"query": "walruses"}))

    model = ScriptedChatModel(steps=[crowd_then_search, ai(content="Walruses [1:1:0].")])
    out = build_graph(model=model).invoke(
        {"question": "What do the notes mention?"},
        context=Context(collection="c0", check_sufficiency=False),
    )

    assert seen == [1]
    assert out["stop_reason"] == "answered" and out["citations"]
    assert [k for k in OPEN.opened() if k[0] == store] == [(store, "c0")]


def test_outside_a_leasing_node_a_graph_without_an_index_refuses_to_open_one() -> None:
    from deepread.nodes.resources import Resources

    with pytest.raises(RuntimeError, match="outside a leasing node"):
        Resources().index(Context(collection="c0"))


def test_a_collection_that_fails_to_close_is_dropped_and_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Breaks:
        def close(self) -> None:
            raise OSError("the server went away")

    open_set = OpenCollections(cap=lambda: 1)
    with open_set.lease(("http://u:pw@q.example", "a"), Breaks):  # type: ignore[arg-type]
        pass
    with open_set.lease(("http://u:pw@q.example", "b"), Breaks):  # type: ignore[arg-type]
        pass

    assert open_set.opened() == [("http://u:pw@q.example", "b")]
    assert "closing collection 'a' of http://u:***@q.example failed" in caplog.text
