"""What a kind of document may tell the general core, and the core's one door to it.

A :class:`Profile` is what is specific to one kind of document — an SEC filing, a
syllabus — in four parts, each optional:

* **what a cover says** (:class:`Cover`): the pages a form opens with, whose lines are
  its particulars and not sections, and the one line of it kept as a heading; the
  caption that says its value is the document's name (``name_caption``);
* **what a title is made of**: who the document is from, as its form's fields say
  (``form_name``) or as its kind names itself (``own_name``); its kind, as printed
  (``kind``) or as a word naming it (``kinds``), and a line that names a kind and
  nothing else (``kind_only``); the periods it is of (``periods``);
* **the statements and their rows**: the sections a question turns to first, read
  before the search (``first_reads``);
* **period words**: which paragraphs a question's answer quotes first, for what they
  state of the period or quantity it asks (``quote_order``);
* **forms**: the words a question names a form of its kind by ("10-Q", "earnings
  release"), which a follow-up may name anew ("and in the 10-Q?": ``forms``).

:class:`Profiles` is how the core calls them — the PDF cover (:mod:`deepread.corpus.
parsing.pdf.cover`), the titles (:mod:`deepread.corpus.library.titles`), the offline
policy's planner and composer (:mod:`deepread.extractive`): each call asks every
profile in turn, in the order :data:`deepread.profiles.PROFILES` lists them, and a kind
of document none speaks for gets the general rules alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field

from deepread.records.documents import Document, Section


@dataclass(frozen=True, slots=True)
class Front:
    """What a title is read from: the document, the lines of its front (its first page,
    as ingest keeps them), and whether a line names a kind of document and nothing else
    (as every profile and the general kind words say)."""

    doc: Document
    lines: Sequence[str]
    kind_only: Callable[[str], bool]


#: Reads a title's part from a document's front; None when it does not say.
Reader = Callable[[Front], str | None]


@dataclass(frozen=True, slots=True)
class Period:
    """A way a document states the period it is of: ``pattern`` found, ``read`` says it
    as the title does. ``stated``: a period given with what ends it ("fiscal year ended
    June 30, 2023", "date of report"), trusted before a period named alone ("Fall 2021",
    "fiscal 2023")."""

    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], str]
    stated: bool = False


@dataclass(frozen=True, slots=True)
class Cover:
    """How a kind of document's cover pages are found: ``find`` the cover among the
    first ``pages_read`` pages' texts (page → its lines, normalised, joined), given the
    pages holding a labelled heading (a Part or an Item, which a cover is not); the one
    line of a cover kept as a heading, the section holding the cover's lines
    (``heading``)."""

    pages_read: int
    find: Callable[[Mapping[int, str], Set[int]], set[int]]
    heading: Callable[[str], bool]


#: The sections of one statement or disclosure, ``(doc_id, sec_id)`` in reading order.
Tree = list[tuple[int, int]]
#: (question, each document's outline, a section's subtree tokens, whether a section
#: holds a table) → the disclosures and the statements the question turns to first.
FirstReads = Callable[
    [str, Mapping[int, Sequence[Section]], Callable[[int, int], int], Callable[[int, int], bool]],
    tuple[list[Tree], list[Tree]],
]


@dataclass(frozen=True)
class Profile:
    """What one kind of document tells the core (see the module docstring)."""

    name: str
    cover: Cover | None = None
    name_caption: re.Pattern[str] | None = None
    form_name: Reader | None = None
    own_name: Reader | None = None
    kind: Reader | None = None
    kinds: tuple[str, ...] = ()
    kind_only: Callable[[str], bool] | None = None
    periods: tuple[Period, ...] = ()
    first_reads: FirstReads | None = None
    #: The question → each paragraph's standing for it (a tuple of flags, False first:
    #: what the paragraph states that the question asks for).
    quote_order: Callable[[str], Callable[[str], tuple[bool, ...]]] | None = None
    #: What each of ``quote_order``'s flags is worth to a first line when it holds
    #: (False): 1.0 each where none is given.
    quote_weights: tuple[float, ...] = ()
    #: The flags judged on a table row's own label, which count for a row sharing none
    #: of the question's words (the others do not: every row of a statement of the year
    #: asked states a figure of that year, and "Basic (Note 17)" is no answer).
    label_flags: frozenset[int] = frozenset()
    #: Flag → the flag it gives way to: it counts only where no candidate of the first
    #: line holds that one (a metric's inputs stand only where no row names the metric).
    yields_to: Mapping[int, int] = field(default_factory=dict)
    #: The forms of this kind a question names, as written ("10-K", "earnings release").
    forms: re.Pattern[str] | None = None
    #: The question → the quantities it names as this kind prints them ("effective tax
    #: rate"): each is searched for by its name alone too.
    quantities: Callable[[str], list[str]] | None = None


class Profiles:
    """The profiles the core consults, in order: each question asked of every one of
    them, the first answer kept (or all of them joined, where they add up)."""

    def __init__(self, profiles: Sequence[Profile]) -> None:
        self.profiles = tuple(profiles)
        self._covers = [p.cover for p in self.profiles if p.cover is not None]
        self._captions = [p.name_caption for p in self.profiles if p.name_caption is not None]
        self.kinds = tuple(k for p in self.profiles for k in p.kinds)
        #: Every profile's periods: those stated with what ends them first.
        self.periods = tuple(
            sorted((x for p in self.profiles for x in p.periods), key=lambda x: not x.stated)
        )

    # -- what a cover says --------------------------------------------------------------

    @property
    def cover_pages_read(self) -> int:
        """The first pages any profile looks at for a cover."""
        return max((c.pages_read for c in self._covers), default=0)

    def cover_pages(self, texts: Mapping[int, str], labelled: Set[int]) -> set[int]:
        """The pages of the first cover a profile finds (empty when none has one)."""
        for cover in self._covers:
            found = cover.find(texts, labelled)
            if found:
                return found
        return set()

    def cover_heading(self, line: str) -> bool:
        """Whether ``line`` (normalised) is the one line of a cover kept as a heading."""
        return any(c.heading(line) for c in self._covers)

    def says_name(self, caption: str) -> bool:
        """Whether ``caption`` says its value is the document's name ("Exact name of
        registrant as specified in its charter")."""
        return any(c.search(caption) for c in self._captions)

    # -- what a title is made of --------------------------------------------------------

    def _first(self, part: str, front: Front) -> str | None:
        for profile in self.profiles:
            read: Reader | None = getattr(profile, part)
            found = read(front) if read is not None else None
            if found:
                return found
        return None

    def form_name(self, front: Front) -> str | None:
        """Who the document is, as its form's own fields say (beyond a captioned name)."""
        return self._first("form_name", front)

    def own_name(self, front: Front) -> str | None:
        """Who the document is, as its kind names itself where it prints no field."""
        return self._first("own_name", front)

    def kind(self, front: Front) -> str | None:
        """The document's kind, as its kind prints it."""
        return self._first("kind", front)

    def kind_only(self, line: str) -> bool:
        """Whether a profile reads ``line`` as naming a kind and nothing else."""
        return any(p.kind_only(line) for p in self.profiles if p.kind_only is not None)

    # -- the statements and their rows, period words ------------------------------------

    def first_reads(
        self,
        question: str,
        outlines: Mapping[int, Sequence[Section]],
        weight: Callable[[int, int], int],
        holds_table: Callable[[int, int], bool],
    ) -> tuple[list[Tree], list[Tree]]:
        """What ``question`` turns to first in the documents of ``outlines``: every
        profile's disclosures, then every profile's statements."""
        disclosures: list[Tree] = []
        statements: list[Tree] = []
        for profile in self.profiles:
            if profile.first_reads is not None:
                more, most = profile.first_reads(question, outlines, weight, holds_table)
                disclosures += more
                statements += most
        return disclosures, statements

    def quote_order(self, question: str) -> Callable[[str], tuple[bool, ...]]:
        """Each paragraph's standing for ``question``: every profile's flags in turn
        (empty without any)."""
        orders = [p.quote_order(question) for p in self.profiles if p.quote_order is not None]
        return lambda text: tuple(flag for order in orders for flag in order(text))

    def standings(self, question: str, texts: Sequence[str], whole: Sequence[bool]) -> list[float]:
        """What each of ``texts`` — the candidates of one first line — stands for
        ``question``: each profile's ``quote_order`` flags that hold (False), weighted by
        its ``quote_weights``; of a text not ``whole`` (a table row sharing none of the
        question's words) only its ``label_flags``; a flag of ``yields_to`` only where no
        candidate holds the flag it gives way to. 0 each without any profile's flags."""
        out = [0.0] * len(texts)
        for p in self.profiles:
            if p.quote_order is None:
                continue
            order = p.quote_order(question)
            flags = [order(text) for text in texts]
            held = {i for f in flags for i, flag in enumerate(f) if not flag}
            for k, (f, full) in enumerate(zip(flags, whole, strict=True)):
                out[k] += sum(
                    p.quote_weights[i] if i < len(p.quote_weights) else 1.0
                    for i, flag in enumerate(f)
                    if not flag and (full or i in p.label_flags) and p.yields_to.get(i) not in held
                )
        return out

    def quantities(self, question: str) -> list[str]:
        """The quantities ``question`` names, every profile's in turn, each once."""
        out: list[str] = []
        for p in self.profiles:
            if p.quantities is not None:
                out += [q for q in p.quantities(question) if q not in out]
        return out

    # -- forms ---------------------------------------------------------------------------

    def forms_named(self, text: str) -> list[tuple[int, int]]:
        """Where ``text`` names a form of a profile's kind ("10-Q", "the earnings
        release"): the spans of the first profile that finds any, in order."""
        for profile in self.profiles:
            if profile.forms is not None:
                spans = [m.span() for m in profile.forms.finditer(text)]
                if spans:
                    return spans
        return []
