"""``run_eval``: answer a dataset in every requested mode, in parallel, resumably.

One :class:`~deepread.Index` is opened per collection and shared by all worker threads
(the embedded engine admits one opener per process; reads are thread-safe), and one
compiled graph per agent mode is shared likewise. Every finished question is appended
to its mode's trajectory file at once, so a killed run resumes where it stopped: ids
whose last record has the same configuration and the same item (question and gold) and
did not end in a model error are skipped (and only judged, when a judge is configured
now and was not then).
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, TypeGuard

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig

from deepread.corpus.index import Index
from deepread.evaluation.answer_evidence import answer_metrics
from deepread.evaluation.benchmark import Shown, abstention, pieces, score, shown_paragraphs
from deepread.evaluation.chunks import chunk_collection, ensure_chunks
from deepread.evaluation.config import EvalConfig
from deepread.evaluation.dataset import Dataset, Question
from deepread.evaluation.evidence import DocResolver, Piece, coverage
from deepread.evaluation.flat import run_flat
from deepread.evaluation.flat_windows import MIN_BUDGET, STEP, WORDS, FlatWindows, char_tokens
from deepread.evaluation.formats import read_dataset
from deepread.evaluation.judge import Judge
from deepread.evaluation.metrics import behaviour
from deepread.evaluation.modes import DEFAULT_MODES, EXPAND_WINDOW, ModeSpec, parse_mode
from deepread.evaluation.records import RecordWriter, read_records, trajectory_path
from deepread.evaluation.report import write_reports
from deepread.evaluation.scope import ScopeError, ensure_documents, scope_of
from deepread.evaluation.shingles import SCORING
from deepread.evaluation.trajectory import compact_coords, trace_agent
from deepread.nodes.read_memory import index_scope, view
from deepread.text.redaction import redact_url
from deepread.text.tokens import count_tokens


class EvalError(ValueError):
    """The evaluation cannot start (empty collection, bad mode…); the message says why."""


def require_plots() -> None:
    """matplotlib (the ``eval`` extra) draws the plots: without it, an :class:`EvalError`
    saying what to install, before any work (a run can take hours; the plots come last)."""
    from importlib.util import find_spec

    if find_spec("matplotlib") is None:
        raise EvalError(
            "evaluation draws its plots with matplotlib, which is not "
            "installed: pip install 'deepread[eval]' (from a clone: "
            "pip install -e '.[eval]')"
        )


@dataclass(slots=True)
class EvalResult:
    """Where the outputs went, the summary, and what could not be run."""

    out: Path
    summary: dict[str, Any]
    ran: int = 0
    skipped: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Mode:
    spec: ModeSpec
    variant: str
    settings: dict[str, Any]
    run: Callable[[Question], dict[str, Any]]


@dataclass(slots=True)
class _Setup:
    """What every mode of one run shares."""

    config: EvalConfig
    dataset: Dataset
    index: Index
    opened: list[Index]
    resolver: DocResolver
    model: BaseChatModel | None
    model_name: str
    say: Callable[[str], None]
    flat: FlatWindows | None = None


def default_out() -> Path:
    return Path("eval-out") / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def default_modes(dataset: Dataset) -> tuple[str, ...]:
    """The paper's four modes; on a benchmark, the agent (its flat baseline comes along)."""
    return ("deepread",) if dataset.scoped else DEFAULT_MODES


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def run_eval(
    config: EvalConfig,
    *,
    model: BaseChatModel | None = None,
    judge_model: BaseChatModel | None = None,
    index: Index | None = None,
    progress: bool = True,
    say: Callable[[str], None] = _stderr,
) -> EvalResult:
    """Run ``config``; chat-model objects and an open index may be passed from Python.

    Without ``model`` (and ``config.model``) every mode runs the offline extractive
    policy; without a judge, accuracy is reported as not judged.
    """
    from deepread.models.chat import chat_model

    require_plots()
    dataset = read_dataset(
        config.dataset, config.format, limit=config.limit, sample=config.sample, seed=config.seed
    )
    questions = dataset.questions
    specs = [parse_mode(m) for m in dict.fromkeys(config.modes or default_modes(dataset))]
    if model is None and config.model:
        model = chat_model(config.model)
    if judge_model is None and config.judge_model:
        judge_model = chat_model(config.judge_model, 0.0)
    model_name = config.model or (f"custom:{model._llm_type}" if model else "extractive")
    out = Path(config.out) if config.out else default_out()
    own = index is None
    if index is None:
        index = Index.open(config.store, config.collection, embeddings=config.embeddings)
    opened: list[Index] = [index] if own else []
    flat: FlatWindows | None = None
    try:
        if dataset.scoped:
            try:
                ensure_documents(index, questions, dataset.folder, ingest=config.ingest, say=say)
            except ScopeError as exc:
                raise EvalError(str(exc)) from None
        documents = index.documents()
        if not documents:
            store = redact_url(index.store)
            raise EvalError(
                f"collection {index.name!r} in store {store} is empty; ingest the "
                f"documents first: deepread ingest --store {store} --collection "
                f"{index.name} FILES…"
            )
        resolver = DocResolver(documents)
        missing = sorted({d for q in questions for d in resolver.missing(q.evidence)})
        if missing:
            say(
                f"warning: evidence documents not in collection {index.name!r} (their "
                f"quotes are looked for in all documents): {', '.join(missing)}"
            )
        setup = _Setup(config, dataset, index, opened, resolver, model, model_name, say)
        if dataset.scoped and config.flat and not config.library and any(s.is_agent for s in specs):
            pdfs = sorted(
                {
                    Path(resolver.by_id[i])
                    for q in questions
                    for i in scope_of(resolver, q)
                    if resolver.by_id[i].lower().endswith(".pdf")
                }
            )
            if pdfs:
                flat = setup.flat = FlatWindows(index.store, index.name, index.embeddings)
                flat.prepare(pdfs, say)
        judge = Judge(judge_model) if judge_model is not None else None
        modes = [_prepare(spec, setup) for spec in specs]
        result = _run(modes, dataset, out, config, judge, progress)
    finally:
        if flat is not None:
            flat.close()
        for idx in opened:
            idx.close()
    judge_name = config.judge_model or ("custom" if judge_model is not None else "")
    result.summary = write_reports(out, dataset, config, model_name, judge_name)
    return result


