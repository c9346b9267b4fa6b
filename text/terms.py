"""Content words of a text: the one tokeniser behind every lexical-overlap judgement.

The coverage reranker (:mod:`deepread.stores.rerank`), the extractive policy's quote
choice (:mod:`deepread.extractive.policy`), evidence notes and the sufficiency check all
ask "which of the question's words does this text hold?". They used to carry three
copies with slightly different stop lists and stemming; one definition keeps their
verdicts consistent (the reranker's, whose recall is the measured default,
docs/benchmarks.md).

Words are runs of ASCII letters, digits and ``_`` — so ``sort_keys`` and ``__get__`` stay
whole, as identifiers in documentation must.
"""

from __future__ import annotations

import re

__all__ = ["content_words", "key_words", "stem", "terms"]

_WORD = re.compile(r"[A-Za-z0-9_]+")
_STOP = frozenset(
    "a an and are as at be by can do does for from has have how i if in into is it its of "
    "on or should that the their then there these this to was what when where which who "
    "why will with you your".split()
)


def terms(text: str) -> set[str]:
    """Lower-cased words of 3+ characters that are not stop words."""
    return {w for w in (m.lower() for m in _WORD.findall(text)) if len(w) > 2 and w not in _STOP}


def stem(word: str) -> str:
    """Strip one plural/verb suffix, keeping at least 3 characters ("keys" → "key")."""
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """:func:`terms`, crudely stemmed, so "sorted" meets "sort" and "keys" meets "key"."""
    return {stem(w) for w in terms(text)}


def key_words(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: as it is when it fits, else its content words
    (:func:`terms`' kind, as written), each once, in the order they first appear, as many
    as fit — what a search for an over-long query can still use (a pasted page asks
    about its own words, not about its stop words or repeats)."""
    if len(text) <= limit:
        return text
    kept: list[str] = []
    seen: set[str] = set()
    size = -1
    for word in _WORD.findall(text):
        low = word.lower()
        if len(low) <= 2 or low in _STOP or low in seen:
            continue
        if size + 1 + len(word) > limit:
            break
        seen.add(low)
        kept.append(word)
        size += 1 + len(word)
    return " ".join(kept) or text[:limit]
