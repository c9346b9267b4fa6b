"""The kind of fact a question asks for, and whether the cited passages hold one.

"When is the final exam?" wants a date or a time; "How many credits is the course
worth?" wants a number of credits; "What is the instructor's email address?" wants an
address. The passages an answer cites can be about the right topic (the final exam,
the course) and still hold no fact of that kind — "I found text about the final exam
but no date in it" — and then they do not answer the question, however close they sit
to it by cosine. Questions a document cannot answer are often of this shape: the
document describes the exams but never dates them, never states the credit hours.

:func:`expected` reads the question's wh-phrase and returns what an answer must
contain (:class:`Expectation`); :func:`missing` says which expectation the passages
fail. Only kinds a pattern recognises reliably are checked, so a miss means the fact
is not there rather than written some unforeseen way:

- **a time or date** for "when is/are/does/will …", "what time", "what day(s)",
  "what date(s)": a clock time ("10:30", "3 pm", "noon"), a weekday ("Tuesdays",
  "Mon", "MWF"), a calendar date ("Nov 24", "24 November", "11/24"), a week ("week 5",
  "the fifth week", "finals week"), or a stated arrangement ("by appointment", "TBA",
  "the end of the semester"). A "when" opening a clause ("When I went to the library,
  how …") is not a question about time: it must be followed by an auxiliary verb.
- **a number of the things counted** for "how many X": a number (digits or a number
  word) within :data:`NEAR` words of one of the words naming X ("3 credits",
  "credits: 3", "two exams", "Exam 1"). A number elsewhere in the passage is another
  count. "How many times / ways" is left out: it is answered by a frequency or a list
  ("twice a week", "in person or online"), not by a number beside the word.
- **a percentage** for "what percentage / percent", **an amount** (a number or a
  price) for "how much … cost / price / fee": syllabi and filings are full of numbers,
  so these only catch passages with none at all.
- **an email address** for a question asking what an email address is ("What is the
  professor's email?" — not "What is the email policy?"), **a web address** for
  "what is the website / URL / link", **a phone number** for "what is the phone
  number". A redacted address ("<PROF_EMAIL>") counts as one: it stands where the
  address was.

Questions of other kinds ("why", "how", yes/no, "what is X", "who", "where" — a place
or a person is too varied in form to tell absent from present without a model) expect
nothing and are never flagged. The sufficiency check (:mod:`deepread.nodes.check`)
counts a question whose cited passages (with their section titles, which frame them)
miss what it expects as unsupported: it reads once more and abstains if the new answer
still misses it (``Context.answer_type_check``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepread.text.terms import stem

#: Words between a counted noun and its number ("credits: 3", "3 lecture credits").
NEAR = 4

_WEEKDAY = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|"
    r"wed|thu|thur|thurs|fri|sat|sun)s?"
)
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    r"half|single|once|twice|dozen|both)"
)
_ORDINAL = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"eleventh|twelfth|last|final|next|\d+(?:st|nd|rd|th))"
)
_AUX = (
    r"(?:is|are|was|were|will|would|does|do|did|can|could|should|must|shall|may|"
    r"might)"
)

#: What a passage must contain, per kind of fact.
_FACTS: dict[str, re.Pattern[str]] = {
    "time": re.compile(
        r"\b\d{1,2}(?::\d{2})?\s*[ap]\.?\s?m\b|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|"
        rf"\b{_WEEKDAY}\b|\b(?:MWF|MW|TTh|TR|TuTh)\b|"
        rf"\b{_MONTH}\.?\s+\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|"
        r"\b\d{1,2}/\d{1,2}\b|\b\d{4}-\d{2}-\d{2}\b|"
        rf"\bweeks?\s+(?:\d+|{_NUMBER_WORD})\b|\b{_ORDINAL}\s+weeks?\b|\bfinals?\s+week\b|"
        r"\bby\s+appointment\b|\bTB[AD]\b|\bto\s+be\s+(?:announced|determined|arranged)\b|"
        r"\b(?:beginning|start|end|middle)\s+of\s+(?:the\s+)?(?:semester|term|quarter|"
        r"session|course|week|class)\b",
        re.IGNORECASE,
    ),
    "number": re.compile(rf"\d|\b{_NUMBER_WORD}\b", re.IGNORECASE),
    "percentage": re.compile(r"%|\bper\s?cent|\d", re.IGNORECASE),
    "email address": re.compile(
        r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|<[A-Z_]*EMAIL[A-Z_]*>", re.IGNORECASE
    ),
    "web address": re.compile(
        r"https?://|\bwww\.|\b[\w-]+\.(?:com|edu|org|net|gov|io)\b|"
        r"<[A-Z_]*(?:URL|LINK)[A-Z_]*>",
        re.IGNORECASE,
    ),
    "phone number": re.compile(
        r"\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b|<[A-Z_]*PHONE[A-Z_]*>", re.IGNORECASE
    ),
}

#: Question phrases and the kind of fact they ask for, first match wins.
_ASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\bwhat(?:'s|\s+is|\s+are)\b[^?]*\be-?mail(?:\s+address(?:es)?)?\s*"
            r"(?:\?|$|\bfor\b|\bof\b|\band\b)",
            re.IGNORECASE,
        ),
        "email address",
    ),
    (
        re.compile(
            r"\bwhat(?:'s|\s+is|\s+are)\b[^?]*\b(?:website|url|web\s+address|link)\s*"
            r"(?:\?|$|\bfor\b|\bof\b|\band\b)",
            re.IGNORECASE,
        ),
        "web address",
    ),
    (
        re.compile(r"\bwhat(?:'s|\s+is|\s+are)\b[^?]*\bphone\s+number", re.IGNORECASE),
        "phone number",
    ),
    (
        re.compile(
            r"\b(?:what|which)\s+(?:time|hours?|days?|dates?)\b|\bdays?\s+of\s+the\s+week\b|"
            rf"(?:^|[.?!]\s+)(?:and\s+)?when\s+{_AUX}\b|\bwhen\s+and\s+where\b",
            re.IGNORECASE,
        ),
        "time",
    ),
    (re.compile(r"\bwhat\s+(?:\w+\s+)?(?:percent(?:age)?|%)", re.IGNORECASE), "percentage"),
    (
        re.compile(r"\bhow\s+much\b[^?]*\b(?:cost|costs|price|fee|fees|charge)\b", re.IGNORECASE),
        "number",
    ),
)
_HOW_MANY = re.compile(r"\bhow\s+many\s+((?:[a-z'-]+\s*){1,3})", re.IGNORECASE)
#: Words ending the counted phrase ("how many credits *is* …").
_PHRASE_END = frozenset(
    "is are was were will would do does did can could should must may might have has "
    "had be been of in for per to on at from during by with and or i we you they it "
    "there each".split()
)
#: Counted nouns answered by a frequency or a list rather than a number beside them.
_UNCOUNTED = frozenset({"time", "times", "way", "ways"})
_TOKEN = re.compile(r"[A-Za-z]+|\S*\d\S*")
_NUMBER_TOKEN = re.compile(rf"^(?:\S*\d\S*|{_NUMBER_WORD})$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Expectation:
    """What an answer must contain: a ``kind`` of fact (:data:`_FACTS`), and for "how
    many X" the stems of the words naming X, one of which the number must stand by."""

    kind: str
    counted: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.counted:
            return f"a number of {' '.join(self.counted)}"
        return "a time or date" if self.kind == "time" else f"a {self.kind}"


