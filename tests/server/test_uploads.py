"""Concurrent uploads to one served collection lose nothing (issue 26), over a real
``langgraph dev`` server (tests/support/langgraph_server.py): its runs share one open index in
one process, as a deployed server's jobs do.

The documents are large enough (300 paragraphs each) that the runs' writes overlap: with
8 jobs per worker (as the issue ran it), every run embeds its file at the same time as
the others, then stores it within the same second (measured: 39.7–40.7 s into the run).
The code before issue 26 gave these four runs doc_ids 2, 3, 3, 3 (two files lost), and
the first ingests into a new collection failed "in use by another deepread process".
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from support.langgraph_server import langgraph_dev

import deepread

pytestmark = pytest.mark.slow

UPLOADS = 4
PARAGRAPHS = 300


def upload(i: int) -> dict[str, str]:
    lines = [f"# Upload {i}", ""]
    for p in range(PARAGRAPHS):
        if p % 30 == 0:
            lines += [f"## Part {p // 30} of upload {i}", ""]
        lines += [f"Paragraph {p} of upload {i} records the tide at harbour {i}-{p}.", ""]
    return {"name": f"upload-{i}.md", "text": "\n".join(lines)}


def ingest_at_once(url: str, collection: str, files: list[dict[str, str]]) -> list[dict]:
    client = get_sync_client(url=url)

    def run(file: dict[str, str]) -> dict[str, Any]:
        return client.runs.wait(
            None, "ingest", input={"files": [file]}, context={"collection": collection}
        )

    with ThreadPoolExecutor(len(files)) as pool:
        return list(pool.map(run, files))


def stored(store: Path, collection: str) -> dict[str, int]:
    with deepread.Index.open(store=store, collection=collection) as idx:
        return {
            Path(d.source).name: idx.collection.count_paragraphs(d.doc_id) for d in idx.documents()
        }


def test_concurrent_uploads_into_one_collection_are_all_stored_whole(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    workdir = tmp_path_factory.mktemp("uploads")
    files = [upload(i) for i in range(UPLOADS)]
    # (langgraph dev runs one job at a time unless told otherwise; deployed servers 10)
    with langgraph_dev(workdir, options=("--n-jobs-per-worker", "8")) as url:
        seed = ingest_at_once(
            url, "existing", [{"name": "seed.md", "text": "# Seed\n\nThe first document.\n"}]
        )
        outs = ingest_at_once(url, "existing", files)  # into the existing collection
        firsts = ingest_at_once(url, "fresh", files)  # the collection's first ingests

    assert [d["doc_id"] for d in seed[0]["documents"]] == [1]
    for out in outs + firsts:
        assert out["failures"] == [] and not out.get("error"), out
    assert sorted(d["doc_id"] for out in outs for d in out["documents"]) == [2, 3, 4, 5]
    assert sorted(d["doc_id"] for out in firsts for d in out["documents"]) == [1, 2, 3, 4]
    whole = {f["name"]: PARAGRAPHS for f in files}
    assert stored(workdir / "store", "existing") == {"seed.md": 1} | whole
    assert stored(workdir / "store", "fresh") == whole
