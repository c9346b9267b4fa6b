"""Build the section tree and the per-section paragraph lists from a block stream.

The rules of paper §3.2, in one place for every format:

* ``sec_id`` 0 is the document root (level 0, titled with the document's title); it
  holds any paragraph that comes before the first heading;
* every heading opens section ``1..N`` in document order; its parent is the nearest
  earlier section of a smaller level (the root when none);
* paragraphs get ``para_idx`` 0, 1, … inside the section they fall in;
* ``n_para`` / ``n_tok`` count direct paragraphs only (tiktoken, on the text a read shows:
  a table as its rows, :func:`~deepread.text.markup.shown_text`);
* a block longer than :data:`MAX_PARAGRAPH_CHARS` (a 5 MB single-line text file, a
  paragraph-less dump) becomes several paragraphs, cut at line breaks, else sentence
  ends, else whitespace (a hard cut only when a window has none). Without this the
  embedder (256 tokens) would see only its first ~1,000 characters, and one
  ``read_section`` call would hand the model the whole megabytes at once. Tables stay
  whole: cutting their HTML would break them;
* a heading's text is also the first line of the first paragraph after it in reading
  order (its own section's, or — when its section has no paragraph of its own — the
  next section's, after the headings in between): a contextual header. A heading is
  often the start of the passage a reader quotes ("Office Hours:" above "Mon 2–3 pm",
  "Week 3" above "Midterm"), and a paragraph cut from its heading is a weaker search
  hit and a quote that no longer says what it is about. Titles stay the sections'
  titles (TOC, tree, read headers); only a prose paragraph (text, list item, caption)
  takes them: a table's HTML, a figure or a code block would be corrupted by a line put
  before it, so a heading followed by one of those stays its title only;
  A contextual header holds the nearest 12 headings, each line cut to 500 characters: a
  "heading" as long as a paragraph, or thousands of headings with no text between them,
  must not make a paragraph past ``MAX_PARAGRAPH_CHARS`` (the section titles themselves
  stay whole; what a model is shown of them is cut in ``corpus/framing.py``);
* headings that end a document with text, no block after them, are also the last
  section's paragraph (several, cut like any long block): otherwise their text would be
  in no paragraph at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from deepread.corpus.parsing.blocks import Block, ParsedDocument
from deepread.corpus.parsing.places import Box, Span, cut_lines, cut_span, merge_runs
from deepread.records.documents import Paragraph, Section
from deepread.text.clip import clip
from deepread.text.markup import shown_text
from deepread.text.tokens import count_tokens_batch

#: Longest paragraph kept whole, in characters (~1,000 tiktoken tokens of English). The
#: longest paragraphs of the devset (code blocks) are under 1,800 characters, so real
#: prose and code are never cut; tables are exempt.
MAX_PARAGRAPH_CHARS = 4000

# Preferred cut points, best first: a line break, a sentence end, any whitespace.
_CUTS = (re.compile(r"\n"), re.compile(r"[.!?]['\")\]’”]*\s"), re.compile(r"\s"))


def split_long(text: str, limit: int = MAX_PARAGRAPH_CHARS, *, code: bool = False) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at natural boundaries.

    Each cut is the last preferred boundary in the second half of the window, so pieces
    are at least ``limit / 2`` long (except the last). Code keeps its indentation.
    """
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    start = 0
    while len(text) - start > limit:
        low = start + limit // 2
        cut = start + limit
        for pattern in _CUTS:
            ends = [m.end() for m in pattern.finditer(text, low, start + limit)]
            if ends:
                cut = ends[-1]
                break
        pieces.append(text[start:cut])
        start = cut
    pieces.append(text[start:])
    tidy = [p.strip("\n").rstrip() if code else p.strip() for p in pieces]
    return [p for p in tidy if p.strip()]