def _scope(setup: _Setup, q: Question) -> list[int] | None:
    """The doc_ids a question is answered from: its document's, or None (everything:
    a question without one, or any in a ``library`` run)."""
    if not q.doc:
        return None
    ids = scope_of(setup.resolver, q)
    if setup.config.library:
        return None if ids else _missing(setup, q)
    return ids or _missing(setup, q)


def _missing(setup: _Setup, q: Question) -> NoReturn:
    raise EvalError(
        f"question {q.id}: its document {q.doc!r} is not in collection {setup.index.name!r}"
    )


def _pieces(setup: _Setup, rows: list[Piece]) -> list[Shown]:
    return [Shown(source, text, frozenset()) for source, text in rows]


def _evidence(
    setup: _Setup, q: Question, located: list[Piece], shown: list[Shown]
) -> dict[str, Any]:
    """Evidence metrics: a benchmark's shingle definition, else verbatim quotes."""
    if setup.dataset.scoped:
        got = score(q, shown, setup.resolver)
        where = score(q, _pieces(setup, located), setup.resolver)
        return {"evidence_located": where["evidence_read"], **got}
    read = coverage(q.evidence, [(p.source, p.text) for p in shown], setup.resolver)
    return {
        "evidence_located": coverage(q.evidence, located, setup.resolver).share,
        "evidence_read": read.share,
        "evidence_found": list(read.found),
    }


