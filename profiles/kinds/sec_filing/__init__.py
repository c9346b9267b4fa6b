"""An SEC filing — a 10-K, 10-Q or 8-K, and the earnings and press releases furnished
with one: what the core is told about it.

* its cover (``cover``): the Commission's cover pages, whose lines are not sections;
* its title (``names``): the registrant its form names, the form, the period it is of;
* its statements (``statements``): where a financial quantity lives (a quick ratio in
  the balance sheet) and where a filing discusses or discloses a topic, read first;
* its period words and rows (``periods``, ``rows``): an answer quotes first the
  paragraphs stating figures of the year a question names, then the tables with a row
  named for the quantity it asks, then those with a row of a line item the metric asked
  is computed from (a quick ratio's current assets, inventories, current liabilities);
* its forms (:data:`FORMS`): how a question names one ("10-Q", "the earnings release").

Each part acts only where a filing's own signs are: a cover only on a first page naming
the Commission and a form; a registrant only under its form's caption or in a
registrants table; a statement read first only when the question asks for a financial
quantity and a section is titled as the statement; a quote put first only for a
question naming a year (three figures and the year in the paragraph) or a financial
quantity (a table row named for it). A manual, a paper or a contract has none of them
and is read by the general rules alone (tests/profiles/test_general_documents.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from deepread.profiles.kinds.sec_filing import names
from deepread.profiles.kinds.sec_filing.cover import COVER
from deepread.profiles.kinds.sec_filing.periods import asks_quarter, states_figures_of, years_named
from deepread.profiles.kinds.sec_filing.rows import inputs_asked, states_input_of, states_row_of
from deepread.profiles.kinds.sec_filing.statements import (
    first_reads,
    metrics_asked,
    quantities_named,
    statements_asked,
)
from deepread.profiles.profile import Profile
from deepread.text.markup import plain
from deepread.text.terms import content_words


def quote_order(question: str) -> Callable[[str], tuple[bool, ...]]:
    """A paragraph's standing for ``question`` (as asked: no instruction sentences):
    whether it states no figures of the year the question names, whether it is no
    table with a row named for the financial quantity it asks, whether it is no table
    with a row of a line item the metric asked is computed from — False first."""
    years = years_named(question)
    quarter = asks_quarter(question)
    financial = bool(statements_asked(question))  # (not a non-GAAP measure)
    quantity = content_words(question) if financial else set()
    metrics = metrics_asked(question)
    inputs = inputs_asked(question) if financial else []
    return lambda text: (
        not states_figures_of(plain(text), years, quarter),
        not states_row_of(text, quantity, metrics),
        not states_input_of(text, inputs),
    )


#: The forms a question names a filing by: "10-K", "Form 10-Q", "8-K/A", "20-F", an
#: earnings or press release, an annual or quarterly report, a proxy statement.
FORMS = re.compile(
    r"(?<![\w-])(?:form\s+)?\d{1,2}-[a-z]{1,2}(?:/a)?(?![\w-])"
    r"|\b(?:earnings|press|news)\s+release\b|\b(?:annual|quarterly)\s+report\b"
    r"|\bproxy\s+statement\b",
    re.IGNORECASE,
)

PROFILE = Profile(
    name="sec filing",
    cover=COVER,
    name_caption=names.NAME_CAPTION,
    form_name=names.registrant_row,
    own_name=names.own_name,
    kind=names.kind,
    kind_only=names.kind_only,
    periods=names.PERIODS,
    first_reads=first_reads,
    quote_order=quote_order,
    # A row named for the quantity asked outweighs one stating figures of the year asked:
    # "Loss before income taxes: 2021 (5,033) …" states the year, not its tax rate.
    quote_weights=(1.0, 1.5, 1.0),
    # A row of a line item the metric asked is computed from stands by its label alone
    # ("Total current assets" shares no word of a quick ratio), and only where no row
    # names the metric: the filing's "Effective income tax rate (0.6) % 14.8 %" is the
    # answer, its "Loss before income taxes" row what it was computed from.
    label_flags=frozenset({2}),
    yields_to={2: 1},
    forms=FORMS,
    quantities=quantities_named,
)
