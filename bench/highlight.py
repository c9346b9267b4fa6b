"""How right a citation's highlight is: FinanceBench's gold evidence against the
rectangles deepread keeps for the paragraphs that hold it (issue 49 §3).

For every gold evidence of the FinanceBench dev and val questions (``evidence_text`` on
``evidence_page_num``, 0-based):

1. **Located by PDFium itself**: the page's characters as PDFium reads them
   (``FPDFText_GetText``, one character per index) and the evidence text are compared
   with all whitespace taken out; the evidence is found whole when it can be, else line by
   line (each of its lines of 8 or more characters, in order). Each located character's
   loose box (``FPDFText_GetLooseCharBox``, the box the parser's lines are made of) is
   put on the page as shown (top-left origin, deepread's own map).
2. **The highlight**: the rectangles of the paragraphs that hold the evidence — every
   paragraph the parser makes of the filing (``parse_file``: what ``ingest`` stores) with
   a rectangle holding the centre of an evidence character.
3. **Figures**, per evidence and averaged:
   * ``inside``: the share of the evidence's characters whose whole box lies inside the
     highlighted rectangles (target ≥ 0.95). ``in paragraphs`` is the same share counted
     only over characters the parser kept in some paragraph (a page's running header
     and page number are dropped as furniture by design, and no paragraph holds them).
   * ``not evidence``: for each paragraph that *is* evidence (≥ 95 % of the characters
     its rectangles hold are evidence characters), the share of its highlighted area
     that is not evidence (target ≤ 0.10). The evidence's area: each of its lines' box
     (left of the first character to right of the last, top to bottom of the line; a
     line cut where two characters are over 40 pt apart — a table's gutter between a
     row's label and its figures is then not evidence), and the gap between two lines of
     one run (a paragraph's leading lies inside the passage a reader sees). Beside it,
     ``not evidence (rows)``: the same with a row's label and figures one line. Areas are
     counted on a 0.25 pt grid.
   Reported overall and apart for tables, two-column pages (the parser found a gutter)
   and passages across a page break (a holding paragraph has rectangles on another page).

Run:  python bench/highlight.py [--data DIR ...] [--limit N]
Writes bench/out/highlight.json.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pypdfium2
import pypdfium2.raw as pdfium_c

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import OUT_DIR, SHARED_DATA, machine

from deepread.corpus.parsing import parse_file
from deepread.corpus.parsing.pdf.columns import _gutter
from deepread.corpus.parsing.pdf.lines import read_page
from deepread.corpus.parsing.pdf.pdfium import page_to_shown

GRID = 4  # cells per point
MIN_LINE = 8  # characters of an evidence line looked for on its own
EXACT = 0.95  # a paragraph this much evidence "is" the evidence


def _page_chars(pdf: pypdfium2.PdfDocument, index: int):
    """The page's text (one character per PDFium index), each character's loose box on
    the page as shown (x0, top, x1, bottom), and whether the page has two columns."""
    page = pdf[index]
    raw = page.raw
    width, height = page.get_size()
    shown = page_to_shown(raw, width, height)
    textpage = page.get_textpage()
    n = textpage.count_chars()
    text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i) or 32) for i in range(n))
    boxes = np.zeros((n, 4))
    rect = pdfium_c.FS_RECTF()
    a, b, c, d, e, f = shown
    for i in range(n):
        if pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, i, ctypes.byref(rect)):
            xs = [a * x + c * y + e for x, y in ((rect.left, rect.top), (rect.right, rect.bottom))]
            ys = [b * x + d * y + f for x, y in ((rect.left, rect.top), (rect.right, rect.bottom))]
            boxes[i] = (min(xs), min(ys), max(xs), max(ys))
    lines = read_page(pdf.raw, index).lines
    two_columns = _gutter(lines, width) is not None if len(lines) >= 10 else False
    textpage.close()
    page.close()
    return text, boxes, two_columns, (width, height)


def _locate(page_text: str, evidence: str) -> list[int]:
    """Indexes of the page's characters that are the evidence (whitespace ignored)."""
    kept = [i for i, ch in enumerate(page_text) if not ch.isspace()]
    squeezed = "".join(page_text[i] for i in kept)
    found: list[int] = []
    whole = "".join(evidence.split())
    at = squeezed.find(whole) if whole else -1
    if at >= 0:
        return kept[at : at + len(whole)]
    cursor = 0
    for line in evidence.splitlines():
        piece = "".join(line.split())
        if len(piece) < MIN_LINE:
            continue
        at = squeezed.find(piece, cursor)
        if at < 0:
            at = squeezed.find(piece)
            if at < 0:
                continue
        found.extend(kept[at : at + len(piece)])
        cursor = at + len(piece)
    return sorted(set(found))