def expected(question: str) -> Expectation | None:
    """What the question's answer must contain, or None when it expects nothing the
    patterns recognise (see the module docstring)."""
    for pattern, kind in _ASKS:
        if pattern.search(question):
            return Expectation(kind)
    m = _HOW_MANY.search(question)
    if m:
        phrase: list[str] = []
        for word in m.group(1).lower().split():
            if word in _PHRASE_END:
                break
            phrase.append(word.strip("'"))
        if phrase and not _UNCOUNTED & set(phrase):
            return Expectation("number", tuple(stem(w) for w in phrase))
    return None


def _counts(counted: tuple[str, ...], text: str) -> bool:
    """Whether a number stands within :data:`NEAR` words of a word naming the thing."""
    tokens = _TOKEN.findall(text)
    for i, token in enumerate(tokens):
        if stem(token.lower()) in counted:
            nearby = tokens[max(0, i - NEAR) : i] + tokens[i + 1 : i + 1 + NEAR]
            if any(_NUMBER_TOKEN.match(t) for t in nearby):
                return True
    return False


def holds(expectation: Expectation, text: str) -> bool:
    """Whether ``text`` contains a fact of the expected kind."""
    if expectation.counted:
        return _counts(expectation.counted, text)
    return bool(_FACTS[expectation.kind].search(text))


def missing(question: str, passages: list[str]) -> Expectation | None:
    """The expectation of ``question`` that none of ``passages`` meets, else None."""
    want = expected(question)
    if want is None or any(holds(want, p) for p in passages):
        return None
    return want
