"""The offline policy's answer: one line that answers, then its proof, from what the
turn was shown.

A person reads an answer's first line and perhaps two more. So the answer is:

1. **the first line**: the one sentence, list item or table row (with its column heads)
   of the best-ranked paragraphs that best states what was asked
   (:mod:`deepread.extractive.statements`), its citation and page;
2. **at most three paragraphs' supporting quotes**: the next best statements of the
   paragraphs ranked best (:func:`rank_paragraphs`: the first search's best hit, the
   paragraph closest to the question in meaning, those sharing most of its words), each
   paragraph cut to them — its sentences on one line (``…`` where it skips), a table's
   rows under its header row —, code with its lines, a lead-in with the items it
   announces;
3. **pointers** to the rest of what ranked ("More in [4:3:23] p. 12, …").

Quoted text is the documents' own, verbatim (the sufficiency check verifies it), each
quote on lines of its own with its citation-like markers escaped, so a document can
plant neither a quote nor a citation in the answer. What a kind of document puts first
goes first — in a filing, the paragraphs stating figures of the year the question names,
then the tables with a row named for the quantity it asks (the profiles'
``quote_order``, :mod:`deepread.profiles`). Quotes of several documents say which
document each comes from. The answer carries no preface: that no LLM wrote it is said
where the run is described (``ask``'s opening line, the message's label :data:`NOTICE`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from deepread.corpus.framing import escape, title_text
from deepread.corpus.vectors import local_vectors
from deepread.extractive.passages import ITEMS
from deepread.extractive.statements import Statement, ranked_statements
from deepread.nodes.tools.observation import Observation
from deepread.profiles import PROFILES
from deepread.text.clip import clip
from deepread.text.markup import one_line, plain
from deepread.text.questions import asked
from deepread.text.terms import terms

#: The label of the offline policy's answers (the answer message's metadata): no LLM
#: wrote them.
NOTICE = (
    "No LLM was used (extractive mode): the passages below are quoted verbatim from "
    "the documents as the best matches for the question."
)
#: What an answer says when the turn was shown nothing.
NOTHING = "The documents returned nothing for this question."
#: What a quoted list item shows of its paragraph, at most.
ITEM_CHARS = 160

#: A paragraph's coordinates, ``(doc_id, sec_id, para_idx)``.
Coord = tuple[int, int, int]


def _untitled(doc_id: int) -> str:
    return ""


def _unsectioned(doc_id: int, sec_id: int) -> str:
    return ""


def cite(coord: Coord, page: int | None = None) -> str:
    """A citation as the answer writes it: ``[d:s:p]``, then its page when known."""
    mark = f"[{coord[0]}:{coord[1]}:{coord[2]}]"
    return f"{mark} p. {page}" if page else mark


@dataclass(frozen=True)
class Composer:
    """The answer to a turn from what it was shown (see the module docstring)."""

    quotes: int = 3  # paragraphs the supporting quotes come from, at most
    #: The longest supporting quote of one paragraph, its heads included (at the
    #: defaults :attr:`support_chars` binds first).
    quote_chars: int = 700
    #: The supporting quotes' characters in all, and the least score of one, as a share
    #: of the first line's.
    support_chars: int = 450
    support_share: float = 0.5
    #: Statements one paragraph's quote shows, at most (a table's rows).
    per_paragraph: int = 3
    #: A code paragraph ranked among the first ``code_rank`` is quoted with its lines,
    #: at most ``shown_chars`` characters of them.
    code_rank: int = 2
    shown_chars: int = 320
    #: The answer's length past which a supporting quote is left to the pointers.
    most_chars: int = 1200
    #: Pointers to the rest of what ranked, at most.
    pointers: int = 4
    #: A document's title as the answer names it ("" when unknown; with its file where
    #: another document shares it), before its quotes when the answer quotes several.
    title: Callable[[int], str] = _untitled
    #: The title of section ``(doc_id, sec_id)`` ("" when unknown): what a table's bare
    #: row ("Total") is the total of, on its first line.
    section: Callable[[int, int], str] = _unsectioned

    def answer(self, question: str, shown: Sequence[Observation]) -> str:
        """The answer to ``question`` from the turn's observations ``shown``: every
        paragraph shown, in the order shown, the first search's best hit first."""
        texts: dict[Coord, str] = {}
        kinds: dict[Coord, str] = {}
        pages: dict[Coord, int | None] = {}
        top: Coord | None = None
        for seen in shown:
            if top is None and seen.hits:
                top = seen.hits[0].coord  # the first search's best match
            for row in seen.paragraphs:
                if row.coord not in texts:
                    texts[row.coord] = row.text
                    kinds[row.coord] = row.kind
                    pages[row.coord] = row.page
        if not texts:
            return NOTHING
        return self.compose(question, texts, top, kinds=kinds, pages=pages)

    def compose(
        self,
        question: str,
        texts: dict[Coord, str],
        top: Coord | None = None,
        *,
        kinds: Mapping[Coord, str] | None = None,
        pages: Mapping[Coord, int | None] | None = None,
    ) -> str:
        """The answer from ``texts`` (every paragraph shown this turn, in the order
        shown) for ``question``; ``top``: the first search's best hit; ``kinds`` and
        ``pages``: each paragraph's kind ("text", "table", "code" …) and page, where
        known."""
        kinds = kinds or {}
        pages = pages or {}
        wanted = terms(asked(question))
        shared = words_shared(wanted, texts)
        ranked = list(
            dict.fromkeys(coord for coord, _ in rank_paragraphs(question, texts, top, shared))
        )
        if not ranked:
            return NOTHING
        scored = ranked_statements(question, ranked, texts, kinds, self.title, self.section)
        groups = self._groups(scored, ranked, kinds)
        lead = scored[0][0] if scored else None
        docs = list(dict.fromkeys([*([lead.coord[0]] if lead else []), *(g[0][0] for g in groups)]))
        several = len(docs) > 1
        parts: list[str] = []
        shown: set[Coord] = set()
        previous = -1
        lead_coord = lead.coord if lead else None
        if lead is not None:
            whose = self._whose(lead.coord[0]) if several else ""
            parts.append(f"{escape(lead.text)} {cite(lead.coord, pages.get(lead.coord))}{whose}")
            shown.add(lead.coord)
            previous = lead.coord[0]
            if _announces(lead.quote, texts[lead.coord]):
                # a lead-in ("The following decorators …:") answers with what it announces
                items = _announced(lead.coord, texts, shown)
                parts += [_item_line(texts[c], c) for c in items]
                shown.update(items)
            parts.append("")
        for coord, picked in groups:
            if coord in shown and coord != lead_coord:
                continue  # quoted already as an item of a lead-in
            heading = []
            if coord[0] != previous:
                # Quotes of several documents: say which each comes from, never blend.
                title = title_text(self.title(coord[0]))
                heading = [f"From document {coord[0]}" + (f", {title}:" if title else ":")]
            lines = picked or _code_lines(texts[coord], self.shown_chars)
            items = _announced(coord, texts, shown) if _announces(lines[-1], texts[coord]) else []
            *body, last = (f"> {escape(line)}" for line in lines)
            group = [*heading, *body, f"{last} {cite(coord, pages.get(coord))}"]
            group += [_item_line(texts[c], c) for c in items]
            if coord != lead_coord and _size(parts) + _size(group) > self.most_chars:
                continue  # the answer stays readable: what is left is pointed at
            parts += [*group, ""]
            shown.update([coord, *items])
            previous = coord[0]
        rest = [c for c in ranked if c not in shown][: self.pointers]
        if rest:
            parts.append(f"More in {', '.join(cite(c, pages.get(c)) for c in rest)}.")
        return "\n".join(parts).rstrip()

    def _groups(
        self,
        scored: list[tuple[Statement, float]],
        ranked: list[Coord],
        kinds: Mapping[Coord, str],
    ) -> list[tuple[Coord, list[str]]]:
        """The supporting quotes: the statements after the first line, best first, while
        they stay within :attr:`support_chars` (one paragraph's within
        :attr:`quote_chars`) and score at least :attr:`support_share` of the first
        line's score, grouped by paragraph (at most :attr:`quotes` paragraphs), each
        paragraph's lines in its own order with ``…`` where it skips; a code paragraph
        among the best :attr:`code_rank` shown with its lines (an empty list: the
        composer shows its lines)."""
        picked: dict[Coord, list[Statement]] = {}
        size = 0
        sizes: dict[Coord, int] = {}  # each paragraph's quote so far
        if scored:
            floor = self.support_share * scored[0][1]
            first = scored[0][0]
            for statement, score in scored[1:]:
                if score < floor:
                    break
                coord = statement.coord
                if coord not in picked and len(picked) >= self.quotes:
                    continue
                cost = len(statement.quote) + (len(statement.head) if statement.head else 0)
                if size + cost > self.support_chars:
                    continue
                if sizes.get(coord, 0) + cost > self.quote_chars:
                    continue
                if statement.quote == first.quote and not statement.is_row:
                    continue  # the first line says it already
                if len(picked.get(coord, ())) >= self.per_paragraph:
                    continue  # a table's three best rows, not half of it
                picked.setdefault(coord, []).append(statement)
                size += cost
                sizes[coord] = sizes.get(coord, 0) + cost
            if first.is_row:
                # a row with its heads is no quote: its proof is the row as printed
                rows = [first, *picked.pop(first.coord, [])]
                picked = {first.coord: rows, **picked}
                while len(picked) > self.quotes:
                    picked.popitem()
        code = [c for c in ranked[: self.code_rank] if kinds.get(c) == "code" and c not in picked]
        if code and len(picked) >= self.quotes:
            picked.popitem()
        out: list[tuple[Coord, list[str]]] = [(c, _lines(st)) for c, st in picked.items()]
        if code:
            out.append((code[0], []))
        # one document's quotes together, documents in the order of their best quote
        order = {doc: i for i, doc in enumerate(dict.fromkeys(c[0] for c, _ in out))}
        return sorted(out, key=lambda group: order[group[0][0]])

    def _whose(self, doc: int) -> str:
        title = title_text(self.title(doc))
        return f" — document {doc}" + (f", {title}" if title else "")


