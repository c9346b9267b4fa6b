"""The offline answer (extractive/composer.py): which shown paragraphs it quotes, in
which order, and how each is quoted."""

from __future__ import annotations

from deepread.extractive.composer import Composer, quote, rank_paragraphs


def test_a_long_paragraph_is_quoted_from_the_sentence_that_holds_the_question_s_words():
    text = "Opening words about nothing much. " * 20 + "Walruses sleep on ice floes at night."
    shown = quote(text, 120, {"walrus", "sleep", "ice"} | {"walruses"})

    assert shown.startswith("… Walruses sleep on ice floes")


def test_a_long_paragraph_whose_opening_holds_the_words_is_quoted_from_its_start():
    text = "Walruses sleep on ice. " + "Other words follow here. " * 40
    assert quote(text, 100, {"walruses", "sleep"}).startswith("Walruses sleep on ice.")
    assert quote(text, 100).startswith("Walruses sleep on ice.")


def test_a_paragraph_sharing_nothing_with_the_question_is_not_ranked_to_fill_the_answer():
    texts = {
        (1, 1, 0): "A customer may ask for a refund within 30 days from delivery.",
        (1, 1, 1): "The refund is paid to the card used for the order.",
        (2, 1, 0): "Employee 3 of the payroll earns 43 thousand a year.",
    }

    ranked = [coord for coord, _ in rank_paragraphs("How do I get a refund?", texts)]

    assert ranked[0] == (1, 1, 0) and (1, 1, 1) in ranked
    assert (2, 1, 0) not in ranked


def test_an_answer_said_in_several_places_quotes_the_best_and_points_at_the_rest():
    """Five differences in five sections, each sharing the question's words: the answer
    quotes at most three paragraphs and points at the others, so none is lost and the
    answer stays short."""
    differences = {
        (1, s, 0): f"One difference between OrderedDict and dict: {what}."
        for s, what in enumerate(
            [
                "equality checks order",
                "popitem takes a last argument",
                "move_to_end repositions a key",
                "reordering is cheaper",
                "reversed worked before 3.8",
            ],
            start=1,
        )
    }
    aside = {(2, 1, 0): "A dict is a mapping type.", (2, 2, 0): "Dict views are dynamic."}

    answer = Composer().compose(
        "What differences remain between OrderedDict and dict?", differences | aside
    )

    assert all(f"[1:{s}:0]" in answer for s in range(1, 6)), answer
    assert len([ln for ln in answer.splitlines() if ln.startswith("> ")]) <= 3, answer
    assert answer.splitlines()[-1].startswith("More in [1:"), answer
    quoted = "\n".join(answer.splitlines()[:-1])
    assert "[2:1:0]" not in quoted and "[2:2:0]" not in quoted, answer


def test_the_search_s_best_hit_states_the_first_line():
    """The README's own question: the search ranked "If sort_keys is true…" first, and
    the answer opened with the command-line option's one-liner, closer in meaning."""
    texts = {
        (4, 12, 7): "Sort the output of dictionaries alphabetically by key.",
        (4, 3, 30): "If sort_keys is true (default: False), then the output of dictionaries "
        "will be sorted by key.",
        (4, 2, 20): "Keys in key/value pairs of JSON are always of the type str.",
    }
    question = "How do I make json.dumps sort the keys of dictionaries?"

    answer = Composer().compose(question, texts, top=(4, 3, 30))

    assert answer.splitlines()[0].startswith("If sort_keys is true"), answer
    assert answer.splitlines()[0].endswith("[4:3:30]"), answer


TAX_TABLE = (
    "<table><tr><td></td><td>2022</td><td>2021</td></tr>"
    "<tr><td>Income before taxes</td><td>$ 1,000</td><td>$ 900</td></tr>"
    "<tr><td>Effective tax rate</td><td>23%</td><td>20%</td></tr></table>"
)


def test_the_first_line_is_the_row_stating_the_quantity_with_its_column_heads_and_page():
    texts = {
        (1, 2, 0): "Cash flows from operations rose to $2,000 in 2022.",
        (1, 2, 1): TAX_TABLE,
    }

    answer = Composer().compose(
        "What was Corning's effective tax rate in 2022?", texts, pages={(1, 2, 1): 71}
    )

    assert answer.splitlines()[0] == "Effective tax rate: 2022 23%, 2021 20% [1:2:1] p. 71"


