"""The paper's reading primitives on the command line: ``toc``, ``search``, ``read``.

``toc`` is the Directory Structure (paper Fig. 5), ``search`` the Retrieve tool
(Algorithm 1, lines 7–22) with its ranked hits, ``read`` the ReadSection tool (lines
23–27): what the agent sees, for a person to look at or a script to read as JSON.

``search`` reads a query the way ``ask`` does: when it names documents — a company, a
year, a form matched with the documents' cards (``Index.find_documents``, ``ask``'s
first step) — it searches those (said on stderr; ``--all`` searches every document),
so "Boeing effective tax rate 2022" is not answered first by another company's filing.
Each hit is named with its page(s) and its document's and section's titles.
"""

from __future__ import annotations

import argparse
from typing import Any

from deepread.cli.arguments import add_doc_option
from deepread.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    emit,
    fail,
    paragraph_json,
    print_paragraphs,
    reading_index,
)
from deepread.terminal import say


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("toc", parents=[common], help="show the table of contents")
    add_doc_option(p)
    p.add_argument(
        "--budget",
        type=int,
        default=None,
        help="token budget for the text TOC (collapses deepest levels first)",
    )
    p.set_defaults(func=cmd_toc)

    p = sub.add_parser("search", parents=[common], help="Retrieve: ranked paragraphs")
    p.add_argument("query")
    p.add_argument("--k", type=int, default=5, help="number of hits (default 5)")
    p.add_argument(
        "--window",
        type=int,
        nargs=2,
        default=(0, 0),
        metavar=("UP", "DOWN"),
        help="paragraphs to add above/below each hit, inside its section",
    )
    add_doc_option(p)
    p.add_argument(
        "--all",
        action="store_true",
        help="search every document, even those the query does not name (by default a "
        "query naming a company, year or form searches the documents it names)",
    )
    p.add_argument(
        "--mode", choices=("dense", "bm25", "hybrid"), default=None, help="ranking (default hybrid)"
    )
    p.add_argument(
        "--rerank",
        choices=("coverage", "none"),
        default=None,
        help="second stage over 30 candidates (default coverage, $DEEPREAD_RERANK)",
    )
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("read", parents=[common], help="ReadSection: a paragraph range")
    p.add_argument("doc_id", type=int)
    p.add_argument("sec_id", type=int)
    p.add_argument("start", type=int, nargs="?", default=0)
    p.add_argument(
        "end",
        type=int,
        nargs="?",
        default=10**9,
        help="inclusive; clipped to the section (default: to its end)",
    )
    p.set_defaults(func=cmd_read)


def cmd_toc(args: argparse.Namespace) -> int:
    from deepread.corpus.toc_text import full_toc, render_toc

    with reading_index(args) as idx:
        docs = idx.toc(args.doc) if args.doc else idx.toc()
    if args.json:
        emit({"documents": [d.to_dict() for d in docs]})
        return EXIT_OK
    if not docs:
        say(f"collection {args.collection!r} is empty", err=True)
        return EXIT_OK
    say(full_toc(docs) if args.budget is None else render_toc(docs, args.budget).text)
    return EXIT_OK


def named_documents(idx: Any, args: argparse.Namespace) -> list[int] | None:
    """The documents ``search`` limits itself to: those the query names — its companies,
    years, forms matched with the documents' cards, as ``ask``'s first step finds them
    (``Index.find_documents``) — when they are not all of them; None: every document
    (``--doc`` or ``--all`` given, or the query names none)."""
    if args.doc or args.all:
        return None
    named = [m.doc_id for m in idx.find_documents(args.query)]
    if not named or len(named) >= len(idx.documents()):
        return None
    return named


def cmd_search(args: argparse.Namespace) -> int:
    from deepread.cli.cited import cited_line, document_label
    from deepread.corpus.query_model import query_model_loading

    with (
        query_model_loading(args.embeddings, args.mode),
        reading_index(args, searching="once" if args.mode != "bm25" else False) as idx,
    ):
        named = named_documents(idx, args)
        documents = {d.doc_id: d for d in idx.documents()}

        def search(scope: list[int] | None) -> Any:
            return idx.search(
                args.query, k=args.k, window=tuple(args.window), doc_id=scope, mode=args.mode
            )

        result = search(named or args.doc)
        if named and not result.hits:  # nothing there: the whole collection, as if unnamed
            named, result = None, search(None)
    if args.json:
        emit(
            {
                "query": result.query,
                "named_documents": named,
                "hits": [h.to_dict() for h in result.hits],
                "paragraphs": [paragraph_json(p) for p in result.paragraphs],
            }
        )
        return EXIT_OK
    if named:
        which = "; ".join(f"({i}) {document_label(documents.get(i))}" for i in named)
        say(
            f"searching {len(named)} of {len(documents)} documents, those the query "
            f"names: {which} (--all searches every document)",
            err=True,
        )
    shown = {p.coord: p for p in result.paragraphs}
    for rank, h in enumerate(result.hits, 1):
        p = shown.get(h.coord)
        line = cited_line(h.coord, p.pages if p else [], documents.get(h.doc_id))
        say(f"#{rank} {line}  score={h.score:.4f}")
    say("")
    print_paragraphs(result.paragraphs)
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    with reading_index(args) as idx:
        got = idx.read(args.doc_id, args.sec_id, args.start, args.end)
        n_para = idx.document(args.doc_id).sections[args.sec_id].n_para
        if n_para and args.start > n_para - 1:
            # past the section's end: an empty "range 50..0" read as success hid the
            # mistake (a section without paragraphs of its own is read as empty)
            fail(
                f"section [{args.sec_id}] of document {args.doc_id} has paragraphs "
                f"0-{n_para - 1}: {args.start}..{args.end} is past its end"
            )
            return EXIT_USAGE
    if args.json:
        emit(
            {
                "doc_id": got.doc_id,
                "sec_id": got.sec_id,
                "start": got.start,
                "end": got.end,
                "paragraphs": [paragraph_json(p) for p in got.paragraphs],
            }
        )
        return EXIT_OK
    if not got.paragraphs:
        say(
            f"no paragraphs in ({got.doc_id}) [{got.sec_id}] range {got.start}..{got.end}", err=True
        )
    print_paragraphs(got.paragraphs)
    return EXIT_OK
