"""The ``deepread`` command line: ingest, toc, search, read, ask.

Every command takes ``--store PATH|URL`` (default ``DEEPREAD_STORE`` / ``QDRANT_URL`` /
the per-user data directory), ``--collection NAME`` (default ``default``) and
``--json`` for machine-readable output. Exit codes: 0 success, 1 some input failed
(the rest was done), 2 bad usage or coordinates, 3 the store cannot be used, 4 the
model failed (``ask``); 130 / 143 interrupted by SIGINT / SIGTERM.

Output hygiene: every line meant for people goes through
:func:`deepread.terminal.say` (controls and bidi overrides in document text, file names
and answers shown as escapes), every ``--json`` document through
:func:`deepread.json_output.to_json`. Input hygiene: arguments that are not valid
UTF-8 are decoded from their bytes (:func:`deepread.text.hygiene.decode_argument`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepread.terminal import say, terminal_text

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_STORE, EXIT_MODEL = 0, 1, 2, 3, 4

#: Integer options and the least value each accepts (argparse's ``dest`` → flag, min).
MINIMUMS: dict[str, tuple[str, int]] = {
    "k": ("--k", 1), "window": ("--window", 0), "budget": ("--budget", 1),
    "describe_max_sections": ("--describe-max-sections", 0),
    "describe_max_tokens": ("--describe-max-tokens", 0),
    "doc_id": ("DOC", 0), "sec_id": ("SEC", 0), "start": ("START", 0), "end": ("END", 0),
    "workers": ("--workers", 1), "limit": ("--limit", 1), "sample": ("--sample", 1),
    "max_rounds": ("--max-rounds", 1), "n": ("--n", 1), "docs": ("--docs", 1),
    "seed": ("--seed", 0),
}
#: Arguments that name files: kept as the bytes the system gave (a file name need not
#: be valid UTF-8); every other text argument is decoded and cleaned.
PATH_ARGUMENTS = frozenset({"paths", "store", "out", "dataset", "checkpointer"})


def _emit(data: Any) -> None:
    """One ``--json`` document on stdout (:mod:`deepread.json_output`)."""
    from deepread.json_output import to_json

    sys.stdout.write(to_json(data) + "\n")


def _fail(message: object) -> None:
    say(f"deepread: {message}", err=True)


def _store(args: argparse.Namespace) -> str:
    """``--store``, else what the environment names (:mod:`deepread.environment.settings`)."""
    from deepread.environment.settings import current

    return args.store if args.store is not None else current().store


def _default_model(name: str) -> str | None:
    """``DEEPREAD_<NAME>`` as a flag's default (None when unset)."""
    from deepread.environment.settings import current

    return current().context_defaults.get(name) or None


def _open(args: argparse.Namespace):  # -> deepread.Index (imported lazily: fast --help)
    from deepread.corpus.index import Index

    # None for --embeddings / --rerank lets Index.open take DEEPREAD_EMBEDDINGS /
    # DEEPREAD_RERANK from the settings: one resolver for the CLI and Python.
    return Index.open(store=_store(args), collection=args.collection,
                      embeddings=args.embeddings, reranker=getattr(args, "rerank", None))


def _paragraph_json(p) -> dict[str, Any]:
    return {"doc_id": p.doc_id, "sec_id": p.sec_id, "para_idx": p.para_idx, "text": p.text,
            "kind": p.kind, "page": p.page}


def _print_paragraphs(paragraphs) -> None:
    for p in paragraphs:
        page = f" p.{p.page}" if p.page else ""
        say(f"[{p.doc_id}:{p.sec_id}:{p.para_idx}]{page} ({p.kind}) {p.text}")


# -- commands ---------------------------------------------------------------------------

