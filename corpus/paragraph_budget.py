"""How many paragraphs one document may store: what a document costs the store, bounded.

The upload caps (corpus/uploads.py) count bytes, but the store's cost is per paragraph:
each one is a point with a dense and a sparse vector, a payload and its index entries —
some 5 KB on disk here, and an embedding call — whatever its length. So 6,000 bytes of
one-letter paragraphs made a 10 MB store, and 30 KB of ``x\\n\\n`` 46 MB in 26 s; one
10 MiB upload would have made ~16 GB in hours. A document is therefore
refused, as its own failure line naming the cap and its variable, when it holds more
paragraphs than its text pays for:

* any document may have :data:`FREE_PARAGRAPHS` (1,000) paragraphs of any length;
* past those, at most :data:`PER_1000_CHARS` (40) paragraphs per 1,000 characters of its
  text — 25 characters a paragraph on average (prose runs 300–600; a document of 10,000
  sections of one sentence each passes);
* and never more than :data:`MAX_PARAGRAPHS` (50,000).

The check runs after parsing and before anything is embedded or written
(:mod:`deepread.corpus.pipeline`), for every ingest — the command line and Python too: a
flood costs a local store what it costs a server's, and the variables raise the caps.
Documents sent as content in a text format are also counted before they are parsed
(:func:`least_paragraphs`), so a flood costs no parse either (30 KB of ``x\\n\\n`` took
2.7 CPU s to parse; 1 MB, 39 s and 1.4 GB).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepread.corpus.ingest_caps import ingest_cap

MAX_PARAGRAPHS = 50_000
FREE_PARAGRAPHS = 1_000
PER_1000_CHARS = 40
MAX_ENV = "DEEPREAD_INGEST_MAX_PARAGRAPHS"
DENSITY_ENV = "DEEPREAD_INGEST_MAX_PARAGRAPHS_PER_1000_CHARS"

#: Formats whose paragraphs are blank-line separated blocks of their text (before any
#: parsing): a lower bound of their paragraph count is read off the text itself.
_BLOCK_TEXT = (".txt", ".md", ".markdown")
_FENCES = ("```", "~~~")
_RULE = re.compile(r"[=\-*_ ]+")  # a setext underline or a thematic break


class TooManyParagraphs(ValueError):
    """A document holds more paragraphs than it may store; the message says the caps."""


def allowed_paragraphs(chars: int) -> int:
    """The most paragraphs a document of ``chars`` characters of text may store."""
    most = ingest_cap(MAX_ENV, MAX_PARAGRAPHS)
    density = ingest_cap(DENSITY_ENV, PER_1000_CHARS)
    return min(most, max(FREE_PARAGRAPHS, chars * density // 1000))


def check_paragraphs(count: int, chars: int, *, before_parsing: bool = False) -> None:
    """:class:`TooManyParagraphs` when ``count`` paragraphs holding ``chars`` characters
    are more than :func:`allowed_paragraphs`."""
    allowed = allowed_paragraphs(chars)
    if count <= allowed:
        return
    at_least = "at least " if before_parsing else ""
    most = ingest_cap(MAX_ENV, MAX_PARAGRAPHS)
    if allowed >= most:
        why = f"at most {most} are stored per document ({MAX_ENV})"
    else:
        density = ingest_cap(DENSITY_ENV, PER_1000_CHARS)
        why = (
            f"its {chars} characters of text pay for {allowed}: past the first "
            f"{FREE_PARAGRAPHS}, {density} paragraphs per 1,000 characters "
            f"({DENSITY_ENV}); join its short paragraphs"
        )
    raise TooManyParagraphs(
        f"the document has {at_least}{count} paragraphs, too many to store: {why}"
    )


#: Paragraphs of a PDF averaging fewer characters than this are its text in pieces.
SHORT_PDF_PARAGRAPH = 20


def check_texts(texts: Sequence[str], *, pdf: bool = False) -> None:
    """:func:`check_paragraphs` of a parsed document's paragraph texts. For a ``pdf``
    whose paragraphs average under :data:`SHORT_PDF_PARAGRAPH` characters the refusal
    says why that usually happens: "join its short paragraphs" is no help to a person
    whose PDF has no usable text layer (a filing whose fonts lack a character map came
    out as 1,675 paragraphs of 14 characters on average — FinanceBench's McDonald's
    2022 Q4 release)."""
    chars = sum(len(t) for t in texts)
    try:
        check_paragraphs(len(texts), chars)
    except TooManyParagraphs as refused:
        if not pdf or chars >= SHORT_PDF_PARAGRAPH * len(texts):
            raise
        raise TooManyParagraphs(
            f"{refused} — they average {chars / len(texts):.1f} characters: a PDF whose "
            "text comes out in pieces this short usually has no usable text layer (fonts "
            "without a character map); run it through OCR and ingest the result"
        ) from None


def least_paragraphs(name: str, text: str) -> int | None:
    """A lower bound of the paragraphs ``text`` (a document named ``name``) parses
    into, read without parsing it: its blank-line separated blocks of text — a fenced
    code block counted as one, Markdown headings and rules not at all — or None for a
    format that is not block text."""
    lowered = name.lower()
    if not lowered.endswith(_BLOCK_TEXT):
        return None
    markdown = not lowered.endswith(".txt")
    blocks, in_block, fence = 0, False, ""
    for line in text.splitlines():
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = ""
            continue
        if markdown and stripped.startswith(_FENCES):
            fence = stripped[:3]
            blocks += 1
            in_block = False
            continue
        if markdown and (stripped.startswith("#") or _RULE.fullmatch(stripped)):
            # a heading (ATX), a rule, or a setext underline: the text above it, if
            # any, was a heading, not a paragraph
            if in_block and _RULE.fullmatch(stripped):
                blocks -= 1
            in_block = False
            continue
        if not stripped:
            in_block = False
        elif not in_block:
            blocks += 1
            in_block = True
    return blocks


def check_before_parsing(name: str, text: str) -> None:
    """:class:`TooManyParagraphs` when ``text`` holds more blocks than a document of its
    length may store as paragraphs (a text format only: the others are counted after
    parsing)."""
    least = least_paragraphs(name, text)
    if least is not None:
        check_paragraphs(least, len(text), before_parsing=True)
