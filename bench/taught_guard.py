"""Can a long ingest's taught table be poisoned or mis-taught? Issue 50 §1.

An ingest past 20,000 paragraphs embeds the rest with a table the model taught on the run
itself (``deepread.corpus.taught_vectors``). Three measures:

``poison``  21 Markdown files of 1,000 one-line stop-word paragraphs ("the of and … 12345
            .", every line distinct), then real documents, in one ingest. For each real
            document: dense self-retrieval of 24 of its own sentences (each sentence the
            query, the top hit in its document its own paragraph; dense only, no
            reranker), in the run's collection and ingested alone. Issue 50 measured
            24/24 alone and 1/24 after the poison.
``shelf``   one company's filings (past 20,000 paragraphs), then documents of other kinds
            (syllabi, Python's documentation pages), in one ingest: the same measure for
            each of the others.
``teach``   teaching on adversarial text: 20,000 paragraphs of 128 random tokens (vectors
            random too: the cost does not depend on them), in a fresh process — its time
            and the process's peak RSS, before and during.

Every measure runs through the public ``deepread.Index`` only (``teach`` excepted: it calls
the table's teaching directly), so the same script measures another checkout: run it with
that checkout's Python for the side-by-side "before".

``--teach-at N`` teaches the table at N paragraphs instead of the ingest's 20,000 (the
module's ``TEACH_AT``, set in this process: the same knob on any checkout), so a shorter
shelf (``--filings``) engages it; ``--tag`` names the output (``before``, ``after``).

Run:  python bench/taught_guard.py poison|shelf|teach [--root DIR] [--data DIR]
      [--teach-at N] [--filings N] [--tag NAME] [--alone OUTPUT.json]
Prints markdown and writes bench/out/taught_guard-<measure>[-<tag>].json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import SHARED_DATA, Timer, machine, machine_line, table, write_json

import deepread

DOCS = Path(__file__).resolve().parents[1] / "tests" / "data" / "docs"
#: The stop-words of the poison's lines; each line ends with its own number.
STOP = "the of and to in a is that for it as was with be by on not he this are or his"
SENTENCES = 24
#: One company's filings for ``shelf``: PepsiCo's ten (~25,000 paragraphs).
COMPANY = "PEPSICO"
SYLLABI = 4


def poison_folder(folder: Path, files: int = 21, lines: int = 1_000) -> list[Path]:
    """``files`` Markdown files of ``lines`` distinct stop-word paragraphs each."""
    folder.mkdir(parents=True, exist_ok=True)
    words = STOP.split()
    made = []
    for f in range(files):
        path = folder / f"{f:02d}-notes.md"
        paragraphs = [
            " ".join(words[(i + j) % len(words)] for j in range(12)) + f" {f * lines + i + 10000} ."
            for i in range(lines)
        ]
        path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
        made.append(path)
    return made


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def self_retrieval(index: deepread.Index, doc_id: int) -> tuple[int, int]:
    """Of up to :data:`SENTENCES` paragraphs of ``doc_id`` (spread over it, 8 words or
    more), how many are the top dense hit in their document for their first sentence."""
    document = index.document(doc_id)
    paragraphs = [
        p
        for s in document.sections
        for p in index.read_section(doc_id, s.sec_id)
        if len(first_sentence(p.text).split()) >= 8 and "<table" not in p.text
    ]
    step = max(1, len(paragraphs) // SENTENCES)
    chosen = paragraphs[::step][:SENTENCES]
    found = 0
    for p in chosen:
        hits = index.search(first_sentence(p.text), k=1, doc_id=doc_id, mode="dense").hits
        found += bool(hits) and hits[0].coord == (p.doc_id, p.sec_id, p.para_idx)
    return found, len(chosen)


def run_shelf(
    before: list[Path], later: list[Path], root: Path, alone: dict[str, dict] | None = None
) -> dict:
    """Ingest ``before`` then ``later`` in one call; each of ``later`` alone too, unless
    ``alone`` holds its figures (an earlier output's ``documents``: a document alone is
    shorter than any teaching point, so the model embeds it whatever the checkout)."""
    rows: dict[str, dict] = {}
    for i, path in enumerate(later):
        if alone and path.name in alone:
            rows[path.name] = {"alone": tuple(alone[path.name]["alone"])}
            continue
        with deepread.Index.open(
            store=root / "alone", collection=f"doc{i}", reranker="none"
        ) as index:
            [document] = index.ingest([path])
            rows[path.name] = {"alone": self_retrieval(index, document.doc_id)}
    with (
        Timer() as t,
        deepread.Index.open(store=root / "run", collection="run", reranker="none") as index,
    ):
        result = index.ingest_report([*before, *later], workers=2)
        by_source = {Path(d.source).name: d for d in result.documents}
        for path in later:
            rows[path.name]["run"] = self_retrieval(index, by_source[path.name].doc_id)
            rows[path.name]["paragraphs"] = by_source[path.name].n_para
    fields = ("taught_from", "documents", "held", "embedded", "cosine", "used", "seconds")
    checks = [{k: getattr(c, k) for k in fields} for c in getattr(result, "table_checks", [])]
    return {
        "documents": rows,
        "ingest_s": t.s,
        "texts_embedded": result.texts_embedded,
        "texts_by_table": result.texts_by_table,
        "documents_by_model": getattr(result, "documents_by_model", None),
        "table_checks": checks,
    }


def report(name: str, out: dict) -> None:
    rows = [
        [
            doc,
            r["paragraphs"],
            f"{r['alone'][0]}/{r['alone'][1]}",
            f"{r['run'][0]}/{r['run'][1]}",
            r["run"][0] - r["alone"][0],
        ]
        for doc, r in out["documents"].items()
    ]
    print(table(["later document", "paragraphs", "alone", "in the run", "Δ"], rows))
    print(
        f"\n{name}: ingest {out['ingest_s']:.0f} s, {out['texts_by_table']:,} of "
        f"{out['texts_embedded']:,} texts embedded by the table; documents the probe gave "
        f"the model: {out['documents_by_model']}; teachings: {out['table_checks']}"
    )
    worst = min(r["run"][0] - r["alone"][0] for r in out["documents"].values())
    print(f"worst Δ {worst} (issue 50: within 2)")


def teach_once(paragraphs: int, tokens: int) -> dict:
    """In this process: teach on ``paragraphs`` × ``tokens`` random tokens; seconds, peak
    RSS before and after (MB)."""
    import numpy as np

    from deepread.stores.embeddings import local_embeddings

    rng = np.random.default_rng(50)
    tokenizer = local_embeddings().tokenizer()
    vocabulary = tokenizer.get_vocab_size()
    ids = [rng.integers(1000, vocabulary, tokens) for _ in range(paragraphs)]
    vectors = rng.standard_normal((paragraphs, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:  # this checkout's whole teaching (with its check on paragraphs held back)
        from deepread.corpus.taught_vectors import TaughtVectors

        taught = TaughtVectors(local_embeddings(), teach_at=paragraphs)
        taught._ids = [x.astype(np.int32) for x in ids]  # the pool the model would fill
        taught._vectors = list(vectors.astype(np.float16))
        taught._docs = [i // 1_000 for i in range(paragraphs)]
        if not hasattr(taught, "checks"):
            raise AttributeError
        with Timer() as t:
            check = taught.teach()
        what = f"TaughtVectors.teach (taught from {check.taught_from:,}, {check.held:,} held back)"
    except AttributeError:  # a checkout before issue 50: its teaching, as its ingest runs it
        from deepread.stores.taught_table import teach

        with Timer() as t:
            teach(ids, vectors, vocabulary)
        what = "taught_table.teach"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"what": what, "seconds": t.s, "rss_before_mb": before, "rss_peak_mb": peak}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("measure", choices=("poison", "shelf", "teach", "teach-once"))
    ap.add_argument("--root", type=Path, default=None, help="where the stores go (kept)")
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    ap.add_argument("--paragraphs", type=int, default=20_000)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--teach-at", type=int, default=None, help="paragraphs before teaching")
    ap.add_argument("--filings", type=int, default=None, help="shelf: the first N filings")
    ap.add_argument("--tag", default="", help="names the output json (before, after)")
    ap.add_argument(
        "--alone", type=Path, default=None, help="an earlier output json: its documents' alone"
    )
    a = ap.parse_args()
    if a.measure == "teach-once":
        print(json.dumps(teach_once(a.paragraphs, a.tokens)))
        return 0
    if a.teach_at is not None:
        from deepread.corpus import taught_vectors

        taught_vectors.TEACH_AT = a.teach_at
    m = machine()
    name = f"taught_guard-{a.measure}" + (f"-{a.tag}" if a.tag else "")
    print(machine_line(m))
    print(f"code: {Path(deepread.__file__).parent}; load {os.getloadavg()[0]:.2f} at the start")
    if a.measure == "teach":
        done = subprocess.run(
            [sys.executable, __file__, "teach-once", "--paragraphs", str(a.paragraphs),
             "--tokens", str(a.tokens)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        out = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{a.paragraphs:,} paragraphs × {a.tokens} random tokens, {out['what']}: "
            f"{out['seconds']:.1f} s, peak RSS {out['rss_peak_mb']:.0f} MB "
            f"({out['rss_before_mb']:.0f} MB before teaching)"
        )
        print(f"\nwrote {write_json(name, {'machine': m, **out})}")
        return 0
    root = a.root or Path(tempfile.mkdtemp(prefix="deepread-taught-guard-"))
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    syllabi = sorted((a.data / "syllabusqa-dev").glob("*.pdf"))[:SYLLABI]
    pages = sorted(DOCS.glob("*.html"))
    if a.measure == "poison":
        before = poison_folder(root / "poison")
        later = [*pages, *syllabi]
    else:
        before = sorted(
            p
            for split in ("financebench-dev", "financebench-val", "financebench-library")
            for p in (a.data / split).glob(f"{COMPANY}_*.pdf")
        )[: a.filings]
        later = [*syllabi, *pages]
    alone = json.loads(a.alone.read_text())["documents"] if a.alone else None
    out = run_shelf(before, later, root, alone)
    out["teach_at"] = a.teach_at
    out["before"] = [p.name for p in before] if a.measure == "shelf" else len(before)
    out["load_end"] = os.getloadavg()[0]
    report(a.measure, out)
    print(f"\nwrote {write_json(name, {'machine': m, **out})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