def _flat_baseline(
    setup: _Setup, q: Question, scope: list[int] | None, spend: float
) -> dict[str, Any] | None:
    """The flat PDF-window baseline of ``q`` at the agent's ``spend`` (≥ 1,500 tokens)."""
    if setup.flat is None or not scope:
        return None
    pdf = setup.resolver.by_id[scope[0]]
    budget = max(float(MIN_BUDGET), spend)
    windows, doc = setup.flat.select(q.question, pdf, budget)
    ordered = sorted(windows, key=lambda p: p.para_idx)  # reading order, as the agent's
    shown = [Shown(pdf, p.text, doc.pages_of(p) if doc else frozenset()) for p in ordered]
    metrics = score(q, shown, setup.resolver)
    metrics |= {
        "evidence_located": metrics["evidence_read"],  # one ranking shows all
        "spend": char_tokens(sum(len(p.text) for p in windows)),
        "budget": budget,
        "observation_tokens": sum(count_tokens(p.text) for p in windows),
        "answerable": q.answerable,
    }
    return {"shown": [p.para_idx for p in windows], "metrics": metrics}


def _prepare(spec: ModeSpec, setup: _Setup) -> _Mode:
    """The per-question runner of one mode (graph built, chunk index ready)."""
    return _agent_mode(spec, setup) if spec.is_agent else _flat_mode(spec, setup)


def _agent_mode(spec: ModeSpec, setup: _Setup) -> _Mode:
    """An agent mode: the graph with the evaluated tools, every question under one context."""
    from deepread.extractive.policy import ExtractiveChatModel
    from deepread.graphs.agent import build_graph
    from deepread.nodes.context import Context

    config, index, model = setup.config, setup.index, setup.model
    window = list(EXPAND_WINDOW if config.expand else (0, 0))
    # Fixed here, so that no DEEPREAD_MODEL in the environment swaps the policy
    # behind the label the records carry.
    graph = build_graph(
        index=index,
        model=model or ExtractiveChatModel(index=index),
        tools=spec.tools,
        name=f"deepread-eval-{spec.name}",
    )
    given = {
        k: v
        for k, v in (("k", config.k), ("max_rounds", config.max_rounds), ("window", window))
        if v is not None
    }
    # The context every question runs with, the environment's DEEPREAD_<FIELD>
    # defaults included. Every field it holds goes into the records' settings, so
    # that a resumed run re-answers its questions when a setting changed (a
    # DEEPREAD_SUPPORT_THRESHOLD sweep into one --out folder).
    base = Context(**given)
    fixed = {f.name: getattr(base, f.name) for f in fields(base) if f.name != "documents"}
    settings = {
        "model": setup.model_name,
        "k": base.k,
        "window": window,
        "max_rounds": base.max_rounds,
        "tools": list(spec.tools),
        "context": fixed,
    }
    if setup.dataset.scoped:
        settings["scoring"] = SCORING
        if config.library:
            settings["library"] = True
        if setup.flat is not None:
            settings["flat"] = {"words": WORDS, "step": STEP, "min_budget": MIN_BUDGET}

    def run_agent(q: Question) -> dict[str, Any]:
        scope = _scope(setup, q)
        # the given fields only: the graph holds the index, so the context names
        # no store or collection
        context = Context(**given, documents=scope)
        # Each round is a policy step plus executor steps; leave LangGraph room for
        # max_rounds of them and the final budget answer.
        run_config: RunnableConfig = {"recursion_limit": 10 * (base.max_rounds + 2)}
        # the last "values" event is the final state, messages and outputs included
        last = deque(
            graph.stream(
                {"question": q.question}, run_config, context=context, stream_mode="values"
            ),
            maxlen=1,
        )
        values: dict[str, Any] = last[0] if last else {}
        if "stop_reason" not in values:
            raise RuntimeError("the graph ended without finalize")
        record, spend = _agent_record(setup, spec, q, values)
        flat = _flat_baseline(setup, q, scope, spend)
        if flat is not None:
            record["flat"] = flat
        return record

    return _Mode(spec, spec.variant(config.expand), settings, run_agent)


