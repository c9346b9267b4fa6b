"""Where financial quantities live: a reader's lexicon of the three primary financial
statements and of a filing's other standard sections, for the offline policy to locate
them by TOC title (:func:`first_reads`, the profile's ``first_reads``).

An analyst asked for a company's quick ratio does not search the filing for the words
"quick ratio" — a 10-K rarely prints them — but turns to the balance sheet, because the
ratio is computed from its current assets and current liabilities. An LLM reading a
TOC does the same. This module holds that knowledge as general finance-textbook facts:

* which statement(s) each common metric or line item is computed from
  (:data:`METRICS`): margins, EPS, revenue growth, effective tax rate → income
  statement; quick / current ratio, working capital, assets, liabilities, equity →
  balance sheet; capital expenditure, free cash flow, dividends paid, operating cash
  flow → statement of cash flows; turnover ratios and returns → income statement and
  balance sheet;
* how each statement is named in a question ("using the cash flow statement", "the
  statement of financial position") and titled in a filing ("Consolidated Statements
  of Operations", "Balance Sheets", "Statements of Cash Flows"): :data:`NAMES`,
  :data:`TITLES`.

Beyond the statements (:func:`disclosure_sections`): a question asking *why* a metric
moved is sent to the MD&A discussion of the line items the metric is made of
(:data:`DISCUSSED`), and a question about a topic every annual report has a section for
— the business description, legal proceedings, acquisitions, geographic information —
to that section (:data:`TOPICS`); only in a document that has a statement.

The statements part acts only when the question asks for a financial quantity (a
metric or line item in :data:`METRICS`, or a statement named outright) *and* the TOC
has a section titled as that statement; a syllabus, a manual or an earnings release
without statement headings gets ``[]`` and the policy runs as without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from deepread.profiles.profile import Tree
from deepread.records.documents import Section
from deepread.records.outline import subtree
from deepread.text.headed_rows import QUALIFIERS
from deepread.text.questions import asked
from deepread.text.terms import content_words

INCOME, BALANCE, CASH_FLOW = "income statement", "balance sheet", "cash flow statement"

#: How a question names a statement outright (case-insensitive).
NAMES: dict[str, re.Pattern[str]] = {
    INCOME: re.compile(
        r"\bincome statements?\b|\bstatements? of (?:consolidated )?"
        r"(?:income|operations|earnings|profit and loss)\b|\bp&l\b|"
        r"\bprofit and loss (?:statement|account)\b",
        re.I,
    ),
    BALANCE: re.compile(
        r"\bbalance sheets?\b|\bstatements? of (?:consolidated )?"
        r"financial (?:position|condition)\b",
        re.I,
    ),
    CASH_FLOW: re.compile(
        r"\bcash ?flows? statements?\b|\bstatements? of (?:consolidated )?"
        r"cash ?flows?\b",
        re.I,
    ),
}

#: A section title that is the statement itself (case-insensitive). Notes about a
#: statement ("Notes to the Consolidated Statements of Income"), a mention of one in
#: another title, off-balance-sheet arrangements and the comprehensive-income statement
#: (no revenue or costs) are not it: :data:`_NOT_THE_STATEMENT`.
TITLES: dict[str, re.Pattern[str]] = {
    INCOME: re.compile(
        r"\bstatements? of (?:consolidated )?(?:income|operations|earnings"
        r"|profit (?:and|or) loss)\b|\bincome statements?\b",
        re.I,
    ),
    BALANCE: re.compile(
        r"\bbalance sheets?\b|\bstatements? of (?:consolidated )?financial "
        r"(?:position|condition)\b",
        re.I,
    ),
    CASH_FLOW: re.compile(
        r"\bstatements? of (?:consolidated )?cash ?flows?\b|"
        r"\bcash ?flows? statements?\b",
        re.I,
    ),
}
_NOT_THE_STATEMENT = re.compile(
    r"\bnotes? to\b|\bindex\b|\bschedule\b|\bcomprehensive\b|\boff[- ]balance\b|"
    # A mention inside another title: "… on the Consolidated Balance Sheets",
    # "Line item in the Balance Sheet", "Notes to the Statements of Income".
    r"\b(?:on|in|to|from|within)\s+(?:the\s+)?(?:condensed\s+)?(?:consolidated\s+)?"
    r"(?:balance|statements?)\b",
    re.I,
)

_IS, _BS, _CF = (INCOME,), (BALANCE,), (CASH_FLOW,)
#: Metric or line item → the statements it is computed from, the one holding most of
#: its inputs first (textbook definitions; a ratio of two statements names both).
METRICS: dict[str, tuple[str, ...]] = {
    # Profitability and growth: the income statement.
    r"gross (?:profit )?margins?|gross profits?": _IS,
    r"operating (?:profit )?margins?|operating income|operating profits?": _IS,
    r"(?:net|profit) margins?|net (?:income|earnings|loss)": _IS,
    r"ebit(?:da)?r?\b": _IS,
    r"earnings per share|\beps\b": _IS,
    # The company's top line (a region's or a segment's sales are in the segment note
    # or the MD&A, not the statement: "sales growth" alone is not here).
    r"revenue growth|total (?:revenues?|sales)|net sales|net revenues?": _IS,
    r"cost of (?:goods sold|sales|revenues?)|\bcogs\b": _IS,
    r"effective (?:income )?tax rate|income tax expense|provision for income taxes": _IS,
    r"interest coverage|interest expense": _IS,
    r"(?:selling|sg&a|r&d|research and development)[a-z ,]* expenses?": _IS,
    # Liquidity, solvency and capital structure: the balance sheet.
    r"quick ratio|acid[- ]test|current ratio|cash ratio|working capital": _BS,
    r"debt[- ]to[- ](?:equity|assets|capital)|leverage ratio|book value": _BS,
    r"total (?:assets|liabilities|equity|debt)|largest (?:liability|asset)": _BS,
    r"(?:shareholders|stockholders)['’]? equity|current (?:assets|liabilities)": _BS,
    # Cash generation and its uses: the statement of cash flows.
    r"free cash ?flows?|\bfcf\b|cash ?flows? from operati\w+|operating cash ?flows?": _CF,
    r"cash (?:provided|generated) by operati\w+|cash from operations": _CF,
    r"capital expenditures?|\bcapex\b": _CF,
    # Capital intensity: total (or fixed) assets per dollar of revenue; capex as well.
    r"capital[- ]intensive|capital intensity": (BALANCE, INCOME, CASH_FLOW),
    r"dividends paid|(?:share|stock) (?:repurchases?|buybacks?)": _CF,
    # Ratios across statements.
    r"operating cash ?flow ratio": (CASH_FLOW, BALANCE),
    r"(?:inventory|receivables?|payables?|asset) turnover|days (?:sales|inventory|"
    r"payables?) outstanding|\bdso\b|\bdpo\b|\bdio\b": (BALANCE, INCOME),
    r"return on (?:assets|equity|invested capital)|\broa\b|\broe\b|\broic\b": (INCOME, BALANCE),
}
#: A company's own "adjusted" / non-GAAP measures are defined and reconciled in its
#: MD&A or earnings release, not in the GAAP statements: a question about one is not
#: sent to a statement.
_NON_GAAP = re.compile(r"\b(?:adjusted|non[- ]?gaap|pro[- ]forma|organic|underlying)\b", re.I)
_METRICS = [(re.compile(rf"\b(?:{pattern})", re.I), where) for pattern, where in METRICS.items()]


def statements_asked(question: str) -> list[str]:
    """The statements the question's financial quantities live in, most needed first:
    those it names outright, then those its metrics are computed from; ``[]`` when it
    asks for no financial quantity, or asks about a non-GAAP measure."""
    if _NON_GAAP.search(question):
        return []
    found: list[tuple[int, int, str]] = []  # (named first, position, statement)
    for statement, pattern in NAMES.items():
        for m in pattern.finditer(question):
            found.append((0, m.start(), statement))
    for pattern, where in _METRICS:
        for m in pattern.finditer(question):
            found += [(1, m.start() + rank, statement) for rank, statement in enumerate(where)]
    out: list[str] = []
    for _, _, statement in sorted(found):
        if statement not in out:
            out.append(statement)
    return out


def _branches(pattern: str) -> list[str]:
    """The alternatives of ``pattern`` at its top level ("a|b(?:c|d)" → "a", "b(?:c|d)")."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(pattern):
        if ch in "([" and (i == 0 or pattern[i - 1] != "\\"):
            depth += 1
        elif ch in ")]" and pattern[i - 1] != "\\":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    return [*out, pattern[start:]]


