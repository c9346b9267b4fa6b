"""Input hygiene at the edges: text that reaches a tokenizer or the engine is clean.

Two ways odd code points come in:

* a command-line argument that is not valid UTF-8 (a Latin-1 shell's ``caf\\xe9``):
  Python hands it over with its bytes as lone surrogates (``surrogateescape``), which
  every encoder refuses; :func:`decode_argument` decodes the original bytes as UTF-8,
  else as Latin-1 (what such a shell sent);
* a query or tool argument holding a lone surrogate (``"\\ud800"`` is valid JSON, so a
  model's tool call can carry one) or a NUL: the tokenizers raise ``TypeError`` on
  the first and C strings end at the second. :func:`clean_query` drops both, and is
  applied where queries enter (``Index.search``, the agent's question).

And one way out: a refused value is echoed in its error message so the caller sees what
was wrong, but a hostile or careless one can be huge (a ``documents`` list of 100,000
ids, a 10 MB tool argument); :func:`brief` is the echo, bounded.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Sized
from typing import Any

_UNWANTED = re.compile("[\x00\ud800-\udfff]")
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
_UNWANTED_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_query(text: str) -> str:
    """``text`` without lone surrogates and NUL characters (nothing else changes)."""
    return _UNWANTED.sub("", text)


def storable(text: str) -> str:
    """``text`` as the engine can store it: a lone surrogate — a byte of a file name
    that is not UTF-8, carried by Python as ``\\udcXX`` — becomes a visible ``\\xXX``
    (the engine, like any UTF-8 encoder, refuses surrogates). The same name always gives
    the same text, so a re-ingest still finds the file unchanged."""
    if not _UNWANTED_SURROGATE.search(text):
        return text
    return text.encode(
        "utf-8", "surrogateescape" if _only_escaped_bytes(text) else "surrogatepass"
    ).decode("utf-8", "backslashreplace")


def _only_escaped_bytes(text: str) -> bool:
    return all(0xDC80 <= ord(c) <= 0xDCFF for c in _UNWANTED_SURROGATE.findall(text))


def decode_argument(arg: str) -> str:
    """A command-line argument as the text its bytes meant.

    Valid UTF-8 comes in unchanged. Bytes Python could not decode (carried as
    ``\\udc80``–``\\udcff``) are decoded again from the original bytes: as UTF-8 where
    they are, else as Latin-1 — never a traceback.
    """
    if not _ESCAPED_BYTE.search(arg):
        return arg
    try:
        raw = arg.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte stands for: not from argv bytes
        return clean_query(arg)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


_MAX_BRIEF = 300
_BRIEF = reprlib.Repr()  # keyword arguments only from Python 3.12
for _name, _limit in (
    ("maxlevel", 3),
    ("maxtuple", 6),
    ("maxlist", 6),
    ("maxarray", 6),
    ("maxdict", 4),
    ("maxset", 6),
    ("maxfrozenset", 6),
    ("maxdeque", 6),
    ("maxstring", 80),
    ("maxlong", 40),
    ("maxother", 80),
):
    setattr(_BRIEF, _name, _limit)


def brief(value: Any) -> str:
    """``repr(value)`` as an error message may echo it: long strings and numbers cut in
    the middle, containers to their first items, with the size said when something was
    left out (``[0, 1, 2, 3, 4, 5, ...] (100000 items)``). At most about 300 characters
    whatever the value."""
    shown = _BRIEF.repr(value)
    if len(shown) > _MAX_BRIEF:
        shown = shown[:_MAX_BRIEF] + "..."
    if isinstance(value, str | bytes):
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{shown} ({len(value)} {unit})" if len(value) > _BRIEF.maxstring else shown
    if (
        isinstance(value, Sized)
        and len(value) > _BRIEF.maxdict
        and shown.endswith(("...]", "...)", "...}", "..."))
    ):
        return f"{shown} ({len(value)} items)"
    return shown
