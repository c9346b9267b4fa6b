"""``deepread show DOC SEC PARA[-PARA]``: a cited passage as its page, highlighted.

The page image(s) of the passage, rendered by PDFium with the passage highlighted (one
PNG per page it covers), or for a source without pages an HTML file of its text with the
passage marked (:mod:`deepread.corpus.highlight`); the paths are printed, one a line.
``ask --show DIR`` draws every citation of an answer the same way
(:func:`show_citations`).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from deepread.cli.common import EXIT_OK, emit, reading_index
from deepread.records.errors import UsageError
from deepread.terminal import say

_PARAS = re.compile(r"(\d{1,18})(?:\s*-\s*(\d{1,18}))?")


def paragraph_range(text: str) -> tuple[int, int]:
    """``PARA`` or ``PARA-PARA`` as (first, last)."""
    m = _PARAS.fullmatch(text.strip())
    if m is None:
        raise argparse.ArgumentTypeError(
            f"expected a paragraph or a range of them (3 or 3-7), not {text!r}"
        )
    first = int(m.group(1))
    return first, int(m.group(2)) if m.group(2) else first


def add_drawing_options(p: argparse.ArgumentParser) -> None:
    """``--dpi``: what ``show`` and ``ask --show`` share."""
    p.add_argument(
        "--dpi",
        type=int,
        default=None,
        help="resolution of page images (default 144; 36 to 400)",
    )


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "show",
        parents=[common],
        help="a passage as its page image(s), highlighted (HTML for a source without pages)",
    )
    p.add_argument("doc_id", type=int)
    p.add_argument("sec_id", type=int)
    p.add_argument("paras", type=paragraph_range, metavar="PARA[-PARA]")
    p.add_argument("--out", default=".", help="folder the files are written to (default: .)")
    add_drawing_options(p)
    p.add_argument(
        "--page",
        type=int,
        default=None,
        help="draw this page of the document only, the passage highlighted where it is on it",
    )
    p.set_defaults(func=cmd_show)


def _dpi(args: argparse.Namespace) -> int:
    from deepread.corpus.highlight import DEFAULT_DPI, check_dpi

    return check_dpi(DEFAULT_DPI if args.dpi is None else args.dpi)


def cmd_show(args: argparse.Namespace) -> int:
    from deepread.corpus.highlight import draw_cited, write_files

    first, last = args.paras
    dpi = _dpi(args)
    with reading_index(args) as idx:
        drawings = draw_cited(idx, args.doc_id, args.sec_id, first, last, dpi=dpi, page=args.page)
    paths = write_files(Path(args.out), drawings)
    if args.json:
        emit(
            {
                "doc_id": args.doc_id,
                "sec_id": args.sec_id,
                "paragraphs": [first, last],
                "files": [
                    {"path": str(path), "page": d.page}
                    for path, d in zip(paths, drawings, strict=True)
                ],
            }
        )
        return EXIT_OK
    for path in paths:
        say(str(path))
    return EXIT_OK


def show_citations(
    idx: Any, citations: list[dict[str, Any]], folder: Path, dpi: int
) -> tuple[list[Path], list[str]]:
    """One drawing per citation of an answer (a passage across a page break: a file per
    page), all written together; and, for each citation that cannot be drawn, why."""
    from deepread.corpus.highlight import draw_cited, write_files
    from deepread.records.errors import CoordinateError

    drawings = []
    failures = []
    for c in citations:
        coord = f"[{c['doc_id']}:{c['sec_id']}:{c['para_idx']}]"
        try:
            drawings.extend(draw_cited(idx, c["doc_id"], c["sec_id"], c["para_idx"], dpi=dpi))
        except (UsageError, CoordinateError) as exc:
            failures.append(f"{coord} not drawn: {exc}")
    return write_files(folder, drawings) if drawings else [], failures


def show_cited(args: argparse.Namespace, idx: Any, citations: list[dict[str, Any]]) -> list[str]:
    """``ask --show DIR``: the answer's citations drawn into DIR; the paths written
    (printed unless ``--json``), each citation that could not be drawn said on stderr."""
    paths, failures = show_citations(idx, citations, Path(args.show), _dpi(args))
    for line in failures:
        say(f"deepread: {line}", err=True)
    if not args.json:
        for path in paths:
            say(f"shown: {path}")
    return [str(p) for p in paths]
