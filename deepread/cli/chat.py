"""``deepread chat``: a conversation with the DeepRead agent on one thread.

Each line read is a question on the same thread (what was already read is remembered,
so a follow-up is answered with pointers instead of the same paragraphs again); the
answer is streamed token by token when a model is set, and each tool call is shown as
it happens (:mod:`deepread.cli.turn`). Lines starting with ``/`` are commands:

* ``/new`` starts a new conversation (a new thread);
* ``/docs`` lists the collection's documents, ``/docs 1 3`` limits the conversation to
  those doc_ids, ``/docs all`` lifts the limit;
* ``/help`` lists the commands; ``/quit``, ``/exit`` or Ctrl-D (end of input) leaves.

Ctrl-C during an answer stops that answer and keeps the conversation as it was before
the question (one checkpoint per question); at the prompt it drops the line being typed.
SIGTERM ends the command (exit 143). On a
terminal the line is edited with readline; from a pipe, lines are read as they come, so
a script can drive a conversation; with ``--json`` each answer is one JSON document on
its own line (JSON lines: the outputs of ``ask --json``), and so are ``/new`` and ``/docs``.

The chat holds the store only while it works: before each prompt it lets go of the
embedded engine (``Index.release``), and the next question or ``/docs`` takes it again,
or reaches the process that holds it (an ingest, say: stores/edge.py), so ``deepread
ask``, ``docs`` or ``ingest`` run beside a chat waiting for its next line and the chat
answers beside them. A chat never quits over a busy store: where the holder does not
answer (stopped with Ctrl-Z, say), the question waits — said once, naming the holder —
and is answered when the store can be read; Ctrl-C gives the prompt back. Any other
store failure is said and the chat goes on. Its thread id is printed on every exit.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
import uuid
from typing import Any

from deepread.cli.ask import add_model_options, make_context, print_citations
from deepread.cli.common import (
    EXIT_MODEL,
    EXIT_OK,
    EXIT_USAGE,
    emit,
    fail,
    open_index,
    store_of,
)
from deepread.cli.turn import TurnPrinter, run_turn
from deepread.records.summary import document_summary
from deepread.terminal import say

COMMANDS = {
    "/new": "start a new conversation (a new thread)",
    "/docs": "list the documents; '/docs 1 3' limits the conversation to those doc_ids, "
    "'/docs all' lifts the limit",
    "/help": "this list",
    "/quit": "leave (also /exit, or Ctrl-D)",
}


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "chat",
        parents=[common],
        help="a conversation with the DeepRead agent on one thread (streamed answers)",
        description="Ask questions one after another on one thread; answers are streamed "
        "and tool calls shown as they happen. Commands: "
        + "; ".join(f"{k} {v}" for k, v in COMMANDS.items())
        + ".",
    )
    add_model_options(p)
    p.add_argument("--thread", default=None, help="continue this conversation (default: a new one)")
    p.set_defaults(func=cmd_chat)


def read_line(prompt: str) -> str | None:
    """The next line (without its newline), or None at the end of input (Ctrl-D)."""
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):  # not on every platform
            import readline  # noqa: F401  (line editing and history for input())
        try:
            return input(prompt)
        except EOFError:
            sys.stdout.write("\n")
            return None
    line = sys.stdin.readline()
    return None if line == "" else line.rstrip("\n")


def prompt_line(greeting: str = "") -> str | None:
    """:func:`read_line`; Ctrl-C at the prompt drops the line being typed and asks again,
    as a shell does (Ctrl-D leaves). ``greeting`` is said first, once the prompt's Ctrl-C
    is in place: a Ctrl-C right after it is the prompt's, never the command's end."""
    from deepread.interrupts import Interrupted, interruptible

    try:
        with interruptible():  # armed again for each line: the first signal disarms it
            if greeting:
                say(greeting, err=True)
            return read_line("› ")
    except Interrupted as exc:
        if exc.signum != signal.SIGINT:
            raise
        sys.stdout.write("\n")
        sys.stdout.flush()
        return ""


class Chat:
    """The conversation's state: its thread, its scope, the graph and the index."""

    def __init__(self, args: argparse.Namespace, graph: Any, index: Any) -> None:
        self.args = args
        self.graph = graph
        self.index = index
        self.thread = args.thread or uuid.uuid4().hex[:12]
        self.documents: list[int] | None = args.doc

    def command(self, line: str) -> bool:
        """Runs a ``/`` command; False when it asks to leave."""
        name, *rest = line.split()
        if name in ("/quit", "/exit"):
            return False
        if name == "/new":
            self.thread = uuid.uuid4().hex[:12]
            if self.args.json:
                emit({"thread_id": self.thread}, line=True)
            else:
                say(f"new conversation (thread {self.thread})", err=True)
        elif name == "/docs":
            if self.reach_store():
                self.docs(rest)
        elif name == "/help":
            for key, text in COMMANDS.items():
                say(f"  {key:<6} {text}", err=True)
        else:
            say(f"unknown command {name}; the commands are: {', '.join(COMMANDS)}", err=True)
        return True

    def docs(self, rest: list[str]) -> None:
        docs = self.index.documents()
        if rest == ["all"]:
            self.documents = None
            say(f"all {len(docs)} documents in scope", err=True)
            return
        if rest:
            if not all(r.isascii() and r.isdigit() for r in rest):
                say("usage: /docs [DOC_ID…|all]", err=True)
                return
            known = {d.doc_id for d in docs}
            wanted = list(dict.fromkeys(int(r) for r in rest))
            unknown = [i for i in wanted if i not in known]
            if unknown:
                say(
                    f"no document {', '.join(map(str, unknown))} in collection "
                    f"{self.args.collection!r}; /docs lists them",
                    err=True,
                )
                return
            self.documents = wanted
        scope = self.documents
        if self.args.json:
            emit(
                {
                    "documents": [
                        document_summary(d) | {"in_scope": scope is None or d.doc_id in scope}
                        for d in docs
                    ]
                },
                line=True,
            )
            return
        for d in docs:
            mark = "*" if scope is None or d.doc_id in scope else " "
            say(f"{mark} ({d.doc_id}) {d.title} — {d.n_para} paragraphs, {d.source}")
        if scope is not None:
            say(
                f"the conversation reads documents {', '.join(map(str, scope))} (* above); "
                "/docs all lifts the limit",
                err=True,
            )

    def reach_store(self) -> bool:
        """Wait until the store can be read (a holder that does not answer may resume or
        end): said once, naming it; False when Ctrl-C gave the prompt back, or the store
        failed otherwise (said)."""
        from deepread.interrupts import Interrupted, interruptible
        from deepread.records.errors import StoreBusy, StoreError

        said = False
        try:
            with interruptible():
                while True:
                    try:
                        self.index.documents()
                        return True
                    except StoreBusy as exc:
                        if not said:
                            say(
                                f"waiting for the store: {exc}. Your question is kept and "
                                "answered when the store can be read; Ctrl-C gives the "
                                "prompt back",
                                err=True,
                            )
                            said = True
                        time.sleep(1.0)
        except Interrupted as exc:
            if exc.signum != signal.SIGINT:
                raise
            say("(interrupted: the question was not asked)", err=True)
        except StoreError as exc:
            fail(exc)
        return False

    def ask(self, question: str) -> bool:
        """One question on the thread, False when the model failed; Ctrl-C stops it and
        the thread stays as it was."""
        from deepread.interrupts import Interrupted, interruptible
        from deepread.records.errors import StoreError

        if not self.reach_store():
            return True
        self.args.doc = self.documents
        context = make_context(self.args)
        printer = TurnPrinter(show=not self.args.json)
        config = {"configurable": {"thread_id": self.thread}}
        try:
            with interruptible():
                output = run_turn(self.graph, question, config, context, printer)
        except Interrupted as exc:
            if exc.signum != signal.SIGINT:
                raise
            printer.end_line()
            say("(interrupted: the question is not kept in the conversation)", err=True)
            return True
        if self.args.json:  # one JSON document per answer: JSON lines
            emit(output | {"thread_id": self.thread}, line=True)
            return output.get("stop_reason") != "error"
        try:
            titles = {d.doc_id: d for d in self.index.documents()}
        except StoreError:
            titles = {}  # the citations are printed without their titles
        print_citations(output, titles)
        if output.get("stop_reason") == "error":
            fail(output.get("error"))
            return False
        say("", err=True)
        return True


