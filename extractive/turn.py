"""The offline policy's turn as data: what its planner decides from, and what it decides.

The planner (:mod:`deepread.extractive.planner`) reads no message text. It is given a
:class:`Turn` — the question, the turn's tool results as the tools' typed observations
with the tokens each cost, the sections read so far — and the sections the turn's
Directory Structure lists (:class:`TocEntry`, from the ``toc_sections`` the ``toc`` and
``compact`` nodes keep in the state, titles and sizes from the index). It answers with a
:class:`Call` (a tool call) or an :class:`Answer` (quote what was shown, or say that no
document holds what the question names), which the chat model
(:mod:`deepread.extractive.policy`) turns into its reply.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from deepread.corpus.vectors import local_vectors
from deepread.nodes.lru import Lru
from deepread.nodes.tools.observation import Observation
from deepread.nodes.tools.specs import FIND_DOCUMENTS
from deepread.text.questions import asked


class TocEntry(NamedTuple):
    """A section the Directory Structure shows (what a Read-only choice is made from)."""

    doc_id: int
    sec_id: int
    title: str
    n_para: int
    n_tok: int


def toc_entries(index: Any, keys: Iterable[Sequence[int]]) -> tuple[TocEntry, ...]:
    """The sections ``keys`` (``(doc_id, sec_id)`` of the TOC's lines, in its order) as
    entries, their titles and sizes from the index; a section removed since the TOC was
    rendered is left out."""
    out: list[TocEntry] = []
    for doc_id, sec_id in dict.fromkeys((int(d), int(s)) for d, s in keys):
        try:
            sec = index.document(doc_id).sections[sec_id]
        except (KeyError, IndexError):  # removed since the prompt was written
            continue
        out.append(TocEntry(doc_id, sec_id, sec.title, sec.n_para, sec.n_tok))
    return tuple(out)


#: TOCs' title vectors, kept for at most this many titles in all (~77 MB of vectors):
#: a server reading many collections of long documents must not keep every TOC's.
_TITLES_KEPT = 50_000
_title_memo: Lru[tuple[int, int], np.ndarray] = Lru(_TITLES_KEPT, weight=len)


def by_title(question: str, entries: Sequence[TocEntry]) -> list[TocEntry]:
    """``entries``, the title most similar to what the question asks first (the local
    MiniLM model; a TOC's title vectors are one batch, kept across the rounds and
    questions that show the same TOC, keyed by a hash of the titles)."""
    if not entries:
        return []
    titles = tuple(" ".join(e.title.split()) for e in entries)
    vectors = _title_memo.get_or_make(
        (len(titles), hash(titles)), lambda: local_vectors(list(titles))
    )
    query = local_vectors([asked(question)])[0]
    order = sorted(range(len(entries)), key=lambda i: -float(vectors[i] @ query))
    return [entries[i] for i in order]


@dataclass(frozen=True, slots=True)
class Result:
    """One tool result of the turn: the tool, what it carried, and the tokens its text
    costs the observation budget (``find_documents``' cards cost none: they are the
    library's TOC, which the budget does not count either)."""

    tool: str
    observation: Observation
    tokens: int


#: ``(doc_id, sec_id)`` of a read_section call, as the call gave them
Read = tuple[int | None, int | None]


@dataclass(frozen=True, slots=True)
class Turn:
    """The turn a call is made in: its question as asked (``own``) and in its
    conversation (``question``), its tool results so far in order, the sections its
    read_section calls asked for, and whether the rounds are used up."""

    question: str
    own: str
    results: tuple[Result, ...] = ()
    reads: tuple[Read, ...] = ()
    out_of_rounds: bool = False

    @property
    def observations(self) -> list[Observation]:
        return [r.observation for r in self.results]

    @property
    def found(self) -> list[Observation]:
        """The find_documents results."""
        return [o for o in self.observations if o.documents is not None]

    @property
    def searched_documents(self) -> bool:
        """Whether find_documents was called (its result a failure or not)."""
        return any(r.tool == FIND_DOCUMENTS for r in self.results)

    @property
    def retrieved(self) -> list[Observation]:
        """The retrieve results (those with hits, an empty page included)."""
        return [o for o in self.observations if o.hits is not None]


class Call(NamedTuple):
    """A tool call the planner makes."""

    tool: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Answer:
    """The planner is done: quote what was shown — or, ``unheld``, say that no document
    of the library holds what the question names."""

    unheld: tuple[str, ...] = field(default=())