def _raster(rects, shape) -> np.ndarray:
    grid = np.zeros(shape, dtype=bool)
    for x0, top, x1, bottom in rects:
        a, b = max(0, int(np.floor(x0 * GRID))), min(shape[1], int(np.ceil(x1 * GRID)))
        c, d = max(0, int(np.floor(top * GRID))), min(shape[0], int(np.ceil(bottom * GRID)))
        if a < b and c < d:
            grid[c:d, a:b] = True
    return grid


def _evidence_lines(
    boxes: np.ndarray, gap: float = 40.0
) -> list[tuple[float, float, float, float]]:
    """The evidence's lines (characters grouped by baseline, a line cut where two
    characters are more than ``gap`` points apart), runs' gaps filled."""
    order = np.argsort((boxes[:, 1] + boxes[:, 3]) / 2, kind="stable")
    lines: list[list[float]] = []
    for i in order:
        x0, top, x1, bottom = boxes[i]
        mid = (top + bottom) / 2
        for ln in lines:
            if ln[1] <= mid <= ln[3] and not (x0 > ln[2] + gap or x1 < ln[0] - gap):
                ln[0], ln[1], ln[2], ln[3] = (
                    min(ln[0], x0),
                    min(ln[1], top),
                    max(ln[2], x1),
                    max(ln[3], bottom),
                )
                break
        else:
            lines.append([x0, top, x1, bottom])
    lines.sort(key=lambda ln: (ln[1], ln[0]))
    filled = [tuple(ln) for ln in lines]
    for up, down in itertools.pairwise(lines):
        gap = down[1] - up[3]
        overlap = min(up[2], down[2]) - max(up[0], down[0])
        if 0 < gap <= 0.8 * (down[3] - down[1]) and overlap > 0:
            filled.append((max(up[0], down[0]), up[3], min(up[2], down[2]), down[1]))
    return filled


def _centres_in(centres: np.ndarray, rects) -> np.ndarray:
    """Which of the points ``centres`` (x, top) lie in any of ``rects`` (page boxes)."""
    hit = np.zeros(len(centres), dtype=bool)
    for _, x0, top, x1, bottom in rects:
        hit |= (
            (centres[:, 0] >= x0)
            & (centres[:, 0] <= x1)
            & (centres[:, 1] >= top)
            & (centres[:, 1] <= bottom)
        )
    return hit


def _inside(box, rects) -> bool:
    x0, top, x1, bottom = box
    return any(
        r[1] <= x0 + 0.05 and x1 <= r[3] + 0.05 and r[2] <= top + 0.05 and bottom <= r[4] + 0.05
        for r in rects
    )


