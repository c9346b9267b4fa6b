"""``deepread mcp``: the DeepRead tools as a Model Context Protocol server over stdio.

So that MCP clients — desktop assistants, IDE agents, any agent framework with an MCP
adapter — can locate and read a deepread collection: ``retrieve``, ``read_section``,
``toc`` and ``find_documents``, exactly the LangChain tools of
:mod:`deepread.langchain_tools` (same arguments, descriptions, ``[doc:sec:para]``
output), each call's error returned as an MCP tool error (``isError``) whose text says
what to do. Needs the ``mcp`` extra.

    deepread mcp --store ./store --collection manuals [--k 5] [--window 1 1]

The server holds the collection's embedded engine only while it answers calls: it lets
go of it a second after the last one (:meth:`deepread.Index.release`), so a host's burst
of calls opens it once, and an MCP server left idle — or stopped — never keeps another
process waiting; while it holds it, the others' calls go through it (docs/deployment.md,
"One machine, several processes"). Its tools keep
no read-region memory: a host may run many conversations through one server process,
which cannot tell them apart, and a pointer to a paragraph "shown above" in another
conversation would point at nothing. Nothing heavy is imported until the server starts
(``deepread --help`` registers its options).
"""

# No ``from __future__ import annotations``: the tools' argument types are read by the MCP
# server (``inspect.signature(eval_str=True)``, in the module's globals), and theirs are
# imported inside :func:`build_server`, where only evaluated annotations reach them.
import argparse
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepread.corpus.index import Index

DESCRIPTION = (
    "Serve a collection's retrieve, read_section, toc and find_documents tools over MCP (stdio)."
)


def build_server(
    index: "Index",
    *,
    k: int = 5,
    window: tuple[int, int] = (0, 0),
    documents: Sequence[int] | None = None,
) -> Any:
    """An ``MCPServer`` offering the four tools over ``index``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from deepread.langchain_tools import tools
    from deepread.nodes.tools.specs import Documents, MaybeWhole, Whole

    made = {t.name: t for t in tools(index, k=k, window=window, documents=documents, memory=False)}
    idle = _Idle(index)
    server = MCPServer(
        "deepread",
        instructions=(
            "Answer questions from the documents of this collection: look at toc, locate "
            "with retrieve, then read whole sections with read_section; cite paragraphs as "
            "[doc_id:sec_id:para_idx]. When the collection holds several documents and a "
            "question does not say which it is about, find them first with find_documents."
        ),
    )
    calls = iter(range(1, 1 << 62))

    def run(name: str, args: dict[str, Any]) -> str:
        with idle.call():
            message = made[name].invoke(
                {"name": name, "args": args, "type": "tool_call", "id": f"mcp-{next(calls)}"}
            )
        if message.status == "error":
            raise ToolError(str(message.content))
        return str(message.content)

    @server.tool(name="retrieve", description=made["retrieve"].description)
    def retrieve(query: str | list[str], doc_id: Documents = None) -> str:
        return run("retrieve", {"query": query, "doc_id": doc_id})

    @server.tool(name="read_section", description=made["read_section"].description)
    def read_section(doc_id: Whole, sec_id: Whole, start: Whole, end: Whole) -> str:
        return run("read_section", {"doc_id": doc_id, "sec_id": sec_id, "start": start, "end": end})

    @server.tool(name="toc", description=made["toc"].description)
    def toc(doc_id: MaybeWhole = None) -> str:
        return run("toc", {"doc_id": doc_id})

    @server.tool(name="find_documents", description=made["find_documents"].description)
    def find_documents(query: str) -> str:
        return run("find_documents", {"query": query})

    return server


class _Idle:
    """Lets go of the index's store once no call has run for :data:`IDLE_S` seconds (a
    burst of calls from a host opens the engine once; calls may overlap: the timer
    counts from the last one to end)."""

    def __init__(self, index: "Index") -> None:
        self._index = index
        self._running = 0
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    @contextmanager
    def call(self) -> Iterator[None]:
        with self._lock:
            self._running += 1
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if not self._running:
                    self._timer = threading.Timer(IDLE_S, self._release)
                    self._timer.daemon = True
                    self._timer.start()

    def _release(self) -> None:
        with self._lock:  # (a call that starts meanwhile waits for the release to end)
            if not self._running:
                self._index.release()


#: Seconds without a call after which the server lets go of the store.
IDLE_S = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The server's own options (``--store`` and ``--embeddings`` come from the caller's
    parent parser, or :func:`main`'s)."""
    parser.add_argument("--collection", default="default", help="collection name")
    parser.add_argument("--k", type=int, default=5, help="hits per retrieve (default 5)")
    parser.add_argument(
        "--window",
        type=int,
        nargs=2,
        default=(0, 0),
        metavar=("UP", "DOWN"),
        help="paragraphs added above/below each hit, inside its section",
    )
    parser.add_argument("--doc", type=int, nargs="+", help="only these doc_ids")


def serve(args: argparse.Namespace) -> int:
    """Runs the server until the client closes stdin; errors on stderr (stdout is the
    protocol's): 2 bad usage (the extra missing, a bad name), 3 the store cannot be used."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        print(
            "deepread mcp: the MCP server needs the mcp extra: pip install 'deepread[mcp]'",
            file=sys.stderr,
        )
        return 2
    from deepread.corpus.index import Index
    from deepread.records.errors import StoreError

    try:
        index = Index.open(
            store=args.store,
            collection=args.collection,
            embeddings=getattr(args, "embeddings", None),
        )
    except (StoreError, ValueError) as exc:
        print(f"deepread mcp: {exc}", file=sys.stderr)
        return 3 if isinstance(exc, StoreError) else 2
    import logging

    import anyio

    from deepread.mcp_wire import serve_stdio

    # Plain lines on stderr (the mcp package's own default is a rich console, boxes and
    # colours in a host's log); a failed call is the client's to see, not a log line.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("deepread mcp: %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])

    with index:
        index.release()  # held only while a call is answered
        server = build_server(index, k=args.k, window=tuple(args.window), documents=args.doc)
        # Not server.run("stdio"): every line must get an answer (deepread/mcp_wire.py).
        anyio.run(serve_stdio, server)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deepread mcp", description=DESCRIPTION)
    parser.add_argument(
        "--store", default=None, help="store directory or Qdrant URL (default $DEEPREAD_STORE, …)"
    )
    parser.add_argument("--embeddings", default=None, help="'local' (default) or 'openai:<model>'")
    add_arguments(parser)
    return serve(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
