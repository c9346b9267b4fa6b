"""Cut a large HTML tree into pieces small enough for the partitioner to read whole.

unstructured parses HTML with libxml2 without ``huge_tree``. Past 10,000,000 bytes of
input libxml2 stops with "Buffer size limit exceeded" (or "Text node too long" for a
single text node) and returns what it has read so far, with no exception: an 11 MB
paragraph came back as "no text content found", and with text around it the paragraph
and everything after it were dropped. A page whose markup is over ``CHUNK_CHARS`` is
therefore handed over in pieces of at most ``CHUNK_CHARS`` characters (at most 4 bytes
each in UTF-8, so well under the limit), in document order:

* whole elements are batched together while they fit;
* an element too large to fit is opened: its text, its children and their tails become
  pieces of their own, each wrapped in the element's ancestors' tags (``<pre>`` stays
  around code, ``<td>`` inside its ``<table>``), so the partitioner sees the same kinds;
* a text too large to fit is cut into paragraphs of at most ``MAX_PARAGRAPH_CHARS`` at
  natural boundaries, exactly as the tree builder cuts any long paragraph, each in a
  copy of the element that held it.

Every element is serialised at most a bounded number of times, so the work is linear in
the size of the page.
"""

from __future__ import annotations

from html import escape

from lxml import etree
from lxml.html import HtmlElement

from deepread.corpus.parsing.structure import MAX_PARAGRAPH_CHARS, split_long

__all__ = ["CHUNK_CHARS", "html_chunks"]

#: Longest piece of markup handed to the partitioner, in characters.
CHUNK_CHARS = 2_000_000


def _measure(root: HtmlElement) -> dict[HtmlElement, int]:
    """Each element's text-and-tag size (an estimate of its markup), bottom-up, one pass."""
    sizes: dict[HtmlElement, int] = {}
    for el in reversed(list(root.iter())):  # children come after parents in iter()
        own = len(el.text or "") + 2 * len(str(el.tag)) + 5
        sizes[el] = own + sum(sizes[c] + len(c.tail or "") for c in el)
    return sizes


def _tag(el: HtmlElement) -> str:
    """The element's tag name: a parsed tree's are str (lxml's type also allows bytes)."""
    return str(el.tag)


def _open_tag(el: HtmlElement) -> str:
    attrs = "".join(
        f' {k}="{escape(v)}"' for k, v in el.attrib.items() if isinstance(k, str) and ":" not in k
    )
    return f"<{_tag(el)}{attrs}>"


def _frame(path: list[HtmlElement]) -> tuple[str, str]:
    """The open tags of ``path`` and their closing tags, to wrap a piece inside it."""
    return (
        "".join(_open_tag(el) for el in path),
        "".join(f"</{_tag(el)}>" for el in reversed(path)),
    )


class _Batcher:
    """Joins pieces that share their ancestors into chunks of at most ``limit`` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: list[str] = []
        self._batch: list[str] = []
        self._size = 0
        self._frame = ("", "")

    def add(self, inner: str, frame: tuple[str, str]) -> None:
        if self._batch and (
            frame != self._frame or self._size + len(inner) + sum(map(len, frame)) > self.limit
        ):
            self.flush()
        self._frame = frame
        self._batch.append(inner)
        self._size += len(inner)

    def flush(self) -> None:
        if self._batch:
            self.chunks.append(self._frame[0] + "".join(self._batch) + self._frame[1])
            self._batch, self._size = [], 0


def html_chunks(root: HtmlElement, limit: int = CHUNK_CHARS) -> list[str]:
    """``root`` serialised in pieces of at most about ``limit`` characters, in order."""
    sizes = _measure(root)
    out = _Batcher(limit)
    path: list[HtmlElement] = []  # the ancestors of what is being emitted
    frame = ("", "")

    def text(value: str | None) -> None:
        if not value:
            return
        if len(value) + sum(map(len, frame)) <= limit:
            out.add(escape(value, quote=False), frame)
            return
        # Each piece its own element, a copy of the innermost one (a paragraph directly
        # in <body> becomes a <p>), so the pieces stay the paragraphs they were cut as.
        inner = path[-1]
        tag = "p" if inner.tag in ("html", "body") else _tag(inner)
        outer = _frame(path[:-1] if tag == inner.tag else path)
        start, end = (_open_tag(inner) if tag == inner.tag else "<p>"), f"</{tag}>"
        code = any(el.tag in ("pre", "code") for el in path)
        for piece in split_long(value, MAX_PARAGRAPH_CHARS, code=code):
            out.add(start + escape(piece, quote=False) + end, outer)

    # Iterative walk (a page may nest thousands deep): an element, a text, or "close".
    todo: list[HtmlElement | str | None] = [root]
    while todo:
        item = todo.pop()
        if item is None:  # the element on top of ``path`` is done
            path.pop()
            frame = _frame(path)
        elif isinstance(item, str):
            text(item)
        elif isinstance(item.tag, str):  # comments and processing instructions are not text
            if sizes[item] <= limit:
                whole = etree.tostring(item, encoding="unicode", method="html", with_tail=False)
                if len(whole) <= limit:  # escaping can make markup longer than its text
                    out.add(whole, frame)
                    continue
            path.append(item)
            frame = _frame(path)
            todo.append(None)
            for child in reversed(item):
                if child.tail:
                    todo.append(child.tail)
                todo.append(child)
            if item.text:
                todo.append(item.text)
    out.flush()
    return out.chunks