def test_a_row_of_the_year_asked_naming_nothing_asked_does_not_lead_over_the_row_that_does():
    """The search's best hit is the income statement; the rate's row is in a lower
    paragraph: a row of 2022 is no answer for the tax rate unless it names it."""
    income = (
        "<table><tr><td></td><td>2022</td><td>2021</td></tr>"
        "<tr><td>Net sales</td><td>$14,189</td><td>$14,082</td></tr>"
        "<tr><td>Basic (Note 17)</td><td>$1.56</td><td>$1.30</td></tr></table>"
    )
    texts = {(1, 1, 0): income, (1, 5, 0): "Results were mixed.", (1, 9, 3): TAX_TABLE}

    answer = Composer().compose("What was Corning's effective tax rate in 2022?", texts)

    assert answer.splitlines()[0].startswith("Effective tax rate: 2022 23%"), answer


def test_the_rate_printed_without_year_heads_leads_over_a_row_of_the_year_of_another_quantity():
    """Boeing's 10-K prints its rate as a line of text with no column heads; the best hit
    is the income statement, whose "Loss before income taxes" states 2021's figures of
    another quantity — the line naming the rate asked is the answer."""
    income = (
        "<table><tr><td>Years ended December 31,</td><td>2021</td><td>2020</td></tr>"
        "<tr><td>Other income, net</td><td>551</td><td>447</td></tr>"
        "<tr><td>Loss before income taxes</td><td>(5,033)</td><td>(14,476)</td></tr>"
        "<tr><td>Income tax benefit</td><td>743</td><td>2,535</td></tr></table>"
    )
    texts = {
        (45, 65, 1): income,
        (45, 154, 34): "Unrecognized tax benefits of $790 would affect the rate, if recognized.",
        (45, 60, 0): "Our tax position is described in Note 4.",
        (45, 62, 2): "Effective income tax rate 14.8 % 17.5 % 71.8 %",
    }

    answer = Composer().compose("What was Boeing's effective income tax rate in 2021?", texts)

    assert answer.splitlines()[0].startswith("Effective income tax rate 14.8 %"), answer


def test_a_row_on_the_first_line_is_proved_by_the_row_as_printed_under_its_heads():
    from deepread.nodes.sufficiency.support import _flat, _unquoted

    answer = Composer().compose("What was the effective tax rate in 2022?", {(1, 2, 1): TAX_TABLE})

    quoted = [ln for ln in answer.splitlines() if ln.startswith("> ")]
    assert quoted[0] == "> 2022 | 2021", answer
    assert quoted[-1] == "> Effective tax rate | 23% | 20% [1:2:1]", answer
    assert _unquoted(answer, [_flat(TAX_TABLE)]) is None  # every quote verbatim


def test_the_answer_opens_with_what_answers_not_a_preface():
    answer = Composer().compose(
        "How long do walruses dive?",
        {(1, 1, 0): "Walruses dive for up to 30 minutes. They rest on ice floes."},
    )

    assert answer.startswith("Walruses dive for up to 30 minutes."), answer
    assert "No LLM" not in answer


def test_a_long_paragraph_is_cut_to_the_sentence_that_answers():
    filler = "The herd gathers on the beach in the spring months. " * 12
    texts = {(1, 1, 0): filler + "Walruses dive for up to 30 minutes at a time. " + filler}

    answer = Composer().compose("How long can walruses dive?", texts)

    assert answer.splitlines()[0].startswith("Walruses dive for up to 30 minutes"), answer
    assert len(answer) < 700, answer


def test_code_is_quoted_with_its_lines():
    code = "import json\nprint(json.dumps(data, sort_keys=True))"
    texts = {
        (4, 1, 9): "Use sort_keys to sort the keys of dictionaries when dumping JSON.",
        (4, 1, 10): code,
    }

    answer = Composer().compose(
        "How do I sort the keys with json dumps?",
        texts,
        top=(4, 1, 9),
        kinds={(4, 1, 10): "code"},
    )

    assert "> import json\n> print(json.dumps(data, sort_keys=True)) [4:1:10]" in answer, answer


def test_a_lead_in_on_the_first_line_is_followed_by_the_items_it_announces():
    texts = {
        (6, 8, 14): "The following decorators implement test skipping:",
        (6, 8, 15): "@unittest.skip(reason)",
        (6, 8, 16): "Unconditionally skip the decorated test.",
        (6, 8, 17): "@unittest.skipIf(condition, reason)",
    }

    answer = Composer().compose("Which decorators implement test skipping?", texts)

    lines = answer.splitlines()
    assert lines[0].startswith("The following decorators implement test skipping: [6:8:14]")
    assert lines[1:4] == [
        "> @unittest.skip(reason) [6:8:15]",
        "> Unconditionally skip the decorated test. [6:8:16]",
        "> @unittest.skipIf(condition, reason) [6:8:17]",
    ], answer


