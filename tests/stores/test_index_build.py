"""The vector index built beside the collection, in a process of its own
(stores/index_build.py, ``Shard.optimize``): the holder answers reads meanwhile, a write
waits for the build and is kept, and a holder killed at any point leaves every point."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from deepread.stores import index_build
from deepread.stores.backend import PointData
from deepread.stores.edge import EdgeBackend
from deepread.stores.schema import Match
from deepread.stores.shard import BESIDE_AT, Shard, build_empty

#: Enough paragraphs for the engine to build an index (it builds none under ~6,600).
POINTS = BESIDE_AT + 3_000
PARAGRAPHS = Match(equals={"record": "paragraph"})


def _points(first: int, n: int, seed: int) -> list[PointData]:
    rng = random.Random(seed)
    return [
        PointData(
            first + i,
            {"record": "paragraph", "doc_id": 1, "para_idx": i},
            [rng.gauss(0.0, 1.0) for _ in range(384)],
            f"paragraph {i} about topic{i % 97}",
        )
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def unbuilt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A collection of POINTS paragraphs written and never built (copied by each test)."""
    path = tmp_path_factory.mktemp("template") / "collections" / "docs"
    path.parent.mkdir(parents=True)
    build_empty(path, 384)
    shard = Shard.load(path)
    shard.upsert(_points(1, POINTS, seed=7))
    shard.close()
    return path


@pytest.fixture
def collection(unbuilt: Path, tmp_path: Path) -> Path:
    path = tmp_path / "collections" / "docs"
    path.parent.mkdir(parents=True)
    shutil.copytree(unbuilt, path)
    return path


def _built(shard: Shard) -> bool:
    info = shard._engine.info()
    return info.indexed_vectors_count == 2 * info.points_count


def test_reads_are_answered_while_the_index_is_built(collection: Path) -> None:
    shard = Shard.load(collection)
    reads, building = [], threading.Event()

    def read() -> None:
        while not building.is_set():
            time.sleep(0.005)
        while building.is_set():
            reads.append(shard.count(PARAGRAPHS))
            time.sleep(0.01)

    reader = threading.Thread(target=read)
    reader.start()
    building.set()
    started = time.monotonic()
    shard.optimize()
    took = time.monotonic() - started
    building.clear()
    reader.join()

    assert _built(shard)
    # Built in this process, the engine holds Python's lock: one read in the whole build.
    assert len(reads) >= 10 and took >= 0.5, (len(reads), took)
    assert set(reads) == {POINTS}
    shard.close()


def test_a_write_made_during_the_build_waits_for_it_and_is_kept(collection: Path) -> None:
    shard = Shard.load(collection)
    written = threading.Event()

    def write() -> None:
        while not any(collection.parent.glob(".docs.building-*")):
            time.sleep(0.005)
        shard.upsert(_points(POINTS + 1, 1, seed=8))
        written.set()

    writer = threading.Thread(target=write)
    writer.start()
    shard.optimize()
    writer.join()

    assert written.is_set()
    assert shard.count(PARAGRAPHS) == POINTS + 1
    assert sorted(p.name for p in collection.parent.iterdir()) == [".docs.lock", "docs"]
    shard.close()
    again = Shard.load(collection)
    assert again.count(PARAGRAPHS) == POINTS + 1
    again.close()


def test_a_build_that_cannot_be_made_beside_is_made_here_and_said(
    collection: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "executable", str(collection.parent / "no-python"))
    shard = Shard.load(collection)

    shard.optimize()

    assert _built(shard)
    assert "could not be built beside it" in capsys.readouterr().err
    assert not any(collection.parent.glob(".docs.building-*"))
    shard.close()


def test_a_collection_left_aside_by_a_holder_killed_between_the_renames_comes_back(
    collection: Path,
) -> None:
    os.rename(collection, index_build.replaced_path(collection))
    (collection.parent / ".docs.building-999999").mkdir()  # its copy, half built

    backend = EdgeBackend(collection)

    assert backend.count(PARAGRAPHS) == POINTS
    assert sorted(p.name for p in collection.parent.iterdir() if not p.name.endswith("lock")) == [
        ".docs.holder",
        "docs",
    ]
    backend.close()


def test_the_collection_aside_is_removed_once_the_built_copy_took_its_place(
    collection: Path,
) -> None:
    shutil.copytree(collection, index_build.replaced_path(collection))

    backend = EdgeBackend(collection)

    assert backend.count(PARAGRAPHS) == POINTS
    assert not index_build.replaced_path(collection).exists()
    backend.close()


_HOLD_AND_BUILD = """
import sys
from pathlib import Path
from deepread.stores.edge import EdgeBackend
from deepread.stores.schema import Match
backend = EdgeBackend(Path(sys.argv[1]))
backend.count(Match())
backend.optimize()
print("built", flush=True)
"""


@pytest.mark.parametrize("kill_after", [0.0, 0.4, 1.2])
def test_a_holder_killed_during_the_build_loses_no_point(
    collection: Path, kill_after: float
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_AND_BUILD, str(collection)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not any(collection.parent.glob(".docs.building-*")) and holder.poll() is None:
        assert time.monotonic() < deadline, "no build began"
        time.sleep(0.005)
    time.sleep(kill_after)
    holder.send_signal(signal.SIGKILL)  # its build process goes on, orphaned
    holder.wait()

    backend = EdgeBackend(collection)

    assert backend.count(PARAGRAPHS) == POINTS
    assert not index_build.replaced_path(collection).exists()
    backend.close()


def test_the_copy_keeps_a_files_holes_and_its_bytes(tmp_path: Path) -> None:
    source, target = tmp_path / "chunk.mmap", tmp_path / "copy.mmap"
    with open(source, "wb") as f:  # 32 MB made at full size, a little of it written
        f.truncate(32 << 20)
        f.seek(5 << 20)
        f.write(b"vectors" * 1000)
    if source.stat().st_blocks * 512 >= 32 << 20:
        pytest.skip("this filesystem keeps no holes")

    index_build.copy_sparse(str(source), str(target))

    assert target.read_bytes() == source.read_bytes()
    assert target.stat().st_blocks * 512 < 2 << 20