def _agent_record(
    setup: _Setup, spec: ModeSpec, q: Question, values: dict[str, Any]
) -> tuple[dict[str, Any], float]:
    """The record of one agent run (its final state ``values``) and what it spent."""
    index, resolver = setup.index, setup.resolver
    trace = trace_agent(values, resolver, spec.tools)
    usage = values.get("usage") or {}
    reported = bool(usage.get("input_tokens") or usage.get("output_tokens"))
    spend = char_tokens(trace.observation_chars)
    metrics = behaviour(values.get("tool_calls") or []) | {
        "rounds": int(values.get("rounds") or 0),
        "input_tokens": int(usage.get("input_tokens", 0)) if reported else trace.input_tokens_est,
        "output_tokens": int(usage.get("output_tokens", 0))
        if reported
        else trace.output_tokens_est,
        "tokens_estimated": not reported,
        "observation_tokens": trace.observation_tokens,
        "spend": spend,
    }
    if setup.dataset.scoped:
        memory = view(values.get("read_regions"), index_scope(index))
        shown = pieces(shown_paragraphs(index, memory), resolver)
    else:
        shown = _pieces(setup, trace.shown)
    metrics |= _evidence(setup, q, trace.located, shown)
    # what the person gets: the evidence the answer itself shows (its cited paragraphs)
    metrics |= answer_metrics(
        index,
        resolver,
        q,
        values.get("answer") or "",
        values.get("citations") or [],
        setup.dataset.scoped,
    )
    metrics |= abstention(q, values.get("stop_reason"))
    record: dict[str, Any] = {
        "answer": values.get("answer") or "",
        "citations": [
            f"{c['doc_id']}:{c['sec_id']}:{c['para_idx']}" for c in values.get("citations") or []
        ],
        "stop_reason": values.get("stop_reason"),
        "error": values.get("error"),
        "tool_calls": values.get("tool_calls") or [],
        "observations": trace.observations,
        "metrics": metrics,
    }
    return record, spend


def _flat_mode(spec: ModeSpec, setup: _Setup) -> _Mode:
    """A flat-chunk baseline: its chunk index made once, each question ranked over it."""
    config, index, resolver, model = setup.config, setup.index, setup.resolver, setup.model
    name = chunk_collection(index.name, spec.chunk_size)
    chunks = next((i for i in setup.opened if i.name == name), None)  # one opener each
    if chunks is None:
        embeddings = index.embeddings  # the same model ranks the chunks
        chunks = Index.open(index.store, name, embeddings=embeddings or config.embeddings)
        setup.opened.append(chunks)
        ensure_chunks(index, chunks, chunks.embeddings, spec.chunk_size, spec.overlap, setup.say)
    sources = {d.doc_id: d.source for d in chunks.documents()}
    titles = {d.doc_id: d.title for d in chunks.documents()}
    settings = {
        "model": setup.model_name,
        "chunk_size": spec.chunk_size,
        "overlap": spec.overlap,
        "top_k": spec.top_k,
        "budget": spec.budget,
    }
    if setup.dataset.scoped:
        settings["scoring"] = SCORING

    def run_flat_mode(q: Question) -> dict[str, Any]:
        scope = _scope(setup, q)
        mine = (
            None
            if scope is None
            else [d for d, s in sources.items() if s in {resolver.by_id[i] for i in scope}]
        )
        got = run_flat(q.question, spec, chunks, titles, model, doc_ids=mine)
        rows = [(sources.get(p.doc_id, ""), p.text) for p in got.chunks]
        shown = _evidence(setup, q, rows, _pieces(setup, rows))
        metrics = behaviour([]) | {
            "first_action": None,
            "s_to_r": None,
            "cs_cr": None,
            "rounds": 1,
            "input_tokens": got.input_tokens,
            "output_tokens": got.output_tokens,
            "tokens_estimated": got.tokens_estimated,
            "observation_tokens": got.observation_tokens,
            "spend": char_tokens(len(got.context)),
            # one ranking shows everything it located
            **shown,
            "answerable": q.answerable,
        }
        observation = {
            "tool": "chunks",
            "args": {"query": q.question},
            "shown": [
                f"{sources.get(p.doc_id, '?').rsplit('/', 1)[-1]}#{p.para_idx}" for p in got.chunks
            ],
            "tokens": got.observation_tokens,
        }
        if got.chunks:
            observation["coords"] = compact_coords([p.to_dict() for p in got.chunks])
        return {
            "answer": got.answer,
            "citations": [],
            "stop_reason": "error" if got.error else "answered",
            "error": got.error,
            "tool_calls": [],
            "observations": [observation],
            "metrics": metrics,
        }

    return _Mode(spec, spec.variant(config.expand), settings, run_flat_mode)


