"""``deepread ask QUESTION``: one question to the DeepRead agent, on a thread that persists.

Each tool call and result is shown on stderr as it happens, the answer is streamed to a
terminal as the model writes it and written once, checked, to a pipe
(:mod:`deepread.cli.turn`), then its citations with their pages and the titles of their
documents and sections (:mod:`deepread.cli.cited`). Conversations persist in SQLite
beside the store (or PostgreSQL, ``--checkpointer``): ``--thread ID`` continues one, read
regions included.
"""

from __future__ import annotations

import argparse
import uuid
from typing import Any

from deepread.cli.arguments import add_doc_option
from deepread.cli.common import EXIT_MODEL, EXIT_OK, EXIT_USAGE, emit, fail, open_index, store_of
from deepread.cli.show import add_drawing_options, show_cited
from deepread.cli.turn import EXTRACTIVE, TurnPrinter, run_turn
from deepread.terminal import say


def add_model_options(p: argparse.ArgumentParser) -> None:
    """``--doc``, ``--model``, ``--checkpointer``: what ``ask`` and ``chat`` share."""
    add_doc_option(p)
    p.add_argument(
        "--model",
        default=None,
        help="chat model on an OpenAI-compatible endpoint (OPENAI_API_KEY, "
        "OPENAI_BASE_URL); default $DEEPREAD_MODEL, else the offline "
        "extractive policy",
    )
    p.add_argument(
        "--checkpointer",
        default=None,
        help="where conversations are kept: a postgres:// URL (deepread[postgres];"
        " shared by several processes) or a SQLite file; default "
        "$DEEPREAD_CHECKPOINTER, else checkpoints.sqlite beside the store",
    )


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ask", parents=[common], help="answer a question (the DeepRead agent)")
    p.add_argument("question")
    add_model_options(p)
    p.add_argument(
        "--thread", default=None, help="continue this conversation (its read regions included)"
    )
    p.add_argument(
        "--show",
        default=None,
        metavar="DIR",
        help="write each citation's page image, the passage highlighted, into DIR",
    )
    add_drawing_options(p)
    p.set_defaults(func=cmd_ask)


def make_context(args: argparse.Namespace):
    """The run's context. The index is opened by the command and given to the graph, so
    the context names no store or collection; a flag left out is not passed, so
    ``DEEPREAD_<FIELD>`` applies."""
    from deepread.nodes.context import Context

    given = {"documents": args.doc, "model": args.model}
    return Context(**{k: v for k, v in given.items() if v is not None})


def print_citations(output: dict[str, Any], titles: dict[int, Any]) -> None:
    """The answer's citations, each with its page(s) and its document's and section's
    titles (:mod:`deepread.cli.cited`)."""
    from deepread.cli.cited import citation_pages, cited_line

    if output.get("citations"):
        say("\nCitations:")
        for c in output["citations"]:
            coord = (c["doc_id"], c["sec_id"], c["para_idx"])
            say(f"  {cited_line(coord, citation_pages(c), titles.get(c['doc_id']))}")
    past_cap = output.get("citations_past_cap") or 0
    unread = (output.get("dropped_citations") or 0) - past_cap
    if unread:
        say(f"  ({unread} citation(s) of unread paragraphs dropped)")
    if past_cap:
        from deepread.nodes.citations import MAX_CITATIONS

        say(
            f"  ({past_cap} citation mark(s) past the first {MAX_CITATIONS} cited "
            "paragraphs not checked, and dropped)"
        )


def opening_line(args: argparse.Namespace, context: Any, thread: str, documents: list) -> str:
    """``ask``'s first line: the collection asked (its documents counted, those in scope
    named), the model that answers and the thread — shown once the store is open, before
    the agent graph is imported and built (~1-2 s: LangGraph, LangChain), so the person
    who asked learns within a moment what is being asked of what."""
    count = f"{len(documents)} document{'s' if len(documents) != 1 else ''}"
    ids = ", ".join(map(str, args.doc or []))
    scope = (
        f"document{'s' if len(args.doc) > 1 else ''} {ids} of {len(documents)}" if ids else count
    )
    model = f"model {context.model}" if context.model else EXTRACTIVE
    return f"deepread ask — collection {args.collection!r} ({scope}), {model}, thread {thread}"


def cmd_ask(args: argparse.Namespace) -> int:
    from deepread.records.errors import UsageError
    from deepread.text.hygiene import clean_query

    if not clean_query(args.question).strip():
        raise UsageError("the question is empty")
    context = make_context(args)
    if len(args.question) > context.max_question_chars:
        raise UsageError(
            f"the question is {len(args.question)} characters; at most "
            f"{context.max_question_chars} are accepted "
            "(DEEPREAD_MAX_QUESTION_CHARS)"
        )
    thread = args.thread or uuid.uuid4().hex[:12]
    idx = open_index(args)
    try:
        documents = idx.documents()
        if not documents:
            fail(f"collection {args.collection!r} is empty; run deepread ingest first")
            return EXIT_USAGE
        if args.doc:
            idx.toc(args.doc)  # unknown doc_ids: exit 2 naming those that exist, as chat
        if not args.json:
            say(opening_line(args, context, thread, documents), err=True)
        return answer(args, idx, context, thread)
    finally:
        idx.close()


def answer(args: argparse.Namespace, idx: Any, context: Any, thread: str) -> int:
    """The question through the agent graph, on ``thread``; the command's exit code."""
    from deepread.checkpointers import CheckpointerError, open_checkpointer
    from deepread.graphs.agent import build_graph
    from deepread.records.locations import sidecar_dir

    checkpoints = sidecar_dir(store_of(args)) / "checkpoints.sqlite"
    try:
        with open_checkpointer(args.checkpointer, checkpoints) as saver:
            graph = build_graph(index=idx, checkpointer=saver)
            config = {"configurable": {"thread_id": thread}}
            output = run_turn(
                graph, args.question, config, context, TurnPrinter(show=not args.json)
            )
        titles = {d.doc_id: d for d in idx.documents()}
    except CheckpointerError as exc:
        fail(exc)
        return EXIT_USAGE
    output["thread_id"] = thread
    if args.show is not None:
        output["shown"] = show_cited(args, idx, output.get("citations") or [])
    if args.json:
        emit(output)
    else:
        print_citations(output, titles)
        say(
            f"\n[stop: {output.get('stop_reason')}; thread {thread} — continue with "
            f"--thread {thread}]",
            err=True,
        )
    if output.get("stop_reason") == "error":
        fail(output.get("error"))
        return EXIT_MODEL
    return EXIT_OK