#: Each metric's names, one pattern per way of naming it: "cost of sales" and "cost of
#: goods sold" are one name, "provision for income taxes" another than "effective tax rate".
_NAMES_OF = [
    re.compile(rf"\b(?:{branch})", re.I) for pattern in METRICS for branch in _branches(pattern)
]


@dataclass(frozen=True)
class Quantity:
    """A metric a question names: the pattern of that way of naming it, and its words
    but "total", "net" and "other"."""

    name: re.Pattern[str]
    words: frozenset[str]


@dataclass(frozen=True)
class Metrics:
    """The metrics and line items a question names, and its words outside them."""

    quantities: tuple[Quantity, ...] = ()
    #: The question's content words outside the metrics' names ("average accounts
    #: payable" in a question defining days payable outstanding).
    outside: frozenset[str] = frozenset()


def metrics_asked(question: str) -> Metrics:
    """Each financial quantity the question names as a metric or line item ("effective
    income tax rate"), and its words outside them; no quantities when it names none (a
    statement named outright, a non-GAAP measure, no quantity)."""
    if _NON_GAAP.search(question):
        return Metrics()
    found = [(name, m) for name in _NAMES_OF for m in name.finditer(question)]
    rest = question
    for _, m in found:
        rest = rest.replace(m.group(0), " ")
    return Metrics(
        tuple(
            Quantity(name, frozenset(content_words(m.group(0)) - QUALIFIERS)) for name, m in found
        ),
        frozenset(content_words(rest)),
    )


