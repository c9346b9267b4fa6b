"""Which tool the offline policy calls next: DeepRead's locate-then-read, without an LLM.

From the turn as data (:class:`~deepread.extractive.turn.Turn`), the sections the TOC
lists and what reading each would show (:class:`~deepread.nodes.read_plan.Sections`):

0. in a library (``find_documents`` on offer), find the documents the question names
   first and search only those; when it names something no document holds at all,
   answer so; when it names none, search them all;
1. read first what the question turns to first, as its kind of document says (the
   profiles' ``first_reads``, :mod:`deepread.profiles`) — for a financial quantity, the
   filing's statement it is computed from (a quick ratio → the balance sheet), with its
   subtree; before it, the disclosures (the MD&A discussion of a metric the question
   asks the causes of, the section disclosing a topic it asks about), with at most half
   the budget. Before any search this is done in one document only: the best-ranked
   of those ``find_documents`` found that has one, or the one the TOC shows;
2. ``retrieve`` what the question asks (:func:`~deepread.text.questions.asked`; a
   follow-up by its own words and in its conversation, the two rankings fused; without
   the forms it names once ``find_documents`` has found their documents; in the
   documents asked about, each quantity it names by its name alone too, the rankings
   fused — the profiles' ``quantities``);
3. read the hits' sections in rank order; then, when the budget left holds another
   results page as large as the first, ``retrieve`` again with ``exclude_shown`` and
   read those hits' sections; then the sections of their documents whose TOC titles are
   most similar to the question — each whole if it fits what is left of the
   observation budget, else the window around the hit that does, sized by the real
   tokens of its paragraphs (:mod:`deepread.nodes.read_plan`), so a table is read
   whole or not at all — until the budget is spent;
4. answer (:class:`~deepread.extractive.turn.Answer`).

Offered only ``retrieve`` (Search-o1 mode) it answers after step 2; offered only
``read_section`` (Read-only mode) it reads the TOC section whose title shares most
words with the question. Without read costs (no index) a read is sized from its
section's mean paragraph size, hits only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from deepread.extractive.turn import Answer, Call, Read, Result, TocEntry, Turn, by_title
from deepread.nodes.read_plan import FRAME, Sections, fit
from deepread.nodes.tools.observation import Observation, ShownParagraph
from deepread.nodes.tools.specs import FIND_DOCUMENTS, READ_SECTION, RETRIEVE, read_window
from deepread.profiles import PROFILES
from deepread.profiles.profile import Tree
from deepread.text.questions import asked
from deepread.text.terms import terms

Coords = set[tuple[int, int, int]]


#: The words that join a form to a question: "per the 10-K", "in its annual report".
_FORM_JOIN = re.compile(
    r"\b(?:per|in|from|according\s+to|as\s+reported\s+in)\s+(?:the\s+|its\s+|their\s+)?$",
    re.IGNORECASE,
)


def _without_forms(query: str) -> str:
    """``query`` without the forms it names and the words joining them ("... in 2022 per
    the 10-K?" → "... in 2022?"): once ``find_documents`` has chosen the documents of that
    form, searched for, "10-K" matches the certifications that quote the form's name,
    not the figure asked. A question left with fewer than two words of its own is about
    the form itself and keeps it."""
    spans = PROFILES.forms_named(query)
    if not spans:
        return query
    out, at = [], 0
    for start, end in spans:
        head = query[at:start]
        joined = _FORM_JOIN.search(head)
        out.append(head[: joined.start()] if joined else head)
        at = end
    cut = " ".join("".join([*out, query[at:]]).split()).replace(" ?", "?")
    # A question about the form itself ("What is in the Form 10-K?") keeps it.
    return cut if len(terms(cut)) >= 2 else query


@dataclass(frozen=True)
class Planner:
    """The next step of a turn (:meth:`next`), within its budgets."""

    offered: tuple[str, ...] = (RETRIEVE, READ_SECTION)
    toc: tuple[TocEntry, ...] = ()
    #: What reading each section shows; None: reads sized from the hits' section sizes.
    sections: Sections | None = None
    read_budget: int = 1200  # most tokens one read_section may ask for
    observation_budget: int = 1500  # tool-result tokens per question, retrieve included
    max_sections: int = 8  # reads per question (at most one per section)

    def next(self, turn: Turn) -> Call | Answer:
        """The tool call to make next, or the answer (see the module docstring)."""
        if turn.out_of_rounds:
            return Answer()
        scope: list[int] | None = None
        if FIND_DOCUMENTS in self.offered:
            found = next(iter(turn.found), None)
            if found is None and not turn.searched_documents:
                return Call(FIND_DOCUMENTS, {"query": asked(turn.question)})
            # A search that failed is not sent again: the whole library is searched.
            if found is not None and found.unheld:
                return Answer(tuple(found.unheld))
            scope = (found.documents or None) if found is not None else None
        own, question = turn.own, turn.question
        query: str | list[str] = (
            asked(question) if own == question else [asked(own), asked(question)]
        )
        if scope:  # the form it names chose the documents; its words match no paragraph
            query = (
                [_without_forms(q) for q in query]
                if isinstance(query, list)
                else (_without_forms(query))
            )
        if scope or FIND_DOCUMENTS not in self.offered:
            # In the documents asked about, the quantity the question names is searched
            # for by its name alone too: the line printing it ("Effective income tax
            # rate (0.6) %") shares none of the question's other words, which rank the
            # paragraphs naming the company or the year first.
            queries = [query] if isinstance(query, str) else query
            named = [q for q in PROFILES.quantities(question) if q not in queries]
            if named:
                query = [*queries, *named]
        search = {"query": query} | (
            {"doc_id": scope[0] if len(scope) == 1 else scope} if scope else {}
        )
        if RETRIEVE not in self.offered:  # Read-only: pick the section from the TOC
            if len(turn.results) == len(turn.found) and READ_SECTION in self.offered:
                target = self._section_from_toc(question, scope)
                if target:
                    return Call(READ_SECTION, target)
            return Answer()
        retrieved = turn.retrieved
        if READ_SECTION in self.offered and self.sections is not None:
            if not retrieved:  # a statement the question needs first, as a reader would
                target = self._next_read(turn, Observation(hits=[]), first=True, scope=scope)
                # The search still runs after the statements: its hits are what the
                # question's own words match, and the answer quotes from them.
                return Call(READ_SECTION, target) if target else Call(RETRIEVE, search)
            located = Observation(hits=[h for o in retrieved for h in o.hits or []])
            if located.hits:
                target = self._next_read(turn, located, titles=False)
                if target:
                    return Call(READ_SECTION, target)
                if self._next_page_fits(turn):
                    return Call(RETRIEVE, search | {"exclude_shown": True})
        elif not retrieved:
            return Call(RETRIEVE, search)
        else:
            located = retrieved[0]
        if located.hits and READ_SECTION in self.offered:
            target = self._next_read(turn, located)
            if target:
                return Call(READ_SECTION, target)
        return Answer()

    def budget_left(self, results: Sequence[Result]) -> int:
        """Observation tokens left of the budget after ``results`` (the sufficiency
        check sizes its extra read by it too). A question asked of a library reads as
        much of its documents as one scoped to them: the cards cost nothing."""
        return self.observation_budget - sum(r.tokens for r in results)

    def _next_page_fits(self, turn: Turn) -> bool:
        """Whether to ask the search for its next results page: once, after the first
        page's hits and their sections are read, when what is left of the budget holds
        another page as large as the first (what a page of this document costs)."""
        retrieved = turn.retrieved
        if len(retrieved) != 1 or not retrieved[0].hits:
            return False
        first = next(r for r in turn.results if r.observation.hits is not None)
        return self.budget_left(turn.results) >= first.tokens

    def _next_read(
        self,
        turn: Turn,
        located: Observation,
        first: bool = False,
        titles: bool = True,
        scope: list[int] | None = None,
    ) -> dict[str, int] | None:
        """The next read: what the question turns to first (read with their subtrees),
        then the hits' sections in rank order, then (``titles``) the TOC's sections of
        their documents by title, each sized to the budget left. ``first`` (before any
        search): only what it turns to first, of one document — the best-ranked of
        those ``find_documents`` found (``scope``) that has one, else the one the TOC
        shows (with several, which is meant is not known before a search)."""
        read = turn.reads
        if len(read) >= self.max_sections:
            return None
        left = self.budget_left(turn.results)
        if self.sections is None:
            return self._estimated_read(located, set(read), left)
        if left - FRAME < 20:
            return None
        shown_rows = [row for o in turn.observations for row in o.paragraphs]
        shown = {row.coord for row in shown_rows}
        hits = [h.coord for h in located.hits or []]
        if first:
            in_view = scope or list(dict.fromkeys(e.doc_id for e in self.toc))
            if not scope and len(in_view) != 1:
                return None
            for doc_id in in_view:
                trees = self._first_trees(turn.question, {doc_id})
                if any(trees):
                    return self._first_read(trees, read, left, shown, shown_rows)
            return None
        docs = {d for d, _, _ in hits}
        got = self._first_read(
            self._first_trees(turn.question, docs), read, left, shown, shown_rows
        )
        if got:
            return got
        # Then the hits' own sections, then the sections of their documents whose
        # titles are closest to the question, as a reader picks them from the TOC.
        listed = [e for e in self.toc if e.doc_id in docs and e.n_para] if titles else []
        by_titles = [(e.doc_id, e.sec_id, 0) for e in by_title(turn.question, listed)]
        for doc_id, sec_id, para in [*hits, *by_titles]:
            if (doc_id, sec_id) not in read:
                got = self._fit(doc_id, sec_id, para, left, shown)
                if got:
                    return got
        return None

    def _first_trees(self, question: str, docs: set[int]) -> tuple[list[Tree], list[Tree]]:
        """The disclosures and statements of ``docs`` the question turns to first
        (:meth:`~deepread.profiles.profile.Profiles.first_reads`), read or not."""
        sections = self.sections
        assert sections is not None
        outlines = {d: sections.outline(d) for d in docs}
        return PROFILES.first_reads(
            question, outlines, sections.subtree_tokens, sections.holds_table
        )

    def _first_read(
        self,
        trees: tuple[list[Tree], list[Tree]],
        read: Collection[Read],
        left: int,
        shown: Coords,
        shown_rows: list[ShownParagraph],
    ) -> dict[str, int] | None:
        """The next read of ``trees`` (:meth:`_first_trees`). The disclosures first,
        with at most half the budget: the search after them must still have room, its
        hits are what the question's own words match. Then the statements — each until
        a table of it has been shown: a statement is its table, the sections after it
        are notes or the next statement."""
        disclosures, statements = trees
        room = left - self.observation_budget // 2
        if room - FRAME >= 20:
            got = self._in_order(disclosures, read, room, shown)
            if got:
                return got
        unread = [
            tree
            for tree in statements
            if not any(r.kind == "table" and (r.doc_id, r.sec_id) in tree for r in shown_rows)
        ]
        return self._in_order(unread, read, left, shown)

    def _in_order(
        self, trees: list[Tree], read: Collection[Read], left: int, shown: Coords
    ) -> dict[str, int] | None:
        """The next read of ``trees`` (each the sections of one statement or disclosure,
        in reading order), sized to ``left``: a tree is read in order, and where a part
        of it does not fit, what follows that part is not read either."""
        for tree in trees:
            for doc_id, sec_id in tree:
                if (doc_id, sec_id) in read:
                    continue
                got = self._fit(doc_id, sec_id, 0, left, shown)
                if got is None:
                    break
                if got:
                    return got
        return None

    def _fit(
        self, doc_id: int, sec_id: int, para: int, left: int, shown: Coords
    ) -> dict[str, int] | None:
        """The read of the section sized to ``left`` around ``para``; ``{}`` when the
        section has nothing left to show, None when nothing unshown of it fits."""
        assert self.sections is not None
        cost = self.sections.read_cost(doc_id, sec_id)
        seen = {p for d, s, p in shown if (d, s) == (doc_id, sec_id)}
        if all(i in seen for i in range(len(cost.lines))):
            return {}
        got = fit(cost, para, left, seen)
        if got is None:
            return None
        return {"doc_id": doc_id, "sec_id": sec_id, "start": got[0], "end": got[1]}

    def _estimated_read(
        self, located: Observation, read: Collection[Read], left: int
    ) -> dict[str, int] | None:
        """The next hit's section sized from its mean paragraph size (no costs)."""
        # Each read carries its frame (~FRAME tokens); below ~100 tokens of room a read
        # would show next to nothing.
        left = min(self.read_budget, left - FRAME)
        if left < 100:
            return None
        for hit in located.hits or []:
            meta = (located.sections or {}).get(f"{hit.doc_id}:{hit.sec_id}", {})
            if (hit.doc_id, hit.sec_id) in read or int(meta.get("n_para", 0)) == 0:
                continue
            start, end = read_window(
                int(meta.get("n_para", 1)), int(meta.get("n_tok", 0)), hit.para_idx, left
            )
            return {"doc_id": hit.doc_id, "sec_id": hit.sec_id, "start": start, "end": end}
        return None

    def _section_from_toc(
        self, question: str, scope: list[int] | None = None
    ) -> dict[str, int] | None:
        """The TOC section whose title shares most words with the question (of the
        documents ``scope`` when given)."""
        wanted = terms(asked(question))
        best: tuple[int, dict[str, int]] | None = None
        for entry in self.toc:
            if entry.n_para == 0 or (scope and entry.doc_id not in scope):
                continue
            score = len(wanted & terms(entry.title))
            if best is None or score > best[0]:
                _, end = read_window(entry.n_para, entry.n_tok, 0, self.read_budget)
                best = (
                    score,
                    {"doc_id": entry.doc_id, "sec_id": entry.sec_id, "start": 0, "end": end},
                )
        return best[1] if best else None
