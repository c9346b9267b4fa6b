"""Document search: which documents of a library a question is about.

Paragraph search ranks the paragraphs of every document together, so the best-worded
paragraph of the wrong year's filing wins. A question usually says which documents it
is about — a company, a course, a year, a form, a date — and each document's card says
what it is. This module matches the two:

* every document has two fields of words: its **key** (identifying title, kind, period,
  file name, metadata fields) and its **front** (its first page, the headings printed
  there, its top-level section titles); words fusing letters and digits also count by
  their runs ("FY2019" → "fy2019", "2019"; "2023Q4" → "q4"), dates by their calendar
  days;
* a question gives its **names** — capitalised words (the first word of a sentence too,
  unless a common English word: "Beta 2019", not "What"), capitals, words fusing
  letters and digits ("3M", "JnJ") — and its **periods**: years, quarters, calendar
  days (:func:`asked_words`). Each scores the documents holding it by its rarity among
  them (BM25's idf), twice in the key; a name that abbreviates words of a key ("AMEX" of
  "American Express", "JPM" of "JPMorgan") is a key word;
* a word held by at most :data:`NAMING_SHARE` of the documents (or three of them in a
  small library, never all) *names* them. The documents a name of the question names
  are its matches — when it names none by a name, those its periods name; of those, the
  ones holding most of its names ("American Express": not a filing holding "American"
  alone). A period the
  question gives is a condition: when some matches hold one of its periods in their key,
  only those count (the others only for a name none of them holds); so is a form it
  names ("per the 10-K", "the earnings release": the profiles' ``forms_named``), held
  in a key as a file name or card writes it ("10k"; "earnings", "release"). Returned are
  the best, the best of each name given (two companies: both), and those within
  :data:`KEEP` of the best score (two years of one company), at most
  :data:`MAX_DOCUMENTS`, best first. A question that names nothing (SyllabusQA's "When
  are office hours?") matches nothing: it is asked of the whole library;
* *best first* is by how a document's period covers the question's, then by score:
  of the documents close to the best score, a question spanning several years is
  answered first by the report of the latest (a periodic report also reports the
  periods before it), a question giving a year and no quarter by the year's report
  before a quarter's release, a question giving a quarter by that quarter's documents.

The index is built from the cards in memory and updated document by document (a new
document adds its words; nothing else is read again); a search reads only the postings
of the question's words (bench/library_scale.py times it at a thousand documents).
:meth:`DocumentSearch.holds` and :meth:`DocumentSearch.in_key` tell whether a name is on
any card at all — what ``find_documents`` needs to tell a question about something the
library does not hold (:mod:`deepread.nodes.tools.find_documents`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from deepread.corpus.common_words import is_common as common_word
from deepread.profiles import PROFILES
from deepread.records.documents import Document
from deepread.text.dates import calendar_days
from deepread.text.terms import terms

#: A word held by at most this share of the documents (and at least by one) names them.
NAMING_SHARE = 0.2
#: Matches scoring at least this share of the best are kept …
KEEP = 0.6
#: … up to this many.
MAX_DOCUMENTS = 3
#: A key word counts this many times a front word.
KEY_WEIGHT = 2.0
_WORD = re.compile(r"[A-Za-z0-9]+")
_RUNS = re.compile(r"[A-Za-z]+|[0-9]+")
_YEAR = re.compile(r"(?<![\d.,$])((?:19|20)\d\d)(?![\d.,%])")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER = re.compile(r"\b(first|second|third|fourth)[-\s]+(?:fiscal\s+)?quarter\b", re.I)
_QUARTER_IN = re.compile(r"q([1-4])(?!\d)")
_QUARTER_WORD = re.compile(r"^q[1-4]$")
_MONTH_NAME = re.compile(
    r"^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|"
    r"july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|"
    r"dec(?:ember)?)$"
)
#: Question words that are periods, not names: "FY2019", "Q2", "2023Q4", "H1", "1Q23".
_PERIOD = re.compile(r"^(?:fy|q|h|cy)?\d{1,4}(?:q\d|h\d|fy)?$|^\d?q\d{1,4}$", re.I)
#: Words written as names in a question: capitalised, all capitals, letters and digits.
_NAMED = re.compile(
    r"\b(?:[A-Z][A-Za-z0-9&'.-]*|[a-z]+[A-Z][A-Za-z]*|\d+[A-Za-z]+[A-Za-z0-9]*)"
    r"\b"
)


def words(text: str) -> set[str]:
    """The searchable words of ``text`` (see the module docstring)."""
    out = set(terms(text))
    for word in _WORD.findall(text):
        word = word.lower()
        if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
            out.add(word)  # "3m", "fy2019", "10k"
            out.update(r for r in _RUNS.findall(word) if len(r) > 2 or r.isdigit())
            out.update(f"q{q}" for q in _QUARTER_IN.findall(word))  # "2023q2" → "q2"
    out.update(f"q{_ORDINALS[m.lower()]}" for m in _QUARTER.findall(text))
    out.update(calendar_days(text))
    return out


def asked_words(
    question: str, is_common: Callable[[str], bool] = common_word
) -> tuple[set[str], set[str]]:
    """What a question gives to tell documents apart: the words of the names it writes
    (:func:`proper_names`), and its periods and dates — years, quarters, calendar days
    ("FY2019" → "2019", "Q2 of FY2023" → "q2", "2023", "May 26, 2023" → that day)."""
    names: set[str] = set()
    for name in proper_names(question, is_common):
        names |= words(name)
    periods: set[str] = set()
    for word in _WORD.findall(question):
        if _PERIOD.match(word):
            periods |= {w for w in words(word) if _YEAR.fullmatch(w) or _QUARTER_WORD.match(w)}
    periods.update(f"q{_ORDINALS[m.lower()]}" for m in _QUARTER.findall(question))
    periods.update(calendar_days(question))
    periods.update(_YEAR.findall(question))
    return names - periods, periods


#: Words a form is named with that name no form ("the Form 10-K").
_FORM_FILLER = frozenset({"form", "the"})


def form_words(form: str) -> frozenset[str]:
    """The key words a form a question names is held by: "the 10-K" → {"10k"} (as a
    file name or a card writes it), "earnings release" → {"earnings", "release"}."""
    fused = re.sub(r"(?<=\d)-(?=[A-Za-z])", "", form)
    return frozenset(w.lower() for w in _WORD.findall(fused)) - _FORM_FILLER


def key_text(doc: Document) -> str:
    card = doc.card
    front = doc.front
    parts = [doc.title, re.sub(r"[_\W]+", " ", PurePath(doc.source).stem)]
    if card is not None:
        parts += [card.kind or "", card.period or ""]
    if front is not None:
        parts += list(front.metadata.values())
    return " ".join(parts)


def front_text(doc: Document) -> str:
    front = doc.front
    parts = [s.title for s in doc.sections[1:] if s.level == 1]
    if front is not None:
        parts += [*front.lines, *front.headings]
    return "\n".join(parts)


def _key_names(text: str) -> list[list[str]]:
    """Runs of consecutive words of a key, lower case (what an abbreviation spans)."""
    return [
        [w.lower() for w in re.findall(r"[A-Za-z]+", part)] for part in re.split(r"[—|,;()]", text)
    ]


def abbreviates(word: str, names: Sequence[list[str]]) -> bool:
    """Whether ``word`` is made of the starts of two or more consecutive words of one of
    ``names`` ("amex" of "american express"), or is the start of a long one ("jpm" of
    "jpmorgan")."""
    if len(word) < 3 or not word.isalpha():
        return False

    def spans(rest: str, seq: list[str], used: int) -> bool:
        if not rest:
            return used >= 2
        if not seq:
            return False
        head = seq[0]
        return any(
            head.startswith(rest[:n]) and spans(rest[n:], seq[1:], used + 1)
            for n in range(min(len(rest), len(head)), 0, -1)
        )

    for seq in names:
        for i, first in enumerate(seq):
            if first[:1] != word[:1]:
                continue
            if (first.startswith(word) and len(first) >= len(word) + 3) or spans(word, seq[i:], 0):
                return True
    return False


@dataclass(slots=True)
class Match:
    """A document a question names: its id, score and the question's words it holds."""

    doc_id: int
    score: float
    words: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Entry:
    key: frozenset[str]
    front: frozenset[str]
    names: list[list[str]]
    signature: tuple[str, str, int]
    quarters: frozenset[str]  # the quarter words of its key ("q4" of "2023Q4")