def quantities_named(question: str) -> list[str]:
    """The financial quantities ``question`` names, as it writes them ("effective tax
    rate", "capital expenditures"), in its order, each once; ``[]`` for a non-GAAP
    measure or none."""
    quantities = metrics_asked(question).quantities
    found = sorted(m.span() for q in quantities for m in q.name.finditer(question))
    out: list[str] = []
    for start, end in found:
        name = " ".join(question[start:end].split()).lower()
        if name not in out:
            out.append(name)
    return out


def title_statement(title: str) -> str | None:
    """The statement a section title says it is, or None."""
    if _NOT_THE_STATEMENT.search(title):
        return None
    for statement, pattern in TITLES.items():
        if pattern.search(title):
            return statement
    return None


#: Sections after a statement's subtree read on to find its table, when the subtree holds
#: none (:func:`with_its_table`).
TABLE_SPILL = 2


def with_its_table(
    sections: Sequence[Section], tree: list[int], holds_table: Callable[[int], bool]
) -> list[int]:
    """A statement's sections to read — ``tree``, its section and its subtree in reading
    order — on to its table: where none of them holds a table, the sections right after
    the tree, up to :data:`TABLE_SPILL`, through the first that holds one. A PDF's
    statement whose first row label was taken for a heading of the statement's own level
    ("CONSOLIDATED BALANCE SHEETS", a date line, then "Assets" over the table) has its
    table beside it, not under it, and a read of the statement showed its caption alone.
    Never into a section of a higher level or another statement; ``tree`` unchanged when
    no table is found so."""
    if any(holds_table(s) for s in tree):
        return tree
    level = sections[tree[0]].level
    start = max(tree) + 1
    spill: list[int] = []
    for sec_id in range(start, min(start + TABLE_SPILL, len(sections))):
        sec = sections[sec_id]
        if sec.level < level or title_statement(sec.title) is not None:
            break
        spill.append(sec_id)
        if holds_table(sec_id):
            return tree + spill
    return tree


def statement_sections(
    question: str, outlines: Mapping[int, Sequence[Section]], weight: Callable[[int, int], int]
) -> list[tuple[int, int]]:
    """``(doc_id, sec_id)`` of the sections of ``outlines`` (each document's sections)
    that are the statements the question needs, in the order :func:`statements_asked`
    gives; of several sections titled as the same statement in a document (a statement
    and a summary of it, a statement of a guarantor group), the one whose subtree holds
    most tokens (``weight(doc_id, sec_id)``) — the primary statement is the fullest
    table. ``[]`` when the question asks for no financial quantity or no section is
    titled as a statement."""
    wanted = statements_asked(question)
    if not wanted:
        return []
    best: dict[tuple[int, str], tuple[int, int, int]] = {}
    for doc_id, sections in outlines.items():
        for sec in sections:
            if sec.parent is None:
                # The root: its title is the document's (in a library, its identifying
                # title, which may be a statement's heading), and its subtree the
                # whole document — never a statement of it.
                continue
            statement = title_statement(sec.title)
            if statement is None or statement not in wanted:
                continue
            key, here = (doc_id, statement), (doc_id, sec.sec_id, weight(doc_id, sec.sec_id))
            if here[2] > 0 and (key not in best or here[2] > best[key][2]):
                best[key] = here
    docs = sorted({d for d, _ in best})
    return [best[(d, s)][:2] for s in wanted for d in docs if (d, s) in best]


