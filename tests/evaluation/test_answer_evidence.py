"""What the answer shows (evaluation/answer_evidence.py): the gold evidence in the answer's
text and first citation, on the real shapes index — an answer quoting the gold paragraph
shows it, one quoting another does not, and one citing nothing shows nothing."""

from __future__ import annotations

from support.scripted import section_of

from deepread.evaluation.answer_evidence import answer_metrics
from deepread.evaluation.dataset import Evidence, Question
from deepread.evaluation.evidence import DocResolver

CHERRIES = "Charlie paragraph about cherries."


def question(shapes) -> Question:
    source = shapes.documents()[0].source
    return Question(
        id="q1",
        question="Which paragraph is about cherries?",
        answer="Charlie",
        evidence=(Evidence(doc=source.rsplit("/", 1)[-1], quote=CHERRIES),),
    )


def cite(doc: int, sec: int, para: int) -> dict[str, int]:
    return {"doc_id": doc, "sec_id": sec, "para_idx": para}


def test_an_answer_quoting_the_gold_paragraph_shows_it_first(shapes):
    d, s = section_of(shapes, "Five")
    answer = f"> {CHERRIES} [{d}:{s}:2]"

    got = answer_metrics(
        shapes, DocResolver(shapes.documents()), question(shapes), answer, [cite(d, s, 2)], False
    )

    assert got == {"evidence_in_answer": 1.0, "first_quote_gold": True}


def test_an_answer_quoting_another_paragraph_first_shows_no_gold_first(shapes):
    d, s = section_of(shapes, "Five")
    answer = f"> Alpha paragraph about apples. [{d}:{s}:0]\n\n> {CHERRIES} [{d}:{s}:2]"

    got = answer_metrics(
        shapes,
        DocResolver(shapes.documents()),
        question(shapes),
        answer,
        [cite(d, s, 0), cite(d, s, 2)],
        False,
    )

    assert got == {"evidence_in_answer": 1.0, "first_quote_gold": False}


def test_an_answer_citing_nothing_shows_nothing(shapes):
    got = answer_metrics(
        shapes, DocResolver(shapes.documents()), question(shapes), CHERRIES, [], False
    )

    assert got == {"evidence_in_answer": 0.0, "first_quote_gold": False}
