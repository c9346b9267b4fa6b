"""Whether a gold passage was read: overlap of 24-character shingles, whitespace-free.

The benchmarks' gold passages were extracted by other PDF tools than deepread's, so
they differ from what deepread shows in line breaks, spacing and hyphenation; the
definition the issue's held-out judge uses absorbs that: a passage is *read* when at
least half of its whitespace-free, lower-cased 24-character shingles (taken every 8
characters) occur in the shown text, likewise squashed. Both sides are first freed of
HTML markup (deepread shows tables as HTML rows; tags and entities are markup, not the
document's text) and NFKC-normalised (ligatures such as "ﬁ").
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable

SIZE, STEP, SHARE = 24, 8, 0.5
#: The scoring's name in the records' settings: a change re-runs recorded questions.
SCORING = f"shingles-{SIZE}/{STEP}>={SHARE}"
# Element tags only ("<td>", "</tr>", "<br/>"): a bare "<" in prose ("a < b") stays.
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_SPACE = re.compile(r"\s+")


def squash(text: str) -> str:
    """``text`` as compared: markup removed, NFKC, lower-cased, no whitespace at all."""
    text = html.unescape(_TAG.sub(" ", text or ""))
    return _SPACE.sub("", unicodedata.normalize("NFKC", text)).lower()


def shingles(text: str) -> list[str]:
    """The 24-character shingles of squashed ``text`` every 8 characters (a shorter
    text is its own single shingle; an empty one has none)."""
    s = squash(text)
    if len(s) <= SIZE:
        return [s] if s else []
    return [s[i : i + SIZE] for i in range(0, len(s) - SIZE + 1, STEP)]


def read_share(passage: str, shown: str) -> float:
    """Share of ``passage``'s shingles found in ``shown`` (already :func:`squash`-ed)."""
    parts = shingles(passage)
    return sum(p in shown for p in parts) / len(parts) if parts else 0.0


def is_read(passage: str, shown: str) -> bool:
    """Whether at least half of ``passage``'s shingles occur in squashed ``shown``."""
    return bool(shingles(passage)) and read_share(passage, shown) >= SHARE


def shown_text(texts: Iterable[str]) -> str:
    """The squashed concatenation of the texts shown, in the order given."""
    return "".join(squash(t) for t in texts)