def open_waiting(args: argparse.Namespace) -> Any:
    """:func:`open_index`, waiting while the store's holder does not answer (said once;
    Ctrl-C ends the command as usual)."""
    from deepread.records.errors import StoreBusy

    said = False
    while True:
        try:
            return open_index(args)
        except StoreBusy as exc:
            if not said:
                say(f"waiting for the store: {exc}", err=True)
                said = True
            time.sleep(1.0)


def cmd_chat(args: argparse.Namespace) -> int:
    from deepread.checkpointers import CheckpointerError, open_checkpointer
    from deepread.cli.collections import require_collection
    from deepread.graphs.agent import build_graph
    from deepread.records.locations import sidecar_dir
    from deepread.text.hygiene import clean_query

    make_context(args)  # a bad --model or --doc is exit 2 before anything is opened
    failed = False
    require_collection(store_of(args), args.collection)  # never created by a chat
    checkpoints = sidecar_dir(store_of(args)) / "checkpoints.sqlite"
    idx = open_waiting(args)
    chat: Chat | None = None
    try:
        if not idx.documents():
            fail(f"collection {args.collection!r} is empty; run deepread ingest first")
            return EXIT_USAGE
        if args.doc:
            idx.toc(args.doc)  # unknown doc_ids: exit 2 naming those that exist
        with open_checkpointer(args.checkpointer, checkpoints) as saver:
            chat = Chat(args, build_graph(index=idx, checkpointer=saver), idx)
            greeting = (
                f"deepread chat — collection {args.collection!r}, thread "
                f"{chat.thread}; /help for commands, Ctrl-D to leave"
            )
            while True:
                idx.release()  # idle at the prompt: other processes may use the store
                if (line := prompt_line(greeting)) is None:
                    break
                greeting = ""
                text = line.strip()
                if not text:
                    continue
                if text.startswith("/"):
                    if not chat.command(text):
                        break
                    continue
                if not clean_query(text).strip():
                    continue
                failed = not chat.ask(text) or failed
    except CheckpointerError as exc:
        fail(exc)
        return EXIT_USAGE
    finally:
        if chat is not None:  # however the chat ends: the way back to its conversation
            say(
                f"[thread {chat.thread} — continue with deepread chat --thread {chat.thread}]",
                err=True,
            )
        idx.close()
    # A script driving the chat learns that some answer failed (each said why).
    return EXIT_MODEL if failed else EXIT_OK
