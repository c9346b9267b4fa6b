"""The operator's caps on what one ingest may cost, each read from ``DEEPREAD_INGEST_MAX_<NAME>``.

One reader for the upload caps (:mod:`deepread.corpus.uploads`: bytes and files) and the
paragraph caps (:mod:`deepread.corpus.paragraph_budget`), so every cap is set, and
refused when mistyped, the same way.
"""

from __future__ import annotations

from deepread.environment.settings import current as current_settings

PREFIX = "DEEPREAD_INGEST_MAX_"


class CapError(ValueError):
    """A cap's variable holds no whole number; the message names it."""


def ingest_cap(env: str, default: int) -> int:
    """The value of ``env`` (a ``DEEPREAD_INGEST_MAX_<NAME>`` variable), else
    ``default``; negative values count as 0."""
    raw = current_settings().ingest_caps.get(env.removeprefix(PREFIX).lower())
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise CapError(f"{env}={raw!r} is not a whole number") from None
    return max(value, 0)
