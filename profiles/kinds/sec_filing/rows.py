"""A table with a row stating the quantity a question asks for.

"What was Best Buy's total revenue in the quarter ended July 29, 2023?" — the offline
answer read the statement of earnings (its row ``Revenue | $9,583 | $10,329 …``) and quoted
first the revenue-mix tables, whose words are closer to the question's ("Revenue Mix",
"Total 100 %") but which state shares, not revenue. An analyst reads the row
named for the quantity. So when a question asks for a financial quantity
(:func:`~deepread.profiles.kinds.sec_filing.statements.statements_asked`), the offline answer quotes
first the tables holding a row whose label names it (:func:`states_row_of`): every word of
the label but "total", "net" and "other" is a word of the question, or all but one of a
label holding two words asked or more, when that one does not make it another measure
(:data:`OTHER_MEASURE`: "adjusted", "non-GAAP" …) — so "Total net revenue" names "total
revenue", "Effective income tax rate" an effective tax rate; "Total" alone names nothing,
"Loss before income taxes" no tax rate, "Adjusted net earnings per share (Diluted)" no
diluted earnings per share; "% of revenue" names a share — and a cell of the row is a
figure; a sentence stating a figure of a metric asked by its name ("The effective tax
rate was 21.6 percent …") counts as such a row. Where the question names a metric or
line item (:func:`~deepread.profiles.kinds.sec_filing.statements.metrics_asked`:
"effective income tax rate", "cost of goods sold"), a label named as one of that
metric's ways of naming it names it ("Cost of sales"), and a label holding words the
question says only inside the metric names it only if it misses at most one of the
metric's words: "Other income, net" and "Income tax benefit" hold only
words asked and name no effective income tax rate.

A filing rarely prints the ratio a question asks for (a quick ratio, a margin, a
turnover): then the rows it is computed from are the answer's proof — "Total current
assets", "Inventories", "Total current liabilities" — a label read as one of the
metric's inputs (:data:`INPUTS`, textbook definitions; :func:`states_input_of`).

Nothing here knows a benchmark's wording: a label is a row's first cell, a figure a
number as statements print them ("$9,583", "(7)", "$(491)", "23.2 %"; the pattern
:data:`~deepread.text.headed_rows.FIGURE`, as the answer's rows read them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Set

from deepread.profiles.kinds.sec_filing.statements import Metrics, Quantity
from deepread.text.headed_rows import FIGURE, QUALIFIERS
from deepread.text.markup import plain_table
from deepread.text.terms import content_words

#: Words that make a label another measure of the quantity, not the quantity with one
#: word more: "Adjusted net earnings per share" is no diluted earnings per share.
OTHER_MEASURE = content_words(
    "adjusted non-GAAP pro forma core organic comparable underlying operational constant"
)
#: A label naming a share of a quantity rather than the quantity.
_SHARE = re.compile(r"%|\bper ?cent(?:age)?\b", re.IGNORECASE)


#: A row printed as a line of text, no table around it: a label, then two figures or
#: more and nothing else ("Effective income tax rate (0.6) % 14.8 % 17.5 %").
_PRINTED_ROW = re.compile(
    r"^(?P<label>[A-Za-z][^\d|]*?)[\s.:$]*"
    r"(?P<figures>(?:[$(]{0,2}\s?[-−–]?\d[\d,]*(?:\.\d+)?\s?\)?\s?%?\)?\s*){2,})$"
)


def states_row_of(text: str, words: Set[str], metrics: Metrics | None = None) -> bool:
    """Whether ``text`` is a table with a row whose label names the quantity of
    ``words`` (the question's content words, :func:`~deepread.text.terms.content_words`;
    see the module docstring) and which holds a figure — or is such a row printed as a
    line of text (:data:`_PRINTED_ROW`). ``metrics``: the metrics the question names
    (:func:`~deepread.profiles.kinds.sec_filing.statements.metrics_asked`), which a
    label holding their words must name (see the module docstring)."""
    if not words:
        return False
    return _has_row(text, lambda label: _names(label, words, metrics)) or _says(text, metrics)


#: What follows a metric's name in a sentence stating its figure: "was 21.6 percent",
#: "for 2022 was $1.2 billion", "totaled $980 million", "increased to 23%".
_STATED = re.compile(
    r"\s+(?:[\w,]+\s+){0,3}?(?:was|were|is|totaled|amounted\s+to|"
    r"(?:increased|decreased|rose|fell|grew|declined)(?:\s+\S+){0,3}?\s+to)\s+"
    r"(?:approximately\s+|about\s+)?[$(]?\s?[-−–]?\d",
    re.IGNORECASE,
)


def _says(text: str, metrics: Metrics | None) -> bool:
    """Whether ``text`` (no table) is a sentence stating a figure of a metric asked by
    its name: "The effective tax rate was 21.6 percent and 24.6 percent for 2022 and
    2021" states the rate as a row printing it does."""
    if metrics is None or "<table" in text.lower():
        return False
    flat = " ".join(text.split())
    return any(
        _STATED.match(flat, m.end()) for q in metrics.quantities for m in q.name.finditer(flat)
    )


