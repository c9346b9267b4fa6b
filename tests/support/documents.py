"""Small documents the tests are written against, and indexes of them.

``SHAPES_MD`` exercises Algorithm 1's edges; :func:`markdown_index` ingests a text into a
fresh store; :func:`deep_document` is a section tree built in memory for TOC tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from langgraph.checkpoint.memory import InMemorySaver

import deepread
from deepread.graphs.agent import build_graph
from deepread.nodes.context import Context
from deepread.records.documents import Document, Section

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


@contextmanager
def markdown_index(
    tmp_path_factory: pytest.TempPathFactory, collection: str, file_name: str, text: str
) -> Iterator[deepread.Index]:
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


def run_agent(index: deepread.Index, question: str, thread: str = "t1", **context: object) -> dict:
    """The final state of one agent run on ``question`` (a context of ``context``'s
    fields, the rest defaults; checkpoints in memory)."""
    graph = build_graph(index=index, checkpointer=InMemorySaver())
    return graph.invoke(
        {"question": question}, {"configurable": {"thread_id": thread}}, context=Context(**context)
    )


def deep_document(doc_id: int, breadth: int = 4) -> Document:
    """A root, ``breadth`` chapters, each with ``breadth`` sections of ``breadth`` items."""
    sections = [Section(0, f"Report {doc_id}", 0, None, [], 1, 10)]

    def add(title: str, level: int, parent: int) -> int:
        sec = Section(len(sections), title, level, parent, [], 3, 120)
        sections.append(sec)
        sections[parent].children.append(sec.sec_id)
        return sec.sec_id

    for c in range(breadth):
        chapter = add(f"Chapter {c + 1}", 1, 0)
        for s in range(breadth):
            part = add(f"Section {c + 1}.{s + 1}", 2, chapter)
            for i in range(breadth):
                add(f"Item {c + 1}.{s + 1}.{i + 1}", 3, part)
    return Document(doc_id, f"Report {doc_id}", f"/docs/report{doc_id}.pdf", sections)
