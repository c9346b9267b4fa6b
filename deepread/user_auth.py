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
  read from nor ingest into another user's collections. The context is the only place
  the hook reads it, as it is the only place the graph does; a run whose ``config`` or
  ``checkpoint`` names a different ``collection`` is refused (403), so what was checked
  is what the graph opens.
- **Threads**: stamped with their owner when created; reading, searching, updating,
  deleting and running on them is filtered to the owner, so another user's threads are
  neither listed nor readable (404). The owner is the server's to set: a create, update
  or run that names another owner in its metadata is refused (403), so a thread can
  never be handed to another user (``PATCH /threads/T {"metadata": {"owner": "bob"}}``
  would put a thread, with an answer its author wrote, into bob's list).
- **Thread ids**: the server assigns them. Creating a thread under an id the client
  chose — ``POST /threads {"thread_id": …}``, or a run with ``if_not_exists="create"``
  — would tell the client whether that id is another user's thread (409 or 404 instead
  of a new thread); so such a create is refused (403) whether or not the id exists,
  unless the id is a version-7 UUID made in the last :data:`FRESH_S` seconds, as the
  server makes them (and as a client may, for a thread that cannot exist yet). Copying
  answers the same 409 for another user's thread and for none.
- **How many collections**: a user may have at most ``DEEPREAD_AUTH_MAX_COLLECTIONS``
  (default 20); a run naming a new one past that is refused (403), so no user can make
  the server create, and hold, collections without bound.
- **Webhooks**: a run may name a ``webhook`` (a URL the server POSTs the run's record
  to, answer included, when it ends) only when it is on the operator's allowlist
  ``DEEPREAD_AUTH_WEBHOOKS`` (URL prefixes; none by default): any other — a private
  network address where Qdrant or a model endpoint sits, loopback, a relative URL, one
  with user info or a dot segment — is refused (403) before the run is stored.
  langgraph-api's own check refuses loopback only, and accepts private addresses.
- **Everything else** (creating or changing assistants, crons — a cron's webhook too —,
  the LangGraph store) is refused: the operator sets those up.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
import uuid
from collections.abc import Sequence
from typing import Any

import httpx
from langgraph_sdk import Auth

from deepread.environment.settings import current as current_settings
from deepread.records.errors import StoreError
from deepread.text.hygiene import brief

TOKENS_ENV = "DEEPREAD_AUTH_TOKENS_FILE"
MAX_COLLECTIONS_ENV = "DEEPREAD_AUTH_MAX_COLLECTIONS"
WEBHOOKS_ENV = "DEEPREAD_AUTH_WEBHOOKS"
#: How old a version-7 thread id may be and still count as one just made (seconds).
FRESH_S = 5.0
OWNER_IS_THE_SERVERS = (
    "a thread's owner is set by the server and cannot be given or "
    "changed by a client; leave 'owner' out of the metadata"
)
_USER = re.compile(r"[A-Za-z0-9]{1,32}")  # fullmatch: "$" would let "alice\n" through

auth = Auth()


def token_digest(token: str) -> str:
    """What the tokens file holds for ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _users() -> dict[str, str]:
    path = current_settings().auth_tokens_file
    if not path:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail=f"no users are configured ({TOKENS_ENV} is unset)"
        )
    try:
        with open(path, encoding="utf-8") as fh:
            users = json.load(fh)
    except (OSError, ValueError):
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="the users file cannot be read"
        ) from None
    return users if isinstance(users, dict) else {}


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="send Authorization: Bearer <token>"
        )
    user = _users().get(token_digest(token.strip()))
    if not isinstance(user, str) or not _USER.fullmatch(user):
        raise Auth.exceptions.HTTPException(status_code=401, detail="unknown token")
    return {"identity": user, "is_authenticated": True}


def owns(user: str, collection: str) -> bool:
    """Whether ``collection`` is one of ``user``'s (ids hold no '-', so this is exact)."""
    return collection == user or collection.startswith(f"{user}-")


def _collection(kwargs: dict[str, Any], yours: str) -> Any:
    """The collection a run reads: its context's, the one place the graph takes it from.

    LangGraph makes the context of a run that sends none from ``config.configurable`` —
    and only then merges the run's ``checkpoint`` into ``configurable``. So a
    ``collection`` there that is not the context's is one the graph would never open:
    checking it would allow a run on another collection (``"checkpoint":
    {"collection": "alice"}`` with no context would run on the shared ``default``). Such a run
    is refused, naming both.
    """
    context = kwargs.get("context") or {}
    configurable = (kwargs.get("config") or {}).get("configurable") or {}
    collection = context.get("collection") if isinstance(context, dict) else None
    if isinstance(configurable, dict) and "collection" in configurable:
        other = configurable["collection"]
        if other != collection:
            named = "names none" if collection is None else f"names {brief(collection)}"
            raise _forbidden(
                f"a run reads the collection its context names, and this run's context "
                f"{named}, not {brief(other)} as its config or checkpoint says; name one "
                f"of your collections in the context only (context={{'collection': ...}}); "
                f"{yours}"
            )
    return collection


def _forbidden(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=403, detail=detail)


def _check_owner(metadata: Any, user: str) -> None:
    """403 when ``metadata`` names an owner other than ``user``."""
    if isinstance(metadata, dict) and "owner" in metadata and metadata["owner"] != user:
        raise _forbidden(OWNER_IS_THE_SERVERS)


def _made_by_the_server(thread_id: Any) -> bool:
    """Whether ``thread_id`` is a version-7 UUID made in the last :data:`FRESH_S`
    seconds: what the server assigns to a thread it creates (and a fresh id a client
    made, which cannot name an existing thread)."""
    try:
        uid = thread_id if isinstance(thread_id, uuid.UUID) else uuid.UUID(str(thread_id))
    except ValueError:
        return False
    made_ms = int.from_bytes(uid.bytes[:6], "big")
    return uid.version == 7 and abs(time.time() - made_ms / 1000) <= FRESH_S


