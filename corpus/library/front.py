"""Front matter: what a document says about itself, kept at ingest.

A library needs each document to say what it is (a company, a form and a period; a
course and a term). That is printed on its first page and written in its file's own
metadata, and both are gone once a document is sections and paragraphs in a store. So
ingest keeps them in the document's record (:class:`~deepread.records.documents.
FrontMatter`): the metadata fields the reader found (a PDF's Title, Subject, Author; a
DOCX's title), the text lines of the first page — of the first two when the first holds
fewer than :data:`MIN_LINES` (a cover with a logo and one line) — and before them the
page of a form's cover when it comes later (an annual report's 10-K after the letter to
shareholders, within :data:`COVER_PAGES` pages) — tables as cell text,
cut to :data:`MAX_LINES` lines and :data:`MAX_CHARS` characters, the headings printed
there, and the page count. Documents without pages (HTML, Markdown, text) keep their
first :data:`MAX_LINES` lines.

The title and card are made from it when the collection is read
(:mod:`deepread.corpus.library.titles`), because whether a line identifies a document
depends on the other documents: it costs a few kilobytes per document and no model.
"""

from __future__ import annotations

from collections.abc import Iterable

from deepread.corpus.parsing import Structured
from deepread.profiles import PROFILES
from deepread.records.documents import FrontMatter, Paragraph
from deepread.text.markup import plain_table

#: Lines kept at most, and characters: a 10-K cover is ~60 lines, ~4,000 characters.
MAX_LINES = 80
MAX_CHARS = 6000
#: A first page with fewer lines is a cover sheet: the next page is kept too.
MIN_LINES = 12
#: Pages looked through for a form's cover the first pages do not print.
COVER_PAGES = 12
#: Longest line kept (a paragraph-long line is not what names a document).
LINE_CHARS = 300


def _lines(paragraphs: Iterable[Paragraph]) -> list[str]:
    out: list[str] = []
    for p in paragraphs:
        text = plain_table(p.text) if p.kind == "table" else p.text
        out += [" ".join(line.split())[:LINE_CHARS] for line in text.splitlines() if line.strip()]
    return out


def _first_pages(paragraphs: list[Paragraph]) -> list[Paragraph]:
    """The paragraphs of the first page (two when the first is a cover sheet), after
    the form's cover when the report wraps one further in (:func:`_form_cover`)."""
    pages = sorted({p.page for p in paragraphs if p.page is not None})
    if not pages:
        return paragraphs[:MAX_LINES]
    by_page: dict[int, list[Paragraph]] = {}
    for p in paragraphs:
        if p.page is not None and p.page in pages[:COVER_PAGES]:
            by_page.setdefault(p.page, []).append(p)
    chosen = by_page[pages[0]]
    if len(_lines(chosen)) < MIN_LINES and len(pages) > 1:
        chosen = chosen + by_page[pages[1]]
    return _form_cover(chosen, [by_page[n] for n in pages[:COVER_PAGES]]) + chosen


def _names_registrant(paragraphs: list[Paragraph]) -> bool:
    return any(PROFILES.says_name(line) for line in _lines(paragraphs))


def _form_cover(chosen: list[Paragraph], pages: list[list[Paragraph]]) -> list[Paragraph]:
    """The page of a form's cover — the page printing "(Exact name of registrant as
    specified in its charter)" — when the first pages print none: an annual report
    wraps its 10-K in a letter and highlights, and its cover (name, form, fiscal year)
    comes pages later. Empty when the first pages hold the cover or no page does."""
    if _names_registrant(chosen):
        return []
    kept = {p.page for p in chosen}
    return next(
        (page for page in pages if page[0].page not in kept and _names_registrant(page)), []
    )


def front_matter(structured: Structured) -> FrontMatter:
    """The front matter of a parsed document (see the module docstring)."""
    chosen = _first_pages(structured.paragraphs)
    lines: list[str] = []
    size = 0
    for line in _lines(chosen):
        if len(lines) >= MAX_LINES or size + len(line) > MAX_CHARS:
            break
        lines.append(line)
        size += len(line)
    on_front = list(dict.fromkeys(p.sec_id for p in chosen))
    headings = [" ".join(structured.sections[s].title.split()) for s in on_front if s]
    return FrontMatter(
        metadata=dict(structured.metadata),
        lines=tuple(lines),
        headings=tuple(h for h in headings if h),
        pages=structured.pages,
    )
