"""``deepread eval`` (a QA set through the paper's modes) and ``deepread synth`` (QA pairs).

``eval`` draws Fig. 3-style plots with matplotlib, which is the ``eval`` extra: without
it the run stops before any work and says what to install (exit 2,
:func:`deepread.evaluation.runner.require_plots`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from deepread.cli.common import (
    EXIT_MODEL,
    EXIT_OK,
    EXIT_PARTIAL,
    EXIT_USAGE,
    default_model,
    emit,
    fail,
    open_index,
)
from deepread.terminal import say


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    """The ``eval`` and ``synth`` commands."""
    eval_parser = _eval_parser(sub, common)
    _what_is_evaluated(eval_parser)
    _how_it_runs(eval_parser)
    _benchmark_options(eval_parser)
    _agent_limits(eval_parser)
    eval_parser.set_defaults(func=cmd_eval)
    _synth_parser(sub, common)


def _eval_parser(
    sub: argparse._SubParsersAction, common: argparse.ArgumentParser
) -> argparse.ArgumentParser:
    # Without --collection a benchmark gets a collection of its own (eval_collection):
    # a copy of the common options with no default collection (argparse shares the
    # parent's option objects, so setting the default on ``common`` would change it for
    # every command).
    import copy

    eval_common = copy.deepcopy(common)
    eval_common.set_defaults(collection=None)
    p = sub.add_parser(
        "eval",
        parents=[eval_common],
        help="evaluate DeepRead and baselines on a QA dataset",
        description="Evaluate on a QA dataset: deepread's JSONL, FinanceBench's JSONL or "
        "SyllabusQA's CSV, as published. Benchmark questions are each "
        "answered scoped to their own PDF, which is ingested from the "
        "dataset's folder if the collection lacks it (default collection: "
        "the folder's name); a flat baseline of the same PDFs at the agent's "
        "spend comes in the same run.",
    )
    return p


def _what_is_evaluated(p: argparse.ArgumentParser) -> None:
    """The dataset, the modes compared, the models."""
    p.add_argument(
        "dataset",
        help="deepread JSONL (id, question, answer, optional type and "
        "evidence), FinanceBench JSONL or SyllabusQA CSV",
    )
    p.add_argument(
        "--format",
        choices=("deepread", "financebench", "syllabusqa"),
        default=None,
        help="the dataset's format (default: told by the file)",
    )
    p.add_argument(
        "--mode",
        action="append",
        default=None,
        help="deepread, search-o1, read-only, dense-rag, or flat-<size>@<budget> "
        "(e.g. flat-800@1500); repeat for several (default: the first four; "
        "benchmarks: deepread)",
    )
    p.add_argument(
        "--expand",
        action="store_true",
        help="scanning window (1, 1) around each retrieve hit (agent modes)",
    )
    p.add_argument(
        "--model",
        default=None,
        help="policy chat model (default $DEEPREAD_MODEL, else the offline extractive policy)",
    )
    p.add_argument(
        "--judge-model",
        default=None,
        help="LLM judge (paper Fig. 6); without one accuracy is not judged",
    )


def _how_it_runs(p: argparse.ArgumentParser) -> None:
    """Parallelism, output folder, and which questions."""
    p.add_argument("--workers", type=int, default=4, help="questions answered in parallel")
    p.add_argument(
        "--out",
        default=None,
        help="output folder (default ./eval-out/<timestamp>); an existing one resumes",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument(
        "--sample",
        type=int,
        default=None,
        help="a random sample of N questions (seeded; reported as a subset)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")


def _benchmark_options(p: argparse.ArgumentParser) -> None:
    """What a benchmark run ingests, compares and scopes."""
    p.add_argument(
        "--no-ingest",
        action="store_true",
        help="benchmarks: stop and print the ingest command instead of "
        "ingesting question documents missing from the collection",
    )
    p.add_argument(
        "--no-flat",
        action="store_true",
        help="benchmarks: skip the flat PDF-window baseline (no flat figures; "
        "saves its text-layer extraction and embedding)",
    )
    p.add_argument(
        "--library",
        action="store_true",
        help="benchmarks: ask each question of the whole collection, not scoped "
        "to its document, and report how often its document was read "
        "(no flat baseline)",
    )


def _agent_limits(p: argparse.ArgumentParser) -> None:
    """The agent's hits per search and rounds per question."""
    p.add_argument(
        "--k", type=int, default=None, help="hits per retrieve call (default $DEEPREAD_K, else 5)"
    )
    p.add_argument(
        "--max-rounds",
        type=int,
        default=None,
        help="tool rounds per question (default $DEEPREAD_MAX_ROUNDS, else the paper's 50)",
    )


