"""A paragraph's lines joined into running text, with line-end hyphenation undone.

A hyphen at a line end is either a word broken to fit ("imple-/mentation") or part of a
compound that happened to fall there ("pretty-/printed"). The document itself decides:
the hyphen is dropped only when the document uses the joined word somewhere and never
the hyphenated form; compounds and anything code-like keep it.

Cost is linear in the text: each join looks at the previous line's last word only (a
regular expression over the whole growing paragraph made a PDF of long unspaced lines —
DNA sequences, base64 — take time quadratic in its length).
"""

from __future__ import annotations

import re

from deepread.corpus.parsing.pdf.lines import Line, PageText

__all__ = ["WORD", "Vocabulary", "join_lines", "vocabulary"]

#: A run of letters (a word without its digits and punctuation).
WORD = re.compile(r"[^\W\d_]+")
# The last token of a line, when it ends in letters and a hyphen: (prefix, letters).
_BROKEN = re.compile(r"(\S*?)([^\W\d_]+)-")
_COMPOUND = re.compile(r"[^\W\d_]+-[^\W\d_]+")

Vocabulary = tuple[set[str], set[str]]


def vocabulary(pages: list[PageText]) -> Vocabulary:
    """Words and hyphenated compounds of the document, to judge line-end hyphens."""
    words: set[str] = set()
    compounds: set[str] = set()
    for page in pages:
        text = " ".join(ln.text for ln in page.lines).casefold()
        words.update(WORD.findall(text))
        compounds.update(_COMPOUND.findall(text))
    return words, compounds


def join_lines(lines: list[Line], vocab: Vocabulary) -> str:
    """The lines' text as one string: a space between lines, hyphen breaks undone."""
    words, compounds = vocab
    parts: list[str] = []
    prev = ""
    for ln in lines:
        text = ln.text.strip()
        if not text:
            continue
        if not parts:
            parts.append(text)
            prev = text
            continue
        last = prev.rsplit(None, 1)[-1] if prev.endswith("-") else ""
        m = _BROKEN.fullmatch(last) if last else None
        if m and not m.group(1) and ln.mono < 0.5 and (word := WORD.match(text)):
            # A word broken at a line end: drop the hyphen only when the document uses the
            # joined word and never the hyphenated one; keep it for real compounds
            # ("next-/to-last") and anything code-like ("--json-/lines").
            head = m.group(2)
            tail = word.group(0)
            if (head + tail).casefold() in words and f"{head}-{tail}".casefold() not in compounds:
                parts[-1] = parts[-1][:-1]
            parts.append(text)
        elif m:
            parts.append(text)  # "--json-" + "lines": a hyphen inside a token, no space
        else:
            parts.append(" " + text)
        prev = text
    return "".join(parts)
