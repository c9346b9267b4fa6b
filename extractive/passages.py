"""What one quote of the offline answer shows: a passage, not a lone short paragraph.

The offline answer quotes the paragraphs it ranks best (extractive/policy.py), three of
them, and up to six when more are as tied to the question. A document often says one
thing over several short paragraphs — a list's items, a definition and the line after
it, a rule and its exception — and a quote of one of them showed a sentence where the
document gave the answer over three. So a quote is a *passage*: the ranked paragraph, then
the paragraphs that follow it in its section and were shown this turn, while the passage
stays within the quote's length — what the agent itself read as one window (the paper's
ReadSection shows neighbours together). Only what follows: the ranked paragraph stays the
quote's first line, the one a person reads first (growing backwards too showed as much
gold but put the best line first for 0.10 of the devset's questions instead of 0.30).

A passage whose last paragraph ends with a colon ("In particular:") is followed by what
it announces, the shown paragraphs after it, at most :data:`ITEMS` of at most
:data:`ITEM_CHARS` characters each, past the passage's length: a quote stopping at the
announcement showed it without the list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from deepread.nodes.citations import Coord
from deepread.text.markup import plain

#: One quote: its paragraphs in document order, each marked when it is a list item
#: following a lead-in (quoted at :data:`ITEM_CHARS`).
Passage = list[tuple[Coord, bool]]

#: What follows a quoted lead-in: at most this many paragraphs, of at most
#: ``ITEM_CHARS`` characters each.
ITEMS = 8
ITEM_CHARS = 300


def passages(
    ranked: Iterable[Coord],
    texts: dict[Coord, str],
    count: int,
    limit: int,
    most: int = 0,
    tied: Callable[[Coord], bool] = lambda coord: False,
) -> list[Passage]:
    """``count`` passages, best first, then up to ``most`` in all while the next starts
    at a paragraph ``tied`` to the question: each starts at the next of ``ranked`` not
    quoted yet (nor the same text as a quoted paragraph: an HTML page and its PDF print
    say it twice) and takes the shown paragraphs after it while their plain text, with
    its own, stays within ``limit`` characters; then, after a lead-in, its items."""
    out: list[Passage] = []
    used: set[Coord] = set()
    said: set[str] = set()
    for coord in ranked:
        if len(out) >= max(count, most):
            break
        if coord in used or plain(texts[coord]) in said:
            continue
        if len(out) >= count and not tied(coord):
            continue
        passage = _grown(coord, texts, used, limit)
        used.update(c for c, _ in passage)
        said.update(plain(texts[c]) for c, _ in passage)
        out.append(passage)
    return out


def _grown(start: Coord, texts: dict[Coord, str], used: set[Coord], limit: int) -> Passage:
    """``start`` and what follows it (see :func:`passages`)."""
    d, s, p = start
    passage: Passage = [(start, False)]
    size = len(plain(texts[start]))
    nxt = (d, s, p + 1)
    while nxt in texts and nxt not in used:
        size += len(plain(texts[nxt]))
        if size > limit:
            break
        passage.append((nxt, False))
        nxt = (d, s, nxt[2] + 1)
    last = passage[-1][0]
    if plain(texts[last]).endswith(":"):
        for following in range(last[2] + 1, last[2] + 1 + ITEMS):
            item = (d, s, following)
            if item not in texts or item in used:
                break
            passage.append((item, True))
    return passage