def _item(q: Question) -> dict[str, Any]:
    """What a record keeps of the dataset item it answers: its question and gold."""
    gold = q.to_dict()
    return {
        "id": q.id,
        "type": q.type,
        "question": q.question,
        "gold": {k: gold[k] for k in ("answer", "evidence", "doc", "answerable") if k in gold},
    }


def _finished(
    record: dict[str, Any] | None, settings: dict[str, Any], q: Question
) -> TypeGuard[dict[str, Any]]:
    """Whether ``record`` answers ``q`` as it now is, with ``settings``, without a model
    error: a resumed run skips it. An item whose question or gold (answer, evidence,
    document) changed under the same id is answered again — the old answer was to
    another question, or is scored against another gold."""
    return (
        record is not None
        and record.get("settings") == settings
        and record.get("stop_reason") != "error"
        and all(record.get(k) == v for k, v in _item(q).items())
    )


def _judge(record: dict[str, Any], judge: Judge | None) -> dict[str, Any]:
    verdict = (
        judge(record["question"], record["answer"], record["gold"]["answer"])
        if judge is not None
        else None
    )
    record["metrics"]["judge"] = verdict.correct if verdict else None
    record["metrics"]["judge_raw"] = verdict.raw if verdict else None
    if verdict and verdict.error:
        record["metrics"]["judge_error"] = verdict.error
    return record


def _run(
    modes: list[_Mode],
    dataset: Dataset,
    out: Path,
    config: EvalConfig,
    judge: Judge | None,
    progress: bool,
) -> EvalResult:
    from tqdm import tqdm

    writer = RecordWriter(out)
    result = EvalResult(out=out, summary={})
    questions = dataset.questions
    tasks: list[tuple[_Mode, Question, dict[str, Any] | None]] = []
    for mode in modes:
        done = read_records(trajectory_path(out, mode.variant), repair=True)
        for q in questions:
            old = done.get(q.id)
            if not _finished(old, mode.settings, q):
                tasks.append((mode, q, None))
            elif judge is not None and old["metrics"].get("judge") is None:
                tasks.append((mode, q, old))  # answered before without a judge: judge only
            else:
                result.skipped += 1

    def work(mode: _Mode, q: Question, old: dict[str, Any] | None) -> dict[str, Any]:
        if old is not None:
            return _judge(old, judge)
        start = time.perf_counter()
        record: dict[str, Any] = {
            **_item(q),
            "mode": mode.spec.name,
            "variant": mode.variant,
            "settings": mode.settings,
        }
        record |= mode.run(q)
        record["elapsed_s"] = round(time.perf_counter() - start, 3)
        return _judge(record, judge)

    bar = tqdm(
        total=len(tasks), desc="eval", unit="q", file=sys.stderr, disable=not progress or not tasks
    )
    pool = ThreadPoolExecutor(
        max_workers=max(1, config.workers), thread_name_prefix="deepread-eval"
    )
    futures = {pool.submit(work, *task): task for task in tasks}
    kept: set[Future] = set()

    def keep(future: Future) -> None:
        kept.add(future)
        mode, q, _ = futures[future]
        try:
            writer.write(mode.variant, future.result())
            result.ran += 1
        except Exception as exc:  # one question's failure must not stop the run
            result.failures.append(f"{mode.variant} {q.id}: {type(exc).__name__}: {exc}")
        bar.set_postfix_str(mode.variant, refresh=False)
        bar.update()

    try:
        for future in as_completed(futures):
            keep(future)
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM): the questions not started are dropped at once
        # rather than all answered unseen by the pool's shutdown, the ones running
        # finish (a thread cannot be stopped) and are written, so a resumed run skips
        # them; then the interrupt goes on.
        pool.shutdown(wait=True, cancel_futures=True)
        for future in futures:
            if future in kept or not future.done() or future.cancelled():
                continue
            # a question the interrupt itself ended is no result: it re-runs
            if isinstance(future.exception(), Exception | None):
                keep(future)
        raise
    finally:
        pool.shutdown(wait=True)
        bar.close()
    return result
