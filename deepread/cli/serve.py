"""``deepread serve``: a page in the browser to ask the library and see what was cited.

One process holds the embedded store and serves, on localhost by default:

* ``GET /`` — the page (:mod:`deepread.cli.web_page`: HTML, CSS and a script of its own,
  no build step, nothing fetched from elsewhere): the library's documents with their
  identifying titles and cards, an ask box, the answers of the thread so far;
* ``GET /api/library`` — the documents (title, card, pages) as JSON;
* ``POST /api/ask`` ``{"question", "thread"}`` — the turn streamed as JSON lines while it
  runs: each tool call and result (``step``), the reply's text as it is written
  (``token``), then the answer with its citations — each with its place — and the
  thread (``answer``); the thread is kept in SQLite beside the store, as ``ask`` keeps it,
  so the next question continues it;
* ``GET /api/cited/{doc}/{sec}/{para}`` — what a citation opens: its document's and
  section's titles, its text as shown, and the URLs of its page images (or of its text
  with the passage marked, for a source without pages);
* ``GET /api/page/{doc}/{sec}/{para}/{page}.png`` — a page of the passage, the passage
  highlighted (:mod:`deepread.corpus.highlight`); ``GET /api/passage/{doc}/{sec}/{para}.html``
  — a source without pages.

Built on Starlette and uvicorn, the ASGI stack the LangGraph server runs on (installed with
``deepread[server]``). The turns run one at a time (one embedded store, one model), each in
a worker thread so the page keeps loading images meanwhile; the store is let go of after
each turn, as ``chat`` lets go between prompts, so ``deepread ask`` can share it.
"""

from __future__ import annotations

import argparse
import json
import threading
import uuid
from collections.abc import Iterator
from typing import Any

from deepread.cli.common import EXIT_OK, EXIT_USAGE, fail, open_index, store_of
from deepread.terminal import say

#: Bytes of a question request read at most (a question is bounded far below it).
MAX_REQUEST_BYTES = 64_000


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common],
        help="a page in the browser: the library, an ask box, citations opened as their pages",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--model", default=None, help="chat model, as ask's --model")
    p.add_argument("--checkpointer", default=None, help="where threads are kept, as ask's")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:
        fail("deepread serve needs Starlette and uvicorn: pip install 'deepread[server]'")
        return EXIT_USAGE
    from deepread.checkpointers import open_checkpointer
    from deepread.records.locations import sidecar_dir

    idx = open_index(args)
    try:
        with open_checkpointer(
            args.checkpointer, sidecar_dir(store_of(args)) / "checkpoints.sqlite"
        ) as saver:
            app = make_app(idx, saver, model=args.model)
            say(
                f"deepread serve — collection {args.collection!r} on http://{args.host}:{args.port}/"
            )
            uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    finally:
        idx.close()
    return EXIT_OK


def _place_json(paragraph: Any) -> dict[str, Any]:
    place = paragraph.to_dict()
    return {"boxes": place["boxes"], "span": place["span"]}


class Server:
    """What the routes share: the index, the agent graph, one turn at a time."""

    def __init__(self, idx: Any, saver: Any, model: str | None) -> None:
        self.idx = idx
        self.saver = saver
        self.model = model
        self.turns = threading.Lock()
        self._graph: Any = None

    def graph(self) -> Any:
        if self._graph is None:
            from deepread.graphs.agent import build_graph

            self._graph = build_graph(index=self.idx, checkpointer=self.saver)
        return self._graph

    def library(self) -> dict[str, Any]:
        docs = self.idx.documents()
        return {
            "collection": self.idx.name,
            "documents": [
                {
                    "doc_id": d.doc_id,
                    "title": d.title,
                    "card": d.card.describe() if d.card else "",
                    "pages": d.card.pages if d.card else None,
                }
                for d in docs
            ],
        }

    def turn(self, question: str, thread: str) -> Iterator[dict[str, Any]]:
        """One question on ``thread``, as events (see the module docstring)."""
        from deepread.cli.steps import step_lines
        from deepread.cli.turn import stream_turn
        from deepread.nodes.context import Context
        from deepread.nodes.names import ANSWERING_NODE, FINALIZE

        context = Context(**({"model": self.model} if self.model else {}))
        config = {"configurable": {"thread_id": thread}}
        output: dict[str, Any] = {}
        with self.turns:
            try:
                for mode, chunk in stream_turn(self.graph(), question, config, context):
                    if mode == "messages":
                        message, meta = chunk
                        if meta.get("langgraph_node") == ANSWERING_NODE and message.text:
                            yield {"type": "token", "id": message.id, "text": str(message.text)}
                        continue
                    for node, update in chunk.items():
                        for line in step_lines(update or {}):
                            yield {"type": "step", "text": line}
                        if node == FINALIZE:
                            output = {k: v for k, v in (update or {}).items() if k != "messages"}
            finally:
                self.idx.release()
        titles = {d.doc_id: d for d in self.idx.documents()}
        citations = []
        for c in output.get("citations") or []:
            doc = titles.get(c["doc_id"])
            section = doc.sections[c["sec_id"]].title if doc else ""
            citations.append({**c, "title": doc.title if doc else "", "section": section})
        yield {
            "type": "answer",
            "answer": output.get("answer") or "",
            "citations": citations,
            "stop_reason": output.get("stop_reason"),
            "error": output.get("error"),
            "thread": thread,
        }

    def cited(self, doc_id: int, sec_id: int, para: int) -> dict[str, Any]:
        from deepread.corpus.highlight import pages_of
        from deepread.records.errors import CoordinateError
        from deepread.text.markup import shown_text

        doc = self.idx.document(doc_id)
        section = doc.section(sec_id)
        found = self.idx.read_section(doc_id, sec_id, para, para)
        if not found:
            raise CoordinateError(f"document {doc_id} section {sec_id} has no paragraph {para}")
        p = found[0]
        base = f"/api/page/{doc_id}/{sec_id}/{para}"
        pages = list(pages_of([p]))
        return {
            "doc_id": doc_id,
            "sec_id": sec_id,
            "para_idx": para,
            "title": doc.title,
            "section": section.title,
            "kind": p.kind,
            "page": p.page,
            "text": shown_text(p.text, p.kind),
            **_place_json(p),
            "pages": pages,
            "images": [f"{base}/{n}.png" for n in pages],
            "html": None if pages else f"/api/passage/{doc_id}/{sec_id}/{para}.html",
        }