def cmd_ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from deepread.interrupts import Interrupted

    idx = _open(args)
    bar = tqdm(desc="ingest", unit="file", disable=args.json or not sys.stderr.isatty(),
               file=sys.stderr)
    counts = {"stored": 0, "skip": 0}

    def progress(event: str, path: Path, done: int, total: int) -> None:
        if event in ("stored", "skip"):
            counts[event] += 1
        bar.total = total
        name = terminal_text(path.name)
        if event == "optimize":
            say(f"building the vector index of collection {args.collection!r}…", err=True)
        elif event in ("stored", "failed", "skip"):
            bar.n = done
            bar.set_postfix_str(f"{event} {name}", refresh=True)
        elif not bar.disable:
            bar.set_postfix_str(f"embedding {name}", refresh=True)
        if bar.disable and not args.json and event != "parsed":
            say(f"{event:>7} {path}", err=True)

    from deepread.corpus.describe import DescribeBudget
    from deepread.models.chat import ModelConfigError

    try:
        result = idx.ingest_report(
            args.paths, progress=progress, ocr_model=args.ocr_model,
            vision_model=args.vision_model, describe_model=args.describe_model,
            describe_budget=DescribeBudget(max_sections=args.describe_max_sections,
                                           max_tokens=args.describe_max_tokens),
            force=args.force)
    except ModelConfigError as exc:
        _fail(exc)
        return EXIT_USAGE
    except Interrupted as exc:
        bar.close()
        idx.close()  # a document is stored whole or not at all: a re-run is exact
        from deepread.corpus.files import expand_paths

        found, _ = expand_paths(args.paths)  # a walk, no reading: M of "N of M"
        if args.force:
            # A plain re-run would call the files not yet done "unchanged" and keep
            # their earlier parse: only --force again finishes what was asked.
            _fail(f"interrupted; {counts['stored'] + counts['skip']} of {len(found)} "
                  "files stored again, the others keep their earlier parse; re-run with "
                  "--force to continue")
        else:
            _fail(f"interrupted; {counts['stored'] + counts['skip']} of {len(found)} "
                  "files stored; re-run to continue")
        return exc.exit_code
    finally:
        bar.close()
        idx.close()
    docs = result.documents + result.skipped
    if args.json:
        _emit({
            "documents": [{"doc_id": d.doc_id, "source": d.source, "title": d.title,
                           "sections": len(d.sections), "paragraphs": d.n_para,
                           "tokens": d.n_tok, "unchanged": d in result.skipped}
                          for d in docs],
            "failures": [{"path": f.path, "reason": f.reason} for f in result.failures],
            "unsupported": [str(p) for p in result.unsupported],
        })
    else:
        for d in docs:
            state = "unchanged" if d in result.skipped else "stored"
            say(f"({d.doc_id}) {d.title} — {len(d.sections)} sections, {d.n_para} "
                f"paragraphs, {d.n_tok} tokens [{state}] {d.source}")
        for f in result.failures:
            say(f"FAILED {f.path}: {f.reason}", err=True)
        for path in result.unsupported:
            say(f"skipped {path}: not a supported type", err=True)
        say(f"{len(result.documents)} stored, {len(result.skipped)} unchanged, "
            f"{len(result.failures)} failed (collection {args.collection!r})", err=True)
    if not docs and not result.failures:
        say("no supported files found", err=True)
        return EXIT_USAGE
    return EXIT_PARTIAL if result.failures else EXIT_OK


def cmd_toc(args: argparse.Namespace) -> int:
    from deepread.nodes.toc import render_toc

    with _open(args) as idx:
        docs = idx.toc(args.doc) if args.doc else idx.toc()
    if args.json:
        _emit({"documents": [d.to_dict() for d in docs]})
        return EXIT_OK
    if not docs:
        say(f"collection {args.collection!r} is empty", err=True)
        return EXIT_OK
    say(render_toc(docs, args.budget).text)
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    with _open(args) as idx:
        result = idx.search(args.query, k=args.k, window=tuple(args.window),
                            doc_id=args.doc, mode=args.mode)
    if args.json:
        _emit({"query": result.query,
               "hits": [h.to_dict() for h in result.hits],
               "paragraphs": [_paragraph_json(p) for p in result.paragraphs]})
        return EXIT_OK
    for rank, h in enumerate(result.hits, 1):
        say(f"#{rank} [{h.doc_id}:{h.sec_id}:{h.para_idx}] score={h.score:.4f}")
    say("")
    _print_paragraphs(result.paragraphs)
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    with _open(args) as idx:
        got = idx.read(args.doc_id, args.sec_id, args.start, args.end)
    if args.json:
        _emit({"doc_id": got.doc_id, "sec_id": got.sec_id, "start": got.start,
               "end": got.end, "paragraphs": [_paragraph_json(p) for p in got.paragraphs]})
        return EXIT_OK
    if not got.paragraphs:
        say(f"no paragraphs in ({got.doc_id}) [{got.sec_id}] range {got.start}..{got.end}",
            err=True)
    _print_paragraphs(got.paragraphs)
    return EXIT_OK


