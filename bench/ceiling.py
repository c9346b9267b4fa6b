"""How much of a benchmark's gold evidence any reader of deepread's parse could read.

For a finished ``deepread eval`` run on FinanceBench or SyllabusQA, scores each
question's evidence (the benchmark's own definition, :mod:`deepread.evaluation.
shingles`) against three texts of its document, in reading order:

- ``parse``: every paragraph of the parsed document — the most an agent's *shown*
  paragraphs can hold, whatever its policy and budget;
- ``parse+titles``: the same with the section titles (which observations show, but
  which are not paragraphs, so the judge's *shown* leaves them out);
- ``text layer``: the whole PDFium text layer the flat baseline cuts into windows.

Beside them, the run's own agent and flat figures. Same per-question mean as the
run's summary. A target above the ``parse`` ceiling cannot be met by reading better.

For evidence with pages (FinanceBench) it also says where the first retrieve put the
question relative to its gold page: a hit on the page, the page in a hit's section, or
neither ("not located": no read of the hits' sections can show it).

Run:  python bench/ceiling.py --out EVAL_OUT --store STORE --collection NAME
Writes bench/out/ceiling-<collection>.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _common import table, write_json
from _runs import agent_and_flat, print_shares, run_parser, run_records

from deepread.corpus.index import Index
from deepread.evaluation.flat_windows import text_layer
from deepread.evaluation.shingles import is_read, shown_text


def document_texts(index: Index, folder: Path) -> dict[str, tuple[str, str, str]]:
    """Squashed (parse, parse+titles, text layer) by PDF file name."""
    out = {}
    for doc in index.documents():
        paras: list[str] = []
        titled: list[str] = []
        for sec in doc.sections:
            titled.append(sec.title)
            if sec.n_para:
                texts = [p.text for p in index.read(doc.doc_id, sec.sec_id).paragraphs]
                paras += texts
                titled += texts
        name = Path(doc.source).name
        pdf = folder / name
        layer = " ".join(w for w, _ in text_layer(pdf)) if pdf.is_file() else ""
        out[name] = (shown_text(paras), shown_text(titled), shown_text([layer]))
    return out


def located(index: Index, record: dict, pages: dict) -> str | None:
    """Where the first retrieve's hits were relative to the gold page(s), or None."""
    gold = {e["page"] for e in record["gold"]["evidence"] if e.get("page")}
    hits = [
        tuple(map(int, h.split(":")))
        for h in (record["observations"][0].get("hits") if record["observations"] else []) or []
    ]
    if not gold or not hits:
        return None
    doc_id = hits[0][0]
    if doc_id not in pages:
        pages[doc_id] = {
            (sec.sec_id, p.para_idx): p.page
            for sec in index.collection.document(doc_id).sections
            if sec.n_para
            for p in index.read(doc_id, sec.sec_id).paragraphs
        }
    where = pages[doc_id]
    if any(where.get((s, p)) in gold for _, s, p in hits):
        return "a hit on the gold page"
    gold_sections = {s for (s, _), page in where.items() if page in gold}
    if gold_sections & {s for _, s, _ in hits}:
        return "gold page in a hit's section"
    return "not located"


def main() -> int:
    ap = run_parser(__doc__)
    ap.add_argument(
        "--data", default=None, help="the dataset folder holding the PDFs (default: the run's)"
    )
    args = ap.parse_args()
    records = run_records(args.out)
    summary = json.loads((Path(args.out) / "summary.json").read_text(encoding="utf-8"))
    folder = Path(args.data or Path(summary.get("dataset", ".")).parent)
    where: dict[str, int] = {}
    with Index.open(args.store, args.collection) as index:
        texts = document_texts(index, folder)
        pages: dict = {}
        for r in records:
            kind = located(index, r, pages)
            if kind:
                where[kind] = where.get(kind, 0) + 1
    rows = {"parse": [], "parse+titles": [], "text layer": [], "agent": [], "flat": []}
    for r in records:
        evidence = [
            e
            for e in r["gold"]["evidence"]
            if Path(e["doc"]).name in texts or f"{Path(e['doc']).name}.pdf" in texts
        ]
        if not evidence:
            continue
        for i, name in enumerate(("parse", "parse+titles", "text layer")):
            found = [
                is_read(
                    e["quote"],
                    (texts.get(Path(e["doc"]).name) or texts[f"{Path(e['doc']).name}.pdf"])[i],
                )
                for e in evidence
            ]
            rows[name].append(sum(found) / len(found))
        agent, flat = agent_and_flat(r)
        rows["agent"].append(agent)
        rows["flat"].append(flat)
    m, means = print_shares(rows, args.out, "evidence read if shown")
    if where:
        print(
            "\n"
            + table(
                ["first retrieve vs gold page", "questions"],
                [[k, v] for k, v in sorted(where.items())],
            )
        )
    write_json(
        f"ceiling-{args.collection}",
        {"machine": m, "run": str(args.out), "means": means, "located": where},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