def test_a_row_named_for_the_company_is_no_row_of_the_quantity_asked():
    """In Boeing's filing "Boeing Capital" names a segment, not capital expenditures:
    the title's words name no quantity, for the standing as for the words."""
    segments = (
        "<table><tr><td></td><td>2022</td><td>2021</td><td>2020</td></tr>"
        "<tr><td>Boeing Capital</td><td>$179</td><td>$200</td><td>$244</td></tr>"
        "<tr><td>Commercial Airplanes</td><td>$25,867</td><td>$19,493</td><td>$16,162</td></tr>"
        "</table>"
    )
    spent = (
        "Capital expenditures were $1,222 million, $980 million and $1,303 million in 2022, "
        "2021 and 2020."
    )
    texts = {(8, 1, 0): segments, (8, 2, 0): spent}

    answer = Composer(title=lambda doc: "The Boeing Company 10-K 2022").compose(
        "What were Boeing's capital expenditures in FY2022?", texts, top=(8, 1, 0)
    )

    assert answer.splitlines()[0].startswith("Capital expenditures were"), answer


def test_a_supporting_quote_of_one_paragraph_stays_within_quote_chars():
    texts = {
        (1, 1, 0): "Walruses dive for clams. Walruses dive for worms.",
        (1, 2, 0): "Other facts follow. Walruses dive for thirty minutes at most. Seals live "
        "elsewhere. Walruses dive for food at night. " + "And still more words. " * 10,
    }
    question = "What do walruses dive for?"

    def quoted(answer: str) -> list[str]:
        return [ln.removeprefix("> ") for ln in answer.splitlines() if ln.endswith(" [1:2:0]")]

    wide, narrow = (Composer(quote_chars=n).compose(question, texts) for n in (700, 45))

    assert len(quoted(wide)[0]) > 60, wide  # both sentences
    assert quoted(narrow) and all(len(ln) <= 45 + len(" … [1:2:0]") for ln in quoted(narrow))


SEGMENTS = (
    "(Dollars in millions)<table><tr><td>Years ended December 31,</td><td>2022</td>"
    "<td>2021</td></tr><tr><td>Commercial Airplanes</td><td>$25,867</td><td>$19,493</td></tr>"
    "<tr><td>Global Services</td><td>17,611</td><td>16,328</td></tr>"
    "<tr><td>Total</td><td>$66,608</td><td>$62,286</td></tr></table>"
)


def test_a_bare_total_row_is_named_by_its_section_and_answers_the_total_asked():
    """A segment table under "Revenues" ends in a row labelled "Total": that row is the
    revenue asked, and its line says what it totals."""
    composer = Composer(section=lambda doc_id, sec_id: "Revenues")

    answer = composer.compose("What was the company's revenue in 2022?", {(1, 65, 2): SEGMENTS})

    assert answer.splitlines()[0].startswith("Revenues — Total: 2022 $66,608"), answer


def test_a_bare_row_under_a_sentence_long_section_title_keeps_its_own_label():
    title = "We are subject to restrictions that limit our ability to pay dividends and more"
    composer = Composer(section=lambda doc_id, sec_id: title + " and our capital stock")

    answer = composer.compose("What was the company's revenue in 2022?", {(1, 65, 2): SEGMENTS})

    assert "We are subject" not in answer, answer


def test_the_company_s_own_names_bring_a_sentence_no_closer_to_the_question():
    """In its own filing every sentence may name the company: closeness in meaning is
    judged without the document's title words, or a list of the company's subsidiaries
    is "closest" to any question naming the company."""
    text = (
        "Amcor Finance (USA), Inc., Amcor European Holdings Pty Ltd, Amcor Rigid Packaging "
        "USA, LLC, Amcor Group GmbH and Amcor Flexibles North America, Inc. are subsidiaries "
        "of Amcor plc. We develop and produce responsible packaging for food, beverage, "
        "pharmaceutical, medical, home and personal-care, and other products, with 41,000 "
        "people at 220 sites in 40 countries."
    )

    answer = Composer(title=lambda doc: "Amcor plc 10-K 2023").compose(
        "What does Amcor do?", {(5, 6, 0): text}
    )

    assert answer.splitlines()[0].startswith("We develop and produce responsible packaging"), answer