def measure(pdf_path: Path, items: list[dict]) -> list[dict]:
    """Figures for the evidences of one filing (``items``: evidence_text, page)."""
    paragraphs = parse_file(pdf_path).paragraphs
    by_page: dict[int, list] = defaultdict(list)
    for p in paragraphs:
        for box in p.boxes or ():
            by_page[box[0]].append(p)
    pdf = pypdfium2.PdfDocument(str(pdf_path))
    out = []
    try:
        for item in items:
            number = item["page"] + 1
            if not 1 <= number <= len(pdf):
                continue
            text, boxes, two_columns, size = _page_chars(pdf, number - 1)
            idx = [i for i in _locate(text, item["evidence_text"]) if boxes[i, 2] > boxes[i, 0]]
            if not idx:
                out.append({"doc": pdf_path.stem, "page": number, "located": False})
                continue
            ev = boxes[idx]
            centres = np.stack([(ev[:, 0] + ev[:, 2]) / 2, (ev[:, 1] + ev[:, 3]) / 2], axis=1)
            candidates = list(dict.fromkeys(by_page.get(number, [])))
            holding = []
            kept = np.zeros(len(idx), dtype=bool)
            for p in candidates:
                hit = _centres_in(centres, [b for b in p.boxes or () if b[0] == number])
                if hit.any():
                    holding.append(p)
                    kept |= hit
            rects = [b for p in holding for b in p.boxes or () if b[0] == number]
            inside = np.array([_inside(tuple(ev[k]), rects) for k in range(len(idx))])
            record = {
                "doc": pdf_path.stem,
                "page": number,
                "located": True,
                "chars": len(idx),
                "inside": float(inside.mean()),
                "in_paragraphs": float(inside[kept].mean()) if kept.any() else None,
                "table": any(p.kind == "table" for p in holding),
                "two_columns": two_columns,
                "page_crossing": any(len({b[0] for b in p.boxes or ()}) > 1 for p in holding),
                "exact": [],
            }
            shape = (int(np.ceil(size[1] * GRID)) + 1, int(np.ceil(size[0] * GRID)) + 1)
            evidence_area = _raster(_evidence_lines(ev), shape)
            # a table row's label and figures as one line: the gutter between them is
            # the row's (the second reading of "not evidence", reported beside)
            row_area = _raster(_evidence_lines(ev, gap=np.inf), shape)
            all_centres = np.stack(
                [(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1
            )
            visible = (boxes[:, 2] > boxes[:, 0]) & np.array([not ch.isspace() for ch in text])
            is_evidence = np.zeros(len(text), dtype=bool)
            is_evidence[idx] = True
            for p in holding:
                prects = [b for b in p.boxes or () if b[0] == number]
                held = _centres_in(all_centres, prects) & visible
                if held.sum() == 0 or (held & is_evidence).sum() / held.sum() < EXACT:
                    continue
                lit = _raster([b[1:] for b in prects], shape)
                waste = float((lit & ~evidence_area).sum() / max(lit.sum(), 1))
                rows = float((lit & ~row_area).sum() / max(lit.sum(), 1))
                record["exact"].append({"kind": p.kind, "waste": waste, "waste_rows": rows})
            out.append(record)
    finally:
        pdf.close()
    return out


def summarise(records: list[dict]) -> dict:
    located = [r for r in records if r["located"]]

    def group(rows: list[dict]) -> dict:
        exact = [e["waste"] for r in rows for e in r["exact"]]
        by_rows = [e["waste_rows"] for r in rows for e in r["exact"]]
        papers = [r["in_paragraphs"] for r in rows if r["in_paragraphs"] is not None]
        return {
            "evidences": len(rows),
            "inside": statistics.fmean(r["inside"] for r in rows) if rows else None,
            "inside_min": min((r["inside"] for r in rows), default=None),
            "in_paragraphs": statistics.fmean(papers) if papers else None,
            "exact_paragraphs": len(exact),
            "not_evidence": statistics.fmean(exact) if exact else None,
            "not_evidence_max": max(exact, default=None),
            "not_evidence_rows": statistics.fmean(by_rows) if by_rows else None,
            "over_0_10": sum(1 for w in exact if w > 0.10),
        }

    return {
        "evidences": len(records),
        "located": len(located),
        "all": group(located),
        "tables": group([r for r in located if r["table"]]),
        "prose": group([r for r in located if not r["table"]]),
        "two_columns": group([r for r in located if r["two_columns"]]),
        "page_crossing": group([r for r in located if r["page_crossing"]]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        action="append",
        type=Path,
        default=None,
        help="a FinanceBench folder (PDFs and questions.jsonl); default dev and val",
    )
    parser.add_argument("--limit", type=int, default=None, help="at most this many filings")
    args = parser.parse_args()
    folders = args.data or [
        SHARED_DATA / "financebench-dev",
        SHARED_DATA / "financebench-val",
    ]
    report: dict = {"machine": machine(), "sets": {}}
    for folder in folders:
        wanted: dict[str, list[dict]] = defaultdict(list)
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            for ev in q.get("evidence") or []:
                wanted[ev["doc_name"]].append(
                    {"evidence_text": ev["evidence_text"], "page": int(ev["evidence_page_num"])}
                )
        records: list[dict] = []
        started = time.perf_counter()
        for n, (name, items) in enumerate(sorted(wanted.items())):
            if args.limit is not None and n >= args.limit:
                break
            path = folder / f"{name}.pdf"
            if path.exists():
                records.extend(measure(path, items))
                print(f"{folder.name}: {name} done", file=sys.stderr)
        summary = summarise(records)
        summary["seconds"] = round(time.perf_counter() - started, 1)
        report["sets"][folder.name] = {"summary": summary, "records": records}
        print(folder.name, json.dumps(summary, indent=2))
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / "highlight.json").write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
