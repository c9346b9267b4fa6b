"""A library ingest in a process of its own, for tests that kill it midway.

    python library_ingest.py ENGINE STORE FOLDER [STEP:DOC_ID]

ingests FOLDER into collection ``lib`` of STORE through ``Index.ingest_report`` — the
pipeline ``deepread ingest`` runs — with :class:`~support.stores.HashEmbeddings` (fast
and deterministic: what is compared is the store's content, not the model). ENGINE is
``edge`` (the embedded engine, STORE a directory) or ``server``: the server backend over
qdrant-client's local mode persisted in STORE, which speaks a Qdrant server's API
(insert-only upserts and conditional updates included) and commits every request to
SQLite as it answers — a store that outlives the process, as a server does, where the
process can really be killed. (One process at a time: local mode locks its folder.)

It prints each progress event on stdout (``stored l2.md``). With STEP:DOC_ID it stops
for good the first time the write of document DOC_ID reaches STEP
(``Collection.step``: "claimed", "written" — after each batch of :data:`WRITE_BATCH`
paragraphs —,
"committed", …), printing ``stopped at STEP DOC_ID`` first: the test then kills it
there with SIGKILL, a deterministic point inside one document's write. The same command
without it is "the same command again". It ends by printing ``done`` and exit 0 (1 if
some file failed, its reason on stderr).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for support

from deepread import Index
from deepread.stores import collection as collection_module
from deepread.stores.backend import Backend
from deepread.stores.collection import Collection
from deepread.stores.edge import EdgeBackend
from support.stores import HashEmbeddings

COLLECTION = "lib"
#: Paragraphs written per batch here (256 in deepread): a 40-paragraph document is then
#: written in three batches, so a kill after the first leaves it partly written without
#: the test paying for hundreds of paragraphs.
WRITE_BATCH = 16


def open_backend(engine: str, store: Path) -> Backend:
    """The store's engine alone, as a killed process left it (no ``Collection``: its
    opening repairs what dead writers left)."""
    if engine == "edge":
        return EdgeBackend(store / "collections" / COLLECTION)
    from qdrant_client import QdrantClient

    from deepread.stores.server import ServerBackend

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # local mode: "payload indexes have no effect"
        return ServerBackend("http://local-mode", COLLECTION, client=QdrantClient(path=str(store)))


def open_index(engine: str, store: Path) -> Index:
    if engine == "edge":
        return Index.open(store=store, collection=COLLECTION, embeddings=HashEmbeddings())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # local mode: "payload indexes have no effect"
        collection = Collection(open_backend(engine, store), COLLECTION, HashEmbeddings.model_id)
    return Index(collection, HashEmbeddings(), str(store))


def main(engine: str, store: str, folder: str, stop: str | None = None) -> int:
    collection_module._WRITE_BATCH = WRITE_BATCH
    idx = open_index(engine, Path(store))
    if stop is not None:
        at, doc = stop.split(":")

        def step(name: str, doc_id: int) -> None:
            if name == at and doc_id == int(doc):
                print(f"stopped at {name} {doc_id}", flush=True)
                time.sleep(600)  # until the test kills this process

        idx.collection.step = step

    def progress(event: str, path: Path, done: int, total: int) -> None:
        if event != "page":
            print(f"{event} {path.name}", flush=True)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = idx.ingest_report([folder], progress=progress)
    idx.close()
    for failure in report.failures:
        print(f"FAILED {failure.path}: {failure.reason}", file=sys.stderr)
    print("done", flush=True)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