def _refuse_chosen_thread_id(thread_id: Any) -> None:
    if not _made_by_the_server(thread_id):
        raise _forbidden(
            "thread ids are assigned by the server: create the thread without "
            "a thread_id (POST /threads) and use the id it returns"
        )


async def _check_collection_count(user: str, collection: str) -> None:
    """403 when ``collection`` would be a new one past the user's cap."""
    settings = current_settings()
    from deepread.corpus.index import Index  # the store's door; loaded on first use

    try:
        names = await asyncio.to_thread(
            Index.list_collections,
            settings.store,
            api_key=settings.qdrant_api_key,
            timeout=settings.qdrant_timeout,
        )
    except StoreError:
        return  # the store is down: the run itself reports it
    yours = [n for n in names if owns(user, n)]
    cap = settings.auth_max_collections
    if collection not in yours and len(yours) >= cap:
        raise _forbidden(
            f"you have {len(yours)} collections, the most this server allows "
            f"({MAX_COLLECTIONS_ENV}={cap}); use one of them"
        )


#: What a webhook URL may not hold: blanks and controls, a backslash and an "@" (read
#: differently by different URL parsers: ``https://allowed\\@10.0.0.1/`` is a request to
#: 10.0.0.1 for some of them).
_UNSAFE_URL = re.compile(r"[\s\x00-\x1f\x7f\\@]")
#: Longest webhook URL considered.
_MAX_URL = 2048


def _url_parts(url: Any) -> tuple[str, str, int, str] | None:
    """Scheme, host, port and path of an absolute http(s) URL, as the server's HTTP client
    (httpx) reads it; ``None`` for anything else: relative, user info, a ``.`` or ``..``
    segment (percent-encoded too), blanks, or too long."""
    if not isinstance(url, str) or len(url) > _MAX_URL or _UNSAFE_URL.search(url):
        return None
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return None
    if parsed.scheme not in ("http", "https") or not parsed.host or parsed.userinfo:
        return None
    path = parsed.path or "/"
    if any(part in (".", "..") for part in path.split("/")):
        return None
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return parsed.scheme, parsed.host.lower(), port, path


def webhook_allowed(url: Any, allowed: Sequence[str]) -> bool:
    """Whether ``url`` is on the allowlist ``allowed``: an entry of the same scheme, host
    and port whose path is the URL's or a folder above it (``https://h/hooks/`` allows
    ``https://h/hooks/done``; ``https://h/hooks`` allows it and ``https://h/hooks``
    itself, not ``https://h/hooks-other``). The query is the client's."""
    got = _url_parts(url)
    if got is None:
        return False
    for entry in allowed:
        want = _url_parts(entry)
        if want is None or want[:3] != got[:3]:
            continue
        folder = want[3] if want[3].endswith("/") else want[3] + "/"
        if got[3] == want[3] or got[3].startswith(folder):
            return True
    return False


def _check_webhook(kwargs: dict[str, Any]) -> None:
    """403 when the run names a webhook the operator does not allow."""
    webhook = kwargs.get("webhook")
    if not webhook:
        return
    allowed = current_settings().auth_webhooks
    if not allowed:
        raise _forbidden(
            f"webhooks are off on this server: leave 'webhook' out (the operator allows "
            f"webhook URLs with {WEBHOOKS_ENV})"
        )
    if not webhook_allowed(webhook, allowed):
        raise _forbidden(
            f"webhook {brief(webhook)} is not one this server allows (the operator lists "
            f"them in {WEBHOOKS_ENV})"
        )


@auth.on.threads.create_run
async def on_run(
    ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate
) -> Auth.types.FilterType:
    user = ctx.user.identity
    _check_webhook(value.get("kwargs") or {})
    yours = f"yours are {user!r} and {user + '-<name>'!r}"
    collection = _collection(value.get("kwargs") or {}, yours)
    if collection is None:
        raise _forbidden(
            f"name one of your collections in the run's context "
            f"(context={{'collection': ...}}); {yours}"
        )
    if not isinstance(collection, str) or not owns(user, collection):
        raise _forbidden(f"collection {brief(collection)} is not yours; {yours}")
    await _check_collection_count(user, collection)
    if value.get("if_not_exists") == "create" and value.get("thread_id") is not None:
        _refuse_chosen_thread_id(value["thread_id"])
    metadata = value.setdefault("metadata", {})
    _check_owner(metadata, user)
    metadata["owner"] = user  # a thread this run creates is the user's
    return {"owner": user}


@auth.on.threads.create
async def on_thread_create(
    ctx: Auth.types.AuthContext, value: Auth.types.ThreadsCreate
) -> Auth.types.FilterType:
    user = ctx.user.identity
    # A copy (POST /threads/T/copy) creates under an id the server made, and carries
    # no if_exists: its owner is the original's, which the read filter made the user.
    if "if_exists" in value:
        _refuse_chosen_thread_id(value.get("thread_id"))
    metadata = value.setdefault("metadata", {})
    _check_owner(metadata, user)
    metadata["owner"] = user
    return {"owner": user}


@auth.on.threads.update
async def on_thread_update(
    ctx: Auth.types.AuthContext, value: Auth.types.ThreadsUpdate
) -> Auth.types.FilterType:
    """Updating a thread's metadata, state or runs: the owner's only, and the owner
    stays."""
    _check_owner(value.get("metadata"), ctx.user.identity)
    return {"owner": ctx.user.identity}


@auth.on.threads
async def on_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Read, search, delete: only the user's own threads."""
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
