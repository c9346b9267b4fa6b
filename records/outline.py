"""A document's outline as a tree: a section and the sections under it.

A :class:`~deepread.records.documents.Section` names its children; what reading a
section "with its subtree" reads — a statement whose table sits under a child heading,
a chapter's parts — is the section and its descendants in reading order.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepread.records.documents import Section


def subtree(sections: Sequence[Section], sec_id: int) -> list[int]:
    """``sec_id`` and its descendants in ``sections`` (a document's outline), in reading
    order: each section, then its children in order, depth first."""
    out: list[int] = []
    stack = [sec_id]
    while stack:
        sec = sections[stack.pop()]
        out.append(sec.sec_id)
        stack.extend(reversed(sec.children))
    return out
