"""A ``langgraph dev`` server and the CLI on one embedded store, side by side (issue 36).

A real server answers a question (so it has opened the collection), then ``deepread
ingest`` from another process stores a new file — with ``DEEPREAD_STORE_WAIT=0``, so it
would fail at once were the server still holding the store between requests — and the
server's next answer cites the new document: a served graph holds the embedded engine
only while a request uses it (nodes/open_collections.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph_sdk import get_sync_client
from support.langgraph_server import langgraph_dev
from support.processes import deepread, environment

import deepread as dr

pytestmark = pytest.mark.slow

ALPHA = "# Alpha\n\nThe alpha widget turns the crank to the left.\n"
BETA = "# Beta\n\nThe beta gadget hums a low note when it is wound.\n"


def test_the_cli_ingests_beside_a_serving_langgraph_dev_and_the_server_reads_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "alpha.md").write_text(ALPHA, encoding="utf-8")
    (tmp_path / "beta.md").write_text(BETA, encoding="utf-8")
    workdir = tmp_path / "server"
    workdir.mkdir()
    store = workdir / "store"  # the server's DEEPREAD_STORE (support/langgraph_server.py)
    with dr.Index.open(store=store, collection="docs") as index:
        index.ingest([tmp_path / "alpha.md"])

    with langgraph_dev(workdir) as url:
        client = get_sync_client(url=url)
        first = client.runs.wait(
            None,
            "deepread",
            input={"question": "Which way does the alpha widget turn the crank?"},
            context={"collection": "docs"},
        )
        assert first["stop_reason"] == "answered", first
        assert {c["doc_id"] for c in first["citations"]} == {1}

        done = deepread(
            "ingest", tmp_path / "beta.md", "--store", store, "--collection", "docs", "--json",
            env=environment(DEEPREAD_STORE_WAIT="0"),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

        second = client.runs.wait(
            None,
            "deepread",
            input={"question": "What does the beta gadget do when it is wound?"},
            context={"collection": "docs"},
        )
        assert second["stop_reason"] == "answered", second
        assert 2 in {c["doc_id"] for c in second["citations"]}