def make_app(idx: Any, saver: Any, *, model: str | None = None) -> Any:
    """The Starlette application of ``deepread serve`` on an open index."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    from deepread.cli.web_page import PAGE
    from deepread.corpus.highlight import DEFAULT_DPI, check_dpi, draw_cited
    from deepread.records.errors import CoordinateError, UsageError
    from deepread.text.hygiene import clean_query

    server = Server(idx, saver, model)

    def refused(exc: Exception, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=status)

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def library(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(server.library))

    async def ask(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_REQUEST_BYTES:
            return refused(ValueError("the request is too large"), 413)
        try:
            data = json.loads(body or b"{}")
            question = clean_query(str(data.get("question") or "")).strip()
            thread = str(data.get("thread") or "") or uuid.uuid4().hex[:12]
        except (ValueError, AttributeError):
            return refused(ValueError('send {"question": "…", "thread": "…"} as JSON'))
        if not question:
            return refused(ValueError("the question is empty"))

        def lines() -> Iterator[bytes]:
            try:
                for event in server.turn(question, thread):
                    yield (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
            except Exception as exc:  # the page shows it; the server goes on
                yield (json.dumps({"type": "error", "error": str(exc)}) + "\n").encode("utf-8")

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    def coordinate(request: Request) -> tuple[int, int, int]:
        p = request.path_params
        return int(p["doc"]), int(p["sec"]), int(p["para"])

    async def cited(request: Request) -> JSONResponse:
        try:
            return JSONResponse(await run_in_threadpool(server.cited, *coordinate(request)))
        except (CoordinateError, UsageError) as exc:
            return refused(exc, 404)

    def drawing(request: Request, page: int | None, dpi: int) -> Any:
        doc, sec, para = coordinate(request)
        return draw_cited(idx, doc, sec, para, dpi=dpi, page=page)[0]

    async def drawn(request: Request, page: int | None) -> Any:
        try:
            dpi = check_dpi(int(request.query_params.get("dpi") or DEFAULT_DPI))
        except ValueError as exc:  # not a number, or out of bounds
            return refused(exc, 400)
        try:
            return await run_in_threadpool(drawing, request, page, dpi)
        except (CoordinateError, UsageError) as exc:
            return refused(exc, 404)

    async def page_image(request: Request) -> Response:
        made = await drawn(request, int(request.path_params["page"]))
        if isinstance(made, Response):
            return made
        return Response(made.data, media_type="image/png")

    async def passage(request: Request) -> Response:
        made = await drawn(request, None)
        if isinstance(made, Response):
            return made
        kind = "text/html; charset=utf-8" if made.page is None else "image/png"
        return Response(made.data, media_type=kind)

    coords = "{doc:int}/{sec:int}/{para:int}"
    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/library", library),
            Route("/api/ask", ask, methods=["POST"]),
            Route(f"/api/cited/{coords}", cited),
            Route(f"/api/page/{coords}/{{page:int}}.png", page_image),
            Route(f"/api/passage/{coords}.html", passage),
        ]
    )
