"""What a question asks, without the instructions around it: the search query.

Questions often come wrapped: a role to play ("You are an analyst and your only
resource is …"), a lead-in ("Here's the question: …", "Using the income statement,
answer the following: …"), an answer format ("Answer in USD millions.", "Round to one
decimal place."), a fallback instruction ("If X is not useful, then state that and
explain why."). None of those words are in the documents; searched for, they pull hits
toward boilerplate, and counted by the sufficiency check they are "missing" from every
passage. :func:`asked` keeps what is asked, sentence by sentence:

1. the text is cut into sentences (``.``, ``?``, ``!`` followed by a space and a
   capital, quote or digit — not "U.S. Steel", not "3.5");
2. in a sentence with a colon, the clause after the last colon is taken when it is
   itself a question ("Here's the question: what is …?");
3. questions (ending with ``?`` or opening with an interrogative word) are kept;
4. of the other sentences, those that address the reader ("you", "your") or instruct
   — a clause opening with an imperative such as "Answer …", "Round …", "… then state
   that and explain why" — are dropped; statements are kept ("I have taken Math 132.",
   "X is defined as: …"), they say what the question is about;
5. whatever is left is the query; if nothing is, the text as given.
"""

from __future__ import annotations

import re

# A sentence ends at . ? ! (closing quotes/brackets allowed) before a capital, quote,
# digit or bracket; "U.S. Steel" has no space after "U." so stays whole.
_SPLIT = re.compile(r"(?<=[.?!])[\"')\]]*\s+(?=[A-Z0-9\"'(\[“])")
_INTERROGATIVE = frozenset(
    "what which who whom whose when where why how is are was were do does did can "
    "could should would will has have had may might must shall".split()
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
#: Verbs that open an instruction about the answer, not a question about the document.
_INSTRUCTION = frozenset(
    "answer give round approach assume use using provide respond reply express show "
    "state explain calculate compute report format list note consider please".split()
)
_WORD = re.compile(r"[A-Za-z']+")
_CLAUSES = re.compile(r"[,;:]|\bthen\b")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones dropped."""
    return [s.strip() for s in _SPLIT.split(" ".join(text.split())) if s.strip()]


def _first_word(text: str) -> str:
    m = _WORD.search(text)
    return m.group(0).lower() if m else ""


def is_question(sentence: str) -> bool:
    """Ends with a question mark or opens with an interrogative word."""
    return sentence.rstrip(" \"')]”").endswith("?") or _first_word(sentence) in _INTERROGATIVE


def _after_lead_in(sentence: str) -> str:
    """The clause after the last colon when it is a question itself, else the sentence."""
    if ":" in sentence:
        tail = sentence.rsplit(":", 1)[1].strip()
        if tail and _first_word(tail) in _INTERROGATIVE:
            return tail
    return sentence


def _instructs(sentence: str) -> bool:
    """Addresses the reader, or a clause of it opens with an imperative."""
    if _SECOND_PERSON.search(sentence):
        return True
    for clause in _CLAUSES.split(sentence):
        words = [w.lower() for w in _WORD.findall(clause)]
        while words and words[0] in ("then", "please", "and"):
            words = words[1:]
        if words and words[0] in _INSTRUCTION:
            return True
    return False


def asked(question: str) -> str:
    """What ``question`` asks: its questions and the statements around them, without
    the sentences that instruct the reader; the text as given when nothing is left."""
    parts = [_after_lead_in(s) for s in sentences(question)]
    kept = [s for s in parts if is_question(s) or not _instructs(s)]
    return " ".join(kept) if kept else " ".join(question.split())


# -- a question that continues the conversation -------------------------------------------

#: Words that open a question continuing the last one ("And with a list?").
_OPENERS = frozenset("and but so then also or plus".split())
#: Phrases that do the same ("What about …", "How about …", "What if …").
_OPENING_PHRASES = ("what about", "how about", "what if")
#: A word that only makes sense against what was said before.
_CONTINUER = "instead"
#: A pronoun points back at the conversation in a short question; in a longer one it
#: mostly points at a noun of its own ("… keys of unusual types when json.dump is told to
#: skip them?"), which the question then names.
_SHORT = 12
#: Pronouns that point back at what the conversation is about.
_PRONOUNS = frozenset("it its itself they them their theirs themselves".split())
#: "this/that/these/those" standing for a thing (not a determiner before a noun): at the
#: end, or before a verb, an article or a preposition ("Why is that a trap", "change
#: that with a hook").
_DEMONSTRATIVES = frozenset("this that these those".split())
_AFTER_PRONOUN = frozenset(
    "a an the is are was were do does did work works mean means with for to in on "
    "from by at into as".split()
)


def continues(question: str) -> bool:
    """Whether ``question`` continues the conversation rather than starting afresh: it
    opens with "and", "but", "so"… or "what about", says "instead", or — a short
    question — points back with a pronoun ("it", "its", "their", "that" standing
    alone). Such a question is searched together with what the conversation is about
    (the extractive policy; the system prompt says the same to a model)."""
    words = [w.lower().strip("'") for w in _WORD.findall(question)]
    if not words:
        return False
    text = " ".join(words)
    if words[0] in _OPENERS or text.startswith(_OPENING_PHRASES):
        return True
    if _CONTINUER in words:
        return True
    if len(words) > _SHORT:
        return False
    if _PRONOUNS & set(words):
        return True
    for i, word in enumerate(words):
        if word in _DEMONSTRATIVES and (i + 1 == len(words) or words[i + 1] in _AFTER_PRONOUN):
            return True
    return False
