"""Benchmark questions are each about one document: find it, or ingest it first.

A question's document is found in the collection by its file name (``ADOBE_2015_10K.pdf``;
the same stem with another suffix as fallback, as evidence is matched). What a user of
``deepread eval financebench-dev/questions.jsonl`` expects is one command: documents the
collection lacks are ingested from the dataset's own folder (where both benchmarks keep
their PDFs, beside the questions file) before the run. With ``ingest=False`` the run
stops instead and says exactly what to ingest.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

from deepread.corpus.index import Index
from deepread.evaluation.dataset import Question
from deepread.evaluation.evidence import DocResolver


class ScopeError(ValueError):
    """A question's document is not in the collection and cannot be ingested."""


def missing_documents(resolver: DocResolver, questions: Sequence[Question]) -> list[str]:
    """File names of the questions' documents the collection does not hold (each once)."""
    return sorted({q.doc for q in questions if q.doc and resolver.resolve(q.doc) is None})


def ingest_command(index: Index, paths: Sequence[Path]) -> str:
    return (
        f"deepread ingest --store {shlex.quote(str(index.store))} --collection "
        f"{shlex.quote(index.name)} " + " ".join(shlex.quote(str(p)) for p in paths)
    )


def ensure_documents(
    index: Index,
    questions: Sequence[Question],
    folder: Path,
    *,
    ingest: bool = True,
    say: Callable[[str], None] = lambda _: None,
) -> None:
    """Make every question's document part of ``index``, ingesting from ``folder``."""
    names = missing_documents(DocResolver(index.documents()), questions)
    if not names:
        return
    paths = [folder / name for name in names]
    absent = [p for p in paths if not p.is_file()]
    if absent:
        raise ScopeError(
            f"{len(absent)} question document(s) are neither in collection "
            f"{index.name!r} nor in {folder}: "
            f"{', '.join(p.name for p in absent[:5])}"
            f"{' …' if len(absent) > 5 else ''}"
        )
    if not ingest:
        raise ScopeError(
            f"{len(paths)} question document(s) are not in collection "
            f"{index.name!r}; ingest them first:\n  {ingest_command(index, paths)}"
        )
    say(
        f"ingesting {len(paths)} document(s) of {folder} into collection {index.name!r} "
        "(once; later runs reuse them)…"
    )
    index.ingest(paths)  # an unparseable file raises IngestError naming it


def scope_of(resolver: DocResolver, question: Question) -> list[int]:
    """The doc_ids of ``question``'s document (several when copies were ingested)."""
    sources = resolver.resolve(question.doc) or set()
    return sorted(i for i, s in resolver.by_id.items() if s in sources)
