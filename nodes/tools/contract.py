"""The contract between the tool executors and a tool's handler.

A handler gets the call's validated arguments and a :class:`ToolEnv` (the index, the
run's context, what the conversation has read) and returns an :class:`Outcome`: the
paragraphs to show (the executor frames them and applies read-region memory) or a
text to show as is, what the section lines add (a read's range), a header line (only
what a result needs beyond its frame), the observation's other fields, and the
documents the result brings into the interaction space (:func:`render` writes the
text). It raises ``ValueError``/``KeyError`` (bad coordinates, out of scope) or
``StoreError``; the executor turns those into an error result the model can act
on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from deepread.corpus.index import Index
from deepread.nodes.context import Context
from deepread.nodes.read_memory import Regions
from deepread.nodes.tools.observation import Observation, ShownParagraph, format_paragraphs
from deepread.records.documents import Document, Paragraph


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
    #: A line before the frame, for what the frame cannot say (follow_reference: what
    #: the reference resolved to); empty for the paper's two tools.
    header: str = ""
    #: What a section's line adds after its title, by (doc_id, sec_id): read_section's
    #: range read and the section's size (observation.extent).
    notes: dict[tuple[int, int], str] = field(default_factory=dict)
    #: Shown instead of the framed paragraphs (e.g. a table of contents).
    text: str | None = None
    #: The observation's other fields (hits, range, targets…); paragraphs are filled in
    #: by the tool executors.
    observation: Observation = field(default_factory=Observation)
    #: Documents this result brings into a bounded interaction space (nodes/model_input/space.py).
    widens: list[int] = field(default_factory=list)


Handler = Callable[[Any, ToolEnv], Outcome]


def render(
    outcome: Outcome, documents: dict[int, Document], regions: Regions
) -> tuple[str, list[ShownParagraph]]:
    """The text the model is shown for ``outcome`` and the rows it showed: its text as
    is, or its paragraphs framed (those in ``regions`` as pointers) after its header."""
    if outcome.text is not None:
        return outcome.text, []
    text, rows = format_paragraphs(outcome.paragraphs, documents, regions, outcome.notes)
    return (f"{outcome.header}\n{text}" if outcome.header else text), rows
