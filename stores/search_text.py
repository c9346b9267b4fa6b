"""The text a paragraph is *found by*, which is not always the text it is *shown as*.

A table is shown to the model as HTML (paper §3.2 keeps tables whole), but its tags are
noise to both rankers: the embedding spends its 256 tokens on ``<td>`` and BM25 scores
"td". Search sees the cell text instead. Every paragraph is also searched together with
its section title, because a paragraph rarely repeats the heading it sits under
("Private Variables" → "a name prefixed with an underscore …"). A section's first prose
paragraph already opens with its heading lines (the contextual header,
:mod:`deepread.corpus.parsing.structure`), so it is not given the title a second time:
doubled, the title's words would weigh twice in BM25 for first paragraphs only.

Measured on the devset (recall@5 of hybrid retrieval,
docs/history/benchmarks-2026.md §3): raw text
0.439, tables as cell text 0.489, plus the section title 0.550.
"""

from __future__ import annotations

from deepread.text.markup import plain_table


def search_text(text: str, kind: str, section_title: str) -> str:
    """What the embedder and BM25 index for one paragraph."""
    body = plain_table(text) if kind == "table" else text
    if not section_title or _opens_with(body, section_title):
        return body
    return f"{section_title}: {body}"


#: How many leading lines may be carried headings (a paragraph under nested headings
#: with no text between them carries each of them, one a line).
_HEADER_LINES = 8


def _opens_with(body: str, title: str) -> bool:
    """Whether one of ``body``'s first lines is ``title`` (whitespace aside)."""
    wanted = " ".join(title.split())
    return any(
        " ".join(line.split()) == wanted for line in body.split("\n", _HEADER_LINES)[:_HEADER_LINES]
    )
