"""The one JSON encoder behind every ``--json`` output of the command line.

A run's outputs hold more than ``json`` knows: LangChain messages (an answer's
``AIMessage``, tool results), deepread's records (dataclasses with ``to_dict``), paths,
tuples and sets, numpy numbers, infinities (an evaluation's ratios). :func:`to_json`
writes them all; anything else is a bug and raises ``TypeError`` rather than printing
a ``repr`` nobody can parse.

Output is exact — ``json.loads`` gives back the very strings — and safe to print on a
terminal: besides the controls ``json`` always escapes, C1 controls, bidi controls and
lone surrogates (the same set :mod:`deepread.terminal` escapes for people) are written
as ``\\uXXXX``. Other non-ASCII text stays readable.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import PurePath
from typing import Any

from deepread.terminal import UNSAFE

_ESCAPES = {c: f"\\u{c:04x}" for c in UNSAFE if c >= 0x7F}
_ESCAPES |= {c: f"\\u{c:04x}" for c in range(0xD800, 0xE000)}


def plain(value: Any) -> Any:
    """``value`` as JSON's types (dict, list, str, int, float, bool, None)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        # JSON has no infinity or NaN; "inf" is what the evaluation's readers expect.
        return (
            value
            if math.isfinite(value)
            else ("inf" if value > 0 else "-inf" if value < 0 else None)
        )
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [plain(v) for v in items]
    if isinstance(value, PurePath):
        return str(value)
    from langchain_core.messages import BaseMessage

    if isinstance(value, BaseMessage):
        return plain(_message(value))
    if hasattr(value, "to_dict"):
        return plain(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return plain(value.item())
    if hasattr(value, "tolist"):  # numpy arrays
        return plain(value.tolist())
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _message(message: Any) -> dict[str, Any]:
    """A chat message as its role, text and, where present, tool calls and results."""
    from deepread.models.chat import message_text

    out: dict[str, Any] = {"type": message.type, "content": message_text(message)}
    for name in ("name", "tool_call_id", "status"):
        if getattr(message, name, None):
            out[name] = getattr(message, name)
    calls = getattr(message, "tool_calls", None)
    if calls:
        out["tool_calls"] = [
            {"name": c["name"], "args": c["args"], "id": c.get("id")} for c in calls
        ]
    citations = (getattr(message, "response_metadata", None) or {}).get("citations")
    if citations:
        out["citations"] = citations
    return out


def to_json(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON text, exact and terminal-safe (see the module docstring)."""
    return json.dumps(plain(value), ensure_ascii=False, indent=indent).translate(_ESCAPES)
