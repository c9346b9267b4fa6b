"""Where ``deepread ask`` keeps conversations: SQLite beside the store, or PostgreSQL.

SQLite (``checkpoints.sqlite`` beside the store) is the default and right for one machine.
Several processes or machines that continue the same threads — workers behind a load
balancer, a CLI on two hosts — share a PostgreSQL database instead:
``--checkpointer postgres://user:pass@host/db`` or ``DEEPREAD_CHECKPOINTER``, with the
``deepread[postgres]`` extra (``langgraph-checkpoint-postgres``). The tables are created
on first use (``PostgresSaver.setup()``, idempotent).

A LangGraph server brings its own persistence and ignores this; it is for the CLI and for
Python code that builds the graph itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver

from deepread.environment.settings import current as current_settings
from deepread.text.redaction import redact, redact_url

ENV = "DEEPREAD_CHECKPOINTER"
POSTGRES_SCHEMES = ("postgres://", "postgresql://")


class CheckpointerError(ValueError):
    """The checkpointer named cannot be used (unknown kind, missing extra, unreachable)."""


@contextmanager
def open_checkpointer(
    spec: str | None,
    default_sqlite: Path,
) -> Iterator[BaseCheckpointSaver]:
    """The checkpointer ``spec`` names, open for the ``with`` block.

    ``spec``: a ``postgres://`` / ``postgresql://`` URL, a ``sqlite:`` path or a plain
    file path; empty: ``DEEPREAD_CHECKPOINTER``, else SQLite at ``default_sqlite``.
    """
    spec = spec or current_settings().checkpointer
    if spec.startswith(POSTGRES_SCHEMES):
        with _postgres(spec) as saver:
            yield saver
        return
    if "://" in spec:
        raise CheckpointerError(
            f"unknown checkpointer {_redact(spec)!r}: use a postgres:// URL or a SQLite file path"
        )
    path = Path(spec.removeprefix("sqlite:")).expanduser() if spec else default_sqlite
    path.parent.mkdir(parents=True, exist_ok=True)
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(path)) as saver:
        yield saver


@contextmanager
def _postgres(url: str) -> Iterator[BaseCheckpointSaver]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError:
        raise CheckpointerError(
            "a postgres:// checkpointer needs the postgres extra: pip install 'deepread[postgres]'"
        ) from None
    try:
        manager = PostgresSaver.from_conn_string(url)
        saver = manager.__enter__()
    except psycopg.Error as exc:
        why = redact(str(exc).strip(), current_settings().secrets)
        raise CheckpointerError(
            f"cannot connect to the checkpointer database {_redact(url)}: {why}"
        ) from None
    try:
        saver.setup()
        yield saver
    finally:
        manager.__exit__(None, None, None)


def _redact(url: str) -> str:
    """``url`` without its secrets, for messages (:mod:`deepread.text.redaction`)."""
    return redact_url(url, current_settings().secrets)
