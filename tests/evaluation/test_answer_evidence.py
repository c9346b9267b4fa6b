"""What the answer shows (evaluation/answer_evidence.py): the gold evidence in the answer's
text, its first citation and its first line, on the real shapes index — an answer stating
the gold quote first shows it, one stating another paragraph first does not, one whose
first line cites the gold paragraph without saying its words shows it in its first
citation but not its first line, and one citing nothing shows nothing."""

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


def metrics(shapes, answer: str, *cited: tuple[int, int, int]) -> dict:
    """The unscoped evidence figures of ``answer``, its checked citations ``cited``."""
    resolver = DocResolver(shapes.documents())
    citations = [cite(*coord) for coord in cited]
    return answer_metrics(shapes, resolver, question(shapes), answer, citations, False)


def test_an_answer_stating_the_gold_quote_on_its_first_line_shows_it_first(shapes):
    d, s = section_of(shapes, "Five")
    answer = f"{CHERRIES} [{d}:{s}:2]\n\nMore in [{d}:{s}:0]."

    got = metrics(shapes, answer, (d, s, 2), (d, s, 0))

    assert got == {"evidence_in_answer": 1.0, "first_quote_gold": True, "first_line_gold": True}


def test_a_first_line_citing_the_gold_paragraph_without_its_words_shows_no_gold_first_line(
    shapes,
):
    d, s = section_of(shapes, "Five")
    answer = f"Charlie. [{d}:{s}:2]\n\n> {CHERRIES} [{d}:{s}:2]"

    got = metrics(shapes, answer, (d, s, 2))

    # the first citation is the gold paragraph; the line a person reads first does not say it
    assert got == {"evidence_in_answer": 1.0, "first_quote_gold": True, "first_line_gold": False}


def test_an_answer_stating_another_paragraph_first_shows_no_gold_first(shapes):
    d, s = section_of(shapes, "Five")
    answer = f"Alpha paragraph about apples. [{d}:{s}:0]\n\n> {CHERRIES} [{d}:{s}:2]"

    got = metrics(shapes, answer, (d, s, 0), (d, s, 2))

    assert got == {"evidence_in_answer": 1.0, "first_quote_gold": False, "first_line_gold": False}


def test_an_answer_citing_nothing_shows_nothing(shapes):
    got = metrics(shapes, CHERRIES)

    assert got == {"evidence_in_answer": 0.0, "first_quote_gold": False, "first_line_gold": False}
