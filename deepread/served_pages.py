"""A cited passage's page images on a LangGraph server: custom routes of its own HTTP app.

``langgraph.json`` and ``langgraph.auth.json`` name :data:`app` as their ``http.app``, so
``langgraph dev`` / ``langgraph up`` serve, beside the threads and runs:

* ``GET /deepread/pages/{collection}/{doc}/{sec}/{para}/{page}.png[?dpi=N]`` — page
  ``page`` of the paragraph's document, the paragraph highlighted
  (:mod:`deepread.corpus.highlight`); the pages a citation covers are the first numbers of
  its ``boxes`` (the final state's citations carry them: ``nodes/places.py``);
* ``GET /deepread/passages/{collection}/{doc}/{sec}/{para}.html`` — a paragraph of a
  source without pages, marked in its surrounding text.

**Who sees what**: with ``langgraph.auth.json`` the server runs the routes behind the same
authentication as the threads (``"enable_custom_route_auth": true``), and a user sees
only their own collections' pages (:func:`deepread.user_auth.owns`): another user's
collection is refused (403) exactly as a run naming it is. Whenever the operator has
configured users (``DEEPREAD_AUTH_TOKENS_FILE``), a request that reaches these routes
without an authenticated user is refused (401) — a deployment that forgot the route-auth
setting leaks nothing. Without users (``langgraph.json``), the routes serve any collection,
as that server's runs read any. The collection is opened from the process's shared pool
of open collections (``nodes/open_collections.py``), leased while the page is drawn, as
the served graphs open it: one embedded store, one opener.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from deepread.corpus.highlight import DEFAULT_DPI, check_dpi, draw_cited
from deepread.environment.settings import current as current_settings
from deepread.nodes.resources import UnknownCollection, shared_index
from deepread.records.errors import CoordinateError, StoreError
from deepread.records.locations import check_collection_name
from deepread.user_auth import owns


def _user(request: Request) -> str | None:
    """The authenticated user's identity, if the server's auth ran for this request."""
    user: Any = request.scope.get("user")
    identity = getattr(user, "identity", None) if user is not None else None
    if identity is None and isinstance(user, dict):
        identity = user.get("identity")
    return str(identity) if identity else None


def _refusal(request: Request, collection: str) -> JSONResponse | None:
    """401 / 403 when this request may not see ``collection``'s pages; else None."""
    users = bool(current_settings().auth_tokens_file)
    user = _user(request)
    if users and user is None:
        return JSONResponse({"detail": "send Authorization: Bearer <token>"}, status_code=401)
    if user is not None and not owns(user, collection):
        return JSONResponse(
            {"detail": f"collection {collection!r} is not one of yours ({user}, {user}-…)"},
            status_code=403,
        )
    return None


def _draw(collection: str, doc: int, sec: int, para: int, page: int | None, dpi: int) -> Any:
    check_collection_name(collection)
    with shared_index(current_settings().store, collection, create=False) as index:
        return draw_cited(index, doc, sec, para, dpi=dpi, page=page)[0]


async def _serve(request: Request, page: int | None) -> Response:
    params = request.path_params
    collection = str(params["collection"])
    refused = _refusal(request, collection)
    if refused is not None:
        return refused
    try:
        dpi = check_dpi(int(request.query_params.get("dpi") or DEFAULT_DPI))
    except ValueError as exc:  # not a number, or out of bounds: the request's to fix
        return JSONResponse({"detail": str(exc)}, status_code=400)
    try:
        made = await run_in_threadpool(
            _draw, collection, params["doc"], params["sec"], params["para"], page, dpi
        )
    except ValueError as exc:  # a PlaceError (UsageError): what cannot be drawn, and why
        return JSONResponse({"detail": str(exc)}, status_code=404)
    except (CoordinateError, UnknownCollection) as exc:
        return JSONResponse({"detail": str(exc)}, status_code=404)
    except StoreError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=503)
    if page is None and made.page is not None:
        return JSONResponse(
            {"detail": "this paragraph is on pages: ask for them under /deepread/pages/"},
            status_code=404,
        )
    kind = "image/png" if made.page is not None else "text/html; charset=utf-8"
    return Response(made.data, media_type=kind)


async def page_image(request: Request) -> Response:
    return await _serve(request, int(request.path_params["page"]))


async def passage(request: Request) -> Response:
    return await _serve(request, None)


_COORD = "{collection:str}/{doc:int}/{sec:int}/{para:int}"

#: The HTTP app ``langgraph.json`` names (``http.app``): its routes join the server's.
app = Starlette(
    routes=[
        Route(f"/deepread/pages/{_COORD}/{{page:int}}.png", page_image),
        Route(f"/deepread/passages/{_COORD}.html", passage),
    ]
)

__all__ = ["app"]