def test_a_row_whose_label_holds_no_word_comes_after_a_statement_that_says_something():
    """ "(32,181): 2021 (221,608)" states figures of nothing said: in the search's best hit
    it still comes after a sentence of another paragraph."""
    table = (
        "<table><tr><td></td><td>2022</td><td>2021</td></tr>"
        "<tr><td></td><td>(32,181)</td><td>(221,608)</td></tr></table>"
    )
    texts = {(14, 31, 0): table, (14, 35, 2): "Las Vegas Strip Resorts reported the most EBITDAR."}

    answer = Composer().compose(
        "Which region had the highest EBITDAR in 2022?", texts, top=(14, 31, 0)
    )

    assert answer.splitlines()[0].startswith("Las Vegas Strip Resorts reported"), answer


def test_a_row_labelled_only_by_the_document_s_name_comes_after_what_says_something():
    """A stock-performance graph's "CVS Health Corporation: 2017 $100, …" states figures
    of nothing asked: a sentence about the legal proceedings asked about comes first."""
    graph = (
        "<table><tr><td></td><td>2021</td><td>2022</td></tr>"
        "<tr><td>CVS Health Corporation</td><td>$160</td><td>$148</td></tr></table>"
    )
    texts = {
        (10, 141, 0): graph,
        (10, 300, 4): "The Company is a defendant in opioid litigation filed in 2022.",
    }

    answer = Composer(title=lambda doc: "CVS Health Corporation 10-K 2022").compose(
        "Has CVS Health reported any legal battles in 2022?", texts, top=(10, 141, 0)
    )

    assert answer.splitlines()[0].startswith("The Company is a defendant"), answer


def test_a_paragraph_opening_with_its_section_s_heading_is_stated_without_it():
    texts = {
        (6, 103, 0): "INCOME TAXES\nThe effective tax rate was 21.6 percent and 24.6 "
        "percent for 2022 and 2021, respectively."
    }
    composer = Composer(section=lambda doc_id, sec_id: "INCOME TAXES")

    answer = composer.compose("What was the effective tax rate in 2022?", texts)

    assert answer.startswith("The effective tax rate was 21.6 percent"), answer


def test_a_ratio_no_row_prints_opens_with_a_row_it_is_computed_from():
    """A balance sheet prints no quick ratio: its first line is a row the ratio is
    computed from ("Total current assets"), not any row of the year asked."""
    balance = (
        "<table><tr><td></td><td>2023</td><td>2022</td></tr>"
        "<tr><td>Short-term debt</td><td>80</td><td>136</td></tr>"
        "<tr><td>Total current assets</td><td>5,308</td><td>5,853</td></tr>"
        "<tr><td>Other non-current assets</td><td>309</td><td>206</td></tr>"
        "<tr><td>Total current liabilities</td><td>4,423</td><td>5,163</td></tr></table>"
    )

    answer = Composer(title=lambda doc: "Amcor plc 10-K 2023").compose(
        "Has Amcor's quick ratio improved or declined between FY2023 and FY2022?",
        {(5, 151, 0): balance},
        top=(5, 151, 0),
    )

    assert answer.splitlines()[0].startswith("Total current assets: 2023 5,308"), answer


def test_the_line_naming_the_metric_leads_over_the_rows_it_is_computed_from():
    """Where the filing prints the rate, the rate is the answer: the income statement's
    "Loss before income taxes" (an input of the rate, in the search's best hit) gives way."""
    income = (
        "<table><tr><td></td><td>2022</td><td>2021</td><td>2020</td></tr>"
        "<tr><td>Total revenues</td><td>66,608</td><td>62,286</td><td>58,158</td></tr>"
        "<tr><td>Loss before income taxes</td><td>(5,022)</td><td>(5,033)</td>"
        "<td>(14,476)</td></tr>"
        "<tr><td>Income tax benefit/(expense)</td><td>31</td><td>743</td><td>2,535</td></tr>"
        "</table>"
    )
    texts = {(8, 122, 1): income, (8, 64, 2): "Effective income tax rate (0.6) % 14.8 % 17.5 %"}

    answer = Composer(title=lambda doc: "The Boeing Company 10-K 2022").compose(
        "How does Boeing's effective tax rate in FY2022 compare to FY2021?", texts, top=(8, 122, 1)
    )

    assert answer.splitlines()[0].startswith("Effective income tax rate (0.6) %"), answer