# --- Where a filing discusses or discloses a topic, beyond the statements. ----------
#
# A statement gives a metric's figures, not their causes: "what drove the gross margin
# change" is answered by management's discussion of the line items the margin is made
# of (Item 7, MD&A: "Cost of sales / gross margin", "Cost of products sold …"). And
# some topics have a section every annual report must give them (Regulation S-K and
# GAAP): the description of the business (S-K Item 101), legal proceedings (S-K Item
# 103, the contingencies note), business combinations (ASC 805, the acquisitions
# note), geographic information (ASC 280, the segment note). An analyst turns to
# those sections as to a statement.

#: A question asking what caused a figure, not the figure (after :func:`asked` has
#: dropped instruction sentences such as "… then state that and explain why").
_WHY = re.compile(
    r"\bwhy\b|\bwhat (?:drove|drives|driven|caused|causes|explains?|led to|contributed)\b"
    r"|\b(?:drivers?|reasons?|causes?|factors?) (?:of|for|behind)\b|\bdriven by\b"
    r"|\bexplain\b|\battributable\b",
    re.I,
)
#: A management's discussion and analysis section (the narrative about the figures).
_MDA = re.compile(r"\bmanagement['’]?s discussion\b|\bmd&a\b", re.I)
#: Metric → the titles of the MD&A subsections that discuss it or the line items it is
#: made of (a margin is discussed as its costs: "Cost of sales / gross margin").
_COSTS = r"cost of (?:sales|goods sold|products sold|revenues?)"
DISCUSSED: dict[str, str] = {
    r"gross (?:profit )?margins?|gross profits?": rf"gross (?:margin|profit)|{_COSTS}",
    r"operating (?:profit )?margins?|operating income|operating profits?": (
        rf"operating (?:income|margin|profit|expenses?)|gross (?:margin|profit)|{_COSTS}"
    ),
    r"(?:net|profit) margins?|net (?:income|earnings|loss)": r"net (?:income|earnings)",
    r"revenues?|(?:net )?sales": r"\b(?:net )?(?:sales|revenues?)\b",
    r"effective tax rate|income tax expense|provision for income taxes|income taxes": (
        r"income tax|taxes on income|tax rate"
    ),
    r"cost of (?:goods sold|sales|revenues?)|\bcogs\b": _COSTS,
}
#: Topic a question asks about → the titles of the section that discloses it, most
#: specific first (a "Legal Proceedings" note before the "Commitments and
#: Contingencies" note around it).
TOPICS: dict[str, tuple[str, ...]] = {
    r"\blegal\b|\blitigation\b|\blawsuits?\b|\bsued\b": (
        r"\blegal proceedings\b|\blitigation\b",
        r"\bcontingenc(?:y|ies)\b",
    ),
    r"\bacquisitions?\b|\bacquired\b|\bbusiness combinations?\b|\bmergers?\b": (
        r"\bacquisitions?\b|\bbusiness combinations?\b",
    ),
    r"\bgeograph\w*|\bregions?\b|\bregional\b|\bcountries\b|\binternational\b":
    # "Regional sales results", not a segment named "Regional Operations".
    (
        r"\bgeograph\w*|\b(?:regional|by region) (?:sales|revenues?|results|"
        r"information|data)\b|\bby (?:region|geography)\b",
    ),
    # What the company does, its industry and principal products and services: the
    # description of the business (S-K Item 101, "Item 1. Business"; not Item 1A).
    r"\bindustr(?:y|ies)\b|\b(?:line|nature|description) of (?:the |its )?business\b"
    r"|\bbusiness model\b|\b(?:principal|major|main) products\b|\bproducts and services\b": (
        r"^\W*item\s*1\b\W*business\b",
    ),
}
_DISCUSSED = [(re.compile(rf"\b(?:{q})", re.I), re.compile(t, re.I)) for q, t in DISCUSSED.items()]
_TOPICS = [
    (re.compile(q, re.I), tuple(re.compile(t, re.I) for t in titles))
    for q, titles in TOPICS.items()
]