def _clip(text: str, limit: int = 160) -> str:
    """``text`` cut to ``limit`` characters for a progress line (a model may pass, or a
    user ask, a question of pages; the line is a step, not a transcript)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _one_line(update: dict[str, Any]) -> list[str]:
    """Human lines for one streamed graph update (any node's)."""
    from deepread.nodes.tools.observation import Observation

    lines = []
    for msg in update.get("messages") or []:
        for call in getattr(msg, "tool_calls", None) or []:
            args = ", ".join(f"{k}={_clip(repr(v))}" for k, v in call["args"].items())
            lines.append(f"→ {call['name']}({args})")
        # Every tool result, whichever node wrote it (the check's extra read included).
        if getattr(msg, "tool_call_id", None):
            obs = Observation.of(msg)
            if msg.status == "error":
                lines.append(f"← {msg.name}: {obs.error or msg.content}")
                continue
            rows = obs.paragraphs
            if not rows and obs.hits is None:  # a text result (a TOC, a resolution)
                first = next((ln.strip() for ln in str(msg.content).splitlines()
                              if ln.strip()), "")
                lines.append(f"← {msg.name}: {first[:100]}{' …' if len(first) > 100 else ''}")
                continue
            repeats = sum(r.repeat for r in rows)
            coords = " ".join(f"[{r.doc_id}:{r.sec_id}:{r.para_idx}]" for r in rows[:4])
            more = " …" if len(rows) > 4 else ""
            hits = f"{len(obs.hits)} hits, " if obs.hits is not None else ""
            lines.append(f"← {msg.name}: {hits}{len(rows)} paragraphs"
                         f"{f' ({repeats} already read)' if repeats else ''} {coords}{more}")
    return lines


def cmd_ask(args: argparse.Namespace) -> int:
    import uuid

    from deepread.checkpointers import CheckpointerError, open_checkpointer
    from deepread.graphs.agent import build_graph
    from deepread.nodes.context import Context
    from deepread.stores.backend import UsageError
    from deepread.stores.location import sidecar_dir
    from deepread.text.hygiene import clean_query

    if not clean_query(args.question).strip():
        raise UsageError("the question is empty")
    store = _store(args)
    # The index is opened here and given to the graph, so the context names no store or
    # collection (never both); a flag left out is not passed, so DEEPREAD_<FIELD> applies.
    given = {"documents": args.doc, "model": args.model}
    context = Context(**{k: v for k, v in given.items() if v is not None})
    if len(args.question) > context.max_question_chars:
        raise UsageError(f"the question is {len(args.question)} characters; at most "
                         f"{context.max_question_chars} are accepted "
                         "(DEEPREAD_MAX_QUESTION_CHARS)")
    thread = args.thread or uuid.uuid4().hex[:12]
    checkpoints = sidecar_dir(store) / "checkpoints.sqlite"
    idx = _open(args)
    if not idx.documents():
        idx.close()
        _fail(f"collection {args.collection!r} is empty; run deepread ingest first")
        return EXIT_USAGE
    output: dict[str, Any] = {}
    try:
        with open_checkpointer(args.checkpointer, checkpoints) as saver:
            graph = build_graph(index=idx, checkpointer=saver)
            config = {"configurable": {"thread_id": thread}}
            # One checkpoint per question, not one per step: a 50-round run writes
            # 0.08 MB instead of 6.7 MB (docs/benchmarks.md, checkpoints). A question
            # stopped halfway leaves the thread as it was before it.
            for chunk in graph.stream({"question": args.question}, config, context=context,
                                      stream_mode="updates", durability="exit"):
                for node, update in chunk.items():
                    if not args.json:
                        for line in _one_line(update or {}):
                            say(line, err=True)
                    if node == "finalize":  # the outputs; the chat stays in the thread
                        output = {k: v for k, v in update.items() if k != "messages"}
        titles = {d.doc_id: d for d in idx.documents()}
    except CheckpointerError as exc:
        _fail(exc)
        return EXIT_USAGE
    finally:
        idx.close()
    output["thread_id"] = thread
    if args.json:
        _emit(output)
    else:
        if output.get("answer"):
            say(output["answer"])
        if output.get("citations"):
            say("\nCitations:")
            for c in output["citations"]:
                doc = titles.get(c["doc_id"])
                sec = doc.sections[c["sec_id"]].title if doc else ""
                say(f"  [{c['doc_id']}:{c['sec_id']}:{c['para_idx']}] "
                    f"{doc.title if doc else '?'} › {sec}")
        if output.get("dropped_citations"):
            say(f"  ({output['dropped_citations']} citation(s) of unread paragraphs dropped)")
        say(f"\n[stop: {output.get('stop_reason')}; thread {thread} — continue with "
            f"--thread {thread}]", err=True)
    if output.get("stop_reason") == "error":
        _fail(output.get("error"))
        return EXIT_MODEL
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    from deepread.corpus.ingest import IngestError
    from deepread.evaluation.dataset import DatasetError
    from deepread.evaluation.runner import EvalConfig, EvalError, run_eval
    from deepread.models.chat import ModelConfigError

    try:
        collection = args.collection or _eval_collection(Path(args.dataset), args.format)
    except DatasetError as exc:
        _fail(exc)
        return EXIT_USAGE
    config = EvalConfig(
        dataset=Path(args.dataset), store=args.store, collection=collection,
        modes=tuple(args.mode or ()), expand=args.expand,
        model=args.model if args.model is not None else (_default_model("model") or ""),
        judge_model=args.judge_model or "", workers=args.workers,
        out=Path(args.out) if args.out else None, limit=args.limit, k=args.k,
        max_rounds=args.max_rounds, embeddings=args.embeddings, format=args.format,
        sample=args.sample, seed=args.seed, ingest=not args.no_ingest,
        flat=not args.no_flat)
    try:
        result = run_eval(config, progress=not args.json and sys.stderr.isatty(),
                          say=lambda m: say(m, err=True))
    except (DatasetError, EvalError, ModelConfigError) as exc:
        _fail(exc)
        return EXIT_USAGE
    except IngestError as exc:
        _fail(exc)
        return EXIT_PARTIAL
    for line in result.failures:
        say(f"FAILED {line}", err=True)
    if args.json:
        _emit(result.summary | {"out": result.out, "ran": result.ran,
                                "skipped": result.skipped, "failures": result.failures})
    else:
        say((result.out / "summary.md").read_text(encoding="utf-8"))
        say(f"{result.ran} answered, {result.skipped} already done, "
            f"{len(result.failures)} failed; outputs in {result.out}", err=True)
    return EXIT_PARTIAL if result.failures else EXIT_OK


def _eval_collection(dataset: Path, format: str | None) -> str:
    """The collection a run uses when none is named: a benchmark's own (its folder's
    name), so that its PDFs are not ingested into the user's default collection."""
    import re

    from deepread.evaluation.formats import DEEPREAD, detect_format

    if not dataset.is_file() or (format or detect_format(dataset)) == DEEPREAD:
        return "default"
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", dataset.resolve().parent.name).strip("-_")
    return name or "benchmark"


def cmd_synth(args: argparse.Namespace) -> int:
    from deepread.evaluation.synth import synthesize
    from deepread.models.chat import ModelConfigError, chat_model
    from deepread.stores.backend import UsageError

    name = args.model or _default_model("model") or ""
    if not name:
        _fail("synth needs a chat model to write questions: pass --model (or set "
              "DEEPREAD_MODEL) with OPENAI_API_KEY or OPENAI_BASE_URL")
        return EXIT_USAGE
    try:
        model = chat_model(name, temperature=0.7)  # the paper synthesised at 0.7
    except ModelConfigError as exc:
        _fail(exc)
        return EXIT_USAGE
    with _open(args) as idx:
        if not idx.documents():
            _fail(f"collection {args.collection!r} is empty; run deepread ingest first")
            return EXIT_USAGE
        try:
            items = synthesize(idx, model, n=args.n, docs=args.docs, seed=args.seed,
                               say=lambda m: say(m, err=True))
        except UsageError as exc:
            _fail(exc)
            return EXIT_USAGE
        except Exception as exc:  # provider errors: report, nothing half-written
            _fail(f"the model failed: {type(exc).__name__}: {exc}")
            return EXIT_MODEL
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items),
                   encoding="utf-8")
    if args.json:
        _emit({"out": str(out), "pairs": len(items)})
    else:
        say(f"{len(items)} QA pairs written to {out}", err=True)
    return EXIT_OK if len(items) >= args.n else EXIT_PARTIAL


