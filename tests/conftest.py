"""Shared fixtures: the shipped sample pages, fresh stores, and small hand-made documents.

Everything runs offline against the real parsers and the real engine (qdrant-edge); only
hosted LLMs are scripted (tests/support/scripted.py). The embeddings are the real local
model (deepread.stores.embeddings) except where the store, the parsers or the graph are
under test and the vectors' meaning is not:

* hash embeddings (:class:`support.stores.HashEmbeddings`, 16-d): the tests of
  tests/corpus/test_bad_inputs.py and tests/corpus/test_hostile_files.py that use the
  ``open_index`` fixture below (and the ingest test_bad_inputs.py runs in a process of
  its own); in tests/stores/test_faults.py every index (``walrus``, the killed ingest's
  store, the down server); in tests/graphs/test_injection.py ``hostile_index`` and the
  ingest-graph runs;
* hand-written 4-d vectors, with qdrant-client's in-memory local mode (which speaks a
  server's API) as the server: tests/stores/test_backend_contract.py and
  tests/stores/test_writers.py (tests/support/shared_store.py);
* LangChain's ``DeterministicFakeEmbedding``: the tests in tests/stores/test_embeddings.py
  that show any LangChain ``Embeddings`` can back a collection.

tests/stores/test_collection.py uses the local model's own vectors, memoised.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.documents import SHAPES_MD, markdown_index
from support.stores import HashEmbeddings, assert_whole

import deepread
from deepread import Index

# The sample pages shipped with the repository (tests/data/README.md: Python 3.11
# documentation pages, PSF licence) and questions written for the tests over them. The
# benchmark devset in ../shared is for bench/ only: tests run from a clone alone.
DEVSET = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """No DEEPREAD_* settings leak in from the environment; model retries do not sleep
    (deepread's own, and the OpenAI client's, which tests reach through fake servers)."""
    from openai import _base_client

    from deepread.models import chat as models

    for name in list(os.environ):
        if name.startswith("DEEPREAD_"):
            monkeypatch.delenv(name)
    monkeypatch.setattr(models, "BACKOFF_MAX_S", 0.0)
    monkeypatch.setattr(_base_client, "INITIAL_RETRY_DELAY", 0.0)
    monkeypatch.setattr(_base_client, "MAX_RETRY_DELAY", 0.0)


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[deepread.Index]:
    """``SHAPES_MD`` ingested once per test module, for tests that only read it."""
    with markdown_index(tmp_path_factory, "shapes", "shapes.md", SHAPES_MD) as idx:
        yield idx


@pytest.fixture(scope="session")
def devset() -> Path:
    """The shipped sample set: ``docs/`` (the pages) and ``questions.jsonl``."""
    return DEVSET


@pytest.fixture(scope="session")
def questions(devset: Path) -> list[dict]:
    lines = (devset / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture()
def shapes_file(tmp_path: Path) -> Path:
    path = tmp_path / "shapes.md"
    path.write_text(SHAPES_MD, encoding="utf-8")
    return path


@pytest.fixture()
def shapes_index(store: Path, shapes_file: Path) -> Iterator[deepread.Index]:
    idx = deepread.Index.open(store=store, collection="shapes")
    idx.ingest([shapes_file])
    yield idx
    idx.close()


@pytest.fixture(scope="session")
def devset_index(
    tmp_path_factory: pytest.TempPathFactory, devset: Path
) -> Iterator[deepread.Index]:
    """Two sample pages (HTML and PDF of one page) ingested once per test session."""
    store = tmp_path_factory.mktemp("devset-store")
    idx = deepread.Index.open(store=store, collection="devset")
    idx.ingest([devset / "docs" / "library-json.html", devset / "docs" / "library-json.pdf"])
    yield idx
    idx.close()


@pytest.fixture()
def open_index(tmp_path: Path) -> Iterator[Callable[[], Index]]:
    """The bad-input tests' collection (hash embeddings): open it; on teardown check
    :func:`assert_whole`, then close."""
    opened: list[Index] = []

    def open_() -> Index:
        idx = Index.open(
            store=tmp_path / "store",
            collection="docs",
            embeddings=HashEmbeddings(),
            reranker="none",
        )
        opened.append(idx)
        return idx

    yield open_
    for idx in opened:
        assert_whole(idx)
        idx.close()
