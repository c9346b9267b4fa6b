"""Per-user collections and threads on a LangGraph server: an example ``Auth`` module.

Served with ``langgraph dev --config langgraph.auth.json`` (its ``auth`` key names
``deepread.user_auth:auth``). It shows how an operator gives every user their own
collections with LangGraph's own auth (``langgraph_sdk.Auth``), denying by default:

- **Who**: ``Authorization: Bearer <token>``. Tokens are looked up by their SHA-256 in
  the JSON file ``DEEPREAD_AUTH_TOKENS_FILE`` (``{"<sha256 hex>": "<user id>"}``), so
  the file holds no usable secret. A user id is letters and digits. No token, an unknown
  one or no file: 401. Replace :func:`authenticate` with your identity provider's check
  (JWT, OAuth introspection) in production; the handlers below stay as they are.
- **Collections**: a user owns the collection named as their id and those named
  ``<id>-<anything>`` (``alice``, ``alice-manuals``). A run — of ``deepread`` or of
  ``ingest`` — must name a collection of its user's in ``context``; any other, or none
  (the shared ``default``), is refused with 403 before the run starts: a user can neither
  read from nor ingest into another user's collections.
- **Threads**: stamped with their owner when created; reading, searching, updating,
  deleting and running on them is filtered to the owner, so another user's threads are
  neither listed nor readable (404).
- **Everything else** (creating or changing assistants, crons, the LangGraph store) is
  refused: the operator sets those up.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from langgraph_sdk import Auth

from deepread.settings import current as current_settings
from deepread.stores.hygiene import brief

TOKENS_ENV = "DEEPREAD_AUTH_TOKENS_FILE"
_USER = re.compile(r"[A-Za-z0-9]{1,32}")  # fullmatch: "$" would let "alice\n" through

auth = Auth()


def token_digest(token: str) -> str:
    """What the tokens file holds for ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _users() -> dict[str, str]:
    path = current_settings().auth_tokens_file
    if not path:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail=f"no users are configured ({TOKENS_ENV} is unset)")
    try:
        with open(path, encoding="utf-8") as fh:
            users = json.load(fh)
    except (OSError, ValueError):
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="the users file cannot be read") from None
    return users if isinstance(users, dict) else {}


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="send Authorization: Bearer <token>")
    user = _users().get(token_digest(token.strip()))
    if not isinstance(user, str) or not _USER.fullmatch(user):
        raise Auth.exceptions.HTTPException(status_code=401, detail="unknown token")
    return {"identity": user, "is_authenticated": True}


def owns(user: str, collection: str) -> bool:
    """Whether ``collection`` is one of ``user``'s (ids hold no '-', so this is exact)."""
    return collection == user or collection.startswith(f"{user}-")


def _collection(kwargs: dict[str, Any]) -> Any:
    """The collection a run asks for, wherever the client put it."""
    context = kwargs.get("context") or {}
    configurable = (kwargs.get("config") or {}).get("configurable") or {}
    if "collection" in context:
        return context["collection"]
    return configurable.get("collection")


def _forbidden(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=403, detail=detail)


@auth.on.threads.create_run
async def on_run(ctx: Auth.types.AuthContext,
                 value: Auth.types.RunsCreate) -> Auth.types.FilterType:
    user = ctx.user.identity
    collection = _collection(value.get("kwargs") or {})
    yours = f"yours are {user!r} and {user + '-<name>'!r}"
    if collection is None:
        raise _forbidden(f"name one of your collections in the run's context "
                         f"(context={{'collection': ...}}); {yours}")
    if not isinstance(collection, str) or not owns(user, collection):
        raise _forbidden(f"collection {brief(collection)} is not yours; {yours}")
    metadata = value.setdefault("metadata", {})
    metadata["owner"] = user  # a thread this run creates is the user's
    return {"owner": user}


@auth.on.threads.create
async def on_thread_create(ctx: Auth.types.AuthContext,
                           value: Auth.types.ThreadsCreate) -> Auth.types.FilterType:
    metadata = value.setdefault("metadata", {})
    metadata["owner"] = ctx.user.identity
    return {"owner": ctx.user.identity}


@auth.on.threads
async def on_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Read, search, update, delete: only the user's own threads."""
    return {"owner": ctx.user.identity}


@auth.on.assistants.read
async def on_assistant_read(ctx: Auth.types.AuthContext, value: Any) -> None:
    return None  # the operator's assistants (deepread, ingest) are for everyone


@auth.on.assistants.search
async def on_assistant_search(ctx: Auth.types.AuthContext, value: Any) -> None:
    return None


@auth.on
async def deny_the_rest(ctx: Auth.types.AuthContext, value: Any) -> None:
    raise _forbidden(f"{ctx.resource}.{ctx.action} is not open to API users on this server")
