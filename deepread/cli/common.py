"""What every ``deepread`` command shares: exit codes, output, the store and the index.

Output hygiene: every line meant for people goes through :func:`deepread.terminal.say`
(controls and bidi overrides in document text, file names and answers shown as
escapes), every ``--json`` document through :func:`deepread.json_output.to_json`
(:func:`emit`). Nothing heavy is imported at module level: ``deepread --help`` stays
fast (tests/cli/test_lazy_face.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from deepread.terminal import say

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_STORE, EXIT_MODEL = 0, 1, 2, 3, 4


def emit(data: Any, *, line: bool = False) -> None:
    """One ``--json`` document on stdout (:mod:`deepread.json_output`); ``line``: on one
    line, for a stream of documents (JSON lines)."""
    from deepread.json_output import to_json

    sys.stdout.write(to_json(data, indent=None if line else 2) + "\n")
    sys.stdout.flush()


def fail(message: object) -> None:
    """One ``deepread: …`` line on stderr."""
    say(f"deepread: {message}", err=True)


def store_of(args: argparse.Namespace) -> str:
    """``--store``, else what the environment names (:mod:`deepread.environment.settings`)."""
    from deepread.environment.settings import current

    return args.store if args.store is not None else current().store


def default_model(name: str) -> str | None:
    """``DEEPREAD_<NAME>`` as a flag's default (None when unset)."""
    from deepread.environment.settings import current

    return current().context_defaults.get(name) or None


def open_index(args: argparse.Namespace, collection: str | None = None, **options: Any):
    """The ``deepread.Index`` the command's options name (imported lazily: fast --help).

    None for ``--embeddings`` / ``--rerank`` lets ``Index.open`` take
    ``DEEPREAD_EMBEDDINGS`` / ``DEEPREAD_RERANK`` from the settings: one resolver for the
    CLI and Python.
    """
    from deepread.corpus.index import Index

    return Index.open(
        store=store_of(args),
        collection=collection or args.collection,
        embeddings=getattr(args, "embeddings", None),
        reranker=getattr(args, "rerank", None),
        **options,
    )


@contextmanager
def reading_index(
    args: argparse.Namespace, collection: str | None = None, **options: Any
) -> Iterator[Any]:
    """:func:`open_index` for a command that only reads (``docs``, ``toc``, ``search``,
    ``read``, ``collections``), closed after the block — except in the ``deepread``
    process itself, which ends right after the command (:func:`deepread.cli.main.main`
    leaves with ``os._exit``): closing the embedded engine syncs each of its memory maps
    and joins its threads, ~0.25 s of a 0.5 s command, while the end of the
    process releases its lock as surely, and a killed process loses no acknowledged
    write (the engine's write-ahead log) — so nothing is lost by not closing. (An index
    that answers other processes' calls hands them over first: ``Index.leave``.)"""
    idx = open_index(args, collection, **options)
    if getattr(args, "ends_process", False):
        args.left_open = idx
        yield idx
        return
    with idx:
        yield idx


def paragraph_json(p) -> dict[str, Any]:
    place = p.to_dict()
    return {
        "doc_id": p.doc_id,
        "sec_id": p.sec_id,
        "para_idx": p.para_idx,
        "text": p.text,
        "kind": p.kind,
        "page": p.page,
        # where it is in its source: rectangles [page, x0, top, x1, bottom] on its
        # pages, or its character range in the source's text (None: stored before
        # places were kept)
        "boxes": place["boxes"],
        "span": place["span"],
    }


def print_paragraphs(paragraphs) -> None:
    """Paragraphs as a person reads them: a table as its rows, as the model is shown it
    (``--json`` keeps the stored HTML), each after its page(s)."""
    from deepread.cli.cited import page_label
    from deepread.text.markup import shown_text

    for p in paragraphs:
        page = f" {page_label(p.pages)}" if p.pages else ""
        say(f"[{p.doc_id}:{p.sec_id}:{p.para_idx}]{page} ({p.kind}) {shown_text(p.text, p.kind)}")


def clip(text: str, limit: int = 160) -> str:
    """``text`` cut to ``limit`` characters for a progress line (a model may pass, or a
    user ask, a question of pages; the line is a step, not a transcript)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
