"""The embedded store keeps its collection on disk, so a process's memory does not grow
with the store (issue 34 §1 and §5).

The engine's defaults kept the dense vectors in RAM (``InRamChunkedMmap``, populated
when a collection is opened) and the sparse index pinned: a reader of 231,000 paragraphs
had 1.6 GB resident, an ingest of 184 filings 2.06 GB. deepread now asks for every part
on disk (``Memory.Cold``) when it creates a collection and again whenever it opens one,
so stores made before move over as their segments are rebuilt. Checked here on what the
engine writes (its settings and each segment's storage type) and on a fresh process's
resident memory after opening a collection — the real engine throughout.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import qdrant_edge as qe

from deepread.stores.backend import PointData
from deepread.stores.edge import EdgeBackend
from deepread.stores.schema import DENSE, INTEGER_FIELDS, KEYWORD_FIELDS, SPARSE, Match

DIM = 384


def points(n: int, start: int = 0) -> list[PointData]:
    """``n`` paragraph-like points with random unit vectors (no BM25 text: the dense
    vectors are what is measured)."""
    rng = np.random.default_rng(start)
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [
        PointData(id=start + i + 1, payload={"record": "paragraph", "doc_id": 1}, dense=v.tolist())
        for i, v in enumerate(vectors)
    ]


def settings(path: Path) -> dict:
    return json.loads((path / "edge_config.json").read_text())


def segment_storage(path: Path) -> set[str]:
    """The dense vectors' storage type of every segment of the collection at ``path``."""
    return {
        json.loads((s / "segment.json").read_text())["config"]["vector_data"][DENSE]["storage_type"]
        for s in (path / "segments").iterdir()
        if (s / "segment.json").exists()
    }


def assert_on_disk(config: dict) -> None:
    assert config["vectors"][DENSE]["memory"] == "cold"
    assert config["sparse_vectors"][SPARSE]["memory"] == "cold"
    assert config["hnsw_config"]["memory"] == "cold"
    assert config["payload_memory"] == "cold"
    assert config["id_tracker_memory"] == "cold"


def test_a_new_collection_keeps_vectors_and_indexes_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "c"
    backend = EdgeBackend(path)
    backend.create(DIM)
    backend.upsert(points(50))
    backend.close()
    assert_on_disk(settings(path))
    assert segment_storage(path) == {"ChunkedMmap"}  # the engine's default: InRamChunkedMmap


def test_a_new_collections_payload_indexes_are_kept_on_disk(tmp_path: Path) -> None:
    """The coordinate and version indexes too: kept in memory (the engine's default),
    every opening read and built them again — 0.5 s at 36,530 paragraphs, 2.3-2.7 s at
    231,304 (docs/history/benchmarks-2026.md §24)."""
    path = tmp_path / "c"
    backend = EdgeBackend(path)
    backend.create(DIM)
    backend.close()
    for segment in (path / "segments").iterdir():
        fields = json.loads((segment / "payload_index" / "config.json").read_text())
        indexed = fields["indexed_fields"]
        assert set(indexed) == set(INTEGER_FIELDS) | set(KEYWORD_FIELDS)
        assert all(field["memory"] == "cold" for field in indexed.values()), indexed


def test_a_store_made_with_the_engines_defaults_moves_to_disk_when_opened(
    tmp_path: Path,
) -> None:
    """A collection created as deepread did before (the engine's defaults) is given
    the on-disk settings by the next process that opens it; its points stay readable."""
    path = tmp_path / "c"
    old = qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )
    shard = qe.EdgeShard.create(str(path), old)
    shard.flush()
    shard.close()
    assert "memory" not in settings(path)["vectors"][DENSE]
    backend = EdgeBackend(path)
    backend.upsert(points(20))
    assert backend.count(Match()) == 20
    backend.close()
    assert_on_disk(settings(path))


#: Run in a fresh process: open the collection at argv[1] and print how many kB of its
#: dense vectors' files are resident in the process (``/proc/self/smaps``, mapping by
#: mapping; the write-ahead log, payload indexes and the engine's code are not counted).
_OPEN = """
import re, sys
from pathlib import Path
from deepread.stores.edge import EdgeBackend
backend = EdgeBackend(Path(sys.argv[1]))
segments, resident, name = str(Path(sys.argv[1]) / "segments"), 0, ""
for line in Path("/proc/self/smaps").read_text().splitlines():
    head = re.match(r"[0-9a-f]+-[0-9a-f]+ \\S+ \\S+ \\S+ \\S+\\s*(.*)$", line)
    if head:
        name = head.group(1)
    elif line.startswith("Rss:") and name.startswith(segments) and "/vector_storage-dense/" in name:
        resident += int(line.split()[1])
print(resident)
backend.close()
"""


def test_opening_a_collection_does_not_read_its_vectors_into_memory(tmp_path: Path) -> None:
    """20,000 vectors (30 MB): opening the collection in a fresh process leaves them on
    disk (with the engine's defaults all 30 MB became resident at once)."""
    path = tmp_path / "c"
    backend = EdgeBackend(path)
    backend.create(DIM)
    for start in range(0, 20_000, 2_000):
        backend.upsert(points(2_000, start))
    backend.close()
    vectors_kb = 20_000 * DIM * 4 // 1024
    out = subprocess.run(
        [sys.executable, "-c", _OPEN, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    resident_kb = int(out.stdout)
    assert resident_kb < vectors_kb / 10, (resident_kb, vectors_kb)


def test_a_server_collection_is_created_on_disk_too() -> None:
    """The server store asks the same of a Qdrant server: vectors and the sparse index
    on disk (qdrant-client's local mode, standing in for the server, keeps these two
    settings as sent)."""
    import warnings

    from qdrant_client import QdrantClient

    from deepread.stores.server import ServerBackend

    client = QdrantClient(location=":memory:")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "payload indexes have no effect" in local mode
        ServerBackend("http://in-memory", "c", client=client).create(DIM)
    params = client.get_collection("c").config.params
    assert params.vectors[DENSE].on_disk is True
    assert params.sparse_vectors[SPARSE].index.on_disk is True