def _split_blocks(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for block in blocks:
        if block.kind in ("heading", "table", "figure") or len(block.text) <= MAX_PARAGRAPH_CHARS:
            out.append(block)
            continue
        pieces = split_long(block.text, code=block.kind == "code")
        lengths = [len(p) for p in pieces]
        lines = cut_lines(block.lines, lengths)
        spans = cut_span(block.span, lengths)
        out.extend(
            Block(
                block.kind,
                piece,
                page=next((ln.page for ln in piece_lines), block.page),
                lines=piece_lines,
                span=span,
            )
            for piece, piece_lines, span in zip(pieces, lines, spans, strict=True)
        )
    return out


def _joined(spans: list[Span | None]) -> Span | None:
    """The range from the first of ``spans`` to the last (None: none is known)."""
    known = [s for s in spans if s is not None]
    return (min(s[0] for s in known), max(s[1] for s in known)) if known else None


def _place(block: Block, heads: list[Block]) -> tuple[tuple[Box, ...], Span | None]:
    """Where the paragraph of ``block`` is: its own lines (a table's rows) and those of the
    headings read since the last paragraph, right above it — a prose paragraph's text
    begins with them, and a statement's table is shown with its title and column heads
    (the nearest :data:`MAX_HEADER_LINES`, on its first page or the page before it).
    A source without pages: its range, from a prose paragraph's headings on."""
    first = block.lines[0].page if block.lines else None
    near = [
        h
        for h in heads[-MAX_HEADER_LINES:]
        if first is not None and h.lines and first - 1 <= h.lines[-1].page <= first
    ]
    boxes = merge_runs([ln for h in near for ln in h.lines]) + merge_runs(
        block.lines, rows=block.kind == "table"
    )
    span = block.span
    if span is not None and block.kind in _TAKES_HEADING and heads:
        span = _joined([*(h.span for h in heads[-MAX_HEADER_LINES:]), span])
    return boxes, span


@dataclass(slots=True)
class Structured:
    """A parsed document before it has a ``doc_id``: title, sections, paragraphs; the
    page count and the file's metadata fields when it has them."""

    title: str
    sections: list[Section]
    paragraphs: list[Paragraph]  # doc_id 0 until the store assigns one
    pages: int | None = None
    metadata: dict[str, str] = field(default_factory=dict)


#: The names a list of contents or an index goes by (also what marks a printed contents
#: page: pdf/headings.py).
CONTENTS_LABELS = "table of contents|contents|index"
#: A heading that is only the name of a document's list of contents or its index: a
#: part of the document, never its title (the sidebar "Table of Contents" a browser
#: prints at the top of a web page's PDF; a report's "Contents" page before chapter 1).
CONTENTS_HEADING = re.compile(rf"^\W*({CONTENTS_LABELS})\W*$", re.I)


def build_structure(parsed: ParsedDocument, fallback_title: str) -> Structured:
    """Sections and paragraphs of ``parsed``; ``fallback_title`` names an untitled doc
    (the file's own title first, else its first heading that is not a contents label)."""
    headings = [
        b.text for b in parsed.blocks if b.kind == "heading" and not CONTENTS_HEADING.match(b.text)
    ]
    title = parsed.title or (headings[0] if headings else "") or fallback_title
    sections = [Section(sec_id=0, title=title, level=0, parent=None)]
    paragraphs: list[Paragraph] = []
    stack: list[Section] = [sections[0]]  # open ancestors, levels strictly increasing
    current = sections[0]
    pending: list[str] = []  # headings not yet put before a paragraph
    heads: list[Block] = []  # their blocks (where they are, for the paragraph's place)
    last_heading: Block | None = None
    for block in _split_blocks(parsed.blocks):
        if block.kind == "heading":
            level = max(1, block.level or 1)
            while stack[-1].level >= level:
                stack.pop()
            parent = stack[-1]
            current = Section(
                sec_id=len(sections), title=block.text, level=level, parent=parent.sec_id
            )
            parent.children.append(current.sec_id)
            sections.append(current)
            stack.append(current)
            if block.text.strip():
                pending.append(block.text)
                heads.append(block)
                last_heading = block
            continue
        boxes, span = _place(block, heads)
        heads.clear()
        paragraphs.append(
            Paragraph(
                doc_id=0,
                sec_id=current.sec_id,
                para_idx=current.n_para,
                text=_with_headings(pending, block),
                kind=block.kind,
                page=block.page,
                caption=block.caption,
                label=block.label,
                image=block.image,
                boxes=boxes,
                span=span,
            )
        )
        current.n_para += 1
    if pending and paragraphs:
        # Headings with nothing after them (a schedule's last row read as a title, a
        # closing line in bold): their text would be in no paragraph at all, so no read
        # and no search could show it. It is the last section's paragraph. A document of
        # headings only is not given text this way: it has none (parse_file refuses it).
        # (cut like any block: thousands of trailing headings are paragraphs of bounded size)
        for piece in split_long("\n".join(" ".join(h.split()) for h in pending)):
            paragraphs.append(
                Paragraph(
                    doc_id=0,
                    sec_id=current.sec_id,
                    para_idx=current.n_para,
                    text=piece,
                    kind="text",
                    page=last_heading.page if last_heading else None,
                    boxes=merge_runs([ln for h in heads for ln in h.lines]),
                    span=_joined([h.span for h in heads]),
                )
            )
            current.n_para += 1
    shown = count_tokens_batch([shown_text(p.text, p.kind) for p in paragraphs])
    for para, n_tok in zip(paragraphs, shown, strict=True):
        sections[para.sec_id].n_tok += n_tok
    return Structured(
        title=title,
        sections=sections,
        paragraphs=paragraphs,
        pages=parsed.pages,
        metadata=dict(parsed.metadata),
    )


#: Paragraph kinds a heading line may be put before (see the module docstring).
_TAKES_HEADING = ("text", "list_item", "caption")


#: Bounds on a contextual header: each heading line at most this many characters, and the
#: header at most this many lines (the nearest headings). A real heading is a line or
#: three; a "heading" of a paragraph's length, or thousands of headings with no text
#: between them, would otherwise make one paragraph of any size, past MAX_PARAGRAPH_CHARS.
MAX_HEADER_LINE_CHARS = 500
MAX_HEADER_LINES = 12


def _header_line(heading: str) -> str:
    return clip(" ".join(heading.split()), MAX_HEADER_LINE_CHARS)


def _with_headings(pending: list[str], block: Block) -> str:
    """``block``'s text as stored: the headings read since the last paragraph first (the
    nearest :data:`MAX_HEADER_LINES`, each cut to :data:`MAX_HEADER_LINE_CHARS`), one a
    line, when ``block`` is prose; ``pending`` is emptied either way."""
    text = block.text
    if pending and block.kind in _TAKES_HEADING:
        text = "\n".join([*(_header_line(h) for h in pending[-MAX_HEADER_LINES:]), text])
    pending.clear()
    return text
