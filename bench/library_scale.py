"""A library of 1,000 documents (issue 25, deliverable 4): the first model call within
``toc_budget``, the document search in ≤ 50 ms, and a new document ingested without
reading the others again.

The library is the FinanceBench dev filings repeated under other names: each of the 14
is parsed once (the real parser), and document *i* is filing ``i mod 14`` under a
generated company name — its front matter (first page, metadata) with the company's
name replaced, its whole section tree, and its first :data:`PARAGRAPHS` paragraphs with
random unit vectors — written through ``Collection.put_document``, the real write path
(embedding 1,000 filings' paragraphs would take hours here and is not what is measured).

Measured on that store through the public API:

1. ``Index.documents()`` the first time (every card and title made), and again;
2. ``Index.find_documents`` for ``--questions`` questions naming a company and a fiscal
   year ("What was Keller Dynamics' revenue in fiscal 2019?"): p50/p95 ms, and how often
   the document of that company and year is among the matches;
3. the first model call of the agent graph (a recording chat model): the TOC's tokens
   and the whole prompt's, against ``toc_budget``;
4. ``Index.ingest`` of one real filing not in the library: seconds, files parsed (must
   be 1), and ``Index.documents()`` after it.

Run:  python bench/library_scale.py --store /tmp/library-scale [--documents 1000]
      [--data DIR]   (the store is rebuilt when it holds another number of documents)
Prints a markdown table and writes bench/out/library_scale.json.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    SHARED_DATA,
    Timer,
    machine,
    machine_line,
    summary_ms,
    table,
    write_json,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

import deepread
from deepread.corpus.library.front import front_matter
from deepread.corpus.library.titles import Banners, named_field
from deepread.corpus.parsing import parse_file
from deepread.records.documents import Document, FrontMatter
from deepread.text.tokens import count_tokens

DATA = SHARED_DATA
PARAGRAPHS = 50
FIRST = (
    "Keller Orchid Brant Vexa Solano Tamsin Ardent Corvel Lumen Harwick Pryce Zephyr "
    "Quill Marlow Osprey Tidewater Halcyon Birchwood Calder Fenwick"
).split()
SECOND = (
    "Dynamics Holdings Foods Energy Logistics Pharmaceuticals Networks Motors Brands "
    "Systems Minerals Textiles Airlines Foundry Analytics Retail Media Biosciences "
    "Outfitters Utilities"
).split()
NEW = "AMCOR_2023Q4_EARNINGS.pdf"


#: What each call of :class:`FirstCall` was sent.
CALLS: list[list[BaseMessage]] = []


class FirstCall(BaseChatModel):
    """Records what each call is sent (:data:`CALLS`) and answers at once (no tools)."""

    @property
    def _llm_type(self) -> str:
        return "first-call"

    def bind_tools(self, tools: Any, **kwargs: Any) -> FirstCall:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        CALLS.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="ok"))])


def company(i: int) -> str:
    first, second = FIRST[i % len(FIRST)], SECOND[(i // len(FIRST)) % len(SECOND)]
    return f"{first} {second}" + ("" if i < len(FIRST) * len(SECOND) else f" {i}")


def templates(folder: Path) -> list[tuple[Path, Any, str]]:
    """The dev filings parsed, each with the company name its cover prints."""
    parsed = []
    for pdf in sorted(folder.glob("*.pdf")):
        if pdf.name == NEW:
            continue
        structured = parse_file(pdf)
        parsed.append((pdf, structured, front_matter(structured)))
    docs = [Document(i, s.title, str(p), s.sections, front=f) for i, (p, s, f) in enumerate(parsed)]
    banners = Banners.of(docs)
    return [
        (pdf, structured, named_field(list(front.lines), banners) or structured.title)
        for pdf, structured, front in parsed
    ]


def build(index: deepread.Index, n: int, folder: Path) -> float:
    """Write ``n`` documents (see the module docstring); seconds."""
    rng = np.random.default_rng(0)
    made = templates(folder)
    with Timer() as t:
        for i in range(n):
            pdf, structured, name = made[i % len(made)]
            new = company(i)
            pattern = re.compile(re.escape(name), re.I)
            front = front_matter(structured)
            front = FrontMatter(
                metadata={},
                lines=tuple(pattern.sub(new, x) for x in front.lines),
                headings=front.headings,
                pages=front.pages,
            )
            paragraphs = structured.paragraphs[:PARAGRAPHS]
            vectors = rng.standard_normal((len(paragraphs), 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            stem = re.sub(r"^[A-Z]+", new.upper().replace(" ", ""), pdf.stem)
            index.collection.put_document(
                source=str(folder / "library" / f"{stem}_{i}.pdf"),
                title=structured.title,
                sections=structured.sections,
                paragraphs=paragraphs,
                vectors=vectors,
                content_hash=f"scale-{i}",
                front=front,
            )
            if (i + 1) % 100 == 0:
                print(f"  {i + 1}/{n} documents", file=sys.stderr)
    return t.s


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--store", required=True)
    ap.add_argument("--documents", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--toc-budget", type=int, default=4000)
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    folder = args.data / "financebench-dev"
    m = machine()
    print(machine_line(m))
    results: dict = {"machine": m, "documents": args.documents}
    store = Path(args.store)
    index = deepread.Index.open(store=store, collection="scale")
    if len(index.collection.documents()) not in (args.documents, args.documents + 1):
        index.close()
        shutil.rmtree(store, ignore_errors=True)
        index = deepread.Index.open(store=store, collection="scale")
        results["build_s"] = round(build(index, args.documents, folder), 1)
        index.close()
        index = deepread.Index.open(store=store, collection="scale")
    with index:
        stored = index.collection.documents()
        extra = [d for d in stored if Path(d.source).name == NEW]
        for doc in extra:  # the last run's new document: measured again from scratch
            index.remove(doc.doc_id)
        with Timer() as cold:
            docs = index.documents()
        with Timer() as warm:
            index.documents()
        titles = {d.title for d in docs}
        results |= {
            "documents_cold_ms": round(cold.s * 1000, 1),
            "documents_warm_ms": round(warm.s * 1000, 2),
            "distinct_titles": len(titles),
        }

        rng = random.Random(0)
        times, found = [], 0
        for _ in range(args.questions):
            doc = rng.choice(docs)
            year = re.search(r"\d{4}(?=\D*$)", doc.card.period or "") if doc.card else None
            name = next(
                c
                for i in range(args.documents)
                if (c := company(i)).upper().replace(" ", "") in Path(doc.source).stem
            )
            question = f"What was {name}'s revenue in fiscal {year[0] if year else ''}?"
            t = time.perf_counter()
            matches = index.find_documents(question)
            times.append(time.perf_counter() - t)
            found += doc.doc_id in {x.doc_id for x in matches}
        results["find_documents"] = summary_ms(times) | {
            "named_document_found": round(found / args.questions, 3)
        }

        model = FirstCall()
        CALLS.clear()
        graph = deepread.build_graph(index=index, model=model)
        question = f"What was {company(7)}'s revenue in fiscal 2022?"
        with Timer() as first:
            out = graph.invoke(
                {"question": question}, context=deepread.Context(toc_budget=args.toc_budget)
            )
        system = str(CALLS[0][0].content)
        toc = system.split("Directory Structure", 1)[1]
        results["first_call"] = {
            "seconds": round(first.s, 2),
            "toc_tokens": count_tokens(toc),
            "prompt_tokens": out.get("prompt_tokens"),
            "system_tokens": count_tokens(system),
            "toc_budget": args.toc_budget,
        }

        parsed: list[str] = []

        def progress(event: str, path: Path, done: int, total: int) -> None:
            if event == "parsed":
                parsed.append(path.name)

        with Timer() as ingest:
            index.ingest([folder / NEW], progress=progress)
        with Timer() as after:
            docs = index.documents()
        results["ingest_new"] = {
            "seconds": round(ingest.s, 1),
            "files_parsed": parsed,
            "documents_after_ms": round(after.s * 1000, 1),
            "documents": len(docs),
        }
    f = results["find_documents"]
    c = results["first_call"]
    rows = [
        ["documents", args.documents, "", ""],
        [
            "Index.documents() first / again (ms)",
            f"{results['documents_cold_ms']} / {results['documents_warm_ms']}",
            "",
            "",
        ],
        [
            "distinct titles",
            results["distinct_titles"],
            f"{args.documents}",
            "yes" if results["distinct_titles"] == args.documents else "NO",
        ],
        [
            "find_documents p50 / p95 (ms)",
            f"{f['p50_ms']:.2f} / {f['p95_ms']:.2f}",
            "≤ 50",
            "yes" if f["p95_ms"] <= 50 else "NO",
        ],
        ["named document among the matches", f["named_document_found"], "", ""],
        [
            "first call: TOC tokens",
            c["toc_tokens"],
            f"≤ {args.toc_budget}",
            "yes" if c["toc_tokens"] <= args.toc_budget else "NO",
        ],
        ["first call: whole system prompt tokens", c["system_tokens"], "", ""],
        [
            "ingest of a new filing (s), files parsed",
            f"{results['ingest_new']['seconds']}, {len(parsed)}",
            "1 file",
            "yes" if parsed == [NEW] else "NO",
        ],
        ["Index.documents() after it (ms)", results["ingest_new"]["documents_after_ms"], "", ""],
    ]
    print(table(["measure", "figure", "target", "met"], rows))
    print(f"\nwrote {write_json('library_scale', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
