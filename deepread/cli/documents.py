"""The documents of a collection and which a question is about: ``deepread docs [QUESTION]``.

Each document is listed under the title that tells it apart from the others and with its
card — file name, kind, period, pages, top-level sections — as ``Index.documents()``
gives them (:mod:`deepread.corpus.library`). With a QUESTION (or a name, a year), only
the documents it names, best first: the document search the agent's ``find_documents``
tool runs (``Index.find_documents``), for a person to check what a question would find.
"""

from __future__ import annotations

import argparse

from deepread.cli.common import EXIT_OK, emit, reading_index
from deepread.records.summary import document_summary
from deepread.terminal import say


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "docs", parents=[common], help="list the documents with their titles and cards"
    )
    p.add_argument(
        "query", nargs="?", default=None, help="only the documents this question or name is about"
    )
    p.set_defaults(func=cmd_docs)


def cmd_docs(args: argparse.Namespace) -> int:
    """The documents of the collection, each with its identifying title and card; with a
    QUERY, those it names (the document search agents use to find them)."""
    with reading_index(args) as idx:
        docs = idx.documents()
        if args.query:
            by_id = {d.doc_id: d for d in docs}
            docs = [by_id[m.doc_id] for m in idx.find_documents(args.query)]
    if args.json:
        emit(
            {
                "documents": [
                    document_summary(d) | {"card": d.card.to_dict() if d.card else None}
                    for d in docs
                ]
            }
        )
        return EXIT_OK
    if not docs:
        say(
            "no document matches" if args.query else f"collection {args.collection!r} is empty",
            err=True,
        )
        return EXIT_OK
    for d in docs:
        card = f"{d.card.describe()} | " if d.card else ""
        say(
            f"({d.doc_id}) {' '.join(d.title.split())}\n    {card}paragraphs={d.n_para} | "
            f"tokens={d.n_tok}"
        )
    return EXIT_OK
