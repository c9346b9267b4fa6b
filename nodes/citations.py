"""Citations: the ``[doc_id:sec_id:para_idx]`` marks of an answer, and which count.

Ranges ``[1:4:2-5]`` and lists ``[1:4:2, 1:4:7]`` count too; an escaped ``\\[1:4:2]`` — a
marker inside document text, as observations and quotes show it — does not. Only
paragraphs the model was actually shown (the read-region memory) are kept; any other mark
is dropped, so a citation always points at evidence the model saw. The sufficiency check and
``finalize`` both read them here.
"""

from __future__ import annotations

import re

from deepread.nodes.read_memory import Regions, was_read

# A bracket after a backslash is text, not a citation: document text shows its own
# markers escaped (corpus/framing.py), so a quote copied from a document cites nothing.
_BRACKET = re.compile(r"(?<!\\)\[([\d\s:,;\-–]+)\]")
_COORD = re.compile(r"(\d+):(\d+):(\d+)(?:\s*[-–]\s*(\d+))?")
_MAX_RANGE = 200  # a cited range wider than this is a typo, not a citation

Coord = tuple[int, int, int]


def parse_citations(text: str) -> list[Coord]:
    """Coordinates cited in ``text``, in order of first mention, ranges expanded."""
    out: list[Coord] = []
    for group in _BRACKET.findall(text):
        for d, s, p, q in _COORD.findall(group):
            first, last = int(p), int(q) if q else int(p)
            for j in range(first, min(last, first + _MAX_RANGE) + 1):
                if (int(d), int(s), j) not in out:
                    out.append((int(d), int(s), j))
    return out


def read_citations(text: str, regions: Regions) -> list[Coord]:
    """The coordinates cited in ``text`` that the model was shown."""
    return [c for c in parse_citations(text) if was_read(regions, *c)]