def _lines(statements: list[Statement]) -> list[str]:
    """A paragraph's chosen statements as quote lines, in the paragraph's order: a
    table's under its header row, one row a line; sentences on one line, ``…`` between
    those that do not follow one another."""
    statements = sorted(statements, key=lambda st: st.position)
    if statements[0].is_row:
        heads = list(dict.fromkeys(st.head for st in statements if st.head))
        out = heads[:1]
        for i, st in enumerate(statements):
            if i and st.position != statements[i - 1].position + 1:
                out.append("…")
            out.append(st.quote)
        return out
    text = ""
    for i, st in enumerate(statements):
        gap = st.position > 0 if i == 0 else st.position != statements[i - 1].position + 1
        text += (" " if text else "") + ("… " if gap else "") + st.quote
    return [text]


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _announces(line: str, text: str) -> bool:
    """Whether a quoted ``line`` of a paragraph (its ``text``) is a lead-in: it ends the
    paragraph, with a colon."""
    flat = one_line(text)
    return line.endswith(":") and flat.endswith(":") and flat.endswith(line.lstrip("… "))


def _item_line(text: str, coord: Coord) -> str:
    """A quoted list item: its paragraph on one line, cut to :data:`ITEM_CHARS`."""
    return f"> {escape(clip(one_line(text), ITEM_CHARS))} {cite(coord)}"