def why_asked(question: str) -> bool:
    """Whether the question asks what caused or explains a figure (``question`` as
    :func:`~deepread.text.questions.asked` gives it: no instruction sentences)."""
    return bool(_WHY.search(question))


def discussion_sections(question: str, sections: Sequence[Section]) -> list[int]:
    """For a question asking why a metric moved, the sections of the document's MD&A
    whose titles name the metric or the line items it is made of, in reading order
    (the deepest such: "Cost of sales" rather than "Results of operations" above it);
    ``[]`` for any other question or a document without an MD&A."""
    if not why_asked(question):
        return []
    titles = [t for q, t in _DISCUSSED if q.search(question)]
    if not titles:
        return []
    within = _descendants(sections, [s.sec_id for s in sections if _MDA.search(s.title)])
    hits = {s for s in within if any(t.search(sections[s].title) for t in titles)}
    return sorted(_deepest(sections, hits))


def topic_sections(
    question: str, sections: Sequence[Section], weight: Callable[[int], int]
) -> list[int]:
    """For each disclosure topic the question asks about (legal proceedings,
    acquisitions, geographic information, the industry it is in), the section
    disclosing it: of the sections whose titles name it by its most specific wording,
    the deepest (the "Acquisitions" part of "Acquisitions and Divestitures"), the one
    holding most tokens (``weight(sec_id)``: the note, not the Item 3 pointer to it)."""
    out: list[int] = []
    for asks, wordings in _TOPICS:
        if not asks.search(question):
            continue
        for wording in wordings:
            named = {
                s.sec_id
                for s in sections
                if s.sec_id and wording.search(s.title) and title_statement(s.title) is None
            }
            leaves = [s for s in _deepest(sections, named) if weight(s) > 0]
            if leaves:
                best = max(leaves, key=lambda s: (weight(s), -s))
                if best not in out:
                    out.append(best)
                break
    return out


def _descendants(sections: Sequence[Section], roots: list[int]) -> set[int]:
    """``roots`` and every section under them."""
    return {s for root in roots for s in subtree(sections, root)}


def _deepest(sections: Sequence[Section], chosen: set[int]) -> set[int]:
    """The members of ``chosen`` none of whose descendants is also chosen."""
    return {s for s in chosen if not (_descendants(sections, [s]) - {s}) & chosen}


def disclosure_sections(
    question: str, outlines: Mapping[int, Sequence[Section]], weight: Callable[[int, int], int]
) -> list[tuple[int, int]]:
    """``(doc_id, sec_id)`` of the sections a question about a financial filing turns
    to besides the statements: the MD&A discussion of the metric it asks the causes
    of (:func:`discussion_sections`), then the section disclosing a topic it asks
    about (:func:`topic_sections`). Only in a document with a section titled as a
    primary statement — an annual or quarterly report, whose Items and notes these
    are; a syllabus or a manual gets ``[]``."""
    out: list[tuple[int, int]] = []
    for doc_id, sections in sorted(outlines.items()):
        if not any(title_statement(s.title) for s in sections):
            continue
        found = [
            *discussion_sections(question, sections),
            *topic_sections(question, sections, partial(weight, doc_id)),
        ]
        out += [(doc_id, s) for s in dict.fromkeys(found)]
    return out


def first_reads(
    question: str,
    outlines: Mapping[int, Sequence[Section]],
    weight: Callable[[int, int], int],
    holds_table: Callable[[int, int], bool],
) -> tuple[list[Tree], list[Tree]]:
    """What a question about a filing turns to first in the documents ``outlines``
    holds (each document's whole outline, the deep headings a bounded TOC collapses
    included): the disclosures (:func:`disclosure_sections`), each with its subtree, and
    the statements it needs (:func:`statement_sections`), each with its subtree and on to
    its table when that sits beside it (:func:`with_its_table`). ``weight``: the tokens
    of a section's subtree; ``holds_table``: whether a section's own paragraphs hold a
    table. Both empty for any other question or document."""
    disclosures = [
        [(doc_id, s) for s in subtree(outlines[doc_id], sec_id)]
        for doc_id, sec_id in disclosure_sections(asked(question), outlines, weight)
    ]
    statements = [
        [
            (doc_id, s)
            for s in with_its_table(
                outlines[doc_id],
                subtree(outlines[doc_id], sec_id),
                partial(holds_table, doc_id),
            )
        ]
        for doc_id, sec_id in statement_sections(question, outlines, weight)
    ]
    return disclosures, statements
