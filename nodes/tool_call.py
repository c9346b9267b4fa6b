"""The contract between the ``tools`` node and a tool's handler.

A handler gets the call's validated arguments and a :class:`ToolEnv` (the index, the
run's context, what the conversation has read) and returns an :class:`Outcome`: the
paragraphs to show (the ``tools`` node frames them and applies read-region memory) or a
text to show as is, a header line, the observation's other fields, and the documents
the result brings into the interaction space. It raises ``ValueError``/``KeyError``
(bad coordinates, out of scope) or ``StoreError``; the ``tools`` node turns those into
an error result the model can act on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.observation import Observation
from deepread.nodes.state import Regions
from deepread.stores.records import Paragraph


@dataclass(slots=True)
class ToolEnv:
    """What a handler may use."""

    index: Index
    context: Context
    #: Documents the conversation has read, in order of first reading.
    read_docs: list[int] = field(default_factory=list)
    #: The paragraphs the model has been shown (read-region memory), this round's
    #: earlier calls included: what ``retrieve(exclude_shown=True)`` skips.
    shown: Regions = field(default_factory=dict)


@dataclass(slots=True)
class Outcome:
    """What a handler produced."""

    paragraphs: list[Paragraph] = field(default_factory=list)
    header: str = ""
    #: Shown instead of the framed paragraphs (e.g. a table of contents).
    text: str | None = None
    #: The observation's other fields (hits, range, targets…); paragraphs are filled in
    #: by the tools node.
    observation: Observation = field(default_factory=Observation)
    #: Documents this result brings into a bounded interaction space (nodes/space.py).
    widens: list[int] = field(default_factory=list)


Handler = Callable[[Any, ToolEnv], Outcome]