def _announced(coord: Coord, texts: Mapping[Coord, str], shown: Collection[Coord]) -> list[Coord]:
    """The shown paragraphs a lead-in (:func:`_announces`) announces: those that follow it
    in its section, at most :data:`ITEMS`, until one is missing or quoted already."""
    d, s, p = coord
    out = []
    for following in range(p + 1, p + 1 + ITEMS):
        item = (d, s, following)
        if item not in texts or item in shown:
            break
        out.append(item)
    return out


def _code_lines(text: str, limit: int) -> list[str]:
    """A code paragraph's first lines within ``limit`` characters, as printed."""
    lines = [ln.rstrip() for ln in html.unescape(text).splitlines() if ln.strip()]
    return _within(lines, limit) or [clip(" ".join(text.split()), limit)]


def _within(lines: list[str], limit: int) -> list[str]:
    """The first of ``lines`` within ``limit`` characters (at least one, clipped)."""
    out: list[str] = []
    size = 0
    for line in lines:
        if out and size + len(line) > limit:
            out.append("…")
            break
        out.append(clip(line, limit))
        size += len(line)
    return out


def unheld_answer(names: Sequence[str]) -> str:
    """The answer to a question about something no document of the library holds."""
    return (
        f"No document of the library mentions {', '.join(names)}: the library cannot "
        "answer this question."
    )


