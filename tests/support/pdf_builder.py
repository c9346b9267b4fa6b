"""Small PDFs written in the test itself, with fpdf2: lines placed where a test wants them.

The PDF tests need pages shaped like real filings and syllabi (a bold heading, a
contents page, a statement with "$" and "(1,577)" in their own cells, two columns drawn
row by row) without shipping third-party PDFs. ``Doc`` places each line at an exact
position in a core font, so every cue the parser reads — size, weight, position, the
content-stream order — is the one the test set.
"""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

LEFT = 72.0
RIGHT = 540.0
TOP = 72.0
LEADING = 1.25


class Doc:
    """A letter-size PDF built line by line; ``y`` runs down from the top of the page."""

    def __init__(self) -> None:
        self.pdf = FPDF(unit="pt", format="letter")
        # Windows-1252 (the core fonts' WinAnsiEncoding) has the glyphs printed documents
        # use beyond Latin-1: "•" bullets, "–" dashes, curly quotes.
        self.pdf.core_fonts_encoding = "windows-1252"
        self.pdf.set_auto_page_break(False)
        self.y = TOP

    def page(self, size: tuple[float, float] | None = None) -> Doc:
        """A new page: letter size, or ``size`` (width, height) in points."""
        self.pdf.add_page(format=size or "letter")
        self.y = TOP
        return self

    def line(
        self,
        text: str,
        *,
        x: float = LEFT,
        y: float | None = None,
        size: float = 10,
        bold: bool = False,
        font: str = "Helvetica",
        advance: bool = True,
        leading: float = LEADING,
    ) -> Doc:
        """One line of text at (x, y); ``y`` defaults to the running position, which then
        moves down ``leading`` × ``size`` (1.25: single spacing; 2.0: double)."""
        self.pdf.set_font(font, "B" if bold else "", size)
        at = self.y if y is None else y
        self.pdf.text(x, at + size, text)
        if advance and y is None:
            self.y += size * leading
        return self

    def mixed(self, *pieces: tuple[str, bool], size: float = 10, x: float = LEFT) -> Doc:
        """One line written in pieces, each ``(text, bold)``, on one baseline ("**Grading:**
        15% homework": a run-in title; or a bold phrase starting mid-line)."""
        at = x
        for text, bold in pieces:
            self.pdf.set_font("Helvetica", "B" if bold else "", size)
            self.pdf.text(at, self.y + size, text)
            at += self.pdf.get_string_width(text)
        self.y += size * LEADING
        return self

    def right(self, text: str, x1: float, *, size: float = 10, bold: bool = False) -> Doc:
        """Text right-aligned at ``x1`` on the current line (figures in a column)."""
        self.pdf.set_font("Helvetica", "B" if bold else "", size)
        self.pdf.text(x1 - self.pdf.get_string_width(text), self.y + size, text)
        return self

    def gap(self, points: float) -> Doc:
        self.y += points
        return self

    def para(
        self,
        text: str,
        *,
        size: float = 10,
        x: float = LEFT,
        width: float = RIGHT - LEFT,
        indent: float = 0.0,
        hang: float = 0.0,
        space_after: float = 6.0,
        leading: float = LEADING,
    ) -> Doc:
        """A paragraph wrapped to ``width``: first line indented by ``indent``, the others
        by ``hang`` (a hanging indent, as in a reference list); lines ``leading`` sizes
        apart."""
        for i, ln in enumerate(self.wrap(text, size=size, width=width, indent=indent, hang=hang)):
            self.line(ln, x=x + (indent if i == 0 else hang), size=size, leading=leading)
        self.y += space_after
        return self

    def wrap(
        self,
        text: str,
        *,
        size: float = 10,
        width: float = RIGHT - LEFT,
        indent: float = 0.0,
        hang: float = 0.0,
    ) -> list[str]:
        """``text`` broken into the lines :meth:`para` would print (greedy, Helvetica)."""
        self.pdf.set_font("Helvetica", "", size)
        lines: list[str] = []
        current = ""
        for word in text.split():
            trial = f"{current} {word}".strip()
            room = width - (indent if not lines else hang)
            if current and self.pdf.get_string_width(trial) > room:
                lines.append(current)
                current = word
            else:
                current = trial
        lines.append(current)
        return lines

    def image(self, picture: object, *, width: float, height: float, x: float = LEFT) -> Doc:
        """An embedded raster image (a PIL image or encoded bytes in a BytesIO) placed at
        the running position and ``width`` x ``height`` points large."""
        self.pdf.image(picture, x=x, y=self.y, w=width, h=height)
        self.y += height + 6
        return self

    def section(self, title: str, level: int = 0) -> Doc:
        """An outline (bookmark) entry pointing here."""
        self.pdf.start_section(title, level=level)
        return self

    def save(self, path: Path) -> Path:
        self.pdf.output(str(path))
        return path


WORDS = (
    "the company reports revenue from its segments and the board reviews each plan "
    "before the year ends while costs and margins are measured against the budget"
).split()


def filler(n: int, seed: int = 0) -> str:
    """``n`` words of plausible prose ending in a full stop (deterministic)."""
    words = [WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def raw_pdf(objects: list[str]) -> bytes:
    """A PDF file of ``objects`` (object 1 the catalog) with its cross-reference table,
    written byte by byte: for tests that need a content stream fpdf2 would not write (a
    page of text operators only) or bytes to damage afterwards."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


def lines_pdf(pages: list[list[str]]) -> bytes:
    """A valid PDF with one page per list of lines (Helvetica 11 pt, a text layer),
    each line set 28 pt below the last: one paragraph per line (a benchmark's
    "filing" or "syllabus" in a few lines)."""
    n = len(pages)
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids ["
        + " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
        + f"] /Count {n} >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for lines in pages:
        stream = (
            "BT /F1 11 Tf 72 720 Td 28 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
        )
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1200 792] /Contents "
            f"{len(objects) + 2} 0 R /Resources << /Font << /F1 3 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    return raw_pdf(objects)