class DocumentSearch:
    """An inverted index of the documents' cards (see the module docstring)."""

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        self._postings: dict[str, set[int]] = defaultdict(set)
        self._initials: dict[str, set[int]] = defaultdict(set)  # a key word's first letter

    def __len__(self) -> int:
        return len(self._entries)

    def update(self, documents: Iterable[Document]) -> None:
        """Index ``documents`` (with their cards); drop documents no longer among them.
        A document already indexed with the same source, key and front is kept."""
        seen: set[int] = set()
        for doc in documents:
            seen.add(doc.doc_id)
            key, front = key_text(doc), front_text(doc)
            signature = (doc.source, key, hash(front))
            old = self._entries.get(doc.doc_id)
            if old is not None and old.signature == signature:
                continue
            if old is not None:
                self._remove(doc.doc_id, old)
            key_words = frozenset(words(key))
            entry = _Entry(
                key_words,
                frozenset(words(front)),
                _key_names(key),
                signature,
                frozenset(w for w in key_words if _QUARTER_WORD.match(w)),
            )
            self._entries[doc.doc_id] = entry
            for word in entry.key | entry.front:
                self._postings[word].add(doc.doc_id)
            for seq in entry.names:
                for first in seq:
                    self._initials[first[:1]].add(doc.doc_id)
        for doc_id in [i for i in self._entries if i not in seen]:
            self._remove(doc_id, self._entries.pop(doc_id))

    def _abbreviable(self, word: str) -> list[tuple[int, _Entry]]:
        """The documents with a key word starting as ``word`` does."""
        return [(i, self._entries[i]) for i in self._initials.get(word[:1], ())]

    def _remove(self, doc_id: int, entry: _Entry) -> None:
        for word in entry.key | entry.front:
            self._postings[word].discard(doc_id)
        for seq in entry.names:
            for first in seq:
                self._initials[first[:1]].discard(doc_id)

    def _idf(self, df: int) -> float:
        n = len(self._entries)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def search(
        self,
        question: str,
        scope: Sequence[int] | None = None,
        is_common: Callable[[str], bool] = common_word,
    ) -> list[Match]:
        """The documents ``question`` names, best first (see the module docstring)."""
        allowed = set(scope) if scope else None
        n = len(self._entries)
        if n < 2:
            return []
        # A company with a few filings is named in a small library too.
        naming = max(int(NAMING_SHARE * n), min(3, n - 1))
        scores: dict[int, float] = defaultdict(float)
        held: dict[int, list[str]] = defaultdict(list)
        by_name: set[int] = set()
        by_period: set[int] = set()
        names, periods = asked_words(question, is_common)
        for word in sorted(names | periods):
            docs = set(self._postings.get(word, ()))
            if (
                word.isalpha()
                and len(word) >= 3
                and not any(word in self._entries[i].key for i in docs)
            ):
                # No document's key holds it as written: an abbreviation of a key's words?
                # (Also when a front mentions it — "NYSE MKT (formerly AMEX)" on a
                # utility's cover: the company the name abbreviates is what it names.)
                docs |= {i for i, e in self._abbreviable(word) if abbreviates(word, e.names)}
            if not docs or len(docs) > max(n // 2, naming):
                continue
            idf = self._idf(len(docs))
            for doc_id in docs:
                if allowed is not None and doc_id not in allowed:
                    continue
                entry = self._entries[doc_id]
                in_key = word in entry.key or word not in entry.front
                scores[doc_id] += idf * (KEY_WEIGHT if in_key else 1.0)
                held[doc_id].append(word)
                if len(docs) <= naming:
                    (by_name if word in names else by_period).add(doc_id)
        # A question that names a company or a course is about the documents holding
        # that name; its years and dates only rank them. One that names only a period
        # is about the documents of that period.
        ranked = sorted(
            (Match(i, scores[i], held[i]) for i in by_name or by_period),
            key=lambda m: (-m.score, m.doc_id),
        )
        if not ranked:
            return []
        # A period the question gives is a condition, not a bonus: of the documents its
        # names match, those whose own key (title, card, file name) holds one of its
        # periods are the ones it asks about ("Adobe's margin in FY2022": the 2022
        # filing, not every Adobe filing close enough in score). Documents of other
        # periods come only for a name none of the dated ones holds.
        # Of the documents its names match, those holding most of them: "American
        # Express" names American Express's filings, not American Water Works' (which
        # hold "American" alone), whatever their periods.
        most = max(len(names.intersection(m.words)) for m in ranked)
        fullest = [m for m in ranked if len(names.intersection(m.words)) == most]
        dated = [
            m
            for m in fullest
            if any(w in periods and w in self._entries[m.doc_id].key for w in m.words)
        ]
        pool = self._by_coverage(dated or fullest, periods)
        # A form the question names ("per the 10-K", "the earnings release") is a
        # condition too: of those, the documents whose key holds it.
        forms = [form_words(question[a:b]) for a, b in PROFILES.forms_named(question)]
        formed = [m for m in pool if any(f and f <= self._entries[m.doc_id].key for f in forms)]
        pool = formed or pool
        # Each name the question gives brings its best document (two companies: both),
        # then the others close to the best score (two years of one company).
        chosen = [pool[0]]
        for word in sorted(names, key=lambda w: len(self._postings.get(w, ()))):
            if not any(word in m.words for m in chosen):
                chosen += (
                    [m for m in pool if word in m.words] or [m for m in ranked if word in m.words]
                )[:1]
        best = max(m.score for m in pool)
        chosen += [m for m in pool if m.score >= KEEP * best]
        kept = list({m.doc_id: m for m in chosen}.values())[:MAX_DOCUMENTS]
        # In the pool's order (by period coverage), then those a name brought from
        # outside it.
        order = {m.doc_id: i for i, m in enumerate(pool)}
        return sorted(kept, key=lambda m: order.get(m.doc_id, len(pool)))

    def _by_coverage(self, matches: list[Match], periods: set[str]) -> list[Match]:
        """``matches`` (best first) with those close to the best score (within
        :data:`KEEP`) ordered by how their period covers the question's, then by score.

        A periodic report also reports the periods before it, as comparatives: a
        question spanning several years ("from FY2015 to FY2016") is answered by the
        report of the latest of them, which comes first. A question giving a year and
        no quarter asks about the year: a document of one quarter of it (a Q4 earnings
        release beside the 10-K) covers less of it and comes after; one giving a
        quarter, the documents of that quarter first."""
        if not matches:
            return matches
        years = {w for w in periods if _YEAR.fullmatch(w)}
        quarters = {w for w in periods if _QUARTER_WORD.match(w)}
        latest = max(years) if len(years) > 1 else None
        best = max(m.score for m in matches)

        def covers(m: Match) -> tuple[bool, bool, bool]:
            entry = self._entries[m.doc_id]
            narrower = (
                not (quarters & entry.quarters) if quarters else bool(years and entry.quarters)
            )
            return (m.score < KEEP * best, latest is not None and latest not in entry.key, narrower)

        return sorted(matches, key=lambda m: (covers(m), -m.score, m.doc_id))

    def holds(self, word: str) -> bool:
        """Whether some document's key or front holds ``word`` (or abbreviates to it)."""
        word = word.lower()
        return bool(self._postings.get(word)) or self.in_key(word)

    def in_key(self, word: str) -> bool:
        """Whether some document's key holds ``word`` (or abbreviates to it)."""
        word = word.lower()
        return any(word in self._entries[i].key for i in self._postings.get(word, ())) or any(
            abbreviates(word, e.names) for _, e in self._abbreviable(word)
        )


def proper_names(question: str, is_common: Callable[[str], bool] = common_word) -> list[str]:
    """The words ``question`` writes as names (see the module docstring), lower case,
    each once, in order."""
    out: list[str] = []
    for sentence in re.split(r"(?<=[.?!])\s+", question):
        for found in _NAMED.finditer(sentence):
            raw = found.group(0).strip(".'-")
            if (
                found.start() == 0
                and raw[:1].isupper()
                and raw[1:].islower()
                and is_common(raw.lower())
            ):
                continue  # a sentence's first word is capitalised anyway ("What", "Does")
            for word in _WORD.findall(raw):
                low = word.lower()
                if (
                    len(low) < 2
                    or (len(low) == 2 and low.isalpha())
                    or _PERIOD.match(low)
                    or _MONTH_NAME.match(low)
                    or low in out
                ):
                    continue
                out.append(low)
    return out