# -- parser -----------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--store", default=None,
                        help="store directory or Qdrant URL (default: $DEEPREAD_STORE, "
                             "$QDRANT_URL, or the per-user data directory)")
    common.add_argument("--collection", default="default", help="collection name")
    common.add_argument("--embeddings", default=None,
                        help="'local' (default, offline) or 'openai:<model>'; default "
                             "$DEEPREAD_EMBEDDINGS")
    common.add_argument("--json", action="store_true", help="machine-readable output")

    parser = _Parser(
        prog="deepread", description="Locate, then read: question answering over long "
        "structured documents (DeepRead).")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", parents=[common], help="ingest files or folders")
    p.add_argument("paths", nargs="+", help="files (.pdf .docx .html .md .txt) or folders")
    p.add_argument("--ocr-model", default=_default_model("ocr_model"),
                   help="vision model that reads PDF pages as images into Markdown (the "
                        "paper's OCR route; default $DEEPREAD_OCR_MODEL, else the text layer)")
    p.add_argument("--vision-model", default=_default_model("vision_model"),
                   help="vision model that describes figures (default $DEEPREAD_VISION_MODEL)")
    p.add_argument("--describe-model",
                   default=_default_model("describe_model"),
                   help="chat model that writes a one-line summary per section for the TOC "
                        "(default $DEEPREAD_DESCRIBE_MODEL)")
    p.add_argument("--describe-max-sections", type=int, default=200,
                   help="at most this many sections described per ingest (default 200)")
    p.add_argument("--describe-max-tokens", type=int, default=200_000,
                   help="at most this many prompt tokens for section summaries per ingest "
                        "(default 200000)")
    p.add_argument("--force", action="store_true",
                   help="parse and store unchanged files again too (after an upgrade whose "
                        "parser or search terms changed; they keep their doc_ids)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("toc", parents=[common], help="show the table of contents")
    p.add_argument("--doc", type=int, nargs="+", help="only these doc_ids")
    p.add_argument("--budget", type=int, default=None,
                   help="token budget for the text TOC (collapses deepest levels first)")
    p.set_defaults(func=cmd_toc)

    p = sub.add_parser("search", parents=[common], help="Retrieve: ranked paragraphs")
    p.add_argument("query")
    p.add_argument("--k", type=int, default=5, help="number of hits (default 5)")
    p.add_argument("--window", type=int, nargs=2, default=(0, 0), metavar=("UP", "DOWN"),
                   help="paragraphs to add above/below each hit, inside its section")
    p.add_argument("--doc", type=int, nargs="+", help="only these doc_ids")
    p.add_argument("--mode", choices=("dense", "bm25", "hybrid"), default=None,
                   help="ranking (default hybrid)")
    p.add_argument("--rerank", choices=("coverage", "none"), default=None,
                   help="second stage over 30 candidates (default coverage, "
                        "$DEEPREAD_RERANK)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("read", parents=[common], help="ReadSection: a paragraph range")
    p.add_argument("doc_id", type=int)
    p.add_argument("sec_id", type=int)
    p.add_argument("start", type=int, nargs="?", default=0)
    p.add_argument("end", type=int, nargs="?", default=10**9,
                   help="inclusive; clipped to the section (default: to its end)")
    p.set_defaults(func=cmd_read)

    p = sub.add_parser("ask", parents=[common], help="answer a question (the DeepRead agent)")
    p.add_argument("question")
    p.add_argument("--doc", type=int, nargs="+", help="only these doc_ids")
    p.add_argument("--model", default=None,
                   help="chat model on an OpenAI-compatible endpoint (OPENAI_API_KEY, "
                        "OPENAI_BASE_URL); default $DEEPREAD_MODEL, else the offline "
                        "extractive policy")
    p.add_argument("--thread", default=None,
                   help="continue this conversation (its read regions included)")
    p.add_argument("--checkpointer", default=None,
                   help="where conversations are kept: a postgres:// URL (deepread[postgres];"
                        " shared by several processes) or a SQLite file; default "
                        "$DEEPREAD_CHECKPOINTER, else checkpoints.sqlite beside the store")
    p.set_defaults(func=cmd_ask)

    # Without --collection a benchmark gets a collection of its own (_eval_collection):
    # a copy of the common options with no default collection (argparse shares the
    # parent's option objects, so setting the default on ``common`` would change it for
    # every command).
    import copy

    eval_common = copy.deepcopy(common)
    eval_common.set_defaults(collection=None)
    p = sub.add_parser(
        "eval", parents=[eval_common],
        help="evaluate DeepRead and baselines on a QA dataset",
        description="Evaluate on a QA dataset: deepread's JSONL, FinanceBench's JSONL or "
                    "SyllabusQA's CSV, as published. Benchmark questions are each "
                    "answered scoped to their own PDF, which is ingested from the "
                    "dataset's folder if the collection lacks it (default collection: "
                    "the folder's name); a flat baseline of the same PDFs at the agent's "
                    "spend comes in the same run.")
    p.add_argument("dataset", help="deepread JSONL (id, question, answer, optional type and "
                                   "evidence), FinanceBench JSONL or SyllabusQA CSV")
    p.add_argument("--format", choices=("deepread", "financebench", "syllabusqa"),
                   default=None, help="the dataset's format (default: told by the file)")
    p.add_argument("--mode", action="append", default=None,
                   help="deepread, search-o1, read-only, dense-rag, or flat-<size>@<budget> "
                        "(e.g. flat-800@1500); repeat for several (default: the first four; "
                        "benchmarks: deepread)")
    p.add_argument("--expand", action="store_true",
                   help="scanning window (1, 1) around each retrieve hit (agent modes)")
    p.add_argument("--model", default=None,
                   help="policy chat model (default $DEEPREAD_MODEL, else the offline "
                        "extractive policy)")
    p.add_argument("--judge-model", default=None,
                   help="LLM judge (paper Fig. 6); without one accuracy is not judged")
    p.add_argument("--workers", type=int, default=4, help="questions answered in parallel")
    p.add_argument("--out", default=None,
                   help="output folder (default ./eval-out/<timestamp>); an existing one "
                        "resumes")
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--sample", type=int, default=None,
                   help="a random sample of N questions (seeded; reported as a subset)")
    p.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    p.add_argument("--no-ingest", action="store_true",
                   help="benchmarks: stop and print the ingest command instead of "
                        "ingesting question documents missing from the collection")
    p.add_argument("--no-flat", action="store_true",
                   help="benchmarks: skip the flat PDF-window baseline (no flat figures; "
                        "saves its text-layer extraction and embedding)")
    p.add_argument("--k", type=int, default=None,
                   help="hits per retrieve call (default $DEEPREAD_K, else 5)")
    p.add_argument("--max-rounds", type=int, default=None,
                   help="tool rounds per question (default $DEEPREAD_MAX_ROUNDS, else the "
                        "paper's 50)")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("synth", parents=[common],
                       help="write multi-document QA pairs (paper Fig. 7) with a chat model")
    p.add_argument("--model", default=None, help="chat model (default $DEEPREAD_MODEL)")
    p.add_argument("--n", type=int, default=10, help="QA pairs to write (default 10)")
    p.add_argument("--docs", type=int, default=2, help="documents per question (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the document draw")
    p.add_argument("--out", required=True, help="output JSONL file")
    p.set_defaults(func=cmd_synth)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors (which quote the arguments) terminal-safe."""

    def _print_message(self, message: str, file: Any = None) -> None:
        super()._print_message(terminal_text(message) if message else message, file)


def _clean_arguments(args: argparse.Namespace) -> None:
    """Decode arguments that were not valid UTF-8; file names keep their bytes."""
    from deepread.text.hygiene import decode_argument

    for name, value in vars(args).items():
        if name in PATH_ARGUMENTS:
            continue
        if isinstance(value, str):
            setattr(args, name, decode_argument(value))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            setattr(args, name, [decode_argument(v) for v in value])


def _check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Ranges of integer options and an empty ``--store``: exit 2 before any work."""
    for name, (flag, least) in MINIMUMS.items():
        value = getattr(args, name, None)
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, int) and v < least:
                parser.error(f"{flag} must be at least {least} (got {v})")
    store = getattr(args, "store", None)
    if store is not None and not store.strip():
        parser.error("--store is empty; pass a store directory or a Qdrant URL")