def words_shared(wanted: set[str], texts: dict[Coord, str]) -> dict[Coord, int]:
    """How many of the question's words (``wanted``, its :func:`terms`) each of ``texts``
    holds."""
    return {coord: len(wanted & terms(text)) for coord, text in texts.items()}


def rank_paragraphs(
    question: str,
    texts: dict[Coord, str],
    top: Coord | None = None,
    shared: dict[Coord, int] | None = None,
) -> list[tuple[Coord, str]]:
    """The paragraphs of ``texts`` worth quoting for ``question``, best first: ``top``
    (the search's best hit for the question, when shown: it was ranked with more than
    its words, BM25 and the dense vector of the paragraph under its section's
    headings), the one closest in meaning (local MiniLM, as the sufficiency check
    measures support), then those sharing most of its words — a paraphrase of the
    question ("Class meets Mon/Wed" for "What days is the class held?") shares few of
    its words but is often the answer. Then what the profiles put first goes first
    (:meth:`~deepread.profiles.profile.Profiles.quote_order`: in a filing, the year's
    figures, then a row named for the quantity), each group in the order above (a
    stable sort). A paragraph sharing none of the question's words and standing for
    nothing a profile puts first is no quote unless it is the closest in meaning.
    ``shared``: :func:`words_shared` of the question's words, when the caller has it
    already."""
    own = asked(question)
    wanted = terms(own)
    order = PROFILES.quote_order(own)
    standing = {coord: order(text) for coord, text in texts.items()}  # False first
    if shared is None:
        shared = words_shared(wanted, texts)
    ranked = sorted(
        (kv for kv in texts.items() if shared[kv[0]] or not all(standing[kv[0]])),
        key=lambda kv: -shared[kv[0]],
    )
    ranked.insert(0, _closest(own, texts))
    if top in texts:
        ranked.insert(0, (top, texts[top]))
    return sorted(ranked, key=lambda kv: standing[kv[0]])


def quote(text: str, limit: int, wanted: Collection[str] = ()) -> str:
    """A paragraph as the answer quotes it: its plain text on one line (a line of its own
    cannot pose as another quote), cut to ``limit`` characters at a word, its citation-
    like markers escaped — a paragraph holding "[2:1:0]" cites nothing (corpus/framing).
    A paragraph longer than ``limit`` is quoted from the sentence sharing most of the
    ``wanted`` words (the question's) when that is not its first: the part that answers
    is what is shown, not the opening that happens to fit."""
    flat = " ".join(plain(text).split())
    if len(flat) <= limit:
        return escape(flat)
    start = _best_sentence(flat, wanted, limit)
    return escape(("… " if start else "") + clip(flat[start:], limit))


#: Where a sentence may start: after ". ", "? ", "! ", "; " or ": ".
_SENTENCE = re.compile(r"(?<=[.?!;:])\s+(?=\S)")


def _best_sentence(flat: str, wanted: Collection[str], limit: int) -> int:
    """Where in ``flat`` the quote starts: at the sentence holding most ``wanted`` words
    (the earliest of equals), unless the opening ``limit`` characters already show it
    whole, or no sentence holds any."""
    if not wanted:
        return 0
    wanted = set(wanted)
    starts = [0, *(m.end() for m in _SENTENCE.finditer(flat))]
    ends = [*starts[1:], len(flat)]
    scores = [len(wanted & terms(flat[a:b])) for a, b in zip(starts, ends, strict=True)]
    best = max(range(len(starts)), key=lambda i: (scores[i], -i))
    if scores[best] == 0 or ends[best] <= limit:
        return 0
    return starts[best]


def _closest(query: str, texts: dict[Coord, str]) -> tuple[Coord, str]:
    """The item of ``texts`` whose paragraph (markup removed) is most similar to
    ``query`` by the local MiniLM model."""
    items = list(texts.items())
    bare = [plain(text) or "." for _, text in items]
    vectors = local_vectors([query, *bare])  # L2-normalised
    return items[int(np.argmax(vectors[1:] @ vectors[0]))]