def _has_row(text: str, labelled: Callable[[str], bool]) -> bool:
    """Whether ``text`` is a table with a row whose label is ``labelled`` and which holds
    a figure, or such a row printed as a line of text (:data:`_PRINTED_ROW`)."""
    if "<table" not in text.lower():
        printed = _PRINTED_ROW.match(" ".join(text.split()))
        return printed is not None and labelled(printed["label"])
    for row in plain_table(text).splitlines():
        label, *cells = row.split(" | ")
        if labelled(label) and any(FIGURE.match(c.strip()) for c in cells):
            return True
    return False


def _names(label: str, words: Set[str], metrics: Metrics | None = None) -> bool:
    """Whether a row's ``label`` names the quantity of ``words`` (see
    :func:`states_row_of`)."""
    if _SHARE.search(label):
        return False  # "% of revenue", "as a percent of sales": a share, not the quantity
    # a header row ("2022 | 2021", its empty first cell dropped) names no quantity
    named = {w for w in content_words(label) - QUALIFIERS if not w.isdigit()}
    metrics = metrics if metrics is not None else Metrics()
    # named as the question's metric is named ("Cost of sales" for a cost of goods sold)
    if any(_named_the_same_way(label, named, q) for q in metrics.quantities):
        return True
    # every word asked, or all but one of a label holding two words asked or more:
    # "Effective income tax rate" names an effective tax rate, "Net cash provided by
    # operating activities" the cash from operating activities; "Loss before income
    # taxes" (one word asked, two not) names no tax rate
    asked = named & words
    extra = named - asked
    # and it is no part of a metric asked: a label holding words the question says only
    # in the metrics it names misses at most one word of one of them — "Other income,
    # net" (every word asked) and "Income tax benefit" name no effective income tax rate;
    # "Accounts payable", which a question defining days payable outstanding asks for
    # besides, may name its input
    touched = [
        q.words for q in metrics.quantities if q.words & named and not named <= metrics.outside
    ]
    return (
        bool(named)
        and (not extra or (len(asked) >= 2 and len(extra) == 1 and not extra & OTHER_MEASURE))
        and (not touched or any(len(words - named) <= 1 for words in touched))
    )


def _named_the_same_way(label: str, named: Set[str], quantity: Quantity) -> bool:
    """Whether ``label`` names ``quantity`` as one of the ways the question's metric is
    named ("Cost of sales" for a cost of goods sold), with at most one word more that
    makes it no other measure ("Diluted earnings per share"; not "Net income attributable
    to noncontrolling interest")."""
    m = quantity.name.search(label)
    if m is None:
        return False
    more = named - content_words(m.group(0))
    return len(more) <= 1 and not more & OTHER_MEASURE


