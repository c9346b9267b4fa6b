"""Keep Markdown openers that can never close away from Python-Markdown's quadratic scans.

Python-Markdown (and the standard library's ``html.parser`` it uses for raw HTML) scans
from every opener to its closer, and to the end of the text when there is none:

* a ``<`` with no ``>`` before the next ``<`` ("for (i = 0; i <n; i++)" in unfenced
  code, "if x <y") is tried as a start tag to the end of the *document*: 4,000 such lines
  (52 KB) took 6 s, ten times as many would take ten minutes;
* a ``[`` without its ``]`` in the paragraph ("[a [b [c …", "![x", "[a][b") and a link's
  ``(`` without its ``)`` ("[a](b") are tried as links to the end of the paragraph:
  12 KB of them took 8 s.

None of those openers can ever become markup, so before rendering each is replaced by a
Unicode noncharacter, and :func:`restore` puts the character back into the parsed
blocks' text (``&lt;`` inside a table's HTML). The rendered text is the same; only the
scans are gone. Brackets and parentheses nested deeper than ``MAX_NESTING`` are treated
the same way: no link nests that deep, and each level would rescan the text inside.
"""

from __future__ import annotations

from deepread.corpus.parsing.blocks import Block

#: Stand-ins for ``<``, ``[`` and ``(`` (noncharacters: never text of their own).
_LT, _LB, _LP = "\ufdd0", "\ufdd1", "\ufdd2"
MAX_NESTING = 16


def _guard_lt(chars: list[str]) -> None:
    """``<`` followed by another ``<`` (or the end) before any ``>``: cannot be a tag."""
    closed = False
    for i in range(len(chars) - 1, -1, -1):
        c = chars[i]
        if c == ">":
            closed = True
        elif c == "<":
            if not closed:
                chars[i] = _LT
            closed = False


def _guard_block(chars: list[str], start: int, end: int) -> None:
    """Unmatched (or too deeply nested) ``[`` and link ``(`` of ``chars[start:end]``."""
    brackets: list[int] = []
    parens: list[int] = []  # the positions of "(" (-1: a "(" that does not open a link)
    i = start
    while i < end:
        c = chars[i]
        if c == "\\":  # an escaped character is never an opener
            i += 2
            continue
        if c == "[":
            if len(brackets) >= MAX_NESTING:
                chars[i] = _LB
            else:
                brackets.append(i)
        elif c == "]" and brackets:
            brackets.pop()
        elif c == "(":
            link = i > start and chars[i - 1] == "]"
            if link and len(parens) >= MAX_NESTING:
                chars[i] = _LP
            else:
                parens.append(i if link else -1)
        elif c == ")" and parens:
            parens.pop()
        i += 1
    for i in brackets:
        chars[i] = _LB
    for i in parens:
        if i >= 0:
            chars[i] = _LP


def guard(text: str) -> str:
    """``text`` with the openers that cannot close replaced by stand-ins (linear time)."""
    for stand_in in (_LT, _LB, _LP):  # a document's own noncharacters are not text
        text = text.replace(stand_in, "\ufffd")
    chars = list(text)
    _guard_lt(chars)
    # Paragraphs end at blank lines: a "[" is matched within its own block only.
    start = end = 0
    for line in text.splitlines(keepends=True):
        end += len(line)
        if not line.strip():
            _guard_block(chars, start, end)
            start = end
    _guard_block(chars, start, len(chars))
    return "".join(chars)


def restore(blocks: list[Block]) -> list[Block]:
    """Put the guarded characters back into ``blocks`` (in place; returned for chaining)."""
    for block in blocks:
        for attr in ("text", "caption", "label"):
            value = getattr(block, attr)
            if value and (_LT in value or _LB in value or _LP in value):
                # A table's text is HTML: its "<" must stay escaped there.
                lt = "&lt;" if attr == "text" and block.kind == "table" else "<"
                setattr(block, attr, value.replace(_LT, lt).replace(_LB, "[").replace(_LP, "("))
    return blocks
