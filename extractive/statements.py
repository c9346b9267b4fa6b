"""The statements of what a turn was shown, ranked by how well each states what the
question asks: the offline answer's first line is the best, its proof the next best.

A person gives an answer five seconds: the line they read first must be the fact, and the
few lines after it what bears it out. The candidates are the statements of the
best-ranked paragraphs shown
(:func:`~deepread.extractive.composer.rank_paragraphs`): each sentence of a paragraph,
a short paragraph (a list item) whole, each row of a table as ``label: head value, …``
(:mod:`deepread.text.headed_rows`: the row with its column heads, so which year is which
is on the line; its quote is the row as printed, under the header row). A row whose
label alone names nothing (:data:`BARE`: "Total") is read and shown with its section's
title ("Revenues — Total: 2022 $66,608, …"). Code is no statement: the composer shows it
with its lines.

Each candidate is scored by

* the question's words it holds, each weighted by how rare it is among the candidates
  (a word every candidate holds tells none apart), but for the words of its document's
  own title (the company's name in its own filing is no sign of what the question
  asks; a fiscal year "FY2022" is the year 2022);
* its closeness in meaning to the question (the local MiniLM model, as the paragraphs
  are ranked), both without its document's title words: in its own filing a list of the
  company's subsidiaries is close to any question naming the company, and says nothing;
* the rank of its paragraph (the search's best hit, the paragraph closest in meaning);
* what the document's kind puts first (the profiles' ``standings``: in a filing, a
  statement of figures of the year asked, and worth more, a row named for the quantity
  asked; where no candidate names it, a row of a line item it is computed from),
  judged on the statement itself and on the question without its document's title
  words.

Nothing here knows a benchmark's wording; the weights were set on the development sets
(Python docs, FinanceBench dev) and checked on FinanceBench val (docs/benchmarks.md,
"Answers").
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from deepread.corpus.vectors import local_vectors
from deepread.nodes.citations import Coord
from deepread.profiles import PROFILES
from deepread.text.clip import clip
from deepread.text.headed_rows import QUALIFIERS, headed_rows
from deepread.text.markup import one_line
from deepread.text.questions import asked
from deepread.text.terms import stem, terms

#: The longest first line, in characters (a sentence longer than this is cut around
#: the question's words).
LINE_CHARS = 300
#: Paragraphs whose statements are candidates: the best-ranked this many.
PARAGRAPHS = 12
#: Candidates scored in meaning (MiniLM): the lexically best this many.
SCORED = 60
#: The weights of the score (see the module docstring).
MEANING = 0.6
STANDING = 1.0
YEAR = 0.2
RANK = 1.0
#: A statement shorter than this is no answer on its own ("Total", "2022").
SHORTEST = 12
#: The words of a row label that names nothing without its table's place: "Total" under
#: "Revenues" is the total revenue, on its own a total of anything.
BARE = QUALIFIERS | {"subtotal"}
#: A section title longer than this (a risk factor's whole sentence) names no row.
PLACE_CHARS = 80

#: Where a sentence ends: ".", "?" or "!" and a space before a capital, a digit or a quote.
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z0-9\"“(\[$])")
#: Where a long sentence may be cut into clauses.
_CLAUSE = re.compile(r"(?<=[;:,])\s+(?=\S)")


@dataclass(frozen=True)
class Statement:
    """One statement of a paragraph: its text as a first line shows it, and as a quote
    shows it — the document's own words (for a row, the row as printed, and the header
    row above it in ``head``)."""

    coord: Coord
    text: str
    quote: str
    rank: int  # the rank of its paragraph among those shown, 0 first
    position: int  # where it is in its paragraph, 0 first
    #: What the profiles judge it by (their ``quote_order`` flags: False first).
    markup: str = ""
    head: str = ""
    is_row: bool = False
    #: A row's label ("Plus: Net loss attributable …" whole): what, with its heads, a
    #: row is judged by.
    label: str = ""


def statements(
    coord: Coord, text: str, kind: str, rank: int, wanted: set[str], section: str = ""
) -> list[Statement]:
    """The candidate first lines of one paragraph (see the module docstring);
    ``section``: the title of the paragraph's section ("" when unknown), which names a
    row whose own label is bare (:data:`BARE`)."""
    if kind == "code":
        return []
    if "<table" in text.lower():
        place = one_line(section)
        if len(place) > PLACE_CHARS:
            place = ""
        out = []
        for i, row in enumerate(headed_rows(text)):
            line, label = row.line(), row.label
            if place and label and _stems(label) <= BARE:
                # "Revenues — Total: 2022 $66,608, …": the line says what it totals,
                # and the row is judged by what it totals
                line, label = f"{place} — {line}", f"{place} {label}"
                row = replace(row, label=label)
            out.append(
                Statement(
                    coord,
                    clip(line, LINE_CHARS),
                    clip(row.cells, LINE_CHARS),
                    rank,
                    i,
                    _row_markup(row),
                    row.head,
                    True,
                    label,
                )
            )
        return out
    head, _, rest = text.strip().partition("\n")
    if rest.strip() and section and one_line(head).lower() == one_line(section).lower():
        # the paragraph opens with its section's heading ("INCOME TAXES"): the statement
        # is what follows it, the heading is already in the citation's place
        text = rest
    flat = one_line(text)
    if len(flat) <= LINE_CHARS:
        whole = Statement(coord, flat, flat, rank, 0, flat)
        return [whole] if len(flat) >= SHORTEST else []
    out = []
    for i, sentence in enumerate(_SENTENCE_END.split(flat)):
        if len(sentence) < SHORTEST:
            continue
        shown = sentence if len(sentence) <= LINE_CHARS else _cut(sentence, wanted)
        out.append(Statement(coord, shown, shown, rank, i, sentence))
    return out


def _row_markup(row) -> str:
    """A one-row table of ``row`` with its heads, as the profiles read tables."""
    heads = "".join(f"<th>{html.escape(h)}</th>" for h, _ in row.values)
    cells = "".join(f"<td>{html.escape(v)}</td>" for _, v in row.values)
    return (
        f"<table><tr><th></th>{heads}</tr><tr><td>{html.escape(row.label)}</td>{cells}</tr></table>"
    )


def _cut(sentence: str, wanted: set[str]) -> str:
    """A sentence longer than :data:`LINE_CHARS` from its clause holding most of the
    ``wanted`` words (stemmed), cut to the line's length."""
    starts = [0, *(m.end() for m in _CLAUSE.finditer(sentence))]
    ends = [*starts[1:], len(sentence)]
    scores = [len(wanted & _stems(sentence[a:b])) for a, b in zip(starts, ends, strict=True)]
    best = max(range(len(starts)), key=lambda i: (scores[i], -i))
    start = starts[best] if ends[best] > LINE_CHARS else 0
    return ("… " if start else "") + clip(sentence[start:], LINE_CHARS - (2 if start else 0))


