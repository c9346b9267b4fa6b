"""A reducer whose checks a state update cannot step around by replacing the value whole.

LangGraph applies a field's reducer to every update of it — except an update that asks to
replace the value: ``Overwrite(value)``, or, as JSON from a client (``POST
/threads/T/state``, a run's input), ``{"__overwrite__": value}`` and ``{"type":
"__overwrite__", "value": value}``. Such a value is stored as sent. Our reducers are also
our checks: ``messages`` through ``{"__overwrite__": [...]}`` would skip the message cap
and the tool-call check and be stored as raw dicts the nodes cannot read;
``read_regions`` would be stored unsorted and unmerged, which the bisection of
:func:`~deepread.nodes.read_memory.was_read` relies on.

:class:`Checked` is LangGraph's reducer channel with one change: a replacing update still
replaces, but its value is first run through the reducer from an empty value — checked,
converted and normalised like any other update.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.types import Overwrite

#: LangGraph's key of a replacing update sent as JSON (langgraph._internal._constants).
_OVERWRITE = "__overwrite__"


def replacement(value: Any) -> tuple[bool, Any]:
    """Whether ``value`` asks to replace the field, in any of LangGraph's three forms,
    and the value it replaces it with."""
    if isinstance(value, Overwrite):
        return True, value.value
    if isinstance(value, dict):
        if len(value) == 1 and _OVERWRITE in value:
            return True, value[_OVERWRITE]
        if value.get("type") == _OVERWRITE and "value" in value:
            return True, value["value"]
    return False, None


class Checked(BinaryOperatorAggregate):
    """A reducer channel (``Annotated[T, Checked(T, reducer)]``) that runs a replacing
    update's value through ``reducer`` too (see the module docstring)."""

    def update(self, values: Sequence[Any]) -> bool:
        return super().update([self._checked(value) for value in values])

    def _checked(self, value: Any) -> Any:
        replaces, new = replacement(value)
        return Overwrite(self.operator(self.typ(), new)) if replaces else value
