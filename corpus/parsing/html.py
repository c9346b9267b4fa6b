"""HTML reader: strip page furniture, then let unstructured partition the content.

Boilerplate is removed *before* partitioning, on the DOM, where it is recognisable:
when the page marks its main content (``role="main"``, ``<main>``, ``<article>``) only
that is kept; otherwise navigation, headers, footers, sidebars and permalink anchors
("¶") are dropped. Headings keep their h1–h6 level through unstructured's
``category_depth``.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement

from deepread.corpus.parsing.blocks import ParsedDocument
from deepread.corpus.parsing.elements import clean_text, to_blocks
from deepread.corpus.parsing.errors import ParseError
from deepread.corpus.parsing.figures import (
    FigureInfo,
    attach_captions,
    mark_figures,
    resolve_markers,
)
from deepread.corpus.parsing.html_chunks import CHUNK_CHARS, html_chunks
from deepread.corpus.parsing.text import decode_markup
from deepread.corpus.parsing.unstructured_setup import partitioner
from deepread.text.hygiene import storable

_FURNITURE_TAGS = ("nav", "header", "footer", "aside", "script", "style", "noscript", "form")
# Whole class/id tokens (not substrings: Sphinx marks in-content links "toc-backref").
_FURNITURE_WORDS = frozenset(
    {
        "sidebar",
        "sphinxsidebar",
        "related",
        "footer",
        "navbar",
        "nav",
        "navigation",
        "breadcrumb",
        "breadcrumbs",
        "menu",
        "site-header",
        "site-footer",
        "skip-link",
    }
)
_MAIN_XPATHS = ('//*[@role="main"]', "//main", "//article")
# libxml2's HTML parser (lxml's, and unstructured's after it) silently drops everything
# nested deeper than 256 elements, so a page of 300 nested <div>s — or 300 unclosed <b>
# tags, each opening inside the last — came back short, with no error. We parse with
# ``huge_tree`` and unwrap every element below this depth but tables, code, headings and
# paragraphs (its text and children stay, only the wrapper tag goes; a block-level one
# leaves a line break so words do not fuse) before partitioning. What still nests deeper
# is refused.
_MAX_DEPTH = 200
_PARSER_DEPTH = 250  # a margin under libxml2's 256
#: Elements kept at any depth: a table or code block would not survive without its tags,
#: a heading would lose its section, and these cannot nest in one another (a new <p> or
#: <h2> closes the open one), so they add a level or two at most. Lists are unwrapped.
_STRUCTURE = frozenset(
    {
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
        "caption",
        "pre",
        "code",
        "img",
        "br",
        "hr",
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "figure",
        "figcaption",
    }
)
#: Inline elements: unwrapped without a break (the text runs on).
_INLINE = frozenset(
    {
        "a",
        "abbr",
        "b",
        "big",
        "cite",
        "del",
        "em",
        "font",
        "i",
        "ins",
        "kbd",
        "label",
        "mark",
        "nobr",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "tt",
        "u",
        "var",
    }
)


def _furniture(el: HtmlElement) -> bool:
    if el.get("role") in ("navigation", "banner", "contentinfo", "search"):
        return True
    marks = f"{el.get('class', '')} {el.get('id', '')}".lower().split()
    return any(word in _FURNITURE_WORDS or word.endswith("sidebar") for word in marks)


def _flatten_deep(body: HtmlElement) -> None:
    """Unwrap elements nested deeper than ``_MAX_DEPTH`` (see above); refuse what stays
    deeper than the partitioner's parser reads."""
    deep: list[HtmlElement] = []
    stack = [(body, 0)]
    while stack:
        el, depth = stack.pop()
        if depth > _MAX_DEPTH and el.tag not in _STRUCTURE:
            deep.append(el)
        stack.extend((child, depth + 1) for child in el if isinstance(child.tag, str))
    for el in deep:
        if el.tag not in _INLINE:
            el.tail = "\n" + (el.tail or "")
        el.drop_tag()
    stack = [(body, 0)]
    while stack:
        el, depth = stack.pop()
        if depth > _PARSER_DEPTH:
            raise ValueError(
                f"HTML tables or code blocks nested more than {_PARSER_DEPTH} "
                "deep; the parser cannot read content below that depth"
            )
        stack.extend((child, depth + 1) for child in el if isinstance(child.tag, str))


def clean_html(markup: str) -> tuple[str, str | None]:
    """Content-only HTML and the page ``<title>``."""
    parser = lxml_html.HTMLParser(huge_tree=True)
    try:
        root = lxml_html.document_fromstring(markup, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ValueError(f"not parseable as HTML ({exc})") from exc
    if any("Excessive depth" in str(e.message) for e in parser.error_log):
        # Even huge_tree stops at 2048 levels and drops what is below: refuse rather
        # than store a silently partial document.
        raise ValueError(
            "HTML nested more than 2048 elements deep; the parser cannot "
            "read content below that depth"
        )
    title_el = root.find(".//title")
    page_title = clean_text(title_el.text_content()) if title_el is not None else None
    for xpath in _MAIN_XPATHS:
        found = root.xpath(xpath)
        if found:
            body = found[0]
            break
    else:
        body = root.find("body") if root.find("body") is not None else root
    for el in list(body.iter()):
        if not isinstance(el.tag, str):
            continue
        furniture = (
            el.tag in _FURNITURE_TAGS or _furniture(el) or "headerlink" in el.get("class", "")
        )
        if furniture and el.getparent() is not None:
            el.drop_tree()
    _flatten_deep(body)
    return etree.tostring(body, encoding="unicode", method="html"), page_title or None


def partition_html_text(markup: str, path: Path) -> ParsedDocument:
    """Partition already-cleaned HTML (shared by the HTML and Markdown readers).

    Figures and table captions are lifted out first and put back as ``figure`` blocks
    and table captions (:mod:`deepread.corpus.parsing.figures`); image paths resolve
    against ``path``'s folder.
    """
    partition_html = partitioner("html")

    infos: list[FigureInfo] = []
    pieces = [markup]
    figures = "<img" in markup or "<figure" in markup or "<caption" in markup
    if figures or len(markup) > CHUNK_CHARS:
        root = lxml_html.document_fromstring(markup, parser=lxml_html.HTMLParser(huge_tree=True))
        infos = mark_figures(root, path.parent) if figures else []
        if len(markup) > CHUNK_CHARS:  # past libxml2's input limit: see html_chunks
            pieces = html_chunks(root)
        elif infos:
            pieces = [etree.tostring(root, encoding="unicode", method="html")]
    elements = [
        el
        for piece in pieces
        for el in partition_html(
            text=piece,
            languages=[""],
            # element ids hash the name with a strict UTF-8
            # encode: a non-UTF-8 name must not fail it
            metadata_filename=storable(str(path)),
        )
    ]
    blocks = attach_captions(resolve_markers(to_blocks(elements), infos))
    return ParsedDocument(title=None, blocks=blocks)


def read_html(path: Path) -> ParsedDocument:
    """Blocks of an HTML page, its title from the first h1 or ``<title>``."""
    markup = decode_markup(path)
    if not markup.strip():
        raise ParseError(path, "the file is empty")
    try:
        content, page_title = clean_html(markup)
    except ValueError as exc:
        raise ParseError(path, str(exc)) from exc
    parsed = partition_html_text(content, path)
    # The page's h1 names the document; <title> often carries a site suffix
    # ("… — Python 3.11.2 documentation"), so it is only the fallback.
    first_h1 = next((b.text for b in parsed.blocks if b.kind == "heading" and b.level == 1), None)
    parsed.title = first_h1 or page_title
    return parsed
