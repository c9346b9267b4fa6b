"""What the environment says: the one place deepread reads its settings from ``os.environ``.

Every setting a user or an operator can give through the environment is resolved here,
into a frozen :class:`Settings`; the rest of the package takes explicit values. The CLI
turns its flags and these settings into explicit arguments; a run's
:class:`~deepread.nodes.context.Context` takes a field from here only when the caller
did not give it (explicit beats environment); the served graphs read the operator's caps
and pins here (:mod:`deepread.graphs.served`).

This module imports nothing from deepread, so every layer may ask it for a default
without an import cycle: it is the package's configuration, not a layer.

=========================  ================================================================
``DEEPREAD_STORE``         store directory or Qdrant URL (else ``QDRANT_URL``, else the
                           per-user data directory)
``QDRANT_API_KEY``         key for a Qdrant server
``QDRANT_TIMEOUT``         seconds to wait for a Qdrant server (default 30)
``DEEPREAD_EMBEDDINGS``    ``local`` (default) or ``openai:<model>``
``DEEPREAD_RERANK``        ``coverage`` (default) or ``none``
``OPENAI_BASE_URL``        an OpenAI-compatible endpoint (vLLM, Ollama, …)
``OPENAI_API_KEY``         the key for it (read by the OpenAI client itself; here only
                           whether one is set)
``DEEPREAD_INGEST_ROOT``   the only folder a served ingest may read
``DEEPREAD_INGEST_MAX_*``  caps on documents sent as content (``FILE_BYTES``, ``FILES``)
``DEEPREAD_CHECKPOINTER``  where ``deepread ask`` keeps conversations (``postgres://…``)
``DEEPREAD_AUTH_TOKENS_FILE``  the users of the example auth (``deepread/user_auth.py``)
``DEEPREAD_AUTH_MAX_COLLECTIONS``  collections one user of the example auth may have
                           (default 20)
``DEEPREAD_AUTH_WEBHOOKS``  the webhook URLs (prefixes) the example auth lets a run
                           name, separated by spaces or commas (default: none)
``DEEPREAD_MAX_MESSAGE_CHARS``  the longest message a thread accepts (default 1,000,000
                           characters; what a client writes into a thread's state)
``DEEPREAD_MAX_OPEN_COLLECTIONS``  collections a process keeps open at once (default 8;
                           the least recently used one is closed past it)
``DEEPREAD_STORE_WAIT``    seconds a process waits for an embedded store another process
                           holds before giving up (default 30; 0: give up at once)
``DEEPREAD_<FIELD>``       the default of a run's context field (``DEEPREAD_K``, …)
``DEEPREAD_SERVE_*``       the operator's caps and allowed models for server clients
                           (:mod:`deepread.graphs.served`)
``*API_KEY`` ``*_TOKEN``   (and ``*_SECRET``, ``*PASSWORD``) values are secrets: masked
                           in every message (:mod:`deepread.text.redaction`)
=========================  ================================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Environment variables whose values are secrets, by the end of their names.
SECRET_SUFFIXES = ("API_KEY", "_TOKEN", "_SECRET", "PASSWORD")


class SettingsError(ValueError):
    """An environment variable holds a value deepread cannot use; the message names it."""


def user_store() -> str:
    """The per-user store directory used when nothing else names one."""
    from platformdirs import user_data_dir

    return str(Path(user_data_dir("deepread")) / "store")


@dataclass(frozen=True)
class Settings:
    """deepread's environment, resolved once; see the module docstring for the names."""

    store: str
    store_from_env: bool
    qdrant_api_key: str | None = None
    qdrant_timeout: float = 30.0
    embeddings: str = ""
    rerank: str = ""
    openai_base_url: str | None = None
    openai_api_key_set: bool = False
    ingest_root: str | None = None
    #: raw ``DEEPREAD_INGEST_MAX_<NAME>`` values by lower-case name (``"file_bytes"``)
    ingest_caps: Mapping[str, str] = field(default_factory=dict)
    checkpointer: str = ""
    auth_tokens_file: str | None = None
    #: collections one user of the example auth may have (``DEEPREAD_AUTH_MAX_COLLECTIONS``)
    auth_max_collections: int = 20
    #: webhook URL prefixes the example auth allows (``DEEPREAD_AUTH_WEBHOOKS``; none: no
    #: run may name a webhook)
    auth_webhooks: tuple[str, ...] = ()
    #: raw ``DEEPREAD_<FIELD>`` values by lower-case field name (``"k"`` → ``"9"``)
    context_defaults: Mapping[str, str] = field(default_factory=dict)
    #: raw ``DEEPREAD_SERVE_<NAME>`` values by lower-case name (``"max_k"`` → ``"20"``)
    serve: Mapping[str, str] = field(default_factory=dict)
    #: longest message a thread accepts, in characters (``DEEPREAD_MAX_MESSAGE_CHARS``)
    max_message_chars: int = 1_000_000
    #: collections one process keeps open (``DEEPREAD_MAX_OPEN_COLLECTIONS``)
    max_open_collections: int = 8
    #: seconds to wait for an embedded store another process holds (``DEEPREAD_STORE_WAIT``)
    store_wait: float = 30.0
    #: values of the environment's secrets (``*API_KEY``, ``*_TOKEN``, ``*_SECRET``,
    #: ``*PASSWORD``): masked in every message (``deepread.text.redaction``)
    secrets: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        configured = env.get("DEEPREAD_STORE") or env.get("QDRANT_URL") or ""
        raw_timeout = env.get("QDRANT_TIMEOUT", "").strip()
        try:
            timeout = float(raw_timeout) if raw_timeout else 30.0
        except ValueError:
            raise SettingsError(
                f"QDRANT_TIMEOUT must be a number of seconds, not {raw_timeout!r}"
            ) from None
        prefix, serve, caps = "DEEPREAD_", "DEEPREAD_SERVE_", "DEEPREAD_INGEST_MAX_"
        return cls(
            max_message_chars=_whole(env, "DEEPREAD_MAX_MESSAGE_CHARS", 1_000_000),
            max_open_collections=_whole(env, "DEEPREAD_MAX_OPEN_COLLECTIONS", 8),
            store_wait=_seconds(env, "DEEPREAD_STORE_WAIT", 30.0),
            store=configured or user_store(),
            store_from_env=bool(configured),
            qdrant_api_key=env.get("QDRANT_API_KEY") or None,
            qdrant_timeout=timeout,
            embeddings=env.get("DEEPREAD_EMBEDDINGS", "").strip(),
            rerank=env.get("DEEPREAD_RERANK", "").strip(),
            openai_base_url=env.get("OPENAI_BASE_URL") or None,
            openai_api_key_set=bool(env.get("OPENAI_API_KEY")),
            ingest_root=env.get("DEEPREAD_INGEST_ROOT") or None,
            ingest_caps={k[len(caps) :].lower(): v for k, v in env.items() if k.startswith(caps)},
            checkpointer=env.get("DEEPREAD_CHECKPOINTER", "").strip(),
            auth_tokens_file=env.get("DEEPREAD_AUTH_TOKENS_FILE") or None,
            auth_max_collections=_whole(env, "DEEPREAD_AUTH_MAX_COLLECTIONS", 20),
            auth_webhooks=_urls(env, "DEEPREAD_AUTH_WEBHOOKS"),
            context_defaults={
                k[len(prefix) :].lower(): v
                for k, v in env.items()
                if k.startswith(prefix) and not k.startswith(serve)
            },
            serve={k[len(serve) :].lower(): v for k, v in env.items() if k.startswith(serve)},
            secrets=tuple(
                v for k, v in env.items() if k.upper().endswith(SECRET_SUFFIXES) and v.strip()
            ),
        )


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    """A positive whole number from ``env[name]``, else ``default``; a SettingsError
    naming the variable for anything else."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise SettingsError(f"{name} must be a whole number of at least 1, not {raw!r}")
    return value


def _urls(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """The http(s) URLs of ``env[name]``, separated by spaces or commas; a SettingsError
    naming the variable for anything else."""
    urls = tuple(u for u in env.get(name, "").replace(",", " ").split() if u)
    for url in urls:
        if not url.lower().startswith(("http://", "https://")):
            raise SettingsError(
                f"{name} holds {url!r}: each entry must be a URL starting with "
                "http:// or https:// (separate several with spaces or commas)"
            )
    return urls


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds, 0 or more, from ``env[name]``, else ``default``; a
    SettingsError naming the variable for anything else."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise SettingsError(f"{name} must be a number of seconds, 0 or more, not {raw!r}")
    return value


def current() -> Settings:
    """The settings of the environment as it is now.

    Read on every call (it is cheap): a test or a long-lived host that changes its
    environment is seen at the next call, and nothing is cached across them.
    """
    return Settings.from_env()
