"""Tables and figures as first-class paragraphs: captions, labels and images.

Every reader ends with the same two steps, so a table or a figure comes out the same way
from HTML, Markdown (OCR output included) and PDF:

* **Markup** (HTML, and Markdown after rendering): before unstructured partitions the
  DOM, :func:`mark_figures` replaces each ``<figure>`` and each ``<img>`` with a sentinel
  paragraph and lifts each ``<table><caption>`` into a sentinel placed before the table;
  :func:`resolve_markers` turns the sentinels back into ``figure`` blocks (caption from
  ``<figcaption>``, else the image ``title``; ``alt`` text kept in the text; ``image`` =
  the ``src`` resolved against the file's folder, or the URL / ``data:`` URI as written)
  and puts the caption on its table. unstructured alone loses both (a figcaption becomes
  an unrelated text paragraph, a table caption disappears from ``text_as_html``).
* **Adjacent caption lines** (:func:`attach_captions`): a paragraph that starts like a
  caption — ``Figure 2:``, ``Fig. 3.``, ``Table 1 —`` — right before or after a table or
  figure without a caption becomes its caption (the usual shape of OCR Markdown, where a
  caption is a plain line beside an ``<img>`` or ``<table>``).
* **PDF** (:func:`pdf_captions`): a text block that starts like a caption opens a
  ``figure`` paragraph (``Figure N``) or is kept as a ``caption`` paragraph with its label
  (``Table N``; the PDF reader does not detect table bodies). PDF figures carry no image
  at parse time; when a vision model is configured the ingest step extracts the largest
  embedded image of the figure's page with PDFium into ``<store>/images/`` (see
  :mod:`deepread.corpus.vision`).

The caption text stays in the paragraph ``text`` too (before a table's HTML, as a
figure's text), so retrieval and reading see it; ``caption`` and ``label`` are the
structured copies ("Table 3", "Figure 2.1") that references resolve against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lxml.html import HtmlElement

from deepread.corpus.parsing.blocks import Block
from deepread.corpus.parsing.places import Span

_CAPTION = re.compile(
    r"^\s*(?P<word>figure|fig\.?|table|tab\.)\s*(?P<num>[A-Z]?\d+(?:[.\-]\d+)*[a-z]?)"
    r"(?P<rest>\s*(?:[:.|—–-]\s*|\s*$|\s+(?=(?-i:[A-Z(]))).*)$",
    re.IGNORECASE | re.DOTALL,
)
_SENTINEL = re.compile(r"DRXFIG(\d+)X|DRXCAP(\d+)X")
#: Images this small (width or height attribute, px) are icons, not figures.
MIN_FIGURE_PX = 32


def caption_label(text: str | None) -> str | None:
    """The label a caption starts with: ``"Table 3"``, ``"Figure 2.1"``; else ``None``.

    A caption needs a delimiter or a capitalised word after its number ("Figure 2: …",
    "Table 1. …", "Figure 3 Results…"), so running prose ("Figure 3 shows…") is not one.
    """
    if not text:
        return None
    m = _CAPTION.match(text)
    if not m:
        return None
    word = "Table" if m["word"].lower().startswith("tab") else "Figure"
    return f"{word} {m['num'].rstrip('.')}"


@dataclass(slots=True)
class FigureInfo:
    """What :func:`mark_figures` lifted out of the DOM for one sentinel."""

    kind: str  # "figure" or "caption"
    caption: str | None = None
    alt: str | None = None
    image: str | None = None


def _text(el: HtmlElement) -> str:
    return " ".join("".join(el.itertext()).split())


def _resolve_src(src: str | None, base: Path | None) -> str | None:
    if not src:
        return None
    src = src.strip()
    if src.startswith(("http://", "https://", "data:")):
        return src
    if src.startswith("file://"):
        src = src[len("file://") :]
    path = Path(src)
    if not path.is_absolute() and base is not None:
        path = base / path
    return str(path.resolve())


def _tiny(img: HtmlElement) -> bool:
    for attr in ("width", "height"):
        raw = (img.get(attr) or "").strip().removesuffix("px")
        if raw.isdigit() and int(raw) < MIN_FIGURE_PX:
            return True
    return False


def _sentinel_p(tail_of: HtmlElement, token: str) -> HtmlElement:
    p = tail_of.makeelement("p")  # an element of the tree's own (HTML) kind
    p.text = token
    p.tail = tail_of.tail
    return p


def mark_figures(root: HtmlElement, base: Path | None) -> list[FigureInfo]:
    """Replace figures and table captions under ``root`` by sentinels (see module doc)."""
    infos: list[FigureInfo] = []
    for table in list(root.iter("table")):
        cap = table.find("caption")
        if cap is None:
            continue
        text = _text(cap)
        table.remove(cap)
        if text:
            infos.append(FigureInfo("caption", caption=text))
            sentinel = _sentinel_p(table, f"DRXCAP{len(infos) - 1}X")
            table.addprevious(sentinel)
            sentinel.tail = None
    for fig in list(root.iter("figure")):
        parent = fig.getparent()
        if parent is None:
            continue
        figcap = fig.find(".//figcaption")
        caption = _text(figcap) if figcap is not None else ""
        tables = fig.findall(".//table")
        if tables and fig.find(".//img") is None:
            # A table wrapped in <figure>: its figcaption is the table's caption.
            if figcap is not None:
                figcap_parent = figcap.getparent()
                assert figcap_parent is not None  # found under fig, so it has one
                figcap_parent.remove(figcap)
            if caption:
                infos.append(FigureInfo("caption", caption=caption))
                sentinel = _sentinel_p(tables[0], f"DRXCAP{len(infos) - 1}X")
                tables[0].addprevious(sentinel)
                sentinel.tail = None
            fig.drop_tag()
            continue
        img = fig.find(".//img")
        info = FigureInfo("figure", caption=caption or None)
        if img is not None:
            info.alt = (img.get("alt") or "").strip() or None
            info.image = _resolve_src(img.get("src"), base)
            info.caption = info.caption or (img.get("title") or "").strip() or None
        if not (info.caption or info.alt or info.image):
            continue
        infos.append(info)
        sentinel = _sentinel_p(fig, f"DRXFIG{len(infos) - 1}X")
        parent.replace(fig, sentinel)
    for img in list(root.iter("img")):
        parent = img.getparent()
        if parent is None or _tiny(img) or not img.get("src"):
            continue
        title = (img.get("title") or "").strip() or None
        infos.append(
            FigureInfo(
                "figure",
                caption=title,
                alt=(img.get("alt") or "").strip() or None,
                image=_resolve_src(img.get("src"), base),
            )
        )
        span = img.makeelement("span")
        span.text = f" DRXFIG{len(infos) - 1}X "
        span.tail = img.tail
        parent.replace(img, span)
    return infos


def figure_block(info: FigureInfo, page: int | None = None) -> Block:
    """The ``figure`` block of one lifted figure; its text is caption and alt text."""
    parts = [p for p in (info.caption, info.alt) if p]
    if len(parts) == 2 and parts[1] in parts[0]:
        parts = parts[:1]
    text = "\n".join(parts)
    if not text:
        name = Path(info.image).name if info.image and not info.image.startswith("data:") else ""
        text = f"[figure {name}]".replace(" ]", "]")
    return Block(
        "figure",
        text,
        page=page,
        caption=info.caption,
        label=caption_label(info.caption),
        image=info.image,
    )


def resolve_markers(blocks: list[Block], infos: list[FigureInfo]) -> list[Block]:
    """Turn sentinel text back into figure blocks and table captions."""
    if not infos:
        return blocks
    out: list[Block] = []
    pending: FigureInfo | None = None
    for block in blocks:
        if pending is not None and block.kind == "table":
            caption = pending.caption or ""
            out.append(
                Block(
                    "table",
                    f"{caption}\n{block.text}",
                    page=block.page,
                    caption=caption,
                    label=caption_label(caption),
                )
            )
            pending = None
            continue
        if pending is not None:  # a caption whose table did not follow: keep its text
            out.append(
                Block(
                    "caption",
                    pending.caption or "",
                    page=block.page,
                    label=caption_label(pending.caption),
                )
            )
            pending = None
        if not _SENTINEL.search(block.text):
            out.append(block)
            continue
        # An image inside prose: the prose stays one paragraph, the figure follows it.
        rest = " ".join(_SENTINEL.sub(" ", block.text).split())
        if rest:
            out.append(Block(block.kind, rest, level=block.level, page=block.page))
        for m in _SENTINEL.finditer(block.text):
            if m.group(1) is not None:
                out.append(figure_block(infos[int(m.group(1))], block.page))
            else:
                pending = infos[int(m.group(2))]
    if pending is not None:
        out.append(Block("caption", pending.caption or "", label=caption_label(pending.caption)))
    return out


def _absorb(target: Block, caption: Block) -> Block:
    text = caption.text
    if target.kind == "table":
        body = f"{text}\n{target.text}"
    else:
        body = (
            target.text
            if text in target.text
            else "\n".join(
                p for p in (text, "" if target.text.startswith("[figure") else target.text) if p
            )
        )
    return Block(
        target.kind,
        body,
        page=target.page if target.page is not None else caption.page,
        caption=text,
        label=caption_label(text),
        image=target.image,
        lines=caption.lines + target.lines if target.kind == "table" else target.lines,
        span=_joined_span(caption.span, target.span),
    )


def _joined_span(a: Span | None, b: Span | None) -> Span | None:
    """The range covering both ``a`` and ``b`` (a caption and what it captions)."""
    if a is None or b is None:
        return a or b
    return (min(a[0], b[0]), max(a[1], b[1]))


def attach_captions(blocks: list[Block]) -> list[Block]:
    """Give captionless tables/figures the caption line beside them (see module doc).

    Tables look above first, figures below (where each is usually printed). A caption
    line that belongs to no table or figure keeps its label.
    """
    out = list(blocks)
    used: set[int] = set()
    for i, block in enumerate(out):
        if block.kind not in ("table", "figure", "image") or block.caption:
            continue
        want = "Table" if block.kind == "table" else "Figure"
        order = (i - 1, i + 1) if block.kind == "table" else (i + 1, i - 1)
        for j in order:
            if not 0 <= j < len(out) or j in used:
                continue
            near = out[j]
            label = caption_label(near.text) if near.kind in ("text", "caption") else None
            if label and label.startswith(want):
                kind = "figure" if block.kind == "image" else block.kind
                out[i] = _absorb(
                    Block(
                        kind,
                        block.text,
                        page=block.page,
                        image=block.image,
                        lines=block.lines,
                        span=block.span,
                    ),
                    near,
                )
                used.add(j)
                break
    result = []
    for i, block in enumerate(out):
        if i in used:
            continue
        if block.kind == "caption" and block.label is None:
            block.label = caption_label(block.text)
        result.append(block)
    return result


def pdf_captions(blocks: list[Block]) -> list[Block]:
    """PDF caption blocks: ``Figure N…`` opens a figure, ``Table N…`` is a labelled caption."""
    out = []
    for block in blocks:
        label = caption_label(block.text) if block.kind in ("text", "caption") else None
        if label is None:
            out.append(block)
        elif label.startswith("Figure"):
            out.append(
                Block(
                    "figure",
                    block.text,
                    page=block.page,
                    caption=block.text,
                    label=label,
                    lines=block.lines,
                )
            )
        else:
            out.append(
                Block("caption", block.text, page=block.page, label=label, lines=block.lines)
            )
    return out