def main(argv: Sequence[str] | None = None) -> int:
    process = argv is None  # the console script, not a call from Python
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mcp"]:  # the MCP server parses its own options (deepread/mcp_server.py)
        from deepread.mcp_server import main as mcp_main

        return mcp_main(argv[1:])
    if process:  # the console script, not a program calling main(): its handlers stay
        from deepread.fatal_signals import report_fatal_signals

        report_fatal_signals()
    parser = build_parser()
    args = parser.parse_args(argv)
    _clean_arguments(args)
    _check_arguments(parser, args)
    from deepread.interrupts import Interrupted, as_interrupted, interruptible

    try:
        with interruptible():
            return _run(args)
    except (Interrupted, KeyboardInterrupt) as exc:  # outside a command's own handling
        interrupted = as_interrupted(exc)
        _fail("interrupted")
        return interrupted.exit_code


def _run(args: argparse.Namespace) -> int:
    """The command, its expected failures mapped to exit codes with one line each.

    Only deepread's own error classes are mapped: a ``KeyError`` or ``ValueError`` from
    anywhere else is a bug, and its traceback is the report it deserves.
    """
    import errno
    import sqlite3

    from deepread.checkpointers import CheckpointerError
    from deepread.corpus.parsing import ParseError
    from deepread.environment.settings import SettingsError
    from deepread.models.chat import ModelConfigError
    from deepread.nodes.context import ContextError
    from deepread.stores.backend import CoordinateError, StoreError, UsageError
    from deepread.stores.location import check_store_directory, is_url

    try:
        if getattr(args, "store", None) and not is_url(args.store):
            check_store_directory(args.store)  # a file, not a folder: exit 3, nothing written
        return args.func(args)
    except BrokenPipeError:
        # Output piped into `head` and the like: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except StoreError as exc:
        _fail(exc)
        return EXIT_STORE
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        _fail(f"no space left on the device: {exc}")
        return EXIT_STORE
    except sqlite3.OperationalError as exc:  # the conversation checkpoints beside the store
        if "full" not in str(exc):
            raise
        _fail(f"no space left for the conversation checkpoints beside the store: {exc}")
        return EXIT_STORE
    except (UsageError, CoordinateError, ParseError, ContextError, SettingsError,
            CheckpointerError, ModelConfigError) as exc:
        _fail(exc)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