# --- The line items a metric is computed from. --------------------------------------
#
# A filing rarely prints a quick ratio, a margin or a turnover: an analyst computes it
# from the statements' rows, by its textbook definition. Where no row names the metric
# asked, the rows of its inputs are what a first line can show (the profile's
# ``yields_to``). A label is an input when it reads as one of the patterns whole, bar a
# trailing colon or dollar sign: "Total current assets", "Inventories", "Net cash
# provided by operating activities", "Purchases of property, plant and equipment".
_REVENUE = r"(?:total )?(?:net )?(?:operating )?(?:revenues?|sales)(?: and other income)?"
_COGS = r"(?:total )?cost of (?:goods sold|sales|revenues?|products sold)"
_OPERATING = r"operating (?:income|profit|loss)|(?:income|loss|earnings) from operations"
_PRETAX = (
    r"(?:income|earnings|loss)(?: \(loss\))? (?:from continuing operations )?before"
    r"(?: provision for)? (?:income )?tax(?:es)?"
)
_TAX = r"(?:provision for|benefit from) income taxes|income tax (?:expense|provision|benefit)"
_NET_INCOME = r"net (?:income|earnings|loss)(?: \(loss\))?(?: attributable to [\w ,.&]+)?"
_CURRENT_ASSETS = r"total current assets"
_CURRENT_LIABILITIES = r"total current liabilities"
_INVENTORY = r"(?:merchandise )?inventor(?:y|ies)"
_CASH = r"cash and (?:cash )?equivalents"
_RECEIVABLES = r"(?:accounts |trade )?receivables?(?:, net)?|accounts receivable(?:, net)?"
_PAYABLES = r"accounts payable"
_ASSETS = r"total assets"
_EQUITY = r"total (?:shareholders|stockholders)['’]? equity|total equity"
_OPERATING_CASH = (
    r"net cash (?:provided by|from|generated by) (?:\(used in\) )?operating activities"
)
_CAPEX = (
    r"(?:purchases|acquisitions?|additions) (?:of|to) property(?:, plant and equipment)?"
    r"|capital expenditures?|payments for (?:acquisition of )?property"
)
_PPE = r"property(?:, plant)? and equipment(?:, net)?"
_INTEREST = r"interest expense(?:, net)?"
_DEPRECIATION = r"depreciation(?: and amortization)?"
#: Metric (named as :data:`~deepread.profiles.kinds.sec_filing.statements.METRICS` names
#: it) → the line items it is computed from.
INPUTS: dict[str, tuple[str, ...]] = {
    r"gross (?:profit )?margins?|gross profits?": (_REVENUE, _COGS, r"gross (?:profit|margin)"),
    r"operating (?:profit )?margins?": (_REVENUE, _OPERATING),
    r"(?:net|profit) margins?": (_REVENUE, _NET_INCOME),
    r"effective (?:income )?tax rate": (_PRETAX, _TAX),
    r"interest coverage": (_OPERATING, _INTEREST),
    r"ebitda?r?\b": (_OPERATING, _DEPRECIATION),
    r"quick ratio|acid[- ]test": (
        _CURRENT_ASSETS,
        _INVENTORY,
        _CASH,
        _RECEIVABLES,
        _CURRENT_LIABILITIES,
    ),
    r"current ratio|working capital": (_CURRENT_ASSETS, _CURRENT_LIABILITIES),
    r"cash ratio": (_CASH, _CURRENT_LIABILITIES),
    r"operating cash ?flow ratio": (_OPERATING_CASH, _CURRENT_LIABILITIES),
    r"free cash ?flows?|\bfcf\b|cash ?flow conversion": (_OPERATING_CASH, _CAPEX),
    r"capital[- ]intensive|capital intensity": (_ASSETS, _REVENUE, _CAPEX, _PPE),
    r"inventory turnover|days inventory|\bdio\b": (_COGS, _INVENTORY),
    r"receivables? turnover|days sales outstanding|\bdso\b": (_REVENUE, _RECEIVABLES),
    r"payables? turnover|days payables? outstanding|\bdpo\b": (_COGS, _PAYABLES),
    r"(?:fixed )?asset turnover": (_REVENUE, _ASSETS, _PPE),
    r"return on assets|\broa\b": (_NET_INCOME, _ASSETS),
    r"return on equity|\broe\b": (_NET_INCOME, _EQUITY),
    r"debt[- ]to[- ]equity": (r"(?:total |long-term )debt", _EQUITY),
}
_INPUTS = [
    (re.compile(rf"\b(?:{metric})", re.I), [re.compile(rf"^(?:{i})$", re.I) for i in inputs])
    for metric, inputs in INPUTS.items()
]


def inputs_asked(question: str) -> list[re.Pattern[str]]:
    """The line items the metrics ``question`` names are computed from (their labels'
    patterns); the caller asks only of a question asking for a GAAP quantity."""
    return [i for metric, inputs in _INPUTS if metric.search(question) for i in inputs]


def states_input_of(text: str, inputs: list[re.Pattern[str]]) -> bool:
    """Whether ``text`` is a table with a row labelled as one of ``inputs`` that holds a
    figure, or such a row printed as a line of text."""
    return bool(inputs) and _has_row(text, lambda label: _is_input(label, inputs))


def _is_input(label: str, inputs: list[re.Pattern[str]]) -> bool:
    """Whether ``label`` reads as one of ``inputs`` whole (a trailing colon, dollar sign
    or dot leader aside)."""
    bare = " ".join(re.sub(r"[:$.]+\s*$", "", label).split())
    return any(i.match(bare) for i in inputs)
