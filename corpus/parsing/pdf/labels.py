"""Labelled headings: ``PART II``, ``Item 7.``, ``Note 12``, ``1.2.3 Title`` and their levels.

A label names what a heading is, so its level is fixed by the label and not by the
fonts: a filing nests the same way however it is typeset. Part and Exhibit are level 1
(an exhibit attached to a filing is a document of its own), Item / Article / Chapter /
Week 2, Note and Section 3, a number ``1.2.3`` 2 + its depth. The third of the heading
cues :mod:`~deepread.corpus.parsing.pdf.headings` combines; its typography cue
(:mod:`~deepread.corpus.parsing.pdf.typography`) decides when a labelled block is a
title rather than a reference.
"""

from __future__ import annotations

import re

__all__ = ["label_kind", "label_level", "strong_label"]

_LABEL = re.compile(
    r"""^\s*(?:
      (?P<part>part)\s+(?:[ivx]{1,4}|\d{1,2})\b
    | (?P<exhibit>exhibit)\s+\d{1,3}(?:\.\d{1,3})*[a-z]?\b
    | (?P<item>items?)\s*\d{1,2}[a-c]?\b
    | (?P<chapter>chapter|article|week|unit|module|lesson|lecture|schedule|appendix|annex)
        \s+(?:[ivxlc]{1,6}|\d{1,3}|[a-z])\b
    | (?P<note>note)\s+\d{1,2}[a-z]?\b
    | (?P<section>section)\s+\d{1,3}(?:\.\d{1,3})*\b
    | (?P<num>\d{1,2}(?:\.\d{1,2}){0,3})(?:[.)]\s*|\s+)(?=[^\W\d_])
    )""",
    re.I | re.X,
)
_FIXED_LEVEL = {"part": 1, "exhibit": 1, "item": 2, "chapter": 2, "note": 3, "section": 3}


def label_kind(text: str) -> str | None:
    """What label ``text`` starts with (``"part"``, ``"item"``, ``"num"``…), or ``None``."""
    m = _LABEL.match(text)
    return m.lastgroup if m else None


def label_level(text: str) -> int | None:
    """The fixed level of a labelled heading ("Item 7." -> 2), ``None`` without a label."""
    m = _LABEL.match(text)
    if not m:
        return None
    kind = m.lastgroup
    assert kind is not None  # every alternative of _LABEL is a named group
    if kind == "num":
        return 2 + m.group("num").count(".") + 1
    return _FIXED_LEVEL[kind]


def strong_label(text: str) -> bool:
    """``text`` starts with a named label (Part, Item, Note, Article…), not a bare number."""
    m = _LABEL.match(text)
    return m is not None and m.lastgroup != "num"