def _stems(text: str) -> set[str]:
    """The stemmed content words of ``text``, a fiscal year ("FY2022", "fy22") as its
    year, and a final "e" dropped: the stem takes "es" from a plural ("revenues" →
    "revenu") and keeps the singular whole, and a question asking for revenue must meet
    a row or section of Revenues."""
    return {stem(_FISCAL.sub(_year, w)).removesuffix("e") for w in terms(text)}


def _unnamed(question: str, named: set[str]) -> str:
    """``question`` without its words that are all among ``named`` (stemmed: the
    words of the documents' titles)."""
    kept = [w for w in question.split() if not (_stems(w) and _stems(w) <= named)]
    return " ".join(kept)


#: A year.
_YEAR = re.compile(r"^(?:19|20)\d\d$")
#: A fiscal year as questions write it: "fy2022", "fy22".
_FISCAL = re.compile(r"^fy(\d{2}|\d{4})$")


def _year(match: re.Match[str]) -> str:
    digits = match.group(1)
    return digits if len(digits) == 4 else f"20{digits}"


def ranked_statements(
    question: str,
    ranked: Sequence[Coord],
    texts: Mapping[Coord, str],
    kinds: Mapping[Coord, str] | None = None,
    title: Callable[[int], str] = lambda doc_id: "",
    section: Callable[[int, int], str] = lambda doc_id, sec_id: "",
) -> list[tuple[Statement, float]]:
    """The statements of the best-ranked :data:`PARAGRAPHS` of ``ranked`` (coordinates
    of ``texts``, best first), each with its score for ``question``, best first — the
    :data:`SCORED` lexically best of them (see the module docstring); ``title``: a
    document's title, ``section`` a section's ("" when unknown)."""
    own = asked(question)
    wanted = _stems(own)
    docs = dict.fromkeys(coord[0] for coord in ranked[:PARAGRAPHS])
    named = {w for doc in docs for w in _stems(title(doc)) if not w.isdigit()}
    wanted -= named
    pool: list[Statement] = []
    seen: set[str] = set()
    for rank, coord in enumerate(dict.fromkeys(ranked)):
        if rank >= PARAGRAPHS:
            break
        kind = (kinds or {}).get(coord, "text")
        for s in statements(coord, texts[coord], kind, rank, wanted, section(*coord[:2])):
            if s.text not in seen:  # an HTML page and its PDF print say it twice
                seen.add(s.text)
                pool.append(s)
    if not pool:
        return []
    # a row is judged by its label and heads, not its figures
    words = [_stems(f"{s.label} {s.head}" if s.is_row else s.text) for s in pool]
    # a year asked picks a column or a sentence of that year; the other words pick
    # what is stated
    years = {w for w in wanted if _YEAR.match(w)}
    wanted -= years
    df = Counter(w for ws in words for w in ws & wanted)
    weight = {w: math.log(1 + len(pool) / df[w]) for w in df}
    total = sum(weight.values()) or 1.0
    # rare words weigh more, and each word asked counts too: a row sharing only a common
    # word ("tax") still beats one sharing none
    lexical = [
        (sum(weight.get(w, 0.0) for w in ws & wanted) / total + len(ws & wanted) / len(wanted)) / 2
        if wanted
        else 0.0
        for ws in words
    ]
    # the title's words name no quantity either: "Boeing Capital" is no row of
    # Boeing's capital expenditures
    # a row stands for what a kind puts first only when its label or heads name
    # something asked (every row of a statement of the year asked states a figure of
    # that year, and "Basic (Note 17)" is no answer to a tax rate), or by what its label
    # alone says (a metric's input: "Total current assets" for a quick ratio)
    bare = _unnamed(own, named)
    standing = PROFILES.standings(
        bare,
        [s.markup for s in pool],
        [bool(lex) or not s.is_row for s, lex in zip(pool, lexical, strict=True)],
    )
    scores = [
        lex + RANK / (1 + s.rank) + YEAR * bool(years & ws) + STANDING * stands
        for s, lex, ws, stands in zip(pool, lexical, words, standing, strict=True)
    ]
    best = sorted(range(len(pool)), key=lambda i: -scores[i])[:SCORED]
    vectors = local_vectors(
        [bare, *(_unnamed(pool[i].text, named) or "." for i in best)]
    )  # L2-normalised
    meaning = vectors[1:] @ vectors[0]
    total_scores = [scores[i] + MEANING * float(m) for i, m in zip(best, meaning, strict=True)]
    # a row whose label holds no word ("2022 (32,181), 2021 (221,608)"), or only the
    # document's own name (a stock-performance graph's "CVS Health Corporation: 2017
    # $100, …"), states figures of nothing said: it comes after every statement that
    # says what it states
    return sorted(
        ((pool[i], score) for i, score in zip(best, total_scores, strict=True)),
        key=lambda pair: (_unlabelled(pair[0], named), -pair[1]),
    )


def _unlabelled(statement: Statement, named: set[str]) -> bool:
    """Whether ``statement`` is a table row whose label holds no word but ``named``'s
    (stemmed: the words of the documents' titles)."""
    if not statement.is_row:
        return False
    return not any(ch.isalpha() for ch in statement.label) or _stems(statement.label) <= named