def _synth_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "synth",
        parents=[common],
        help="write multi-document QA pairs (paper Fig. 7) with a chat model",
    )
    p.add_argument("--model", default=None, help="chat model (default $DEEPREAD_MODEL)")
    p.add_argument("--n", type=int, default=10, help="QA pairs to write (default 10)")
    p.add_argument("--docs", type=int, default=2, help="documents per question (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the document draw")
    p.add_argument("--out", required=True, help="output JSONL file")
    p.set_defaults(func=cmd_synth)


def cmd_eval(args: argparse.Namespace) -> int:
    from deepread.corpus.pipeline import IngestError
    from deepread.evaluation.config import EvalConfig
    from deepread.evaluation.dataset import DatasetError
    from deepread.evaluation.runner import EvalError, run_eval
    from deepread.models.chat import ModelConfigError

    try:
        collection = args.collection or eval_collection(Path(args.dataset), args.format)
    except DatasetError as exc:
        fail(exc)
        return EXIT_USAGE
    config = EvalConfig(
        dataset=Path(args.dataset),
        store=args.store,
        collection=collection,
        modes=tuple(args.mode or ()),
        expand=args.expand,
        model=args.model if args.model is not None else (default_model("model") or ""),
        judge_model=args.judge_model or "",
        workers=args.workers,
        out=Path(args.out) if args.out else None,
        limit=args.limit,
        k=args.k,
        max_rounds=args.max_rounds,
        embeddings=args.embeddings,
        format=args.format,
        sample=args.sample,
        seed=args.seed,
        ingest=not args.no_ingest,
        flat=not args.no_flat,
        library=args.library,
    )
    try:
        result = run_eval(
            config, progress=not args.json and sys.stderr.isatty(), say=lambda m: say(m, err=True)
        )
    except (DatasetError, EvalError, ModelConfigError) as exc:
        fail(exc)
        return EXIT_USAGE
    except IngestError as exc:
        fail(exc)
        return EXIT_PARTIAL
    for line in result.failures:
        say(f"FAILED {line}", err=True)
    if args.json:
        emit(
            result.summary
            | {
                "out": result.out,
                "ran": result.ran,
                "skipped": result.skipped,
                "failures": result.failures,
            }
        )
    else:
        say((result.out / "summary.md").read_text(encoding="utf-8"))
        say(
            f"{result.ran} answered, {result.skipped} already done, "
            f"{len(result.failures)} failed; outputs in {result.out}",
            err=True,
        )
    return EXIT_PARTIAL if result.failures else EXIT_OK


def eval_collection(dataset: Path, format: str | None) -> str:
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
    from deepread.records.errors import UsageError

    name = args.model or default_model("model") or ""
    if not name:
        fail(
            "synth needs a chat model to write questions: pass --model (or set "
            "DEEPREAD_MODEL) with OPENAI_API_KEY or OPENAI_BASE_URL"
        )
        return EXIT_USAGE
    try:
        model = chat_model(name, temperature=0.7)  # the paper synthesised at 0.7
    except ModelConfigError as exc:
        fail(exc)
        return EXIT_USAGE
    with open_index(args) as idx:
        if not idx.documents():
            fail(f"collection {args.collection!r} is empty; run deepread ingest first")
            return EXIT_USAGE
        try:
            items = synthesize(
                idx, model, n=args.n, docs=args.docs, seed=args.seed, say=lambda m: say(m, err=True)
            )
        except UsageError as exc:
            fail(exc)
            return EXIT_USAGE
        except Exception as exc:  # provider errors: report, nothing half-written
            fail(f"the model failed: {type(exc).__name__}: {exc}")
            return EXIT_MODEL
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8"
    )
    if args.json:
        emit({"out": str(out), "pairs": len(items)})
    else:
        say(f"{len(items)} QA pairs written to {out}", err=True)
    return EXIT_OK if len(items) >= args.n else EXIT_PARTIAL
