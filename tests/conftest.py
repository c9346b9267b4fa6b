"""Shared fixtures: the shipped sample pages, fresh stores, and small hand-made documents.

Everything runs offline against the real engine (qdrant-edge), the real parsers and
the real local embedding model; only hosted LLMs are scripted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

import deepread
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context

# The sample pages shipped with the repository (tests/data/README.md: Python 3.11
# documentation pages, PSF licence) and questions written for the tests over them. The
# benchmark devset in ../shared is for bench/ only: tests run from a clone alone.
DEVSET = Path(__file__).resolve().parent / "data"

# A document whose shape exercises Algorithm 1's edges: a section with 5 paragraphs,
# an empty section, a one-paragraph section, nesting, and text before the first heading.
SHAPES_MD = """\
Preamble paragraph before any heading.

# Shapes

## Five

Alpha paragraph about apples.

Bravo paragraph about bananas.

Charlie paragraph about cherries.

Delta paragraph about dates.

Echo paragraph about elderberries.

## Empty

### One

Only paragraph about figs.
"""


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """No DEEPREAD_* settings leak in from the environment; model retries do not sleep
    (deepread's own, and the OpenAI client's, which tests reach through fake servers)."""
    from openai import _base_client

    from deepread.corpus import models

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


@contextmanager
def markdown_index(tmp_path_factory: pytest.TempPathFactory, collection: str,
                   file_name: str, text: str) -> Iterator[deepread.Index]:
    """``text`` written to ``file_name`` in a fresh folder and ingested into a store
    beside it, as collection ``collection``; closed on exit."""
    folder = tmp_path_factory.mktemp(collection)
    path = folder / file_name
    path.write_text(text, encoding="utf-8")
    with deepread.Index.open(store=folder / "store", collection=collection) as idx:
        idx.ingest([path])
        yield idx


def titled(index: deepread.Index, title: str) -> int:
    """The sec_id of the section titled ``title`` in the index's first document."""
    doc = index.documents()[0]
    return next(s.sec_id for s in doc.sections if s.title == title)


def run_agent(index: deepread.Index, question: str, thread: str = "t1",
              **context: object) -> dict:
    """The final state of one agent run on ``question`` (a context of ``context``'s
    fields, the rest defaults; checkpoints in memory)."""
    graph = build_graph(index=index, checkpointer=InMemorySaver())
    return graph.invoke({"question": question}, {"configurable": {"thread_id": thread}},
                        context=Context(**context))


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
def devset_index(tmp_path_factory: pytest.TempPathFactory,
                 devset: Path) -> Iterator[deepread.Index]:
    """Two sample pages (HTML and PDF of one page) ingested once per test session."""
    store = tmp_path_factory.mktemp("devset-store")
    idx = deepread.Index.open(store=store, collection="devset")
    idx.ingest([devset / "docs" / "library-json.html", devset / "docs" / "library-json.pdf"])
    yield idx
    idx.close()
